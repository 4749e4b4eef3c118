//! Typed access to payloads with serde: `params`, `result` and `error.data` into any
//! `T: Deserialize`, without ever touching the frame (so it can still be forwarded verbatim).
//!
//! Two paths:
//! - [`Scratch::deserialize`]: simd-json on a copy of the value in a reused, per-connection
//!   scratch buffer (simd-json parses in place, so it never gets the frame itself), for owned
//!   `T`.
//! - [`deserialize_borrowed`]: `serde_json` straight from the frame, for `T` that borrows from it
//!   (`Cow<str>` fields marked `#[serde(borrow)]`, `&RawValue` with `serde_json`'s `raw_value`
//!   feature), and for owned `T` where no scratch area is at hand: a client whose callers
//!   each read their own result, on their own tasks, with the `OwnedMessage` of the reply.
//!
//! Errors become -32602 Invalid params replies with the reason in `data` (`serde_json`'s wording
//! on both paths: the field, the expected type and the place, whose line and column count in
//! the value read, `params` say, not in the frame: ``missing field `name` at line 1 column
//! 13`` for the params `{"nom":"add"}`, [`TypedError::message`]). For MCP's `tools/call`, a tool
//! whose *arguments* do not fit its input schema reports that in its result (`isError: true`,
//! MCP 2025-11-25) rather than as -32602, which is for a malformed request or an unknown tool.
//!
//! The other way, a `T: Serialize` is written by `serde_json`: [`to_raw`] makes it a [`RawJson`]
//! for the [`encode`] writers, and [`write_request`], [`write_notification`] and
//! [`write_response`] write a whole message with it straight into the output.
//!
//! A key given twice: a derived struct refuses a duplicated field (serde's `duplicate field`
//! error, on both paths), but a map keeps the last value, where the lazy
//! [`RawJson::get`](crate::RawJson::get) refuses the key as ambiguous. Read what a check made
//! with `get` vouches for into a struct, so that no second value slips past it.

use bytes::{BufMut, BytesMut};
use serde::Serialize;
use serde::de::{Deserialize, DeserializeOwned};

use crate::encode;
use crate::error::{DecodeError, ErrorCode};
use crate::id::Id;
use crate::json::RawJson;
use crate::message::ReplyId;
use crate::scan::{ScanError, Validation};

/// Why a payload could not be read as the requested type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedError {
    message: String,
    syntax: bool,
}

impl TypedError {
    /// The reason, as the deserializer put it: its line and column count in the value read,
    /// not in the frame that holds it.
    ///
    /// ```
    /// use rpcwire::{typed, Decoder, Message};
    /// #[derive(serde::Deserialize, Debug)]
    /// struct Call {
    ///     name: String,
    /// }
    /// let frame = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"nom":"add"}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// let error = typed::deserialize_borrowed::<Call>(req.params.unwrap()).unwrap_err();
    /// assert_eq!(error.message(), "missing field `name` at line 1 column 13");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether the value is not JSON at all (a syntax error, or cut short), rather than JSON
    /// of the wrong shape for `T`. A decoder with [`Validation::Lazy`](crate::scan::Validation)
    /// delimits `params` without reading every token, so such a value can reach `T`; a server
    /// that must answer every request that is not JSON with -32700 Parse error, as JSON-RPC
    /// 2.0 says, can tell it here (or decode with
    /// [`Validation::Strict`](crate::scan::Validation), which refuses the frame first).
    /// True exactly when strict validation refuses the value, at any depth: also when the
    /// reader stopped first at a member of the wrong shape before the syntax error, and not
    /// for JSON that the reader calls a syntax error but is JSON (a number beyond `f64`,
    /// `1e400`; a lone surrogate escape, `"\ud800"`; a map key that is not a number in
    /// quotes for a map with integer keys; a value deeper than the reader's 127 levels).
    /// [`code`](Self::code) and [`write_reply`](Self::write_reply) stay -32602 either way.
    /// Never true for [`to_raw`] and the typed writers ([`write_request`] …), whose input is
    /// the caller's own value.
    ///
    /// ```
    /// use rpcwire::{typed, Decoder, Message};
    /// #[derive(serde::Deserialize, Debug)]
    /// struct Call {
    ///     name: String,
    /// }
    /// let lazy = Decoder::mcp(); // lazy validation, the default
    /// let not_json = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name" "add"}}"#;
    /// let Ok(Message::Request(req)) = lazy.decode(not_json) else { panic!() };
    /// assert!(typed::deserialize_borrowed::<Call>(req.params.unwrap()).unwrap_err().is_syntax());
    ///
    /// let wrong_shape = br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":7}}"#;
    /// let Ok(Message::Request(req)) = lazy.decode(wrong_shape) else { panic!() };
    /// assert!(!typed::deserialize_borrowed::<Call>(req.params.unwrap()).unwrap_err().is_syntax());
    /// ```
    pub fn is_syntax(&self) -> bool {
        self.syntax
    }

