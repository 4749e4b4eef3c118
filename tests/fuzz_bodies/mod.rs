//! The bodies of the fuzz targets, as plain functions over `&[u8]`.
//!
//! `fuzz/fuzz_targets/<target>.rs` includes this file with `#[path]` and calls one function;
//! `tests/fuzz_corpus.rs` calls the same functions on every file of `fuzz/corpus/<target>/`
//! and `fuzz/regressions/<target>/`, so a plain `cargo test` covers the corpora without
//! nightly. Every body panics (with an assertion message) on a finding and never otherwise.
#![allow(dead_code)]

pub mod collector;
pub mod json;
pub mod mcp_readers;
pub mod mcp_writers;
#[path = "../reference/mod.rs"]
pub mod reference;

use bytes::{Bytes, BytesMut};
use rpcwire::scan::{self, Validation};
use rpcwire::{
    DecodeOptions, DecodedLine, Decoder, Dialect, ErrorCode, FrameError, Framer, Id, IdBuf, Limits,
    LineFramer, Lines, Message, OwnedMessage, RawJson, ReplyId, Role, encode,
};
use serde_json::value::RawValue;

/// A fuzz target: its name and its body.
pub type Target = (&'static str, fn(&[u8]));

/// The targets, by name, for the corpus replay.
pub const TARGETS: &[Target] = &[
    ("decode", decode),
    ("framing_chunks", framing_chunks),
    ("differential", differential),
    ("roundtrip", roundtrip),
    ("scan", scan),
    ("sse_chunks", sse_chunks),
    ("content_length_chunks", content_length_chunks),
    ("pending_model", pending_model),
    ("decode_lines", decode_lines),
    ("tables_model", tables_model),
    ("headers", headers),
    ("batch", batch),
    ("json", json::json),
    ("collector", collector::collector),
    ("mcp_writers", mcp_writers::mcp_writers),
    ("mcp_readers", mcp_readers::mcp_readers),
];

fn decoder(dialect: Dialect, role: Role, validation: Validation) -> Decoder {
    let mut opts = DecodeOptions::new(dialect);
    opts.role = role;
    opts.validation = validation;
    Decoder::new(opts)
}

const CONFIGS: [(Dialect, Role); 4] = [
    (Dialect::JsonRpc2, Role::Server),
    (Dialect::JsonRpc2, Role::Client),
    (Dialect::Mcp, Role::Server),
    (Dialect::Mcp, Role::Client),
];

/// `raw` with the line breaks the encoder turns into spaces.
fn spaced(raw: &[u8]) -> Vec<u8> {
    raw.iter()
        .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
        .collect()
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

// ------------------------------------------------------------------------------- decode

/// Decodes `data` as one frame in both dialects, both roles and both validation modes; checks
/// that whatever comes back is self-consistent.
pub fn decode(data: &[u8]) {
    for (dialect, role) in CONFIGS {
        let strict = check_decode(&decoder(dialect, role, Validation::Strict), data);
        let lazy = check_decode(&decoder(dialect, role, Validation::Lazy), data);
        // Strict is lazy plus the payload grammar: any outcome other than a parse error must be
        // the same in both modes.
        if strict.kind != "parse_error" {
            assert_eq!(
                strict, lazy,
                "{dialect:?}/{role:?}: strict and lazy disagree"
            );
        }
    }
}

/// Decodes `frame` and checks the result's internal consistency; returns its outcome.
fn check_decode(dec: &Decoder, frame: &[u8]) -> reference::Outcome {
    let opts = *dec.options();
    let mcp = opts.dialect == Dialect::Mcp;
    // `observe` asserts that every span lies inside the frame.
    let outcome = reference::observe(dec, frame);
    let owned = OwnedMessage::decode(dec, Bytes::copy_from_slice(frame));
    match dec.decode(frame) {
        Ok(msg) => {
            let owned = owned.expect("owned decode must agree with borrowed decode");
            assert_eq!(format!("{:?}", owned.message()), format!("{msg:?}"));
            assert_eq!(dec.parse_error_offset(frame), None);
            assert_eq!(owned.kind(), msg.kind());
            if let Some(id) = msg.id() {
                let again = Id::from_token(id.raw()).expect("an id is a valid standalone token");
                assert_eq!(again.kind(), id.kind());
                assert!(id.raw().len() <= opts.limits.max_id_len);
                if mcp {
                    assert!(
                        matches!(
                            id.kind(),
                            rpcwire::IdKind::String { .. } | rpcwire::IdKind::Integer
                        ) || (id.is_null() && msg.kind() == rpcwire::Kind::ErrorResponse),
                        "MCP id of kind {:?}",
                        id.kind()
                    );
                }
            }
            if let Some(m) = msg.method() {
                let (start, end) = span(frame, m.raw());
                assert_eq!(frame[start - 1], b'"');
                assert_eq!(scan::string_end(frame, start).map(|e| e.0), Ok(end));
                assert!(m.raw().len() <= opts.limits.max_method_len);
                // What a log line shows is the decoded method.
                assert_eq!(m.to_string(), m.decode());
            }
            let payload = match msg {
                Message::Request(r) => r.params,
                Message::Notification(n) => n.params,
                Message::Response(r) => Some(r.result),
                Message::ErrorResponse(e) => {
                    assert_eq!(e.error.message.to_string(), e.error.message.decode());
                    let shown = e.error.to_string();
                    assert!(shown.starts_with(&e.error.code.to_string()), "{shown}");
                    e.error.data
                }
                Message::Batch(b) => {
                    assert!(opts.batches, "a batch where batches are not allowed");
                    let mut n = 0;
                    for element in b.raw.elements() {
                        check_decode(dec, element.as_bytes());
                        n += 1;
                    }
                    assert!(n > 0, "an empty batch is not a batch");
                    Some(b.raw)
                }
            };
            if let Some(p) = payload {
                assert_eq!(RawJson::new(p.as_bytes()), Some(p), "payload not one value");
                if opts.validation == Validation::Strict {
                    let b = p.as_bytes();
                    assert_eq!(
                        scan::skip_value(b, 0, 0, u32::MAX, Validation::Strict),
                        Ok(b.len())
                    );
                }
            }
            match msg {
                Message::Request(r) => {
                    assert!(r.params.is_none_or(|p| p.as_bytes()[0] == b'{' || !mcp));
                    check_request_rewrites(dec, frame, &msg);
                }
                Message::Notification(n) => {
                    assert!(n.params.is_none_or(|p| p.as_bytes()[0] == b'{' || !mcp));
                }
                Message::Response(r) => {
                    // JSON-RPC: a null id answers a request whose id was null (§5).
                    assert!(!r.id.is_null() || !mcp);
                    assert!(r.result.as_bytes()[0] == b'{' || !mcp);
                }
                Message::ErrorResponse(e) => assert!(e.id.is_some() || mcp),
                Message::Batch(_) => {}
            }
        }
        Err(rej) => {
            let owned = owned.expect_err("owned decode must agree with borrowed decode");
            assert_eq!(format!("{:?}", owned.rejection()), format!("{rej:?}"));
            assert_eq!(owned.to_string(), rej.to_string());
            let error = rej.error();
            if error.is_parse_error() {
                assert!(rej.id().is_none() && !rej.is_response());
            }
            // Where it stops being JSON: for a parse error only, within the frame.
            let at = dec.parse_error_offset(frame);
            assert_eq!(at.is_some(), error.is_parse_error(), "{error:?} at {at:?}");
            assert!(at.is_none_or(|at| at <= frame.len()));
            match rej.reply() {
                None => assert!(rej.is_response()),
                Some(reply) => {
                    assert!(!rej.is_response());
                    assert_eq!(reply.code, error.code());
                    let expected = match rej.id() {
                        Some(id) if !error.is_parse_error() => ReplyId::Id(id),
                        _ => opts.unreadable_id,
                    };
                    assert_eq!(reply.id, expected);
                    check_reply_encodes(opts.dialect, &reply);
                }
            }
            if let Some(id) = rej.id() {
                assert_eq!(Id::from_token(id.raw()).map(|i| i.kind()), Some(id.kind()));
            }
        }
    }
    outcome
}

/// The error reply the codec builds must itself be a valid error response in the dialect.
fn check_reply_encodes(dialect: Dialect, reply: &rpcwire::Reply<'_>) {
    let mut out = BytesMut::new();
    encode::write_reply(&mut out, reply, None);
    assert_eq!(memchr_count(&out), 1, "one line");
    let line = &out[..out.len() - 1];
    let dec = decoder(dialect, Role::Client, Validation::Strict);
    match dec.decode(line) {
        Ok(Message::ErrorResponse(e)) => {
            assert_eq!(e.error.code, reply.code);
            assert_eq!(e.id.map(|i| i.raw()), reply.id.token());
        }
        other => panic!(
            "reply {:?} decodes as {other:?}",
            String::from_utf8_lossy(line)
        ),
    }
}

/// A request's id can be answered and rewritten (the proxy's two paths).
fn check_request_rewrites(dec: &Decoder, frame: &[u8], msg: &Message<'_>) {
    let id = msg.id().unwrap();
    let mut out = BytesMut::new();
    encode::write_response(&mut out, id, RawJson::new(b"{}").unwrap());
    let line = &out[..out.len() - 1];
    let client = decoder(dec.options().dialect, Role::Client, Validation::Strict);
    match client.decode(line) {
        Ok(Message::Response(r)) => assert_eq!(r.id.raw(), id.raw()),
        other => panic!("response to a request decodes as {other:?}"),
    }

    let new_id = IdBuf::from_i64(42);
    let mut out = BytesMut::new();
    encode::write_with_id(&mut out, frame, id, new_id.as_id());
    assert_eq!(memchr_count(&out), 1, "one line");
    let line = &out[..out.len() - 1];
    match dec.decode(line) {
        Ok(Message::Request(r)) => {
            assert_eq!(r.id.raw(), b"42");
            assert_eq!(r.method.raw(), msg.method().unwrap().raw());
            assert_eq!(
                r.params.map(|p| p.as_bytes().to_vec()),
                msg.params().map(|p| spaced(p.as_bytes()))
            );
        }
        other => panic!(
            "rewritten request {:?} decodes as {other:?}",
            String::from_utf8_lossy(line)
        ),
    }
}

fn memchr_count(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

fn span(frame: &[u8], part: &[u8]) -> (usize, usize) {
    let start = (part.as_ptr() as usize)
        .checked_sub(frame.as_ptr() as usize)
        .expect("part starts before the frame");
    assert!(
        start + part.len() <= frame.len(),
        "part ends after the frame"
    );
    (start, start + part.len())
}

// ----------------------------------------------------------------------- framing_chunks

/// A framed item: `(stream offset, frame)` or an error.
type Item = Result<(u64, Vec<u8>), FrameError>;

/// `data[0]` picks a small frame limit, `data[1]` seeds the chunk sizes, the rest is the
/// stream. Framing it with [`LineFramer`] chunk by chunk must give exactly what one-shot
/// [`Lines`] gives, and the framer must never hold more than the limit plus a little.
pub fn framing_chunks(data: &[u8]) {
    let [limit, seed, input @ ..] = data else {
        return;
    };
    let max_frame = 1 + *limit as usize % 96;
    let expected: Vec<Item> = Lines::new(input, max_frame)
        .map(|r| r.map(|(offset, frame)| (offset as u64, frame.to_vec())))
        .collect();

    let mut framer = LineFramer::new(max_frame);
    let mut buf = BytesMut::new();
    let mut got: Vec<Item> = Vec::new();
    Chunks::new(*seed, input.len()).feed(input, &mut buf, |buf, pos| {
        loop {
            match framer.decode(buf) {
                Ok(Some(frame)) => got.push(Ok((framer.last_offset(), frame.to_vec()))),
                Ok(None) => break,
                Err(e) => got.push(Err(e)),
            }
        }
        // Nothing is buffered beyond one frame and its terminator.
        assert!(buf.len() <= max_frame + 1, "buffered {} bytes", buf.len());
        assert_eq!(framer.consumed() + buf.len() as u64, pos as u64);
    });
    loop {
        match framer.decode_eof(&mut buf) {
            Ok(Some(frame)) => got.push(Ok((framer.last_offset(), frame.to_vec()))),
            Ok(None) => break,
            Err(e) => got.push(Err(e)),
        }
    }
    assert!(buf.is_empty());
    assert_eq!(
        got, expected,
        "chunked framing differs from one-shot framing"
    );
    for (_, frame) in got.iter().flatten() {
        assert!(frame.len() <= max_frame && !frame.contains(&b'\n'));
        assert!(!frame.iter().all(|&b| is_ws(b)), "blank frame handed out");
    }
    assert_eq!(
        chunk_framing(input, max_frame, *seed),
        expected,
        "chunk framing differs from one-shot framing"
    );
}

/// `LineFramer::decode_chunk` over random reads, each chunk framed with `Lines`.
fn chunk_framing(input: &[u8], max_frame: usize, seed: u8) -> Vec<Item> {
    let mut framer = LineFramer::new(max_frame);
    let mut buf = BytesMut::new();
    let mut got: Vec<Item> = Vec::new();
    let take = |got: &mut Vec<Item>, framer: &LineFramer, chunk: Bytes| {
        for r in Lines::new(&chunk, max_frame) {
            got.push(match r {
                Ok((at, frame)) => Ok((framer.last_offset() + at as u64, frame.to_vec())),
                Err(FrameError::TooLong { offset, limit }) => Err(FrameError::TooLong {
                    offset: framer.last_offset() + offset,
                    limit,
                }),
                Err(e) => Err(e),
            });
        }
    };
    let reads = Chunks::new(seed, input.len()).up_to(200);
    reads.feed(input, &mut buf, |buf, pos| {
        loop {
            match framer.decode_chunk(buf) {
                Ok(Some(chunk)) => {
                    assert_eq!(chunk.last(), Some(&b'\n'), "a chunk ends with a newline");
                    take(&mut got, &framer, chunk);
                }
                Ok(None) => break,
                Err(e) => got.push(Err(e)),
            }
        }
        // What stays buffered is one unfinished line, within the limit.
        assert!(!buf.contains(&b'\n') && buf.len() <= max_frame + 1);
        assert_eq!(framer.consumed() + buf.len() as u64, pos as u64);
    });
    loop {
        match framer.decode_chunk_eof(&mut buf) {
            Ok(Some(chunk)) => take(&mut got, &framer, chunk),
            Ok(None) => break,
            Err(e) => got.push(Err(e)),
        }
    }
    assert!(buf.is_empty());
    got
}

// ------------------------------------------------------------------------- differential

/// The decoder against the reference classifier: strict mode always, lazy mode when serde_json
/// accepts the frame; both dialects, both roles, batches allowed or not (MCP 2025-03-26 has
/// them).
pub fn differential(data: &[u8]) {
    let json = reference::is_json(data);
    for (dialect, role) in CONFIGS {
        for batches in [false, true] {
            let expected = reference::classify_with_batches(data, dialect, role, batches);
            for validation in [Validation::Strict, Validation::Lazy] {
                if validation == Validation::Lazy && !json {
                    continue;
                }
                let options = *decoder(dialect, role, validation).options();
                let decoder = Decoder::new(DecodeOptions { batches, ..options });
                let got = reference::observe(&decoder, data);
                assert_eq!(
                    got,
                    expected,
                    "{dialect:?}/{role:?}/{validation:?}/batches {batches} on {:?}",
                    String::from_utf8_lossy(data)
                );
                // Strict mode reads every token: where the frame stops being JSON is where
                // the grammar's recogniser says.
                if validation == Validation::Strict {
                    assert_eq!(
                        decoder.parse_error_offset(data),
                        reference::json_prefix::parse_error_offset(data, reference::MAX_DEPTH),
                        "{dialect:?}/{role:?}/batches {batches} on {:?}",
                        String::from_utf8_lossy(data)
                    );
                }
            }
        }
    }
}

// -------------------------------------------------------------------------------- batch

/// `data` as a batch: as it is when it opens an array, else inside `[` and `]`, so that the
/// fuzzer's mutations reach the elements rather than stop at the top level.
pub fn as_batch(data: &[u8]) -> Vec<u8> {
    if data.first() == Some(&b'[') {
        return data.to_vec();
    }
    [&b"["[..], data, b"]"].concat()
}

/// A batch's elements against the reference classifier (`classify_batch_elements`): both
/// dialects, both roles, batches allowed, strict and lazy mode. Where the decoder gives a
/// batch, each element of `Batch::decode` is what the reference says (lazy mode: only on
/// frames serde_json accepts, as in [`differential`]), `batch::expects_reply` agrees with the
/// elements, and the reply a server writes with `BatchReply` holds one answer per request and
/// per answered rejection, in order (see [`check_batch_reply`]).
pub fn batch(data: &[u8]) {
    let frame = as_batch(data);
    let json = reference::is_json(&frame);
    for (dialect, role) in CONFIGS {
        let expected = reference::classify_with_batches(&frame, dialect, role, true);
        let expected_elements = reference::classify_batch_elements(&frame, dialect, role);
        for validation in [Validation::Strict, Validation::Lazy] {
            // Lazy mode skips payloads without reading their grammar, so on a frame that is
            // not JSON the reference has nothing to say; the batch is still checked for what
            // holds in any mode (its elements decode, the reply answers them).
            let compared = validation == Validation::Strict || json;
            let options = *decoder(dialect, role, validation).options();
            let decoder = Decoder::new(DecodeOptions {
                batches: true,
                ..options
            });
            let shown = String::from_utf8_lossy(&frame);
            let what = format!("{dialect:?}/{role:?}/{validation:?} on {shown:?}");
            if compared {
                assert_eq!(reference::observe(&decoder, &frame), expected, "{what}");
            }
            let Ok(Message::Batch(batch)) = decoder.decode(&frame) else {
                continue;
            };
            let elements: Vec<_> = batch.decode(&decoder).collect();
            let got: Vec<_> = elements
                .iter()
                .map(|e| reference::outcome_of(&frame, e))
                .collect();
            if compared {
                let expected_elements = expected_elements
                    .as_deref()
                    .expect("the reference classifies a batch's elements");
                assert_eq!(got, expected_elements, "elements, {what}");
            }
            let expects = reference::expects_reply(&got);
            assert_eq!(
                rpcwire::batch::expects_reply(&elements),
                expects,
                "expects_reply of the collected elements, {what}"
            );
            assert_eq!(
                rpcwire::batch::expects_reply(batch.decode(&decoder)),
                expects,
                "expects_reply of the elements as decoded, {what}"
            );
            let reply = BatchAnswers {
                dialect,
                echo_params: compared,
                what: &what,
            };
            reply.check(&elements, expects);
        }
    }
}

/// One answer a batch's reply owes: the id it carries (as spelled; `None` when left out), and
/// either the result of a success response or the code of an error.
#[derive(Debug, PartialEq, Eq)]
struct Owed {
    id: Option<Vec<u8>>,
    answer: Result<Vec<u8>, i64>,
}

/// How [`BatchAnswers::check`] answers a batch, and what a failure names.
struct BatchAnswers<'w> {
    /// The batch's dialect, whose client reads the reply.
    dialect: Dialect,
    /// Whether a JSON-RPC request's `params` can be sent back as its result: only when the
    /// frame is known to be JSON (lazy mode does not read a payload's grammar).
    echo_params: bool,
    /// The configuration and the frame, for failure messages.
    what: &'w str,
}

impl BatchAnswers<'_> {
    /// Answers `elements` as a server would, through `BatchReply`: each request with a result
    /// (in JSON-RPC its `params` when they may be echoed, else `{}`, the result every MCP
    /// client accepts), each rejection owed a reply with its `reply()`, nothing else. When
    /// nothing expects a reply nothing is written; otherwise one line, a batch whose
    /// elements, decoded by a client of the same dialect, are the owed answers in order. (The
    /// dialect's own client: MCP answers an element whose id cannot be read without an `id`,
    /// which JSON-RPC requires of an error response.)
    fn check(&self, elements: &[Result<Message<'_>, rpcwire::Rejection<'_>>], expects: bool) {
        let (dialect, what) = (self.dialect, self.what);
        let mut out = BytesMut::new();
        let mut owed = Vec::new();
        let mut reply = encode::BatchReply::open(&mut out);
        for element in elements {
            match element {
                Ok(Message::Request(request)) => {
                    let result = match (dialect, request.params) {
                        (Dialect::JsonRpc2, Some(params)) if self.echo_params => params,
                        _ => RawJson::EMPTY_OBJECT,
                    };
                    reply.push(|out| encode::write_response(out, request.id, result));
                    owed.push(Owed {
                        id: Some(request.id.raw().to_vec()),
                        answer: Ok(spaced(result.as_bytes())),
                    });
                }
                Ok(_) => {}
                Err(rejection) => {
                    if let Some(error) = rejection.reply() {
                        reply.push(|out| encode::write_reply(out, &error, None));
                        owed.push(Owed {
                            id: error.id.token().map(<[u8]>::to_vec),
                            answer: Err(error.code.get()),
                        });
                    }
                }
            }
        }
        assert_eq!(reply.len(), owed.len(), "one element per answer, {what}");
        let written = reply.close();
        assert_eq!(written, expects, "close() against expects_reply, {what}");
        if !written {
            assert!(out.is_empty(), "a batch owed nothing wrote {out:?}, {what}");
            return;
        }
        assert_eq!(memchr_count(&out), 1, "the reply is one line, {what}");
        let line = &out[..out.len() - 1];
        let client = Decoder::new(DecodeOptions {
            batches: true,
            ..*decoder(dialect, Role::Client, Validation::Strict).options()
        });
        let shown = String::from_utf8_lossy(line);
        let Ok(Message::Batch(replies)) = client.decode(line) else {
            panic!("the reply {shown:?} is not a batch, {what}");
        };
        let answered: Vec<Owed> = replies
            .decode(&client)
            .map(|element| match element {
                Ok(Message::Response(r)) => Owed {
                    id: Some(r.id.raw().to_vec()),
                    answer: Ok(r.result.as_bytes().to_vec()),
                },
                Ok(Message::ErrorResponse(e)) => Owed {
                    id: e.id.map(|id| id.raw().to_vec()),
                    answer: Err(e.error.code.get()),
                },
                other => panic!("{other:?} in the reply {shown:?}, {what}"),
            })
            .collect();
        assert_eq!(answered, owed, "the reply {shown:?}, {what}");
    }
}

// ---------------------------------------------------------------------------- roundtrip

/// Reads building blocks off the fuzz input; past its end, zeros.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let (a, b) = self.0.split_at(n.min(self.0.len()));
        self.0 = b;
        a
    }

    fn i64(&mut self) -> i64 {
        let mut b = [0u8; 8];
        b.iter_mut().for_each(|x| *x = self.byte());
        i64::from_le_bytes(b)
    }

    /// Up to 47 bytes, as they come.
    fn bytes(&mut self) -> &'a [u8] {
        let n = self.byte() as usize % 48;
        self.take(n)
    }

    /// Up to 47 bytes as text, each invalid sequence as U+FFFD.
    fn string(&mut self) -> String {
        String::from_utf8_lossy(self.bytes()).into_owned()
    }

    /// An id's token, valid for both dialects: an i64, a string, or a small number.
    fn id_token(&mut self) -> Vec<u8> {
        match self.byte() % 3 {
            0 => IdBuf::from_i64(self.i64()).as_id().raw().to_vec(),
            1 => {
                let mut b = BytesMut::new();
                encode::write_json_string(&mut b, &self.string());
                b.to_vec()
            }
            _ => (self.byte() as u64).to_string().into_bytes(),
        }
    }

    /// The arguments of a `JsonStr::from_raw`: any bytes, and a `has_escapes` flag that is
    /// mostly what the bytes say (the function's contract) and sometimes not.
    fn json_str_parts(&mut self) -> (&'a [u8], bool) {
        let raw = self.bytes();
        let has_escapes = match self.byte() % 4 {
            0 => true,
            1 => false,
            _ => raw.contains(&b'\\'),
        };
        (raw, has_escapes)
    }

    /// A JSON value three times in four, else none.
    fn payload(&mut self) -> Option<Vec<u8>> {
        let value = self.json();
        (!self.byte().is_multiple_of(4)).then_some(value)
    }

    /// A valid JSON value: a slice of the input when serde_json accepts it, else a sample.
    fn json(&mut self) -> Vec<u8> {
        const SAMPLES: [&[u8]; 8] = [
            b"{}",
            b"[]",
            b"{\"a\":[1,2,{\"b\":null}],\"c\":\"\\u00e9\"}",
            b"\"text\"",
            b"-1.5e3",
            b"{\"resultType\":\"complete\"}",
            b"{ \"x\" :\n [ true ,\r\n false ] }",
            b"[{\"k\":\"\\ud800\"}]",
        ];
        let n = self.byte() as usize;
        let candidate = self.take(n % 64);
        if reference::is_json(candidate) && reference::depth(candidate) < 100 {
            let raw: &RawValue = serde_json::from_slice(candidate).unwrap();
            return raw.get().as_bytes().to_vec();
        }
        SAMPLES[n % SAMPLES.len()].to_vec()
    }
}

