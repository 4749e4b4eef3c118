//! `rpcwire check` against its contract (docs/cli.md, `rpcwire check`): the fields of each record, offsets in
//! each framing, and a report that hostile input cannot turn into terminal control sequences.
#![cfg(feature = "cli")]

mod check_cli;

use std::process::{Command, Stdio};

use check_cli::run_check;
use serde_json::Value;

/// [`run_check`] with `--json`: the records, the summary and the exit code. Every line of the
/// output must be JSON.
fn check(args: &[&str], stdin: &[u8]) -> (Vec<Value>, Value, i32) {
    let args: Vec<&str> = ["--json"].into_iter().chain(args.iter().copied()).collect();
    let out = run_check(&args, stdin);
    let mut lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    let summary = lines.pop().unwrap()["summary"].clone();
    (lines, summary, out.status.code().unwrap())
}

/// The characters of `text` a terminal may act on: C0 and C1 controls, DEL, and the Unicode
/// bidirectional formatting characters (which reorder what follows them on the line).
fn terminal_controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

/// Ids are JSON strings, which may hold DEL, C1 controls (U+009B is the 8-bit CSI) and bidi
/// overrides raw: the readable report, meant for a terminal, shows them escaped, in the record's
/// id and in the id its reply must carry.
#[test]
fn the_text_report_escapes_control_characters_in_ids() {
    let hostile = "\u{7f}\u{9b}31m\u{202e}\u{2066}x";
    let input = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":\"{hostile}\"}}\n\
         {{\"jsonrpc\":\"1.0\",\"id\":\"{hostile}\",\"method\":\"{hostile}\"}}\n"
    );
    let out = run_check(&[], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(terminal_controls(&text), [], "{text:?}");
    // Still readable: the id and its reply, each escaped.
    assert!(text.contains("-> reply -32600"), "{text:?}");
    assert_eq!(text.matches("\\u{9b}31m").count(), 4, "{text:?}");
    // The JSON report carries the ids as JSON strings, whatever they hold.
    let (records, _, code) = check(&[], input.as_bytes());
    assert_eq!(code, 1);
    let token = format!("\"{hostile}\"");
    assert_eq!(records[0]["id"], token.as_str());
    assert_eq!(records[0]["reply"]["id"], token.as_str());
}

/// The readable report of a session escapes its events' ids and methods too: a request left
/// unanswered (two streams) or timed out (a proxy log) is named by them, which its sender
/// chose.
#[test]
fn the_text_report_escapes_control_characters_in_events() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check-hostile-events");
    std::fs::create_dir_all(&dir).unwrap();
    let hostile = "\u{7f}\u{9b}31m\u{202e}x";
    // An escape sequence in a method: a JSON string's `\u001b`, decoded.
    let method = r"p\u001b[2Jq\u009b";
    let request = format!("{{\"jsonrpc\":\"2.0\",\"id\":\"{hostile}\",\"method\":\"{method}\"}}\n");
    let s2c = dir.join("s2c.ndjson");
    std::fs::write(&s2c, "").unwrap();
    let out = run_check(
        &["--c2s", "-", "--s2c", s2c.to_str().unwrap()],
        request.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("unanswered request"), "{text:?}");
    assert_eq!(terminal_controls(&text), [], "{text:?}");

    let id = serde_json::to_string(&format!("\"{hostile}\"")).unwrap();
    let log = format!(
        "{{\"rpcwire_proxy\":{{\"version\":\"0\",\"dialect\":\"mcp\"}}}}\n\
         {{\"dir\":\"c2s\",\"t_ms\":0,\"kind\":\"request\",\"id\":{id},\"method\":\"{method}\"}}\n\
         {{\"dir\":\"c2s\",\"t_ms\":9,\"event\":\"timeout\",\"id\":{id},\"method\":\"{method}\"}}\n"
    );
    let out = run_check(&["--session-log", "-"], log.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("timeout (line 3) request"), "{text:?}");
    assert_eq!(terminal_controls(&text), [], "{text:?}");
}

