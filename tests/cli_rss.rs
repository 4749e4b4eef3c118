//! `rpcwire check --c2s --s2c` over a hostile JSON-RPC batch: a million elements, each an
//! invalid `1`. Its peak memory must stay near the frame's size (the batch's elements are
//! decoded again as they are observed, not kept as records: ~400 MB for this batch).
//! Alone in its test binary: the peak is read for all the children of this process.
#![cfg(all(feature = "cli", target_os = "linux"))]

use std::process::{Command, Stdio};

use nix::sys::resource::{getrusage, UsageWho};

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
    let status = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .args(["check", "--dialect", "jsonrpc", "--c2s"])
        .arg(&c2s)
        .arg("--s2c")
        .arg(&s2c)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    // Every element is invalid: a violation each.
    assert_eq!(status.code(), Some(1));
    let peak_kib = getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss();
    // The 2 MiB frame, the read buffer, the binary: well under 64 MiB.
    assert!(peak_kib < 64 << 10, "peak RSS {peak_kib} KiB");
}
