//! A serde_json-based reference classifier: what rpcwire's decoder must make of a frame,
//! computed the slow and obvious way (the rules of JSON-RPC 2.0 and MCP, and the conformance
//! vectors in `tests/data`).
//!
//! Test-only code, shared by the differential property tests (`tests/differential.rs`), the
//! corpus replay (`tests/fuzz_corpus.rs`) and the `differential` and `batch` fuzz targets,
//! which include this file with `#[path]`.
//!
//! How it reads a frame:
//! 1. the whole frame must be UTF-8 (`str::from_utf8`);
//! 2. the whole frame must be exactly one JSON value with optional whitespace around it:
//!    `serde_json::from_slice::<&RawValue>`. That path (serde_json's `ignore_value`) checks the
//!    full RFC 8259 grammar, with no recursion limit and no number range (a `serde_json::Value`
//!    would refuse `1E400` as out of range, refuse 128 levels of nesting, and refuse lone
//!    surrogates, all of which are valid JSON text);
//! 3. nesting deeper than 128 (the default `Limits::max_depth`, the envelope counting as 1) is
//!    a parse error; the depth is counted on the already validated text;
//! 4. objects are read member by member in wire order with a `Deserialize` visitor over
//!    `(unescaped key, &RawValue)` pairs, so duplicate keys are seen (a `serde_json::Value`
//!    silently keeps the last one) and every value keeps its exact wire token;
//! 5. strings are unescaped through serde_json's byte path (`deserialize_bytes`), which
//!    decodes escapes without insisting on paired surrogates and yields WTF-8.
//!
//! Lone surrogates (`"\ud800"`): serde_json's `String` path rejects them ("lone leading
//! surrogate in hex escape"), but they are valid JSON text per RFC 8259's grammar and rpcwire
//! accepts them (the hardened profile refuses them in `method` and ids). Because this reference
//! only validates with `RawValue` and unescapes through the byte path, it accepts them too:
//! they stay *inside* the comparison. Decoded text is compared with the lone surrogate as
//! U+FFFD, which is what `JsonStr::decode` produces.
//!
//! The classification collects every rule violation; the order rpcwire checks them in does not
//! change the outcome compared here (kind, valid id, reply), only which `DecodeError` is named.
#![allow(dead_code)]

pub mod json_prefix;

use rpcwire::{Decoder, Dialect, Message, Rejection, ReplyId, Role};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// `Limits::DEFAULT.max_depth`.
pub const MAX_DEPTH: usize = 128;
/// `Limits::DEFAULT.max_id_len`: raw token, quotes included.
pub const MAX_ID_LEN: usize = (64 << 10) + 2;
/// `Limits::DEFAULT.max_method_len`: raw (escaped) bytes between the quotes.
pub const MAX_METHOD_LEN: usize = 64 << 10;
/// `Limits::DEFAULT.max_batch_len`: a batch of more elements is refused whole.
pub const MAX_BATCH_LEN: usize = 100_000;

/// What a frame is, in the vocabulary of `rpcwire check --json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `request`, `notification`, `success_response`, `error_response`, `batch`, `invalid`,
    /// `parse_error` or `invalid_response`.
    pub kind: &'static str,
    /// The id's exact wire token: the message's id, or for a rejection the id a reply may echo
    /// (readable, once, and valid for the dialect). `None` when there is none.
    pub id: Option<String>,
    /// The raw (escaped) bytes of `method`, between the quotes.
    pub method_raw: Option<String>,
    /// The decoded method, lone surrogates as U+FFFD.
    pub method: Option<String>,
    /// `error.code` of an error response.
    pub error_code: Option<i64>,
    /// The reply: `None` when nothing may be sent, else (code, id token or `None` = absent).
    pub reply: Option<(i64, Option<String>)>,
    /// Span in the frame of `params`, `result`, or the batch array.
    pub payload: Option<(usize, usize)>,
    /// Span in the frame of `error.data`.
    pub error_data: Option<(usize, usize)>,
}

impl Outcome {
    fn new(kind: &'static str) -> Outcome {
        Outcome {
            kind,
            id: None,
            method_raw: None,
            method: None,
            error_code: None,
            reply: None,
            payload: None,
            error_data: None,
        }
    }
}

/// Whether serde_json accepts `frame` as one JSON value (UTF-8, RFC 8259 grammar, whitespace
/// around it), ignoring depth. Lazy-mode comparisons are made only on such frames.
pub fn is_json(frame: &[u8]) -> bool {
    std::str::from_utf8(frame).is_ok() && serde_json::from_slice::<&RawValue>(frame).is_ok()
}