/// Drives the writers of `encode` from the input, one after the other on what is left of it:
/// one message ([`check_one_message`]), a -32601 reply to a method given as any bytes
/// ([`check_method_not_found`]), and a batch reply of pushes that write zero, one or two
/// messages each ([`check_batch_of_pushes`]).
pub fn roundtrip(data: &[u8]) {
    let mut input = Input(data);
    check_one_message(&mut input);
    check_method_not_found(&mut input);
    check_batch_of_pushes(&mut input);
}

/// Builds a message from the input with `encode::write_*`, decodes it, and compares fields.
fn check_one_message(input: &mut Input<'_>) {
    let shape = input.byte() % 4;
    let id_token = input.id_token();
    let id = Id::from_token(&id_token).expect("an encoded id is a valid token");
    let method = input.string();
    let payload = input.json();
    let with_payload = !input.byte().is_multiple_of(4);
    let message = input.string();
    let code = input.i64();
    let reply_id = match input.byte() % 3 {
        0 => ReplyId::Null,
        1 => ReplyId::Absent,
        _ => ReplyId::Id(id),
    };
    let raw = RawJson::new(&payload).expect("valid JSON is a RawJson");
    let opt = with_payload.then_some(raw);

    let mut out = BytesMut::new();
    let kind = match shape {
        0 => {
            encode::write_request(&mut out, id, &method, opt);
            "request"
        }
        1 => {
            encode::write_notification(&mut out, &method, opt);
            "notification"
        }
        2 => {
            encode::write_response(&mut out, id, raw);
            "success_response"
        }
        _ => {
            encode::write_error(&mut out, reply_id, ErrorCode(code), &message, opt);
            "error_response"
        }
    };
    assert_eq!(memchr_count(&out), 1, "exactly one line");
    assert_eq!(out.last(), Some(&b'\n'));
    let frame = &out[..out.len() - 1];
    // The line's writers for the other framings take it as it is, and their framers give the
    // same frame back.
    let mut sse = BytesMut::new();
    rpcwire::write_sse_event(&mut sse, &out, Some(&method), None).unwrap_or_else(|_| {
        assert!(method.contains(['\n', '\r', '\0']), "a valid id refused");
        rpcwire::write_sse_event(&mut sse, &out, None, None).expect("no id, no event type");
    });
    let event = rpcwire::SseFramer::new(sse.len()).decode(&mut sse);
    assert_eq!(event.unwrap().expect("one event").data, frame);
    let mut content_length = BytesMut::new();
    rpcwire::write_content_length_frame(&mut content_length, &out);
    let framed = rpcwire::ContentLengthFramer::new(frame.len()).decode(&mut content_length);
    assert_eq!(framed.unwrap().expect("one frame"), frame);
    assert!(sse.is_empty() && content_length.is_empty());

    for (dialect, role) in CONFIGS {
        let mcp = dialect == Dialect::Mcp;
        let dec = decoder(dialect, role, Validation::Strict);
        let outcome = reference::observe(&dec, frame);
        // The shape rules the encoder does not enforce.
        let allowed = match shape {
            0 | 1 => !with_payload || payload[0] == b'{' || (payload[0] == b'[' && !mcp),
            2 => !mcp || reference::classify(frame, dialect, role).kind == kind,
            _ => match reply_id {
                ReplyId::Absent => mcp,
                ReplyId::Null | ReplyId::Id(_) => true,
            },
        };
        if !allowed {
            assert_ne!(outcome.kind, kind, "{:?}", String::from_utf8_lossy(frame));
            continue;
        }
        assert_eq!(
            outcome.kind,
            kind,
            "{dialect:?}: {:?}",
            String::from_utf8_lossy(frame)
        );
        let msg = dec.decode(frame).unwrap();
        match msg {
            Message::Request(r) => {
                assert_eq!(r.id.raw(), &id_token[..]);
                assert_eq!(r.method.decode(), method);
                assert_eq!(
                    r.params.map(|p| p.as_bytes().to_vec()),
                    opt.map(|p| spaced(p.as_bytes()))
                );
            }
            Message::Notification(n) => {
                assert_eq!(n.method.decode(), method);
                assert_eq!(
                    n.params.map(|p| p.as_bytes().to_vec()),
                    opt.map(|p| spaced(p.as_bytes()))
                );
            }
            Message::Response(r) => {
                assert_eq!(r.id.raw(), &id_token[..]);
                assert_eq!(r.result.as_bytes(), &spaced(&payload)[..]);
            }
            Message::ErrorResponse(e) => {
                assert_eq!(e.id.map(|i| i.raw()), reply_id.token());
                assert_eq!(e.error.code, ErrorCode(code));
                assert_eq!(e.error.message.decode(), message);
                assert_eq!(
                    e.error.data.map(|d| d.as_bytes().to_vec()),
                    opt.map(|p| spaced(p.as_bytes()))
                );
            }
            Message::Batch(_) => unreachable!(),
        }
    }
}

