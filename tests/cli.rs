//! `rpcwire check` over the recorded MCP session (the official TypeScript SDK client and a
//! reference server), and its exit codes.
#![cfg(feature = "cli")]

mod check_cli;
mod cli_reference;

use std::process::{Command, Stdio};
use std::time::Duration;

use check_cli::run_check;
use serde_json::{Value, json};

/// The lines given, each ended with `\n`, as one `&'static str`: a stream, a log.
macro_rules! ndjson {
    ($($line:expr),+ $(,)?) => {
        concat!($($line, "\n"),+)
    };
}

/// The path of `file` under tests/data.
fn data(file: &str) -> String {
    format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// The `kind` of every record.
fn kinds(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect()
}

/// The records that carry a violation: each one's frame number and violation.
fn flagged(records: &[Value]) -> Vec<(u64, &str)> {
    records
        .iter()
        .filter(|r| !r["violation"].is_null())
        .map(|r| {
            (
                r["frame"].as_u64().unwrap(),
                r["violation"].as_str().unwrap(),
            )
        })
        .collect()
}

/// [`run_check`] with `--json`: the records, the summary and the exit code.
fn check(args: &[&str], stdin: Option<&[u8]>) -> (Vec<Value>, Value, i32) {
    let args: Vec<&str> = ["--json"].into_iter().chain(args.iter().copied()).collect();
    let out = run_check(&args, stdin.unwrap_or_default());
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
    let kinds = kinds(&records);
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

/// `rpcwire --help` says what the tool does: it showed the crate's description, which is the
/// library's ("Zero-copy, one-pass codec ...").
#[test]
fn help_describes_the_tool_not_the_library() {
    let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        help.lines().next(),
        Some("Validating tools for JSON-RPC 2.0 and MCP streams"),
        "{help}"
    );
}

/// Each subcommand's `-h` is a summary that fits a screen and gives the exit status and an
/// example; `--help` keeps the whole text (the proxy's: what it forwards and reports).
#[test]
fn short_help_is_a_screen_with_the_exit_status() {
    let help = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    for command in ["check", "proxy"] {
        let short = help(&[command, "-h"]);
        assert!(short.lines().count() <= 40, "{command} -h:\n{short}");
        assert!(short.contains("Exit status: "), "{command} -h:\n{short}");
        assert!(
            short.contains(&format!("  rpcwire {command} ")),
            "{command} -h:\n{short}"
        );
        let long = help(&[command, "--help"]);
        assert!(long.lines().count() > short.lines().count(), "{command}");
    }
    assert!(!help(&["proxy", "-h"]).contains("(reply_without_id)"));
    assert!(help(&["proxy", "--help"]).contains("(reply_without_id)"));
}

/// A usage error stays one line, and keeps what helps to fix it: clap's tip naming the
/// option, value or subcommand closest to a mistyped one (the one line dropped it). Not
/// clap's other tip, to pass a mistyped option as a value after `--`: for the proxy that
/// would make it the server's command (nor is a mistyped option taken for a server command
/// given without `--`).
#[test]
fn a_usage_error_names_what_was_probably_meant() {
    for (args, meant) in [
        (
            &["check", "--dialct", "mcp"][..],
            "a similar argument exists: '--dialect'",
        ),
        (&["chek"], "a similar subcommand exists: 'check'"),
        (
            &["check", "--dialect", "jsonprc"],
            "a similar value exists: 'jsonrpc'",
        ),
    ] {
        let stderr = refused(args);
        assert!(stderr.starts_with("rpcwire: error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(meant), "{args:?}: {stderr}");
    }
    for args in [
        &["proxy", "--bogus", "--", "cat"][..],
        &["check", "--bogus"],
    ] {
        let stderr = refused(args);
        assert!(
            stderr.contains("unexpected argument '--bogus'")
                && !stderr.contains("-- --bogus")
                && !stderr.contains("the server's command"),
            "{args:?}: {stderr}"
        );
    }
}

/// Runs `rpcwire ARGS` with no input and expects it refused: exit 2, nothing on the standard
/// output, and one line on the standard error, which it returns.
fn refused(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    stderr
}

/// A frame or batch limit of 0 is a usage error (exit 2, one line naming the option): it made
/// every message a `framing_error` (every batch an `invalid`), a report of a fine stream as
/// invalid, exit 1.
#[test]
fn a_zero_frame_or_batch_limit_is_a_usage_error() {
    let capture = data("capture-c2s.ndjson");
    for option in ["--max-frame", "--max-batch"] {
        let stderr = refused(&["check", option, "0", &capture]);
        assert!(stderr.contains(option), "{option}: {stderr}");
    }
    // 1 is a limit like any other.
    let (records, _, code) = check(&["--max-frame", "1", &capture], None);
    assert_eq!(
        (records[0]["kind"].as_str(), code),
        (Some("framing_error"), 1)
    );
}

/// The names of `value`'s members, and of the members of the objects it holds (a summary's
/// counts, keyed by kinds and codes, excepted: those keys are data).
fn field_names(value: &Value, into: &mut std::collections::BTreeSet<String>) {
    for (key, inner) in value.as_object().unwrap() {
        into.insert(key.clone());
        let data = key.starts_with("by_") || key == "messages" || key == "violations";
        let data = data || key.starts_with("requests_by") || key.starts_with("errors_by");
        if let Some(inner) = inner.as_object().filter(|_| !data) {
            into.extend(inner.keys().cloned());
        }
    }
}

/// Asserts that docs/cli.md's `described` text names each of `names`, as `name` or "name".
fn assert_documented(described: &str, names: &std::collections::BTreeSet<String>) {
    for name in names {
        assert!(
            described.contains(&format!("`{name}`")) || described.contains(&format!("\"{name}\"")),
            "{name} missing from docs/cli.md"
        );
    }
}

/// Every field of `check --json`'s records and summary, and every `kind`, is named in docs/cli.md's
/// `rpcwire check` section (the summary's `valid`, `by_reply_code` and
/// `invalid_batch_elements`, and the kinds, were not); and so is every field of the session
/// checks' records, events and summary, in that section or in `rpcwire proxy`'s (its `frames`
/// and the counters' fields were not).
#[test]
fn every_field_and_kind_of_a_check_report_is_documented() {
    let described = cli_reference::section("## `rpcwire check`");
    let c2s = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\
{\"jsonrpc\":\"2.0\",\"method\":\"note\"}\n\n{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"x\"}\n{oops\n\
[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"p\"},1]\n";
    let mut c2s = c2s.to_vec();
    c2s.extend_from_slice(&[b'x'; 200]);
    c2s.push(b'\n');
    let s2c = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"no\"}}\n{\"jsonrpc\":\"2.0\",\"id\":3}\n";
    let mut fields = std::collections::BTreeSet::new();
    let mut kinds = std::collections::BTreeSet::new();
    for (direction, stream) in [("c2s", &c2s[..]), ("s2c", &s2c[..])] {
        let args = [
            "--dialect",
            "jsonrpc",
            "--max-frame",
            "100",
            "--direction",
            direction,
        ];
        let (records, summary, _) = check(&args, Some(stream));
        for r in &records {
            field_names(r, &mut fields);
            kinds.insert(r["kind"].as_str().unwrap().to_string());
        }
        field_names(&json!({ "summary": summary }), &mut fields);
    }
    for expected in ["at", "invalid_batch_elements", "by_reply_code", "code"] {
        assert!(fields.contains(expected), "{expected} not in {fields:?}");
    }
    assert_eq!(kinds.len(), 10, "{kinds:?}");
    assert_documented(&described, &fields);
    assert_documented(&described, &kinds);

    // The session checks, over two streams: a batch's elements, a request left unanswered.
    let described = described + &cli_reference::section("## `rpcwire proxy`");
    let (c2s, s2c) = (
        b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}]\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"no\"}}\n",
    );
    let (records, summary, code) =
        check_streams("cli-report-fields", &["--dialect", "jsonrpc"], c2s, s2c);
    assert_eq!(code, 1);
    let mut fields = std::collections::BTreeSet::new();
    for r in &records {
        field_names(r, &mut fields);
    }
    field_names(&json!({ "summary": summary }), &mut fields);
    for expected in [
        "element",
        "event",
        "frames",
        "requests_by_method",
        "errors_by_code",
    ] {
        assert!(fields.contains(expected), "{expected} not in {fields:?}");
    }
    assert_documented(&described, &fields);
}

/// A stream of messages given as a proxy log is a bad log (exit 2, one line saying what it
/// is), not a session without messages: a message with a string id, or a notification, was
/// skipped as a record of counters, and the check passed (exit 0) having checked nothing. A
/// line that is no record of a log at all is refused too; the counters' records still pass.
#[test]
fn a_stream_of_messages_is_no_session_log() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-not-a-log");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, body, says) in [
        (
            "messages.ndjson",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\"}\n",
            "a JSON-RPC message, not a record of an `rpcwire proxy --log` log",
        ),
        (
            "numeric-id.ndjson",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\n",
            "a JSON-RPC message",
        ),
        (
            "other.ndjson",
            "{\"a\":1}\n",
            "not a record of an `rpcwire proxy --log` log",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        let stderr = refused(&["check", "--session-log", path.to_str().unwrap()]);
        assert!(
            stderr.contains("line 1 of the session log"),
            "{name}: {stderr}"
        );
        assert!(stderr.contains(says), "{name}: {stderr}");
    }
    let counters = "{\"rpcwire_proxy\":{\"dialect\":\"mcp\"}}\n{\"t_ms\":5,\"stats\":{}}\n\
                    {\"t_ms\":9,\"summary\":{}}\n";
    let path = dir.join("counters.ndjson");
    std::fs::write(&path, counters).unwrap();
    let (_, _, code, _) = check_session(&["--json", "--session-log", path.to_str().unwrap()]);
    assert_eq!(code, 0);
}

/// An error reading a file (a directory opens, then fails to read) names the file, in each
/// mode that reads files.
#[test]
fn a_read_error_names_its_file() {
    // Under the build's own scratch directory (one per clone, cleaned with `target`), not the
    // system's temporary directory, where a directory per run was left behind.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-read-error-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.to_str().unwrap();
    let capture = data("capture-c2s.ndjson");
    for args in [
        vec!["check", dir],
        vec!["check", "--c2s", dir, "--s2c", &capture],
        vec!["check", "--c2s", &capture, "--s2c", dir],
        vec!["check", "--session-log", dir],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(dir), "{args:?}: {stderr}");
    }
}

/// An error reading the standard input (a directory given as it) names it, as it does for a
/// session's stream or log given as `-`: `check` of a stream said only "Is a directory".
#[test]
fn a_read_error_of_the_standard_input_names_it() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-read-error-stdin");
    std::fs::create_dir_all(&dir).unwrap();
    for args in [
        &["check"][..],
        &["check", "-"],
        &["check", "--session-log", "-"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
            .args(args)
            .stdin(std::fs::File::open(&dir).unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr.starts_with("rpcwire check: standard input: "),
            "{args:?}: {stderr}"
        );
    }
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

/// A batch of more elements than `--max-batch` is one invalid record, answered with one
/// -32600 and a null id (JSON-RPC); the default limit is 100,000 elements.
#[test]
fn a_batch_over_max_batch_is_one_invalid_request() {
    let input = b"[1,1,1]\n[1,1]\n";
    let (records, _, code) = check(&["--dialect", "jsonrpc", "--max-batch", "2"], Some(input));
    assert_eq!(code, 1);
    assert_eq!(records[0]["kind"], "invalid");
    assert_eq!(
        records[0]["reply"],
        serde_json::json!({"code": -32600, "id": "null"})
    );
    assert_eq!(
        records[0]["detail"],
        "batch has more elements than its limit of 2 (max_batch_len); --max-batch sets the limit"
    );
    assert_eq!(records[1]["kind"], "batch");
    let big = format!("[{}]\n", vec!["1"; 100_001].join(","));
    let (records, _, _) = check(&["--dialect", "jsonrpc"], Some(big.as_bytes()));
    assert_eq!(records[0]["kind"], "invalid");
}

/// In a server's stream (and a client's), a batch over `--max-batch` made only of replies is
/// one `invalid_response`, owed no reply; one holding a request is `invalid`, owed the -32600,
/// as docs/cli.md's option tables say.
#[test]
fn a_server_batch_of_replies_over_max_batch_is_an_invalid_response() {
    let replies = br#"[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"result":1},{"jsonrpc":"2.0","id":3,"result":1}]
[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"method":"a"},{"jsonrpc":"2.0","id":3,"result":1}]
"#;
    // In a client's stream too: a batch of replies only is owed nothing.
    for direction in ["s2c", "c2s"] {
        let args = [
            "--dialect",
            "jsonrpc",
            "--direction",
            direction,
            "--max-batch",
            "2",
        ];
        let (records, _, code) = check(&args, Some(replies));
        assert_eq!(code, 1, "{direction}");
        assert_eq!(
            (&records[0]["kind"], &records[0]["reply"]),
            (&json!("invalid_response"), &Value::Null),
            "{direction}"
        );
        assert_eq!(records[1]["kind"], "invalid", "{direction}");
        if direction == "s2c" {
            assert_eq!(records[1]["reply"], json!({"code": -32600, "id": "null"}));
        }
    }
}

/// Runs `rpcwire check ARGS` (session mode), returning records, summary, exit code, stderr.
fn check_session(args: &[&str]) -> (Vec<Value>, Value, i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .arg("check")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let (records, summary) = records_and_summary(out.stdout);
    let stderr = String::from_utf8(out.stderr).unwrap();
    (records, summary, out.status.code().unwrap(), stderr)
}

