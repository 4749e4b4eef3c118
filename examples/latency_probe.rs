//! Round-trip latency added by `rpcwire proxy`, for `benches/proxy_throughput.sh`:
//!
//! ```sh
//! cargo run --release --example latency_probe -- target/release/rpcwire [ROUNDS]
//! ```
//!
//! Times request → reply round trips against `cat` (an echo server) directly, then against
//! `rpcwire proxy --quiet -- cat`, one message in flight at a time, and prints p50 / p99 / max
//! of both and the difference. Each round is two round trips that keep the proxy's session
//! clean: a request `N` (echoed back as a server request `N`), then the reply to it (echoed back
//! as the server's reply to the client's request `N`). A warm-up of 1,000 rounds is not timed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

fn percentile(sorted: &[u64], p: f64) -> u64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Round-trip times in nanoseconds through `cmd`.
fn probe(cmd: &[&str], rounds: u64) -> Vec<u64> {
    let mut child = Command::new(cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut times = Vec::with_capacity(2 * rounds as usize);
    let mut line = String::new();
    let warmup = 1_000;
    for n in 0..warmup + rounds {
        let messages = [
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{n},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"message\":\"round {n}\"}}}}}}\n"
            ),
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{n},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"round {n}\"}}]}}}}\n"
            ),
        ];
        for msg in &messages {
            let start = Instant::now();
            input.write_all(msg.as_bytes()).unwrap();
            input.flush().unwrap();
            line.clear();
            output.read_line(&mut line).unwrap();
            let took = start.elapsed().as_nanos() as u64;
            assert_eq!(line, *msg, "echoed unchanged");
            if n >= warmup {
                times.push(took);
            }
        }
    }
    drop(input);
    let status = child.wait().unwrap();
    assert!(status.success(), "{cmd:?}: {status}");
    times.sort_unstable();
    times
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rpcwire = args
        .next()
        .expect("usage: latency_probe RPCWIRE_BINARY [ROUNDS]");
    let rounds: u64 = match args.next().map(|r| r.parse::<u64>()) {
        None => 10_000,
        Some(Ok(rounds)) if rounds > 0 => rounds,
        Some(_) => {
            eprintln!("ROUNDS is a number of rounds (two round trips each), at least 1");
            std::process::exit(2);
        }
    };
    let direct = probe(&["cat"], rounds);
    let proxied = probe(&[&rpcwire, "proxy", "--quiet", "--", "cat"], rounds);
    let us = |ns: u64| ns as f64 / 1000.0;
    println!("round trips: {} each (one in flight)", direct.len());
    for (name, t) in [("cat", &direct), ("rpcwire proxy -- cat", &proxied)] {
        println!(
            "{name:<22} p50 {:>8.1} us   p99 {:>8.1} us   max {:>8.1} us",
            us(percentile(t, 0.5)),
            us(percentile(t, 0.99)),
            us(*t.last().unwrap())
        );
    }
    println!(
        "added by the proxy     p50 {:>8.1} us   p99 {:>8.1} us",
        us(percentile(&proxied, 0.5).saturating_sub(percentile(&direct, 0.5))),
        us(percentile(&proxied, 0.99).saturating_sub(percentile(&direct, 0.99)))
    );
}