/// `write_method_not_found` with a method made by `JsonStr::from_raw` of any bytes. The reply
/// is one line that both dialects' clients (strict and lazy) and the serde_json reference
/// read as an error response to the id, code -32601, whose `data` is a string. A body that
/// serde_json reads as one string between quotes is spliced as it is, and `data` says what
/// serde_json reads; any other is written as its `decode()`d text. With a `has_escapes` flag
/// true to the bytes (as `from_raw` asks), `data` decodes to the method's `decode()` either
/// way.
fn check_method_not_found(input: &mut Input<'_>) {
    let id_token = input.id_token();
    let id = Id::from_token(&id_token).expect("an encoded id is a valid token");
    let (raw, has_escapes) = input.json_str_parts();
    let method = rpcwire::JsonStr::from_raw(raw, has_escapes);
    let mut out = BytesMut::new();
    encode::write_method_not_found(&mut out, id, method);
    let what = format!(
        "method {:?} (has_escapes {has_escapes}) written as {:?}",
        String::from_utf8_lossy(raw),
        String::from_utf8_lossy(&out)
    );
    assert_eq!(memchr_count(&out), 1, "exactly one line, {what}");
    assert_eq!(out.last(), Some(&b'\n'), "{what}");
    let frame = &out[..out.len() - 1];

    let quoted = [&b"\""[..], raw, b"\""].concat();
    let spliced = reference::is_json(&quoted);
    let true_flag = has_escapes || !raw.contains(&b'\\');
    // The text `data` must hold: what serde_json reads a valid body as (`None` for a lone
    // surrogate escape, which its `String` refuses), else the method's decoded text.
    let text: Option<String> = if spliced {
        serde_json::from_slice(&quoted).ok()
    } else {
        Some(method.decode().into_owned())
    };
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for validation in [Validation::Strict, Validation::Lazy] {
            let client = decoder(dialect, Role::Client, validation);
            let how = format!("{dialect:?}/{validation:?}, {what}");
            let Ok(Message::ErrorResponse(e)) = client.decode(frame) else {
                panic!("not an error response, {how}");
            };
            assert_eq!(e.id.map(|i| i.raw()), Some(&id_token[..]), "{how}");
            assert_eq!(e.error.code, ErrorCode::METHOD_NOT_FOUND, "{how}");
            let Some(data) = e.error.data.and_then(|d| d.as_str()) else {
                panic!("`data` is not a string, {how}");
            };
            if spliced {
                assert_eq!(data.raw(), raw, "a string's body spliced as it is, {how}");
            }
            if let Some(text) = &text {
                assert_eq!(data.decode(), **text, "{how}");
            }
            if true_flag {
                assert_eq!(data.decode(), method.decode(), "{how}");
            }
        }
        let read = reference::classify(frame, dialect, Role::Client);
        assert_eq!(read.kind, "error_response", "{dialect:?}, {what}");
        assert_eq!(read.id.map(String::into_bytes), Some(id_token.clone()));
        assert_eq!(read.error_code, Some(-32601), "{dialect:?}, {what}");
        let (start, end) = read.error_data.expect("a `data` member");
        let data = &frame[start..end];
        assert!(data.len() >= 2 && data[0] == b'"', "{dialect:?}, {what}");
        if spliced {
            assert_eq!(data, quoted, "{dialect:?}, {what}");
        }
    }
    match serde_json::from_slice::<serde_json::Value>(frame) {
        Ok(read) => {
            assert_eq!(read["error"]["code"], -32601, "{what}");
            assert!(read["error"]["data"].is_string(), "{what}");
            if let Some(text) = &text {
                assert_eq!(read["error"]["data"], **text, "{what}");
            }
        }
        // `serde_json::Value` refuses a lone surrogate escape, which only a spliced body holds.
        Err(e) => assert!(spliced && text.is_none(), "serde_json: {e}, {what}"),
    }
}

/// One call of a writer of `encode`, its arguments read off the input.
enum Writer<'a> {
    Request {
        id: Vec<u8>,
        method: String,
        params: Option<Vec<u8>>,
    },
    Notification {
        method: String,
        params: Option<Vec<u8>>,
    },
    Response {
        id: Vec<u8>,
        result: Vec<u8>,
    },
    Error {
        /// 0: `null`, 1: left out, else `id`.
        reply_id: u8,
        id: Vec<u8>,
        code: i64,
        message: String,
        data: Option<Vec<u8>>,
    },
    MethodNotFound {
        id: Vec<u8>,
        method: (&'a [u8], bool),
    },
    /// `write_frame` of a received frame: the message another writer writes (none: a blank
    /// frame), with JSON whitespace around it, as a `Content-Length` body or an SSE event's
    /// data may have it.
    Forwarded {
        message: Option<Box<Writer<'a>>>,
        before: Vec<u8>,
        after: Vec<u8>,
    },
}