/// The records and the summary of `check --json`'s report.
fn records_and_summary(stdout: Vec<u8>) -> (Vec<Value>, Value) {
    let mut lines: Vec<Value> = String::from_utf8(stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = lines.pop().unwrap()["summary"].clone();
    (lines, summary)
}

/// [`check_session`] with the CPU time `rpcwire` spent (user and system) in place of its
/// stderr: for budgets against quadratic work, which a loaded machine does not exceed as it
/// does budgets of wall time (builds or fuzzers on the same cores make the wall time several
/// times as long, the CPU time hardly longer). `rpcwire` runs under `sh`, whose `times` writes
/// last the CPU time of the children it waited for: `rpcwire`'s alone (`getrusage` would give
/// that of all the children of this process, the other tests' run meanwhile among them). In
/// the C locale: bash writes the times with the locale's decimal point (`0m2,130s` in a German
/// one), which the parse below does not read.
fn check_session_cpu(args: &[&str]) -> (Vec<Value>, Value, i32, Duration) {
    let out = Command::new("sh")
        .env("LC_ALL", "C")
        .args(["-c", r#""$0" "$@"; status=$?; times >&2; exit $status"#])
        .arg(env!("CARGO_BIN_EXE_rpcwire"))
        .arg("check")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    // User then system time, in minutes and seconds: `0m2.130s 0m0.250s`.
    let minutes_and_seconds = |time: &str| {
        let (minutes, seconds) = time.strip_suffix('s')?.split_once('m')?;
        let seconds = minutes.parse::<f64>().ok()? * 60.0 + seconds.parse::<f64>().ok()?;
        Some(Duration::from_secs_f64(seconds))
    };
    let children: Vec<Duration> = (stderr.lines().last().unwrap_or_default())
        .split_whitespace()
        .map(minutes_and_seconds)
        .collect::<Option<_>>()
        .unwrap_or_default();
    assert_eq!(children.len(), 2, "no times from sh: {stderr}");
    let cpu = children.iter().sum();
    let (records, summary) = records_and_summary(out.stdout);
    (records, summary, out.status.code().unwrap(), cpu)
}

/// The violations `check --session-log` finds in a log of `header` then `body`, written
/// under `dir`.
fn log_violations(dir: &std::path::Path, header: &str, body: &str) -> Value {
    let log = dir.join("session.ndjson");
    std::fs::write(&log, format!("{header}\n{body}")).unwrap();
    let (_, summary, _, _) = check_session(&["--json", "--session-log", log.to_str().unwrap()]);
    summary["violations"].clone()
}

/// [`log_violations`] of `body` under the header it is given, written under
/// `target/tmp/NAME`: to replay one log as proxies of different versions wrote it.
fn replay_under_headers(name: &str, body: &'static str) -> impl Fn(&str) -> Value + use<> {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    move |header| log_violations(&dir, header, body)
}

/// `check --json ARGS --c2s --s2c` of two streams written under `target/tmp/NAME`: the
/// records, the summary and the exit code.
fn check_streams(
    name: &str,
    args: &[&str],
    c2s: impl AsRef<[u8]>,
    s2c: impl AsRef<[u8]>,
) -> (Vec<Value>, Value, i32) {
    let (c2s, s2c) = write_streams(name, c2s, s2c);
    let args = [&["--json"], args, &["--c2s", &c2s, "--s2c", &s2c]].concat();
    let (records, summary, code, _) = check_session(&args);
    (records, summary, code)
}

/// [`check_streams`] timed as [`check_session_cpu`] times it: the summary, the exit code and
/// the CPU time `rpcwire` spent.
fn check_streams_cpu(
    name: &str,
    args: &[&str],
    c2s: impl AsRef<[u8]>,
    s2c: impl AsRef<[u8]>,
) -> (Value, i32, Duration) {
    let (c2s, s2c) = write_streams(name, c2s, s2c);
    let args = [&["--json"], args, &["--c2s", &c2s, "--s2c", &s2c]].concat();
    let (_, summary, code, cpu) = check_session_cpu(&args);
    (summary, code, cpu)
}

/// Writes two streams under `target/tmp/NAME`: their paths.
fn write_streams(name: &str, c2s: impl AsRef<[u8]>, s2c: impl AsRef<[u8]>) -> (String, String) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let (c2s_path, s2c_path) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
    std::fs::write(&c2s_path, c2s).unwrap();
    std::fs::write(&s2c_path, s2c).unwrap();
    let path = |p: std::path::PathBuf| p.into_os_string().into_string().unwrap();
    (path(c2s_path), path(s2c_path))
}

/// [`check_streams`] with no other options: the records, the summary's violations and the
/// exit code.
fn check_merged(name: &str, c2s: &str, s2c: &str) -> (Vec<Value>, Value, i32) {
    let (records, summary, code) = check_streams(name, &[], c2s, s2c);
    (records, summary["violations"].clone(), code)
}

/// `-` names the standard input for a session's log or one of its two streams, as it does
/// for the stream `check` reads (it opened a file named `-`); both streams cannot be it.
#[test]
fn a_session_stream_or_log_may_be_the_standard_input() {
    let (c2s, s2c) = (data("capture-c2s.ndjson"), data("capture-s2c.ndjson"));
    let from_files = check_session(&["--json", "--c2s", &c2s, "--s2c", &s2c]);
    let piped = run_check(
        &["--json", "--c2s", "-", "--s2c", &s2c],
        &std::fs::read(&c2s).unwrap(),
    );
    assert_eq!(piped.status.code(), Some(0));
    let summary: Value = serde_json::from_str(
        String::from_utf8(piped.stdout)
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(summary["summary"], from_files.1);

    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-log-stdin");
    std::fs::create_dir_all(&dir).unwrap();
    let log = ndjson!(
        r#"{"rpcwire_proxy":{"dialect":"jsonrpc"}}"#,
        r#"{"dir":"s2c","t_ms":0,"kind":"success_response","id":"9"}"#,
    );
    let piped = run_check(&["--json", "--session-log", "-"], log.as_bytes());
    assert_eq!(piped.status.code(), Some(1), "a reply to nothing");

    let both = run_check(&["--c2s", "-", "--s2c", "-"], b"");
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn capture_as_a_session_has_no_violation() {
    let (c2s, s2c) = (data("capture-c2s.ndjson"), data("capture-s2c.ndjson"));
    let (records, summary, code, stderr) = check_session(&["--json", "--c2s", &c2s, "--s2c", &s2c]);
    assert_eq!(code, 0, "{summary}");
    assert_eq!(
        stderr, "",
        "no progress output when stderr is not a terminal"
    );
    assert_eq!(summary["total_violations"], 0);
    assert_eq!(summary["valid"], true);
    assert_eq!(summary["frames"], serde_json::json!({"c2s": 14, "s2c": 13}));
    assert_eq!(summary["messages"]["c2s/request"], 13);
    assert_eq!(summary["errors_by_code"]["s2c/-32601"], 1);
    assert_eq!(records.len(), 27);
    // Every reply comes after its request in the merged order.
    let mut seen = std::collections::HashSet::new();
    for r in &records {
        assert_eq!(r["violation"], Value::Null, "{r}");
        let id = r["id"].as_str().map(str::to_string);
        match (r["dir"].as_str().unwrap(), r["kind"].as_str().unwrap()) {
            ("c2s", "request") => assert!(seen.insert(id.unwrap())),
            ("s2c", "success_response" | "error_response") => {
                assert!(seen.contains(&id.unwrap()), "{r}")
            }
            ("c2s", "notification") => {}
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn two_streams_merge_causally_and_violations_are_found() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-merge");
    std::fs::create_dir_all(&dir).unwrap();
    let (c2s, s2c) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
    // The client answers the server's request before it sends request 2 and cancels 2 after
    // its reply; the server answers an id nobody sent; request 3 is never answered.
    std::fs::write(
        &c2s,
        concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"c\"}\n",
        ),
    )
    .unwrap();
    std::fs::write(
        &s2c,
        concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"roots/list\"}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n",
        ),
    )
    .unwrap();
    let (c2s, s2c) = (c2s.to_str().unwrap(), s2c.to_str().unwrap());
    let (records, summary, code, _) = check_session(&["--json", "--c2s", c2s, "--s2c", s2c]);
    assert_eq!(code, 1);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"c2s/unanswered": 1, "s2c/unknown_reply": 1})
    );
    let order: Vec<String> = records
        .iter()
        .map(|r| {
            let what = r["id"].as_str().map_or_else(
                || r["event"].as_str().unwrap_or("cancel").to_string(),
                str::to_string,
            );
            format!("{}:{what}", r["dir"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        order,
        [
            "c2s:1",
            "s2c:1",
            "s2c:\"srv-1\"",
            "c2s:\"srv-1\"",
            "c2s:2",
            "s2c:2",
            "s2c:99",
            "c2s:cancel",
            "c2s:3",
            "c2s:3"
        ]
    );
    // (The client's stream, looked at ahead to its end, never sends 99: the reply goes where
    // it comes, without pulling that stream forward.)
    assert_eq!(records[6]["violation"], "unknown_reply");
    assert_eq!(records[9]["event"], "unanswered");
    // The readable report names them too.
    let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .args(["check", "--c2s", c2s, "--s2c", s2c])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("unknown_reply") && text.contains("unanswered"),
        "{text}"
    );
    assert!(text.contains("2 violations"), "{text}");
}

#[test]
fn session_options_are_checked() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-session-options");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("empty-session.ndjson");
    std::fs::write(&log, "{\"rpcwire_proxy\":{\"dialect\":\"mcp\"}}\n").unwrap();
    let log = log.to_str().unwrap();
    let (_, _, code, _) = check_session(&["--json", "--session-log", log]);
    assert_eq!(code, 0, "the log itself is fine");
    let (_, _, code, _) = check_session(&["--json", "--dialect", "mcp", "--session-log", log]);
    assert_eq!(code, 0, "naming the dialect the log was recorded with");
    for args in [
        &["check", "--c2s", "x"][..],
        &["check", "--session-log", "x", "y"],
        &["check", "--session-log", "x", "--c2s", "a", "--s2c", "b"],
        &["check", "--session-log", "/nonexistent/log"],
        // A proxy log holds records, not frames: these options cannot apply to it.
        &["check", "--session-log", log, "--framing", "sse"],
        &["check", "--session-log", log, "--validate", "strict"],
        &["check", "--session-log", log, "--max-frame", "10"],
        // The log says which dialect the proxy ran with; another one cannot apply.
        &["check", "--session-log", log, "--dialect", "jsonrpc"],
    ] {
        refused(args);
    }
}

#[test]
fn sse_framing() {
    let input = b": keepalive\n\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":6,\"result\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\r\"id\":7,\"result\":{}}\n\n";
    let (records, summary, code) = check(&["--framing", "sse", "--direction", "s2c"], Some(input));
    let kinds = kinds(&records);
    // The keep-alive is skipped, multi-line data is joined with \n, and a lone CR ends a line.
    assert_eq!(
        kinds,
        [
            "skip",
            "success_response",
            "success_response",
            "parse_error"
        ]
    );
    assert_eq!(records[2]["id"], "6");
    // (The keep-alive holds no message.)
    assert_eq!(summary["messages"], 3);
    assert_eq!(code, 1);
}

/// A capture read without the `--framing` it needs is a stream of parse errors with nothing
/// to say why: when the first line that is not blank is not JSON but an SSE field or a
/// `Content-Length` header, stderr names the option, and the report is the same. A stream whose first line
/// is JSON, or not JSON of another look, gets no such line; nor does one read with a framing.
#[test]
fn a_capture_read_without_its_framing_names_the_option() {
    let sse = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n";
    let content_length = b"content-length: 36\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}";
    let after_blank_lines =
        b"\n\r\n: ping\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n";
    for (input, framing) in [
        (&sse[..], "sse"),
        (&content_length[..], "content-length"),
        (&after_blank_lines[..], "sse"),
    ] {
        let out = run_check(&["--json", "-"], input);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.contains(&format!("`--framing {framing}`")),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert_eq!(out.status.code(), Some(1));
        let records: Vec<Value> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let first = records.iter().find(|r| r["kind"] != "skip").unwrap();
        assert_eq!(first["kind"], "parse_error");
        // Read with it, the capture is valid and nothing is said.
        let out = run_check(
            &["--json", "--direction", "s2c", "--framing", framing, "-"],
            input,
        );
        assert_eq!(
            (out.status.code(), &out.stderr[..]),
            (Some(0), &b""[..]),
            "{framing}"
        );
    }
    let quiet = [
        &b"{oops\ndata: x\n"[..],
        b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\ndata: x\n",
        b"Data: x\n",
        b"hello\n",
    ];
    for input in quiet {
        let out = run_check(&["-"], input);
        assert_eq!(out.stderr, b"", "{:?}", String::from_utf8_lossy(input));
    }
}

/// Two streams of a session read without the `--framing` they need get the same line on
/// stderr as one stream does, for each stream whose first message looks so, naming its file:
/// they were a wall of `not_json` violations with nothing to say why.
#[test]
fn session_streams_read_without_their_framing_name_the_option() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-session-framing");
    std::fs::create_dir_all(&dir).unwrap();
    let (c2s, s2c) = (dir.join("c2s.sse"), dir.join("s2c.cl"));
    std::fs::write(
        &c2s,
        "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n\n",
    )
    .unwrap();
    let reply = "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}";
    let s2c_bytes = format!("Content-Length: {}\r\n\r\n{reply}", reply.len());
    std::fs::write(&s2c, s2c_bytes).unwrap();
    let (c2s, s2c) = (c2s.to_str().unwrap(), s2c.to_str().unwrap());
    let (_, _, code, stderr) = check_session(&["--json", "--c2s", c2s, "--s2c", s2c]);
    assert_eq!(code, 1);
    let mut lines: Vec<&str> = stderr.lines().collect();
    lines.sort();
    let hint = |path: &str, looks_like: &str, framing: &str| {
        format!(
            "rpcwire check: {path}: the first message is not JSON but {looks_like}: was \
             `--framing {framing}` meant?"
        )
    };
    let mut expected = [
        hint(c2s, "a line of Server-Sent Events", "sse"),
        hint(s2c, "a Content-Length header", "content-length"),
    ];
    expected.sort();
    assert_eq!(lines, expected);
    // Two valid streams, or streams read with their framing, get no such line.
    let capture = (data("capture-c2s.ndjson"), data("capture-s2c.ndjson"));
    let (_, _, code, stderr) = check_session(&["--json", "--c2s", &capture.0, "--s2c", &capture.1]);
    assert_eq!((code, stderr.as_str()), (0, ""));
}

/// A stream given as the other side's says so on stderr, the report unchanged: the recorded
/// session's two streams swapped passed clean (each side's messages answered by the other's),
/// and a server's stream read as a client's (the default `--direction`) is judged by a
/// client's rules. Only MCP's first message tells: `initialize`, or the reply to it.
#[test]
fn a_stream_given_as_the_other_sides_says_so() {
    let (c2s, s2c) = (data("capture-c2s.ndjson"), data("capture-s2c.ndjson"));
    let (_, summary, code, stderr) = check_session(&["--json", "--c2s", &s2c, "--s2c", &c2s]);
    assert_eq!((code, summary["valid"].as_bool()), (0, Some(true)));
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    for (line, path) in lines.iter().zip([&s2c, &c2s]) {
        assert!(line.starts_with(&format!("rpcwire check: {path}: the first message is ")));
        assert!(line.ends_with(": were --c2s and --s2c swapped?"), "{line}");
    }
    for (args, meant) in [
        (vec![s2c.as_str()], Some("s2c")),
        (vec!["--direction", "s2c", &c2s], Some("c2s")),
        (vec![c2s.as_str()], None),
        (vec!["--direction", "s2c", &s2c], None),
        (vec!["--dialect", "jsonrpc", &s2c], None),
    ] {
        let out = run_check(&args, b"");
        let stderr = String::from_utf8(out.stderr).unwrap();
        match meant {
            Some(meant) => assert!(
                stderr.ends_with(&format!("was `--direction {meant}` meant?\n")),
                "{args:?}: {stderr}"
            ),
            None => assert_eq!(stderr, "", "{args:?}"),
        }
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}

/// An SSE stream that ends inside an event with data (no blank line after it): a client
/// drops that event silently (WHATWG), so `check` reports it, where a stream ending after a
/// comment or a complete event is fine.
#[test]
fn sse_stream_ending_inside_an_event_is_a_framing_error() {
    let event = "data: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n";
    for (tail, cut) in [
        ("", false),
        (": bye\n", false),
        (": bye", false),
        ("data: {}\n", true),
        ("data: {}", true),
    ] {
        let input = format!("{event}\n{tail}");
        let (records, summary, code) = check(
            &["--framing", "sse", "--direction", "s2c"],
            Some(input.as_bytes()),
        );
        assert_eq!(records[0]["kind"], "success_response", "{tail:?}");
        if cut {
            assert_eq!(
                kinds(&records),
                ["success_response", "framing_error"],
                "{tail:?}"
            );
            assert!(records[1]["reply"].is_null(), "{tail:?}");
            // At the cut event's first byte (it was at the complete event's).
            assert_eq!(records[1]["offset"], event.len() + 1, "{tail:?}");
            assert_eq!(code, 1, "{tail:?}: {summary}");
        } else {
            assert_eq!(records.len(), 1, "{tail:?}: {records:?}");
            assert_eq!(code, 0, "{tail:?}: {summary}");
        }
    }
}

/// Two recorded streams are framed as `--framing` says, as a single stream is.
#[test]
fn two_streams_in_sse_and_content_length_framing() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-framed-session");
    std::fs::create_dir_all(&dir).unwrap();
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let reply = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let cases = [
        (
            "sse",
            format!(": hi\n\ndata: {request}\n\n"),
            format!("data: {reply}\n\n"),
        ),
        (
            "content-length",
            format!("Content-Length: {}\r\n\r\n{request}", request.len()),
            format!("Content-Length: {}\r\n\r\n{reply}", reply.len()),
        ),
    ];
    for (framing, c2s, s2c) in cases {
        let (c2s_path, s2c_path) = (
            dir.join(format!("{framing}.c2s")),
            dir.join(format!("{framing}.s2c")),
        );
        std::fs::write(&c2s_path, c2s).unwrap();
        std::fs::write(&s2c_path, s2c).unwrap();
        let (records, summary, code, _) = check_session(&[
            "--json",
            "--framing",
            framing,
            "--c2s",
            c2s_path.to_str().unwrap(),
            "--s2c",
            s2c_path.to_str().unwrap(),
        ]);
        let kinds = kinds(&records);
        assert_eq!(
            kinds,
            ["request", "success_response"],
            "{framing}: {records:#?}"
        );
        assert_eq!(
            (code, &summary["total_violations"]),
            (0, &serde_json::json!(0)),
            "{framing}"
        );
    }
}

/// In two merged streams, a framing error that is not an over-long frame (the stream ends
/// inside a message, a malformed header block) is `bad_framing`, not `too_long`; it owes no
/// reply. A body whose `Content-Type` names another charset is `unsupported_charset`, owed
/// the -32700 an over-long one is.
#[test]
fn a_stream_cut_inside_a_message_is_bad_framing_in_a_merge() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-cut-session");
    std::fs::create_dir_all(&dir).unwrap();
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let reply = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"{}"}}"#,
        "x".repeat(200)
    );
    let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let cases = [
        (
            "cut",
            format!("{}Content-Length: 90\r\n\r\n{{\"jsonrpc\"", frame(request)),
            "bad_framing",
        ),
        (
            "header",
            format!("{}Content-Length: x\r\n\r\n", frame(request)),
            "bad_framing",
        ),
        (
            "long",
            format!("{}{}", frame(request), frame(&long)),
            "too_long",
        ),
        (
            "charset",
            format!(
                "{}Content-Type: application/vscode-jsonrpc; charset=latin1\r\n{}",
                frame(request),
                frame(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)
            ),
            "unsupported_charset",
        ),
    ];
    for (name, c2s, violation) in cases {
        let (c2s_path, s2c_path) = (
            dir.join(format!("{name}.c2s")),
            dir.join(format!("{name}.s2c")),
        );
        std::fs::write(&c2s_path, c2s).unwrap();
        std::fs::write(&s2c_path, frame(reply)).unwrap();
        let (records, summary, code, _) = check_session(&[
            "--json",
            "--framing",
            "content-length",
            "--max-frame",
            "100",
            "--c2s",
            c2s_path.to_str().unwrap(),
            "--s2c",
            s2c_path.to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{name}");
        let error = records
            .iter()
            .find(|r| r["kind"] == "framing_error")
            .unwrap();
        assert_eq!(error["violation"], violation, "{name}: {error}");
        assert_eq!(
            error["reply"].is_null(),
            violation == "bad_framing",
            "{name}: {error}"
        );
        assert_eq!(
            summary["violations"][format!("c2s/{violation}")],
            1,
            "{name}: {summary}"
        );
        assert_eq!(
            summary["messages"]["c2s/framing_error"], 1,
            "{name}: {summary}"
        );
    }
}

/// In two merged streams, a Content-Length header error ends its stream's check, as it does
/// a single stream's: its record says how much of that stream, from the message in error on,
/// was not checked; the other stream is checked to its end.
#[test]
fn a_header_error_in_a_merge_says_how_much_of_its_stream_was_not_checked() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-header-session");
    std::fs::create_dir_all(&dir).unwrap();
    let request = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
    let reply = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
    let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let first = frame(&request(1));
    let c2s = format!(
        "{first}Content-Length: x\r\n\r\n{}",
        frame(&request(2)).repeat(5000)
    );
    let s2c = format!("{}{}", frame(&reply(1)), frame(&reply(2)));
    let (c2s_path, s2c_path) = (dir.join("c2s"), dir.join("s2c"));
    std::fs::write(&c2s_path, &c2s).unwrap();
    std::fs::write(&s2c_path, &s2c).unwrap();
    let (records, _, code, _) = check_session(&[
        "--json",
        "--framing",
        "content-length",
        "--c2s",
        c2s_path.to_str().unwrap(),
        "--s2c",
        s2c_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        kinds(&records),
        [
            "request",
            "success_response",
            "framing_error",
            "success_response"
        ],
        "{records:#?}"
    );
    let error = &records[2];
    let at = first.len();
    let detail = format!(
        "Content-Length is not a decimal number below 2^64 (message starting at byte {at}); the messages \
         after it cannot be found: the rest of the stream, {} bytes, was not checked",
        c2s.len() - at
    );
    assert_eq!(
        (&error["dir"], &error["offset"], &error["violation"]),
        (
            &serde_json::json!("c2s"),
            &serde_json::json!(at),
            &serde_json::json!("bad_framing")
        ),
        "{error}"
    );
    assert_eq!(error["detail"], detail.as_str(), "{error}");
}

/// JSON-RPC 2.0 §6: each invalid element of a batch is answered on its own; a batch with
/// invalid elements is not "all valid".
#[test]
fn a_batch_with_invalid_elements_is_not_all_valid() {
    let input = b"[1,{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"},2]\n[{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]\n";
    let (records, summary, code) = check(&["--dialect", "jsonrpc"], Some(input));
    assert_eq!(code, 1);
    assert_eq!(records[0]["kind"], "batch");
    assert_eq!(records[0]["invalid_elements"], 2);
    assert_eq!(
        records[0]["element_replies"],
        serde_json::json!([{"code":-32600,"id":"null"},{"code":-32600,"id":"null"}])
    );
    assert_eq!(
        (&records[1]["kind"], &records[1]["invalid_elements"]),
        (&serde_json::json!("batch"), &serde_json::json!(0))
    );
    assert_eq!(summary["valid"], false);
    assert_eq!(summary["invalid_batch_elements"], 2);
    assert_eq!(summary["by_reply_code"], serde_json::json!({"-32600": 2}));
    // A batch of valid elements only is valid.
    let valid = br#"[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"a"}]"#;
    let (_, summary, code) = check(&["--dialect", "jsonrpc"], Some(valid));
    assert_eq!((code, &summary["valid"]), (0, &serde_json::json!(true)));
}

/// A batch of many invalid elements lists the first 1,000 replies it calls for and counts
/// the rest (a 16 MiB batch of eight million `1`s took 8 GiB to report when every reply was
/// listed); the summary counts them all.
#[test]
fn a_batch_lists_its_first_thousand_element_replies() {
    let input = format!("[{}]\n", vec!["1"; 1005].join(","));
    let (records, summary, code) = check(&["--dialect", "jsonrpc"], Some(input.as_bytes()));
    assert_eq!(code, 1);
    assert_eq!(records[0]["invalid_elements"], 1005);
    assert_eq!(
        records[0]["element_replies"].as_array().unwrap().len(),
        1000
    );
    assert_eq!(records[0]["element_replies_omitted"], 5);
    assert_eq!(
        summary["by_reply_code"],
        serde_json::json!({"-32600": 1005})
    );
}

#[test]
fn content_length_framing() {
    let input = b"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}Content-Length: 5\r\nContent-Type: application/json\r\n\r\n{oops";
    let (records, _, code) = check(&["--framing", "content-length"], Some(input));
    assert_eq!(code, 1);
    assert_eq!(records[0]["kind"], "request");
    assert_eq!(records[1]["kind"], "parse_error");
    assert_eq!(records[1]["offset"], 62);
    let (records, _, code) = check(
        &["--framing", "content-length"],
        Some(b"Content-Length: x\r\n\r\n{}"),
    );
    assert_eq!(
        (records[0]["kind"].as_str(), code),
        (Some("framing_error"), 1)
    );
}

/// A log whose last line is a record cut short (the proxy killed while writing it, its disk
/// full) is replayed up to the line before it, and stderr says the cut record is left out:
/// cut inside its JSON or inside a character of several bytes. A last line that is whole
/// JSON but no record, or that has its newline, is still refused, exit 2.
#[test]
fn a_log_cut_short_in_its_last_record_is_replayed_up_to_it() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-log-cut-short");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("session.ndjson");
    let head = ndjson!(
        r#"{"rpcwire_proxy":{"dialect":"mcp"}}"#,
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"tools/call"}"#,
    );
    let last = r#"{"dir":"s2c","t_ms":2,"kind":"success_response","id":"1"}"#;
    let messages = |records: &[Value]| records.iter().filter(|r| r.get("frame").is_some()).count();
    for cut in [&last[..20], &last[..last.len() - 1]] {
        std::fs::write(&log, format!("{head}{cut}")).unwrap();
        let (records, summary, code, stderr) =
            check_session(&["--json", "--session-log", log.to_str().unwrap()]);
        assert_eq!(code, 1, "{cut}: {stderr}");
        assert_eq!(messages(&records), 1, "{cut}");
        assert_eq!(
            summary["violations"],
            serde_json::json!({"c2s/unanswered": 1}),
            "{cut}"
        );
        assert!(
            stderr.contains("line 3 of the session log: the last line, a record cut short"),
            "{cut}: {stderr}"
        );
    }
    // Cut inside the two bytes of "é".
    let mut bytes = format!("{head}{}", &last[..40]).into_bytes();
    bytes.extend_from_slice(&"\"é".as_bytes()[..2]);
    std::fs::write(&log, &bytes).unwrap();
    let (records, _, code, stderr) =
        check_session(&["--json", "--session-log", log.to_str().unwrap()]);
    assert_eq!((messages(&records), code), (1, 1), "{stderr}");
    assert!(stderr.contains("a record cut short"), "{stderr}");
    // The whole record without its newline is no cut: replayed.
    std::fs::write(&log, format!("{head}{last}")).unwrap();
    let (records, summary, code, stderr) =
        check_session(&["--json", "--session-log", log.to_str().unwrap()]);
    assert_eq!((messages(&records), code), (2, 0), "{stderr}");
    assert_eq!(summary["violations"], serde_json::json!({}));
    assert!(stderr.is_empty(), "{stderr}");
    // Not JSON before its end, or cut with its newline: refused as before.
    for bad in [
        format!("{head}{{\"dir\" 1"),
        format!("{head}{}\n", &last[..20]),
    ] {
        std::fs::write(&log, &bad).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
            .args(["check", "--session-log", log.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stderr}");
        assert!(!stderr.contains("cut short"), "{bad}: {stderr}");
    }
}

/// MCP: "The `initialize` request MUST NOT be cancelled by clients." A client's cancellation
/// of it is flagged (and would not be forwarded); the request stays in flight, so the server's
/// result is matched, not a late reply, and its protocol version is read (a later server
/// request is then forbidden under 2026-07-28). Another request's cancellation still works.
#[test]
fn a_cancelled_initialize_is_flagged_and_stays_in_flight() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-cancel-init");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("session.ndjson");
    std::fs::write(
        &log,
        ndjson!(
            r#"{"rpcwire_proxy":{"dialect":"mcp"}}"#,
            r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"initialize"}"#,
            r#"{"dir":"c2s","t_ms":1,"kind":"notification","method":"notifications/cancelled","cancels":"1"}"#,
            r#"{"dir":"s2c","t_ms":2,"kind":"success_response","id":"1","protocol_version":"2026-07-28"}"#,
            r#"{"dir":"c2s","t_ms":3,"kind":"request","id":"2","method":"tools/list"}"#,
            r#"{"dir":"c2s","t_ms":4,"kind":"notification","method":"notifications/cancelled","cancels":"2"}"#,
            r#"{"dir":"s2c","t_ms":5,"kind":"success_response","id":"2"}"#,
            r#"{"dir":"s2c","t_ms":6,"kind":"request","id":"9","method":"roots/list"}"#,
        ),
    )
    .unwrap();
    let (records, summary, code, _) =
        check_session(&["--json", "--session-log", log.to_str().unwrap()]);
    assert_eq!(code, 1);
    let flagged: Vec<(&str, &str)> = records
        .iter()
        .filter(|r| !r["violation"].is_null())
        .map(|r| (r["dir"].as_str().unwrap(), r["violation"].as_str().unwrap()))
        .collect();
    assert_eq!(
        flagged,
        [
            ("c2s", "cancelled_initialize"),
            ("s2c", "late_reply"),
            ("s2c", "server_request_forbidden")
        ],
        "{records:#?}"
    );
    assert_eq!(
        summary["violations"],
        serde_json::json!({
            "c2s/cancelled_initialize": 1,
            "s2c/late_reply": 1,
            "s2c/server_request_forbidden": 1
        })
    );
}