    /// A reader's error on `value`: its message, and whether the value was not JSON. Judged
    /// on the value, not by `serde_json`'s category: `serde_json` stops at the first error, which
    /// can be a member of the wrong shape before the syntax error, and its `Syntax` category
    /// takes in errors on JSON (`number out of range`, a lone surrogate, `expected key to be
    /// a number in quotes`, the recursion limit). No depth limit: depth is not syntax.
    fn read(e: &serde_json::Error, value: RawJson<'_>) -> Self {
        TypedError {
            message: e.to_string(),
            syntax: RawJson::checked(value.as_bytes(), u32::MAX, Validation::Strict).is_none(),
        }
    }

    /// An error of [`to_raw`] or a typed writer: the caller's value, never a syntax error of
    /// the peer's.
    fn written(message: String) -> Self {
        TypedError {
            message,
            syntax: false,
        }
    }

    /// The error code a server answers with: -32602 Invalid params.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::INVALID_PARAMS
    }

    /// Appends the -32602 error reply for the request `id`, with the reason in `data`.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::typed::Scratch;
    /// use rpcwire::{Decoder, Message};
    /// #[derive(serde::Deserialize, Debug)]
    /// struct ReadParams {
    ///     uri: String,
    /// }
    /// let frame = br#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"url":"file:///notes.md"}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!("a valid request") };
    /// let params = req.params.expect("the frame has params");
    /// let error = Scratch::new().deserialize::<ReadParams>(params).unwrap_err();
    /// let mut out = BytesMut::new();
    /// error.write_reply(&mut out, req.id);
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params","data":"missing field `uri` at line 1 column 26"}}
    /// "#[..]);
    /// ```
    pub fn write_reply<'i>(&self, out: &mut BytesMut, id: impl Into<ReplyId<'i>>) {
        let mut data = BytesMut::new();
        encode::write_json_string(&mut data, &self.message);
        let data = RawJson::trusted(&data);
        encode::write_error(out, id, self.code(), "Invalid params", Some(data));
    }
}

impl core::fmt::Display for TypedError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

impl core::error::Error for TypedError {}

/// A reusable scratch area for simd-json: one per connection, so that in steady state typed
/// access allocates only what `T` holds and the tape simd-json builds for each value (one
/// allocation of 24 bytes a structural character on a 64-bit target, six times the index's
/// room, freed once the value is read rather than kept).
///
/// It keeps its buffers between values (a copy of the value, and simd-json's three: the value
/// again, padded, its strings, and an index of its structural characters, 4 bytes each), each
/// within about [`REUSE_KEEP`](crate::REUSE_KEEP) (64 KiB): a value that grows one past it
/// gives them all back (one longer than 64 KiB, or with more than 8,192 structural
/// characters, or one that doubled the copy's room past 64 KiB: a value of 40 KiB after one
/// of 33 KiB), so that a long-lived connection does not hold the largest value it ever read.
/// It holds some 256 KiB at most then; a large value costs a new scratch area's allocations.
///
/// ```
/// use rpcwire::typed::Scratch;
/// use rpcwire::{Decoder, Message};
///
/// #[derive(serde::Deserialize, PartialEq, Debug)]
/// struct CallParams { name: String, arguments: std::collections::HashMap<String, i64> }
///
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#;
/// let mut scratch = Scratch::new();
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let params: CallParams = scratch.deserialize(req.params.unwrap()).unwrap();
/// assert_eq!(params.name, "add");
/// ```
pub struct Scratch {
    copy: Vec<u8>,
    buffers: simd_json::Buffers,
}