/// A record's `offset` is where its message starts in the stream, in bytes, whatever the line
/// ends: the first byte of its line (ndjson), of its event's first line, comments included
/// (sse), of its first header line (content-length); an error's is that of the message it is
/// about.
#[test]
fn offsets_are_where_each_message_starts_in_every_framing() {
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;
    let offsets = |records: &[Value]| -> Vec<u64> {
        records
            .iter()
            .map(|r| r["offset"].as_u64().unwrap())
            .collect()
    };
    let kinds = |records: &[Value]| -> Vec<String> {
        records
            .iter()
            .map(|r| r["kind"].as_str().unwrap().to_string())
            .collect()
    };

    // ndjson: CRLF and LF lines, a blank line, an over-long line, no final newline.
    let long = format!(
        r#"{{"jsonrpc":"2.0","method":"n","params":{{"p":"{}"}}}}"#,
        "x".repeat(200)
    );
    let input = format!("{request}\r\n{request}\n\r\n{long}\r\n{request}");
    let (records, _, code) = check(&["--max-frame", "100"], input.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(
        kinds(&records),
        ["request", "request", "skip", "framing_error", "request"]
    );
    let line = request.len() as u64;
    let long_at = 2 * line + 5;
    assert_eq!(
        offsets(&records),
        [
            0,
            line + 2,
            2 * line + 3,
            long_at,
            long_at + long.len() as u64 + 2
        ]
    );

    // sse: an event starts at its first line (a comment here), after the blank line that ends
    // the one before; CRLF, LF and CR line ends.
    let first = format!(": keep-alive\r\nevent: message\r\ndata: {request}\r\n\r\n");
    let second = format!("id: 7\ndata: {request}\n\n");
    let third = format!("data: {request}\r\r");
    let cut = "data: {";
    let input = format!("{first}{second}{third}{cut}");
    let (records, _, code) = check(&["--framing", "sse"], input.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(
        kinds(&records),
        ["request", "request", "request", "framing_error"]
    );
    let second_at = first.len() as u64;
    let third_at = second_at + second.len() as u64;
    let cut_at = third_at + third.len() as u64;
    assert_eq!(offsets(&records), [0, second_at, third_at, cut_at]);

    // content-length: the first header byte, for a body that is not JSON and for one over the
    // limit too.
    let message = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let (a, b, c) = (message(request), message("{oops"), message(&long));
    let input = format!("{a}{b}{c}{a}");
    let (records, _, code) = check(
        &["--framing", "content-length", "--max-frame", "100"],
        input.as_bytes(),
    );
    assert_eq!(code, 1);
    assert_eq!(
        kinds(&records),
        ["request", "parse_error", "framing_error", "request"]
    );
    let (a, b, c) = (a.len() as u64, b.len() as u64, c.len() as u64);
    assert_eq!(offsets(&records), [0, a, a + b, a + b + c]);
}

/// The readable report names the line of each record it shows, where records are lines: in
/// a newline-delimited stream (blank lines counted), alone or one of two merged, and in a
/// proxy log (its header counted). `#N` is the record's index from 0, and `@N` a byte offset:
/// neither is the line an editor shows.
#[test]
fn the_text_report_names_the_line_of_each_record() {
    let stream = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n{oops\n";
    let text = String::from_utf8(run_check(&[], stream).stdout).unwrap();
    assert!(text.contains("#1 @41 (line 2) skip"), "{text}");
    assert!(text.contains("#2 @42 (line 3) parse_error"), "{text}");
    // Other framings' records span lines: none is named.
    let sse = b"data: {oops\n\n";
    let text = String::from_utf8(run_check(&["--framing", "sse"], sse).stdout).unwrap();
    assert!(text.starts_with("#0 @0 parse_error"), "{text}");

    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check-text-lines");
    std::fs::create_dir_all(&dir).unwrap();
    let (c2s, s2c, log) = (
        dir.join("c2s.ndjson"),
        dir.join("s2c.ndjson"),
        dir.join("log.ndjson"),
    );
    std::fs::write(&c2s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n").unwrap();
    let replies = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
    std::fs::write(&s2c, format!("{replies}\n{replies}")).unwrap();
    let record = |id: u32| {
        format!(
            "{{\"dir\":\"s2c\",\"t_ms\":1,\"kind\":\"success_response\",\"id\":\"{id}\",\"method\":null,\"error_code\":null,\"reply\":null,\"violation\":null}}\n"
        )
    };
    let header = "{\"rpcwire_proxy\":{\"dialect\":\"mcp\"}}\n";
    let request =
        "{\"dir\":\"c2s\",\"t_ms\":1,\"kind\":\"request\",\"id\":\"3\",\"method\":\"ping\"}\n";
    let timeout =
        "{\"event\":\"timeout\",\"dir\":\"c2s\",\"t_ms\":9,\"id\":\"3\",\"method\":\"ping\"}\n";
    let log_bytes = format!("{header}{}{}{request}{timeout}", record(1), record(2));
    std::fs::write(&log, log_bytes).unwrap();
    let (c2s, s2c, log) = (
        c2s.to_str().unwrap(),
        s2c.to_str().unwrap(),
        log.to_str().unwrap(),
    );
    let text = String::from_utf8(run_check(&["--c2s", c2s, "--s2c", s2c], b"").stdout).unwrap();
    assert!(
        text.starts_with("s2c #2 @38 (line 3) success_response id=1: unknown_reply"),
        "{text}"
    );
    let text = String::from_utf8(run_check(&["--session-log", log], b"").stdout).unwrap();
    assert!(
        text.contains("s2c #0 (line 2) success_response id=1: unknown_reply"),
        "{text}"
    );
    assert!(
        text.contains("s2c #1 (line 3) success_response id=2: unknown_reply"),
        "{text}"
    );
    // A timeout event is a line of the log too.
    assert!(
        text.contains("c2s timeout (line 5) request 3 (ping): timed_out"),
        "{text}"
    );
}

/// An over-long frame's `detail` names the limit it crossed and the option that sets it, in
/// every framing: "exceeds the frame limit" alone left a user with a large message of their
/// own guessing which limit, and how large.
#[test]
fn an_over_long_frame_names_the_limit_and_its_option() {
    let message = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    for (framing, stream) in [
        ("ndjson", format!("{message}\n")),
        ("sse", format!("data: {message}\n\n")),
        (
            "content-length",
            format!("Content-Length: {}\r\n\r\n{message}", message.len()),
        ),
    ] {
        let (records, _, code) = check(
            &["--framing", framing, "--max-frame", "16"],
            stream.as_bytes(),
        );
        assert_eq!(code, 1, "{framing}");
        assert_eq!(records[0]["kind"], "framing_error", "{framing}");
        let detail = records[0]["detail"].as_str().unwrap();
        assert!(
            detail.contains("exceeds the frame limit of 16 bytes")
                && detail.ends_with("; --max-frame sets the limit"),
            "{framing}: {detail}"
        );
    }
}

/// A violation of progress or cancellation names what it is about in the readable report: the
/// progress token (`unknown_progress`, `duplicate_progress_token`) and the request cancelled
/// (`cancelled_initialize`). The line said only the method, and every progress notification
/// has the same.
#[test]
fn the_text_report_names_the_token_and_the_request_cancelled() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check-text-token");
    std::fs::create_dir_all(&dir).unwrap();
    let (c2s, s2c) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
    let c2s_lines = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"progressToken":"t"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"b","params":{"_meta":{"progressToken":"t"}}}"#,
    ];
    // (No reply: the requests are all in flight, and left unanswered.)
    let s2c_lines = [
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#,
    ];
    std::fs::write(&c2s, c2s_lines.join("\n") + "\n").unwrap();
    std::fs::write(&s2c, s2c_lines.join("\n") + "\n").unwrap();
    let args = [
        "--c2s",
        c2s.to_str().unwrap(),
        "--s2c",
        s2c.to_str().unwrap(),
    ];
    let out = run_check(&args, b"");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    for expected in [
        "method=\"notifications/cancelled\" cancels=0: cancelled_initialize",
        "method=\"b\" progress_token=\"t\": duplicate_progress_token",
        "method=\"notifications/progress\" progress_token=7: unknown_progress",
    ] {
        assert!(text.contains(expected), "{expected} in {text}");
    }
}

/// An empty stream is a summary alone (exit 0); a path that cannot be read, a directory or
/// one under a regular file, is an I/O error (exit 2, nothing on stdout).
#[test]
fn empty_streams_and_unreadable_paths() {
    for framing in ["ndjson", "sse", "content-length"] {
        let (records, summary, code) = check(&["--framing", framing], b"");
        assert_eq!((records.len(), code), (0, 0), "{framing}");
        assert_eq!(summary["messages"], 0, "{framing}");
        assert_eq!(summary["valid"], true, "{framing}");
    }
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let dir = env!("CARGO_MANIFEST_DIR");
    for path in [format!("{file}/x"), dir.to_string()] {
        for json in [true, false] {
            let args: Vec<&str> = if json {
                vec!["--json", &path]
            } else {
                vec![&path]
            };
            let out = run_check(&args, b"");
            assert_eq!(out.status.code(), Some(2), "{path}");
            assert!(out.stdout.is_empty(), "{path}");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(&path),
                "{path}"
            );
        }
    }
}