#[test]
fn progress_on_a_token_no_request_in_flight_carries_is_flagged() {
    let progress = |token: &str, n: u32| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":{token},\"progress\":{n}}}}}\n"
        )
    };
    // Two requests ask for progress ("t1", 7); a third asks none. The server reports on both
    // while they wait (the first report comes before the client's stream has sent request 1:
    // it pulls that stream forward), then on "t1" once more after its result, and on a token
    // nobody sent.
    let c2s = concat!(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"_meta\":{\"progressToken\":\"t1\"}}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"b\",\"_meta\":{\"progressToken\":7}}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n",
    );
    let server = [
        progress("\"t1\"", 1),
        progress("7", 1),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n".to_string(),
        progress("\"t1\"", 2),
        progress("\"nobody\"", 1),
        progress("7", 2),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n".to_string(),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[]}}\n".to_string(),
    ];
    let s2c = server.concat();
    let (records, summary, code) = check_streams("cli-progress", &[], c2s, &s2c);
    assert_eq!(code, 1);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"s2c/unknown_progress": 2})
    );
    // Frames 3 and 4 of the server's stream: after the result of 1, and the unknown token.
    assert_eq!(
        flagged(&records),
        [(3, "unknown_progress"), (4, "unknown_progress")]
    );

    // JSON-RPC has no progress notifications: the same streams are clean there.
    let (_, summary, code) = check_streams("cli-progress", &["--dialect", "jsonrpc"], c2s, s2c);
    assert_eq!(code, 0, "{summary}");
}

/// MCP: "The `progress` value **MUST** increase with each notification, even if the total
/// is unknown." `check --c2s --s2c` flags a report on an active token that is not greater
/// than the last one on it (0.5 then 0.5; 3 then 2), and judges a token reused by a new
/// request after its first request's result afresh (0.25 after 1 is no violation then).
#[test]
fn check_flags_progress_that_does_not_increase() {
    let ask = |id: u32, token: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"t\",\"_meta\":{{\"progressToken\":{token}}}}}}}\n"
        )
    };
    let progress = |token: &str, n: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":{token},\"progress\":{n}}}}}\n"
        )
    };
    let result =
        |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[]}}}}\n");
    // The server's stream goes first; each report pulls the client's forward to the request
    // carrying its token, so request 3 (reusing "t1") is seen after the result of 1.
    let c2s = [ask(1, "\"t1\""), ask(2, "7"), ask(3, "\"t1\"")].concat();
    let s2c = [
        progress("\"t1\"", "0.5"),
        progress("\"t1\"", "0.5"),
        progress("7", "3"),
        progress("7", "2"),
        progress("\"t1\"", "1"),
        result(1),
        progress("\"t1\"", "0.25"),
        result(2),
        result(3),
    ]
    .concat();
    let (records, summary, code) = check_streams("cli-progress-increase", &[], &c2s, &s2c);
    assert_eq!(code, 1, "{records:#?}");
    assert_eq!(
        flagged(&records),
        [
            (1, "progress_not_increasing"),
            (3, "progress_not_increasing")
        ]
    );
    assert_eq!(
        summary["violations"],
        serde_json::json!({"s2c/progress_not_increasing": 2})
    );
    // JSON-RPC has no progress notifications: the same streams are clean there.
    let (_, summary, code) = check_streams(
        "cli-progress-increase",
        &["--dialect", "jsonrpc"],
        &c2s,
        &s2c,
    );
    assert_eq!(code, 0, "{summary}");
}

/// MCP's `InitializeRequestParams` and `InitializeResult`, through `check --c2s --s2c`: a
/// client's `initialize` whose `protocolVersion` is no string, and the server's success to
/// the second one whose result has no `serverInfo`, are flagged `invalid_initialize`, each
/// record naming the member (`params_fault`) and the text report saying it in words; the
/// result, read by the legacy rules its version selects (it holds a `resultType` of its own),
/// still settles the version. Another result holding a `protocolVersion` is no handshake;
/// the recorded TypeScript SDK session is clean; JSON-RPC has no `initialize`.
#[test]
fn check_flags_a_handshake_that_breaks_its_schema() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":20250618,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Invalid params"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"resultType":"legacy"}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[],"protocolVersion":7,"resultType":"page"}}"#
    );
    let (records, summary, code) = check_streams("cli-invalid-initialize", &[], c2s, s2c);
    assert_eq!(code, 1, "{records:#?}");
    let flagged: Vec<(&str, u64, &str)> = records
        .iter()
        .filter(|r| !r["violation"].is_null())
        .map(|r| {
            assert_eq!(r["violation"], "invalid_initialize", "{r}");
            (
                r["dir"].as_str().unwrap(),
                r["frame"].as_u64().unwrap(),
                r["params_fault"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        flagged,
        [("c2s", 0, "protocol_version"), ("s2c", 1, "server_info")]
    );
    assert_eq!(
        summary["violations"],
        serde_json::json!({"c2s/invalid_initialize": 1, "s2c/invalid_initialize": 1})
    );
    // The version settled: the later result, whose `resultType` 2026-07-28 would refuse, is
    // valid.
    let last = records.iter().rfind(|r| r["dir"] == "s2c").unwrap();
    assert_eq!(last["kind"], "success_response", "{last}");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-invalid-initialize");
    let (c2s_path, s2c_path) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
    let out = run_check(
        &[
            "--c2s",
            c2s_path.to_str().unwrap(),
            "--s2c",
            s2c_path.to_str().unwrap(),
        ],
        b"",
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for (at, what) in [
        (
            "c2s #0 @",
            ": invalid_initialize (protocolVersion missing, given twice, or not a string)",
        ),
        (
            "s2c #1 @",
            ": invalid_initialize (serverInfo missing, given twice, or not an object)",
        ),
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(at) && l.ends_with(what)),
            "{at} ... {what} missing from:\n{text}"
        );
    }
    // A real session is clean.
    let (c2s, s2c) = (data("capture-c2s.ndjson"), data("capture-s2c.ndjson"));
    let (_, summary, code, _) = check_session(&["--json", "--c2s", &c2s, "--s2c", &s2c]);
    assert_eq!((code, &summary["violations"]), (0, &serde_json::json!({})));
    // JSON-RPC has no `initialize`.
    let (_, summary, _) = check_streams(
        "cli-invalid-initialize",
        &["--dialect", "jsonrpc"],
        std::fs::read(&c2s_path).unwrap(),
        std::fs::read(&s2c_path).unwrap(),
    );
    assert_eq!(
        summary["violations"]["c2s/invalid_initialize"],
        Value::Null,
        "{summary}"
    );
    assert_eq!(
        summary["violations"]["s2c/invalid_initialize"],
        Value::Null,
        "{summary}"
    );
}

/// The result of `initialize` inside a server's array (MCP 2025-03-26, once the first
/// `initialize` settled that version) is held to `InitializeResult` by `check --c2s --s2c` as
/// the proxy holds it: a client's second `initialize`, sent while the first waits (the
/// server's progress on it places it before the first's answer), answered in an array with a
/// result that has no `serverInfo`, is flagged `invalid_initialize` on that element.
#[test]
fn check_flags_an_initialize_result_inside_an_array() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"progressToken":"p"},"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
        r#"[{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}]"#
    );
    let (records, summary, code) = check_streams("cli-initialize-in-array", &[], c2s, s2c);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"s2c/invalid_initialize": 1}),
        "{records:#?}"
    );
    assert_eq!(code, 1);
    let flagged = records
        .iter()
        .find(|r| r["violation"] == "invalid_initialize")
        .unwrap();
    assert_eq!(
        (&flagged["element"], &flagged["params_fault"]),
        (&serde_json::json!(0), &serde_json::json!("server_info")),
        "{flagged}"
    );
}

/// MCP's `ProgressNotificationParams` and `CancelledNotificationParams`, through `check
/// --c2s --s2c`: a progress report with a `total` that is not a number or without a
/// `progressToken`, and a cancellation whose `reason` is not a string, are flagged
/// `invalid_notification_params` under every version; a `message` that is not a string from
/// 2025-03-26 on (2024-11-05 has no such member); a cancellation without a `requestId` under
/// every version but 2025-11-25. Each record names the fault (`params_fault`), and the text
/// report says it in words. A malformed report is no progress: 2 after it (5) is clean. JSON-RPC
/// has no such notifications: the same streams are clean there.
#[test]
fn check_flags_notifications_whose_params_break_the_schema() {
    let notification = |method: &str, params: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/{method}\",\"params\":{params}}}\n"
        )
    };
    let c2s = [
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n".to_string(),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"_meta\":{\"progressToken\":\"p\"}}}\n".to_string(),
        notification("cancelled", r#"{"requestId":1,"reason":42}"#),
        notification("cancelled", r#"{"reason":"user"}"#),
    ]
    .concat();
    let s2c = |version: &str| {
        [
            format!("{{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"{version}\",\"capabilities\":{{}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n"),
            notification("progress", r#"{"progressToken":"p","progress":1}"#),
            notification("progress", r#"{"progressToken":"p","progress":5,"total":"10"}"#),
            notification("progress", r#"{"progress":6}"#),
            notification("progress", r#"{"progressToken":"p","progress":2}"#),
            notification("progress", r#"{"progressToken":"p","progress":3,"message":5}"#),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n".to_string(),
        ]
        .concat()
    };
    // (dir, frame, violation, params_fault) of each record flagged.
    let faults = |records: &[Value]| -> Vec<(String, u64, String, String)> {
        records
            .iter()
            .filter(|r| !r["violation"].is_null())
            .map(|r| {
                (
                    r["dir"].as_str().unwrap().to_string(),
                    r["frame"].as_u64().unwrap(),
                    r["violation"].as_str().unwrap().to_string(),
                    r["params_fault"].as_str().unwrap_or("-").to_string(),
                )
            })
            .collect()
    };
    let flagged = |dir: &str, frame: u64, fault: &str| {
        let v = "invalid_notification_params".to_string();
        (dir.to_string(), frame, v, fault.to_string())
    };
    for version in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        let (records, summary, code) =
            check_streams("cli-notification-params", &[], &c2s, s2c(version));
        assert_eq!(code, 1, "{version}: {records:#?}");
        let mut expected = vec![
            flagged("s2c", 2, "total"),
            flagged("s2c", 3, "progress_token"),
        ];
        if version != "2024-11-05" {
            expected.push(flagged("s2c", 5, "message"));
        }
        expected.push(flagged("c2s", 2, "reason"));
        if version != "2025-11-25" {
            expected.push(flagged("c2s", 3, "no_request_id"));
        }
        assert_eq!(faults(&records), expected, "{version}");
        let (s2c_n, c2s_n) = match version {
            "2024-11-05" => (2, 2),
            "2025-11-25" => (3, 1),
            _ => (3, 2),
        };
        assert_eq!(
            summary["violations"],
            serde_json::json!({
                "c2s/invalid_notification_params": c2s_n,
                "s2c/invalid_notification_params": s2c_n
            }),
            "{version}"
        );
    }
    // The text report says what is wrong in words.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-notification-params");
    let (c2s_path, s2c_path) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
    let out = run_check(
        &[
            "--c2s",
            c2s_path.to_str().unwrap(),
            "--s2c",
            s2c_path.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    for (at, what) in [
        (
            "s2c #2 @",
            "notification method=\"notifications/progress\" progress_token=\"p\": invalid_notification_params (total given twice or not a number)",
        ),
        (
            "c2s #2 @",
            "notification method=\"notifications/cancelled\" cancels=1: invalid_notification_params (reason given twice or not a string)",
        ),
        (
            "c2s #3 @",
            "notification method=\"notifications/cancelled\": invalid_notification_params (requestId missing)",
        ),
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(at) && l.ends_with(what)),
            "{at} ... {what} missing from:\n{text}"
        );
    }
    // JSON-RPC has no progress or cancellation notifications: the same streams are clean there.
    let (_, summary, code) = check_streams(
        "cli-notification-params",
        &["--dialect", "jsonrpc"],
        &c2s,
        s2c("2025-06-18"),
    );
    assert_eq!(code, 0, "{summary}");
}

#[test]
fn max_frame_above_the_default_reaches_the_decoder() {
    // A 17 MiB request: over the default 16 MiB limit, under the one asked for.
    let pad = "x".repeat(17 << 20);
    let line = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{pad}"}}}}"#);
    let (records, _, code) = check(&["--max-frame", "33554432"], Some(line.as_bytes()));
    assert_eq!(code, 0, "{records:?}");
    assert_eq!(kinds(&records), ["request"]);
    let (records, _, code) = check(&[], Some(line.as_bytes()));
    assert_eq!((code, kinds(&records)), (1, vec!["framing_error"]));
}

/// `check --c2s --s2c` follows MCP 2025-11-25's tasks as the proxy does: "For
/// task-augmented requests, the `progressToken` provided in the original request **MUST**
/// continue to be used for progress notifications throughout the task's lifetime, even after
/// the `CreateTaskResult` has been returned." The server's progress after the
/// `CreateTaskResult` is no violation; after the reply to `tasks/result` (which comes once the
/// task has ended, naming it in `_meta`) it is, and so is progress after a `tasks/get` result
/// with a terminal status of a second task.
#[test]
fn check_keeps_a_task_progress_token_until_the_task_ends() {
    let call = |id: u32, token: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"slow\",\"task\":{{}},\"_meta\":{{\"progressToken\":\"{token}\"}}}}}}\n"
        )
    };
    let created = |id: u32, task: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"task\":{{\"taskId\":\"{task}\",\"status\":\"working\"}}}}}}\n"
        )
    };
    // (Each report on a token above the last: progress "MUST increase".)
    let progress = |token: &str, n: u32| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"{token}\",\"progress\":{n}}}}}\n"
        )
    };
    let client = [
        call(1, "p1"),
        call(2, "p2"),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"t-1\"}}\n".to_string(),
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"t-2\"}}\n".to_string(),
    ];
    let server = [
        created(1, "t-1"),
        created(2, "t-2"),
        progress("p1", 1),
        progress("p2", 1),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[],\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}}\n".to_string(),
        progress("p1", 2),
        progress("p2", 2),
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"taskId\":\"t-2\",\"status\":\"failed\"}}\n".to_string(),
        progress("p2", 3),
    ];
    let (records, summary, code) =
        check_streams("cli-task-progress", &[], client.concat(), server.concat());
    assert_eq!(code, 1, "{records:#?}");
    // The server's frames 5 (on t-1's token after its tasks/result) and 8 (on t-2's after
    // its failed status); frame 6 reports on t-2's while it runs.
    assert_eq!(
        flagged(&records),
        [(5, "unknown_progress"), (8, "unknown_progress")]
    );
    assert_eq!(
        summary["violations"],
        serde_json::json!({"s2c/unknown_progress": 2})
    );
}

#[test]
fn progress_beyond_f64_on_an_unknown_token_is_still_unknown_progress() {
    // The token is what the check reads; a progress value `f64` cannot hold does not hide it.
    let s2c = concat!(
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"nobody\",\"progress\":5}}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"nobody\",\"progress\":1e400}}\n",
    );
    let (records, summary, code) = check_streams("cli-progress-1e400", &[], "", s2c);
    assert_eq!(code, 1);
    assert_eq!(records[0]["violation"], "unknown_progress");
    assert_eq!(
        records[1]["violation"], "unknown_progress",
        "{}",
        records[1]
    );
    assert_eq!(
        summary["violations"],
        serde_json::json!({"s2c/unknown_progress": 2})
    );
}

/// A session's initialize exchange under `version`, then a result holding `resultType: 42`
/// (the client's stream, the server's).
fn session_with_an_untyped_result_type(version: &str) -> (String, String) {
    let c2s = format!(
        concat!(
            "{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{v}\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}\n",
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n",
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"t\"}}}}\n",
        ),
        v = version
    );
    let s2c = format!(
        concat!(
            "{{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"{v}\",\"capabilities\":{{}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n",
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":[],\"resultType\":42}}}}\n",
        ),
        v = version
    );
    (c2s, s2c)
}

/// `resultType` is checked only in sessions that negotiated MCP 2026-07-28 or later: before,
/// it is an application's member like any other, and the result is valid.
#[test]
fn result_type_is_checked_from_the_version_that_defines_it() {
    for (version, valid) in [
        ("2025-11-25", true),
        ("2025-06-18", true),
        ("2026-07-28", false),
    ] {
        let result = if valid {
            "success_response"
        } else {
            "invalid_response"
        };
        let (_, s2c) = session_with_an_untyped_result_type(version);
        let (records, _, code) = check(&["--direction", "s2c"], Some(s2c.as_bytes()));
        assert_eq!(kinds(&records), ["success_response", result], "{version}");
        assert_eq!(code, if valid { 0 } else { 1 }, "{version}");
        // A client's stream: the version its `initialize` asks for, for the client's own
        // results (to a server's request).
        let c2s = format!(
            concat!(
                "{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{}\"}}}}\n",
                "{{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{{\"roots\":[],\"resultType\":\"x\"}}}}\n",
            ),
            version
        );
        let (records, _, code) = check(&[], Some(c2s.as_bytes()));
        assert_eq!(kinds(&records)[1], result, "{version}");
        assert_eq!(code, if valid { 0 } else { 1 }, "{version}");
    }
}

/// The same rule when two streams are merged: the session's negotiated version decides.
#[test]
fn merged_streams_follow_the_negotiated_version() {
    for (version, valid) in [("2025-11-25", true), ("2026-07-28", false)] {
        let (c2s, s2c) = session_with_an_untyped_result_type(version);
        let (records, _, code) = check_streams("cli-result-type", &[], c2s, s2c);
        let last = records
            .iter()
            .rfind(|r| r["dir"] == "s2c" && r.get("kind").is_some())
            .unwrap();
        if valid {
            assert_eq!(code, 0, "{version}: {records:?}");
            assert_eq!(last["kind"], "success_response", "{version}");
        } else {
            assert_eq!(code, 1, "{version}: {records:?}");
            assert_eq!(last["kind"], "invalid_response", "{version}");
        }
    }
}

/// An MCP 2026-07-28 session has no `initialize`: its requests name their version in `_meta`,
/// and the merged streams follow it once the server answered one with a success. The server's
/// request that comes after is then forbidden; before, with no version known, it is not.
#[test]
fn merged_streams_follow_a_per_request_version() {
    let meta = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#;
    let c2s = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{meta}}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"result\":{{\"roots\":[]}}}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":\"r2\",\"result\":{{\"roots\":[]}}}}\n"
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":"r1","method":"roots/list"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete"}}"#,
        r#"{"jsonrpc":"2.0","id":"r2","method":"roots/list"}"#,
    );
    let (records, violations, code) = check_merged("cli-per-request", &c2s, s2c);
    assert_eq!(code, 1, "{records:#?}");
    assert_eq!(
        violations,
        serde_json::json!({"s2c/server_request_forbidden": 1, "c2s/unknown_reply": 1}),
        "{records:#?}"
    );
}

/// A client whose first request names no version is not speaking MCP 2026-07-28: the proxy
/// reads no version from its later requests, and neither do the merged streams, which name
/// them all (the session would else take one the proxy never saw, and forbid the server's
/// request the proxy forwarded).
#[test]
fn merged_streams_read_no_version_after_an_unversioned_request() {
    let meta = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#;
    let c2s = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{meta}}}\n\
         {{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"result\":{{\"roots\":[]}}}}\n"
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        r#"{"jsonrpc":"2.0","id":"r1","method":"roots/list"}"#,
    );
    let (records, violations, code) = check_merged("cli-unversioned", &c2s, s2c);
    assert_eq!(code, 0, "{records:#?}");
    assert_eq!(violations, serde_json::json!({}), "{records:#?}");
}

/// Merged streams of an MCP 2026-07-28 session with a `subscriptions/listen` stream: the
/// server's notifications of the stream need the client's listen request first (they pull the
/// client's stream forward, as progress does); one naming a stream never opened is flagged.
#[test]
fn merged_streams_match_listen_streams() {
    let stamped = |stream: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{{\"_meta\":{{\"io.modelcontextprotocol/subscriptionId\":{stream}}}}}}}\n"
        )
    };
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l"}}"#,
    );
    let s2c = stamped("\"l\"") + &stamped("\"other\"");
    let (records, violations, code) = check_merged("cli-listen", c2s, &s2c);
    assert_eq!(code, 1, "{records:#?}");
    assert_eq!(
        violations,
        serde_json::json!({"s2c/unknown_subscription": 1}),
        "{records:#?}"
    );
}