impl Default for Scratch {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scratch")
            .field("capacity", &self.copy.capacity())
            .finish()
    }
}

impl Scratch {
    /// An empty scratch area; it grows to the largest value seen and stays there, unless
    /// that value grew it past [`REUSE_KEEP`](crate::REUSE_KEEP) (see [`Scratch`]).
    pub fn new() -> Self {
        Scratch {
            copy: Vec::new(),
            // serde_json's depth (127 levels), not simd-json's 1,024: both paths then read
            // the same values, and neither recurses deeper than serde_json does (simd-json
            // recurses once per level on the caller's stack: a hostile value of 1,024 levels
            // overflows a 2 MiB thread's in a debug build, an abort, not an error).
            buffers: simd_json::Buffers::with_max_depth(4096, 127),
        }
    }

    /// Deserializes `value` into an owned `T` with simd-json, on a copy in the scratch buffer.
    /// Numbers read as `serde_json` reads them (integers beyond 64 bits as `f64`), but for `-0`,
    /// an integer zero here (`serde_json`: `-0.0`), and for the rounding of decimals: simd-json
    /// rounds every one correctly, where `serde_json` without its `float_roundtrip` feature
    /// rounds some a unit or two in the last place off (long ones, and short ones with a large
    /// exponent: `9e-23`), so [`deserialize_borrowed`] can then differ by those units, and
    /// refuse a decimal this path reads: one of those a unit off past `f64::MAX` rounds out of
    /// range (`1.7976931348623158e308`, `f64::MAX` here; `serde_json`: `number out of range`). Both
    /// read values as deep as [`RawJson::new`] and the decoder's default limits let through
    /// (127 levels), and no deeper, whatever limits let a deeper value through (a
    /// [`TypedError`] then), but in a member `T` ignores (or keeps as a `serde_json`
    /// `RawValue`), which `serde_json` skips at any depth, in a loop: simd-json is held to
    /// `serde_json`'s depth, and refuses such a value, which `serde_json` then reads, so that a
    /// hostile value cannot make either recurse through the caller's stack.
    ///
    /// # Errors
    ///
    /// A [`TypedError`] when `value` is not a `T`: not JSON
    /// ([`is_syntax`](TypedError::is_syntax)), of another shape than `T`'s, holding JSON the
    /// reader refuses where `T` reads it (a number beyond `f64`, `1e400`; a lone surrogate
    /// escape, `"\ud800"`), or nested more than 127 levels deep there. Its message is
    /// `serde_json`'s: a value simd-json refuses is read again by `serde_json`, whose answer
    /// is taken.
    /// [`write_reply`](TypedError::write_reply) writes the -32602 a server owes.
    ///
    /// The [`Scratch`] example reads a `tools/call`'s params; one scratch area serves every
    /// message of a connection, and a value of the wrong shape says where:
    ///
    /// ```
    /// use rpcwire::typed::Scratch;
    /// use rpcwire::RawJson;
    /// #[derive(serde::Deserialize, Debug)]
    /// struct ReadParams {
    ///     uri: String,
    /// }
    /// let mut scratch = Scratch::new();
    /// let params = RawJson::new(br#"{"uri":"file:///notes.md"}"#).unwrap();
    /// let read: ReadParams = scratch.deserialize(params).unwrap();
    /// assert_eq!(read.uri, "file:///notes.md");
    ///
    /// let params = RawJson::new(br#"{"uri":42}"#).unwrap();
    /// let error = scratch.deserialize::<ReadParams>(params).unwrap_err();
    /// assert_eq!(error.message(), "invalid type: integer `42`, expected a string at line 1 column 9");
    /// ```
    pub fn deserialize<T: DeserializeOwned>(
        &mut self,
        value: RawJson<'_>,
    ) -> Result<T, TypedError> {
        let read = self.read(value);
        // The copy and simd-json's string buffer grow by doubling (to twice the room of a
        // shorter value before, however little longer this one is), its input buffer to the
        // value's length, and its index of structural characters to 4 bytes each (up to
        // twice that, as it doubles). The copy's room tells the string buffer's: both grow
        // to hold the same values.
        let structurals = self.buffers.structural_indexes().len();
        if self.copy.capacity() > crate::REUSE_KEEP || structurals > crate::REUSE_KEEP / 8 {
            // Grown past `REUSE_KEEP` for this value: they go with it.
            *self = Scratch::new();
        }
        read
    }

