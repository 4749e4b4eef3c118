//! Replays every file of `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/` through the
//! same target bodies the fuzzers run (`tests/fuzz_bodies/mod.rs`), so a plain `cargo test`
//! covers the corpora without nightly.
//!
//! The seed corpus is written by the ignored test `write_seed_corpus` below, from the shared
//! vectors and the captured sessions in `tests/data/`:
//! `cargo test --test fuzz_corpus -- --ignored write_seed_corpus`.

mod common;
mod fuzz_bodies;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// Runs `body` on every file of `dir`; returns how many there were.
fn replay(dir: &Path, body: fn(&[u8])) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    files.sort();
    for file in &files {
        let data = std::fs::read(file).unwrap();
        if std::panic::catch_unwind(|| body(&data)).is_err() {
            panic!("{} fails its target", file.display());
        }
    }
    files.len()
}

#[test]
#[cfg_attr(miri, ignore)]
fn replay_seed_corpora() {
    for (target, body) in fuzz_bodies::TARGETS {
        let n = replay(&fuzz_dir().join("corpus").join(target), *body);
        assert!(n >= 5, "fuzz/corpus/{target}: only {n} seeds");
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn replay_regressions() {
    let mut n = 0;
    for (target, body) in fuzz_bodies::TARGETS {
        n += replay(&fuzz_dir().join("regressions").join(target), *body);
    }
    assert!(n >= 3, "only {n} regression inputs");
}

/// Writes the seed corpora (deterministically; file names say where each seed comes from).
#[test]
#[ignore = "writes fuzz/corpus; run by hand"]
fn write_seed_corpus() {
    let corpus = fuzz_dir().join("corpus");
    let write = |target: &str, name: &str, data: &[u8]| {
        let dir = corpus.join(target);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), data).unwrap();
    };
    let small = |b: &[u8]| b.len() <= 4096;
    let captures: Vec<(String, Vec<u8>)> = ["capture-c2s.ndjson", "capture-s2c.ndjson"]
        .iter()
        .map(|name| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data")
                .join(name);
            (name.to_string(), std::fs::read(path).unwrap())
        })
        .collect();

    for case in common::load("envelope.jsonl") {
        let name = case["name"].as_str().unwrap();
        if case.get("hex").is_none() || case["framing"] == "sse" {
            continue;
        }
        let bytes = common::input(&case);
        if !small(&bytes) {
            continue;
        }
        if case["framing"] == "line" {
            write("decode", name, &bytes);
            if matches!(
                case["cat"].as_str(),
                Some("security" | "id" | "envelope" | "response" | "batch" | "shape")
            ) {
                write("differential", name, &bytes);
            }
        } else {
            // Stream vectors: a frame limit byte and a chunking seed byte, then the stream.
            let mut d = vec![63, name.len() as u8];
            d.extend_from_slice(&bytes);
            write("framing_chunks", name, &d);
        }
    }
    for case in common::load("jsonrpc-spec.jsonl") {
        let name = format!("spec-{}", case["name"].as_str().unwrap());
        let bytes = common::hex(case["hex"].as_str().unwrap());
        write("differential", &name, &bytes);
        if bytes.starts_with(b"[") {
            write("batch", &name, &bytes);
        }
    }
    for case in common::load("envelope.jsonl") {
        if case["cat"] == "batch" {
            write(
                "batch",
                case["name"].as_str().unwrap(),
                &common::input(&case),
            );
        }
    }
    // Batch elements the vectors lack; the body puts an input that does not open an array
    // inside `[` and `]` (see `fuzz_bodies::as_batch`).
    let batches: &[&[u8]] = &[
        br#"{"jsonrpc":"2.0","id":1,"method":"sum","params":[1,2,4]},{"jsonrpc":"2.0","method":"hello","params":[7]},1,{},{"jsonrpc":"2.0","id":"x","result":7}"#,
        br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}},{"jsonrpc":"2.0","id":"a","method":"initi\u0061lize"},{"jsonrpc":"2.0","method":"initialize"}"#,
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"a\"},{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"b\"},{\"jsonrpc\":\"2.0\",\"id\":\"\\u00e9\\\"\",\"method\":\"c\",\"params\":{\"x\":\n[1,\r\n2]}},{\"id\":3}",
        br#"[[{"jsonrpc":"2.0","id":1,"method":"a"}],[],{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"m","data":[1]}},{"jsonrpc":"2.0","result":{}}]"#,
        br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"a"},{"jsonrpc":"2.0","id":7,"method":"m","result":1},{"jsonrpc":"1.0","id":"v","method":"m"}"#,
        br#" {"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"t"}} , 5 ,"x",null,{"id":4} "#,
        // Not JSON (a payload lazy mode skips): a batch in lazy mode only.
        br#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"x":tru}},{"jsonrpc":"2.0","id":2,"method":"b","params":[01]}"#,
    ];
    for (i, b) in batches.iter().enumerate() {
        write("batch", &format!("hand-{i}"), b);
    }
    for (name, stream) in &captures {
        for (limit, seed) in [(95u8, 1u8), (40, 7)] {
            let mut d = vec![limit, seed];
            d.extend_from_slice(&stream[..stream.len().min(3000)]);
            write("framing_chunks", &format!("{name}-{limit}"), &d);
        }
        for (i, line) in stream.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() || !small(line) {
                continue;
            }
            write("differential", &format!("{name}-{i:02}"), line);
            // Payload values for the scanner, at the default depth limit, as the wire has
            // them (a `Value` would write its members in an order serde_json's features
            // choose).
            let v: HashMap<&str, &RawValue> = serde_json::from_slice(line).unwrap();
            for member in ["params", "result", "error"] {
                if let Some(p) = v.get(member) {
                    let mut d = vec![128];
                    d.extend_from_slice(p.get().as_bytes());
                    if d.len() <= 2048 {
                        write("scan", &format!("{name}-{i:02}-{member}"), &d);
                    }
                }
            }
        }
    }
    let scan_seeds: &[&[u8]] = &[
        b"\x80{\"a\":[1,-0.5e+3,true,false,null,\"\\u00e9\\ud800\"]}",
        b"\x02[[[]]]",
        b"\x80  \"tab\\tq\\\"\"  ",
        b"\x80-0",
        b"\x801E400",
        b"\x80{\"a\" 1}",
        b"\x80[1,]",
    ];
    for (i, s) in scan_seeds.iter().enumerate() {
        write("scan", &format!("hand-{i}"), s);
    }
    // `rpcwire::json` on its own: documents with every kind of token and escape, duplicate
    // and escaped keys, lone surrogates, numbers at the edges of `i64` and `f64`, values lazy
    // mode takes and strict mode refuses, nesting at the limit and one past it.
    let json_seeds: Vec<Vec<u8>> = vec![
        br#" {"a":[1,-0.5e+3,true,false,null,"\u00e9\ud800"],"b":{"c":"\"\/\b\f\n\r\t"},"\u0061":2} "#.to_vec(),
        br#"{"id":1,"id":2,"":{},"a/b":{"~":[]},"\ud83d\ude00":"x\udc00\ud800y"}"#.to_vec(),
        b"[9223372036854775807,-9223372036854775808,9223372036854775808,18446744073709551616,-0,0.0,1E400,4.9e-324,2.2250738585072014e-308,1.7976931348623158e308,0.30000000000000004,922337200368547753e-327]".to_vec(),
        br#"{"a":1 "b":2,"c":[1 2],"d":{"e"::1},"f":01}"#.to_vec(),
        br#"[1,,2,[,],{,},"\u+041",tru,nul]"#.to_vec(),
        [vec![b'['; 127], vec![b']'; 127]].concat(),
        [vec![b'['; 128], vec![b']'; 128]].concat(),
        b"\t\r\n \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\u0000\\u001f\" \n".to_vec(),
        b"{\"a\":\"\xff\"} []".to_vec(),
    ];
    for (i, s) in json_seeds.iter().enumerate() {
        write("json", &format!("hand-{i}"), s);
    }
    // Roundtrip inputs are building blocks, not messages: a few varied byte strings.
    for (i, s) in [
        &b"\x00\x00\x01\x02\x03\x04\x05\x06\x07\x08\x04ping\x02{}\x01\x05hello"[..],
        b"\x01\x01\x08req-\xc3\xa9\"\\\x0atools/call\x10{\"name\":\"x\"}    ",
        b"\x02\x02\x07\x00\x08[1,2,3]\x01",
        b"\x03\x00\xff\xff\xff\xff\xff\xff\xff\x7f\x00\x07{\"a\":1}\x01\x0bParse error\xa4\x80\xff\xff\xff\xff\xff\xff\x02",
        b"\x03\x01\x03a\nb\x00\x00\x01\x04\x00\x10\x00\x00\x00\x00\x00\x00\x00\x01",
        b"\x00\x02\x07\x0dnotifications\x06\x05\x00",
    ]
    .iter()
    .enumerate()
    {
        write("roundtrip", &format!("hand-{i}"), s);
    }
    // Roundtrip inputs past the single message: a -32601 for a `JsonStr::from_raw` of any
    // bytes, and `BatchReply` pushes that write zero, one or two messages.
    for (i, s) in [
        // a raw line break in a -32601's method
        &b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x07\x03a\nb\x01\x00"[..],
        // a method body with escapes and a lone surrogate
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02id\x1atele\\u0070ort \\\" \\\\ \\ud800\x02\x00",
        // a method body that would add members to the error
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x13x\",\"id\":2,\"y\":\"\\u12\x00\x00",
        // a batch: two messages in one push, an empty push, a -32601
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x07\x00\x02\x03\x02\x02\x02\x01\x00\x03\x00\x02\t\xa8\x80\xff\xff\xff\xff\xff\xff\x01x\x00\x00\x00\x01\x04\x02\x05\x03a\nb\x02",
        // a request and a notification in one push
        b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x07\x00\x02\x01\x02\x00\x01\x03abc\x04tool\x07{\"a\":1}\x01\x01\x01n\x06[1,\n2]\x01",
    ]
    .iter()
    .enumerate()
    {
        write("roundtrip", &format!("writers-{i}"), s);
    }
    // SSE and Content-Length streams: a frame limit byte, a chunking seed byte, the stream.
    let sse: &[&[u8]] = &[
        b": keepalive\r\n\r\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\n",
        b"data: {\"a\":\ndata: 1}\r\rdata:x\r\n\r\nevent: message\nretry: 1000\ndata: y\n\n",
        b"id: a\x00b\ndata: {\"jsonrpc\":\"2.0\",\r\"id\":5}\n\n\xef\xbb\xbfdata: z\n\n",
        b"data: 0123456789012345678901234567890123456789\n\ndata: ok\n\n",
        b"id:\n\ndata: unterminated",
    ];
    for (i, s) in sse.iter().enumerate() {
        let mut d = vec![if i == 3 { 20 } else { 95 }, i as u8];
        d.extend_from_slice(s);
        write("sse_chunks", &format!("hand-{i}"), &d);
    }
    let cl: &[&[u8]] = &[
        b"Content-Length: 2\r\n\r\n{}Content-Length: 7\r\nContent-Type: application/json\r\n\r\n[1,2,3]",
        b"content-length: 3\r\n\r\nabcContent-Length: 99999\r\n\r\nxyz",
        b"Content-Length: x\r\n\r\n{}",
        b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
        b"Content-Type: a\r\n\r\n{}Content-Length: 5\r\n\r\n{",
        b"Content-Length: 2\r\n\r\n{}Content-Type: a/b; charset=latin1\r\nContent-Length: 6\r\n\r\n[\"\xc3\xa9\"]Content-Type: a/b;charset=\"utf8\"\r\nContent-Length: 2\r\n\r\n[]",
        b"Content-Length: 2\r\n\r\n{}X-Client: caf\xc3\xa9\r\nContent-Length: 2\r\n\r\n[]",
    ];
    for (i, s) in cl.iter().enumerate() {
        let mut d = vec![40, i as u8];
        d.extend_from_slice(s);
        write("content_length_chunks", &format!("hand-{i}"), &d);
    }
    // Pending-table programs: (op, argument) byte pairs.
    let programs: &[&[u8]] = &[
        &[0, 0, 1, 10, 2, 0, 3, 0, 5, 20, 6, 0],
        &[1, 5, 1, 3, 1, 9, 5, 4, 5, 10, 2, 1, 4, 0],
        &[0, 0, 0, 0, 0, 0, 4, 1, 3, 0, 2, 0, 2, 0, 3, 1],
        &[1, 255, 1, 0, 5, 0, 5, 255, 3, 0],
        &[0; 160],
        // A shrink (250) that cuts four free slots off behind one with a deadline, then six
        // inserts past the cut, the cut slots' tokens retried, and the deadline due.
        &[
            1, 50, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 2, 1, 2, 1, 250, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 3, 0, 3, 1, 3, 2, 3, 3, 5, 60, 2, 0,
        ],
    ];
    for (i, p) in programs.iter().enumerate() {
        write("pending_model", &format!("hand-{i}"), p);
    }
    // Id-table programs: (op, argument) byte pairs (see `fuzz_bodies::tables_model`).
    let programs: &[&[u8]] = &[
        &[0, 1, 0, 5, 0, 9, 1, 2, 1, 3, 2, 1, 0, 1, 3, 0],
        &[4, 1, 5, 2, 4, 7, 6, 0, 6, 1, 7, 1, 8, 3, 8, 4],
        &[5, 9, 5, 10, 5, 11, 9, 0, 9, 4, 6, 3, 4, 200],
        &[1, 6, 1, 9, 1, 12, 0, 255, 4, 255, 5, 254, 8, 2, 3, 16],
        &[
            4, 0, 4, 4, 4, 8, 4, 12, 4, 16, 4, 20, 4, 24, 4, 28, 4, 32, 8, 0, 8, 4,
        ],
        // Tasks: client 0's task-augmented request with progress, its `CreateTaskResult`
        // (task 0, ttl 3) routed, a status not terminal with progress; client 1's
        // `tasks/get` of it (refused), client 0's `tasks/result` (the task ends); a terminal
        // status; time passes beyond the ttl; another client's `tasks/get` goes through.
        &[35, 3, 76, 16, 3, 1, 13, 3, 3, 4, 3, 2, 8, 4, 13, 3],
        // The second program's requests, replies, cancellation and expiries under
        // `Dialect::JsonRpc2` (9, 6): ids alone rewritten, progress tokens left as they are.
        &[9, 6, 4, 1, 5, 2, 4, 7, 6, 0, 6, 1, 7, 1, 8, 3, 8, 4],
        // Dialects mixed: client 0's task 0 kept under MCP's rules, then under
        // `Dialect::JsonRpc2` client 1's `tasks/get` of it goes through and client 0's
        // `tasks/result` ends nothing (its status and progress still routed); back under MCP's
        // rules (9, 2), client 1's `tasks/get` is refused and client 0's `tasks/result` ends it.
        &[
            35, 3, 76, 16, 3, 1, 9, 6, 13, 3, 3, 4, 3, 1, 9, 2, 13, 3, 3, 4, 3, 2, 8, 4,
        ],
    ];
    for (i, p) in programs.iter().enumerate() {
        write("tables_model", &format!("hand-{i}"), p);
    }
    // Streams for `decode_lines`: a config byte, then a template whose `~` and `` ` `` grow
    // into long runs (see `fuzz_bodies::grown`).
    let mut streams: Vec<Vec<u8>> = [
        &br#"{"jsonrpc":"2.0","id":1,"result":{"contents":[{"blob":"``"}]}}"#[..],
        br#"{"jsonrpc":"2.0","id":1,"result":{"t":"`","u":[1,{"v":"`"}]}}~"#,
        br#"{"jsonrpc":"2.0","id":1,"result":{"t":"`"}"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"``\",\n\"u\":1}}\n",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"a\":[~]}}\r\n\n{\"id\":2}",
        b"\n~\n{\"jsonrpc\":\"2.0\",\"id\":\"a\",~\"error\":{\"code\":-1,\"message\":\"`\"}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"``\xc3\xa9\xff\"}}\n[1,`]",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"``\"}} \t\r\r\n{\"x\":[~\n]}",
    ]
    .iter()
    .map(|s| s.to_vec())
    .collect();
    streams.push(streams[0].repeat(3));
    for (i, stream) in streams.iter().enumerate() {
        for config in [0u8, 2, 0x12, 0x23, 0x37] {
            let mut d = vec![config];
            d.extend_from_slice(stream);
            write("decode_lines", &format!("hand-{i}-{config:02x}"), &d);
        }
    }
    // Collector programs: a bound byte (under 128: `with_max_owed(bound % 72)`), then
    // operations and their writers (see `fuzz_bodies::collector`).
    let programs: &[&[u8]] = &[
        // Two owed; a -32601 pushed; sealed; the second answered with a response, the first
        // forgone.
        &[
            200, 0, 0, 2, 1, 0, 4, 2, 7, 3, b'a', b'b', b'c', 2, 3, 4, 1, 1, 0, 2, 2, 9, 2, b'{',
            b'}', 5, 0,
        ],
        // Three owed, sealed, answered with a response too deep for the array, one larger
        // than the room made for it, and one in a buffer of the writer's own.
        &[
            200, 1, 3, 3, 4, 0, 7, 2, 4, 4, 1, 8, 2, 5, 40, 4, 2, 6, 1, 0, 2, 2, 6, 2, b'[', b']',
        ],
        // A writer that writes a response and panics, then the same reply answered.
        &[
            200, 0, 3, 4, 0, 6, 2, 0, 2, 2, 1, 2, b'{', b'}', 4, 0, 1, 0, 2, 2, 2, 2, b'[', b']',
        ],
        // Junk of two lines pushed, the reply answered with whitespace only.
        &[
            200, 0, 2, 5, 5, b'x', b'\n', b' ', b'1', b'2', 3, 4, 0, 4, 2, 0, 3,
        ],
        // Owed past the first word of handles (70), answered out of range, forgone, sealed.
        &[
            200, 1, 70, 5, 0, 4, 200, 1, 0, 2, 2, 9, 3, 5, 69, 6, 0, 4, 5, 3, 2, 1,
        ],
        // A bound of 2: three owed (the last refused); junk, blank and a panicking writer.
        &[
            2, 0, 0, 0, 2, 5, 5, b'x', b'\n', b' ', b'1', b'2', 2, 4, 3, b' ', b'\n', b'\t', 7, 0,
            2, 0, 1, 1, 3, 4, 0, 6, 2, 0, 2, 2, 3, 4, 0, 1, 0, 2, 2, 4, 5, 1, 5, 0,
        ],
        // Nothing owed, nothing pushed: sealed, done, no reply.
        &[200, 3, 3, 0, 5, 0],
        // Every reply forgone after a notification pushed: no reply.
        &[100, 0, 0, 2, 1, 1, 1, 3, b'l', b'o', b'g', 0, 3, 5, 0, 5, 1],
        // A response pushed, then a writer that writes one and panics, then sealed: the
        // array is the first alone.
        &[
            200, 2, 1, 0, 2, 2, 1, 2, b'{', b'}', 7, 0, 2, 2, 2, 2, b'[', b']', 3,
        ],
    ];
    for (i, p) in programs.iter().enumerate() {
        write("collector", &format!("hand-{i}"), p);
    }
    // MCP writer inputs: each writer reads its arguments off what the one before left (see
    // `fuzz_bodies::mcp_writers`); zeros past the end.
    let programs: &[&[u8]] = &[
        // A float id's empty result under a version that is no date; a request asking
        // progress with no params; an unsupported version's error to a string id.
        &[2, 1, 0, 6, 0, 3, 2, 3, 2, 0, 1, 4, 4, 2, 0, 2, 0, 0, 0, 1, 1, 2, 2, 1, 3, 2, 4, 0, 2, 10],
        // A result without resultType under 2026-07-28 (the member added first); a request
        // with a null id (BadId).
        &[0, 2, 5, 4, 3, 2, 0, 1, 1, 5, 10, 1, 0, 0, 4, 5, 1, 2, 3, 1, 2, 1, 2, 0, 0, 1],
        // A duplicated resultType under 2026-07-28 (BadResultType); a request whose params
        // are `{ }`.
        &[2, 1, 18, 3, 1, 1, 2, 20, 0, 0, 1, 4, 2, 0, 1, 1, 3, 1, 0, 1, 9, 2, 1, 2, 1, 11],
        // A result that is an array (NotAnObject); a method made of the input's bytes.
        b"\x00\x01\x00\x01\x0f{\"a\":[1,{\"b\":2}]}\x00\x00\x01\x01\x02\x01\x01\x01m\x04\x01\x1a{\"_meta\":{\"x\":\"\\u00e9\"},\"y\":\n1}",
        // An empty result spelt with a line break under 2026-07-28; an integer id past
        // `u64`.
        b"\x03\x05\"a\\n\"\x02\x07\x022026-07-28x\x01\x01\x03\x02\x03\x02\x02\x01\x0225\x03\x01\x00",
    ];
    for (i, p) in programs.iter().enumerate() {
        write("mcp_writers", &format!("hand-{i}"), p);
    }
    // MCP reader inputs: a config byte (role, validation, the server's versions, the
    // decoder's protocol version; see `fuzz_bodies::mcp_readers`), then one frame.
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}"#;
    let frames: Vec<(&str, u8, String)> = vec![
        // A 2026-07-28 request: client info, a log level and a progress token in `_meta`.
        (
            "request-2026-07-28",
            0x00,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t",{meta},"io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}},"io.modelcontextprotocol/logLevel":"warning","progressToken":"p1"}}}}}}"#
            ),
        ),
        // A 2025-11-25 task-augmented request with a progress token and a related task.
        (
            "request-2025-11-25",
            0x8a,
            r#"{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{"name":"t","task":{"ttl":60000},"_meta":{"progressToken":7,"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}}"#.to_string(),
        ),
        // An `initialize` to a server of 2026-07-28 alone.
        (
            "initialize",
            0x04,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.to_string(),
        ),
        // An `input_required` result, read by a client of 2026-07-28.
        (
            "input-required",
            0xa1,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m"}},"b":{"method":"roots/list"}},"requestState":"s\u00e9"}}"#.to_string(),
        ),
        // Its retry, answers and state.
        (
            "retry",
            0x02,
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"t","inputResponses":{{"a":{{"action":"accept"}},"b":{{"roots":[]}}}},"requestState":"s\u00e9",{meta}}}}}}}"#
            ),
        ),
        // A 2025-03-26 batch of a cancellation, a progress report, a task's status and a log
        // message.
        (
            "notifications",
            0x40,
            r#"[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"abc","reason":"user"}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":50,"total":100,"message":"half"}},{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"completed"}},{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"w\u0061rning","data":"d"}}]"#.to_string(),
        ),
        // A handshake's result that also offers versions, to a client of later versions.
        (
            "initialize-result",
            0x15,
            r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"},"instructions":"hi","supportedVersions":["2025-11-25","2026-07-28","2027-01-01"]}}"#.to_string(),
        ),
        // A `server/discover` result, its cache hint and the server's identity, to a client.
        (
            "discover",
            0x15,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"instructions":"i","ttlMs":60000,"cacheScope":"p\u0075blic","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#.to_string(),
        ),
        // A removed method under a version no server speaks, an escaped log level, a bad key.
        (
            "unsupported",
            0x04,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/logLevel":"\u0064ebug","bad key/":1}}}"#.to_string(),
        ),
    ];
    for (name, config, frame) in &frames {
        let mut d = vec![*config];
        d.extend_from_slice(frame.as_bytes());
        write("mcp_readers", name, &d);
    }
    // Header mirroring: a tool schema, a body and header lines, NUL-separated (see
    // `fuzz_bodies::headers`).
    let schemas: &[&str] = &[
        r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"opts":{"properties":{"limit":{"type":"integer","x-mcp-header":"Limit"}}},"dry":{"type":"boolean","x-mcp-header":"Dry"}}}"#,
        r#"{"properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]},"b":{"type":"number","x-mcp-header":"B"}}}"#,
        r#"{"properties":{"r":{"type":"string","x-mcp-header":"A"},"r":{"type":"string","x-mcp-header":"a"}}}"#,
        "{}",
    ];
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#;
    let bodies: Vec<String> = vec![
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"region":"caf\u00e9","opts":{{"limit":42}},"dry":true}},{meta}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"uri":"file:///a b","id":1,{meta}}}}}"#
        ),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"t","arguments":{{"region":"a","region":"b"}},{meta}}}}}"#
        ),
        // i64::MIN, whose magnitude no i64 holds (d4d096b).
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"t","arguments":{{"opts":{{"limit":-9223372036854775808}}}},{meta}}}}}"#
        ),
    ];
    let lines = "MCP-Protocol-Version:2026-07-28\nMcp-Method:tools/call\nMcp-Name:t\nMcp-Param-Region:=?base64?Y2Fmw6k=?=\nmcp-param-limit: 042 \nMcp-Param-Dry:true";
    for (i, schema) in schemas.iter().enumerate() {
        for (j, body) in bodies.iter().enumerate() {
            let data = [schema.as_bytes(), body.as_bytes(), lines.as_bytes()].join(&0u8);
            write("headers", &format!("hand-{i}-{j}"), &data);
        }
    }
}