/// Merged streams check a `tools/list` result's `x-mcp-header` annotations as the proxy does:
/// from MCP 2026-07-28 on (here the version the first request names, which the server's
/// success makes the session's), a result listing a tool whose annotations are invalid is
/// flagged, the report naming the tool and why; one whose tools are all valid is not. Neither
/// is the same result when the session negotiated 2025-11-25, nor when it never said its
/// version (it may be earlier).
#[test]
fn merged_streams_check_tool_headers_from_2026_07_28() {
    let schema = |header: &str, ty: &str| {
        format!(
            r#"{{"type":"object","properties":{{"p":{{"type":"{ty}","x-mcp-header":"{header}"}}}}}}"#
        )
    };
    let tools = format!(
        r#"[{{"name":"good","inputSchema":{}}},{{"name":"bad","inputSchema":{}}}]"#,
        schema("Region", "string"),
        schema("Bad Header", "string")
    );
    let listed = |id: u32, tools: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"tools\":{tools},\"resultType\":\"complete\"}}}}\n"
        )
    };
    let list = |id: u32, params: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\",\"params\":{params}}}\n"
        )
    };
    let meta = r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#;
    let valid = format!(
        r#"[{{"name":"good","inputSchema":{}}}]"#,
        schema("Region", "string")
    );
    let why = r#"tool "bad": x-mcp-header is not an HTTP field-name token (x-mcp-header "Bad Header" on property "p")"#;

    // 2026-07-28, named by the requests.
    let c2s = list(1, meta) + &list(2, meta);
    let s2c = listed(1, &tools) + &listed(2, &valid);
    let (records, violations, code) = check_merged("cli-tool-headers", &c2s, &s2c);
    assert_eq!(code, 1, "{records:#?}");
    assert_eq!(
        violations,
        serde_json::json!({"s2c/invalid_tool_headers": 1}),
        "{records:#?}"
    );
    let flagged: Vec<_> = records
        .iter()
        .filter(|r| r["violation"] == "invalid_tool_headers")
        .map(|r| (&r["id"], &r["invalid_tools"]))
        .collect();
    assert_eq!(
        flagged,
        [(&serde_json::json!("1"), &serde_json::json!(why))]
    );
    // The text report names the tool and why.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-tool-headers");
    let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .args(["check", "--c2s"])
        .arg(dir.join("c2s.ndjson"))
        .arg("--s2c")
        .arg(dir.join("s2c.ndjson"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!("id=1: invalid_tool_headers ({why})\n")),
        "{text}"
    );

    // 2025-11-25, negotiated: an unknown keyword.
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    let c2s = format!("{initialize}\n") + &list(1, "{}");
    let s2c = format!("{initialized}\n") + &listed(1, &tools);
    let (records, violations, code) = check_merged("cli-tool-headers-2025", &c2s, &s2c);
    assert_eq!(
        (code, violations),
        (0, serde_json::json!({})),
        "{records:#?}"
    );

    // No version known at all.
    let (records, violations, code) = check_merged(
        "cli-tool-headers-unknown",
        &list(1, "{}"),
        &listed(1, &tools),
    );
    assert_eq!(
        (code, violations),
        (0, serde_json::json!({})),
        "{records:#?}"
    );
}

/// A frame that opens with a byte-order mark is not JSON (a parse error at byte 0), and its
/// detail names the mark, which most viewers do not show; a stray byte at 0 is not called one.
#[test]
fn a_byte_order_mark_is_named() {
    let stream = b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\nx{\"jsonrpc\":\"2.0\"}\n";
    let (records, _, code) = check(&[], Some(stream));
    assert_eq!(code, 1);
    assert_eq!(records[0]["kind"], "parse_error");
    assert_eq!(records[0]["at"], 0);
    let detail = records[0]["detail"].as_str().unwrap();
    assert!(detail.starts_with("a byte-order mark (U+FEFF)"), "{detail}");
    assert_eq!(records[1]["kind"], "parse_error");
    assert_eq!(records[1]["at"], 0);
    assert_eq!(records[1]["detail"], "unexpected byte");
}

/// A frame that is not JSON is reported with why and where: the byte of the frame where it
/// stops being JSON (its length when it ends too early), in the JSON records and the text.
#[test]
fn parse_errors_say_where_the_frame_stops_being_json() {
    let stream: &[u8] =
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":[1,2,}}\n\
{\"\xc3\xa9\":\"\xff\"}\n\
{\"jsonrpc\":\"2.0\",\"method\":\"m\"} x\n\
{\"jsonrpc\":\"2.0\",\n\
{\"jsonrpc\":\"2.0\",\"id\":1}\n";
    let (records, _, code) = check(&[], Some(stream));
    assert_eq!(code, 1);
    let at: Vec<Option<u64>> = records.iter().map(|r| r["at"].as_u64()).collect();
    let frames: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    let find = |frame: &[u8], what: &[u8]| frame.windows(what.len()).position(|w| w == what);
    let expected = [
        find(frames[0], b",}").map(|i| i + 1), // the `}` after a comma
        find(frames[1], b"\xff"),              // the byte that is not UTF-8
        find(frames[2], b"x"),                 // the data after the object
        Some(frames[3].len()),                 // the end, too early
        None,                                  // valid JSON, an invalid request
    ];
    assert_eq!(at, expected.map(|i| i.map(|i| i as u64)));
    assert_eq!(records[0]["detail"], "mismatched bracket");
    // An invalid request has no position, but says why.
    assert_eq!(records[4]["kind"], "invalid");
    assert!(
        records[4]["detail"].as_str().unwrap().contains("method"),
        "{}",
        records[4]
    );
    // Over SSE a frame may hold line feeds (`data:` lines joined): offsets still count bytes.
    let sse = b"data: {\"jsonrpc\":\"2.0\",\ndata:  \"id\": 1 2}\n\n";
    let (records, _, _) = check(&["--framing", "sse"], Some(sse));
    // The frame is `{"jsonrpc":"2.0",\n "id": 1 2}`: the `2` is where it breaks.
    let frame = b"{\"jsonrpc\":\"2.0\",\n \"id\": 1 2}";
    let two = frame.iter().rposition(|&b| b == b'2').unwrap();
    assert_eq!(records[0]["at"], two, "{}", records[0]);
    // The text report too.
    let text = String::from_utf8(run_check(&[], stream).stdout).unwrap();
    assert!(
        text.contains("#0 @0 (line 1) parse_error (mismatched bracket, at byte 56 of the frame)"),
        "{text}"
    );
}

/// MCP 2025-03-26 allowed batches (its receivers must accept them; 2025-06-18 removed them):
/// once a stream negotiated that version, `check` reads a batch as that version does
/// (`DecodeOptions::for_protocol_version`), alone or in a merge of two streams, and tracks its
/// elements; under any other version, or before the version is known (`initialize` in a
/// batch), a batch is refused (-32600).
#[test]
fn an_mcp_2025_03_26_batch_is_read_by_check() {
    let initialize = |version: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"{version}\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"c\",\"version\":\"1\"}}}}}}"
        )
    };
    let result = |version: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"protocolVersion\":\"{version}\",\"capabilities\":{{}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}"
        )
    };
    let pings = "[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]";
    let pongs = "[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}},{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}]";
    // One stream.
    let c2s = format!("{}\n{pings}\n", initialize("2025-03-26"));
    let (records, _, code) = check(&[], Some(c2s.as_bytes()));
    assert_eq!(kinds(&records), ["request", "batch"]);
    assert_eq!(records[1]["invalid_elements"], 0);
    assert_eq!(code, 0);
    // A session: the requests in the batch are answered in the server's array.
    let initialized = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    let c2s = format!("{}\n{initialized}\n{pings}\n", initialize("2025-03-26"));
    let s2c = format!("{}\n{pongs}\n", result("2025-03-26"));
    let (_, summary, code) = check_streams("cli-mcp-2025-03-26-batch", &[], &c2s, &s2c);
    assert_eq!(summary["violations"], serde_json::json!({}), "{summary}");
    assert_eq!(summary["messages"]["s2c/success_response"], 3);
    assert_eq!(code, 0);
    // 2025-06-18: refused, each way.
    let c2s = format!("{}\n{initialized}\n{pings}\n", initialize("2025-06-18"));
    let s2c = format!("{}\n{pongs}\n", result("2025-06-18"));
    let (_, summary, code) = check_streams("cli-mcp-2025-06-18-batch", &[], &c2s, &s2c);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"c2s/invalid": 1, "s2c/invalid_response": 1})
    );
    assert_eq!(code, 1);
    // `initialize` in a batch: no version is known yet.
    let c2s = format!("[{}]\n", initialize("2025-03-26"));
    let (records, _, code) = check(&[], Some(c2s.as_bytes()));
    assert_eq!(kinds(&records), ["invalid"]);
    assert_eq!(records[0]["reply"]["code"], -32600);
    assert_eq!(code, 1);
}

/// A client's stream (`--direction c2s`, the default) takes its protocol version only from the
/// client's `initialize` request: a client's result holding a `protocolVersion` answers a
/// server's request, not `initialize`, and says nothing of the session's version. Taken from
/// such a result, 2025-06-18 (before `resultType`) let the unknown `resultType` that follows
/// pass, and, taken before `initialize`, 2026-07-28 made the same result invalid in a session
/// that asked for 2025-06-18. A server's stream still takes it from its reply to `initialize`.
#[test]
fn a_client_result_naming_a_protocol_version_sets_no_version() {
    let result = |id: &str, version: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"result\":{{\"protocolVersion\":\"{version}\"}}}}\n"
        )
    };
    let bad_type = "{\"jsonrpc\":\"2.0\",\"id\":\"s9\",\"result\":{\"resultType\":\"nope\"}}\n";
    let initialize = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}\n";
    // No version known: `resultType` is checked, as by default.
    let c2s = result("s1", "2025-06-18") + bad_type;
    let (records, _, code) = check(&[], Some(c2s.as_bytes()));
    assert_eq!(kinds(&records), ["success_response", "invalid_response"]);
    assert_eq!(code, 1);
    // The client's `initialize` sets it, whatever result came before.
    let c2s = result("s1", "2026-07-28") + initialize + bad_type;
    let (records, _, code) = check(&[], Some(c2s.as_bytes()));
    assert_eq!(
        kinds(&records),
        ["success_response", "request", "success_response"]
    );
    assert_eq!(code, 0);
    // A server's stream: its first result holding a `protocolVersion`.
    let s2c = result("0", "2025-06-18") + bad_type;
    let (records, _, code) = check(&["--direction", "s2c"], Some(s2c.as_bytes()));
    assert_eq!(kinds(&records), ["success_response", "success_response"]);
    assert_eq!(code, 0);
}

/// A server's reply to `initialize` holding a `resultType` of its own is valid: `initialize`
/// "selects legacy semantics" (MCP 2026-07-28 has none), whose results "MAY follow any JSON
/// object structure". Read by 2026-07-28's rules (no version known yet), it was an invalid
/// response, and the session's version was never taken from it, so later results were
/// checked for `resultType` too; one stream or both. A reply naming 2026-07-28 itself, and a
/// result naming no version, are still checked before a version is known.
#[test]
fn an_initialize_reply_holding_a_result_type_of_its_own_is_valid() {
    let reply = |version: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{{\"protocolVersion\":\"{version}\",\"resultType\":\"legacy\",\"capabilities\":{{}},\"serverInfo\":{{\"name\":\"s\",\"version\":\"1\"}}}}}}\n"
        )
    };
    let later = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"page\"}}\n";
    let s2c = reply("2025-06-18") + later;
    let (records, _, code) = check(&["--direction", "s2c"], Some(s2c.as_bytes()));
    assert_eq!(kinds(&records), ["success_response", "success_response"]);
    assert_eq!(records[0]["reply"], Value::Null);
    assert_eq!(code, 0);
    // Not a legacy version, or no version at all: checked, as by default.
    for first in [reply("2026-07-28"), later.to_string()] {
        let s2c = first + later;
        let (records, _, code) = check(&["--direction", "s2c"], Some(s2c.as_bytes()));
        assert_eq!(kinds(&records), ["invalid_response", "invalid_response"]);
        assert_eq!(code, 1);
    }
    // Both streams: the session's version comes from the reply.
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
    );
    let (records, violations, code) = check_merged(
        "cli-initialize-result-type",
        c2s,
        &(reply("2025-06-18") + later),
    );
    assert_eq!(
        (code, violations),
        (0, serde_json::json!({})),
        "{records:#?}"
    );
    let s2c_kinds: Vec<_> = records
        .iter()
        .filter(|r| r["dir"] == "s2c")
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(s2c_kinds, ["success_response", "success_response"]);
}

/// `check --session-log` of a log holding `bytes`, written as `target/tmp/NAME/session.ndjson`:
/// a bad log, [`refused`] (exit 2, nothing on stdout, one line on stderr), whose line names
/// the log's path as given, as an error reading it does (`rpcwire check: PATH: `); what
/// follows the path is returned.
fn bad_log_message(name: &str, bytes: &[u8]) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("session.ndjson");
    std::fs::write(&log, bytes).unwrap();
    let log = log.to_str().unwrap();
    let stderr = refused(&["check", "--session-log", log]);
    match stderr.strip_prefix(&format!("rpcwire check: {log}: ")) {
        Some(message) => message.to_string(),
        None => panic!(
            "{} does not name {log}: {stderr}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

/// [`bad_log_message`] of an MCP log whose only record, after its header, is `record`.
fn bad_log_stderr(name: &str, record: &[u8]) -> String {
    let mut bytes = b"{\"rpcwire_proxy\":{\"dialect\":\"mcp\"}}\n".to_vec();
    bytes.extend_from_slice(record);
    bytes.push(b'\n');
    bad_log_message(name, &bytes)
}

/// A proxy log whose record names a request without a valid id (none, or a token that is no
/// JSON id) is a bad log: exit 2 with the line, as for any malformed record, not a panic.
#[test]
fn a_log_request_without_a_valid_id_is_a_bad_log() {
    for record in [
        r#"{"dir":"c2s","t_ms":0,"kind":"request","method":"ping"}"#,
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1 2","method":"ping"}"#,
        r#"{"dir":"s2c","t_ms":0,"kind":"request","id":"","method":"ping"}"#,
    ] {
        let stderr = bad_log_stderr("cli-log-bad-id", record.as_bytes());
        assert!(
            stderr.starts_with("line 2 of the session log: "),
            "{stderr}"
        );
    }
}

/// A proxy log's `progress` (on a `notifications/progress` record) is a finite number, as
/// the proxy writes it: any other value (a string, a number beyond `f64`, an object) is a bad
/// log, exit 2 with the line, not a panic nor a report left unjudged.
#[test]
fn a_log_progress_that_is_no_number_is_a_bad_log() {
    for progress in [r#""1""#, "1e400", "{}", "true"] {
        let record = format!(
            r#"{{"dir":"s2c","t_ms":0,"kind":"notification","method":"notifications/progress","progress_token":"1","progress":{progress}}}"#
        );
        assert_eq!(
            bad_log_stderr("cli-log-bad-progress", record.as_bytes()),
            "line 2 of the session log: a bad progress\n",
            "{record}"
        );
    }
}

/// A proxy log's `params_fault` names one of the faults the proxy writes; any other (another
/// name, another case, not a string) is a bad log, exit 2, not a fault read as none.
#[test]
fn a_log_params_fault_of_no_known_name_is_a_bad_log() {
    for fault in [r#""bogus""#, r#""Total""#, "3"] {
        let record = format!(
            r#"{{"dir":"s2c","t_ms":0,"kind":"notification","method":"notifications/progress","params_fault":{fault}}}"#
        );
        let stderr = bad_log_stderr("cli-log-bad-params-fault", record.as_bytes());
        assert!(
            stderr.starts_with("line 2 of the session log: "),
            "{record}: {stderr}"
        );
        if fault.starts_with('"') {
            assert!(
                stderr.ends_with(": a bad params_fault\n"),
                "{record}: {stderr}"
            );
        }
    }
}

/// A proxy log line that is not UTF-8 is a bad log, named by its line like any other.
#[test]
fn a_log_line_that_is_not_utf8_is_a_bad_log_with_its_line() {
    let stderr = bad_log_stderr(
        "cli-log-utf8",
        b"{\"dir\":\"c2s\",\"t_ms\":0,\"kind\":\"notification\",\"method\":\"\xff\"}",
    );
    assert!(
        stderr.starts_with("line 2 of the session log: "),
        "{stderr}"
    );
}

/// A bad log's message names the log's file, as an error reading it does, and then its line:
/// with several logs checked in a script, the message tells which one is bad (it named the
/// line only). Two logs with the same bad record say so each under its own path, and a log
/// read from the standard input (`-`) is named so.
#[test]
fn a_bad_log_names_its_file_and_line() {
    let bad = b"{\"rpcwire_proxy\":{\"dialect\":\"mcp\"}}\n{\"a\":1}\n";
    for name in ["cli-log-named-a", "cli-log-named-b"] {
        assert_eq!(
            bad_log_message(name, bad),
            "line 2 of the session log: not a record of an `rpcwire proxy --log` log\n",
            "{name}"
        );
    }
    let piped = run_check(&["--session-log", "-"], bad);
    assert_eq!(piped.status.code(), Some(2));
    assert!(piped.stdout.is_empty());
    assert_eq!(
        String::from_utf8(piped.stderr).unwrap(),
        "rpcwire check: standard input: line 2 of the session log: not a record of an \
         `rpcwire proxy --log` log\n"
    );
}

/// A log whose line starts with a byte-order mark (an editor saving it may add one) is a bad
/// log that says so: the message was serde_json's "expected value at column 1", which names
/// nothing a reader can see.
#[test]
fn a_log_line_after_a_byte_order_mark_is_a_bad_log_that_names_it() {
    let header = "{\"rpcwire_proxy\":{\"dialect\":\"mcp\"}}\n";
    let request =
        "{\"dir\":\"c2s\",\"t_ms\":0,\"kind\":\"request\",\"id\":\"1\",\"method\":\"ping\"}\n";
    for (name, log, line) in [
        ("cli-log-bom", format!("\u{feff}{header}{request}"), 1),
        ("cli-log-bom-2", format!("{header}\u{feff}{request}"), 2),
    ] {
        assert_eq!(
            bad_log_message(name, log.as_bytes()),
            format!(
                "line {line} of the session log: a byte-order mark (U+FEFF) before the \
                 record, which no proxy writes (an editor saving the log may add one)\n"
            ),
        );
    }
}

/// A log without a record (an empty file, or blank lines only) is a bad log, exit 2: the proxy
/// writes its header first, so it is the wrong file or a proxy that never started. It was
/// replayed as an empty session and reported clean, exit 0, having checked nothing.
#[test]
fn an_empty_log_is_a_bad_log() {
    for (name, bytes) in [("cli-log-empty", &b""[..]), ("cli-log-blank", b"\n\n")] {
        assert_eq!(
            bad_log_message(name, bytes),
            "empty session log: no header record (`rpcwire proxy --log` writes one first)\n",
            "{bytes:?}"
        );
    }
}

/// A log whose first record is not its header (none at all, or a header after a message or
/// counters) is a bad log, exit 2, naming the first record: it was replayed under `check`'s
/// own dialect and defaults, rules its proxy may not have had, and its verdict (here exit 1,
/// a request unanswered; exit 0 for counters) passed for the proxy's.
#[test]
fn a_log_without_its_header_first_is_a_bad_log() {
    let header = r#"{"rpcwire_proxy":{"dialect":"mcp"}}"#;
    let request = r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"ping"}"#;
    let stats = r#"{"t_ms":5,"stats":{}}"#;
    for (name, log) in [
        ("cli-log-no-header", format!("{request}\n")),
        ("cli-log-header-late", format!("{request}\n{header}\n")),
        ("cli-log-stats-first", format!("\n{stats}\n{header}\n")),
    ] {
        let line = if name == "cli-log-stats-first" { 2 } else { 1 };
        assert_eq!(
            bad_log_message(name, log.as_bytes()),
            format!(
                "line {line} of the session log: a record before the header \
                 (`rpcwire proxy --log` writes its header first)\n"
            ),
            "{log}"
        );
    }
}

/// A second header is a second run of the proxy (which empties its log when it starts): two
/// logs joined, replayed as one session, passed (exit 0) where each run's checks are its own.
#[test]
fn a_log_with_a_second_header_is_a_bad_log() {
    let header = r#"{"rpcwire_proxy":{"dialect":"mcp"}}"#;
    let log = format!("{header}\n{header}\n");
    assert_eq!(
        bad_log_message("cli-log-two-headers", log.as_bytes()),
        "line 2 of the session log: a second header: a log holds one run of \
         `rpcwire proxy --log`\n"
    );
}

/// A header naming a dialect the proxy has not (`mcp`, `jsonrpc`) is a bad log: it was
/// replayed as MCP, rules the log does not say its proxy ran.
#[test]
fn a_log_header_of_an_unknown_dialect_is_a_bad_log() {
    assert_eq!(
        bad_log_message(
            "cli-log-unknown-dialect",
            b"{\"rpcwire_proxy\":{\"dialect\":\"json-rpc\"}}\n"
        ),
        "line 1 of the session log: a header with --dialect \"json-rpc\", neither mcp nor \
         jsonrpc\n"
    );
}

/// A record's id that is no JSON id's wire token is a bad log that says which of the record's
/// ids it is (it said "a bad id" of any of six members).
#[test]
fn a_bad_id_in_a_log_names_its_member() {
    for (member, record) in [
        (
            "cancels",
            r#"{"dir":"c2s","t_ms":0,"kind":"notification","method":"notifications/cancelled","cancels":"1 2"}"#,
        ),
        (
            "progress_token",
            r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"a","progress_token":""}"#,
        ),
        (
            "upstream_id",
            r#"{"dir":"c2s","t_ms":0,"event":"timeout","id":"1","upstream_id":"x"}"#,
        ),
    ] {
        assert_eq!(
            bad_log_stderr("cli-log-bad-id-member", record.as_bytes()),
            format!(
                "line 2 of the session log: a bad id in `{member}` (not a JSON id's wire token)\n"
            ),
        );
    }
}

