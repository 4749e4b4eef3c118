//! Shared helpers for the integration tests: the conformance vectors (carried from the
//! project's shared vectors into `tests/data/` in a compact form), an outcome classifier, and
//! a budget of CPU time for work that must not be quadratic.
#![allow(dead_code)]

use std::time::Duration;

use bytes::BytesMut;
use rpcwire::{Decoder, Dialect, FrameError, LineFramer, Message, ReplyId};
use serde_json::Value;

// The property case counts' helper, shared with the library's and the CLI's unit tests.
#[path = "../../src/proptest_cases.rs"]
mod proptest_cases;

/// Runs `work` and checks that the calling thread spent less than `budget` of CPU time on it:
/// a guard against work quadratic in its input, which takes minutes where linear work takes
/// milliseconds or seconds. CPU time rather than wall time: a loaded machine (builds or fuzzers
/// on the same cores) can make the wall time three or four times as long, the CPU time hardly
/// longer. (Where the thread's CPU clock is not read here, wall time.)
#[track_caller]
pub fn within<T>(what: &str, budget: Duration, work: impl FnOnce() -> T) -> T {
    let start = thread_time();
    let out = work();
    let took = thread_time() - start;
    assert!(took < budget, "{what}: {took:?} ({THREAD_TIME})");
    out
}

#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
const THREAD_TIME: &str = "CPU time of the thread";

/// The CPU time the calling thread has used.
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn thread_time() -> Duration {
    use nix::time::{ClockId, clock_gettime};
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID)
        .unwrap()
        .into()
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
const THREAD_TIME: &str = "wall time";

/// The wall time since the first call.
#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn thread_time() -> Duration {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}

/// Loads a JSON-lines file from `tests/data/`.
pub fn load(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/data/{}", env!("CARGO_MANIFEST_DIR"), name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The input bytes of a vector (generated ones are built here from their description).
pub fn input(case: &Value) -> Vec<u8> {
    if let Some(h) = case["hex"].as_str() {
        return hex(h);
    }
    match case["gen"].as_str().unwrap() {
        "A17" => vec![b'a'; 16 << 20],
        "E23" => filled(
            b"{\"jsonrpc\":\"2.0\",\"id\":\"",
            b'a',
            65536,
            b"\",\"method\":\"ping\"}",
        ),
        // envelope (1) + params object (1) + 126 arrays = depth 128
        "F09" => {
            let mut v =
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"a\":".to_vec();
            v.extend(std::iter::repeat_n(b'[', 126));
            v.extend(std::iter::repeat_n(b']', 126));
            v.extend_from_slice(b"}}");
            v
        }
        "F10" => filled(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":",
            b'[',
            100_000,
            b"",
        ),
        other => panic!("unknown generator {other}"),
    }
}

/// `prefix`, `count` bytes `fill`, `suffix`. (Filled by `vec!`, one `memset`, which Miri runs
/// natively: `resize` and iterators fill byte by byte, which Miri interprets, 10 s for 64 KiB.)
fn filled(prefix: &[u8], fill: u8, count: usize, suffix: &[u8]) -> Vec<u8> {
    let mut v = vec![fill; prefix.len() + count + suffix.len()];
    v[..prefix.len()].copy_from_slice(prefix);
    v[prefix.len() + count..].copy_from_slice(suffix);
    v
}

/// What the codec made of one frame, in the vocabulary of the vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub class: String,
    pub id: Option<String>,
    pub method: Option<String>,
    pub raw_method: Option<Vec<u8>>,
    /// (code, reply id token or "<absent>")
    pub reply: Option<(i64, String)>,
    pub error_code: Option<i64>,
    pub params: Option<Vec<u8>>,
    pub elements: Vec<Outcome>,
}

fn reply_id(id: ReplyId<'_>) -> String {
    match id {
        ReplyId::Id(id) => String::from_utf8(id.raw().to_vec()).unwrap(),
        ReplyId::Null => "null".into(),
        ReplyId::Absent => "<absent>".into(),
    }
}

impl Outcome {
    pub fn of_class(class: &str) -> Outcome {
        Outcome {
            class: class.into(),
            id: None,
            method: None,
            raw_method: None,
            reply: None,
            error_code: None,
            params: None,
            elements: vec![],
        }
    }
}