impl<'a> Writer<'a> {
    /// Reads a writer and its arguments off the input.
    fn read(input: &mut Input<'a>) -> Self {
        if input.byte() % 6 == 5 {
            let mut whitespace = || {
                let n = usize::from(input.byte() % 4);
                (0..n)
                    .map(|_| b" \t\r\n"[usize::from(input.byte() % 4)])
                    .collect()
            };
            let (before, after) = (whitespace(), whitespace());
            let message =
                (!input.byte().is_multiple_of(4)).then(|| Box::new(Writer::read_message(input)));
            return Writer::Forwarded {
                message,
                before,
                after,
            };
        }
        Writer::read_message(input)
    }

    /// Reads a writer of one message of its own and its arguments off the input.
    fn read_message(input: &mut Input<'a>) -> Self {
        match input.byte() % 5 {
            0 => Writer::Request {
                id: input.id_token(),
                method: input.string(),
                params: input.payload(),
            },
            1 => Writer::Notification {
                method: input.string(),
                params: input.payload(),
            },
            2 => Writer::Response {
                id: input.id_token(),
                result: input.json(),
            },
            3 => Writer::Error {
                reply_id: input.byte() % 3,
                id: input.id_token(),
                code: input.i64(),
                message: input.string(),
                data: input.payload(),
            },
            _ => Writer::MethodNotFound {
                id: input.id_token(),
                method: input.json_str_parts(),
            },
        }
    }

    /// Calls the writer: one message, one line.
    fn write(&self, out: &mut BytesMut) {
        fn id(token: &[u8]) -> Id<'_> {
            Id::from_token(token).expect("an encoded id is a valid token")
        }
        fn json(value: &[u8]) -> RawJson<'_> {
            RawJson::new(value).expect("valid JSON is a RawJson")
        }
        match self {
            Writer::Request {
                id: i,
                method,
                params,
            } => {
                encode::write_request(out, id(i), method, params.as_deref().map(json));
            }
            Writer::Notification { method, params } => {
                encode::write_notification(out, method, params.as_deref().map(json));
            }
            Writer::Response { id: i, result } => encode::write_response(out, id(i), json(result)),
            Writer::Error {
                reply_id,
                id: i,
                code,
                message,
                data,
            } => {
                let reply_id = match reply_id {
                    0 => ReplyId::Null,
                    1 => ReplyId::Absent,
                    _ => ReplyId::Id(id(i)),
                };
                let data = data.as_deref().map(json);
                encode::write_error(out, reply_id, ErrorCode(*code), message, data);
            }
            Writer::MethodNotFound { id: i, method } => {
                let method = rpcwire::JsonStr::from_raw(method.0, method.1);
                encode::write_method_not_found(out, id(i), method);
            }
            Writer::Forwarded {
                message,
                before,
                after,
            } => {
                let mut frame = before.clone();
                if let Some(message) = message {
                    frame.extend_from_slice(&message.alone().expect("one message"));
                }
                frame.extend_from_slice(after);
                encode::write_frame(out, &frame);
            }
        }
    }

    /// The message this writer writes, without its line end: what it is as an element of an
    /// array (none for a blank frame forwarded, which is no message).
    fn alone(&self) -> Option<Vec<u8>> {
        if let Writer::Forwarded { message, .. } = self {
            return message.as_ref().and_then(|message| message.alone());
        }
        let mut out = BytesMut::new();
        self.write(&mut out);
        let shown = String::from_utf8_lossy(&out);
        assert_eq!(memchr_count(&out), 1, "one line: {shown:?}");
        assert_eq!(out.last(), Some(&b'\n'), "{shown:?}");
        Some(out[..out.len() - 1].to_vec())
    }
}

/// `BatchReply` with up to four pushes, each a closure that calls zero, one or two writers
/// (a frame forwarded with `write_frame`, whitespace around it, among them): each message
/// written is an element of its own, in the order written, and a blank frame forwarded is
/// none. What the buffer held before the array is kept. With no writer called, `close()` is false and nothing is
/// written; else the array is one line, which serde_json reads as exactly the messages the
/// writers write alone, in order, and which both dialects' clients decode as a batch whose
/// every element is what its message is alone (its spans where the element lies).
fn check_batch_of_pushes(input: &mut Input<'_>) {
    let mut pushes: Vec<Vec<Writer<'_>>> = Vec::new();
    for _ in 0..input.byte() % 5 {
        let writers = input.byte() % 3;
        pushes.push((0..writers).map(|_| Writer::read(input)).collect());
    }
    let alone: Vec<Vec<u8>> = pushes.iter().flatten().filter_map(Writer::alone).collect();
    let mut out = BytesMut::from(&b"before\n"[..]);
    let mut reply = encode::BatchReply::open(&mut out);
    for writers in &pushes {
        reply.push(|out| writers.iter().for_each(|writer| writer.write(out)));
    }
    assert_eq!(reply.len(), alone.len(), "one element per message written");
    let written = reply.close();
    assert_eq!(
        written,
        !alone.is_empty(),
        "close() says whether a message was written"
    );
    let line = out
        .strip_prefix(b"before\n")
        .expect("what the buffer held before the array is kept");
    if !written {
        assert!(line.is_empty(), "no message, yet {line:?} written");
        return;
    }
    let what = format!("the array {:?}", String::from_utf8_lossy(line));
    assert_eq!(memchr_count(line), 1, "one line, {what}");
    assert_eq!(line.last(), Some(&b'\n'), "{what}");
    let frame = &line[..line.len() - 1];
    check_array_of(frame, &alone, &what);
}

/// `frame` (an array on one line, its line end taken off) is read by serde_json as exactly
/// the messages `alone`, in order, and both dialects' clients decode it as a batch whose every
/// element is what its message is alone (its spans where the element lies).
fn check_array_of(frame: &[u8], alone: &[Vec<u8>], what: &str) {
    let elements: Vec<&RawValue> =
        serde_json::from_slice(frame).unwrap_or_else(|e| panic!("serde_json: {e}, {what}"));
    let read: Vec<&[u8]> = elements.iter().map(|e| e.get().as_bytes()).collect();
    let expected: Vec<&[u8]> = alone.iter().map(Vec::as_slice).collect();
    assert_eq!(read, expected, "the messages, in order, {what}");
    let offsets = elements
        .iter()
        .map(|e| e.get().as_ptr() as usize - frame.as_ptr() as usize);
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        let client = Decoder::new(DecodeOptions {
            batches: true,
            ..*decoder(dialect, Role::Client, Validation::Strict).options()
        });
        let Ok(Message::Batch(batch)) = client.decode(frame) else {
            panic!("not a batch to {dialect:?}, {what}");
        };
        let decoded: Vec<_> = batch.decode(&client).collect();
        assert_eq!(decoded.len(), alone.len(), "{dialect:?}, {what}");
        for ((element, message), at) in decoded.iter().zip(alone).zip(offsets.clone()) {
            let expected = shifted(reference::observe(&client, message), at);
            // MCP refuses an `initialize` request inside a batch, whatever wrote it.
            let initialize = expected.method.as_deref() == Some("initialize");
            if dialect == Dialect::Mcp && expected.kind == "request" && initialize {
                continue;
            }
            let got = reference::outcome_of(frame, element);
            assert_eq!(got, expected, "{dialect:?}, {what}");
        }
    }
}

/// A value nested `depth` levels deep: arrays in arrays.
fn nested_value(depth: usize) -> Vec<u8> {
    [vec![b'['; depth], vec![b']'; depth]].concat()
}

/// `outcome` with its spans moved `by` bytes on.
fn shifted(mut outcome: reference::Outcome, by: usize) -> reference::Outcome {
    let shift = |span: Option<(usize, usize)>| span.map(|(start, end)| (start + by, end + by));
    outcome.payload = shift(outcome.payload);
    outcome.error_data = shift(outcome.error_data);
    outcome
}

// --------------------------------------------------------------------------------- scan