/// A record of a kind the proxy does not write is a bad log, exit 2: it was taken for an
/// `invalid` message, a violation (exit 1) the proxy never reported.
#[test]
fn a_log_record_of_an_unknown_kind_is_a_bad_log() {
    assert_eq!(
        bad_log_stderr(
            "cli-log-unknown-kind",
            br#"{"dir":"c2s","t_ms":0,"kind":"reqest","id":"1","method":"a"}"#
        ),
        "line 2 of the session log: unknown kind \"reqest\"\n"
    );
}

/// A record serde_json cannot read as one of the log's is placed by its column: serde_json's
/// own "at line 1", of the record's text, contradicted the log's line the message names.
#[test]
fn a_log_record_of_the_wrong_type_is_placed_by_its_column() {
    assert_eq!(
        bad_log_stderr("cli-log-wrong-type", br#"{"dir":"c2s","t_ms":"x"}"#),
        "line 2 of the session log: invalid type: string \"x\", expected u64 at column 23\n"
    );
}

/// A frame over the limit is not JSON the reader could take: it calls for the -32700 reply a
/// frame that is not JSON does (`Decoder::parse_error_reply`, as the library's codecs and the
/// proxy send it), with the id the dialect gives an unreadable one, and the summary counts it.
#[test]
fn an_over_long_frame_calls_for_a_parse_error_reply() {
    let line = format!("{}\n", "x".repeat(300));
    let body = "y".repeat(300);
    let content_length = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    for (args, input, id) in [
        (&["--max-frame", "100"][..], &line, "<absent>"),
        (
            &["--max-frame", "100", "--dialect", "jsonrpc"],
            &line,
            "null",
        ),
        (
            &["--max-frame", "100", "--framing", "content-length"],
            &content_length,
            "<absent>",
        ),
    ] {
        let (records, summary, code) = check(args, Some(input.as_bytes()));
        assert_eq!(code, 1);
        assert_eq!(records[0]["kind"], "framing_error", "{args:?}");
        assert_eq!(
            records[0]["reply"],
            serde_json::json!({"code": -32700, "id": id}),
            "{args:?}"
        );
        assert_eq!(summary["by_reply_code"], serde_json::json!({"-32700": 1}));
    }
    // A stream cut inside a message calls for nothing: nothing more can be read.
    let (records, _, _) = check(
        &["--framing", "content-length"],
        Some(b"Content-Length: 10\r\n\r\n{}"),
    );
    assert_eq!(
        (&records[0]["kind"], &records[0]["reply"]),
        (&serde_json::json!("framing_error"), &Value::Null)
    );
}

/// A Content-Length body whose `Content-Type` names a charset other than UTF-8 (its bytes,
/// Latin-1 `Ã©`, valid UTF-8 that would be misread as `é`) is a `framing_error` that calls for
/// the -32700 of a frame that is not JSON, at its offset; it is skipped, and the messages
/// after it are checked.
#[test]
fn a_body_in_another_charset_is_a_framing_error_and_the_stream_goes_on() {
    let frame = |body: &[u8]| {
        [
            format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes(),
            body,
        ]
        .concat()
    };
    let first = frame(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let stream = [
        first.clone(),
        b"Content-Type: application/vscode-jsonrpc; charset=latin1\r\n".to_vec(),
        frame(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\xc3\xa9\"}"),
        frame(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#),
    ]
    .concat();
    let (records, summary, code) = check(&["--framing", "content-length"], Some(&stream));
    assert_eq!(code, 1);
    let kinds: Vec<_> = records
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["request", "framing_error", "request"],
        "{records:#?}"
    );
    let error = &records[1];
    assert_eq!(error["offset"], first.len() as u64, "{error}");
    assert_eq!(
        error["reply"],
        serde_json::json!({"code": -32700, "id": "<absent>"}),
        "{error}"
    );
    assert_eq!(
        error["detail"],
        format!(
            "Content-Type names a charset other than utf-8, or none that can be read \
             (message starting at byte {})",
            first.len()
        ),
        "{error}"
    );
    assert_eq!(records[2]["id"], "3");
    assert_eq!(summary["by_reply_code"], serde_json::json!({"-32700": 1}));
    assert!(
        summary.get("unchecked_bytes").is_none_or(|n| n == 0),
        "{summary}"
    );
}

/// A blank line is no message, and neither is an SSE event without data (a keep-alive): both
/// are `skip`. But a Content-Length body is a message whatever it holds, and so is an SSE
/// event's data that is not empty: blank, they are frames that are not JSON, which the
/// library's `ContentLengthCodec` and `SseCodec` reject with -32700.
#[test]
fn a_blank_body_is_a_message_that_is_not_json() {
    let (records, _, code) = check(&[], Some(b" \t\r\n\n"));
    assert_eq!((kinds(&records), code), (vec!["skip", "skip"], 0));
    let (records, _, code) = check(&["--framing", "sse"], Some(b": ping\n\ndata:\n\n"));
    assert_eq!((kinds(&records), code), (vec!["skip", "skip"], 0));
    for (framing, input) in [
        ("content-length", &b"Content-Length: 0\r\n\r\n"[..]),
        ("content-length", b"Content-Length: 2\r\n\r\n \n"),
        ("sse", b"data:  \n\n"),
        ("sse", b"data:\ndata:\n\n"),
    ] {
        let (records, summary, code) = check(&["--framing", framing], Some(input));
        assert_eq!(
            (kinds(&records), code),
            (vec!["parse_error"], 1),
            "{framing} {:?}",
            String::from_utf8_lossy(input)
        );
        assert_eq!(summary["by_reply_code"], serde_json::json!({"-32700": 1}));
    }
}

/// An SSE event of a type other than `message` carries no JSON-RPC message (the library's
/// `SseCodec` hands its data out undecoded): the 2024-11-05 HTTP+SSE transport's `endpoint`
/// event, whose data is a URL, is skipped, not a parse error. `event: message` is a message.
#[test]
fn an_sse_event_of_another_type_is_no_message() {
    let input = b"event: endpoint\ndata: /messages?sessionId=abc\n\n\
event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\
event: ping\ndata: {\"jsonrpc\":1}\n\n\
data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n";
    let (records, _, code) = check(&["--framing", "sse", "--direction", "s2c"], Some(input));
    assert_eq!(
        (kinds(&records), code),
        (
            vec!["skip", "success_response", "skip", "success_response"],
            0
        )
    );
}

/// A proxy log holds no batch's frame, only a record per element after the batch's: the
/// replayed batch record cannot count its invalid elements, and must not claim it has none.
#[test]
fn a_replayed_batch_record_claims_no_count_of_its_invalid_elements() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-log-batch");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("session.ndjson");
    std::fs::write(
        &log,
        ndjson!(
            r#"{"rpcwire_proxy":{"dialect":"jsonrpc"}}"#,
            r#"{"dir":"c2s","t_ms":0,"kind":"batch"}"#,
            r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"ping","element":0}"#,
            r#"{"dir":"c2s","t_ms":0,"kind":"invalid","element":1,"violation":"invalid"}"#,
            r#"{"dir":"s2c","t_ms":1,"kind":"batch"}"#,
            r#"{"dir":"s2c","t_ms":1,"kind":"success_response","id":"1","element":0}"#,
            r#"{"dir":"s2c","t_ms":1,"kind":"error_response","id":"null","error_code":-32600,"element":1}"#,
        ),
    )
    .unwrap();
    let (records, summary, code, _) =
        check_session(&["--json", "--session-log", log.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(summary["violations"], serde_json::json!({"c2s/invalid": 1}));
    assert_eq!(
        (records[0]["kind"].as_str(), records[0]["element"].as_u64()),
        (Some("batch"), None)
    );
    assert_eq!(records[2]["violation"], "invalid");
    for batch in [&records[0], &records[3]] {
        assert_eq!(batch["kind"], "batch");
        for key in ["invalid_elements", "element_replies"] {
            assert!(batch.get(key).is_none(), "{key}: {batch}");
        }
    }
}

/// A JSON-RPC log of a proxy that forwarded a reused id as it was (its header does not say
/// `rewrites_reused_ids`) is replayed as that proxy ran: the second request with id 1 waited
/// behind the first, and the server's two replies with id 1 answered them in turn. Replayed
/// as the present proxy runs, the second request would have gone upstream under a minted id,
/// and the second reply with id 1 would be a reply to nothing.
#[test]
fn a_log_of_a_proxy_that_did_not_rewrite_reused_ids_is_replayed_as_it_ran() {
    let body = ndjson!(
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"a"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"request","id":"1","method":"b","violation":"duplicate_id"}"#,
        r#"{"dir":"s2c","t_ms":2,"kind":"success_response","id":"1"}"#,
        r#"{"dir":"s2c","t_ms":3,"kind":"success_response","id":"1"}"#,
    );
    let replay = replay_under_headers("cli-log-no-rewrite", body);
    let old = replay(r#"{"rpcwire_proxy":{"dialect":"jsonrpc"}}"#);
    assert_eq!(old, serde_json::json!({"c2s/duplicate_id": 1}));
    let new = replay(r#"{"rpcwire_proxy":{"dialect":"jsonrpc","rewrites_reused_ids":true}}"#);
    // The second request went on under a minted id, which the server never answered.
    assert_eq!(
        new,
        serde_json::json!({
            "c2s/duplicate_id": 1,
            "c2s/unanswered": 1,
            "s2c/unknown_reply": 1
        })
    );
}

/// A log of a proxy that rewrote reused JSON-RPC ids of requests sent alone only (its header
/// says `rewrites_reused_ids`, not `rewrites_reused_ids_in_batches`) is replayed as it ran: a
/// batch element reusing an id went to the server as it was, untracked, and the server's
/// array reply to it is unknown. Replayed as the present proxy runs, the element would wait
/// under a minted id the server never read (left unanswered).
#[test]
fn a_log_of_a_proxy_that_did_not_rewrite_batch_elements_is_replayed_as_it_ran() {
    let body = ndjson!(
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"a"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"batch"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"request","id":"1","method":"b","element":0,"violation":"duplicate_id"}"#,
        r#"{"dir":"s2c","t_ms":2,"kind":"success_response","id":"1"}"#,
        r#"{"dir":"s2c","t_ms":3,"kind":"batch"}"#,
        r#"{"dir":"s2c","t_ms":3,"kind":"success_response","id":"1","element":0,"violation":"unknown_reply"}"#,
    );
    let replay = replay_under_headers("cli-log-no-batch-rewrite", body);
    let old = replay(r#"{"rpcwire_proxy":{"dialect":"jsonrpc","rewrites_reused_ids":true}}"#);
    assert_eq!(
        old,
        serde_json::json!({"c2s/duplicate_id": 1, "s2c/unknown_reply": 1})
    );
    let new = replay(
        r#"{"rpcwire_proxy":{"dialect":"jsonrpc","rewrites_reused_ids":true,"rewrites_reused_ids_in_batches":true}}"#,
    );
    // The element's minted id was never answered: unanswered as well.
    assert_eq!(
        new,
        serde_json::json!({
            "c2s/duplicate_id": 1,
            "c2s/unanswered": 1,
            "s2c/unknown_reply": 1
        })
    );
}

/// A log of a proxy that rewrote reused JSON-RPC ids of batch elements it tracked only (its
/// header says `rewrites_reused_ids_in_batches`, not
/// `rewrites_reused_ids_of_untracked_elements`) is replayed as it ran: an element beyond
/// `--max-in-flight` reusing the id of a request sent alone went to the server as it was,
/// untracked, and the server's array reply to it was the element's (unknown), not the
/// request's, left unanswered. Replayed as the present proxy runs, the element would have gone
/// under a minted id, and that reply would answer the request.
#[test]
fn a_log_of_a_proxy_that_did_not_rewrite_untracked_elements_is_replayed_as_it_ran() {
    let body = ndjson!(
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"a"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"batch"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"request","id":"1","method":"b","element":0,"violation":"too_many_in_flight"}"#,
        r#"{"dir":"s2c","t_ms":2,"kind":"batch"}"#,
        r#"{"dir":"s2c","t_ms":2,"kind":"success_response","id":"1","element":0,"violation":"unknown_reply"}"#,
    );
    let replay = replay_under_headers("cli-log-no-untracked-rewrite", body);
    let old = replay(
        r#"{"rpcwire_proxy":{"dialect":"jsonrpc","max_in_flight":1,"rewrites_reused_ids":true,"rewrites_reused_ids_in_batches":true}}"#,
    );
    assert_eq!(
        old,
        serde_json::json!({
            "c2s/too_many_in_flight": 1,
            "s2c/unknown_reply": 1,
            "c2s/unanswered": 1
        })
    );
    let new = replay(
        r#"{"rpcwire_proxy":{"dialect":"jsonrpc","max_in_flight":1,"rewrites_reused_ids":true,"rewrites_reused_ids_in_batches":true,"rewrites_reused_ids_of_untracked_elements":true}}"#,
    );
    // The reply answers the request: nothing unknown, nothing unanswered.
    assert_eq!(new, serde_json::json!({"c2s/too_many_in_flight": 1}));
}

/// A log of a proxy that forwarded a request with the id of a batch element it had sent on
/// untracked, under that id (its header lacks `rewrites_ids_of_untracked_elements_reused`), is
/// replayed as it ran: the server's array reply to the element answered the request. Replayed
/// as the present proxy runs, the request would have gone under a minted id, the element's
/// reply would be unknown and the request left unanswered.
#[test]
fn a_log_of_a_proxy_that_did_not_rewrite_ids_of_untracked_elements_is_replayed_as_it_ran() {
    let body = ndjson!(
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"a"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"batch"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"request","id":"5","method":"b","element":0,"violation":"too_many_in_flight"}"#,
        r#"{"dir":"s2c","t_ms":2,"kind":"success_response","id":"1"}"#,
        r#"{"dir":"c2s","t_ms":3,"kind":"request","id":"5","method":"c"}"#,
        r#"{"dir":"s2c","t_ms":4,"kind":"batch"}"#,
        r#"{"dir":"s2c","t_ms":4,"kind":"success_response","id":"5","element":0}"#,
    );
    let replay = replay_under_headers("cli-log-no-rewrite-after-untracked", body);
    let old = replay(
        r#"{"rpcwire_proxy":{"dialect":"jsonrpc","max_in_flight":1,"rewrites_reused_ids":true,"rewrites_reused_ids_in_batches":true,"rewrites_reused_ids_of_untracked_elements":true}}"#,
    );
    assert_eq!(old, serde_json::json!({"c2s/too_many_in_flight": 1}));
    let new = replay(
        r#"{"rpcwire_proxy":{"dialect":"jsonrpc","max_in_flight":1,"rewrites_reused_ids":true,"rewrites_reused_ids_in_batches":true,"rewrites_reused_ids_of_untracked_elements":true,"rewrites_ids_of_untracked_elements_reused":true}}"#,
    );
    assert_eq!(
        new,
        serde_json::json!({
            "c2s/too_many_in_flight": 1,
            "s2c/unknown_reply": 1,
            "c2s/unanswered": 1
        })
    );
}

/// A log of a proxy that forgot the batch elements it forwarded untracked (its header lacks
/// `keeps_untracked_elements`) is replayed as it ran: one the server never answered was
/// reported by nothing at exit. The present proxy keeps it, and reports it unanswered.
#[test]
fn a_log_of_a_proxy_that_forgot_untracked_elements_is_replayed_as_it_ran() {
    let body = ndjson!(
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"a"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"batch"}"#,
        r#"{"dir":"c2s","t_ms":1,"kind":"request","id":"5","method":"b","element":0,"violation":"too_many_in_flight"}"#,
        r#"{"dir":"s2c","t_ms":2,"kind":"success_response","id":"1"}"#,
    );
    let replay = replay_under_headers("cli-log-forgot-untracked", body);
    let all = r#""rewrites_reused_ids":true,"rewrites_reused_ids_in_batches":true,"rewrites_reused_ids_of_untracked_elements":true,"rewrites_ids_of_untracked_elements_reused":true"#;
    let old = replay(&format!(
        r#"{{"rpcwire_proxy":{{"dialect":"jsonrpc","max_in_flight":1,{all}}}}}"#
    ));
    assert_eq!(old, serde_json::json!({"c2s/too_many_in_flight": 1}));
    let new = replay(&format!(
        r#"{{"rpcwire_proxy":{{"dialect":"jsonrpc","max_in_flight":1,{all},"keeps_untracked_elements":true}}}}"#
    ));
    assert_eq!(
        new,
        serde_json::json!({"c2s/too_many_in_flight": 1, "c2s/unanswered": 1})
    );
}

/// A log of a proxy that forgot the server's batch elements it forwarded untracked (its header
/// lacks `keeps_untracked_server_elements`) is replayed as it ran: the client's reply to one
/// was unknown, and one never answered was reported by nothing at exit. The present proxy
/// keeps them, as it keeps the client's.
#[test]
fn a_log_of_a_proxy_that_forgot_untracked_server_elements_is_replayed_as_it_ran() {
    let body = ndjson!(
        r#"{"dir":"s2c","t_ms":0,"kind":"request","id":"1","method":"a"}"#,
        r#"{"dir":"s2c","t_ms":1,"kind":"batch"}"#,
        r#"{"dir":"s2c","t_ms":1,"kind":"request","id":"5","method":"b","element":0,"violation":"too_many_in_flight"}"#,
        r#"{"dir":"s2c","t_ms":1,"kind":"request","id":"6","method":"c","element":1,"violation":"too_many_in_flight"}"#,
        r#"{"dir":"c2s","t_ms":2,"kind":"success_response","id":"1"}"#,
        r#"{"dir":"c2s","t_ms":3,"kind":"success_response","id":"5"}"#,
    );
    let replay = replay_under_headers("cli-log-forgot-untracked-server", body);
    let all = r#""rewrites_reused_ids":true,"rewrites_reused_ids_in_batches":true,"rewrites_reused_ids_of_untracked_elements":true,"rewrites_ids_of_untracked_elements_reused":true,"keeps_untracked_elements":true"#;
    let old = replay(&format!(
        r#"{{"rpcwire_proxy":{{"dialect":"jsonrpc","max_in_flight":1,{all}}}}}"#
    ));
    assert_eq!(
        old,
        serde_json::json!({"s2c/too_many_in_flight": 2, "c2s/unknown_reply": 1})
    );
    let new = replay(&format!(
        r#"{{"rpcwire_proxy":{{"dialect":"jsonrpc","max_in_flight":1,{all},"keeps_untracked_server_elements":true}}}}"#
    ));
    assert_eq!(
        new,
        serde_json::json!({"s2c/too_many_in_flight": 2, "s2c/unanswered": 1})
    );
}

