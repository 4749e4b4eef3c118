//! Writers for the four message shapes, the error reply for a rejected frame, and id
//! rewriting for proxies.
//!
//! Every message writer appends exactly one line (the JSON object and a `\n`) to a
//! [`BytesMut`]; [`write_raw_json`] and [`write_json_string`] append a single value, with no
//! line end, for building payloads. Raw payloads are spliced in as they are, except that line
//! breaks (which valid JSON can only hold as insignificant whitespace) become spaces, so a
//! payload from a multi-line source never puts a newline on the wire.
//!
//! Payloads are spliced whatever their depth. One nested more than 127 levels, which only
//! [`RawJson::with_max_depth`] or a decoder with a raised depth limit hands out, makes a line
//! the default decoder refuses as -32700 without reading its id: a request so sent is never
//! answered by its id, and a response so sent never reaches its request. Send such a payload
//! only to a peer whose limit is raised too. ([`write_error`] leaves out a `data` too deep for
//! the default limit, and [`BatchReply`] replaces an element too deep for it: there more than
//! an optional member, or than one reply, is at stake.)
//!
//! Ids and method names are written whatever their length too. Past the default decoder's
//! limits ([`Limits::DEFAULT`](crate::Limits::DEFAULT): an id token over 64 KiB + 2 bytes, a
//! method over 64 KiB) a request is refused as -32600, without its id when the id is what is
//! too long, and a response to such an id is refused too, never matched: keep them within the
//! limits of the peer.
//!
//! ```
//! use bytes::BytesMut;
//! use rpcwire::{encode, Decoder, Id, RawJson, ReplyId};
//! let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
//! let params = RawJson::with_max_depth(deep.as_bytes(), 128).unwrap();
//! let mut out = BytesMut::new();
//! encode::write_request(&mut out, Id::from_token(b"7").unwrap(), "m", Some(params));
//! let refused = Decoder::jsonrpc().decode(&out[..out.len() - 1]).unwrap_err();
//! assert_eq!(refused.reply().unwrap().id, ReplyId::Null); // not 7
//! ```

use bytes::{BufMut, BytesMut};

use crate::error::ErrorCode;
use crate::id::Id;
use crate::json::{JsonStr, RawJson};
use crate::message::{Reply, ReplyId};
use crate::scan::{self, Validation, scalar::skip_ws};

const VERSION: &[u8] = b"{\"jsonrpc\":\"2.0\"";

/// Appends `raw`, turning any `\n` or `\r` (whitespace in valid JSON) into a space.
#[inline]
pub fn write_raw_json(out: &mut BytesMut, raw: RawJson<'_>) {
    write_on_one_line(out, raw.as_bytes());
}

/// Appends `bytes`, each `\n` or `\r` turned into a space.
#[inline]
fn write_on_one_line(out: &mut BytesMut, bytes: &[u8]) {
    // Searched before the copy: most payloads hold no line break, and a copy searched after
    // it measured 5-8 % slower on them.
    match memchr::memchr2(b'\n', b'\r', bytes) {
        None => out.extend_from_slice(bytes),
        Some(first) => write_with_line_breaks(out, bytes, first),
    }
}

/// [`write_on_one_line`] of a payload whose first line break is at `first`: copied whole,
/// then fixed in place. Out of line, so that the usual payload's path stays short (inline, it
/// cost a short response 2-3 ns in the encode benches' fastest passes).
#[cold]
#[inline(never)]
fn write_with_line_breaks(out: &mut BytesMut, bytes: &[u8], first: usize) {
    let at = out.len() + first;
    out.extend_from_slice(bytes);
    put_on_one_line(&mut out[at..]);
}

/// Turns each `\n` or `\r` of `bytes` into a space, in place: a value already in the output
/// made what [`write_raw_json`] would have appended of it.
#[inline]
pub(crate) fn put_on_one_line(bytes: &mut [u8]) {
    let mut at = 0;
    while let Some(found) = memchr::memchr2(b'\n', b'\r', &bytes[at..]) {
        bytes[at + found] = b' ';
        at += found + 1;
    }
}