/// What a frame holds never reaches the JSON report raw: a frame that is not UTF-8 is a
/// parse error without an id, and escaped control characters in a method or id are escaped
/// again in the record.
#[test]
fn the_json_report_stays_json_whatever_the_frames_hold() {
    let input = b"{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"m\"}\n\
{\"jsonrpc\":\"2.0\",\"id\":\"\\u001b]0;x\\u0007\",\"method\":\"\\u001b[2J\\\"\"}\n\
{\"jsonrpc\":\"2.0\",\"id\":\"\x1b\",\"method\":\"m\"}\n";
    let (records, summary, code) = check(&[], input);
    assert_eq!(code, 1);
    assert_eq!(summary["messages"], 3);
    assert_eq!(records[0]["kind"], "parse_error");
    assert_eq!(records[0]["id"], Value::Null);
    assert_eq!(records[1]["kind"], "request");
    assert_eq!(records[1]["id"], r#""\u001b]0;x\u0007""#);
    assert_eq!(records[1]["method"], "\u{1b}[2J\"");
    // A raw control character in a string is not JSON.
    assert_eq!(records[2]["kind"], "parse_error");
    // The readable report of the same stream holds no control character either.
    let text = String::from_utf8(run_check(&[], input).stdout).unwrap();
    assert_eq!(terminal_controls(&text), [], "{text:?}");
}

/// A usage error exits 2, whatever bytes the arguments hold (the first argument, where the
/// subcommand goes, not UTF-8 included: reading it as a `String` panicked, exit 101).
#[test]
fn a_usage_error_exits_2_whatever_the_arguments_hold() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    for args in [
        &[&b"\xff"[..]][..],
        &[b"check", b"--bogus", b"\xff"],
        &[b"check", b"--dialect", b"\xff"],
        &[b"\xff", b"check"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
            .args(args.iter().map(|a| OsStr::from_bytes(a)))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("rpcwire: error: "), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}

/// `rpcwire` without a subcommand is a usage error that says so (its one line was the crate's
/// description, clap's help being the error it rendered).
#[test]
fn a_missing_subcommand_is_a_usage_error_that_says_so() {
    let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("rpcwire: error: "), "{stderr}");
    assert!(stderr.contains("subcommand"), "{stderr}");
    assert!(
        stderr.contains("check") && stderr.contains("proxy"),
        "{stderr}"
    );
}

/// A `skip` record (a blank line, an SSE event holding no message) holds no message: the
/// summary's `messages` leaves it out (`by_kind` still counts it), and so does the readable
/// report's count; a `framing_error` is about a message, and is counted.
#[test]
fn skip_records_are_not_counted_as_messages() {
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;
    let ndjson = format!("\n{request}\n  \n{request}\n");
    let sse = format!(": keep-alive\n\nevent: endpoint\ndata: /x\n\ndata: {request}\n\n");
    for (framing, input, skips) in [("ndjson", ndjson.as_str(), 2), ("sse", sse.as_str(), 2)] {
        let (records, summary, code) = check(&["--framing", framing], input.as_bytes());
        assert_eq!(code, 0, "{framing}");
        let skipped = records.iter().filter(|r| r["kind"] == "skip").count();
        assert_eq!(skipped, skips, "{framing}");
        assert_eq!(summary["by_kind"]["skip"], skips, "{framing}: {summary}");
        assert_eq!(
            summary["messages"],
            records.len() - skips,
            "{framing}: {summary}"
        );
        let text =
            String::from_utf8(run_check(&["--framing", framing], input.as_bytes()).stdout).unwrap();
        let n = records.len() - skips;
        let plural = if n == 1 { "" } else { "s" };
        let count = format!("\n{n} message{plural}, all valid\n");
        assert!(text.contains(&count), "{framing}: {text:?}");
        // The kinds listed add up to the messages; the skips are counted apart, each said to
        // hold no message.
        assert!(!text.contains("  skip: "), "{framing}: {text:?}");
        let apart = format!("\n  skipped, holding no message: {skips}\n");
        assert_eq!(text.contains(&apart), skips > 0, "{framing}: {text:?}");
        assert_eq!(
            text.matches(" skip (holds no message)\n").count(),
            skips,
            "{framing}: {text:?}"
        );
    }
    // A blank line and an over-long one: the framing error is counted, the blank line not.
    let input = format!(
        "\n{request}\n{{\"jsonrpc\":\"2.0\",\"method\":\"{}\"}}\n",
        "x".repeat(100)
    );
    let (records, summary, code) = check(&["--max-frame", "60"], input.as_bytes());
    assert_eq!(code, 1);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["skip", "request", "framing_error"]);
    assert_eq!(summary["messages"], 2, "{summary}");
    let text =
        String::from_utf8(run_check(&["--max-frame", "60"], input.as_bytes()).stdout).unwrap();
    assert!(text.contains("\n2 messages, some invalid\n"), "{text:?}");
}