pub fn outcome(decoder: &Decoder, frame: &[u8]) -> Outcome {
    let mut o = Outcome::of_class("");
    match decoder.decode(frame) {
        Ok(msg) => {
            o.class = msg.kind().as_str().to_string();
            o.id = msg
                .id()
                .map(|id| String::from_utf8(id.raw().to_vec()).unwrap());
            o.method = msg.method().map(|m| m.decode().into_owned());
            o.raw_method = msg.method().map(|m| m.raw().to_vec());
            o.params = msg.params().map(|p| p.as_bytes().to_vec());
            match msg {
                Message::ErrorResponse(e) => {
                    o.error_code = Some(e.error.code.get());
                    if e.id.is_none() {
                        o.id = Some("<absent>".into());
                    }
                }
                Message::Batch(b) => {
                    o.elements = b
                        .raw
                        .elements()
                        .map(|e| outcome(decoder, e.as_bytes()))
                        .collect();
                    if !o.elements.is_empty()
                        && o.elements.iter().all(|e| e.class.ends_with("_response"))
                    {
                        o.class = "batch_response".into();
                    }
                }
                _ => {}
            }
        }
        Err(rej) => {
            o.class = rej.kind_str().to_string();
            o.id = rej
                .id()
                .map(|id| String::from_utf8(id.raw().to_vec()).unwrap());
            o.reply = rej.reply().map(|r| (r.code.get(), reply_id(r.id)));
        }
    }
    o
}

/// Frames a byte stream delivered in `chunks` and classifies every item, blank lines as
/// `skip` and framing errors as `framing_error`.
pub fn stream_outcomes(decoder: &Decoder, chunks: &[&[u8]], max_frame: usize) -> Vec<Outcome> {
    let mut framer = LineFramer::new(max_frame).yield_blank_lines(true);
    let mut buf = BytesMut::new();
    let mut out = vec![];
    let push = |r: Result<Option<bytes::Bytes>, FrameError>, out: &mut Vec<Outcome>| match r {
        Ok(Some(frame)) if frame.iter().all(|b| b" \t\r\n".contains(b)) => {
            out.push(Outcome::of_class("skip"));
            true
        }
        Ok(Some(frame)) => {
            out.push(outcome(decoder, &frame));
            true
        }
        Ok(None) => false,
        Err(_) => {
            out.push(Outcome::of_class("framing_error"));
            true
        }
    };
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        while push(framer.decode(&mut buf), &mut out) {}
    }
    while push(framer.decode_eof(&mut buf), &mut out) {}
    out
}

pub fn decoder_for(dialect: &str, dir: &str) -> Decoder {
    let mut opts = rpcwire::DecodeOptions::new(match dialect {
        "mcp" => Dialect::Mcp,
        _ => Dialect::JsonRpc2,
    });
    if dir == "s2c" {
        opts.role = rpcwire::Role::Client;
    }
    Decoder::new(opts)
}

/// Frames `chunks`, read by read, then the end of the stream: every item in order. Nothing
/// is left in the buffer at the end.
pub fn frame_all<F: rpcwire::Framer>(
    framer: &mut F,
    chunks: &[&[u8]],
) -> Vec<Result<F::Frame, F::Error>> {
    let mut buf = bytes::BytesMut::new();
    let mut out = vec![];
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        out.extend(framer.frames(&mut buf, false));
    }
    out.extend(framer.frames(&mut buf, true));
    assert!(buf.is_empty());
    out
}