    /// [`deserialize`](Self::deserialize), leaving the scratch area as the value grew it.
    fn read<T: DeserializeOwned>(&mut self, value: RawJson<'_>) -> Result<T, TypedError> {
        self.copy.clear();
        self.copy.extend_from_slice(value.as_bytes());
        simd_json::serde::from_slice_with_buffers(&mut self.copy, &mut self.buffers).or_else(|_| {
            // simd-json's reasons name no field and point at "character 0" (`ExpectedFloat at
            // character 0`); serde_json's name the field, the expected type and the place
            // (`invalid type: string "x", expected f64 at line 1 column 8`), which is what a
            // client can act on. The failure path is cold: read the value again with
            // serde_json, whose answer is taken, so that this path and
            // `deserialize_borrowed` accept the same values (simd-json refuses some that
            // serde_json reads: a number beyond the range of `f64` in a member `T` ignores),
            // but for the decimals next to `f64::MAX` that serde_json rounds out of range.
            serde_json::from_slice::<T>(value.as_bytes()).map_err(|e| TypedError::read(&e, value))
        })
    }

    /// Capacity of the copy buffer (for tests that check the scratch stops growing).
    #[doc(hidden)]
    pub fn capacity(&self) -> usize {
        self.copy.capacity()
    }
}

/// Deserializes `value` into a `T` that may borrow from the frame, with `serde_json`.
///
/// A string field borrows when it can: as a `Cow<'a, str>` marked `#[serde(borrow)]`, it is
/// the frame's bytes unless the string has escapes, decoded then into an owned copy. (A
/// `&'a str` field refuses every string with an escape: serde cannot borrow what it must
/// decode.)
///
/// Any `T: DeserializeOwned` reads so too, with no [`Scratch`] to share: the path for a
/// result read by the task that awaits it, from the reply's
/// [`OwnedMessage`](crate::OwnedMessage) handed to it, while a connection's [`Scratch`]
/// (taken `&mut`) stays with its reader task.
///
/// # Errors
///
/// A [`TypedError`] with `serde_json`'s message when `value` is not a `T`: not JSON
/// ([`is_syntax`](TypedError::is_syntax)), of another shape than `T`'s (a string with an
/// escape for a `&'a str` field among them), holding JSON the reader refuses where `T` reads
/// it (a number beyond `f64`, `1e400`; a lone surrogate escape, `"\ud800"`), or nested more
/// than 127 levels deep there. [`write_reply`](TypedError::write_reply) writes the -32602 a
/// server owes.
///
/// ```
/// use std::borrow::Cow;
/// use rpcwire::{typed, RawJson};
/// #[derive(serde::Deserialize)]
/// struct Read<'a> {
///     #[serde(borrow)]
///     uri: Cow<'a, str>,
/// }
/// let params = RawJson::new(br#"{"uri":"file:///etc/hosts"}"#).unwrap();
/// let read: Read<'_> = typed::deserialize_borrowed(params).unwrap();
/// assert!(matches!(read.uri, Cow::Borrowed("file:///etc/hosts")));
///
/// let escaped = RawJson::new(br#"{"uri":"file:///tmp/a\"b"}"#).unwrap();
/// let read: Read<'_> = typed::deserialize_borrowed(escaped).unwrap();
/// assert_eq!(read.uri, "file:///tmp/a\"b");
/// ```
pub fn deserialize_borrowed<'a, T: Deserialize<'a>>(value: RawJson<'a>) -> Result<T, TypedError> {
    serde_json::from_slice(value.as_bytes()).map_err(|e| TypedError::read(&e, value))
}

