//! `rpcwire check` against its contract (DESIGN.md §6): the fields of each record, offsets in
//! each framing, and a report that hostile input cannot turn into terminal control sequences.
#![cfg(feature = "cli")]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs `rpcwire check ARGS` with `stdin` written to it; what it printed and its status.
fn run_check(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .arg("check")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

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