/// Appends `s` as a JSON string literal, quotes included, escaping `"`, `\` and control
/// characters (as `serde_json` does: `\n`, `\r`, `\t`, `\b`, `\f`, else `\u00xx`).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, RawJson};
/// // A tool's text output, spliced into the result of its `tools/call`.
/// let text = "Seattle: 12 °C\n\"light rain\"";
/// let mut result = BytesMut::from(&br#"{"content":[{"type":"text","text":"#[..]);
/// encode::write_json_string(&mut result, text);
/// result.extend_from_slice(b"}]}");
/// assert_eq!(&result[..], r#"{"content":[{"type":"text","text":"Seattle: 12 °C\n\"light rain\""}]}"#.as_bytes());
/// assert!(RawJson::new(&result).is_some()); // one JSON value, ready for `write_response`
///
/// let mut escaped = BytesMut::new();
/// encode::write_json_string(&mut escaped, "\u{1b}[1mbold");
/// assert_eq!(&escaped[..], br#""\u001b[1mbold""#);
/// ```
pub fn write_json_string(out: &mut BytesMut, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.put_u8(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    loop {
        let i = next_to_escape(bytes, start);
        out.extend_from_slice(&bytes[start..i]);
        let Some(&b) = bytes.get(i) else { break };
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            _ => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ],
        };
        out.extend_from_slice(escape);
        start = i + 1;
    }
    out.put_u8(b'"');
}

/// Appends `strings` as a JSON array of strings, each escaped as [`write_json_string`] does
/// (a list of protocol versions, say).
pub(crate) fn write_json_string_array(out: &mut BytesMut, strings: &[&str]) {
    out.put_u8(b'[');
    for (i, s) in strings.iter().enumerate() {
        if i > 0 {
            out.put_u8(b',');
        }
        write_json_string(out, s);
    }
    out.put_u8(b']');
}

/// Whether JSON needs `b` escaped in a string.
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The index of the first byte at or after `from` that JSON needs escaped, or `bytes.len()`.
///
/// Eight bytes at a time in a `u64` (memchr has no search for a class of bytes, and error
/// messages and method names are too short for a SIMD call to pay): `x ^ 2 < 0x21` exactly
/// for control bytes and `"` (see `scan`'s long-string jump), and `x ^ b'\\'` is zero for a
/// backslash. Each test sets the top bit of the bytes it finds; a borrow can also mark bytes
/// above a found one, never below, so the lowest mark is exact.
#[inline]
fn next_to_escape(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const TOP: u64 = ONES << 7;
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*chunk);
        let quote_or_control = word ^ (ONES * 2);
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let below = quote_or_control.wrapping_sub(ONES * 0x21) & !quote_or_control;
        let zero = backslash.wrapping_sub(ONES) & !backslash;
        let marks = (below | zero) & TOP;
        if marks != 0 {
            return i + (marks.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + bytes[i..]
        .iter()
        .position(|&b| needs_escape(b))
        .unwrap_or(bytes.len() - i)
}

#[inline]
fn write_id(out: &mut BytesMut, id: Id<'_>) {
    out.extend_from_slice(b",\"id\":");
    out.extend_from_slice(id.raw());
}

/// Appends a request: `{"jsonrpc":"2.0","id":ID,"method":M,"params":P}`. `params` is written
/// as it is: JSON-RPC wants an object or an array (MCP an object), and a receiver refuses any
/// other value with -32600, as [`Decoder`](crate::Decoder) does.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, Id, RawJson};
/// let mut out = BytesMut::new();
/// encode::write_request(&mut out, Id::from_token(b"1").unwrap(), "tools/list", Some(RawJson::EMPTY_OBJECT));
/// assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}\n");
/// ```
#[inline]
pub fn write_request(out: &mut BytesMut, id: Id<'_>, method: &str, params: Option<RawJson<'_>>) {
    write_request_head(out, id, method);
    write_params_and_end(out, params);
}

/// A request's members up to its method: `{"jsonrpc":"2.0","id":ID,"method":M`.
#[inline]
pub(crate) fn write_request_head(out: &mut BytesMut, id: Id<'_>, method: &str) {
    out.extend_from_slice(VERSION);
    write_id(out, id);
    out.extend_from_slice(b",\"method\":");
    write_json_string(out, method);
}

/// Appends a notification: `{"jsonrpc":"2.0","method":M,"params":P}` (`params` as in
/// [`write_request`]).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, RawJson};
/// let mut out = BytesMut::new();
/// encode::write_notification(&mut out, "notifications/initialized", None);
/// let params = RawJson::new(br#"{"progressToken":"req-1","progress":50,"total":100}"#).unwrap();
/// encode::write_notification(&mut out, "notifications/progress", Some(params));
/// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","method":"notifications/initialized"}
/// {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"req-1","progress":50,"total":100}}
/// "#[..]);
/// ```
#[inline]
pub fn write_notification(out: &mut BytesMut, method: &str, params: Option<RawJson<'_>>) {
    write_notification_head(out, method);
    write_params_and_end(out, params);
}

/// A notification's members up to its method: `{"jsonrpc":"2.0","method":M`.
#[inline]
pub(crate) fn write_notification_head(out: &mut BytesMut, method: &str) {
    out.extend_from_slice(VERSION);
    out.extend_from_slice(b",\"method\":");
    write_json_string(out, method);
}

/// `,"params":P` when there are params, and the object's end and line end.
#[inline]
fn write_params_and_end(out: &mut BytesMut, params: Option<RawJson<'_>>) {
    if let Some(params) = params {
        out.extend_from_slice(b",\"params\":");
        write_raw_json(out, params);
    }
    out.extend_from_slice(b"}\n");
}

/// Appends a success response: `{"jsonrpc":"2.0","id":ID,"result":R}`.
///
/// The reply to a request echoes its id token as it came; a result of several lines (from a
/// pretty-printer, say) is put on one:
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, Decoder, Message, RawJson};
/// let frame = br#"{"jsonrpc":"2.0","id":"req-1","method":"tools/list"}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!("a valid request") };
/// let result = RawJson::new(b"{\n  \"tools\": []\n}").unwrap();
/// let mut out = BytesMut::new();
/// encode::write_response(&mut out, req.id, result);
/// assert_eq!(&out[..], &b"{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"result\":{   \"tools\": [] }}\n"[..]);
/// ```
#[inline]
pub fn write_response(out: &mut BytesMut, id: Id<'_>, result: RawJson<'_>) {
    write_response_head(out, id);
    write_raw_json(out, result);
    out.extend_from_slice(b"}\n");
}

