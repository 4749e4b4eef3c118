//! The real MCP peers of the end-to-end tests: the official TypeScript SDK and reference
//! `server-everything` (npm, `tests/e2e/`), the official Python SDK (PyPI, `tests/e2e_py/`; also
//! the header differential, `tests/headers_python/`),
//! each installed pinned on first use, and what the tests read of a recorded session. A peer
//! that cannot be installed fails the test: it never skips.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The proxy under test.
#[cfg(feature = "cli")]
pub const BIN: &str = env!("CARGO_BIN_EXE_rpcwire");

/// A directory of `tests/`.
pub fn tests_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}

/// A fresh output directory under the target directory.
pub fn out_dir(name: &str) -> PathBuf {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    out
}

/// Runs `program` with `args` to its end, or panics saying `what` needs it.
fn run(program: &Path, args: &[&str], dir: Option<&Path>, what: &str) -> String {
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::null());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Node >= 20 with the pinned packages of `tests/e2e` (`npm ci` unless they are there).
pub fn node_packages() -> PathBuf {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let version = run(
                Path::new("node"),
                &["--version"],
                None,
                "the e2e tests need Node >= 20",
            );
            let major: u32 = version
                .trim()
                .trim_start_matches('v')
                .split('.')
                .next()
                .and_then(|m| m.parse().ok())
                .unwrap_or(0);
            assert!(
                major >= 20,
                "the e2e tests need Node >= 20, found {version}"
            );
            let dir = tests_dir("e2e");
            let installed = ["sdk", "server-everything"].iter().all(|package| {
                dir.join(format!(
                    "node_modules/@modelcontextprotocol/{package}/package.json"
                ))
                .exists()
            });
            if !installed {
                run(
                    Path::new("npm"),
                    &["ci", "--no-audit", "--no-fund"],
                    Some(&dir),
                    "`npm ci` in tests/e2e (is the npm registry reachable?)",
                );
            }
            dir
        })
        .clone()
}

/// The reference `server-everything`'s entry point (run it with `node PATH stdio`).
pub fn server_everything() -> PathBuf {
    node_packages().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// A virtual environment's Python with the pinned packages of `tests/e2e_py/requirements.txt`
/// (made once under the target directory: a marker file holds the requirements it was made
/// from). Needs python3 >= 3.10 with `venv`, and PyPI.
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let requirements_path = tests_dir("e2e_py").join("requirements.txt");
        let requirements = std::fs::read_to_string(&requirements_path).unwrap();
        let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-py-venv");
        let python = venv.join("bin/python");
        let marker = venv.join("rpcwire-requirements.txt");
        if std::fs::read_to_string(&marker).ok().as_deref() == Some(requirements.as_str()) {
            return python;
        }
        let _ = std::fs::remove_dir_all(&venv);
        let need = "the Python e2e tests need python3 >= 3.10";
        let system = Path::new("python3");
        let new_enough = run(
            system,
            &["-c", "import sys; print(sys.version_info >= (3, 10))"],
            None,
            need,
        );
        assert_eq!(new_enough.trim(), "True", "{need}");
        let venv_arg = venv.to_str().unwrap();
        run(
            system,
            &["-m", "venv", venv_arg],
            None,
            "python3 -m venv (Debian: python3-venv)",
        );
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
            None,
            "pip install of tests/e2e_py/requirements.txt (is PyPI reachable?)",
        );
        std::fs::write(&marker, requirements).unwrap();
        python
    })
}

/// Runs an SDK client script to its end (it exits non-zero when one of its own checks fails)
/// and returns what it printed.
pub fn run_client(mut client: Command) -> String {
    let mut child = client
        // (No `__pycache__` in the source tree from the Python scripts' shared module.)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let report = thread::spawn(move || std::io::read_to_string(stdout).unwrap());
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the SDK client did not finish in 120 s");
        }
        thread::sleep(Duration::from_millis(50));
    };
    let report = report.join().unwrap();
    println!("{report}");
    assert!(
        status.success(),
        "the SDK client's checks failed:\n{report}"
    );
    report
}

/// What `rpcwire check` finds offline in a session recorded into `out`.
pub struct Offline {
    /// The source: `log` (the proxy's log replayed, `--session-log`) or `streams` (the two
    /// recordings merged, `--c2s`/`--s2c`).
    pub source: &'static str,
    /// Its summary's violations, by `dir/violation`.
    pub violations: serde_json::Map<String, Value>,
    pub exit_code: Option<i32>,
    /// What it printed, for a failure's message.
    pub stdout: String,
}

/// The session recorded into `out` checked offline: from the proxy's log, then from the two
/// streams.
#[cfg(feature = "cli")]
pub fn check_offline(out: &Path) -> [Offline; 2] {
    let path = |name: &str| out.join(name).display().to_string();
    let log = ["--session-log".to_string(), path("proxy.log")];
    let streams = [
        "--c2s".to_string(),
        path("client-out"),
        "--s2c".to_string(),
        path("server-out"),
    ];
    let check = |source, args: &[String]| {
        let check = Command::new(BIN)
            .args(["check", "--json"])
            .args(args)
            .output()
            .unwrap();
        let records = lines(&check.stdout);
        let summary = &records.last().expect("a summary")["summary"];
        Offline {
            source,
            violations: summary["violations"].as_object().unwrap().clone(),
            exit_code: check.status.code(),
            stdout: String::from_utf8_lossy(&check.stdout).into_owned(),
        }
    };
    [check("log", &log), check("streams", &streams)]
}

/// The first line where two recordings differ, for a readable failure.
pub fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (la, lb): (Vec<&[u8]>, Vec<&[u8]>) = (
        a.split(|&c| c == b'\n').collect(),
        b.split(|&c| c == b'\n').collect(),
    );
    for i in 0..la.len().max(lb.len()) {
        let (x, y) = (la.get(i), lb.get(i));
        if x != y {
            return format!(
                "line {}:\n  {:?}\n  {:?}",
                i + 1,
                x.map(|l| String::from_utf8_lossy(l)),
                y.map(|l| String::from_utf8_lossy(l))
            );
        }
    }
    "no line differs".into()
}

/// Every line of a recording, as JSON.
pub fn lines(bytes: &[u8]) -> Vec<Value> {
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
