//! Writes a large, realistic MCP client-to-server NDJSON stream to stdout, for
//! `benches/proxy_throughput.sh`:
//!
//! ```sh
//! cargo run --release --example gen_stream -- 200 > stream.ndjson   # 200 MB and a tail
//! ```
//!
//! The mix: `tools/call`, `resources/read`, `ping` and `prompts/get` requests; progress and
//! logging notifications; and replies (small results, text content with escapes and non-ASCII,
//! base64 blobs of up to 48 KB). Deterministic (a fixed xorshift seed).
//!
//! Made for `rpcwire proxy -- cat`, which echoes the stream back as if the server had written
//! it: each request `N` comes back as a server request `N`, so the stream answers it — a reply
//! with id `N`, written `LAG` messages later — and that reply, echoed back, answers the client's
//! own request `N`. Progress notifications name the token of a request between its echo and
//! its reply, each reporting more than the one before on its token (MCP: the `progress` value
//! "MUST increase with each notification"). Every message is then valid and matched (zero
//! violations), while the proxy tracks about `LAG` requests in flight each way. A progress
//! notification comes at least [`PROGRESS_GAP`] bytes after its request, and a reply at least
//! `LAG` messages and [`REPLY_GAP`] bytes after it: more than the pipes and the proxy's read
//! buffers hold between the two directions (some 3 MB), so neither overtakes the echo of its
//! request. (Counted in messages alone, the gap was too short early in the stream, whose
//! messages are small before the first replies: a run saw progress pass its request's echo.) Past the size asked for, the stream goes on with small notifications until every
//! reply has been written (a tail of some 20 MB).

use std::collections::VecDeque;
use std::io::{self, BufWriter, Write};

/// Messages between a request and its reply (at the least).
const LAG: u64 = 20_000;
/// Bytes of the stream between a request and a progress notification on its token (at the
/// least): twice what can sit between the proxy's two sides.
const PROGRESS_GAP: u64 = 6 << 20;
/// Bytes of the stream between a request and its reply (at the least).
const REPLY_GAP: u64 = 2 * PROGRESS_GAP;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: [&str; 16] = [
    "alpha",
    "request",
    "weather",
    "Zürich",
    "données",
    "résumé",
    "tool",
    "graph",
    "node",
    "edge",
    "😀",
    "line\\nbreak",
    "a \\\"quoted\\\" word",
    "tab\\there",
    "\\u00e9t\\u00e9",
    "naïve",
];

/// Between `min` and `min + spread - 1` words.
fn text(rng: &mut Rng, min: u64, spread: u64) -> String {
    let words = min + rng.below(spread.max(1));
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    s
}

fn base64ish(rng: &mut Rng, min: usize, spread: u64) -> String {
    let len = min + rng.below(spread) as usize;
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..len)
        .map(|_| ALPHABET[rng.below(64) as usize] as char)
        .collect()
}

/// A request, and whether it asks for progress (on the token `tok-{id}`).
fn request(rng: &mut Rng, id: u64) -> (String, bool) {
    let line = match rng.below(10) {
        0..=4 => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"search_nodes\",\"arguments\":{{\"query\":\"{}\",\"limit\":{},\"filters\":{{\"types\":[\"person\",\"machine\"],\"since\":\"2025-06-18T12:00:00Z\"}}}},\"_meta\":{{\"progressToken\":\"tok-{id}\"}}}}}}",
            text(rng, 3, 20),
            rng.below(100)
        ),
        5..=6 => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"resources/read\",\"params\":{{\"uri\":\"file:///projects/rpcwire/src/{}.rs\"}}}}",
            rng.below(1000)
        ),
        7 => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"prompts/get\",\"params\":{{\"name\":\"args-prompt\",\"arguments\":{{\"city\":\"{}\"}}}}}}",
            text(rng, 2, 1)
        ),
        _ => format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}"),
    };
    let has_token = line.contains("progressToken");
    (line, has_token)
}

fn reply(rng: &mut Rng, id: u64) -> String {
    match rng.below(20) {
        0..=9 => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}],\"isError\":false}}}}",
            text(rng, 10, 300)
        ),
        10..=14 => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"structuredContent\":{{\"sum\":{},\"items\":[{}]}},\"content\":[]}}}}",
            rng.below(1 << 40),
            (0..rng.below(40))
                .map(|i| format!(
                    "{{\"n\":{i},\"score\":{}.{}e-3}}",
                    rng.below(1000),
                    rng.below(1000)
                ))
                .collect::<Vec<_>>()
                .join(",")
        ),
        15 => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"contents\":[{{\"uri\":\"demo://resource/dynamic/blob/{id}\",\"mimeType\":\"application/octet-stream\",\"blob\":\"{}\"}}]}}}}",
            base64ish(rng, 1024, 48 << 10)
        ),
        16 => format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32602,\"message\":\"Invalid params: {}\",\"data\":{{\"field\":\"query\"}}}}}}",
            text(rng, 4, 1)
        ),
        _ => format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"),
    }
}

/// A progress notification on the token of `in_flight` (a request whose echo the proxy has
/// seen and whose reply is still to come, so that the token is active both ways), or a log
/// message. `reported`: the progress reported on that token so far, raised by the report.
fn notification(rng: &mut Rng, in_flight: Option<(u64, &mut u64)>) -> String {
    match in_flight {
        Some((id, reported)) if rng.below(2) == 0 => {
            *reported += 1 + rng.below(10);
            format!(
                "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"tok-{id}\",\"progress\":{reported},\"message\":\"{}\"}}}}",
                text(rng, 3, 1)
            )
        }
        _ => log_message(rng, 5, 30),
    }
}

fn log_message(rng: &mut Rng, min: u64, spread: u64) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"logger\":\"everything-server\",\"data\":\"{}\"}}}}",
        text(rng, min, spread)
    )
}

fn main() -> io::Result<()> {
    let mb: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("a size in MB"))
        .unwrap_or(200);
    let target = mb << 20;
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut written = 0u64;
    let mut index = 0u64;
    let mut next_id = 1u64;
    // (due index, id, asks for progress, progress reported, bytes written before the
    // request) of the replies still to write.
    let mut due: VecDeque<(u64, u64, bool, u64, u64)> = VecDeque::new();
    while written < target || !due.is_empty() {
        let line = match due.front() {
            Some(&(at, id, _, _, sent)) if at <= index && sent + REPLY_GAP <= written => {
                due.pop_front();
                reply(&mut rng, id)
            }
            // The tail: small notifications until every reply is due.
            _ if written >= target => log_message(&mut rng, 1, 3),
            _ if rng.below(10) < 6 => {
                let id = next_id;
                next_id += 1;
                let (line, has_token) = request(&mut rng, id);
                due.push_back((index + LAG, id, has_token, 0, written));
                line
            }
            _ => {
                // Progress on a request sent at least `PROGRESS_GAP` bytes before (the echo
                // of the request has reached the proxy) and not answered yet (its reply comes
                // at least as many bytes later).
                let in_flight = written.checked_sub(PROGRESS_GAP).and_then(|sent_before| {
                    let old_enough = due.partition_point(|d| d.4 <= sent_before);
                    due.range_mut(..old_enough)
                        .rev()
                        .take(8)
                        .find(|d| d.2)
                        .map(|d| (d.1, &mut d.3))
                });
                notification(&mut rng, in_flight)
            }
        };
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
        written += line.len() as u64 + 1;
        index += 1;
    }
    out.flush()
}