/// `skip_value` in both modes: strict success implies lazy success with the same end; strict
/// agrees with serde_json on what one JSON value is.
pub fn scan(data: &[u8]) {
    let [depth_byte, buf @ ..] = data else {
        return;
    };
    let max_depth = *depth_byte as u32 % 140;
    let start = buf.iter().position(|&b| !is_ws(b)).unwrap_or(buf.len());
    let strict = scan::skip_value(buf, start, 0, max_depth, Validation::Strict);
    let lazy = scan::skip_value(buf, start, 0, max_depth, Validation::Lazy);
    // The SIMD and portable kernels against the scalar oracle: same end, same error kind,
    // both modes.
    for (validation, got) in [(Validation::Lazy, lazy), (Validation::Strict, strict)] {
        let simd = scan::simd_skip_value(buf, start, 0, max_depth, validation);
        let portable = scan::portable::skip_value(buf, start, 0, max_depth, validation);
        let oracle = scan::scalar_skip_value(buf, start, 0, max_depth, validation);
        assert_eq!(simd, oracle, "SIMD and scalar disagree ({validation:?})");
        assert_eq!(
            portable, oracle,
            "portable and scalar disagree ({validation:?})"
        );
        assert_eq!(got, oracle, "dispatch and scalar disagree ({validation:?})");
    }
    let portable_line = scan::portable::skip_lazy_value::<true>(buf, start, 0, max_depth);
    // The lazy skip that says whether the value is ASCII: the same answer, and "ASCII" never
    // said of a value holding a byte that is not.
    let mut said_ascii = false;
    let with_ascii =
        scan::simd_skip_lazy_value_ascii::<false>(buf, start, 0, max_depth, &mut said_ascii);
    assert_eq!(with_ascii, lazy, "the ASCII-tracking skip disagrees");
    if said_ascii {
        let end = with_ascii.expect("ASCII said of a value that failed");
        assert!(
            buf[start..end].is_ascii(),
            "ASCII said of a value that is not"
        );
    }
    // Its one-line instance: "clean" never said of a value with a `\n` either.
    let mut said_clean = false;
    let one_line =
        scan::simd_skip_lazy_value_ascii::<true>(buf, start, 0, max_depth, &mut said_clean);
    let line_end = buf
        .get(start..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .map_or(buf.len(), |nl| start + nl);
    let on_line = scan::scalar_skip_value(&buf[..line_end], start, 0, max_depth, Validation::Lazy);
    // (An error when the value does not end on its line, of whatever kind.)
    assert_eq!(
        one_line.ok(),
        on_line.ok(),
        "the one-line skip disagrees with the oracle on the line"
    );
    assert_eq!(
        portable_line.ok(),
        on_line.ok(),
        "the portable one-line skip disagrees with the oracle on the line"
    );
    if said_clean {
        let end = one_line.expect("clean said of a value that failed");
        assert!(
            buf[start..end].is_ascii() && !buf[start..end].contains(&b'\n'),
            "clean said of a value with a newline or a byte that is not ASCII"
        );
    }
    // The ASCII check: every byte before its answer is ASCII, all of them exactly when the
    // answer is the length.
    let first_other = buf.iter().position(|b| !b.is_ascii()).unwrap_or(buf.len());
    let ascii = scan::simd_ascii_prefix(buf);
    assert!(ascii <= first_other, "ascii_prefix past a non-ASCII byte");
    assert_eq!(ascii == buf.len(), first_other == buf.len(), "ascii_prefix");
    if buf.first() == Some(&b'"') {
        assert_eq!(
            scan::simd_string_end(buf, 1),
            scan::scalar::string_end(buf, 1),
            "string scan"
        );
        assert_eq!(
            scan::portable::string_end(buf, 1),
            scan::scalar::string_end(buf, 1),
            "portable string scan"
        );
    }
    if let Ok(end) = lazy {
        assert!(start < end && end <= buf.len());
    }
    if let Ok(end) = strict {
        assert_eq!(lazy, Ok(end), "strict accepted, lazy did not agree");
        let value = &buf[start..end];
        assert_eq!(
            scan::skip_value(value, 0, 0, max_depth, Validation::Strict),
            Ok(value.len())
        );
        if std::str::from_utf8(value).is_ok() {
            assert!(
                serde_json::from_slice::<&RawValue>(value).is_ok(),
                "strict accepted what serde_json refuses: {:?}",
                String::from_utf8_lossy(value)
            );
            assert!(reference::depth(value) <= max_depth as usize);
        }
    }
    // Conversely, a UTF-8 buffer that serde_json reads as one value within the depth limit
    // must be skipped by strict mode exactly to that value's end.
    if let Ok(text) = std::str::from_utf8(buf)
        && let Ok(raw) = serde_json::from_str::<&RawValue>(text)
    {
        if reference::depth(raw.get().as_bytes()) <= max_depth as usize {
            assert_eq!(strict, Ok(start + raw.get().len()), "{text:?}");
        } else {
            assert_eq!(strict, Err(scan::ScanError::TooDeep));
        }
    }
    if buf.get(start) == Some(&b'"') {
        let body = scan::string_end(buf, start + 1);
        assert_eq!(
            body.map(|(close, _)| close + 1).ok(),
            strict.ok(),
            "string scan and skip_value disagree"
        );
    }
}

/// Read sizes from a seed: 1 to 24 bytes (or to `up_to`), xorshift-driven.
struct Chunks {
    rng: u64,
    max: u64,
}

impl Chunks {
    fn new(seed: u8, len: usize) -> Self {
        Chunks {
            rng: 0x9e37_79b9_7f4a_7c15u64 ^ (seed as u64) ^ ((len as u64) << 8),
            max: 24,
        }
    }

    /// Reads of 1 to `max` bytes.
    fn up_to(mut self, max: u64) -> Self {
        self.max = max;
        self
    }

    fn next_len(&mut self, left: usize) -> usize {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (1 + (self.rng % self.max) as usize).min(left)
    }

    /// Appends `input` to `buf` read by read, calling `after_read` with the buffer and the
    /// number of bytes fed so far after each read.
    fn feed(
        mut self,
        input: &[u8],
        buf: &mut BytesMut,
        mut after_read: impl FnMut(&mut BytesMut, usize),
    ) {
        let mut pos = 0;
        while pos < input.len() {
            let n = self.next_len(input.len() - pos);
            buf.extend_from_slice(&input[pos..pos + n]);
            pos += n;
            after_read(buf, pos);
        }
    }
}

/// Feeds `input` to a framer one-shot and in random reads; both must give the same items
/// (with their offsets), and no frame may exceed the limit. Returns the two framers.
fn same_items_chunked<F>(seed: u8, input: &[u8], fresh: impl Fn() -> F) -> (F, F)
where
    F: Framer,
    F::Frame: PartialEq + std::fmt::Debug,
    F::Error: PartialEq + std::fmt::Debug,
{
    let take = |framer: &mut F, buf: &mut BytesMut, eof: bool, out: &mut Vec<_>| {
        while let Some(item) = framer.next_frame(buf, eof).transpose() {
            if let Ok(frame) = &item {
                let len = frame.as_ref().len();
                assert!(
                    len <= framer.max_frame(),
                    "a frame of {len} bytes, over the limit"
                );
            }
            out.push(item.map(|frame| (framer.last_offset(), frame)));
        }
    };
    let mut one_shot = fresh();
    let mut expected = vec![];
    take(
        &mut one_shot,
        &mut BytesMut::from(input),
        true,
        &mut expected,
    );
    let mut chunked = fresh();
    let mut buf = BytesMut::new();
    let mut got = vec![];
    Chunks::new(seed, input.len()).feed(input, &mut buf, |buf, _| {
        take(&mut chunked, buf, false, &mut got);
    });
    take(&mut chunked, &mut buf, true, &mut got);
    assert_eq!(
        got, expected,
        "chunked framing differs from one-shot framing"
    );
    (one_shot, chunked)
}

/// SSE framing over random chunkings equals one-shot framing; it never panics.
pub fn sse_chunks(data: &[u8]) {
    let [limit, seed, input @ ..] = data else {
        return;
    };
    let max_frame = 1 + *limit as usize % 96;
    same_items_chunked(*seed, input, || {
        rpcwire::SseFramer::new(max_frame).yield_empty_events(true)
    });
    // The default, through the trait: events without data skipped, what they said kept.
    let (one_shot, chunked) =
        same_items_chunked(*seed, input, || rpcwire::SseFramer::new(max_frame));
    assert_eq!(one_shot.last_event_id(), chunked.last_event_id());
    assert_eq!(one_shot.reconnection_time(), chunked.reconnection_time());
}

/// Content-Length framing over random chunkings equals one-shot framing, errors included
/// (a body skipped for its size or its charset is reported at the same offset); both
/// framers end having consumed the whole stream, failed or not alike. It never panics.
pub fn content_length_chunks(data: &[u8]) {
    let [limit, seed, input @ ..] = data else {
        return;
    };
    let max_frame = 1 + *limit as usize % 96;
    let (one_shot, chunked) = same_items_chunked(*seed, input, || {
        rpcwire::ContentLengthFramer::new(max_frame)
    });
    assert_eq!(one_shot.consumed(), input.len() as u64);
    assert_eq!(chunked.consumed(), input.len() as u64);
    assert_eq!(one_shot.is_failed(), chunked.is_failed());
}

/// `PendingTable` operations driven by the input, against a `HashMap` model: every answer
/// agrees, no token is minted twice (a live or a retired one), a stale token never matches,
/// a shrink keeps every live request with its deadline, a token of a generation past every
/// one minted is `Unknown` (after a shrink too), and the table ends empty.
pub fn pending_model(data: &[u8]) {
    use rpcwire::{Miss, PendingTable, Token};
    use std::collections::{BTreeMap, HashSet};
    const LIMIT: usize = 64;
    // The token layout (`PendingTable#tokens`): `generation << INDEX_BITS | (slot index + 1)`,
    // `INDEX_BITS` one more than the bits needed to write the capacity limit.
    const INDEX_BITS: u32 = usize::BITS - LIMIT.leading_zeros() + 1;
    // A token never minted, of a generation past every one minted (`arg` picks its slot
    // index): whatever a shrink cut, `Unknown` (`PendingTable::shrink_to`).
    let future = |latest: u64, arg: u8| {
        let index = arg as u64 % ((1 << INDEX_BITS) - 1);
        Token::new((latest + 1) << INDEX_BITS | (index + 1)).unwrap()
    };
    let mut table = PendingTable::with_capacity_limit(LIMIT);
    // The latest generation minted.
    let mut latest = 0u64;
    // Ordered, so that `arg` picks the same live token on every run without sorting per step.
    let mut model: BTreeMap<u64, (u32, Option<u64>)> = BTreeMap::new();
    let mut retired: Vec<Token> = vec![];
    let mut ever_retired: HashSet<u64> = HashSet::new();
    let mut now = 0u64;
    let mut next_value = 0u32;
    for pair in data.chunks(2) {
        let (op, arg) = (pair[0], *pair.get(1).unwrap_or(&0));
        let pick_live = |arg: u8| model.keys().nth(arg as usize % model.len()).copied();
        // (Each token is retired once: the set takes the ones retired by the last step.)
        ever_retired.extend(retired[ever_retired.len()..].iter().map(|t| t.get()));
        if op >= 250 {
            // A shrink (`arg` the room to keep): the live requests keep their tokens and
            // values, and their deadlines (op 5's check); the retired ones stay stale (op 3),
            // and no token is minted again (the inserts' check).
            table.shrink_to(arg as usize % 80);
            for (&t, &(value, _)) in &model {
                assert_eq!(
                    table.get(Token::new(t).unwrap()),
                    Some(&value),
                    "a shrink lost {t}"
                );
            }
            assert_eq!(table.len(), model.len());
            let token = future(latest, arg);
            assert_eq!(table.remove(token), Err(Miss::Unknown), "{token}");
            continue;
        }
        match op % 7 {
            0 | 1 => {
                next_value += 1;
                let deadline = (op % 7 == 1).then(|| now + arg as u64);
                let r = match deadline {
                    Some(d) => table.insert_with_deadline(next_value, d),
                    None => table.insert(next_value),
                };
                match r {
                    Ok(token) => {
                        assert!(token.get() < (1 << 53));
                        latest = latest.max(token.get() >> INDEX_BITS);
                        assert!(
                            model.insert(token.get(), (next_value, deadline)).is_none()
                                && !ever_retired.contains(&token.get()),
                            "token minted twice"
                        );
                    }
                    Err(full) => {
                        assert_eq!(model.len(), table.capacity_limit());
                        assert_eq!((full.value, full.limit), (next_value, model.len()));
                    }
                }
            }
            2 if !model.is_empty() => {
                let t = pick_live(arg).unwrap();
                let mut digits = [0u8; 20];
                let token = Token::new(t).unwrap();
                let got = table.complete_wire(token.to_wire(&mut digits));
                assert_eq!(got, Ok(model.remove(&t).unwrap().0));
                retired.push(token);
            }
            3 if !retired.is_empty() => {
                let token = retired[arg as usize % retired.len()];
                assert_eq!(
                    table.remove(token),
                    Err(Miss::Stale),
                    "a stale token matched"
                );
            }
            4 if !model.is_empty() => {
                let t = pick_live(arg).unwrap();
                let token = Token::new(t).unwrap();
                assert_eq!(table.cancel(token), Some(model.remove(&t).unwrap().0));
                retired.push(token);
            }
            5 => {
                now += arg as u64;
                let mut expired: Vec<(u64, u32)> =
                    table.expire(now).map(|(t, v)| (t.get(), v)).collect();
                expired.sort();
                let mut due: Vec<(u64, u32)> = model
                    .iter()
                    .filter(|(_, (_, d))| d.is_some_and(|d| d <= now))
                    .map(|(t, (v, _))| (*t, *v))
                    .collect();
                due.sort();
                assert_eq!(expired, due, "expired entries differ at {now}");
                for (t, _) in due {
                    model.remove(&t);
                    retired.push(Token::new(t).unwrap());
                }
            }
            6 if !model.is_empty() => {
                // A new deadline (odd `arg`) or none, for a live request; a retired one is
                // refused.
                let t = pick_live(arg).unwrap();
                let deadline = (arg % 2 == 1).then(|| now + (arg / 2) as u64);
                assert!(table.set_deadline(Token::new(t).unwrap(), deadline));
                model.get_mut(&t).unwrap().1 = deadline;
                if let Some(&token) = retired.last() {
                    assert!(!table.set_deadline(token, Some(now)));
                }
            }
            _ => {
                // Unknown: not a token at all, or a number no table minted in this range, or
                // of a generation past every one minted.
                assert_eq!(table.complete_wire(b"\"1\""), Err(Miss::Unknown));
                assert_eq!(table.complete_wire(b"-1"), Err(Miss::Unknown));
                let token = future(latest, arg);
                assert_eq!(table.remove(token), Err(Miss::Unknown), "{token}");
            }
        }
        assert_eq!(table.len(), model.len());
    }
    let mut drained: Vec<u32> = table.drain().map(|(_, v)| v).collect();
    drained.sort();
    let mut left: Vec<u32> = model.values().map(|(v, _)| *v).collect();
    left.sort();
    assert_eq!(drained, left);
    assert_eq!(table.len(), 0);
}

// ------------------------------------------------------------------------- tables_model

/// The id token an operation's byte names: a string or a number of a length from 1 to 64
/// bytes, sometimes spelled with escapes (`\u0061` for `a`, whose key is shorter than its
/// token), from few enough values that ids repeat.
fn model_id(arg: u8) -> String {
    let len = 1 + (arg as usize * 7) % 64;
    match arg % 4 {
        0 => format!("{}", 1 + (arg / 4) % 8),
        1 => format!("\"{}\"", "a".repeat(len)),
        2 => format!("\"{}\"", "\\u0061".repeat(len.div_ceil(6))),
        _ => format!("\"{}{}\"", arg % 5, "b".repeat(len)),
    }
}

/// The task id (quotes included) of task `n` of `tables_model`: 26 bytes, longer than most
/// request ids, so that a route may hold more than its request did, and pass its client's
/// share of the byte budget where the request fit.
fn task_id(n: u8) -> String {
    format!("\"task-{n}-{}\"", "x".repeat(17))
}

/// `InFlight` and `IdRemapper` against models of what they hold: the same answers (accepted,
/// duplicate, full, over the byte budget) and the same count of bytes, through every way an
/// entry leaves. Each byte pair is an operation and its argument. The remapper's model keeps
/// MCP 2025-11-25 tasks too: task-augmented requests answered by `CreateTaskResult`s (a ttl or
/// `null`, the task live or ended already), status notifications (terminal or not) with the
/// task's progress, and `tasks/get`, `tasks/result`, `tasks/cancel` from the task's client or
/// another, answered at once (the result naming the task, or another; any reply to a
/// `tasks/result`, and a -32602 to a `tasks/cancel`, ending the task it names when that is the
/// client's): routes, the records of
/// ended tasks' clients, refusals of foreign tasks and bytes agree. Each client may hold 4
/// requests and live routes, of 200 bytes at most: its refusals, the routes its bytes leave
/// out, and its counts (through replies, cancellations, expiries, task ends, a client or the
/// upstream going away) agree too. An operation sets the remapper's dialect for the requests
/// forwarded after it: under `Dialect::JsonRpc2` a request goes upstream with its id alone
/// rewritten, its `tasks/*` are neither checked nor end a task, its reply keeps no task, and
/// no stream's notification is routed on its token; the tasks kept before stay as they were.
pub fn tables_model(data: &[u8]) {
    use rpcwire::{Dialect, IdKey, IdRemapper, InFlight, InFlightError, Miss, RemapError};
    use std::collections::HashMap;

    fn id(token: &str) -> Id<'_> {
        Id::from_token(token.as_bytes()).expect("a valid id token")
    }
    let (capacity, budget) = (8, 400);
    // Each client's share of the remapper: 3 clients, each under half the table.
    let (per_client, client_budget) = (4, 200);

    // InFlight: the model maps each key to its cost (token and key lengths, and the extra
    // bytes it was inserted with).
    let mut table = InFlight::new(capacity).max_bytes(budget);
    let mut model: HashMap<IdKey, usize> = HashMap::new();
    // IdRemapper: the model maps (client, key) to what it knows of each request.
    struct Remapped {
        /// The upstream token, as written on the wire.
        wire: Vec<u8>,
        /// The id and the progress token.
        cost: usize,
        deadline: Option<u64>,
        /// The client's id token.
        token: String,
        /// The client's progress token, and whether the request is task-augmented.
        progress: Option<String>,
        task: bool,
        /// Forwarded under `Dialect::JsonRpc2`: its id alone was read.
        plain: bool,
    }
    /// A task the remapper keeps: its route while `live`, then the record of its client.
    struct Tasked {
        client: u8,
        /// Its request's token (its progress's while live), as written on the wire.
        wire: Vec<u8>,
        progress: Option<String>,
        live: bool,
        deadline: Option<u64>,
        ttl_ends: Option<u64>,
        /// The progress token while live, and the task id.
        held: usize,
        /// When it ended (a count of the steps that end tasks; those ended by one `expire`
        /// share it): a client's oldest record gives its place up first.
        ended: u64,
    }
    impl Tasked {
        fn end(&mut self, id: &str, seq: u64) {
            if self.live {
                self.live = false;
                self.ended = seq;
                self.progress = None;
                self.held = id.len();
                self.deadline = self.ttl_ends;
            }
        }
    }
    let mut remap: IdRemapper<u8> = IdRemapper::new(capacity)
        .max_bytes(budget)
        .max_per_client(per_client)
        .max_bytes_per_client(client_budget);
    let mut remapped: HashMap<(u8, IdKey), Remapped> = HashMap::new();
    let mut tasks: HashMap<String, Tasked> = HashMap::new();
    let mut now = 0u64;
    let mut seq = 0u64;
    // The remapper's dialect: `Dialect::JsonRpc2` (true) or MCP's, the default.
    let mut plain = false;
    /// Takes out of the model the record of an ended task the remapper gave up for room for a
    /// request or route of `client`'s: `client`'s oldest while it holds one, else the oldest
    /// of a client holding the most (never another client's while `client`, or a client
    /// holding more, has one to give up). Any of those the rule allows may be the one (clients
    /// holding as many; records one `expire` ended, which go in the table's order); the one
    /// taken out is one the remapper no longer keeps.
    fn give_up_oldest_record(
        remap: &IdRemapper<u8>,
        tasks: &mut HashMap<String, Tasked>,
        client: u8,
    ) {
        let records = |c: u8| tasks.values().filter(|t| !t.live && t.client == c).count();
        let most = (0..3).map(records).max().unwrap_or(0);
        assert!(most > 0, "a record to give up");
        let own = records(client) > 0;
        let gives = |c: u8| if own { c == client } else { records(c) == most };
        let oldest = |c: u8| {
            tasks
                .values()
                .filter(|t| !t.live && t.client == c)
                .map(|t| t.ended)
                .min()
        };
        let gone = tasks
            .iter()
            .find(|(id, t)| {
                !t.live
                    && gives(t.client)
                    && Some(t.ended) == oldest(t.client)
                    && remap
                        .task_owner(rpcwire::Id::from_token(id.as_bytes()).unwrap())
                        .is_none()
            })
            .map(|(id, _)| id.clone())
            .unwrap_or_else(|| panic!("a record client {client} may take the room of given up"));
        tasks.remove(&gone);
    }

    /// What `client` holds against its limits: its requests in flight and live task routes,
    /// how many and their bytes.
    fn client_share(
        client: u8,
        remapped: &HashMap<(u8, IdKey), Remapped>,
        tasks: &HashMap<String, Tasked>,
    ) -> (usize, usize) {
        let requests = remapped.iter().filter(|((c, _), _)| *c == client);
        let routes = tasks.values().filter(|t| t.live && t.client == client);
        let count = requests.clone().count() + routes.clone().count();
        let held =
            requests.map(|(_, r)| r.cost).sum::<usize>() + routes.map(|t| t.held).sum::<usize>();
        (count, held)
    }

    // What `client`'s request of `cost` bytes gets: `ClientFull` when the client holds its
    // share of entries, `ClientOverBudget` when its bytes would pass its share; then
    // `Full` when the table holds no place for it, or `OverBudget` no room, even with every
    // record of a task that ended given up (then none is); else it takes the places of
    // records while the table is full or the budget short, the client's own oldest first,
    // else the oldest of a client holding the most: those the remapper gave up leave the
    // model (see `give_up_oldest_record`).
    let admit = |remap: &IdRemapper<u8>,
                 remapped: &HashMap<(u8, IdKey), Remapped>,
                 tasks: &mut HashMap<String, Tasked>,
                 client: u8,
                 cost: usize|
     -> Result<(), RemapError> {
        let (held_by_client, client_held) = client_share(client, remapped, tasks);
        if held_by_client >= per_client {
            return Err(RemapError::ClientFull { limit: per_client });
        }
        if client_held + cost > client_budget {
            return Err(RemapError::ClientOverBudget {
                budget: client_budget,
            });
        }
        let in_flight = remapped.len();
        let requests_held = remapped.values().map(|r| r.cost).sum::<usize>();
        let (live, live_held) = tasks
            .values()
            .filter(|t| t.live)
            .fold((0, 0), |(n, held), t| (n + 1, held + t.held));
        if in_flight + live >= capacity {
            return Err(RemapError::Full { limit: capacity });
        }
        if requests_held + live_held + cost > budget {
            return Err(RemapError::OverBudget { budget });
        }
        loop {
            let used = requests_held + tasks.values().map(|t| t.held).sum::<usize>();
            if in_flight + tasks.len() < capacity && used + cost <= budget {
                return Ok(());
            }
            give_up_oldest_record(remap, tasks, client);
        }
    };
    for pair in data.chunks(2) {
        let (op, arg) = (pair[0], *pair.get(1).unwrap_or(&0));
        let token = model_id(arg);
        let key = IdKey::of(id(&token));
        match op % 10 {
            0 | 1 => {
                // Half the time with extra bytes, up to 56.
                let extra = if op & 0x10 == 0 {
                    0
                } else {
                    8 * usize::from(arg >> 5)
                };
                let cost = token.len() + extra;
                let used: usize = model.values().sum();
                let expected = if model.contains_key(&key) {
                    Err(InFlightError::Duplicate)
                } else if model.len() >= capacity {
                    Err(InFlightError::Full { limit: capacity })
                } else if used + cost > budget {
                    Err(InFlightError::OverBudget { budget })
                } else {
                    Ok(())
                };
                // Through `insert`, or a reservation, which is sometimes dropped (and then
                // holds nothing).
                let kept = match op % 10 {
                    0 => table
                        .insert_with_extra(id(&token), extra, ())
                        .map(|()| true),
                    _ => table
                        .reserve_with_extra(id(&token), extra)
                        .map(|r| match arg % 3 {
                            0 => false,
                            _ => {
                                r.insert(());
                                true
                            }
                        }),
                };
                assert_eq!(kept.map(|_| ()), expected, "insert {token}");
                if kept == Ok(true) {
                    model.insert(key, cost);
                }
            }
            2 => {
                let removed = table.remove(id(&token)).map(|(id, ())| id);
                assert_eq!(
                    removed.is_some(),
                    model.remove(&key).is_some(),
                    "remove {token}"
                );
            }
            3 if arg % 8 == 0 => {
                let drain = table.drain();
                if arg % 16 == 0 {
                    assert_eq!(drain.count(), model.len());
                }
                model.clear();
            }
            3 if arg % 8 < 3 => {
                // A task's status (terminal or not), then progress on its request's token.
                let id = task_id((arg >> 3) & 3);
                let terminal = arg % 8 == 2;
                let status = if terminal { "failed" } else { "input_required" };
                let frame = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{{"taskId":{id},"status":"{status}"}}}}"#
                );
                let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes())
                else {
                    panic!("a notification: {frame}");
                };
                let mut out = BytesMut::new();
                let to = remap
                    .route_task_status(frame.as_bytes(), &n, &mut out)
                    .map(|(_, c)| c);
                assert_eq!(to, tasks.get(&id).map(|t| t.client), "status {frame}");
                if let Some(task) = tasks.get_mut(&id) {
                    assert_eq!(&out[..], format!("{frame}\n").as_bytes());
                    if terminal {
                        seq += 1;
                        task.end(&id, seq);
                    }
                    let progress = format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{},"progress":1}}}}"#,
                        String::from_utf8_lossy(&task.wire)
                    );
                    let Ok(Message::Notification(n)) =
                        Decoder::mcp_client().decode(progress.as_bytes())
                    else {
                        panic!("a notification: {progress}");
                    };
                    let mut out = BytesMut::new();
                    let to = remap
                        .route_progress(progress.as_bytes(), &n, &mut out)
                        .map(|r| *r.client);
                    // Routed while the route lives (and asked for progress), never after: a
                    // token reused for another entry has another generation.
                    let theirs = task.progress.as_ref().filter(|_| task.live);
                    assert_eq!(to, theirs.map(|_| task.client), "progress {progress}");
                }
            }
            3 => {
                // `tasks/get`, `tasks/result` or `tasks/cancel` of a client's, answered at once
                // with a status not terminal, a terminal one, or -32602.
                // (The operation byte picks the client: the argument's bits are the method's,
                // the answer's and the task's.)
                let client = (op / 10) % 3;
                let method = usize::from(arg % 8 - 3) % 3;
                let answer = (arg >> 3) & 3;
                let id = task_id((arg >> 5) & 3);
                // The result names the task, or (the operation's high bit) the next one: an
                // upstream's mistake, which ends that task only if it is the client's.
                let named = if op & 0x80 != 0 {
                    task_id((((arg >> 5) & 3) + 1) % 4)
                } else {
                    id.clone()
                };
                let name = ["tasks/get", "tasks/result", "tasks/cancel"][method];
                let q = "\"task-op\"";
                let frame = format!(
                    r#"{{"jsonrpc":"2.0","id":{q},"method":"{name}","params":{{"taskId":{id}}}}}"#
                );
                let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
                    panic!("a request: {frame}");
                };
                let cost = q.len();
                let foreign = !plain && tasks.get(&id).is_some_and(|t| t.client != client);
                let mut out = BytesMut::new();
                let got = remap.forward_request(client, frame.as_bytes(), &req, None, &mut out);
                let expected = if foreign {
                    Err(RemapError::ForeignTask)
                } else {
                    admit(&remap, &remapped, &mut tasks, client, cost)
                };
                assert_eq!(got.map(|_| ()), expected, "forward {frame}");
                // Any reply to a `tasks/result` of a task of the client's (kept when it goes
                // upstream), and a -32602 to a `tasks/cancel` of one, ends that task.
                let ends_own = !plain
                    && matches!((method, answer), (1, _) | (2, 2 | 3))
                    && tasks.contains_key(&id);
                if let Ok(upstream) = got {
                    if plain {
                        let rewritten = frame.replacen(q, &upstream.to_string(), 1);
                        assert_eq!(&out[..], format!("{rewritten}\n").as_bytes());
                        out.clear();
                    }
                    let reply = match (method, answer) {
                        (_, 2 | 3) => format!(
                            r#"{{"jsonrpc":"2.0","id":{upstream},"error":{{"code":-32602,"message":"Task not found"}}}}"#
                        ),
                        (1, _) => format!(
                            r#"{{"jsonrpc":"2.0","id":{upstream},"result":{{"_meta":{{"io.modelcontextprotocol/related-task":{{"taskId":{named}}}}}}}}}"#
                        ),
                        (_, a) => format!(
                            r#"{{"jsonrpc":"2.0","id":{upstream},"result":{{"taskId":{named},"status":"{}"}}}}"#,
                            ["working", "cancelled"][usize::from(a)]
                        ),
                    };
                    let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
                    let reply_id = msg.id().expect("a reply's id");
                    let to = remap.route_reply_at(reply.as_bytes(), reply_id, now, &mut out);
                    assert_eq!(to.map(|o| o.client), Ok(client));
                    match (method, answer) {
                        // Plain JSON-RPC: its reply tells nothing of MCP's tasks.
                        _ if plain => {}
                        // The upstream no longer knows the task.
                        (0, 2 | 3) => {
                            tasks.remove(&id);
                        }
                        (_, 2 | 3) | (0 | 2, 0) => {}
                        _ => {
                            let named_task = tasks.get_mut(&named).filter(|t| t.client == client);
                            if let Some(task) = named_task {
                                seq += 1;
                                task.end(&named, seq);
                            }
                        }
                    }
                    if let Some(task) = tasks.get_mut(&id).filter(|_| ends_own) {
                        seq += 1;
                        task.end(&id, seq);
                    }
                }
            }
            4 | 5 => {
                let client = arg % 3;
                let progress = (op % 10 == 5).then(|| model_id(arg.rotate_left(3)));
                let task = op & 0x20 != 0;
                let task_member = if task { r#""task":{},"# } else { "" };
                let frame = match &progress {
                    Some(p) => format!(
                        r#"{{"jsonrpc":"2.0","id":{token},"method":"m","params":{{{task_member}"_meta":{{"progressToken":{p}}}}}}}"#
                    ),
                    None if task => {
                        format!(
                            r#"{{"jsonrpc":"2.0","id":{token},"method":"m","params":{{"task":{{}}}}}}"#
                        )
                    }
                    None => format!(r#"{{"jsonrpc":"2.0","id":{token},"method":"m"}}"#),
                };
                let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
                    panic!("a request: {frame}");
                };
                // Under `Dialect::JsonRpc2` the progress token is payload: it costs nothing.
                let progress = progress.filter(|_| !plain);
                let cost = token.len() + progress.as_ref().map_or(0, String::len);
                let duplicate = remapped.contains_key(&(client, key.clone()));
                let deadline = (arg % 2 == 0).then_some(now + u64::from(arg % 7));
                let mut out = BytesMut::new();
                let got = remap.forward_request(client, frame.as_bytes(), &req, deadline, &mut out);
                let expected = if duplicate {
                    Err(RemapError::DuplicateId)
                } else {
                    admit(&remap, &remapped, &mut tasks, client, cost)
                };
                assert_eq!(got.map(|_| ()), expected, "forward {frame}");
                if let Ok(upstream) = got {
                    let mut digits = [0; 20];
                    let wire = upstream.to_wire(&mut digits).to_vec();
                    if plain {
                        // The id alone is rewritten.
                        let rewritten = frame.replacen(
                            &format!(r#""id":{token}"#),
                            &format!(r#""id":{upstream}"#),
                            1,
                        );
                        assert_eq!(&out[..], format!("{rewritten}\n").as_bytes());
                    }
                    let request = Remapped {
                        wire,
                        cost,
                        deadline,
                        token,
                        progress,
                        task: task && !plain,
                        plain,
                    };
                    remapped.insert((client, key), request);
                }
            }
            6 if !remapped.is_empty() => {
                // A reply to a live request, routed or taken.
                let at = arg as usize % remapped.len();
                let (k, wire, was_plain) = remapped
                    .iter()
                    .nth(at)
                    .map(|(k, r)| (k.clone(), r.wire.clone(), r.plain))
                    .unwrap();
                // A change on its stream, were it a `subscriptions/listen`, goes to its client
                // under the client's id while it is live, and nowhere once answered.
                let stamp = "io.modelcontextprotocol/subscriptionId";
                let event = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"{stamp}":{}}}}}}}"#,
                    String::from_utf8_lossy(&wire)
                );
                let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(event.as_bytes())
                else {
                    panic!("a notification: {event}");
                };
                let route_event = |remap: &mut IdRemapper<u8>| {
                    let mut out = BytesMut::new();
                    let client = remap
                        .route_subscription(event.as_bytes(), &n, &mut out)
                        .map(|o| o.client);
                    (client, out)
                };
                let (client, out) = route_event(&mut remap);
                let theirs = remapped[&k].token.clone();
                if was_plain {
                    // A plain JSON-RPC request opens no stream.
                    assert_eq!((client, out), (None, BytesMut::new()));
                } else {
                    assert_eq!(client, Some(k.0));
                    let expected = format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"{stamp}":{theirs}}}}}}}"#
                    );
                    assert_eq!(&out[..], format!("{expected}\n").as_bytes());
                }
                // Half the time a `CreateTaskResult` (which a task-augmented request's route
                // keeps, if it fits), task `t0`..`t3`, its ttl `null`, 3 or 9; its task's
                // status sometimes terminal already (kept as an ended task's record, if that
                // fits).
                let terminal = op & 0x80 != 0;
                let created = (op & 0x40 != 0).then(|| {
                    let ttl = [None, Some(3), Some(9)][usize::from(arg >> 4) % 3];
                    (task_id((arg >> 2) & 3), ttl)
                });
                let result = match &created {
                    Some((id, ttl)) => format!(
                        r#"{{"task":{{"taskId":{id},"status":"{}","ttl":{}}}}}"#,
                        if terminal { "completed" } else { "working" },
                        ttl.map_or("null".to_string(), |t| t.to_string())
                    ),
                    None => "{}".to_string(),
                };
                let reply = format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#,
                    String::from_utf8_lossy(&wire)
                );
                let msg = Decoder::mcp_client().decode(reply.as_bytes()).unwrap();
                let reply_id = msg.id().expect("a reply's id, a slice of its frame");
                let routed = arg % 2 == 0;
                let mut to_client = BytesMut::new();
                let origin = if routed {
                    remap.route_reply_at(reply.as_bytes(), reply_id, now, &mut to_client)
                } else {
                    remap.take(reply_id)
                };
                assert_eq!(origin.map(|o| o.client), Ok(k.0));
                if routed {
                    // Back byte for byte, the client's id restored (a `CreateTaskResult` too).
                    let restored = reply.replacen(
                        &format!(r#""id":{}"#, String::from_utf8_lossy(&wire)),
                        &format!(r#""id":{theirs}"#),
                        1,
                    );
                    assert_eq!(&to_client[..], format!("{restored}\n").as_bytes());
                }
                let request = remapped.remove(&k).expect("live");
                if let (true, true, Some((id, ttl))) = (routed, request.task, created) {
                    // A task kept under the same id is gone upstream: forgotten first. The
                    // route fits when it would with every record of an ended task given up;
                    // then records give up the room it needs (its request's place is its
                    // own), as for a request of its client's. A task ended already needs its record's room
                    // only (no progress token). A live route must fit its client's share too
                    // (its request's bytes are its own); a record need not.
                    tasks.remove(&id);
                    let progress = request.progress.filter(|_| !terminal);
                    let held = progress.as_ref().map_or(0, String::len) + id.len();
                    let requests_held = remapped.values().map(|r| r.cost).sum::<usize>();
                    let live_held: usize = tasks.values().filter(|t| t.live).map(|t| t.held).sum();
                    let (_, client_held) = client_share(k.0, &remapped, &tasks);
                    let in_share = terminal || client_held + held <= client_budget;
                    if requests_held + live_held + held <= budget && in_share {
                        while requests_held + tasks.values().map(|t| t.held).sum::<usize>() + held
                            > budget
                        {
                            give_up_oldest_record(&remap, &mut tasks, k.0);
                        }
                        let mut task = Tasked {
                            client: k.0,
                            wire: wire.clone(),
                            progress,
                            live: true,
                            // A route's deadline (its request's, or none) is never past
                            // its ttl.
                            deadline: match (request.deadline, ttl.map(|t| now + t)) {
                                (Some(d), Some(end)) => Some(d.min(end)),
                                (d, end) => d.or(end),
                            },
                            ttl_ends: ttl.map(|t| now + t),
                            held,
                            ended: 0,
                        };
                        if terminal {
                            seq += 1;
                            task.end(&id, seq);
                        }
                        tasks.insert(id, task);
                    }
                }
                assert_eq!(route_event(&mut remap), (None, BytesMut::new()));
                // A second reply to it is stale.
                assert_eq!(remap.take(reply_id).map(|o| o.client), Err(Miss::Stale));
            }
            7 => {
                let client = arg % 3;
                let cancel = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{token}}}}}"#
                );
                let Ok(Message::Notification(n)) = Decoder::mcp().decode(cancel.as_bytes()) else {
                    panic!("a notification: {cancel}");
                };
                let cancelled =
                    remap.forward_cancel(&client, cancel.as_bytes(), &n, &mut BytesMut::new());
                let was = remapped.remove(&(client, key));
                assert_eq!(cancelled.is_some(), was.is_some(), "cancel {token}");
            }
            8 => {
                now += u64::from(arg % 5);
                let mut expired: Vec<(u8, Vec<u8>)> = remap
                    .expire(now)
                    .map(|(_, o)| (o.client, o.id.as_id().raw().to_vec()))
                    .collect();
                expired.sort();
                let mut due: Vec<(u8, Vec<u8>)> = Vec::new();
                remapped.retain(
                    |(client, _),
                     Remapped {
                         deadline, token, ..
                     }| {
                        let is_due = deadline.is_some_and(|d| d <= now);
                        if is_due {
                            due.push((*client, token.as_bytes().to_vec()));
                        }
                        !is_due
                    },
                );
                due.sort();
                assert_eq!(expired, due, "expired at {now}");
                // A route past its deadline ends (kept until its ttl, unless that passed too);
                // an ended task past its ttl goes.
                seq += 1;
                tasks.retain(|id, task| {
                    if task.deadline.is_none_or(|d| d > now) {
                        return true;
                    }
                    if task.live && task.ttl_ends.is_none_or(|e| e > now) {
                        task.end(id, seq);
                        return true;
                    }
                    false
                });
            }
            9 if arg % 4 == 0 => {
                let client = arg % 3;
                let dropped = remap.drop_client(&client).len();
                let before = remapped.len();
                remapped.retain(|(c, _), _| *c != client);
                assert_eq!(dropped, before - remapped.len(), "drop client {client}");
                tasks.retain(|_, t| t.client != client);
            }
            9 if arg % 4 == 1 => {
                // The upstream goes away: every request comes out, every task is forgotten.
                assert_eq!(remap.drain().count(), remapped.len(), "drain");
                remapped.clear();
                tasks.clear();
            }
            9 if arg % 4 == 2 => {
                // The dialect of the requests forwarded from now on.
                plain = arg & 4 != 0;
                remap = remap.dialect(if plain {
                    Dialect::JsonRpc2
                } else {
                    Dialect::Mcp
                });
            }
            _ => {}
        }
        let used: usize = model.values().sum();
        assert_eq!((table.bytes(), table.len()), (used, model.len()));
        let used: usize = remapped.values().map(|r| r.cost).sum::<usize>()
            + tasks.values().map(|t| t.held).sum::<usize>();
        assert_eq!((remap.bytes(), remap.len()), (used, remapped.len()));
        let live = tasks.values().filter(|t| t.live).count();
        assert_eq!((remap.tasks(), remap.task_routes()), (tasks.len(), live));
        for client in 0..3 {
            let counts = (remap.client_len(&client), remap.client_bytes(&client));
            assert_eq!(
                counts,
                client_share(client, &remapped, &tasks),
                "client {client}"
            );
        }
        for n in 0..4 {
            let id = task_id(n);
            let owner = remap.task_owner(Id::from_token(id.as_bytes()).expect("a string"));
            assert_eq!(owner, tasks.get(&id).map(|t| &t.client), "owner of {id}");
        }
    }
    drop(remap.drain());
    assert_eq!((remap.bytes(), remap.len(), remap.tasks()), (0, 0, 0));
}