/// Serializes `value` into `buf` (cleared first) and returns it as a [`RawJson`] ready to be
/// spliced by the [`encode`] writers.
///
/// An `Option` field that is `None` is written `null`, as serde writes it, unless it is
/// marked `#[serde(skip_serializing_if = "Option::is_none")]`. MCP's optional members may be
/// left out but are not nullable unless the schema says so (`total?: number`), and the
/// readers of [`mcp`](crate::mcp) refuse a `null` there as of another type
/// ([`Progress::from_notification`](crate::mcp::Progress::from_notification)): mark every
/// optional member so.
///
/// ```
/// use rpcwire::typed;
/// #[derive(serde::Serialize)]
/// #[serde(rename_all = "camelCase")]
/// struct CreateMessageParams {
///     max_tokens: u32,
///     system_prompt: Option<String>,
///     #[serde(skip_serializing_if = "Option::is_none")]
///     temperature: Option<f64>,
/// }
/// let params = CreateMessageParams { max_tokens: 100, system_prompt: None, temperature: None };
/// let mut buf = Vec::new();
/// let raw = typed::to_raw(&params, &mut buf).unwrap();
/// // `systemPrompt`, unmarked, is written `null`; `temperature` is left out.
/// assert_eq!(raw.as_bytes(), br#"{"maxTokens":100,"systemPrompt":null}"#);
/// ```
///
/// To write a whole message, [`write_request`], [`write_notification`] and [`write_response`]
/// serialize the value straight into the output, checked as here, with no `buf` and no copy:
/// the same line, in one call. One call is what they save, not time: `serde_json` writes a
/// value in many small pieces, which a `Vec` takes faster than a `BytesMut`, and in the
/// `typed` bench `to_raw` into a reused `Vec` and then [`encode::write_response`] wrote a
/// `tools/call` result 13–15 % faster than [`write_response`] (BENCHMARKS.md, on one host).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, typed, Id};
/// let mut scratch = Vec::new();
/// let result = typed::to_raw(&serde_json::json!({"tools": []}), &mut scratch).unwrap();
/// let mut out = BytesMut::new();
/// encode::write_response(&mut out, Id::from_token(b"1").unwrap(), result);
/// assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n");
///
/// let mut direct = BytesMut::new();
/// let tools = serde_json::json!({"tools": []});
/// typed::write_response(&mut direct, Id::from_token(b"1").unwrap(), &tools).unwrap();
/// assert_eq!(direct, out);
/// ```
///
/// # Errors
///
/// A [`TypedError`] (never [`is_syntax`](TypedError::is_syntax): the value is the caller's):
/// - when `serde_json` refuses `value`: a map key it cannot write as a string (a tuple, say),
///   an error of the value's own `Serialize` impl;
/// - when the output is not one JSON value, checked as [`RawJson::new_strict`] checks bytes:
///   text that `serde_json` writes unchecked (a `RawValue` a `Serialize` impl emits by its
///   struct name, a number under `serde_json`'s `arbitrary_precision` feature) is refused
///   unless it is one JSON value, so nothing it holds can add members to the message it is
///   spliced into;
/// - when it is nested more than 127 levels deep (one built in memory can be any depth), as
///   [`RawJson::new`] refuses it: sent as params or a result it would make a line the
///   default decoder refuses (-32700, without the id), and one no `serde_json` reader takes.
pub fn to_raw<'b, T: Serialize + ?Sized>(
    value: &T,
    buf: &'b mut Vec<u8>,
) -> Result<RawJson<'b>, TypedError> {
    buf.clear();
    serialize(value, &mut *buf)?;
    check_serialized(buf)
}