/// A log of a proxy that forwarded a server's batch element reusing an id in flight untracked
/// (its header lacks `queues_reused_server_elements`) is replayed as it ran: the client's
/// second reply with the id was unknown. The present proxy has the element wait behind the
/// request holding its id, which that reply answers.
#[test]
fn a_log_of_a_proxy_that_did_not_queue_reused_server_elements_is_replayed_as_it_ran() {
    let body = ndjson!(
        r#"{"dir":"s2c","t_ms":0,"kind":"request","id":"7","method":"a"}"#,
        r#"{"dir":"s2c","t_ms":1,"kind":"batch"}"#,
        r#"{"dir":"s2c","t_ms":1,"kind":"request","id":"7","method":"b","element":0,"violation":"duplicate_id"}"#,
        r#"{"dir":"c2s","t_ms":2,"kind":"success_response","id":"7"}"#,
        r#"{"dir":"c2s","t_ms":3,"kind":"batch"}"#,
        r#"{"dir":"c2s","t_ms":3,"kind":"success_response","id":"7","element":0}"#,
    );
    let replay = replay_under_headers("cli-log-no-server-element-queue", body);
    let old = replay(r#"{"rpcwire_proxy":{"dialect":"jsonrpc"}}"#);
    assert_eq!(
        old,
        serde_json::json!({"s2c/duplicate_id": 1, "c2s/unknown_reply": 1})
    );
    let new =
        replay(r#"{"rpcwire_proxy":{"dialect":"jsonrpc","queues_reused_server_elements":true}}"#);
    assert_eq!(new, serde_json::json!({"s2c/duplicate_id": 1}));
}

/// A log of a proxy that forwarded a client's second `initialize` (its header lacks
/// `refuses_second_initialize`) is replayed as it ran: the request was tracked, its reply
/// matched, nothing reported. The present proxy refuses it (`second_initialize`), and the
/// server never answers it.
#[test]
fn a_log_of_a_proxy_that_forwarded_a_second_initialize_is_replayed_as_it_ran() {
    let forwarded = ndjson!(
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"0","method":"initialize"}"#,
        r#"{"dir":"s2c","t_ms":1,"kind":"success_response","id":"0"}"#,
        r#"{"dir":"c2s","t_ms":2,"kind":"request","id":"1","method":"initialize"}"#,
        r#"{"dir":"s2c","t_ms":3,"kind":"success_response","id":"1"}"#,
    );
    let old = replay_under_headers("cli-log-second-initialize-old", forwarded);
    assert_eq!(
        old(r#"{"rpcwire_proxy":{"dialect":"mcp"}}"#),
        serde_json::json!({})
    );
    let refused = ndjson!(
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"0","method":"initialize"}"#,
        r#"{"dir":"s2c","t_ms":1,"kind":"success_response","id":"0"}"#,
        r#"{"dir":"c2s","t_ms":2,"kind":"request","id":"1","method":"initialize","violation":"second_initialize","reply":{"code":-32600,"id":"1"}}"#,
    );
    let new = replay_under_headers("cli-log-second-initialize-new", refused);
    assert_eq!(
        new(r#"{"rpcwire_proxy":{"dialect":"mcp","refuses_second_initialize":true}}"#),
        serde_json::json!({"c2s/second_initialize": 1})
    );
}

/// MCP (2025-03-26's batches, in a log written by hand): a
/// request reusing the id of a batch element beyond `--max-in-flight`, kept until its reply
/// comes, is a duplicate, from either side, as the reuse of the id of a request waiting is;
/// the reply then answers the element, and nothing is left unanswered. (The request was taken
/// in, the reply answered it, and the element was reported unanswered at the end.)
#[test]
fn a_log_reusing_the_id_of_a_kept_mcp_element_is_a_duplicate() {
    let mut body = String::new();
    for (dir, other) in [("c2s", "s2c"), ("s2c", "c2s")] {
        for line in [
            format!(r#"{{"dir":"{dir}","t_ms":0,"kind":"request","id":"1","method":"a"}}"#),
            format!(r#"{{"dir":"{dir}","t_ms":1,"kind":"batch"}}"#),
            format!(
                r#"{{"dir":"{dir}","t_ms":1,"kind":"request","id":"5","method":"b","element":0}}"#
            ),
            format!(r#"{{"dir":"{other}","t_ms":2,"kind":"success_response","id":"1"}}"#),
            format!(r#"{{"dir":"{dir}","t_ms":3,"kind":"request","id":"5","method":"c"}}"#),
            format!(r#"{{"dir":"{other}","t_ms":4,"kind":"success_response","id":"5"}}"#),
        ] {
            body.push_str(&line);
            body.push('\n');
        }
    }
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-log-kept-mcp");
    std::fs::create_dir_all(&dir).unwrap();
    let header = r#"{"rpcwire_proxy":{"dialect":"mcp","max_in_flight":1,"keeps_untracked_elements":true,"keeps_untracked_server_elements":true}}"#;
    assert_eq!(
        log_violations(&dir, header, &body),
        serde_json::json!({
            "c2s/too_many_in_flight": 1,
            "c2s/duplicate_id": 1,
            "s2c/too_many_in_flight": 1,
            "s2c/duplicate_id": 1
        })
    );
}

/// JSON-RPC 2.0 §5.1: a line whose id cannot be read (not JSON, or an invalid request
/// without a readable id) is answered with a null id. In two merged streams that reply
/// answers the client's line: it is no reply to a notification, and it does not pull the
/// client's stream forward past requests the server answers after it (the client reuses
/// id 1 once it was answered: no duplicate id, no unknown reply).
#[test]
fn merged_streams_match_a_null_id_reply_to_a_line_whose_id_cannot_be_read() {
    let reuse = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
    );
    let replies = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"result":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":2}"#,
    );
    for (line, code, violation) in [
        ("{x", -32700, "c2s/not_json"),
        (r#"{"jsonrpc":"2.0","method":1}"#, -32600, "c2s/invalid"),
    ] {
        let c2s = format!("{line}\n{reuse}");
        let s2c = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":{code},\"message\":\"m\"}}}}\n{replies}"
        );
        let (_, summary, code) =
            check_streams("cli-null-reply", &["--dialect", "jsonrpc"], c2s, s2c);
        assert_eq!(code, 1);
        assert_eq!(
            summary["violations"],
            serde_json::json!({ violation: 1 }),
            "{line}"
        );
    }
}

/// The error reply an invalid line is owed, sent: in two merged streams it answers that line,
/// after it, in either dialect. An invalid request whose id can be read is owed an error
/// carrying that id; under MCP a line whose id cannot be read (not JSON) is owed an error
/// without an id (MCP 2025-11-25's `JSONRPCErrorResponse`), which one with a null id (JSON-RPC
/// 2.0 §5.1) answers too. The server's reply was a violation of its own, `unknown_reply` or
/// (under MCP, before the line it answers) `reply_without_id`.
#[test]
fn merged_streams_match_the_error_an_invalid_line_is_owed() {
    let error = |id: &str, code: i32| {
        format!(r#"{{"jsonrpc":"2.0",{id}"error":{{"code":{code},"message":"m"}}}}"#)
    };
    for (dialect, line, reply, violation) in [
        ("mcp", "{x", error("", -32700), "c2s/not_json"),
        ("mcp", "{x", error(r#""id":null,"#, -32700), "c2s/not_json"),
        (
            "mcp",
            r#"{"jsonrpc":"2.0","id":5,"method":5}"#,
            error(r#""id":5,"#, -32600),
            "c2s/invalid",
        ),
        (
            "jsonrpc",
            r#"{"jsonrpc":"2.0","id":5,"method":5}"#,
            error(r#""id":5,"#, -32600),
            "c2s/invalid",
        ),
    ] {
        let c2s = format!(
            "{}\n{line}\n{}\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#
        );
        let s2c = format!(
            "{}\n{reply}\n{}\n",
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#
        );
        let (records, summary, code) =
            check_streams("cli-owed-line-reply", &["--dialect", dialect], c2s, s2c);
        assert_eq!(code, 1);
        assert_eq!(
            summary["violations"],
            json!({ violation: 1 }),
            "{dialect}: {line} answered by {reply}"
        );
        let at = |dir: &str| {
            records
                .iter()
                .position(|r| r["dir"] == dir && r["frame"] == 1)
                .unwrap()
        };
        assert!(at("c2s") < at("s2c"), "{dialect}: {reply} before {line}");
    }
}

/// The error owed to an invalid line sent alone answers it inside an array too, as the reply
/// to a valid request sent alone does there (no violation): by the line's id, or, for a line
/// whose id could not be read, a null one. It was the server's `unknown_reply` (with the id)
/// or `reply_without_id` (null), placed before the line.
#[test]
fn merged_streams_match_the_error_an_invalid_line_is_owed_inside_an_array() {
    let error = |id: &str, code: i32| {
        format!(r#"[{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"m"}}}}]"#)
    };
    for (line, reply, violation) in [
        (
            r#"{"jsonrpc":"2.0","id":5,"method":5}"#,
            error("5", -32600),
            "c2s/invalid",
        ),
        ("{x", error("null", -32700), "c2s/not_json"),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#.to_string(),
            "",
        ),
    ] {
        let (records, summary, code) = check_streams(
            "cli-owed-line-array",
            &["--dialect", "jsonrpc"],
            format!("{line}\n"),
            format!("{reply}\n"),
        );
        let expected = if violation.is_empty() {
            json!({})
        } else {
            json!({ violation: 1 })
        };
        assert_eq!(
            summary["violations"], expected,
            "{line} answered by {reply}"
        );
        assert_eq!(code, i32::from(!violation.is_empty()));
        let at = |dir: &str| records.iter().position(|r| r["dir"] == dir).unwrap();
        assert!(at("c2s") < at("s2c"), "{reply} before {line}");
    }
    // Under MCP, in a session of 2025-03-26 (whose server may send arrays), a null id too.
    let initialize = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"#,
        r#""2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#
    );
    let result = concat!(
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","#,
        r#""capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#
    );
    let (records, summary, _) = check_streams(
        "cli-owed-line-array-mcp",
        &["--dialect", "mcp"],
        format!("{initialize}\n{{x\n"),
        format!("{result}\n{}\n", error("null", -32700)),
    );
    assert_eq!(summary["violations"], json!({ "c2s/not_json": 1 }));
    let at = |dir: &str| {
        records
            .iter()
            .position(|r| r["dir"] == dir && r["frame"] == 1)
            .unwrap()
    };
    assert!(
        at("c2s") < at("s2c"),
        "the array before the line it answers"
    );
}

/// Under MCP, an invalid line sent with the id of a request still waiting, each answered by
/// an error of that id: the first error answers the request, and the second, a reply to an id
/// that stopped waiting, waits for the invalid line, whose reply it is. It went first, an
/// `unknown_reply`, the line then owed a reply nobody sent.
#[test]
fn merged_streams_give_the_second_error_of_an_id_to_the_invalid_line_sent_with_it() {
    let c2s = concat!(
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":5,"method":5}"#,
        "\n"
    );
    let s2c = concat!(
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"m"}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"m"}}"#,
        "\n"
    );
    let (records, summary, code) =
        check_streams("cli-owed-line-id-in-use", &["--dialect", "mcp"], c2s, s2c);
    assert_eq!(summary["violations"], json!({ "c2s/invalid": 1 }));
    assert_eq!(code, 1);
    let at = |dir: &str, frame: u64| {
        records
            .iter()
            .position(|r| r["dir"] == dir && r["frame"] == frame)
            .unwrap()
    };
    assert!(
        at("c2s", 1) < at("s2c", 1),
        "the second error before the line it answers"
    );
}

/// A stream of error responses each with a code of its own: the summary counts the first 256
/// codes under their own names and the rest under `(other)`, as the session's counters do
/// (one entry per distinct code made memory, and the summary, grow with the stream: ~1 GB
/// for 3 million codes with `--json`).
#[test]
fn the_summary_counts_a_bounded_number_of_error_codes() {
    let mut input = String::new();
    for code in 0..1000 {
        input += &format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{{\"code\":{},\"message\":\"m\"}}}}\n",
            1000 + code
        );
    }
    let (records, summary, code) = check(&["--direction", "s2c"], Some(input.as_bytes()));
    assert_eq!(code, 0);
    assert_eq!(records.len(), 1000);
    let by_code = summary["by_error_code"].as_object().unwrap();
    assert_eq!(by_code.len(), 257, "{summary}");
    assert_eq!(by_code["1000"], 1);
    assert_eq!(by_code["1255"], 1);
    assert_eq!(by_code["(other)"], 744);
    // The text summary too: one line a counted code, one for the rest.
    let text =
        String::from_utf8(run_check(&["--direction", "s2c"], input.as_bytes()).stdout).unwrap();
    assert_eq!(
        text.matches("error responses with code").count(),
        256,
        "{text}"
    );
    assert!(
        text.contains("  error responses with other codes: 744\n"),
        "{text}"
    );
}

/// The requests left unanswered at the end of a session are reported in the order they were
/// sent, the same at every run (they came in the table's hash order, seeded at random: the
/// report of one session changed from run to run).
#[test]
fn unanswered_requests_are_reported_in_the_order_they_were_sent() {
    let ids: Vec<String> = (0..40).map(|n| format!("\"r{n}\"")).collect();
    let c2s: String = ids
        .iter()
        .map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"m\"}}\n"))
        .collect();
    let s2c = "{\"jsonrpc\":\"2.0\",\"id\":\"srv\",\"method\":\"ping\"}\n";
    let (records, violations, code) = check_merged("cli-unanswered-order", &c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(
        violations,
        serde_json::json!({"c2s/unanswered": 40, "s2c/unanswered": 1})
    );
    let unanswered: Vec<&str> = records
        .iter()
        .filter(|r| r["event"] == "unanswered")
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let mut expected: Vec<&str> = ids.iter().map(String::as_str).collect();
    expected.push("\"srv\"");
    assert_eq!(unanswered, expected);
}

/// Inside a string, the byte where a frame stops being JSON is the raw control character
/// (a tab, say), or the byte of an escape that cannot be there: not the byte before the
/// control character, nor the last of a `\u` escape's four (where serde_json's position
/// points), in either validation mode.
#[test]
fn parse_errors_in_strings_say_which_byte() {
    let cases: [(&[u8], &[u8]); 7] = [
        (b"{\"jsonrpc\":\"2.0\",\"method\":\"a\tb\"}", b"\t"),
        // Fewer than four bytes after `\u` (serde_json: the end of the frame).
        (b"{\"jsonrpc\":\"2.0\",\"method\":\"\\u1\"}", b"\"}"),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":\"a\x1bb\",\"method\":\"m\"}",
            b"\x1b",
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"k\\u00\":1}}",
            b"\\u00\"",
        ),
        (b"{\"jsonrpc\":\"2.0\",\"method\":\"\\u12x4\"}", b"x"),
        (b"{\"jsonrpc\":\"2.0\",\"method\":\"\\q\"}", b"q"),
        (b"{\"jsonrpc\":\"2.0\",\"method\":\"\\\\uab\\q\"}", b"q"),
    ];
    for validate in ["lazy", "strict"] {
        for (frame, what) in cases {
            let mut input = frame.to_vec();
            input.push(b'\n');
            let (records, _, code) = check(&["--validate", validate], Some(&input));
            assert_eq!(code, 1);
            let at = frame.windows(what.len()).position(|w| w == what).unwrap();
            // (For the `\u00"` escape: its `"`, the first byte that is no hex digit.)
            let at = if what.starts_with(b"\\u") { at + 4 } else { at };
            assert_eq!(
                records[0]["at"],
                at,
                "{validate} {}: {}",
                String::from_utf8_lossy(frame),
                records[0]
            );
        }
    }
}

/// An SSE stream cut inside an event that set a `retry`: the reconnection time is a client's
/// as soon as its line is read, so the `retry` comes as the `skip` it is in a stream ending
/// after it alone, after the `framing_error` of the event the client drops (it was lost with
/// the event).
#[test]
fn a_retry_in_an_sse_event_cut_by_the_end_is_still_reported() {
    let (records, _, code) = check(&["--framing", "sse"], Some(b"retry: 5\n"));
    assert_eq!(code, 0);
    assert_eq!(kinds(&records), ["skip"]);
    for input in [
        &b"retry: 5\ndata: {}"[..],
        b"data: {}\nretry: 5\n",
        b": c\nretry: 5\ndata: {}\n",
    ] {
        let (records, summary, code) = check(&["--framing", "sse"], Some(input));
        assert_eq!(code, 1);
        assert_eq!(
            kinds(&records),
            ["framing_error", "skip"],
            "{}",
            String::from_utf8_lossy(input)
        );
        assert_eq!(records[0]["offset"], 0);
        assert_eq!(records[1]["offset"], 0);
        assert_eq!(records[1]["frame"], 1);
        // (The `retry`'s event holds no message.)
        assert_eq!(summary["messages"], 1);
    }
}

/// A stream of each framing cut at every byte: the report is always one JSON record a
/// frame and a summary, frames numbered in order, offsets in order and inside the bytes
/// read, the summary's count of messages (the records but `skip`s) and validity agreeing
/// with the records and the exit code.
#[test]
fn a_stream_cut_at_every_byte_is_reported_consistently() {
    let streams: [(&str, &[u8]); 3] = [
        (
            "ndjson",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"a\":\"\\u00e9\xc3\xa9\"}}\n[1]\n{bad\n",
        ),
        (
            "sse",
            b"\xef\xbb\xbf: hi\r\nid: 1\r\nevent: endpoint\r\ndata: /x\r\n\r\nretry: 9\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"n\"}\n\nid: 2\n\n\rdata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\r",
        ),
        (
            "content-length",
            b"Content-Length: 31\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"} Content-Length: 2\r\nContent-Type: x\r\n\r\n{}content-length:0\r\n\r\n",
        ),
    ];
    for (framing, stream) in streams {
        for cut in 0..=stream.len() {
            let (records, summary, code) = check(&["--framing", framing], Some(&stream[..cut]));
            let what = format!("{framing} cut at {cut}: {records:?}");
            let messages = records.iter().filter(|r| r["kind"] != "skip").count();
            assert_eq!(summary["messages"], messages, "{what}");
            assert_eq!(summary["valid"], code == 0, "{what}");
            assert!(code == 0 || code == 1, "{what}");
            let mut last = 0;
            for (n, r) in records.iter().enumerate() {
                assert_eq!(r["frame"], n, "{what}");
                let offset = r["offset"].as_u64().unwrap();
                assert!(last <= offset && offset <= cut as u64, "{what}");
                last = offset;
            }
        }
    }
}

/// A record of a merged session names the frame `check` names for the same stream: blank
/// lines (and SSE events holding no message) are frames there, reported as `skip`; the merge
/// does not report them, but counts them (its frame numbers skipped them, so a violation's
/// frame pointed at another message of the stream).
#[test]
fn merged_records_number_frames_as_a_single_stream_does() {
    let c2s = "\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\n  \n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"m\"}\n";
    let s2c = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n";
    let (merged, _, code) = check_merged("cli-merge-frames", c2s, s2c);
    assert_eq!(code, 1);
    for (dir, stream, direction) in [("c2s", c2s, "c2s"), ("s2c", s2c, "s2c")] {
        let (single, _, _) = check(&["--direction", direction], Some(stream.as_bytes()));
        let single: Vec<(&Value, &Value)> = single
            .iter()
            .filter(|r| r["kind"] != "skip")
            .map(|r| (&r["frame"], &r["offset"]))
            .collect();
        let merged: Vec<(&Value, &Value)> = merged
            .iter()
            .filter(|r| r["dir"] == dir && r["event"].is_null())
            .map(|r| (&r["frame"], &r["offset"]))
            .collect();
        assert_eq!(merged, single, "{dir}");
    }
}

/// The order of a merge's records, each as `dir:id` (`dir:-` for a message without an id),
/// with its violation after a space when it has one.
fn merged_order(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let id = r["id"].as_str().unwrap_or("-");
            let what = format!("{}:{id}", r["dir"].as_str().unwrap_or("?"));
            match r["violation"].as_str() {
                Some(v) => format!("{what} {v}"),
                None => what,
            }
        })
        .collect()
}

/// Under MCP, which forbids a client to send an id again, a second reply to a request already
/// answered is an `unknown_reply` where it comes: it does not pull the client's stream
/// forward, as a reply to an id not sent yet does. Pulled, the
/// client's stream went ahead of it to its end, its cancellation of request 2 before the
/// server's reply to 2, which was then reported as a `late_reply` (a violation only a proxy
/// log, with its timing, can show).
#[test]
fn a_second_reply_to_an_answered_request_is_reported_where_it_comes() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-second-reply", c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"s2c/unknown_reply": 1}));
    assert_eq!(
        merged_order(&records),
        [
            "c2s:1",
            "s2c:1",
            "s2c:1 unknown_reply",
            "c2s:2",
            "s2c:2",
            "c2s:-",
            "c2s:3",
            "s2c:3"
        ]
    );
}

/// A client's second reply to a server request already answered does not hold back the
/// server's stream either: the server's reply to the client's next request, waiting behind
/// it, was taken first and reported as an `unknown_reply`, and that request as `unanswered`.
#[test]
fn a_second_reply_from_the_client_does_not_hold_back_the_server() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-second-client-reply", c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"c2s/unknown_reply": 1}));
    assert_eq!(
        merged_order(&records),
        [
            "s2c:\"s1\"",
            "c2s:\"s1\"",
            "c2s:\"s1\" unknown_reply",
            "c2s:5",
            "s2c:5"
        ]
    );
}

/// Under JSON-RPC a client may send an id again once its request is answered: the server's
/// reply to the new request still waits for it, past the client's notifications in between.
#[test]
fn a_reply_to_an_id_sent_again_after_its_answer_waits_for_it() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","method":"note"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"b"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    );
    let (records, summary, code) =
        check_streams("cli-id-sent-again", &["--dialect", "jsonrpc"], c2s, s2c);
    assert_eq!(code, 0, "{summary}");
    assert_eq!(
        merged_order(&records),
        ["c2s:1", "s2c:1", "c2s:-", "c2s:1", "s2c:1"]
    );
}

/// Progress on the token of a request already answered is an `unknown_progress` where it
/// comes, as a second reply is: pulled as progress on a token not sent yet, the client's
/// stream went ahead of it to its end, its cancellation of request 2 before the server's
/// reply to 2, which was then reported as a `late_reply`.
#[test]
fn progress_after_its_request_was_answered_is_reported_where_it_comes() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-progress-after-answer", c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"s2c/unknown_progress": 1}));
    assert_eq!(
        merged_order(&records),
        [
            "c2s:1",
            "s2c:1",
            "s2c:- unknown_progress",
            "c2s:2",
            "s2c:2",
            "c2s:-"
        ]
    );
}

/// Progress on a token a new request carries again, after the first request's result, waits
/// for that request (the server reports on the new one), past the client's notifications.
#[test]
fn progress_on_a_token_sent_again_waits_for_its_request() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-progress-token-again", c2s, s2c);
    assert_eq!(code, 0, "{violations}");
    assert_eq!(
        merged_order(&records),
        ["c2s:1", "s2c:1", "c2s:-", "c2s:2", "s2c:-", "s2c:2"]
    );
}

/// A client that pipelines may send other requests before the one that carries a progress
/// token again (once the first request on it was answered): progress on the token waits for
/// that request, found by looking ahead in the client's stream, past the requests before it.
/// (Only the client's next message was looked at: the progress went first, a false
/// `unknown_progress`.)
#[test]
fn progress_on_a_token_sent_again_after_other_requests_waits_for_its_request() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-progress-token-pipelined", c2s, s2c);
    assert_eq!(code, 0, "{violations}");
    assert_eq!(
        merged_order(&records),
        [
            "c2s:1", "s2c:1", "c2s:2", "c2s:-", "c2s:3", "s2c:-", "s2c:3"
        ]
    );
}