// ------------------------------------------------------------------------- decode_lines

/// `template` with every `~` grown into 1,500 spaces and every `` ` `` into 1,600 bytes of
/// base64: lines over the 4 KiB from which `Decoder::decode_lines` decodes a line in the pass
/// that finds its end, out of inputs a fuzzer can mutate.
pub fn grown(template: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(template.len() * 4);
    for &b in template {
        match b {
            b'~' => out.extend_from_slice(&[b' '; 1500]),
            b'`' => out.extend(b"QUJD".iter().cycle().take(1600)),
            _ => out.push(b),
        }
    }
    out
}

/// `Decoder::decode_lines` against `Lines` + `Decoder::decode`, item for item: a config byte
/// (dialect and role, validation, hardened, frame limit), then a stream template (see
/// [`grown`]).
pub fn decode_lines(data: &[u8]) {
    let [config, template @ ..] = data else {
        return;
    };
    let stream = grown(template);
    let (dialect, role) = CONFIGS[usize::from(config & 3)];
    let mut opts = DecodeOptions::new(dialect);
    opts.role = role;
    if config & 4 != 0 {
        opts.validation = Validation::Strict;
    }
    opts.hardened = config & 8 != 0;
    opts.limits = Limits {
        max_frame: [16 << 20, 4096, 4100, 9000][usize::from(config >> 4 & 3)],
        ..Limits::default()
    };
    assert_decodes_lines_as_framed(&Decoder::new(opts), &stream);
}