/// The error responses of a batch (JSON-RPC: a server's batch of replies) are counted in
/// `by_error_code`, each by its code, as those sent alone are, in the readable report too; an
/// element that is not a valid error response is not.
#[test]
fn error_responses_in_a_batch_are_counted_by_code() {
    let error = |id: u32, code: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"m"}}}}"#)
    };
    let success = r#"{"jsonrpc":"2.0","id":4,"result":{}}"#;
    let input = format!(
        "{}\n[{},{},{success},{},{}]\n",
        error(1, "-32601"),
        error(2, "-32601"),
        error(3, "-32000"),
        error(5, "-32601"),
        error(6, "\"x\""),
    );
    let args = ["--dialect", "jsonrpc", "--direction", "s2c"];
    let (records, summary, code) = check(&args, input.as_bytes());
    assert_eq!(code, 1);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["error_response", "batch"]);
    assert_eq!(records[1]["error_code"], Value::Null);
    assert_eq!(records[1]["invalid_elements"], 1);
    assert_eq!(
        summary["by_error_code"],
        serde_json::json!({"-32601": 3, "-32000": 1}),
        "{summary}"
    );
    let text = String::from_utf8(run_check(&args, input.as_bytes()).stdout).unwrap();
    assert!(
        text.contains(
            "\n  error responses with code -32601: 3\n  error responses with code -32000: 1\n"
        ),
        "{text:?}"
    );
}