/// One line of every shape the `encode` (and `mcp`) writers write, each ending in its `\n`:
/// requests with and without params (a multi-line raw payload among them, whose line breaks
/// the writers make spaces), a notification, responses, errors (with and without an `id`), the
/// reply to a rejected frame, an id rewrite, a batch reply, cancellation and progress.
pub fn encoded_lines() -> Vec<Vec<u8>> {
    use rpcwire::{ErrorCode, Id, RawJson, encode, mcp};
    let id = |token: &'static [u8]| Id::from_token(token).unwrap();
    let raw = |json: &'static [u8]| RawJson::new(json).unwrap();
    let mut lines = vec![];
    let mut line = |write: &dyn Fn(&mut BytesMut)| {
        let mut out = BytesMut::new();
        write(&mut out);
        assert!(out.ends_with(b"\n"), "{out:?}");
        lines.push(out.to_vec());
    };
    line(&|out| {
        encode::write_request(
            out,
            id(b"1"),
            "tools/call",
            Some(raw(b"{\"name\":\r\n\"x\",\n\"arguments\":{}\r}")),
        )
    });
    line(&|out| encode::write_request(out, id(b"\"s-1\""), "ping", None));
    line(&|out| encode::write_notification(out, "notifications/initialized", None));
    line(&|out| encode::write_notification(out, "n", Some(raw(b"[1, \"a\\nb\"]"))));
    line(&|out| encode::write_response(out, id(b"2"), raw(b"{}")));
    line(&|out| encode::write_response(out, id(b"-3.5e2"), raw(b"{\n  \"tools\": []\n}")));
    line(&|out| {
        encode::write_error(
            out,
            id(b"4"),
            ErrorCode::METHOD_NOT_FOUND,
            "no \"such\"\nmethod",
            Some(raw(b"{\"m\":\"x\"}")),
        )
    });
    line(&|out| {
        encode::write_error(
            out,
            ReplyId::Absent,
            ErrorCode::INVALID_REQUEST,
            "Invalid Request",
            None,
        )
    });
    line(&|out| {
        let rejection = Decoder::mcp().decode(b"{oops").unwrap_err();
        encode::write_reply(out, &rejection.reply().unwrap(), None)
    });
    line(&|out| {
        let frame = br#"{"jsonrpc":"2.0","id":"client-7","method":"ping"}"#;
        let req = Decoder::mcp().decode(frame).unwrap();
        encode::write_with_id(out, frame, req.id().unwrap(), id(b"42"))
    });
    line(&|out| {
        let mut batch = encode::BatchReply::open(out);
        batch.push(|out| encode::write_response(out, id(b"1"), raw(b"7")));
        batch.push(|out| {
            encode::write_error(
                out,
                ReplyId::Null,
                ErrorCode::PARSE_ERROR,
                "Parse error",
                None,
            )
        });
        assert!(batch.close());
    });
    line(&|out| assert!(mcp::write_cancelled(out, id(b"7"), Some("timed out"))));
    line(&|out| {
        assert!(mcp::write_progress(
            out,
            id(b"\"p\""),
            0.5,
            Some(1.0),
            Some("half")
        ))
    });
    lines
}

/// Every line of [`encoded_lines`] as a frame writer may be given it, with its `\n`, without
/// it, and with `\r\n` instead, each paired with the message it carries: the line without
/// its end.
pub fn encoded_messages() -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut messages = vec![];
    for line in encoded_lines() {
        let body = line[..line.len() - 1].to_vec();
        let crlf = [&body[..], b"\r\n"].concat();
        messages.push((line, body.clone()));
        messages.push((body.clone(), body.clone()));
        messages.push((crlf, body));
    }
    messages
}

/// The message the frame writers are documented to write for `message`: without one `\n` or
/// `\r\n` at its very end (written apart from the crate's own `frame::without_line_end`).
pub fn written_message(message: &[u8]) -> &[u8] {
    if let Some(body) = message.strip_suffix(b"\r\n") {
        return body;
    }
    message.strip_suffix(b"\n").unwrap_or(message)
}

/// Asserts that `read` (which reads a stream fed in the given chunks) gives `expected` for
/// `stream` in one read, one byte at a time, and split in two at every position.
pub fn assert_any_split<T: PartialEq + std::fmt::Debug>(
    stream: &[u8],
    expected: &[T],
    read: impl Fn(&[&[u8]]) -> Vec<T>,
) {
    assert_eq!(read(&[stream]), expected, "one read of {stream:?}");
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(read(&bytes), expected, "1-byte reads of {stream:?}");
    for at in 0..=stream.len() {
        let (a, b) = stream.split_at(at);
        assert_eq!(read(&[a, b]), expected, "{stream:?} split at {at}");
    }
}

/// An `AsyncRead` that hands out `chunks` one read each (an empty one is skipped: a read of
/// nothing is the end of the stream), then ends: a stream split where a test wants it,
/// always ready, so a `FramedRead` over it needs no runtime.
pub struct Chunks(std::collections::VecDeque<Vec<u8>>);

impl Chunks {
    pub fn new(chunks: &[&[u8]]) -> Self {
        Chunks(
            chunks
                .iter()
                .filter(|c| !c.is_empty())
                .map(|c| c.to_vec())
                .collect(),
        )
    }
}

impl tokio::io::AsyncRead for Chunks {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        if let Some(mut chunk) = self.0.pop_front() {
            let n = chunk.len().min(buf.remaining());
            buf.put_slice(&chunk[..n]);
            if n < chunk.len() {
                self.0.push_front(chunk.split_off(n));
            }
        }
        std::task::Poll::Ready(Ok(()))
    }
}