/// `decoder.decode_lines(stream)` gives what `Lines` (with the decoder's frame limit) and
/// `decoder.decode` of each frame give, item for item.
pub fn assert_decodes_lines_as_framed(decoder: &Decoder, stream: &[u8]) {
    let got: Vec<_> = decoder.decode_lines(stream).collect();
    let expected: Vec<_> = Lines::new(stream, decoder.options().limits.max_frame)
        .map(|line| {
            line.map(|(offset, frame)| DecodedLine {
                offset,
                frame,
                message: decoder.decode(frame),
            })
        })
        .collect();
    assert_eq!(got, expected, "decode_lines differs from Lines + decode");
}

// ------------------------------------------------------------------------------ headers

/// `data` is a tool's `inputSchema`, a body and header lines (`name:value`), separated by NUL
/// bytes. Checks that reading the schema, checking the headers against the body and mirroring
/// the body's headers all end with an answer, and that:
/// - a valid schema's annotations are distinct tokens on parameters with a path;
/// - every mirrored value can be sent as it is (visible ASCII, spaces and tabs inside, no line
///   break to end the header early) and the encoded ones decode;
/// - the mirrored headers fail the check only for what the body itself lacks (a version, a
///   name, an argument that cannot be mirrored), never for a value mirrored wrong;
/// - a decodable header value survives encoding and decoding again.
pub fn headers(data: &[u8]) {
    use rpcwire::headers::{
        Header, HeaderCheck, HeaderError, SessionIdError, ToolHeaders, decode_header_value,
        encode_header_value, mirror_headers, session_id,
    };

    let mut parts = data.splitn(3, |&b| b == 0);
    let (schema, body, lines) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let tool = RawJson::new(schema).map(ToolHeaders::from_input_schema);
    if let (Some(raw), Some(read)) = (RawJson::new(schema), &tool) {
        assert_eq!(
            ToolHeaders::validate_input_schema(raw),
            read.as_ref().map(drop).map_err(|e| *e),
            "validation alone answers otherwise"
        );
    }
    let tool = match tool {
        Some(Ok(tool)) => {
            let mut names: Vec<String> = Vec::new();
            for param in &tool {
                let name = param.name();
                assert!(
                    !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic() && b != b':'),
                    "annotation {name:?} is no token"
                );
                assert!(param.path().len() > 0, "annotation {name:?} without a path");
                names.push(name.to_ascii_lowercase());
            }
            let count = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), count, "annotations named twice: {tool:?}");
            Some(tool)
        }
        Some(Err(invalid)) => {
            let _ = invalid.to_string();
            None
        }
        None => None,
    };

    let headers: Vec<(&str, &[u8])> = lines
        .split(|&b| b == b'\n')
        .filter_map(|line| {
            let colon = line.iter().position(|&b| b == b':')?;
            Some((
                core::str::from_utf8(&line[..colon]).ok()?,
                &line[colon + 1..],
            ))
        })
        .collect();
    for (_, value) in &headers {
        // `Mcp-Session-Id`: visible ASCII, the spaces and tabs around it stripped.
        let ows = |b: &u8| matches!(b, b' ' | b'\t');
        let start = value.iter().position(|b| !ows(b)).unwrap_or(value.len());
        let end = value.iter().rposition(|b| !ows(b)).map_or(start, |i| i + 1);
        match session_id(value) {
            Ok(id) => {
                assert!(
                    !id.is_empty() && id.bytes().all(|b| b.is_ascii_graphic()),
                    "session id {id:?} taken"
                );
                assert_eq!(id.as_bytes(), &value[start..end]);
            }
            Err(SessionIdError::NotVisibleAscii { at, byte }) => {
                assert_eq!(value[at], byte);
                assert!(!byte.is_ascii_graphic(), "{value:?}: {byte:#04x} refused");
            }
            Err(SessionIdError::Empty) => {
                assert!(value.iter().all(|b| matches!(b, b' ' | b'\t')), "{value:?}");
            }
            Err(e) => panic!("{e}"),
        }
        if let Ok(text) = decode_header_value(value) {
            let again = encode_header_value(&text);
            assert_eq!(
                decode_header_value(again.as_bytes()).as_deref(),
                Ok(&*text),
                "{value:?} does not survive encoding again"
            );
        }
    }

    let Ok(msg) = Decoder::mcp().decode(body) else {
        return;
    };
    let check = match &tool {
        Some(tool) => HeaderCheck::new(&[]).with_tool(tool),
        None => HeaderCheck::new(&[]),
    };
    if let Err(e) = check.check(headers.iter().copied(), &msg) {
        let mut out = BytesMut::new();
        e.write_reply(&mut out, ReplyId::Null, &["2026-07-28"]);
        let reply: serde_json::Value = serde_json::from_slice(&out).expect("reply is JSON");
        assert_eq!(reply["error"]["code"], e.code().get());
    }

    let Ok(mirrored) = mirror_headers(&msg, Some("2025-11-25"), tool.as_ref()) else {
        return;
    };
    let names: Vec<String> = mirrored.iter().map(|(h, _)| h.to_string()).collect();
    for (header, value) in &mirrored {
        let sendable = value
            .bytes()
            .all(|b| (0x20..0x7f).contains(&b) || b == b'\t')
            && !value.starts_with([' ', '\t'])
            && !value.ends_with([' ', '\t']);
        assert!(sendable, "{header} mirrored as {value:?}");
        if matches!(header, Header::Name | Header::Param(_)) {
            assert!(
                decode_header_value(value.as_bytes()).is_ok(),
                "{header}: {value:?}"
            );
        }
    }
    let sent = names
        .iter()
        .zip(&mirrored)
        .map(|(n, (_, v))| (n.as_str(), v.as_bytes()));
    match check.check(sent, &msg) {
        Ok(())
        | Err(HeaderError::Missing(_))
        | Err(HeaderError::Mismatch(Header::ProtocolVersion | Header::Param(_))) => {}
        Err(e) => panic!("the headers mirrored from {msg:?} fail the check: {e}; {mirrored:?}"),
    }
}