/// Appends a request whose params are `params` serialized by `serde_json` straight into `out`:
/// byte for byte the line [`to_raw`] and [`encode::write_request`] write, without the scratch
/// buffer and the copy. The params are checked where they were written, as [`to_raw`] checks
/// its output (one JSON value, nested at most 127 levels deep: the same [`TypedError`]s), and
/// a line break between their tokens (which a `RawValue` may hold) becomes a space, as the
/// [`encode`] writers splice a payload.
///
/// `params` is written as it serializes, whatever the value, as [`encode::write_request`]
/// writes any [`RawJson`]. JSON-RPC 2.0 wants an array or an object (§4.2: "If present,
/// parameters for the rpc call MUST be provided as a Structured value"; MCP an object), and a
/// receiver refuses any other value with -32600, as [`Decoder`](crate::Decoder) does: a `()`
/// or a `None` serializes as `null`, sent as `"params":null`. A request without params is
/// [`encode::write_request`] with `None`.
///
/// # Errors
///
/// Those of [`to_raw`] for the value. Nothing is appended then: `out` is cut back to its
/// length on entry, and so it is when `Serialize` panics (the unwinding cuts it back).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{typed, Id};
/// #[derive(serde::Serialize)]
/// struct CallParams<'a> {
///     name: &'a str,
///     arguments: serde_json::Value,
/// }
/// let params = CallParams { name: "add", arguments: serde_json::json!({"a": 1}) };
/// let mut out = BytesMut::with_capacity(256);
/// typed::write_request(&mut out, Id::from_token(b"1").unwrap(), "tools/call", &params).unwrap();
/// assert_eq!(
///     &out[..],
///     concat!(
///         r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#,
///         "\n",
///     )
///     .as_bytes(),
/// );
/// ```
pub fn write_request<T: Serialize + ?Sized>(
    out: &mut BytesMut,
    id: Id<'_>,
    method: &str,
    params: &T,
) -> Result<(), TypedError> {
    let line = Rollback::new(out);
    encode::write_request_head(line.out, id, method);
    line.out.extend_from_slice(b",\"params\":");
    write_value_and_end(line, params)
}

/// Appends a notification whose params are `params` serialized by `serde_json` straight into
/// `out`: byte for byte the line [`to_raw`] and [`encode::write_notification`] write, checked
/// and put on one line as [`write_request`] says, and with its rule for params (written
/// whatever the value; JSON-RPC wants an array or an object). A notification without params is
/// [`encode::write_notification`] with `None`.
///
/// # Errors
///
/// Those of [`to_raw`] for the value. Nothing is appended then: `out` is cut back to its
/// length on entry, and so it is when `Serialize` panics (the unwinding cuts it back).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::typed;
/// #[derive(serde::Serialize)]
/// #[serde(rename_all = "camelCase")]
/// struct Progress {
///     progress_token: u64,
///     progress: f64,
/// }
/// let mut out = BytesMut::from(&b"an earlier line\n"[..]);
/// let params = Progress { progress_token: 7, progress: 0.5 };
/// typed::write_notification(&mut out, "notifications/progress", &params).unwrap();
/// assert_eq!(
///     &out[..],
///     concat!(
///         "an earlier line\n",
///         r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.5}}"#,
///         "\n",
///     )
///     .as_bytes(),
/// );
///
/// // serde_json refuses a map key that is not a string: nothing is appended.
/// let before = out.clone();
/// let keys = std::collections::BTreeMap::from([((1, 2), "a")]);
/// let error = typed::write_notification(&mut out, "m", &keys).unwrap_err();
/// assert_eq!(error.message(), "key must be a string");
/// assert_eq!(out, before);
/// ```
pub fn write_notification<T: Serialize + ?Sized>(
    out: &mut BytesMut,
    method: &str,
    params: &T,
) -> Result<(), TypedError> {
    let line = Rollback::new(out);
    encode::write_notification_head(line.out, method);
    line.out.extend_from_slice(b",\"params\":");
    write_value_and_end(line, params)
}

