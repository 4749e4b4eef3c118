//! End to end against the official MCP Python SDK on both sides of `rpcwire proxy`: its client
//! (`tests/e2e_py/client.py`) drives the proxy in front of a server written with its
//! `MCPServer` (`tests/e2e_py/server.py`), once in an MCP 2026-07-28 session (the SDK's default:
//! a `server/discover` probe, then every request naming its version in `_meta`, no
//! `initialize`, sampling by an `input_required` result) and once with the `initialize`
//! handshake (2025-11-25, sampling by a request from the server). Needs Python >= 3.10 with
//! `venv` and the PyPI registry: the SDK is installed, pinned (`tests/e2e_py/requirements.txt`),
//! into a virtual environment under the target directory, and the test fails (never skips)
//! when that is impossible.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_rpcwire");

fn e2e_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e_py")
}

/// The virtual environment's Python, with the pinned packages installed (once: a marker file
/// holds the requirements it was made from).
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let requirements = std::fs::read_to_string(e2e_dir().join("requirements.txt")).unwrap();
        let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-py-venv");
        let python = venv.join("bin/python");
        let marker = venv.join("rpcwire-requirements.txt");
        if std::fs::read_to_string(&marker).ok().as_deref() == Some(requirements.as_str()) {
            return python;
        }
        let _ = std::fs::remove_dir_all(&venv);
        let run = |program: &Path, args: &[&str], what: &str| {
            let out = Command::new(program)
                .args(args)
                .stdin(Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("{what}: cannot run {}: {e}", program.display()));
            assert!(
                out.status.success(),
                "{what} failed:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let system = Path::new("python3");
        let version = run(
            system,
            &["-c", "import sys; print(sys.version_info >= (3, 10))"],
            "the Python e2e test needs python3 >= 3.10",
        );
        assert_eq!(
            version.trim(),
            "True",
            "the Python e2e test needs python3 >= 3.10"
        );
        run(
            system,
            &["-m", "venv", venv.to_str().unwrap()],
            "python3 -m venv (Debian: the python3-venv package)",
        );
        let requirements_path = e2e_dir().join("requirements.txt");
        run(
            &python,
            &[
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
                requirements_path.to_str().unwrap(),
            ],
            "pip install of tests/e2e_py/requirements.txt (is the PyPI registry reachable?)",
        );
        std::fs::write(&marker, requirements).unwrap();
        python
    })
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&c| c == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice(l).unwrap_or_else(|e| {
                panic!("not a JSON line ({e}): {:?}", String::from_utf8_lossy(l))
            })
        })
        .collect()
}

/// Runs the SDK client's session in `mode` through the proxy; returns its output directory
/// after the client's own checks passed.
fn session(mode: &str) -> PathBuf {
    let python = python();
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("e2e-py-{mode}"));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let mut client = Command::new(python)
        .arg(e2e_dir().join("client.py"))
        .args([BIN, out.to_str().unwrap(), mode])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = client.stdout.take().unwrap();
    let report = thread::spawn(move || std::io::read_to_string(stdout).unwrap());
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = client.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = client.kill();
            panic!("the Python SDK client did not finish in 120 s");
        }
        thread::sleep(Duration::from_millis(50));
    };
    let report = report.join().unwrap();
    println!("{report}");
    assert!(
        status.success(),
        "the SDK client's checks failed:\n{report}"
    );
    assert_eq!(report.matches("ok - ").count(), 11, "{report}");
    out
}