/// A Content-Length header error (a missing or malformed header, a length that is no number)
/// leaves the framer no way to find the next message: the check ends there, its
/// `framing_error` says the rest of the stream is not checked, and the summary counts the
/// bytes from the message in error on (the stream read to its end, over many reads), in the
/// readable report too.
#[test]
fn a_fatal_content_length_error_says_how_much_of_the_stream_was_not_checked() {
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;
    let message = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let good = message(request);
    let rest = good.repeat(5000);
    for (bad, error) in [
        ("Content-Type: x\r\n\r\n{}", "missing Content-Length header"),
        ("Content-Length 2\r\n\r\n{}", "malformed header line"),
        (
            "Content-Length: two\r\n\r\n{}",
            "Content-Length is not a decimal number below 2^64",
        ),
    ] {
        let input = format!("{good}{bad}{rest}");
        let at = good.len();
        let unchecked = input.len() - at;
        assert!(unchecked > 200_000);
        let detail = format!(
            "{error} (message starting at byte {at}); the messages after it cannot be found: \
             the rest of the stream is not checked (the summary counts its bytes)"
        );
        let args = ["--framing", "content-length"];
        let (records, summary, code) = check(&args, input.as_bytes());
        assert_eq!(code, 1, "{bad:?}");
        let kinds: Vec<&str> = records
            .iter()
            .map(|r| r["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["request", "framing_error"], "{bad:?}");
        assert_eq!(records[1]["offset"], at, "{bad:?}");
        assert_eq!(records[1]["detail"], detail.as_str(), "{bad:?}");
        assert_eq!(records[1]["reply"], Value::Null, "{bad:?}");
        assert_eq!(summary["messages"], 2, "{bad:?}");
        assert_eq!(summary["unchecked_bytes"], unchecked, "{bad:?}");
        let text = String::from_utf8(run_check(&args, input.as_bytes()).stdout).unwrap();
        assert!(
            text.starts_with(&format!("#1 @{at} framing_error ({detail})\n")),
            "{text:?}"
        );
        assert!(
            text.ends_with(&format!(
                "\n  not checked after a fatal framing error: {unchecked} bytes\n"
            )),
            "{text:?}"
        );
    }
    // A stream without such an error has no count.
    let (_, summary, code) = check(&["--framing", "content-length"], good.as_bytes());
    assert_eq!(code, 0);
    assert_eq!(summary.get("unchecked_bytes"), None, "{summary}");
}

/// `rpcwire check ARGS` on a live stream: a pipe the test writes to and keeps open, and the
/// lines of the report as they come.
struct LiveCheck {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
}

impl LiveCheck {
    fn start(args: &[&str]) -> LiveCheck {
        use std::io::BufRead;
        let mut child = check_cli::spawn_check(args, Stdio::null());
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                if sender.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        LiveCheck {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next line of the report, which must come while the stream is still open (a check
    /// that held it until the end would never send it: the test fails after 60 s).
    fn next_line(&mut self) -> String {
        match self.lines.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(line) => line,
            Err(e) => {
                self.child.kill().unwrap();
                panic!("no report line while the stream was open: {e}");
            }
        }
    }

    /// Ends the stream: the rest of the report, and the exit code.
    fn finish(mut self) -> (Vec<String>, Option<i32>) {
        drop(self.stdin.take());
        let code = self.child.wait().unwrap().code();
        (self.lines.iter().collect(), code)
    }
}

/// On a live stream (a pipe its writer keeps open), each record goes out as soon as its
/// message came, in the JSON report and in the readable one, not when the stream ends or a
/// buffer fills; the summary when it ends.
#[test]
fn records_go_out_while_the_stream_is_open() {
    let mut live = LiveCheck::start(&["--json"]);
    live.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    let record: Value = serde_json::from_str(&live.next_line()).unwrap();
    assert_eq!(record["kind"], "request", "{record}");
    assert_eq!(record["id"], "1", "{record}");
    live.write(b"{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}\n");
    let record: Value = serde_json::from_str(&live.next_line()).unwrap();
    assert_eq!(record["kind"], "invalid", "{record}");
    let (rest, code) = live.finish();
    assert_eq!(rest.len(), 1, "{rest:?}");
    let summary: Value = serde_json::from_str(&rest[0]).unwrap();
    assert_eq!(summary["summary"]["messages"], 2, "{summary}");
    assert_eq!(code, Some(1));

    let mut live = LiveCheck::start(&[]);
    live.write(b"{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}\n");
    let line = live.next_line();
    assert!(line.starts_with("#0 @0 (line 1) invalid"), "{line}");
    let (rest, code) = live.finish();
    assert!(rest[0].starts_with("1 message, some invalid"), "{rest:?}");
    assert_eq!(code, Some(1));
}

/// A merged session checked live (`--c2s -`: the client's stream on a pipe its writer keeps
/// open, the server's in a file) reports each message as soon as it came, as the check of
/// one stream does, not when the stream ends or a buffer fills; the summary when it ends.
#[test]
fn merged_session_records_go_out_while_the_stream_is_open() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check-live-session");
    std::fs::create_dir_all(&dir).unwrap();
    let s2c = dir.join("s2c.ndjson");
    std::fs::write(&s2c, "").unwrap();
    let mut live = LiveCheck::start(&["--json", "--c2s", "-", "--s2c", s2c.to_str().unwrap()]);
    live.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    let record: Value = serde_json::from_str(&live.next_line()).unwrap();
    assert_eq!(
        (&record["dir"], &record["kind"], &record["id"]),
        (&"c2s".into(), &"request".into(), &"1".into()),
        "{record}"
    );
    live.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
    let record: Value = serde_json::from_str(&live.next_line()).unwrap();
    assert_eq!(record["violation"], "duplicate_id", "{record}");
    let (rest, code) = live.finish();
    let summary: Value = serde_json::from_str(rest.last().unwrap()).unwrap();
    assert_eq!(summary["summary"]["frames"]["c2s"], 2, "{summary}");
    assert_eq!(code, Some(1));
}

/// A merged session checked live whose server stream holds a reply to an id the client has not
/// sent: the client's records still go out as they come. The merge does not look ahead in a
/// stream that is not a regular file (a pipe whose writer stays would hold every record back
/// until the look ahead filled): the reply pulls the client's stream as it comes.
#[test]
fn a_live_merge_reports_the_client_while_a_reply_waits() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check-live-ahead");
    std::fs::create_dir_all(&dir).unwrap();
    let s2c = dir.join("s2c.ndjson");
    std::fs::write(&s2c, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n").unwrap();
    let mut live = LiveCheck::start(&["--json", "--c2s", "-", "--s2c", s2c.to_str().unwrap()]);
    for id in 1..=2 {
        live.write(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes());
        let record: Value = serde_json::from_str(&live.next_line()).unwrap();
        assert_eq!(
            (&record["dir"], &record["id"]),
            (&"c2s".into(), &id.to_string().into())
        );
    }
    let (rest, code) = live.finish();
    let record: Value = serde_json::from_str(&rest[0]).unwrap();
    assert_eq!(record["violation"], "unknown_reply", "{record}");
    assert_eq!(code, Some(1));
}

/// A proxy log checked live (`--session-log -`, `tail -n +1 -f` of a log the proxy is writing) is
/// reported record by record as its lines come, as a single stream is.
#[test]
fn session_log_records_go_out_while_the_log_is_open() {
    let mut live = LiveCheck::start(&["--session-log", "-"]);
    live.write(b"{\"rpcwire_proxy\":{\"version\":\"0\",\"dialect\":\"mcp\"}}\n");
    live.write(
        b"{\"dir\":\"c2s\",\"t_ms\":0,\"kind\":\"request\",\"id\":\"1\",\"method\":\"ping\"}\n",
    );
    live.write(b"{\"dir\":\"s2c\",\"t_ms\":1,\"kind\":\"success_response\",\"id\":\"7\"}\n");
    let line = live.next_line();
    assert!(
        line.starts_with("s2c ") && line.ends_with("unknown_reply"),
        "{line}"
    );
    let (rest, code) = live.finish();
    assert_eq!(rest[0], "c2s unanswered request 1 (ping): unanswered");
    assert!(
        rest[1].starts_with("session: 1 message client to server, 1 server to client"),
        "{rest:?}"
    );
    assert_eq!(code, Some(1));
}

/// On a live stream, the record of a fatal framing error goes out at once, not when the
/// stream ends; the summary, with the bytes not checked, when it ends.
#[test]
fn a_fatal_framing_error_is_reported_before_the_stream_ends() {
    let mut live = LiveCheck::start(&["--json", "--framing", "content-length"]);
    let bad = "Content-Length: two\r\n\r\n{}";
    live.write(bad.as_bytes());
    let record: Value = serde_json::from_str(&live.next_line()).unwrap();
    assert_eq!(record["kind"], "framing_error", "{record}");
    // More bytes after the record, then the end.
    live.write(&[b'x'; 1000]);
    let (rest, code) = live.finish();
    let summary: Value = serde_json::from_str(&rest[0]).unwrap();
    assert_eq!(
        summary["summary"]["unchecked_bytes"],
        bad.len() + 1000,
        "{summary}"
    );
    assert_eq!(code, Some(1));
}

/// `rpcwire check ... | head -1`: once the reader of its report goes, the check ends quietly
/// (nothing on stderr, exit 2: it did not complete), the JSON report, the readable one and a
/// merged session's alike.
#[test]
fn a_closed_stdout_ends_the_check_quietly() {
    use std::io::{BufRead, BufReader};
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("check-closed-stdout");
    std::fs::create_dir_all(&dir).unwrap();
    // Invalid requests (JSON-RPC 1.0), so that the readable report has a line for each: far
    // more than a pipe holds.
    let (c2s, s2c) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
    let line = "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"a\"}\n";
    std::fs::write(&c2s, line.repeat(100_000)).unwrap();
    std::fs::write(&s2c, "").unwrap();
    let (c2s, s2c) = (c2s.to_str().unwrap(), s2c.to_str().unwrap());
    for args in [
        vec!["--json", c2s],
        vec![c2s],
        vec!["--json", "--c2s", c2s, "--s2c", s2c],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
            .arg("check")
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(first.starts_with(if args[0] == "--json" { "{" } else { "#0 " }));
        // (The reader, and with it the read end of the pipe, is dropped.)
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr, "", "{args:?}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// A closed stderr (its pipe's read end gone before the program writes) loses what would be
/// said there, and nothing else: a usage error and an unreadable file still exit 2, without a
/// panic (101) from writing to it.
#[test]
fn a_closed_stderr_loses_the_message_and_nothing_else() {
    let missing = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-stream");
    for args in [
        vec![],
        vec!["check", "--no-such-option"],
        vec!["check", missing.to_str().unwrap()],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(writer)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
