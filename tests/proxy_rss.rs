//! `rpcwire proxy` holding many requests that the server never answers, its peak memory
//! measured: each waiting request must cost no more than docs/cli.md says a request in
//! flight costs beyond the budget of its ids and method names.
//! Alone in its test binary: the peak is read for all the children of this process (the
//! largest of them), so the proxies are run one after the other, the small one first.
#![cfg(all(feature = "cli", target_os = "linux"))]

use std::io::Read;
use std::process::{Command, Stdio};

use nix::sys::resource::{UsageWho, getrusage};

/// What docs/cli.md gives as the most a waiting request without a progress token costs the
/// proxy beyond the bytes its budget counts, at the moment its table grows (its slot, 104
/// bytes, in a table less than half full just after it grows, which holds its old slots too
/// while it grows).
const BYTES_PER_WAITING_REQUEST: i64 = 480;

/// The peak resident set of the largest child so far, in bytes.
fn peak_of_children() -> i64 {
    getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss() * 1024
}

/// Runs the proxy in front of a server that reads everything and answers nothing, sends it
/// `n` MCP pings, then ends its input; returns the peak resident set of the largest child so
/// far, once the proxy has reported the `n` pings unanswered.
fn ping_a_silent_server(n: usize) -> i64 {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("proxy-rss");
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join(format!("pings-{n}.ndjson"));
    let pings: String = (0..n)
        .map(|i| format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}\n"))
        .collect();
    std::fs::write(&input, pings).unwrap();
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .args(["proxy", "--quiet", "--max-in-flight", "262144"])
        .args(["--", "sh", "-c", "exec cat >/dev/null"])
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    proxy
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(proxy.wait().unwrap().success(), "{stderr}");
    // Every ping waited until the end: none was refused beyond the limits.
    let unanswered = format!("\"c2s/unanswered\":{n}");
    assert!(stderr.contains(&unanswered), "{stderr}");
    peak_of_children()
}

/// 2^17 + 1 pings: the table of requests waiting has just doubled (to 2^18 slots), the worst
/// moment for the bytes a request costs, and the report of the requests left unanswered at
/// the end holds just past a power of two of them. Measured (release and debug alike, the
/// sizes are the same): about 410 bytes a request; before the records were made smaller and
/// the end of the session stopped holding the table, its drained requests and their report
/// at once, about 770.
#[test]
#[cfg_attr(miri, ignore)]
fn a_waiting_request_costs_what_the_cli_reference_says() {
    // The bound is the one the reference gives (and `--help` repeats).
    let documented = format!("up to about {BYTES_PER_WAITING_REQUEST} bytes");
    let reference =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md")).unwrap();
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_rpcwire"))
        .args(["proxy", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap().replace('\n', " ");
    assert!(
        reference.replace('\n', " ").contains(&documented),
        "docs/cli.md: {documented}"
    );
    assert!(help.contains(&documented), "proxy --help: {documented}");
    // The binary, the runtime, the pipes' buffers: what the proxy takes with next to nothing
    // waiting.
    let base = ping_a_silent_server(1_000);
    let n = (1 << 17) + 1;
    let peak = ping_a_silent_server(n);
    let per_request = (peak - base) / n as i64;
    eprintln!(
        "{n} waiting requests: peak {} KiB over {} KiB, {per_request} bytes each",
        peak / 1024,
        base / 1024
    );
    assert!(
        per_request <= BYTES_PER_WAITING_REQUEST,
        "{per_request} bytes a waiting request (peak {} KiB, with 1,000 waiting {} KiB)",
        peak / 1024,
        base / 1024
    );
}