proptest::proptest! {
    /// The pending-table body (`PendingTable` against a map of its requests) on random
    /// programs, shrinks among them.
    #[test]
    fn pending_body_on_random_programs(program in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
        fuzz_bodies::pending_model(&program);
    }

    /// The id-table body (`InFlight` and `IdRemapper` against models of their entries and
    /// id bytes) on random programs.
    #[test]
    fn tables_body_on_random_programs(program in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
        fuzz_bodies::tables_model(&program);
    }

    /// The framing body (read-by-read `decode` and `decode_chunk` against one-shot `Lines`)
    /// on generated streams: short and over-long lines, CRLF, blank lines, any read sizes.
    #[test]
    fn framing_body_on_generated_streams(
        lines in proptest::collection::vec("[ -~]{0,60}", 0..16),
        crlf in proptest::collection::vec(proptest::bool::ANY, 16),
        limit in 0u8..96,
        seed in proptest::num::u8::ANY,
        unterminated in proptest::bool::ANY,
    ) {
        let mut data = vec![limit, seed];
        for (i, line) in lines.iter().enumerate() {
            data.extend_from_slice(line.as_bytes());
            if !(unterminated && i + 1 == lines.len()) {
                data.extend_from_slice(if crlf[i] { b"\r\n" } else { b"\n" });
            }
        }
        fuzz_bodies::framing_chunks(&data);
    }
}

proptest::proptest! {
    /// The `decode_lines` body (one pass over long lines against `Lines` + `decode`) on
    /// generated streams: long lines of valid messages, cut, broken and joined anywhere.
    #[test]
    fn decode_lines_body_on_generated_streams(
        pieces in proptest::collection::vec(proptest::sample::select(vec![
            &br#"{"jsonrpc":"2.0","id":1,"result":{"b":"``","c":[1,{"d":null}]}}"#[..],
            br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`"}}"#,
            br#"{"jsonrpc":"2.0","id":"r","error":{"code":-32000,"message":"`","data":[~]}}"#,
            b"\n", b"\r\n", b"~", b"`", b"\"", b"\\", b"{", b"}", b"[", b"]", b",", b":",
            b"\xc3\xa9", b"\xff", b"\r", b"\t", b"\x01",
        ]), 1..12),
        config in proptest::num::u8::ANY,
    ) {
        let mut data = vec![config];
        for piece in pieces {
            data.extend_from_slice(piece);
        }
        fuzz_bodies::decode_lines(&data);
    }
}