/// A success response's members up to its result's value: `{"jsonrpc":"2.0","id":ID,"result":`.
#[inline]
pub(crate) fn write_response_head(out: &mut BytesMut, id: Id<'_>) {
    out.extend_from_slice(VERSION);
    write_id(out, id);
    out.extend_from_slice(b",\"result\":");
}

/// Appends an error response: `{"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":M,"data":D}}`
/// (the `id` member omitted for [`ReplyId::Absent`]). `id` is a [`ReplyId`] or, for the usual
/// reply to a request, its [`Id`].
///
/// `data` sits inside the error object, one level deeper than a request's `params` or a
/// response's `result`: a `data` nested more than 126 levels deep (which [`RawJson::new`]
/// takes, at 127, as does a decoder reading `params` or a `result`) would make a line the
/// default decoder refuses ([`Limits::DEFAULT`](crate::Limits::DEFAULT) counts the envelope and
/// the error object), so it is left out: the reply goes without its optional `data` rather
/// than not at all. A `data` under 254 bytes cannot be that deep and is not looked at; a
/// longer one is delimited once more to find its depth (allocating nothing).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, ErrorCode, Id, ReplyId};
/// let mut out = BytesMut::new();
/// encode::write_error(&mut out, ReplyId::Null, ErrorCode::PARSE_ERROR, "Parse error", None);
/// assert_eq!(&out[..], &b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}\n"[..]);
///
/// let mut out = BytesMut::new();
/// let id = Id::from_token(b"7").unwrap();
/// encode::write_error(&mut out, id, ErrorCode::METHOD_NOT_FOUND, "Method not found", None);
/// assert!(out.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":7,"));
/// ```
#[inline]
pub fn write_error<'a>(
    out: &mut BytesMut,
    id: impl Into<ReplyId<'a>>,
    code: ErrorCode,
    message: &str,
    data: Option<RawJson<'_>>,
) {
    write_error_up_to_data(out, id.into(), code, message);
    if let Some(data) = data.filter(|data| nested_at_most(data.as_bytes(), ERROR_DATA_MAX_DEPTH)) {
        out.extend_from_slice(b",\"data\":");
        write_raw_json(out, data);
    }
    out.extend_from_slice(b"}}\n");
}