/// Appends a success response whose result is `result` serialized by `serde_json` straight into
/// `out`: byte for byte the line [`to_raw`] and [`encode::write_response`] write, checked and
/// put on one line as [`write_request`] says. A result is any value.
///
/// # Errors
///
/// Those of [`to_raw`] for the value. Nothing is appended then: `out` is cut back to its
/// length on entry, and so it is when `Serialize` panics (the unwinding cuts it back).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{typed, Id};
/// let mut out = BytesMut::new();
/// let id = Id::from_token(br#""call-1""#).unwrap();
/// typed::write_response(&mut out, id, &serde_json::json!({"tools": []})).unwrap();
/// assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":\"call-1\",\"result\":{\"tools\":[]}}\n");
/// ```
pub fn write_response<T: Serialize + ?Sized>(
    out: &mut BytesMut,
    id: Id<'_>,
    result: &T,
) -> Result<(), TypedError> {
    let line = Rollback::new(out);
    encode::write_response_head(line.out, id);
    write_value_and_end(line, result)
}

/// Serializes `value` at the end of the message `line` holds the head of, and ends the message
/// (`}` and the line end); on an error, `line` is dropped, which cuts the message off.
fn write_value_and_end<T: Serialize + ?Sized>(
    line: Rollback<'_>,
    value: &T,
) -> Result<(), TypedError> {
    write_value(line.out, value)?;
    line.out.extend_from_slice(b"}\n");
    line.keep();
    Ok(())
}

/// A message being appended to `out`: dropped before [`keep`](Self::keep), on an error's early
/// return or while a panicking `Serialize` unwinds, it cuts `out` back to its length when the
/// message began, so that no part of a line is left behind.
struct Rollback<'a> {
    out: &'a mut BytesMut,
    /// `out`'s length when the message began.
    start: usize,
}

impl<'a> Rollback<'a> {
    fn new(out: &'a mut BytesMut) -> Self {
        let start = out.len();
        Rollback { out, start }
    }

    /// Keeps the message: dropping cuts nothing.
    fn keep(mut self) {
        self.start = self.out.len();
    }
}

impl Drop for Rollback<'_> {
    fn drop(&mut self) {
        self.out.truncate(self.start);
    }
}

/// Appends `value` as [`encode::write_raw_json`] appends what [`to_raw`] makes of it: the
/// serialized value checked by [`check_serialized`] where it lies, moved over the whitespace
/// a `RawValue` may have put before it, cut before the whitespace after it, and its line
/// breaks made spaces. On an error, `out` may hold part of the value.
fn write_value<T: Serialize + ?Sized>(out: &mut BytesMut, value: &T) -> Result<(), TypedError> {
    let at = out.len();
    serialize(value, (&mut *out).writer())?;
    let written = &out[at..];
    let checked = check_serialized(written)?.as_bytes();
    let from = at + encode::offset_in(written, checked);
    let len = checked.len();
    if from != at {
        out.copy_within(from..from + len, at);
    }
    out.truncate(at + len);
    encode::put_on_one_line(&mut out[at..]);
    Ok(())
}

/// Serializes `value` with `serde_json` into `writer`; `serde_json`'s refusal (a map key that is
/// not a string, an error of the value's own `Serialize` impl) is the caller's value's.
fn serialize<T: Serialize + ?Sized>(
    value: &T,
    writer: impl std::io::Write,
) -> Result<(), TypedError> {
    serde_json::to_writer(writer, value).map_err(|e| TypedError::written(e.to_string()))
}

/// What `serde_json` wrote of a value, `bytes`, as a [`RawJson`]: one JSON value, checked as
/// [`RawJson::new_strict`] checks bytes (so nested at most 127 levels deep), without the
/// whitespace around it.
fn check_serialized(bytes: &[u8]) -> Result<RawJson<'_>, TypedError> {
    // serde_json writes some text as it is given, unchecked: a `RawValue` (its struct name is
    // public, so any `Serialize` can emit one) and, with `arbitrary_precision`, a number.
    // Checked here, such text cannot end the value early and add members to the envelope
    // (`1,"id":2` as a result is a second id, read by serde_json and refused by rpcwire).
    RawJson::parse_strict(bytes).map_err(|e| {
        TypedError::written(match e {
            DecodeError::Syntax(ScanError::TooDeep) => {
                "value nested more than 127 levels deep".into()
            }
            e => format!("serialized value is not one JSON value: {e}"),
        })
    })
}