/// Deepest nesting of arrays and objects in a text that is already known to be valid JSON.
pub fn depth(json: &[u8]) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in json {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth -= 1,
            _ => {}
        }
    }
    max
}

/// An unescaped string or key, as WTF-8 bytes (a lone surrogate keeps its 3-byte form).
pub struct Unescaped(pub Vec<u8>);

impl<'de> Deserialize<'de> for Unescaped {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Unescaped;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Unescaped, E> {
                Ok(Unescaped(v.to_vec()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Unescaped, E> {
                Ok(Unescaped(v.as_bytes().to_vec()))
            }
        }
        d.deserialize_bytes(V)
    }
}

/// An object's members in wire order: (unescaped key, raw value), duplicates kept.
pub struct Members<'a>(pub Vec<(Vec<u8>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(key) = map.next_key::<Unescaped>()? {
                    let value: &'de RawValue = map.next_value()?;
                    members.push((key.0, value));
                }
                Ok(Members(members))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'a> Members<'a> {
    /// Every value of the members named `name`.
    fn all(&self, name: &str) -> Vec<&'a RawValue> {
        self.0
            .iter()
            .filter(|(k, _)| k == name.as_bytes())
            .map(|(_, v)| *v)
            .collect()
    }
}

fn bytes(v: &RawValue) -> &[u8] {
    v.get().as_bytes()
}

/// Tokens are compared as text (frames are UTF-8 by the time a token is read).
fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn first(v: &RawValue) -> u8 {
    bytes(v)[0]
}

fn members(v: &RawValue) -> Members<'_> {
    serde_json::from_str(v.get()).expect("a validated object")
}

fn unescape(v: &RawValue) -> Vec<u8> {
    serde_json::from_str::<Unescaped>(v.get())
        .expect("a validated string")
        .0
}

/// WTF-8 to a `String`, each lone surrogate as U+FFFD.
pub fn wtf8_lossy(mut b: &[u8]) -> String {
    let mut out = String::new();
    loop {
        match std::str::from_utf8(b) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let ok = e.valid_up_to();
                out.push_str(std::str::from_utf8(&b[..ok]).unwrap());
                // serde_json's byte path only produces 3-byte surrogate sequences here.
                out.push(char::REPLACEMENT_CHARACTER);
                b = &b[(ok + 3).min(b.len())..];
            }
        }
    }
}

/// The span of `part` (borrowed from `frame`) inside `frame`.
fn span(frame: &[u8], part: &[u8]) -> (usize, usize) {
    let start = part.as_ptr() as usize - frame.as_ptr() as usize;
    assert!(start + part.len() <= frame.len(), "part outside the frame");
    (start, start + part.len())
}