/// A client's progress on a server request's token after the client's result to it is
/// reported where it comes when the server's next message pulls the client's stream, even
/// though a later server request carries the token again: the server sent that request after
/// the reply that pulls, once it had read the client's progress, which can be on no request of
/// the server's but the first. (Waiting for it, the progress held back the client's stream,
/// and the server's reply to request 5 went before that request: an `unknown_reply`, and the
/// request `unanswered`.)
#[test]
fn a_client_progress_after_its_result_does_not_wait_behind_a_server_reply() {
    let ask = |id: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"sampling/createMessage\",\"params\":{{\"_meta\":{{\"progressToken\":\"p\"}}}}}}\n"
        )
    };
    let result = |id: &str| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n");
    let progress = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}\n";
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n";
    let c2s = [
        result("\"s1\""),
        progress.to_string(),
        ping.to_string(),
        result("\"s2\""),
    ]
    .concat();
    let s2c = [ask("s1"), result("5"), ask("s2")].concat();
    let (records, violations, code) = check_merged("cli-client-progress-stale", &c2s, &s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"c2s/unknown_progress": 1}));
    assert_eq!(
        merged_order(&records),
        [
            "s2c:\"s1\"",
            "c2s:\"s1\"",
            "c2s:- unknown_progress",
            "c2s:5",
            "s2c:5",
            "s2c:\"s2\"",
            "c2s:\"s2\""
        ]
    );
}

/// A reply to an id the other stream never sends, looked at ahead to its end, is reported
/// where it comes: it no longer pulls that stream to its end, which put the client's
/// cancellation of request 2 before the server's reply to 2 (a false `late_reply`) and, under
/// JSON-RPC, the client's request sending id 1 again before the server's reply to the first
/// (a false `duplicate_id`).
#[test]
fn a_reply_to_an_id_never_sent_does_not_pull_the_other_stream() {
    let request = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
    let reply = |id: &str| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n");
    let cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n";
    let c2s = [request(1), request(2), cancel.to_string(), request(3)].concat();
    let s2c = [reply("9"), reply("1"), reply("2"), reply("3")].concat();
    let (records, violations, code) = check_merged("cli-never-sent", &c2s, &s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"s2c/unknown_reply": 1}));
    assert_eq!(
        merged_order(&records),
        [
            "s2c:9 unknown_reply",
            "c2s:1",
            "s2c:1",
            "c2s:2",
            "s2c:2",
            "c2s:-",
            "c2s:3",
            "s2c:3"
        ]
    );

    let c2s = [request(1), request(2), request(1)].concat();
    let s2c = [reply("9"), reply("1"), reply("2"), reply("1")].concat();
    let (records, summary, code) = check_streams(
        "cli-never-sent-jsonrpc",
        &["--dialect", "jsonrpc"],
        &c2s,
        &s2c,
    );
    assert_eq!(code, 1);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"s2c/unknown_reply": 1})
    );
    assert_eq!(
        merged_order(&records),
        [
            "s2c:9 unknown_reply",
            "c2s:1",
            "s2c:1",
            "c2s:2",
            "s2c:2",
            "c2s:1",
            "s2c:1"
        ]
    );

    // The same of a client's reply to a server request never sent: it held back the
    // server's stream, whose reply to request 1 went before that request (a false
    // `unknown_reply`, and the request `unanswered`).
    let c2s = [reply("\"s9\""), request(1)].concat();
    let s2c = reply("1");
    let (records, violations, code) = check_merged("cli-never-sent-client", &c2s, &s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"c2s/unknown_reply": 1}));
    assert_eq!(
        merged_order(&records),
        ["c2s:\"s9\" unknown_reply", "c2s:1", "s2c:1"]
    );
}

/// The same in a JSON-RPC batch: its reply to an id the client never sends does not hold the
/// batch back until the client's stream ends; the batch waits only for the request its other
/// reply answers. (Pulled to the end, the client's request sending id 1 again came before the
/// batch's reply to the first: a false `duplicate_id`.)
#[test]
fn a_batch_reply_to_an_id_never_sent_does_not_pull_the_other_stream() {
    let request = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"m\"}}\n");
    let c2s = [request(1), request(2), request(1)].concat();
    let s2c = ndjson!(
        r#"[{"jsonrpc":"2.0","id":9,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    );
    let (records, summary, code) =
        check_streams("cli-never-sent-batch", &["--dialect", "jsonrpc"], &c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"s2c/unknown_reply": 1})
    );
    assert_eq!(
        merged_order(&records),
        [
            "c2s:1",
            "s2c:-",
            "s2c:9 unknown_reply",
            "s2c:1",
            "c2s:2",
            "s2c:2",
            "c2s:1",
            "s2c:1"
        ]
    );
}

/// A JSON-RPC batch holding a second reply to a server request (whose id the server sends
/// again later) is placed as that reply alone is: when the server's next message pulls the
/// client's stream (its reply to request 5, behind the batch), the batch goes first. (It
/// waited as a reply to an id not sent yet: the server's reply to 5 went before request 5, an
/// `unknown_reply` and the request `unanswered`, and the batch's reply then answered the
/// server's second request, whose own reply became an `unknown_reply`.)
#[test]
fn a_batch_with_a_second_reply_is_placed_as_that_reply_alone() {
    let reply = |id: &str| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}");
    let ask = "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"m\"}\n";
    let ping = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n";
    let second = |batch: bool| match batch {
        true => format!("[{}]\n", reply("\"s1\"")),
        false => format!("{}\n", reply("\"s1\"")),
    };
    let s2c = [ask.to_string(), reply("5") + "\n", ask.to_string()].concat();
    for batch in [false, true] {
        let c2s = [
            reply("\"s1\"") + "\n",
            second(batch),
            ping.to_string(),
            reply("\"s1\"") + "\n",
        ]
        .concat();
        let (records, summary, code) = check_streams(
            "cli-batch-second-reply",
            &["--dialect", "jsonrpc"],
            &c2s,
            &s2c,
        );
        assert_eq!(code, 1);
        assert_eq!(
            summary["violations"],
            serde_json::json!({"c2s/unknown_reply": 1}),
            "batch: {batch}"
        );
        let mut expected = vec!["s2c:\"s1\"", "c2s:\"s1\""];
        if batch {
            expected.push("c2s:-");
        }
        expected.extend([
            "c2s:\"s1\" unknown_reply",
            "c2s:5",
            "s2c:5",
            "s2c:\"s1\"",
            "c2s:\"s1\"",
        ]);
        assert_eq!(merged_order(&records), expected, "batch: {batch}");
    }
}

/// A server's array of replies goes after the client batch it fits (one array answers one
/// batch, JSON-RPC 2.0 §6: each reply answers a distinct element of it owed one), not where
/// one of its replies alone would go; the streams of a correct server answering batches in
/// any order are no violation. Each case was a false report:
/// - an error in an array with the id of a request sent alone went first, taken for that
///   request's reply, before the batch whose invalid element of that id it answers; the
///   server's success to the request was then a `success_to_invalid`;
/// - a null-id error answering a later batch (an element whose id could not be read) went
///   first, as soon as an earlier batch owed a reply it could take (an invalid element with an
///   id), and the reply to that element was then an `unknown_reply`;
/// - the same when the earlier batch owed null-id errors too, but fewer than its own array
///   holds: the array answering it whole came second, and its last null-id error found
///   nothing owed (`reply_without_id`). An array goes after a batch it answers whole before
///   one it fits only in part;
/// - a null-id error answering a later batch went first, taken for the reply to an earlier
///   batch's request with a null id, whose success (in the array answering that batch) then
///   answered the client's next request of a null id, sent alone, and the server's success to
///   that one found nothing waiting (`reply_without_id`). The array pulling the client's
///   stream to the batch it answers whole goes after it, and not after the earlier batch
///   observed meanwhile, which it fits in part only;
/// - a null-id error to an invalid element whose id could be read (§5.1 calls for its id, but
///   the error answers it all the same) went first, before that element, answering nothing
///   (`reply_without_id`): such an array fits the batch leniently, tried after every strict
///   fit;
/// - the same with an earlier batch owing a null-id error (an element whose id could not be
///   read): the array went after that one, which it fits in part, taking its reply, and the
///   array answering it whole then found none left (`reply_without_id`). A batch an array
///   answers whole, even leniently, goes before one it fits in part, and the null-id error
///   takes the reply owed to the batch it answers.
#[test]
fn a_servers_array_goes_after_the_client_batch_it_fits() {
    let request = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#);
    let invalid = |id: &str| format!(r#"{{"jsonrpc":"1.0","id":{id},"method":"m"}}"#);
    let success = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
    let error = |id: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"m"}}}}"#)
    };
    let array = |elements: &[String]| format!("[{}]", elements.join(","));
    let lines = |lines: &[String]| lines.join("\n") + "\n";
    let unreadable = r#"{"jsonrpc":"2.0","id":true,"method":"m"}"#.to_string();
    let notification = r#"{"jsonrpc":"2.0","method":"n"}"#.to_string();
    let cases = [
        (
            "alone",
            lines(&[request("1"), array(&[invalid("1")])]),
            lines(&[array(&[error("1")]), success("1")]),
            vec!["c2s:1", "c2s:-", "c2s:1 invalid", "s2c:-", "s2c:1", "s2c:1"],
        ),
        (
            "null-taken",
            lines(&[
                array(&[request("3"), invalid("5")]),
                array(std::slice::from_ref(&unreadable)),
            ]),
            lines(&[array(&[error("null")]), array(&[error("5"), success("3")])]),
            vec![
                "c2s:-",
                "c2s:3",
                "c2s:5 invalid",
                "c2s:-",
                "c2s:- invalid",
                "s2c:-",
                "s2c:null",
                "s2c:-",
                "s2c:5",
                "s2c:3",
            ],
        ),
        (
            "whole-first",
            lines(&[
                array(&["[]".into(), request("2"), "[]".into(), request("1")]),
                array(&["[]".into()]),
            ]),
            lines(&[
                array(&[error("null")]),
                array(&[error("null"), success("2"), error("null"), success("1")]),
            ]),
            vec![
                "c2s:-",
                "c2s:- invalid",
                "c2s:2",
                "c2s:- invalid",
                "c2s:1",
                "c2s:-",
                "c2s:- invalid",
                "s2c:-",
                "s2c:null",
                "s2c:-",
                "s2c:null",
                "s2c:2",
                "s2c:null",
                "s2c:1",
            ],
        ),
        (
            "null-request",
            lines(&[
                array(&[request("null"), "5".into(), "{}".into()]),
                array(std::slice::from_ref(&unreadable)),
                request("null"),
            ]),
            lines(&[
                array(&[error("null")]),
                array(&[success("null"), error("null"), error("null")]),
                success("null"),
            ]),
            vec![
                "c2s:-",
                "c2s:null",
                "c2s:- invalid",
                "c2s:- invalid",
                "c2s:-",
                "c2s:- invalid",
                "s2c:-",
                "s2c:null",
                "s2c:-",
                "s2c:null",
                "s2c:null",
                "s2c:null",
                "c2s:null",
                "s2c:null",
            ],
        ),
        (
            "lenient",
            lines(&[array(&[notification.clone(), invalid("1")])]),
            lines(&[array(&[error("null")])]),
            vec!["c2s:-", "c2s:-", "c2s:1 invalid", "s2c:-", "s2c:null"],
        ),
        (
            "lenient-whole-first",
            lines(&[
                array(&[request("3"), unreadable.clone()]),
                array(&[invalid("3")]),
            ]),
            lines(&[
                array(&[error("null")]),
                array(&[success("3"), error("null")]),
            ]),
            vec![
                "c2s:-",
                "c2s:3",
                "c2s:- invalid",
                "c2s:-",
                "c2s:3 invalid",
                "s2c:-",
                "s2c:null",
                "s2c:-",
                "s2c:3",
                "s2c:null",
            ],
        ),
    ];
    for (name, c2s, s2c, order) in cases {
        let (records, summary, _) = check_streams(
            &format!("cli-array-fits-{name}"),
            &["--dialect", "jsonrpc"],
            &c2s,
            &s2c,
        );
        let violations = summary["violations"].as_object().unwrap();
        assert!(
            violations.keys().all(|v| v == "c2s/invalid"),
            "{name}: {violations:?}"
        );
        assert_eq!(merged_order(&records), order, "{name}");
    }
}

/// The look ahead is bounded (4,096 messages, 1 MiB of frames): a reply to an id the other
/// stream sends beyond it still waits for it, as a reply to an id not sent yet did, the look
/// ahead going on as that stream moves; it is not taken for an id never sent.
#[test]
fn a_reply_to_an_id_sent_beyond_the_look_ahead_still_waits_for_it() {
    let note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}\n";
    let c2s = note.repeat(5000) + "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n";
    let s2c = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
    let (records, violations, code) = check_merged("cli-beyond-look-ahead", &c2s, s2c);
    assert_eq!(code, 0, "{violations}");
    let order = merged_order(&records);
    assert_eq!(order.len(), 5002);
    assert_eq!(order[5000..], ["c2s:7", "s2c:7"]);
}

/// A notification of a listen stream its result closed already is an `unknown_subscription`
/// where it comes, as a second reply is: pulled as a notification of a stream not opened yet,
/// the client's stream went ahead of it to its end, its cancellation of request 2 before the
/// server's reply to 2, which was then reported as a `late_reply`.
#[test]
fn a_notification_of_a_closed_listen_stream_is_reported_where_it_comes() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":"l","result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-closed-listen-stream", c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(
        violations,
        serde_json::json!({"s2c/unknown_subscription": 1})
    );
    assert_eq!(
        merged_order(&records),
        [
            "c2s:\"l\"",
            "s2c:\"l\"",
            "s2c:- unknown_subscription",
            "c2s:2",
            "s2c:2",
            "c2s:-"
        ]
    );
}

/// A notification of a listen stream whose id a new listen request sends again, after the
/// first stream's result, waits for that request, past the client's notifications. (MCP
/// forbids a requestor to use an id again in a session: the second request is `reused_id`,
/// its one violation.)
#[test]
fn a_notification_of_a_listen_stream_opened_again_waits_for_it() {
    let listen = r#"{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{}}"#;
    let c2s = [
        listen,
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
        listen,
    ]
    .join("\n")
        + "\n";
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":"l","result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}}"#,
        r#"{"jsonrpc":"2.0","id":"l","result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-listen-stream-again", &c2s, s2c);
    assert_eq!(code, 1, "{violations}");
    assert_eq!(violations, serde_json::json!({"c2s/reused_id": 1}));
    assert_eq!(
        merged_order(&records),
        [
            "c2s:\"l\"",
            "s2c:\"l\"",
            "c2s:-",
            "c2s:\"l\" reused_id",
            "s2c:-",
            "s2c:\"l\""
        ]
    );
}

/// Under JSON-RPC a client may send an id again once its request is answered, with other
/// requests before it (a client drawing ids from a small pool, its requests in flight
/// together): the server's reply to the new request still waits for it. (MCP forbids a sender
/// to use an id again in a session: there the request is `reused_id`, and the reply goes
/// where it comes, a second reply.)
#[test]
fn a_reply_to_an_id_sent_again_after_other_requests_waits_for_it_under_jsonrpc() {
    let request = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"m\"}}\n");
    let reply = |id: u32| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}\n");
    let c2s = [request(1), request(2), request(3), request(1)].concat();
    let s2c = [reply(1), reply(2), reply(1), reply(3)].concat();
    let (records, summary, code) =
        check_streams("cli-id-pool", &["--dialect", "jsonrpc"], &c2s, &s2c);
    assert_eq!(code, 0, "{summary}");
    assert_eq!(
        merged_order(&records),
        [
            "c2s:1", "s2c:1", "c2s:2", "s2c:2", "c2s:3", "c2s:1", "s2c:1", "s2c:3"
        ]
    );
    let (_, summary, code) = check_streams("cli-id-pool-mcp", &[], &c2s, &s2c);
    assert_eq!(code, 1);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"c2s/reused_id": 1, "s2c/unknown_reply": 1, "c2s/unanswered": 1})
    );
}

/// Replies to different batches come in any order (JSON-RPC 2.0 §6), and nothing on the wire
/// tells a request from an invalid element of the same id: a server answering a later batch's
/// invalid element of id 3 before an earlier batch's request of id 3 (the error first, the
/// success after), or a batch's invalid element and its request of a null id in either order
/// inside one array, answered each rightly; and a success of id "a" alone comes after the
/// client's request "a", which it answers, not before it, where only an invalid element of
/// that id was owed. No `success_to_invalid`.
#[test]
fn a_success_answers_a_request_of_its_id_before_an_invalid_element() {
    let error = |id: &str| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32600,\"message\":\"Invalid Request\"}}}}"
        )
    };
    let cases = [
        (
            "[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\"}]\n[{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"m\"}]\n".to_string(),
            format!("[{}]\n[{{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\"ok\"}}]\n", error("3")),
        ),
        (
            "[{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"a\"},5]\n".to_string(),
            format!("[{},{{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":\"a\"}}]\n", error("null")),
        ),
        (
            "[{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"a\"},5]\n".to_string(),
            format!("[{{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":\"a\"}},{}]\n", error("null")),
        ),
        (
            "[{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"m\"}]\n{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"m\"}\n".to_string(),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":\"ok\"}}\n[{}]\n", error("\"a\"")),
        ),
    ];
    // A success where only the invalid element's reply is owed, and no request of its id is
    // ever sent: still one.
    let (_, summary, code) = check_streams(
        "cli-success-to-invalid",
        &["--dialect", "jsonrpc"],
        "[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"m\",\"params\":1}]\n{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"m\"}\n",
        "[{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":1}]\n{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":1}\n",
    );
    assert_eq!(
        summary["violations"],
        serde_json::json!({"c2s/invalid": 1, "s2c/success_to_invalid": 1})
    );
    assert_eq!(code, 1);
    for (c2s, s2c) in cases {
        let (records, summary, code) = check_streams(
            "cli-success-to-request",
            &["--dialect", "jsonrpc"],
            &c2s,
            &s2c,
        );
        assert_eq!(
            summary["violations"],
            serde_json::json!({"c2s/invalid": 1}),
            "{c2s}{s2c}{records:#?}"
        );
        assert_eq!(code, 1);
    }
}

/// One line holding a JSON array of `elements`.
fn batch_line(elements: impl Iterator<Item = String>) -> String {
    format!("[{}]\n", elements.collect::<Vec<_>>().join(","))
}

/// A server's array answering a batch of invalid elements, half of them with their ids and
/// half with null ids (§5.1 calls for the id, but a null one answers all the same), the null
/// ones first: each null-id error takes an element whose id no reply in the array carries, so
/// the replies with an id find theirs (taken oldest first, they were `unknown_reply`), and in
/// linear time (a null-id error looked through the batch past the ids the array carries: two
/// halves of 20,000 took minutes in a debug build, against seconds; the budget sits between,
/// on the CPU time `rpcwire` spends, which a loaded machine does not stretch as it does the
/// wall time).
#[test]
fn null_id_errors_take_the_invalid_elements_no_other_reply_answers() {
    const N: usize = 40_000;
    let c2s = batch_line((0..N).map(|n| format!(r#"{{"jsonrpc":"1.0","id":{n},"method":"m"}}"#)));
    let error = |id: String| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"m"}}}}"#)
    };
    let nulls = (0..N / 2).map(|_| error("null".into()));
    let s2c = batch_line(nulls.chain((0..N / 2).map(|n| error(n.to_string()))));
    let (summary, code, cpu) = check_streams_cpu(
        "null_id_errors_take_elements_left",
        &["--dialect", "jsonrpc", "--max-batch", "100000"],
        c2s,
        s2c,
    );
    assert_eq!(code, 1);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"c2s/invalid": N}),
        "{summary}"
    );
    assert!(cpu < Duration::from_secs(60), "{cpu:?} of CPU time");
}