/// Every item `codec` gives through a `FramedRead` over `chunks` until the stream ends (an
/// error is the last), each as `show` puts it, and the codec.
pub fn read_framed<C, T>(
    codec: C,
    chunks: &[&[u8]],
    mut show: impl FnMut(&C, Result<C::Item, C::Error>) -> T,
) -> (Vec<T>, C)
where
    C: tokio_util::codec::Decoder,
{
    use futures_util::{FutureExt, StreamExt};
    let mut frames = tokio_util::codec::FramedRead::new(Chunks::new(chunks), codec);
    let mut out = vec![];
    while let Some(item) = frames.next().now_or_never().expect("always ready") {
        out.push(show(frames.decoder(), item));
    }
    (out, frames.into_parts().codec)
}

/// An `io::Error` as a test compares it: its kind and its source's `Debug`.
pub fn io_error(err: &std::io::Error) -> String {
    format!("{:?} {:?}", err.kind(), err.get_ref())
}

/// A codec's item as a test compares it: a message's kind and frame, a rejection's reply
/// code, an over-long frame's offset and reply code.
#[cfg(feature = "tokio")]
pub fn show_incoming(item: &rpcwire::codec::Incoming) -> String {
    use rpcwire::codec::Incoming;
    match item {
        Incoming::Message(m) => format!(
            "{} {}",
            m.kind().as_str(),
            String::from_utf8_lossy(m.frame())
        ),
        Incoming::Rejected(r) => {
            format!("rejected {:?}", r.rejection().reply().map(|r| r.code.get()))
        }
        Incoming::TooLong {
            offset,
            length,
            reply,
            ..
        } => match length {
            Some(length) => format!(
                "too long at {offset}, {length} bytes ({})",
                reply.code.get()
            ),
            None => format!("too long at {offset} ({})", reply.code.get()),
        },
        Incoming::UnsupportedCharset { offset, reply } => {
            format!("unsupported charset at {offset} ({})", reply.code.get())
        }
        other => format!("{other:?}"),
    }
}