/// The deepest `data` a line the default decoder reads can hold: its depth limit counts the
/// envelope and the error object.
const ERROR_DATA_MAX_DEPTH: u32 = crate::Limits::DEFAULT.max_depth - 2;

/// Whether the value `bytes` is nested at most `max_depth` levels deep. A value `n` levels
/// deep holds `n` opening and `n` closing brackets, so a shorter one is not scanned.
pub(crate) fn nested_at_most(bytes: &[u8], max_depth: u32) -> bool {
    bytes.len() < 2 * (max_depth as usize + 1)
        || scan::skip_value(bytes, 0, 0, max_depth, Validation::Lazy).is_ok()
}

/// An error response up to its `data` member: the version, the id, the code and the message.
#[inline]
fn write_error_up_to_data(out: &mut BytesMut, id: ReplyId<'_>, code: ErrorCode, message: &str) {
    write_error_up_to_message(out, id, code);
    write_json_string(out, message);
}

/// An error response up to its `message` member's value: the version, the id and the code.
#[inline]
fn write_error_up_to_message(out: &mut BytesMut, id: ReplyId<'_>, code: ErrorCode) {
    out.extend_from_slice(VERSION);
    if let Some(token) = id.token() {
        out.extend_from_slice(b",\"id\":");
        out.extend_from_slice(token);
    }
    out.extend_from_slice(b",\"error\":{\"code\":");
    out.extend_from_slice(itoa::Buffer::new().format(code.get()).as_bytes());
    out.extend_from_slice(b",\"message\":");
}

/// Appends the -32601 reply to a request for a method the server does not have, with the
/// method in `data` as JSON-RPC's examples and MCP's servers give it: its string spliced as
/// it came (escapes and all), no copy to build it. A [`JsonStr`] whose body is not a JSON
/// string's (only [`JsonStr::from_raw`] makes one) is written as its decoded text, escaped
/// anew, so the reply is always one line of JSON.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":5,"method":"tele\u0070ort"}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let mut out = BytesMut::new();
/// encode::write_method_not_found(&mut out, req.id, req.method);
/// assert_eq!(
///     out[..].strip_suffix(b"\n").unwrap(),
///     br#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found","data":"tele\u0070ort"}}"#,
/// );
/// ```
pub fn write_method_not_found(out: &mut BytesMut, id: Id<'_>, method: JsonStr<'_>) {
    let code = ErrorCode::METHOD_NOT_FOUND;
    let message = code.default_message().unwrap_or("Method not found");
    write_error_up_to_data(out, ReplyId::Id(id), code, message);
    out.extend_from_slice(b",\"data\":");
    write_string_body(out, method);
    out.extend_from_slice(b"}}\n");
}

/// Appends `s` as a string literal: its body spliced between quotes when it is one JSON
/// string as RFC 8259 spells it (as a decoder hands it out: UTF-8, no raw control byte or
/// quote, only the escapes JSON defines), else its decoded text escaped anew. A
/// [`JsonStr::from_raw`] of other bytes (a raw line break, a lone quote) would otherwise
/// split the line or end the string early.
fn write_string_body(out: &mut BytesMut, s: JsonStr<'_>) {
    let open = out.len();
    out.put_u8(b'"');
    out.extend_from_slice(s.raw());
    out.put_u8(b'"');
    let close = out.len() - 1;
    let one_string = simdutf8::basic::from_utf8(s.raw()).is_ok()
        && matches!(scan::string_end(out, open + 1), Ok((end, _)) if end == close);
    if !one_string {
        out.truncate(open);
        write_json_string(out, &s.decode());
    }
}

