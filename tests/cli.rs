//! `rpcwire check` over the recorded MCP session (the official TypeScript SDK client and a
//! reference server), and its exit codes.
#![cfg(feature = "cli")]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

fn data(file: &str) -> String {
    format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `rpcwire check --json ARGS`, returning the records, the summary and the exit code.
fn check(args: &[&str], stdin: Option<&[u8]>) -> (Vec<Value>, Value, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .arg("check")
        .arg("--json")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.unwrap_or_default())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let mut lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = lines.pop().unwrap()["summary"].clone();
    (lines, summary, out.status.code().unwrap())
}

#[test]
fn capture_client_to_server() {
    let (records, summary, code) = check(&[&data("capture-c2s.ndjson")], None);
    assert_eq!(code, 0);
    assert_eq!(records.len(), 14);
    assert_eq!(summary["messages"], 14);
    assert_eq!(summary["by_kind"]["request"], 13);
    assert_eq!(summary["by_kind"]["notification"], 1);
    let first = &records[0];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "frame",
            "offset",
            "kind",
            "id",
            "method",
            "error_code",
            "reply"
        ]
    );
    assert_eq!(first["id"], "0");
    assert_eq!(first["method"], "initialize");
    assert_eq!(records[1]["id"], Value::Null);
}

#[test]
fn capture_server_to_client() {
    let (records, summary, code) =
        check(&["--direction", "s2c", &data("capture-s2c.ndjson")], None);
    assert_eq!(code, 0);
    assert_eq!(records.len(), 13);
    assert_eq!(summary["by_kind"]["success_response"], 12);
    assert_eq!(summary["by_kind"]["error_response"], 1);
    assert_eq!(summary["by_error_code"]["-32601"], 1);
}

#[test]
fn invalid_stream_reports_replies_and_exits_1() {
    let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"x\"}\n{oops\n{\"jsonrpc\":\"2.0\",\"id\":1}";
    let (records, summary, code) = check(&[], Some(input));
    assert_eq!(code, 1);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["request", "skip", "invalid", "parse_error", "invalid"]
    );
    assert_eq!(
        records[2]["reply"],
        serde_json::json!({"code": -32600, "id": "\"a\""})
    );
    assert_eq!(
        records[3]["reply"],
        serde_json::json!({"code": -32700, "id": "<absent>"})
    );
    assert_eq!(records[3]["offset"], 82);
    assert_eq!(summary["by_reply_code"]["-32600"], 2);
    // The same id-only frame is an invalid response when a client reads it: no reply.
    let (records, _, _) = check(
        &["--direction", "s2c", "--dialect", "jsonrpc"],
        Some(b"{\"jsonrpc\":\"2.0\",\"id\":1}\n{x\n"),
    );
    assert_eq!(records[0]["kind"], "invalid_response");
    assert_eq!(records[0]["reply"], Value::Null);
    assert_eq!(
        records[1]["reply"],
        serde_json::json!({"code": -32700, "id": "null"})
    );
}

#[test]
fn usage_and_io_errors_exit_2() {
    let (_, _, code) = {
        let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
            .args(["check", "/nonexistent/file"])
            .output()
            .unwrap();
        (0, 0, out.status.code().unwrap())
    };
    assert_eq!(code, 2);
    let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .args(["check", "--dialect", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn over_long_frame_is_a_framing_error_and_the_stream_goes_on() {
    let mut input = vec![b'x'; 300];
    input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
    let (records, _, code) = check(&["--max-frame", "100"], Some(&input));
    assert_eq!(code, 1);
    assert_eq!(records[0]["kind"], "framing_error");
    assert_eq!(records[1]["kind"], "notification");
    assert_eq!(records[1]["offset"], 301);
}
