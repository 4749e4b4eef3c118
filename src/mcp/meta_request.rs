//! Writing a request with members of its own in `params._meta`: MCP 2026-07-28's version
//! and client capabilities, which a client names in every request, or any other key.

use bytes::BytesMut;

use crate::encode;
use crate::id::{Id, IdKind};
use crate::json::{JsonKind, Lookup, RawJson};

use super::MetaKey;
use super::progress_request::{MetaSlot, is_empty_after, meta_slot};

/// A value [`write_request_with_meta`] writes under a key of `params._meta`: a string (escaped
/// as JSON wants), or any JSON value as it is.
///
/// ```
/// use rpcwire::mcp::MetaValue;
/// use rpcwire::RawJson;
/// let version: MetaValue = "2026-07-28".into();
/// let capabilities: MetaValue = RawJson::EMPTY_OBJECT.into();
/// assert_eq!((version, capabilities), (MetaValue::Str("2026-07-28"), MetaValue::Json(RawJson::EMPTY_OBJECT)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MetaValue<'a> {
    /// A string, written as a JSON string.
    Str(&'a str),
    /// A JSON value, written as it is (but for its line breaks, which become spaces).
    Json(RawJson<'a>),
}

impl<'a> From<&'a str> for MetaValue<'a> {
    fn from(s: &'a str) -> Self {
        MetaValue::Str(s)
    }
}

impl<'a> From<RawJson<'a>> for MetaValue<'a> {
    fn from(json: RawJson<'a>) -> Self {
        MetaValue::Json(json)
    }
}

/// Why [`write_request_with_meta`] wrote nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MetaRequestError {
    /// The request id is neither a string nor an integer (`null`, `1.5`): MCP's requests
    /// must have one that is, and its decoders refuse the request.
    BadId,
    /// `params` is not an object (MCP's params are), or its `_meta` is there and is not one.
    NotAnObject,
    /// `params` or its `_meta` cannot be read member by member (lazy validation let through
    /// members out of order, `{"a" 1}`), or `params` holds `_meta` twice: where the members
    /// would go is ambiguous.
    Malformed,
    /// The key of the member at this index of `meta` breaks MCP's naming rules for `_meta`
    /// keys ([`MetaKey::parse`](super::MetaKey::parse)): "Key name format: valid `_meta`
    /// key names have two segments: an optional **prefix**, and a **name**."
    BadKey(usize),
    /// The key of the member at this index of `meta` is in `params._meta` already (once or
    /// more), or is that of an earlier member of `meta`: the request would name it twice,
    /// and peers may read either.
    Present(usize),
}

impl core::fmt::Display for MetaRequestError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BadId => f.write_str("a request id must be a string or an integer"),
            Self::NotAnObject => f.write_str("params and params._meta must be objects"),
            Self::Malformed => {
                f.write_str("params or params._meta cannot be read member by member")
            }
            Self::BadKey(index) => {
                write!(
                    f,
                    "the key of member {index} breaks MCP's rules for _meta keys"
                )
            }
            Self::Present(index) => {
                write!(f, "params._meta would hold the key of member {index} twice")
            }
        }
    }
}

impl core::error::Error for MetaRequestError {}

