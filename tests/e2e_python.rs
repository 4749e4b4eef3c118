//! End to end with the official MCP Python SDK through `rpcwire proxy`. Its client
//! (`tests/e2e_py/client.py`) drives the proxy in front of a server written with its
//! `MCPServer` (`tests/e2e_py/server.py`), once in an MCP 2026-07-28 session (the SDK's default:
//! a `server/discover` probe, then every request naming its version in `_meta`, no
//! `initialize`, sampling by an `input_required` result, a `subscriptions/listen` stream) and
//! once with the `initialize` handshake (2025-11-25, sampling by a request from the server);
//! and in its default mode in front of the TypeScript reference `server-everything`
//! (`tests/e2e_py/against_everything.py`), which refuses the probe. Needs Python >= 3.10 with
//! `venv` and PyPI, and Node >= 20 with npm for the last (see `tests/peers/`).
#![cfg(feature = "cli")]

mod peers;

use std::path::{Path, PathBuf};
use std::process::Command;

use peers::{BIN, lines};
use serde_json::Value;

/// Runs the SDK client's session in `mode` through the proxy; returns its output directory
/// after the client's own checks passed.
fn session(mode: &str) -> PathBuf {
    let out = peers::out_dir(&format!("e2e-py-{mode}"));
    let mut client = Command::new(peers::python());
    client
        .arg(peers::tests_dir("e2e_py").join("client.py"))
        .args([BIN, out.to_str().unwrap(), mode]);
    let report = peers::run_client(client);
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
    for offline in peers::check_offline(out) {
        let (source, stdout) = (offline.source, &offline.stdout);
        assert!(offline.violations.is_empty(), "{source}: {stdout}");
        assert_eq!(offline.exit_code, Some(0), "{source}: {stdout}");
    }
    (lines(&client_out), lines(&server_out), log)
}

/// The version the server's reply to `initialize` names, as the proxy logged it.
fn negotiated_version<'a>(c2s: &[Value], log: &'a [Value]) -> &'a Value {
    let initialize = c2s.iter().find(|m| m["method"] == "initialize").unwrap();
    // (The log holds each id's wire token as a string.)
    let id = initialize["id"].to_string();
    let reply = log
        .iter()
        .find(|r| r["dir"] == "s2c" && r["id"].as_str() == Some(id.as_str()))
        .unwrap();
    &reply["protocol_version"]
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
    // Every request names its version. The proxy reads it while the session has none: from
    // the probe, whose success made it the session's; not after.
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
    assert_eq!(logged[0], "2026-07-28");
    assert!(logged[1..].iter().all(|v| v.is_null()), "{logged:?}");
    // Sampling went as a result asking for input, answered by the client's second call: no
    // request from the server (the proxy would have dropped it in this version).
    assert!(
        methods(&s2c)
            .iter()
            .all(|m| m.starts_with("notifications/"))
    );
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
    assert!(
        c2s.iter().any(|m| m["method"] == "notifications/cancelled"
            && m["params"]["requestId"] == listen["id"])
    );
}

#[test]
fn python_sdk_initialize_session_through_the_proxy() {
    let out = session("legacy");
    let (c2s, s2c, log) = assert_clean(&out);
    assert_eq!(c2s[0]["method"], "initialize");
    assert_eq!(negotiated_version(&c2s, &log), "2025-11-25");
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

/// The Python SDK's client in its default mode against the TypeScript reference
/// `server-everything`, which speaks no MCP 2026-07-28: the `server/discover` probe is refused
/// and the client falls back to `initialize`. The proxy follows the handshake's version, not
/// the probe's, so the server's `roots/list` request is forwarded and answered.
#[test]
fn python_sdk_client_falls_back_against_server_everything() {
    let out = peers::out_dir("e2e-py-everything");
    let mut client = Command::new(peers::python());
    client
        .arg(peers::tests_dir("e2e_py").join("against_everything.py"))
        .arg(BIN)
        .arg(peers::server_everything())
        .arg(&out);
    let report = peers::run_client(client);
    assert_eq!(report.matches("ok - ").count(), 6, "{report}");
    let (c2s, s2c, log) = assert_clean(&out);
    assert_eq!(methods(&c2s)[..2], ["server/discover", "initialize"]);
    assert_eq!(s2c[0]["error"]["code"], -32601, "{}", s2c[0]);
    assert_eq!(negotiated_version(&c2s, &log), "2025-11-25");
    let roots = s2c.iter().find(|m| m["method"] == "roots/list").unwrap();
    let answer = c2s
        .iter()
        .find(|m| m["id"] == roots["id"] && m.get("result").is_some())
        .unwrap();
    assert_eq!(answer["result"]["roots"][0]["uri"], "file:///srv/project");
}
