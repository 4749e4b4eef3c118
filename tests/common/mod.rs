//! Shared helpers for the integration tests: the conformance vectors (carried from the
//! project's shared vectors into `tests/data/` in a compact form) and an outcome classifier.
#![allow(dead_code)]

use bytes::BytesMut;
use rpcwire::{Decoder, Dialect, FrameError, LineFramer, Message, ReplyId};
use serde_json::Value;

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
        "E23" => {
            let mut v = b"{\"jsonrpc\":\"2.0\",\"id\":\"".to_vec();
            v.extend(std::iter::repeat_n(b'a', 65536));
            v.extend_from_slice(b"\",\"method\":\"ping\"}");
            v
        }
        // envelope (1) + params object (1) + 126 arrays = depth 128
        "F09" => {
            let mut v =
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":{\"a\":".to_vec();
            v.extend(std::iter::repeat_n(b'[', 126));
            v.extend(std::iter::repeat_n(b']', 126));
            v.extend_from_slice(b"}}");
            v
        }
        "F10" => {
            let mut v = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\",\"params\":".to_vec();
            v.extend(std::iter::repeat_n(b'[', 100_000));
            v
        }
        other => panic!("unknown generator {other}"),
    }
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