/// Each shape of `codec::Outgoing`, with the line it is written as (without its `\n`), the
/// kind that line decodes to, a decoder that reads it as one, and the message it reads.
#[cfg(feature = "tokio")]
pub fn outgoing_cases() -> Vec<(
    rpcwire::codec::Outgoing<'static>,
    &'static str,
    rpcwire::Kind,
    Decoder,
    rpcwire::OwnedMessage,
)> {
    use rpcwire::codec::Outgoing;
    use rpcwire::{ErrorCode, Id, Kind, RawJson};
    let id = Id::from_token(b"\"a\\u0062\"").unwrap();
    let params = RawJson::new(br#"{"x":[1,2]}"#).unwrap();
    let data = RawJson::new(br#""tools/frob""#).unwrap();
    let reply = Decoder::mcp()
        .decode(br#"{"jsonrpc":"2.0","id":3}"#)
        .unwrap_err()
        .reply()
        .unwrap();
    // Each message's line, spelled out: the id's token as it came (escapes and all), the
    // payloads spliced raw, a null id as JSON-RPC writes it, an absent one as MCP does (read
    // by a client).
    let cases = [
        (
            Outgoing::Request {
                id,
                method: "tools/call",
                params: Some(params),
            },
            r#"{"jsonrpc":"2.0","id":"a\u0062","method":"tools/call","params":{"x":[1,2]}}"#,
            Kind::Request,
            Decoder::jsonrpc(),
        ),
        (
            Outgoing::Notification {
                method: "n\u{e9}\"",
                params: None,
            },
            "{\"jsonrpc\":\"2.0\",\"method\":\"n\u{e9}\\\"\"}",
            Kind::Notification,
            Decoder::jsonrpc(),
        ),
        (
            Outgoing::Response { id, result: params },
            r#"{"jsonrpc":"2.0","id":"a\u0062","result":{"x":[1,2]}}"#,
            Kind::Response,
            Decoder::jsonrpc(),
        ),
        (
            Outgoing::Error {
                id: ReplyId::Id(id),
                code: ErrorCode::METHOD_NOT_FOUND,
                message: "Method not found",
                data: Some(data),
            },
            r#"{"jsonrpc":"2.0","id":"a\u0062","error":{"code":-32601,"message":"Method not found","data":"tools/frob"}}"#,
            Kind::ErrorResponse,
            Decoder::jsonrpc(),
        ),
        (
            Outgoing::Error {
                id: ReplyId::Null,
                code: ErrorCode::PARSE_ERROR,
                message: "Parse error",
                data: None,
            },
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            Kind::ErrorResponse,
            Decoder::jsonrpc(),
        ),
        (
            Outgoing::Error {
                id: ReplyId::Absent,
                code: ErrorCode::INVALID_REQUEST,
                message: "Invalid Request",
                data: None,
            },
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}"#,
            Kind::ErrorResponse,
            Decoder::mcp_client(),
        ),
        (
            Outgoing::Reply(reply),
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request"}}"#,
            Kind::ErrorResponse,
            Decoder::jsonrpc(),
        ),
    ];
    cases
        .into_iter()
        .map(|(msg, line, kind, decoder)| {
            let received =
                rpcwire::OwnedMessage::decode(&decoder, bytes::Bytes::from(line)).unwrap();
            (msg, line, kind, decoder, received)
        })
        .collect()
}

/// `input` cut at the given places (each an index into `0..=input.len()`), in order.
pub fn pieces<'a>(input: &'a [u8], cuts: &[proptest::sample::Index]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut chunks = vec![];
    let mut from = 0;
    for cut in cuts.into_iter().chain([input.len()]) {
        chunks.push(&input[from..cut]);
        from = cut;
    }
    chunks
}

/// Bytes that make SSE streams of every sort, for property tests of the SSE framer and codec:
/// fields, comments, the three line ends, NULs and byte order marks (whole and cut), a
/// message's data and an event type other than `message`.
pub fn sse_stream_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::strategy::Strategy as _;
    let tokens = proptest::sample::select(vec![
        &b"data"[..],
        b"data: ",
        b"id",
        b"event",
        b"retry",
        b":",
        b" ",
        b"\r",
        b"\n",
        b"\r\n",
        b"\n\n",
        b"\0",
        b"x",
        b"7",
        b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        b"\xEF\xBB\xBF",
        b"\xEF",
        b"\xBB\xBF",
        b"message",
        b"endpoint",
        br#"{"jsonrpc":"2.0","method":"m"}"#,
    ]);
    proptest::collection::vec(tokens, 0..50).prop_map(|t| t.concat())
}

/// Bytes that make `Content-Length` streams of every sort, for property tests of its framer
/// and codec: headers well and badly spelt, charsets, signs, the three line ends, and bodies,
/// among them a message of 30 bytes that `Content-Length: 30` frames whole.
pub fn content_length_stream_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::strategy::Strategy as _;
    let tokens = proptest::sample::select(vec![
        &b"Content-Length: 2\r\n"[..],
        b"content-length:0\r\n",
        b"Content-Length: 12\r\n",
        b"Content-Length: 30\r\n",
        b"Content-Type: x\r\n",
        b"Content-Type: a/b; charset=latin1\r\n",
        b"Content-Type: a/b;charset=\"utf-8\"\r\n",
        b"charset=",
        b";",
        b"\"",
        b"Content-Length",
        b":",
        b" ",
        b"\t",
        b"+",
        b"-",
        b"1",
        b"0",
        b"\r",
        b"\n",
        b"\r\n",
        b"\r\n\r\n",
        b"{}",
        b"xxxxxxxxxxxx",
        br#"{"jsonrpc":"2.0","method":"m"}"#,
    ]);
    proptest::collection::vec(tokens, 0..30).prop_map(|t| t.concat())
}

/// An object nested `depth` levels deep, objects and arrays alternating, with brackets inside
/// a string at the bottom (which a depth count must not read as nesting).
pub fn nested(depth: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for level in 0..depth {
        v.extend_from_slice(if level % 2 == 1 { b"[" } else { b"{\"k\":" });
    }
    v.extend_from_slice(b"\"[[{{\"");
    for level in (0..depth).rev() {
        v.push(if level % 2 == 1 { b']' } else { b'}' });
    }
    v
}

/// The proptest configuration of a property: `cases` cases, or as many as `PROPTEST_CASES`
/// says when it is set, for a longer run (`PROPTEST_CASES=100000 cargo test --release --test
/// remap_model`): the library's unit tests' helper.
pub fn cases(cases: u32) -> proptest::test_runner::Config {
    proptest_cases::cases(cases)
}