/// A client batch of many requests kept peeked while the server's batch is checked element by
/// element, each a reply to an id the client never sends: the look ahead asks for each whether
/// the client's peeked batch sends that id, and the answer costs the same whatever the batch's
/// size. (The ids the batch sends were a list scanned at each step: two batches of 100,000
/// took about two minutes, against 3-12 seconds, in a debug build; the budget sits between,
/// on the CPU time `rpcwire` spends, which a loaded machine does not stretch as it does the
/// wall time.)
#[test]
fn a_peeked_batch_is_asked_what_it_sends_in_constant_time() {
    const N: usize = 100_000;
    let c2s = batch_line((0..N).map(|n| format!(r#"{{"jsonrpc":"2.0","id":{n},"method":"m"}}"#)));
    let s2c =
        batch_line((0..N).map(|n| format!(r#"{{"jsonrpc":"2.0","id":"x{n}","result":{{}}}}"#)));
    let (summary, code, cpu) = check_streams_cpu(
        "peeked_batch_sends_in_constant_time",
        &["--dialect", "jsonrpc"],
        c2s,
        s2c,
    );
    assert_eq!(code, 1);
    assert_eq!(summary["violations"]["s2c/unknown_reply"], N, "{summary}");
    assert!(cpu < Duration::from_secs(60), "{cpu:?} of CPU time");
}

/// The records read ahead before the session's version is known are read again by its rules
/// once it is. A result holding `resultType: 42` is invalid until a version is known (the
/// member is checked from 2026-07-28 on) and valid under 2025-11-25: read ahead (while a
/// client's reply to a request the server never sends looked for one to the end of the
/// server's stream) before the server's `initialize` result named 2025-11-25, it is then a
/// valid reply to the client's `tools/call`, placed after it.
#[test]
fn records_read_ahead_follow_the_version_negotiated_after() {
    let (c2s, s2c) = session_with_an_untyped_result_type("2025-11-25");
    let c2s = format!("{{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{{}}}}\n{c2s}");
    let (records, violations, code) = check_merged("cli-read-ahead-version", &c2s, &s2c);
    assert_eq!(code, 1);
    assert_eq!(
        violations,
        serde_json::json!({"c2s/unknown_reply": 1}),
        "{records:#?}"
    );
    assert_eq!(
        merged_order(&records),
        [
            "c2s:\"x\" unknown_reply",
            "c2s:0",
            "s2c:0",
            "c2s:-",
            "c2s:1",
            "s2c:1"
        ]
    );
    assert_eq!(records[5]["kind"], "success_response");
}

/// Under JSON-RPC a second reply to an id is placed by a look ahead in the client's stream
/// for a request sending that id again; one that the client's stream never sends again goes
/// where it comes, an `unknown_reply`. The request of its first reply was read ahead (found
/// by that reply's look ahead) and taken since: what the look ahead holds no longer sends it.
#[test]
fn a_request_taken_from_the_look_ahead_no_longer_counts_as_sent() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","method":"n"}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"a"}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"b"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":6,"result":{}}"#,
    );
    let (records, summary, code) = check_streams(
        "cli-taken-from-look-ahead",
        &["--dialect", "jsonrpc"],
        c2s,
        s2c,
    );
    assert_eq!(code, 1);
    assert_eq!(
        summary["violations"],
        serde_json::json!({"s2c/unknown_reply": 1})
    );
    assert_eq!(
        merged_order(&records),
        [
            "c2s:-",
            "c2s:5",
            "s2c:5",
            "s2c:5 unknown_reply",
            "c2s:6",
            "s2c:6"
        ]
    );
}

/// A frame over `--max-frame` read ahead holds no frame, and counts no bytes of the look
/// ahead's bound: taken from it, the look ahead goes on (the reply to 7 waits for the request
/// the look ahead found after it).
#[test]
fn an_over_long_frame_read_ahead_is_taken_from_it() {
    let c2s = format!(
        "{}\n{{\"jsonrpc\":\"2.0\",\"method\":\"{}\"}}\n{}\n",
        r#"{"jsonrpc":"2.0","method":"n"}"#,
        "x".repeat(100),
        r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
    );
    let s2c = ndjson!(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
    let (records, summary, code) =
        check_streams("cli-over-long-read-ahead", &["--max-frame", "64"], c2s, s2c);
    assert_eq!(code, 1, "{records:#?}");
    assert_eq!(
        summary["violations"],
        serde_json::json!({"c2s/too_long": 1}),
        "{records:#?}"
    );
    assert_eq!(
        merged_order(&records),
        ["c2s:-", "c2s:- too_long", "c2s:7", "s2c:7"]
    );
}

/// The look ahead's bound of 1 MiB is on the frames it holds, not on those that went through
/// it: after 2 MiB of notifications were read ahead (found by a reply waiting for the request
/// after them) and taken, a reply to an id the client never sends is still found never sent
/// by reading the client's stream to its end, and goes where it comes, an `unknown_reply`,
/// before the client's next message.
#[test]
fn the_look_ahead_bound_is_on_what_it_holds() {
    let note = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{}\"}}}}\n",
        "x".repeat(64 << 10)
    );
    let c2s = note.repeat(32)
        + ndjson!(
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-look-ahead-bound-held", &c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"s2c/unknown_reply": 1}));
    assert_eq!(
        merged_order(&records)[32..],
        ["c2s:7", "s2c:7", "s2c:9 unknown_reply", "c2s:-"]
    );
}

/// MCP progress on a token no request carries yet pulls the client's stream forward (rule 2)
/// while the look ahead cannot tell whether the client sends it: a notification of over 1 MiB
/// fills the look ahead before the request carrying the token. (Only progress on a token that
/// stopped lately is a second report, placed as one: first, when the client's next message is
/// no request carrying it; so placed, this one went before the request it reports on.)
#[test]
fn progress_on_a_token_beyond_the_look_ahead_waits_for_its_request() {
    let note = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{}\"}}}}\n",
        "x".repeat(1 << 20)
    );
    let c2s = format!(
        "{}\n{note}{}\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"t"}}}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
    );
    let (records, violations, code) = check_merged("cli-progress-beyond-look-ahead", &c2s, s2c);
    assert_eq!(code, 0, "{violations}");
    assert_eq!(
        merged_order(&records),
        ["c2s:1", "c2s:-", "c2s:2", "s2c:-", "s2c:1", "s2c:2"]
    );
}

/// An MCP 2025-03-26 array holding an error without an id answers no request the client may
/// still send (an error without an id is read as one with a null id only when sent alone): it
/// goes by rule 3, the server's stream first, a `reply_without_id`, before the client's next
/// message.
#[test]
fn an_error_without_an_id_in_an_array_pulls_nothing() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
        r#"[{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}]"#,
    );
    let (records, violations, code) = check_merged("cli-array-error-without-id", c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"s2c/reply_without_id": 1}));
    assert_eq!(
        merged_order(&records),
        ["c2s:0", "s2c:0", "s2c:-", "s2c:- reply_without_id", "c2s:-"]
    );
}

/// An error sent alone may answer an invalid element of a client batch, owed an error of its
/// id: it goes first (rule 1) once that batch was observed, before the client's request
/// sending the same id again, which the server's success then answers. Pulled past that
/// request, the error was taken for its reply, and the success for a reply to the invalid
/// element (`success_to_invalid`).
#[test]
fn an_error_alone_answers_an_invalid_element_owed_it() {
    let c2s = ndjson!(
        r#"[{"jsonrpc":"2.0","id":5}]"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"m"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
    );
    let (records, summary, code) = check_streams(
        "cli-error-alone-to-element",
        &["--dialect", "jsonrpc"],
        c2s,
        s2c,
    );
    assert_eq!(code, 1);
    assert_eq!(summary["violations"], serde_json::json!({"c2s/invalid": 1}));
    assert_eq!(
        merged_order(&records),
        ["c2s:-", "c2s:5 invalid", "s2c:5", "c2s:5", "s2c:5"]
    );
}

/// An error answers an invalid line owed an error of its id (JSON-RPC 2.0 §5.1): it goes
/// first (rule 1), before the client's request sending the same id again, which the server's
/// success then answers. Pulled past that request, the error was taken for its reply, and the
/// success was an `unknown_reply`.
#[test]
fn an_error_answers_the_invalid_line_owed_it_first() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":5}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"m"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
    );
    let (records, summary, code) = check_streams(
        "cli-error-to-invalid-line",
        &["--dialect", "jsonrpc"],
        c2s,
        s2c,
    );
    assert_eq!(code, 1);
    assert_eq!(summary["violations"], serde_json::json!({"c2s/invalid": 1}));
    assert_eq!(
        merged_order(&records),
        ["c2s:5 invalid", "s2c:5", "c2s:5", "s2c:5"]
    );
}

/// A notification of a listen stream the client never opens (the look ahead reaches the end
/// of the client's stream without its `subscriptions/listen`) waits for nothing: it goes where
/// it comes, an `unknown_subscription`, before the client's messages (rule 3).
#[test]
fn a_notification_of_a_stream_never_opened_goes_where_it_comes() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    );
    let (records, violations, code) = check_merged("cli-stream-never-opened", c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(
        violations,
        serde_json::json!({"s2c/unknown_subscription": 1})
    );
    assert_eq!(
        merged_order(&records),
        ["s2c:- unknown_subscription", "c2s:1", "s2c:1", "c2s:-"]
    );
}

/// The look ahead holds at most 4,096 messages: a reply to an id the client never sends pulls
/// the client's stream (as a reply to an id not sent yet) until the look ahead, ahead of the
/// client's next message, reaches the end of the stream without it, and then goes where it
/// comes, an `unknown_reply`. Of 5,000 notifications, that is once 904 were taken: until
/// then, the 4,096 after the one peeked fill the look ahead without reaching the end.
#[test]
fn a_reply_to_an_id_never_sent_waits_while_the_look_ahead_is_full() {
    let note = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}\n";
    let s2c = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
    let (records, violations, code) =
        check_merged("cli-never-sent-full-look-ahead", &note.repeat(5000), s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"s2c/unknown_reply": 1}));
    let order = merged_order(&records);
    assert_eq!(order.len(), 5001);
    assert_eq!(order[903..906], ["c2s:-", "s2c:7 unknown_reply", "c2s:-"]);
}

/// The look ahead holds at most 1 MiB of frames: 16 of 64 KiB fill it. A reply to an id the
/// client never sends pulls the client's stream until the look ahead reaches the end without
/// it: of 20 such notifications, once 4 were taken (until then, the 16 after the one peeked
/// fill it without reaching the end).
#[test]
fn a_reply_to_an_id_never_sent_waits_while_the_look_ahead_holds_1_mib() {
    let head = "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"data\":\"";
    let tail = "\"}}";
    let note = format!(
        "{head}{}{tail}\n",
        "x".repeat((64 << 10) - head.len() - tail.len())
    );
    let s2c = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
    let (records, violations, code) =
        check_merged("cli-never-sent-1-mib-look-ahead", &note.repeat(20), s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"s2c/unknown_reply": 1}));
    let order = merged_order(&records);
    assert_eq!(order.len(), 21);
    assert_eq!(order[3..6], ["c2s:-", "s2c:7 unknown_reply", "c2s:-"]);
}

/// The client's `initialize` and the server's result for an MCP 2025-03-26 session (the one
/// version of MCP with batches), then the client's `notifications/initialized`.
const MCP_2025_03_26_HANDSHAKE: [&str; 3] = [
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
];

/// A server's MCP array of progress on two tokens waits for the requests carrying both (rule
/// 2: the peer answers only what it has read), not only for the first: the elements on
/// different tokens are different concerns, each looked at. (Read without their tokens, both
/// were one concern, looked at through the first only: the array went before the request
/// carrying the second token, whose progress was then `unknown_progress`.)
#[test]
fn an_array_of_progress_on_two_tokens_waits_for_both_requests() {
    let [initialize, result, initialized] = MCP_2025_03_26_HANDSHAKE;
    let c2s = [
        initialize,
        initialized,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"a"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"b"}}}"#,
    ];
    let s2c = [
        result,
        r#"[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":1}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"b","progress":1}}]"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
    ];
    let (records, violations, code) = check_merged(
        "cli-array-progress-two-tokens",
        &(c2s.join("\n") + "\n"),
        &(s2c.join("\n") + "\n"),
    );
    assert_eq!(code, 0, "{violations}");
    assert_eq!(
        merged_order(&records),
        [
            "c2s:0", "s2c:0", "c2s:-", "c2s:1", "c2s:2", "s2c:-", "s2c:-", "s2c:-", "s2c:1",
            "s2c:2"
        ]
    );
}

/// A server batch of notifications answers nothing, and waits for nothing: the client's reply
/// to the server's request waiting is taken first (a reply to a request that is waiting goes
/// first), and the batch after it. (A batch none of whose elements matches, read as one that
/// does, went before that reply.)
#[test]
fn a_batch_that_matches_nothing_goes_after_a_reply_that_does() {
    let c2s = ndjson!(r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#);
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":"s1","method":"m"}"#,
        r#"[{"jsonrpc":"2.0","method":"n"}]"#,
    );
    let (records, summary, code) = check_streams(
        "cli-batch-matching-nothing",
        &["--dialect", "jsonrpc"],
        c2s,
        s2c,
    );
    assert_eq!(code, 0, "{summary}");
    assert_eq!(
        merged_order(&records),
        ["s2c:\"s1\"", "c2s:\"s1\"", "s2c:-", "s2c:-"]
    );
}

/// A header's `max_in_flight` of 0, which no proxy writes (its `--max-in-flight` is at least
/// 1), is read as absent: the log is replayed with the limit of the proxies that did not record
/// it, not with a table that holds no request (every request `too_many_in_flight`, its reply
/// an `unknown_reply`).
#[test]
fn a_log_header_with_no_room_in_flight_is_read_as_one_without_a_limit() {
    let body = ndjson!(
        r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"m"}"#,
        r#"{"dir":"s2c","t_ms":1,"kind":"success_response","id":"1"}"#,
    );
    let replay = replay_under_headers("cli-log-max-in-flight-0", body);
    for header in [
        r#"{"rpcwire_proxy":{"dialect":"jsonrpc","max_in_flight":0}}"#,
        r#"{"rpcwire_proxy":{"dialect":"jsonrpc"}}"#,
    ] {
        assert_eq!(replay(header), serde_json::json!({}), "{header}");
    }
}

/// A log line longer than the 256 MiB the replay reads of one is a bad log, named by its
/// line, wherever it is: not a last record cut short (the first 256 MiB of a line without its
/// newline), which would replay the log up to it and pass what follows unchecked.
#[test]
fn a_log_record_over_256_mib_is_a_bad_log() {
    let mut bytes = b"{\"rpcwire_proxy\":{\"dialect\":\"jsonrpc\"}}\n".to_vec();
    bytes.extend_from_slice(br#"{"dir":"c2s","t_ms":0,"kind":"notification","method":"m","pad":""#);
    bytes.resize(bytes.len() + (256 << 20), b'x');
    bytes.extend_from_slice(b"\"}\n");
    let message = bad_log_message("cli-log-record-over-256-mib", &bytes);
    // (Its 256 MiB are not left behind.)
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::remove_dir_all(dir.join("cli-log-record-over-256-mib")).unwrap();
    assert_eq!(
        message,
        "line 2 of the session log: a record longer than 256 MiB\n"
    );
}

/// A last line without its newline whose bytes stop being UTF-8 before its end is no record
/// cut short (a cut leaves at most the first bytes of one character, at the end): it is a bad
/// log, named by its line, as it is with its newline, not a record left out of a replay that
/// passes.
#[test]
fn a_last_log_line_that_is_not_utf8_before_its_end_is_a_bad_log() {
    let bytes = b"{\"rpcwire_proxy\":{\"dialect\":\"mcp\"}}\n{\"dir\":\"c2s\",\"method\":\"\xff\"}";
    let message = bad_log_message("cli-log-last-line-not-utf8", bytes);
    assert_eq!(
        message,
        "line 2 of the session log: invalid utf-8 sequence of 1 bytes from index 23\n"
    );
}

/// A log's records number the frames of each direction apart, as the proxy counts them: two
/// client messages and one server message are frames 0 and 1 of `c2s` and frame 0 of `s2c`,
/// and the summary says so (`frames`: the frames read from each side).
#[test]
fn a_log_replay_counts_the_frames_of_each_side_apart() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-log-frames");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("session.ndjson");
    std::fs::write(
        &log,
        ndjson!(
            r#"{"rpcwire_proxy":{"dialect":"jsonrpc"}}"#,
            r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"m"}"#,
            r#"{"dir":"c2s","t_ms":1,"kind":"notification","method":"n"}"#,
            r#"{"dir":"s2c","t_ms":2,"kind":"success_response","id":"1"}"#,
        ),
    )
    .unwrap();
    let (records, summary, code, _) =
        check_session(&["--json", "--session-log", log.to_str().unwrap()]);
    assert_eq!(code, 0, "{summary}");
    let frames: Vec<(&str, u64)> = records
        .iter()
        .map(|r| (r["dir"].as_str().unwrap(), r["frame"].as_u64().unwrap()))
        .collect();
    assert_eq!(frames, [("c2s", 0), ("c2s", 1), ("s2c", 0)]);
    assert_eq!(summary["frames"], serde_json::json!({"c2s": 2, "s2c": 1}));
}

/// A log's `task_augmented` and `task_ended` are read as the proxy wrote them, each only
/// when `true`: a task-augmented request's progress token outlives its reply, which names
/// the task it created, and ends with the task, once a status says it ended. Progress in
/// between is fine; progress after is `unknown_progress`. (Read the other way round, the
/// token ended with the reply, and the progress in between was the one flagged.)
#[test]
fn a_log_keeps_a_task_progress_token_until_it_says_the_task_ended() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-log-task");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("session.ndjson");
    std::fs::write(
        &log,
        ndjson!(
            r#"{"rpcwire_proxy":{"dialect":"mcp"}}"#,
            r#"{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"tools/call","progress_token":"\"p\"","task_augmented":true}"#,
            r#"{"dir":"s2c","t_ms":1,"kind":"success_response","id":"1","task":"\"t-1\""}"#,
            r#"{"dir":"s2c","t_ms":2,"kind":"notification","method":"notifications/progress","progress_token":"\"p\"","progress":1}"#,
            r#"{"dir":"s2c","t_ms":3,"kind":"notification","method":"notifications/tasks/status","task":"\"t-1\"","task_ended":true}"#,
            r#"{"dir":"s2c","t_ms":4,"kind":"notification","method":"notifications/progress","progress_token":"\"p\"","progress":2}"#,
        ),
    )
    .unwrap();
    let (records, summary, code, _) =
        check_session(&["--json", "--session-log", log.to_str().unwrap()]);
    assert_eq!(code, 1, "{summary}");
    let violations: Vec<&str> = records
        .iter()
        .map(|r| r["violation"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(violations, ["-", "-", "-", "-", "unknown_progress"]);
}

/// When each stream's next message is a reply to a request waiting (both taken first, by the
/// first rule), the server's stream goes first, as it does whenever the rules leave a tie:
/// the server's reply to 1, then the client's reply to the server's request. (Taken as a
/// client's reply that matches, the client's went first.)
#[test]
fn two_replies_that_match_go_server_first() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":"s1","method":"m"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
    );
    let (records, summary, code) = check_streams(
        "cli-two-replies-that-match",
        &["--dialect", "jsonrpc"],
        c2s,
        s2c,
    );
    assert_eq!(code, 0, "{summary}");
    assert_eq!(
        merged_order(&records),
        ["s2c:\"s1\"", "c2s:1", "s2c:1", "c2s:\"s1\""]
    );
}

/// MCP: a client's second reply to a server request answered waits only while the server's
/// next message may come before it (a request sending that id again, a notification other
/// than a cancellation); before a server request of another id it is an `unknown_reply`
/// reported where it comes, ahead of that request. (Taken after it, the server's request went
/// first.)
#[test]
fn a_second_client_reply_goes_before_a_server_request_of_another_id() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"s2","result":{}}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"s2","method":"ping"}"#,
    );
    let (records, violations, code) = check_merged("cli-second-client-reply", c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"c2s/unknown_reply": 1}));
    assert_eq!(
        merged_order(&records),
        [
            "s2c:\"s1\"",
            "c2s:\"s1\"",
            "c2s:\"s1\" unknown_reply",
            "s2c:\"s2\"",
            "c2s:\"s2\""
        ]
    );
}

/// Merged streams read a result's handshake only in the reply to `initialize`, and its tools'
/// `x-mcp-header` annotations only in the reply to `tools/list`: a reply to `ping` whose result
/// is no `InitializeResult` and lists a tool with an invalid annotation is reported as it is,
/// without `params_fault` or `invalid_tools`. (Read in every success, it got both.)
#[test]
fn merged_streams_read_a_result_only_as_what_it_answers() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"bad","inputSchema":{"type":"object","properties":{"p":{"type":"string","x-mcp-header":"Bad Header"}}}}]}}"#,
    );
    let (records, violations, code) = check_merged("cli-read-as-what-it-answers", c2s, s2c);
    assert_eq!(code, 0, "{violations}");
    assert_eq!(merged_order(&records), ["c2s:0", "s2c:0", "c2s:1", "s2c:1"]);
    let pong = records[3].as_object().unwrap();
    assert!(!pong.contains_key("params_fault"), "{pong:?}");
    assert!(!pong.contains_key("invalid_tools"), "{pong:?}");
}

/// Likewise inside an array (MCP 2025-03-26): only an element answering `initialize` is read
/// as its result; an element answering `ping` is reported without `params_fault`. (Read in
/// every successful element, it got one.)
#[test]
fn merged_streams_read_an_element_only_as_what_it_answers() {
    let [initialize, result, initialized] = MCP_2025_03_26_HANDSHAKE;
    let c2s = [
        initialize,
        initialized,
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
    ];
    let s2c = [result, r#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#];
    let (records, violations, code) = check_merged(
        "cli-read-element-as-what-it-answers",
        &(c2s.join("\n") + "\n"),
        &(s2c.join("\n") + "\n"),
    );
    assert_eq!(code, 0, "{violations}");
    assert_eq!(
        merged_order(&records),
        [
            "c2s:0", "s2c:0", "c2s:-", "c2s:-", "c2s:1", "s2c:-", "s2c:1"
        ]
    );
    let pong = records[6].as_object().unwrap();
    assert!(!pong.contains_key("params_fault"), "{pong:?}");
}

/// Likewise a second reply that is an error: it waits for the server's next message only
/// while that message may come before it, and an error waits also for an invalid line owed an
/// error of its id; before a server request of another id it is reported where it comes.
/// (Taken as waiting on any message, as an error waiting on an invalid line is, the server's
/// request went first.)
#[test]
fn a_second_client_error_goes_before_a_server_request_of_another_id() {
    let c2s = ndjson!(
        r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"s1","error":{"code":-32603,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":"s2","result":{}}"#,
    );
    let s2c = ndjson!(
        r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":"s2","method":"ping"}"#,
    );
    let (records, violations, code) = check_merged("cli-second-client-error", c2s, s2c);
    assert_eq!(code, 1);
    assert_eq!(violations, serde_json::json!({"c2s/unknown_reply": 1}));
    assert_eq!(
        merged_order(&records),
        [
            "s2c:\"s1\"",
            "c2s:\"s1\"",
            "c2s:\"s1\" unknown_reply",
            "s2c:\"s2\"",
            "c2s:\"s2\""
        ]
    );
}