/// Appends the error reply a rejected frame calls for, with the code's standard message and
/// an optional `data`.
///
/// [`Decoder::decode`](crate::Decoder::decode)'s example answers a frame that is not JSON
/// and one that breaks a rule of the envelope; with a `data`, the reply says why:
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, Decoder, RawJson};
/// // MCP's `params` is an object.
/// let frame = br#"{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":"get_weather"}"#;
/// let rejection = Decoder::mcp().decode(frame).unwrap_err();
/// let reply = rejection.reply().expect("a request is answered");
/// let mut out = BytesMut::new();
/// let why = RawJson::new(br#""params must be an object""#).unwrap();
/// encode::write_reply(&mut out, &reply, Some(why));
/// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":"req-1","error":{"code":-32600,"message":"Invalid Request","data":"params must be an object"}}
/// "#[..]);
/// ```
pub fn write_reply(out: &mut BytesMut, reply: &Reply<'_>, data: Option<RawJson<'_>>) {
    let message = reply.code.default_message().unwrap_or("Error");
    write_error(out, reply.id, reply.code, message, data);
}

/// Appends a received frame as one line, to forward it unchanged: byte for byte, but for the
/// line breaks a frame may hold as JSON whitespace (a pretty-printed `Content-Length` body, an
/// SSE event of several `data:` lines), which become spaces; then a `\n`. In a frame a
/// [`Decoder`](crate::Decoder) accepted, a line break is whitespace between tokens, so the line
/// is the same JSON; in any other bytes too, every `\r` and `\n` becomes a space, so the line
/// is never split. [`write_with_id`] is the same with the id rewritten.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, Decoder};
/// // The body of an SSE event of two `data:` lines, joined by the framer with a `\n`.
/// let frame = b"{\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/initialized\"}";
/// assert!(Decoder::mcp().decode(frame).is_ok());
/// let mut out = BytesMut::new();
/// encode::write_frame(&mut out, frame);
/// assert_eq!(&out[..], &b"{\"jsonrpc\":\"2.0\", \"method\":\"notifications/initialized\"}\n"[..]);
/// ```
pub fn write_frame(out: &mut BytesMut, frame: &[u8]) {
    write_on_one_line(out, frame);
    out.put_u8(b'\n');
}

/// Appends `frame` with its id token replaced by `new_id`, everything else byte for byte
/// (a proxy's id rewrite). `old_id` must be the id decoded from `frame` (a subslice of it).
/// Line breaks in the frame become spaces, and a `\n` ends the line.
///
/// It rewrites the message's own `id` only. A proxy that rewrites a client's request ids
/// rewrites the `requestId` of the client's `notifications/cancelled` too, or upstream reads
/// the client's id as the token of another request it holds. An
/// [`IdRemapper`](crate::IdRemapper) does both:
/// [`forward_request`](crate::IdRemapper::forward_request) rewrites the request's id,
/// [`forward_cancel`](crate::IdRemapper::forward_cancel) the `requestId` of its cancellation.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, Decoder, Id};
/// let frame = br#"{"jsonrpc":"2.0","id":"client-7","method":"ping"}"#;
/// let req = Decoder::mcp().decode(frame).unwrap();
/// let mut out = BytesMut::new();
/// encode::write_with_id(&mut out, frame, req.id().unwrap(), Id::from_token(b"42").unwrap());
/// assert_eq!(&out[..], &b"{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\"}\n"[..]);
/// ```
///
/// # Panics
/// If `old_id` does not point into `frame`.
pub fn write_with_id(out: &mut BytesMut, frame: &[u8], old_id: Id<'_>, new_id: Id<'_>) {
    write_with_tokens(out, frame, [(old_id, new_id)]);
}

/// Where `token` starts in `frame`.
///
/// # Panics
/// When `token` is not a subslice of `frame` (as the tokens [`write_with_id`] replaces must
/// be): a caller's mistake, which callers that keep state check before changing it.
pub(crate) fn offset_in(frame: &[u8], token: &[u8]) -> usize {
    range_in(frame, token)
        .expect("a replaced token must be a subslice of the frame")
        .start
}

/// Where `part` lies in `frame`, or `None` when it is not a subslice of it (by address: equal
/// bytes elsewhere are not).
pub(crate) fn range_in(frame: &[u8], part: &[u8]) -> Option<core::ops::Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(frame.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= frame.len()).then_some(start..end)
}