/// `-?(0|[1-9][0-9]*)`.
fn is_integer_token(t: &[u8]) -> bool {
    let d = t.strip_prefix(b"-").unwrap_or(t);
    match d {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// What rpcwire's decoder must make of `frame` with the default options of `dialect`
/// (default limits, not hardened, unknown members ignored) reading as `role`.
pub fn classify(frame: &[u8], dialect: Dialect, role: Role) -> Outcome {
    classify_with_batches(frame, dialect, role, dialect == Dialect::JsonRpc2)
}

/// [`classify`] with batches allowed or not (`DecodeOptions::batches`), whatever the dialect's
/// default.
pub fn classify_with_batches(frame: &[u8], dialect: Dialect, role: Role, batches: bool) -> Outcome {
    let mcp = dialect == Dialect::Mcp;
    // MCP's default for an unreadable id is to omit it; JSON-RPC's is null.
    let unreadable = if mcp { None } else { Some("null".to_string()) };
    let rejected = |valid_id: Option<&[u8]>, is_response: bool| {
        let mut o = Outcome::new(if is_response {
            "invalid_response"
        } else {
            "invalid"
        });
        o.id = valid_id.map(text);
        if !is_response {
            o.reply = Some((-32600, o.id.clone().or(unreadable.clone())));
        }
        o
    };
    let mut parse_error = Outcome::new("parse_error");
    parse_error.reply = Some((-32700, unreadable.clone()));

    if std::str::from_utf8(frame).is_err() {
        return parse_error;
    }
    let Ok(top) = serde_json::from_slice::<&RawValue>(frame) else {
        return parse_error;
    };
    if depth(bytes(top)) > MAX_DEPTH {
        return parse_error;
    }

    match first(top) {
        b'[' => {
            let elements: Vec<&RawValue> = serde_json::from_str(top.get()).unwrap();
            if elements.is_empty() {
                return rejected(None, false);
            }
            if !batches || elements.len() > MAX_BATCH_LEN {
                // A batch where none is allowed, or of more elements than the limit; one made
                // only of responses is not answered (an `id` alone is one when a client reads
                // it).
                let is_response = |e: &&RawValue| {
                    first(e) == b'{' && {
                        let m = members(e);
                        m.all("method").is_empty()
                            && !(m.all("result").is_empty()
                                && m.all("error").is_empty()
                                && (role == Role::Server || m.all("id").is_empty()))
                    }
                };
                return rejected(None, elements.iter().all(is_response));
            }
            let mut o = Outcome::new("batch");
            o.payload = Some(span(frame, bytes(top)));
            o
        }
        b'{' => classify_object(frame, &members(top), mcp, role, rejected),
        _ => rejected(None, false),
    }
}

fn classify_object(
    frame: &[u8],
    m: &Members<'_>,
    mcp: bool,
    role: Role,
    rejected: impl Fn(Option<&[u8]>, bool) -> Outcome,
) -> Outcome {
    let version = m.all("jsonrpc");
    let id = m.all("id");
    let method = m.all("method");
    let params = m.all("params");
    let result = m.all("result");
    let error = m.all("error");

    let has_method = !method.is_empty();
    let has_response = !(result.is_empty() && error.is_empty());
    let has_id = !id.is_empty();
    // A response (or, read by a client, an id-only frame) is never answered.
    let is_response = !has_method && (has_response || (has_id && role == Role::Client));

    // The id a reply may echo: present once, valid for the dialect, not over-long.
    let id_ok = |t: &[u8]| {
        t.len() <= MAX_ID_LEN
            && match t[0] {
                b'"' => true,
                // MCP ids are never null, except in an error response.
                b'n' => !mcp || (!error.is_empty() && !has_method),
                // MCP ids are canonical integers of any size.
                b'-' | b'0'..=b'9' => !mcp || is_integer_token(t),
                _ => false,
            }
    };
    let valid_id = match id.as_slice() {
        [v] if id_ok(bytes(v)) => Some(bytes(v)),
        _ => None,
    };

    let mut ok = true;
    let mut rule = |holds: bool| ok &= holds;
    for name in ["jsonrpc", "id", "method", "params", "result", "error"] {
        rule(m.all(name).len() <= 1);
    }
    rule(matches!(version.as_slice(), [v] if first(v) == b'"' && unescape(v) == b"2.0"));
    rule(!(has_method && has_response));
    rule(!has_id || valid_id.is_some());
    rule(has_method || has_response);
    rule(result.is_empty() || error.is_empty());

    let mut o = Outcome::new("");
    if has_method {
        let v = method[0];
        rule(first(v) == b'"');
        if first(v) == b'"' {
            let raw = &bytes(v)[1..bytes(v).len() - 1];
            rule(raw.len() <= MAX_METHOD_LEN);
            o.method_raw = Some(text(raw));
            o.method = Some(wtf8_lossy(&unescape(v)));
        }
        if let Some(p) = params.first() {
            rule(first(p) == b'{' || (first(p) == b'[' && !mcp));
            o.payload = Some(span(frame, bytes(p)));
        }
        o.kind = if has_id { "request" } else { "notification" };
    } else if let Some(r) = result.first() {
        // A success response needs an id; `null` answers a request whose id was `null`
        // (JSON-RPC 2.0 §5: the same value as the request's). MCP ids are never null here.
        rule(!id.is_empty());
        if mcp {
            rule(first(r) == b'{');
            if first(r) == b'{' {
                // An absent resultType means "complete"; "complete" and "input_required"
                // (2026-07-28) are known, and "task" (its official Tasks extension); any
                // other value, or an ambiguous (duplicated) one, is invalid.
                let rt = members(r).all("resultType");
                rule(match rt.as_slice() {
                    [] => true,
                    [t] => {
                        first(t) == b'"'
                            && matches!(&unescape(t)[..], b"complete" | b"input_required" | b"task")
                    }
                    _ => false,
                });
            }
        }
        o.payload = Some(span(frame, bytes(r)));
        o.kind = "success_response";
    } else if let Some(e) = error.first() {
        // JSON-RPC requires the id member (null when unreadable); MCP may omit it.
        rule(has_id || mcp);
        rule(first(e) == b'{');
        if first(e) == b'{' {
            let em = members(e);
            let (code, message, data) = (em.all("code"), em.all("message"), em.all("data"));
            rule(code.len() == 1 && message.len() == 1 && data.len() <= 1);
            let code = code
                .first()
                .filter(|c| is_integer_token(bytes(c)))
                .and_then(|c| c.get().parse::<i64>().ok());
            rule(code.is_some());
            rule(message.first().is_some_and(|m| first(m) == b'"'));
            o.error_code = code;
            o.error_data = data.first().map(|d| span(frame, bytes(d)));
        }
        o.kind = "error_response";
    }

    if !ok {
        return rejected(valid_id, is_response);
    }
    o.id = valid_id.map(text);
    o
}

/// What `Batch::decode` must make of each element of `frame`, a batch the decoder accepts
/// ([`classify_with_batches`] says `batch`), in order, with spans in the whole frame:
/// - a nested array is -32600 `NotAnObject` (unreadable id), whatever it holds;
/// - in the MCP dialect, a request for `initialize` (decoded method) is -32600
///   `InitializeInBatch`, echoing the request's id;
/// - any other element is what it is as a frame of its own.
///
/// Returns `None` when `frame` is not such a batch.
pub fn classify_batch_elements(frame: &[u8], dialect: Dialect, role: Role) -> Option<Vec<Outcome>> {
    if classify_with_batches(frame, dialect, role, true).kind != "batch" {
        return None;
    }
    let mcp = dialect == Dialect::Mcp;
    let top: &RawValue = serde_json::from_slice(frame).expect("a batch is JSON");
    let elements: Vec<&RawValue> = serde_json::from_str(top.get()).expect("a batch is an array");
    let classify_element = |element: &RawValue| {
        if first(element) == b'[' {
            return invalid_request(None, mcp);
        }
        let alone = classify_with_batches(bytes(element), dialect, role, true);
        if mcp && alone.kind == "request" && alone.method.as_deref() == Some("initialize") {
            return invalid_request(alone.id, mcp);
        }
        shifted(alone, span(frame, bytes(element)).0)
    };
    Some(elements.into_iter().map(classify_element).collect())
}

/// The outcome of an element refused with -32600 (not a response): its valid id, echoed by
/// the reply, or the dialect's form for an id that cannot be read (JSON-RPC: `null`; MCP:
/// left out).
fn invalid_request(id: Option<String>, mcp: bool) -> Outcome {
    let unreadable = if mcp { None } else { Some("null".to_string()) };
    let mut o = Outcome::new("invalid");
    o.reply = Some((-32600, id.clone().or(unreadable)));
    o.id = id;
    o
}

/// `o` with its spans moved `by` bytes on: from an element's own bytes to the whole frame's.
fn shifted(mut o: Outcome, by: usize) -> Outcome {
    let shift = |(start, end): (usize, usize)| (start + by, end + by);
    o.payload = o.payload.map(shift);
    o.error_data = o.error_data.map(shift);
    o
}

/// Whether a batch of elements with these outcomes calls for a reply: one element is a
/// request, or a rejection that is answered.
pub fn expects_reply(elements: &[Outcome]) -> bool {
    elements
        .iter()
        .any(|o| o.kind == "request" || o.reply.is_some())
}

/// What rpcwire's `decoder` actually made of `frame`, in the same vocabulary.
pub fn observe(decoder: &Decoder, frame: &[u8]) -> Outcome {
    outcome_of(frame, &decoder.decode(frame))
}

/// `decoded`, an outcome of decoding `frame` or a part of it, in the vocabulary of
/// [`Outcome`], with spans in `frame`.
pub fn outcome_of(frame: &[u8], decoded: &Result<Message<'_>, Rejection<'_>>) -> Outcome {
    match *decoded {
        Ok(msg) => {
            let mut o = Outcome::new(msg.kind().as_str());
            o.id = msg.id().map(|id| text(id.raw()));
            o.method_raw = msg.method().map(|m| text(m.raw()));
            o.method = msg.method().map(|m| m.decode().into_owned());
            match msg {
                Message::Request(r) => o.payload = r.params.map(|p| span(frame, p.as_bytes())),
                Message::Notification(n) => o.payload = n.params.map(|p| span(frame, p.as_bytes())),
                Message::Response(r) => o.payload = Some(span(frame, r.result.as_bytes())),
                Message::ErrorResponse(e) => {
                    o.error_code = Some(e.error.code.get());
                    o.error_data = e.error.data.map(|d| span(frame, d.as_bytes()));
                }
                Message::Batch(b) => o.payload = Some(span(frame, b.raw.as_bytes())),
            }
            o
        }
        Err(ref rej) => {
            let mut o = Outcome::new(rej.kind_str());
            o.id = rej.id().map(|id| text(id.raw()));
            o.reply = rej.reply().map(|r| {
                let id = match r.id {
                    ReplyId::Id(id) => Some(text(id.raw())),
                    ReplyId::Null => Some("null".to_string()),
                    ReplyId::Absent => None,
                };
                (r.code.get(), id)
            });
            o
        }
    }
}
