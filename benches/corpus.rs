//! Deterministic benchmark corpora, generated in code (no files, no randomness): each one a
//! stream of MCP frames joined by `\n`, so MB/s and messages/s can both be read off a run.

#![allow(dead_code)]

use std::fmt::Write;

/// One corpus: a stream of newline-terminated frames.
pub struct Corpus {
    /// Short name, used in benchmark ids (`decode/<name>/<method>`).
    pub name: &'static str,
    /// The frames, each followed by `\n`.
    pub stream: Vec<u8>,
    /// How many frames (messages) the stream holds.
    pub messages: usize,
}

impl Corpus {
    fn new(name: &'static str, frames: &[String]) -> Corpus {
        let mut stream = Vec::new();
        for f in frames {
            assert!(!f.contains('\n'), "frames hold no raw newline");
            stream.extend_from_slice(f.as_bytes());
            stream.push(b'\n');
        }
        Corpus {
            name,
            stream,
            messages: frames.len(),
        }
    }

    /// The frames, without their terminators.
    pub fn frames(&self) -> impl Iterator<Item = &[u8]> {
        self.stream.split(|&b| b == b'\n').filter(|f| !f.is_empty())
    }
}

/// A tiny deterministic generator (xorshift), so corpora vary without a rand dependency.
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

/// Ping-sized messages (~70 B on average): pings, empty results, progress and cancel
/// notifications, a list request.
pub fn tiny() -> Corpus {
    let mut frames = Vec::new();
    for i in 0..1000u32 {
        frames.push(match i % 5 {
            0 => format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#),
            1 => format!(r#"{{"jsonrpc":"2.0","id":{i},"result":{{}}}}"#),
            2 => format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{i},"progress":50}}}}"#
            ),
            3 => format!(r#"{{"jsonrpc":"2.0","id":"r-{i}","method":"tools/list","params":{{}}}}"#),
            _ => format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{i}}}}}"#
            ),
        });
    }
    Corpus::new("tiny", &frames)
}

/// `tools/call` requests and their results (~500 B each), alternating.
pub fn typical() -> Corpus {
    let mut frames = Vec::new();
    for i in 0..128u32 {
        if i % 2 == 0 {
            frames.push(format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"get_weather_forecast","arguments":{{"location":"San Francisco, CA","units":"metric","days":5,"include_hourly":false,"fields":["temperature","humidity","wind_speed","precipitation","uv_index","visibility"],"language":"en-US","alerts":true,"max_results":24,"source":"noaa","cache_ttl_seconds":600,"resolution":"3h"}},"_meta":{{"progressToken":"tok-{i}","io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}}}}"#
            ));
        } else {
            frames.push(format!(
                r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[{{"type":"text","text":"Forecast for San Francisco, CA: Monday 18°C partly cloudy, wind 12 km/h W; Tuesday 17°C fog in the morning; Wednesday 19°C sunny. No alerts."}}],"structuredContent":{{"location":"San Francisco, CA","days":[{{"t":18,"h":71,"w":12}},{{"t":17,"h":80,"w":9}},{{"t":19,"h":65,"w":14}}]}},"isError":false,"_meta":{{"requestTimeMs":42}}}}}}"#,
                i - 1
            ));
        }
    }
    Corpus::new("typical", &frames)
}

/// One `resources/read` result: a ~64 KiB source text (escaped newlines, quotes, tabs) and a
/// ~256 KiB base64 blob (~328 KB in all).
pub fn large() -> Corpus {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut text = String::new();
    let words = [
        "fn", "let", "mut", "self", "buffer", "match", "Some", "None", "return", "impl", "pub",
        "struct", "usize", "Result", "Ok", "Err", "=>", "{", "}", "+=", "1",
    ];
    while text.len() < 64 * 1024 {
        text.push_str(r"\t");
        for _ in 0..(4 + rng.below(8)) {
            text.push_str(words[rng.below(words.len() as u64) as usize]);
            text.push(' ');
        }
        if rng.below(8) == 0 {
            text.push_str(r#"println!(\"value: {}\", x);"#);
        }
        text.push_str(r"\n");
    }
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let blob: String = (0..256 * 1024)
        .map(|_| B64[rng.below(64) as usize] as char)
        .collect();
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":3,"result":{{"contents":[{{"uri":"file:///project/src/main.rs","mimeType":"text/x-rust","text":"{text}"}},{{"uri":"file:///project/assets/logo.png","mimeType":"image/png","blob":"{blob}"}}]}}}}"#
    );
    Corpus::new("large", &[frame])
}

/// One ~16 KiB result of nested objects with many short keys, numbers and small arrays.
pub fn dense() -> Corpus {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut rows = String::new();
    let mut n = 0;
    while rows.len() < 16 * 1024 - 200 {
        if n > 0 {
            rows.push(',');
        }
        write!(
            rows,
            r#"{{"id":{n},"x":{},"y":-{},"z":{}.{},"ok":{},"k":"v{}","p":{{"a":{},"b":{},"c":[{},{},{}]}},"q":{{"r":{{"s":{}}}}}}}"#,
            rng.below(1000),
            rng.below(100),
            rng.below(10),
            rng.below(100),
            if rng.below(2) == 0 { "true" } else { "false" },
            rng.below(100),
            rng.below(10),
            rng.below(1000),
            rng.below(10),
            rng.below(10),
            rng.below(10),
            rng.below(100),
        )
        .unwrap();
        n += 1;
    }
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":5,"result":{{"structuredContent":{{"rows":[{rows}],"count":{n}}}}}}}"#
    );
    Corpus::new("dense", &[frame])
}