/// Appends a request ([`encode::write_request`]) whose `params._meta` holds the members of
/// `meta` first, in their order: `params` as they are otherwise, byte for byte but for their
/// line breaks (which become spaces, as every writer of [`encode`] makes them), with a
/// `_meta` of their own when they have none, and `{"_meta":{...}}` when there are no params.
/// With `meta` empty, the request is written as [`encode::write_request`] writes it, once
/// `params` pass the same checks.
///
/// A client of MCP 2026-07-28 names in every request (`server/discover` included) the
/// version it speaks to the server, under [`meta_keys::PROTOCOL_VERSION`](super::meta_keys::PROTOCOL_VERSION),
/// and its capabilities, an object (`{}` declares none), under
/// [`meta_keys::CLIENT_CAPABILITIES`](super::meta_keys::CLIENT_CAPABILITIES):
/// [`RequestMeta::check`](super::RequestMeta::check) refuses a request without them with
/// -32602. Splicing them into the params the caller already has keeps one `_meta`, where a
/// serde wrapper that flattens params holding a `_meta` of their own (a progress token, say)
/// writes the member twice, which a server reads as naming no version.
///
/// Only the members of `params` and of its `_meta` are read; their values are written as
/// they are. A value that lazy validation let through but is not JSON (`{"a":[1 2]}` from
/// [`RawJson::new`]) makes a line that no strict reader reads: params from a source not
/// trusted to write JSON want [`RawJson::new_strict`].
///
/// # Errors
/// Nothing is appended when the request cannot carry the members:
/// [`MetaRequestError::BadId`] for a request id that is not a string or an integer,
/// [`BadKey(i)`](MetaRequestError::BadKey) when `meta[i]`'s key breaks MCP's rules for
/// `_meta` keys, [`NotAnObject`](MetaRequestError::NotAnObject) for params or a `_meta` that is not an
/// object, [`Malformed`](MetaRequestError::Malformed) when they cannot be read member by
/// member or hold `_meta` twice, and [`Present(i)`](MetaRequestError::Present) when
/// `meta[i]`'s key is in `_meta` already or repeats an earlier key of `meta`.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, meta_keys, versions, MetaRequestError, RequestMeta};
/// use rpcwire::{Decoder, Id, Message, RawJson};
///
/// let capabilities = RawJson::new(br#"{"elicitation":{}}"#).unwrap();
/// let meta = [
///     (meta_keys::PROTOCOL_VERSION, versions::V2026_07_28.into()),
///     (meta_keys::CLIENT_CAPABILITIES, capabilities.into()),
/// ];
/// let params = RawJson::new(br#"{"name":"add","_meta":{"progressToken":"p-7"}}"#).unwrap();
/// let mut out = BytesMut::new();
/// mcp::write_request_with_meta(&mut out, Id::from_token(b"7").unwrap(), "tools/call", Some(params), &meta)?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"progressToken":"p-7"}}}
/// "#[..]
/// );
///
/// // What the server reads: the version it serves the request by.
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(&out[..out.len() - 1]) else { panic!() };
/// assert_eq!(RequestMeta::from_request(&req).check(&[versions::V2026_07_28]), Ok(versions::V2026_07_28));
///
/// // `server/discover` has no params but these.
/// out.clear();
/// mcp::write_request_with_meta(&mut out, Id::from_token(b"1").unwrap(), "server/discover", None, &meta)?;
/// assert!(out.ends_with(br#""params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}
/// "#));
///
/// // A key the params name already is refused, and nothing is written.
/// out.clear();
/// let stamped = RawJson::new(br#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}"#).unwrap();
/// let refused = mcp::write_request_with_meta(&mut out, Id::from_token(b"2").unwrap(), "tools/list", Some(stamped), &meta);
/// assert_eq!(refused, Err(MetaRequestError::Present(0)));
/// assert!(out.is_empty());
/// # Ok::<(), MetaRequestError>(())
/// ```
pub fn write_request_with_meta(
    out: &mut BytesMut,
    id: Id<'_>,
    method: &str,
    params: Option<RawJson<'_>>,
    meta: &[(&str, MetaValue<'_>)],
) -> Result<(), MetaRequestError> {
    if matches!(id.kind(), IdKind::Null | IdKind::Number) {
        return Err(MetaRequestError::BadId);
    }
    if let Some(bad) = meta.iter().position(|(k, _)| MetaKey::parse(k).is_err()) {
        return Err(MetaRequestError::BadKey(bad));
    }
    if let Some(repeated) =
        (1..meta.len()).find(|&i| meta[..i].iter().any(|(k, _)| *k == meta[i].0))
    {
        return Err(MetaRequestError::Present(repeated));
    }
    let Some(params) = params else {
        if meta.is_empty() {
            encode::write_request(out, id, method, None);
            return Ok(());
        }
        encode::write_request_head(out, id, method);
        out.extend_from_slice(br#","params":{"_meta":{"#);
        write_members(out, meta);
        out.extend_from_slice(b"}}}\n");
        return Ok(());
    };
    if params.kind() != JsonKind::Object {
        return Err(MetaRequestError::NotAnObject);
    }
    let bytes = params.as_bytes();
    // Just after the `{` of the object the members go into, and whether `_meta` is new.
    let (at, new_meta) = match meta_slot(params) {
        MetaSlot::Absent => (1, true),
        MetaSlot::Found(existing) if existing.kind() != JsonKind::Object => {
            return Err(MetaRequestError::NotAnObject);
        }
        MetaSlot::Found(existing) => {
            for (index, (key, _)) in meta.iter().enumerate() {
                match existing.lookup(key) {
                    Lookup::Absent => {}
                    Lookup::Found(_) | Lookup::Ambiguous => {
                        return Err(MetaRequestError::Present(index));
                    }
                    Lookup::Malformed => return Err(MetaRequestError::Malformed),
                }
            }
            (encode::offset_in(bytes, existing.as_bytes()) + 1, false)
        }
        MetaSlot::Unreadable => return Err(MetaRequestError::Malformed),
    };
    if meta.is_empty() {
        encode::write_request(out, id, method, Some(params));
        return Ok(());
    }
    let object_was_empty = is_empty_after(&bytes[at..]);
    encode::write_request_head(out, id, method);
    out.extend_from_slice(b",\"params\":");
    encode::write_raw_json(out, RawJson::trusted(&bytes[..at]));
    if new_meta {
        out.extend_from_slice(br#""_meta":{"#);
    }
    write_members(out, meta);
    if new_meta {
        out.extend_from_slice(b"}");
    }
    if !object_was_empty {
        out.extend_from_slice(b",");
    }
    encode::write_raw_json(out, RawJson::trusted(&bytes[at..]));
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// `"key":value` for each member, comma-separated.
fn write_members(out: &mut BytesMut, meta: &[(&str, MetaValue<'_>)]) {
    for (index, (key, value)) in meta.iter().enumerate() {
        if index > 0 {
            out.extend_from_slice(b",");
        }
        encode::write_json_string(out, key);
        out.extend_from_slice(b":");
        match value {
            MetaValue::Str(s) => encode::write_json_string(out, s),
            MetaValue::Json(json) => encode::write_raw_json(out, *json),
        }
    }
}