/// What both sessions must show: each side read exactly what the other wrote, the proxy saw a
/// clean session, and so do the offline checks of its log and of the two streams.
fn assert_clean(out: &Path) -> (Vec<Value>, Vec<Value>, Vec<Value>) {
    let read = |name: &str| std::fs::read(out.join(name)).unwrap();
    let (client_out, server_in) = (read("client-out"), read("server-in"));
    let (server_out, client_in) = (read("server-out"), read("client-in"));
    assert!(!client_out.is_empty() && !server_out.is_empty());
    assert_eq!(
        client_out, server_in,
        "the server did not read what the client wrote"
    );
    assert_eq!(
        server_out, client_in,
        "the client did not read what the server wrote"
    );
    let log = lines(&read("proxy.log"));
    let flagged: Vec<&Value> = log
        .iter()
        .filter(|r| r.get("violation").is_some_and(|v| !v.is_null()))
        .collect();
    assert!(flagged.is_empty(), "{flagged:#?}");
    assert_eq!(
        log.last().unwrap()["summary"]["total_violations"],
        0,
        "{log:#?}"
    );
    for args in [
        vec![
            "--session-log".to_string(),
            out.join("proxy.log").display().to_string(),
        ],
        vec![
            "--c2s".to_string(),
            out.join("client-out").display().to_string(),
            "--s2c".to_string(),
            out.join("server-out").display().to_string(),
        ],
    ] {
        let check = Command::new(BIN)
            .args(["check", "--json"])
            .args(&args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&check.stdout);
        let summary = lines(&check.stdout).last().unwrap()["summary"].clone();
        assert_eq!(summary["total_violations"], 0, "{args:?}: {stdout}");
        assert_eq!(check.status.code(), Some(0), "{args:?}: {stdout}");
    }
    (lines(&client_out), lines(&server_out), log)
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect()
}

#[test]
fn python_sdk_2026_07_28_session_through_the_proxy() {
    let out = session("auto");
    let (c2s, s2c, log) = assert_clean(&out);
    let requests: Vec<&Value> = c2s
        .iter()
        .filter(|m| m["method"].is_string() && m.get("id").is_some())
        .collect();
    assert_eq!(requests[0]["method"], "server/discover");
    assert!(!methods(&c2s).contains(&"initialize"), "{c2s:#?}");
    // Every request names its version, and the proxy's log says which.
    for request in &requests {
        assert_eq!(
            request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
            "{request}"
        );
    }
    let logged: Vec<&Value> = log
        .iter()
        .filter(|r| r["dir"] == "c2s" && r["kind"] == "request")
        .map(|r| &r["protocol_version"])
        .collect();
    assert_eq!(logged.len(), requests.len());
    assert!(logged.iter().all(|v| *v == "2026-07-28"), "{logged:?}");
    // Sampling went as a result asking for input, answered by the client's second call: no
    // request from the server (the proxy would have dropped it in this version).
    assert!(methods(&s2c)
        .iter()
        .all(|m| m.starts_with("notifications/")));
    let input_required = s2c
        .iter()
        .filter(|m| m["result"]["resultType"] == "input_required")
        .count();
    assert_eq!(input_required, 1, "{s2c:#?}");
    let retried = c2s
        .iter()
        .filter(|m| m["params"].get("inputResponses").is_some())
        .count();
    assert_eq!(retried, 1, "{c2s:#?}");
    // A `subscriptions/listen` stream: acknowledged, one change on it, closed by the client's
    // cancellation (its request waits as long as it is open).
    let listen = requests
        .iter()
        .find(|m| m["method"] == "subscriptions/listen")
        .unwrap();
    let on_stream: Vec<&str> = s2c
        .iter()
        .filter(|m| m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == listen["id"])
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(
        on_stream,
        [
            "notifications/subscriptions/acknowledged",
            "notifications/tools/list_changed"
        ]
    );
    assert!(c2s
        .iter()
        .any(|m| m["method"] == "notifications/cancelled"
            && m["params"]["requestId"] == listen["id"]));
}

#[test]
fn python_sdk_initialize_session_through_the_proxy() {
    let out = session("legacy");
    let (c2s, s2c, log) = assert_clean(&out);
    assert_eq!(c2s[0]["method"], "initialize");
    // (The log holds each id's wire token as a string.)
    let initialize_id = c2s[0]["id"].to_string();
    let negotiated = log
        .iter()
        .find(|r| r["dir"] == "s2c" && r["id"].as_str() == Some(initialize_id.as_str()))
        .unwrap();
    assert_eq!(negotiated["protocol_version"], "2025-11-25", "{negotiated}");
    // Sampling went as the server's request, answered by the client through the proxy.
    let sampling: Vec<&Value> = s2c
        .iter()
        .filter(|m| m["method"] == "sampling/createMessage")
        .collect();
    assert_eq!(sampling.len(), 1, "{s2c:#?}");
    let answer = c2s
        .iter()
        .find(|m| m["id"] == sampling[0]["id"] && m.get("result").is_some());
    assert_eq!(answer.unwrap()["result"]["model"], "stub-model", "{c2s:#?}");
}
