//! `rpcwire check` over hostile input, its peak memory measured: it must stay near the size of
//! the largest frame or record, whatever they hold.
//! These tests are alone in their test binary: the peak is read for all the children of this process, so
//! each bound holds for the largest of them.
#![cfg(all(feature = "cli", target_os = "linux"))]

use std::io::Write;
use std::process::{Command, Stdio};

use nix::sys::resource::{UsageWho, getrusage};

/// `rpcwire check ARGS`, its report dropped: its exit code.
fn check(args: &[&str]) -> Option<i32> {
    let status = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .arg("check")
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    status.code()
}

fn path(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// The peak resident set of the largest child so far is below `bytes`.
fn assert_peak_below(bytes: i64) {
    let peak = getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss() * 1024;
    assert!(peak < bytes, "peak RSS {} KiB", peak / 1024);
}

/// `check --c2s --s2c` over a JSON-RPC batch of a million elements, each an invalid `1`: its
/// elements are decoded again as they are observed, not kept as records (~400 MB here).
#[test]
#[cfg_attr(miri, ignore)]
fn a_batch_of_a_million_elements_is_not_kept_element_by_element() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-rss");
    std::fs::create_dir_all(&dir).unwrap();
    let (c2s, s2c) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
    let elements = 1 << 20;
    let mut batch = vec![b'['];
    for i in 0..elements {
        if i > 0 {
            batch.push(b',');
        }
        batch.push(b'1');
    }
    batch.extend_from_slice(b"]\n");
    std::fs::write(&c2s, &batch).unwrap();
    std::fs::write(&s2c, b"").unwrap();
    let args = [
        "--dialect",
        "jsonrpc",
        "--max-batch",
        "2000000",
        "--c2s",
        path(&c2s),
        "--s2c",
        path(&s2c),
    ];
    // Every element is invalid: a violation each.
    assert_eq!(check(&args), Some(1));
    // The 2 MiB frame, the read buffer, the binary: well under 64 MiB.
    assert_peak_below(64 << 20);
}

/// `rpcwire check --session-log` over a record padded with 16 MB of members the replay does
/// not read: they are skipped, not built (as a `serde_json::Value` they took ~36 times their
/// size: 580 MB here).
#[test]
#[cfg_attr(miri, ignore)]
fn a_padded_log_record_is_not_built() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-rss-log");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log.ndjson");
    // (The header first, as the proxy writes it: a log without one is refused.)
    let mut record = br#"{"rpcwire_proxy":{"dialect":"mcp"}}
{"dir":"c2s","t_ms":0,"kind":"request","id":"1","method":"m","junk":["#
        .to_vec();
    for i in 0..8 << 20 {
        if i > 0 {
            record.push(b',');
        }
        record.push(b'0');
    }
    record.extend_from_slice(b"]}\n");
    std::fs::write(&log, &record).unwrap();
    // The request is never answered: one violation.
    assert_eq!(check(&["--session-log", path(&log)]), Some(1));
    // The 16 MB line read whole, the binary: well under 64 MiB.
    assert_peak_below(64 << 20);
}

/// `check --c2s --s2c` where a server reply answers an id the client never sends, and the
/// client's stream is 80 frames of 1 MiB: the merge looks ahead in the client's stream for
/// that id, at most 1 MiB of frames past its next one (more, it held the whole stream: 90 MB
/// here), and then pulls it as before, a message at a time.
#[test]
#[cfg_attr(miri, ignore)]
fn the_look_ahead_of_a_merge_is_bounded() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-rss-ahead");
    std::fs::create_dir_all(&dir).unwrap();
    let (c2s, s2c) = (dir.join("c2s.ndjson"), dir.join("s2c.ndjson"));
    let pad = "x".repeat(1 << 20);
    let note = format!(r#"{{"jsonrpc":"2.0","method":"note","params":{{"pad":"{pad}"}}}}"#);
    // (Written a frame at a time: the peak of this process counts in its children's, which
    // share its memory until they run the binary.)
    let mut file = std::fs::File::create(&c2s).unwrap();
    for _ in 0..80 {
        writeln!(file, "{note}").unwrap();
    }
    drop(file);
    std::fs::write(&s2c, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n").unwrap();
    let args = [
        "--dialect",
        "jsonrpc",
        "--c2s",
        path(&c2s),
        "--s2c",
        path(&s2c),
    ];
    // The reply answers nothing: one violation.
    assert_eq!(check(&args), Some(1));
    // Two frames, the read buffer, the binary: well under 64 MiB.
    assert_peak_below(64 << 20);
}