/// Where the tokens of `frame` that [`write_with_tokens`] replaces lie, in order: `(start,
/// end, what)` for each `(token, what)`.
///
/// # Panics
/// When a token is not a subslice of `frame`, or two of them overlap: a caller's mistake,
/// which callers that keep state check before changing it (with `what` = `()`).
pub(crate) fn token_spans<T, const N: usize>(
    frame: &[u8],
    tokens: [(&[u8], T); N],
) -> [(usize, usize, T); N] {
    let mut spans = tokens.map(|(token, what)| {
        let start = offset_in(frame, token);
        (start, start + token.len(), what)
    });
    spans.sort_unstable_by_key(|&(start, ..)| start);
    let mut at = 0;
    for &(start, end, _) in &spans {
        assert!(start >= at, "replaced tokens must not overlap");
        at = end;
    }
    spans
}

/// [`write_with_id`] for several tokens of `frame` at once (an id and a progress token, say):
/// each `(old, new)` pair replaces the token `old`, a subslice of `frame`, by `new`.
///
/// # Panics
/// If an `old` token does not point into `frame`, or two of them overlap.
pub(crate) fn write_with_tokens<const N: usize>(
    out: &mut BytesMut,
    frame: &[u8],
    tokens: [(Id<'_>, Id<'_>); N],
) {
    let spans = token_spans(frame, tokens.map(|(old, new)| (old.raw(), new)));
    let mut at = 0;
    for (start, end, new) in spans {
        write_raw_json(out, RawJson::trusted(&frame[at..start]));
        out.extend_from_slice(new.raw());
        at = end;
    }
    write_raw_json(out, RawJson::trusted(&frame[at..]));
    out.put_u8(b'\n');
}

/// Writes a batch reply: one JSON array on one line, its elements written with the other
/// writers of this module. The array is never empty: when no element was written,
/// [`close`](Self::close) removes the opening bracket and nothing is sent, as JSON-RPC
/// requires for a batch made only of notifications.
///
/// An array that answers a batch holds responses alone (JSON-RPC 2.0 §6: "an Array containing
/// the corresponding Response objects"; MCP 2025-03-26: `JSONRPCBatchResponse =
/// (JSONRPCResponse | JSONRPCError)[]`). The array takes whatever its writers write (a proxy
/// rebuilds a batch of requests with it too), so a server whose handler also writes a
/// notification or a request of its own (a `notifications/progress`, a `roots/list`) writes
/// those outside the array, on lines of their own, not with the handler's reply in
/// [`push`](Self::push): there each line becomes an element.
///
/// It holds the buffer while it is open, so nothing else is written into the array. Dropped
/// without [`close`](Self::close) (an early return, a `?`, a panic in a writer), it takes
/// back everything it wrote: the buffer never keeps half an array.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, encode::BatchReply, ErrorCode, Id, RawJson, ReplyId};
/// let mut out = BytesMut::new();
/// let mut batch = BatchReply::open(&mut out);
/// batch.push(|out| encode::write_response(out, Id::from_token(b"1").unwrap(), RawJson::new(b"7").unwrap()));
/// batch.push(|out| encode::write_error(out, ReplyId::Null, ErrorCode::INVALID_REQUEST, "Invalid Request", None));
/// assert!(batch.close());
/// assert_eq!(&out[..], &br#"[{"jsonrpc":"2.0","id":1,"result":7},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]
/// "#[..]);
///
/// // Nothing to answer: nothing is written.
/// let mut out = BytesMut::new();
/// assert!(!BatchReply::open(&mut out).close());
/// assert!(out.is_empty());
///
/// // Not closed: what it wrote is taken back.
/// let mut out = BytesMut::from(&b"before\n"[..]);
/// let mut batch = BatchReply::open(&mut out);
/// batch.push(|out| encode::write_response(out, Id::from_token(b"1").unwrap(), RawJson::new(b"7").unwrap()));
/// drop(batch);
/// assert_eq!(&out[..], b"before\n");
/// ```
#[derive(Debug)]
#[must_use = "a batch reply must be closed, or what it wrote is taken back"]
pub struct BatchReply<'a> {
    out: &'a mut BytesMut,
    /// Where the array begins in `out`.
    start: usize,
    elements: usize,
    /// Set by `close`: the array is whole (or was removed), and stays as it is.
    closed: bool,
}