/// Results (~1.1 KiB each) whose text is heavy in `\"`, `\\`, `\n` and `\u00e9`.
pub fn escapes() -> Corpus {
    let unit = r#"She said \"caf\u00e9\" \u2014 path C:\\Users\\r\u00e9mi\\notes.txt\nline \"two\"\t\\done\n"#;
    let mut frames = Vec::new();
    for i in 0..32 {
        let mut text = String::new();
        while text.len() < 1000 {
            text.push_str(unit);
        }
        frames.push(format!(
            r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"{text}"}}],"isError":false}}}}"#
        ));
    }
    Corpus::new("escapes", &frames)
}

/// Error responses as a server answers bad calls (~100 B each): -32601 with the unknown
/// method as `data` (the specification's recommendation), -32602 with a reason, -32603
/// without `data`, in the specification's member order. Not one of the five corpora: a
/// variant for the straight path's error responses (take `sdk_order` of it for the TypeScript
/// SDK's order).
pub fn error_responses() -> Corpus {
    let mut frames = Vec::new();
    for i in 0..1000u32 {
        frames.push(match i % 3 {
            0 => format!(
                r#"{{"jsonrpc":"2.0","id":{i},"error":{{"code":-32601,"message":"Method not found","data":"tools/unknown_{i}"}}}}"#
            ),
            1 => format!(
                r#"{{"jsonrpc":"2.0","id":"r-{i}","error":{{"code":-32602,"message":"Invalid params","data":{{"reason":"missing argument","field":"path"}}}}}}"#
            ),
            _ => format!(
                r#"{{"jsonrpc":"2.0","id":{i},"error":{{"code":-32603,"message":"Internal error"}}}}"#
            ),
        });
    }
    Corpus::new("error responses", &frames)
}

/// `c`'s frames with their members in the order the official MCP TypeScript SDK writes them
/// (see its captured session in `tests/data/`): the message's own members first (`method`,
/// `params`, `result`, `error`), then `jsonrpc` and `id`. The corpora above put `jsonrpc` and
/// `id` first, as the specification's examples do; the decoder has a straight path for
/// either order, so both are measured.
pub fn sdk_order(c: &Corpus, name: &'static str) -> Corpus {
    reordered(
        c,
        name,
        ["method", "params", "result", "error", "jsonrpc", "id"],
    )
}

/// `c`'s frames with their members in the order of the MCP Java SDK's records: `jsonrpc`,
/// `method`, `id`, `params` (responses as the corpora have them).
pub fn java_order(c: &Corpus, name: &'static str) -> Corpus {
    reordered(
        c,
        name,
        ["jsonrpc", "method", "id", "params", "result", "error"],
    )
}

/// `c`'s frames with their members in the order of the MCP Kotlin SDK's classes: `id`,
/// `method`, `params` or `result`, then `jsonrpc` (a notification: the TypeScript SDK's order).
pub fn kotlin_order(c: &Corpus, name: &'static str) -> Corpus {
    reordered(
        c,
        name,
        ["id", "method", "params", "result", "error", "jsonrpc"],
    )
}

/// `c`'s frames with their members in the order the official MCP C# SDK writes them: its
/// serializer (System.Text.Json) writes a class's own properties before its base classes',
/// so the message's own members come first, then `id` (declared by the base class of
/// requests and responses), then `jsonrpc` (the root class's): `method`, `params`, `id`,
/// `jsonrpc`, or `result` / `error`, `id`, `jsonrpc` (a notification: the TypeScript SDK's
/// order). Many Ethereum JSON-RPC clients write requests in this order too.
pub fn csharp_order(c: &Corpus, name: &'static str) -> Corpus {
    reordered(
        c,
        name,
        ["method", "params", "result", "error", "id", "jsonrpc"],
    )
}

/// `c`'s frames with their top-level members in `order`.
fn reordered(c: &Corpus, name: &'static str, order: [&str; 6]) -> Corpus {
    use serde_json::value::RawValue;
    use std::collections::BTreeMap;
    let frames: Vec<String> = c
        .frames()
        .map(|f| {
            let members: BTreeMap<&str, &RawValue> = serde_json::from_slice(f).unwrap();
            assert_eq!(
                members.len(),
                order.iter().filter(|k| members.contains_key(*k)).count()
            );
            let written: Vec<String> = order
                .iter()
                .filter_map(|k| Some(format!("\"{k}\":{}", members.get(k)?.get())))
                .collect();
            format!("{{{}}}", written.join(","))
        })
        .collect();
    Corpus::new(name, &frames)
}

/// `c`'s frames with a space after every `,` and `:` between tokens: the separators of
/// Python's `json.dumps` by default, which hand-written Python servers send. The SDKs write
/// compact JSON, as the corpora above are; the decoder has a straight path for both.
pub fn spaced(c: &Corpus, name: &'static str) -> Corpus {
    let frames: Vec<String> = c
        .frames()
        .map(|f| {
            let (mut out, mut in_string, mut escaped) = (String::new(), false, false);
            for ch in std::str::from_utf8(f).unwrap().chars() {
                out.push(ch);
                match ch {
                    _ if escaped => escaped = false,
                    '\\' if in_string => escaped = true,
                    '"' => in_string = !in_string,
                    ',' | ':' if !in_string => out.push(' '),
                    _ => {}
                }
            }
            out
        })
        .collect();
    Corpus::new(name, &frames)
}

/// All five, in report order.
pub fn all() -> Vec<Corpus> {
    vec![tiny(), typical(), large(), dense(), escapes()]
}