impl<'a> BatchReply<'a> {
    /// Opens the array at the end of `out`, which it holds until it is closed or dropped
    /// (see the [`BatchReply`] example).
    pub fn open(out: &'a mut BytesMut) -> Self {
        let start = out.len();
        out.put_u8(b'[');
        BatchReply {
            out,
            start,
            elements: 0,
            closed: false,
        }
    }

    /// Appends one element written by `write` (any writer of this module; its line end is
    /// removed). A writer that writes nothing, or only whitespace (`write_frame` of a blank
    /// frame), adds no element; one that writes several lines (several messages, from a
    /// closure that calls more than one writer) adds each as its own element, so that no line
    /// break splits the array: in a batch's reply, that is a notification or a request among
    /// its responses, which the array must not hold (see [`BatchReply`]).
    ///
    /// Inside the array an element sits one level deeper than alone, so a response whose
    /// `result` is nested 127 levels deep (as [`RawJson::new`] takes) or an error whose `data`
    /// is nested 126 (as [`write_error`] writes it) would make an array the default decoder
    /// refuses, every other reply with it. Such an element is written as an error with its
    /// id instead: a response's as -32603 "Internal error", an error as itself without its
    /// `data`; another element (a request) is taken back. (An element under 256 bytes cannot
    /// be that deep and is not looked at; a longer one is delimited once more to find its
    /// depth, and only one too deep is read, allocating.)
    ///
    /// A server answering a batch: one element for each request and each rejected element
    /// that calls for a reply, none for a notification.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{encode, encode::BatchReply, Decoder, Message, RawJson};
    /// let decoder = Decoder::jsonrpc();
    /// let frame = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"log"},{"jsonrpc":"2.0","method":7}]"#;
    /// let Ok(Message::Batch(batch)) = decoder.decode(frame) else { panic!("a batch") };
    /// let mut out = BytesMut::new();
    /// let mut reply = BatchReply::open(&mut out);
    /// for element in batch.decode(&decoder) {
    ///     match element {
    ///         Ok(Message::Request(req)) => {
    ///             reply.push(|out| encode::write_response(out, req.id, RawJson::EMPTY_OBJECT));
    ///         }
    ///         Ok(_) => {} // a notification, or a response: no reply
    ///         Err(rejected) => {
    ///             if let Some(error) = rejected.reply() {
    ///                 reply.push(|out| encode::write_reply(out, &error, None));
    ///             }
    ///         }
    ///     }
    /// }
    /// assert_eq!(reply.len(), 2);
    /// assert!(reply.close());
    /// assert_eq!(&out[..], &br#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}]
    /// "#[..]);
    /// ```
    ///
    /// # Panics
    /// If `write` shortens `out` past where the element starts: it is handed the whole buffer,
    /// the array so far included, to append to, and must only append.
    pub fn push(&mut self, write: impl FnOnce(&mut BytesMut)) {
        let out = &mut *self.out;
        let before = out.len();
        if self.elements > 0 {
            out.put_u8(b',');
        }
        let body = out.len();
        write(out);
        assert!(
            out.len() >= body,
            "a batch element's writer must only append to the buffer"
        );
        match finish_elements(out, body) {
            0 => out.truncate(before),
            added => self.elements += added,
        }
    }

    /// How many elements were appended.
    pub fn len(&self) -> usize {
        self.elements
    }

    /// Whether no element was appended.
    pub fn is_empty(&self) -> bool {
        self.elements == 0
    }

    /// Closes the array and ends the line; returns whether there is a reply to send. With no
    /// element, everything [`open`](Self::open) wrote is removed and `false` is returned (the
    /// [`BatchReply`] example shows both).
    pub fn close(mut self) -> bool {
        self.closed = true;
        if self.elements == 0 {
            self.out.truncate(self.start);
            return false;
        }
        self.out.extend_from_slice(b"]\n");
        true
    }
}

/// The deepest element of an array the default decoder reads: its depth limit counts the
/// array.
const ELEMENT_MAX_DEPTH: u32 = crate::Limits::DEFAULT.max_depth - 1;

/// Makes what a writer appended at `out[body..]` the elements of an array, as
/// [`BatchReply::push`] says: its line end removed; nothing, or only whitespace, no element;
/// several lines, an element each (joined by `,`); an element too deep for the array replaced
/// by an error, or taken back. Returns how many elements `out[body..]` now holds: with none,
/// `out` is cut back to `body` (the caller takes back its separator).
pub(crate) fn finish_elements(out: &mut BytesMut, body: usize) -> usize {
    if out.len() > body && out.last() == Some(&b'\n') {
        out.truncate(out.len() - 1);
    }
    // A frame forwarded with `write_frame` may start with whitespace, which the depth check
    // must pass over rather than take for no value at all; and one that is nothing but
    // whitespace (or a writer that wrote nothing) is no element.
    let value = skip_ws(out, body);
    if value == out.len() {
        out.truncate(body);
        return 0;
    }
    // The writers put no line break inside a message: one here ends a message of several
    // (`write` called two writers), which would split the array's line.
    if memchr::memchr(b'\n', &out[body..]).is_some() {
        let lines = out.split_off(body);
        return finish_each_line(out, &lines);
    }
    if !nested_at_most(&out[value..], ELEMENT_MAX_DEPTH) && !replace_too_deep(out, body) {
        out.truncate(body);
        return 0;
    }
    1
}

/// Appends each line of `lines` (the messages one writer wrote) as its own element, joined by
/// `,`; returns how many.
#[cold]
fn finish_each_line(out: &mut BytesMut, lines: &[u8]) -> usize {
    let mut elements = 0;
    for line in lines.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
        let before = out.len();
        if elements > 0 {
            out.put_u8(b',');
        }
        let body = out.len();
        out.extend_from_slice(line);
        match finish_elements(out, body) {
            0 => out.truncate(before),
            added => elements += added,
        }
    }
    elements
}

/// Writes the element at `out[at..]`, too deep for an array, as an error with its id (see
/// [`BatchReply::push`]); returns whether it could (the element is a response).
#[cold]
fn replace_too_deep(out: &mut BytesMut, at: usize) -> bool {
    use crate::{DecodeOptions, Decoder, Dialect, Message, Role};
    let element = out.split_off(at);
    // JSON-RPC's rules, or MCP's for an error without an id (its form for an id that could
    // not be read), with no limit but the element's own.
    let decode = |dialect| {
        let mut options = DecodeOptions::new(dialect);
        options.role = Role::Client;
        options.result_types = &[];
        options.limits.max_depth = u32::MAX;
        options.limits.max_frame = usize::MAX;
        options.limits.max_id_len = usize::MAX;
        Decoder::new(options).decode(&element)
    };
    let decoded = match decode(Dialect::JsonRpc2) {
        Err(_) => decode(Dialect::Mcp),
        decoded => decoded,
    };
    match decoded {
        Ok(Message::Response(response)) => {
            let code = ErrorCode::INTERNAL_ERROR;
            let message = code.default_message().unwrap_or("Internal error");
            write_error(out, response.id, code, message, None);
        }
        Ok(Message::ErrorResponse(error)) => {
            let id = error.id.map_or(ReplyId::Absent, ReplyId::Id);
            write_error_up_to_message(out, id, error.error.code);
            out.put_u8(b'"');
            out.extend_from_slice(error.error.message.raw());
            out.extend_from_slice(b"\"}}\n");
        }
        _ => return false,
    }
    out.truncate(out.len() - 1);
    true
}

impl Drop for BatchReply<'_> {
    /// Takes back what an array that was not closed wrote.
    fn drop(&mut self) {
        if !self.closed {
            self.out.truncate(self.start);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `nested_at_most` answers exactly at any limit, 0 included, where its length shortcut
    /// (a value `n` levels deep is at least `2n` bytes long) leaves no room: `[]` is one level
    /// deep, too deep for a limit of 0, while a scalar is at none.
    #[test]
    fn nested_at_most_is_exact_at_small_limits() {
        for max_depth in 0..4u32 {
            for levels in 0..6u32 {
                let n = levels as usize;
                let value = format!("{}{}", "[".repeat(n), "]".repeat(n));
                let value = if n == 0 { "1".to_owned() } else { value };
                assert_eq!(
                    nested_at_most(value.as_bytes(), max_depth),
                    levels <= max_depth,
                    "{value} at most {max_depth} deep"
                );
            }
        }
    }
}
