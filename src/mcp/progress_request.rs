//! Writing a request that asks for progress: its `params._meta.progressToken` spliced into
//! params the caller already has as raw JSON.

use bytes::BytesMut;

use crate::encode;
use crate::id::{Id, IdKind};
use crate::json::{JsonKind, Lookup, RawJson};
use crate::pending::Token;
use crate::scan::scalar::skip_ws;

use super::meta_keys;

/// Why [`write_request_with_progress`] wrote nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProgressRequestError {
    /// The request id is neither a string nor an integer (`null`, `1.5`): MCP's requests
    /// must have one that is, and its decoders refuse the request.
    BadId,
    /// The token is neither a string nor an integer, as MCP's `ProgressToken` must be.
    BadToken,
    /// `params` is not an object (MCP's params are), or its `_meta` is there and is not one.
    NotAnObject,
    /// `params` or its `_meta` cannot be read member by member (lazy validation let through
    /// members out of order, `{"a" 1}`), or `params` holds `_meta` twice: where the token
    /// would go is ambiguous. (Values are only delimited: `{"a":[1 2]}` is written as it is.)
    Malformed,
    /// `params._meta` holds a `progressToken` already (once or more), other than a single
    /// `null` (which asks for nothing, and is replaced).
    AlreadyAsked,
}

impl core::fmt::Display for ProgressRequestError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::BadId => "a request id must be a string or an integer",
            Self::BadToken => "a progress token must be a string or an integer",
            Self::NotAnObject => "params and params._meta must be objects",
            Self::Malformed => "params or params._meta cannot be read member by member",
            Self::AlreadyAsked => "params._meta holds a progressToken already",
        })
    }
}

impl core::error::Error for ProgressRequestError {}

/// Appends a request that asks for progress notifications on `token`
/// ([`encode::write_request`], with `"progressToken":TOKEN` as the first member of
/// `params._meta`): `params` as they are otherwise, byte for byte but for their line breaks
/// (which become spaces, as every writer of [`encode`] makes them), with a `_meta` of their
/// own when they have none, and `{"_meta":{"progressToken":TOKEN}}` when there are no
/// params. A `"progressToken":null` already there asks for nothing (MCP's tokens are strings
/// or integers, and [`progress_token`](super::progress_token) and
/// [`IdRemapper`](crate::IdRemapper) read none in it): the token takes the `null`'s place. The peer then reports on `token` ([`Progress`](super::Progress)); a client that
/// uses its request's own [`Token`] as the progress token
/// ([`write_request_with_progress_token`]) finds the request again with [`Token::from_id`].
///
/// Only the members of `params` and of its `_meta` are read; their values are written as
/// they are, as [`encode::write_request`] writes params. A value that lazy validation let
/// through but is not JSON (`{"a":[1 2]}` from [`RawJson::new`]) makes a line that no
/// strict reader reads: params from a source not trusted to write JSON want
/// [`RawJson::new_strict`].
///
/// # Errors
/// Nothing is appended when the request cannot carry the token:
/// [`ProgressRequestError::BadId`] for a request id that is not a string or an integer
/// (`null`, `1.5`: MCP's requests must have one that is, and
/// [`Decoder::mcp`](crate::Decoder::mcp) refuses the request),
/// [`BadToken`](ProgressRequestError::BadToken) for a token that is not a string or an
/// integer (`null`, `1.5`), [`NotAnObject`](ProgressRequestError::NotAnObject) for params
/// or a `_meta` that is not an object, [`Malformed`](ProgressRequestError::Malformed) when
/// they cannot be read member by member or hold `_meta` twice, and
/// [`AlreadyAsked`](ProgressRequestError::AlreadyAsked) when `_meta` holds a
/// `progressToken` already (but a single `null`).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, ProgressRequestError};
/// use rpcwire::{Id, RawJson};
/// let id = Id::from_token(b"7").unwrap();
/// let token = Id::from_token(b"\"p-7\"").unwrap();
/// let mut out = BytesMut::new();
///
/// let params = RawJson::new(br#"{"name":"add","_meta":{"trace":1}}"#).unwrap();
/// mcp::write_request_with_progress(&mut out, id, "tools/call", Some(params), token)?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","_meta":{"progressToken":"p-7","trace":1}}}
/// "#[..]
/// );
///
/// out.clear();
/// mcp::write_request_with_progress(&mut out, id, "tools/list", None, token)?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"progressToken":"p-7"}}}
/// "#[..]
/// );
///
/// // A `null` token asks for nothing: the token takes its place.
/// out.clear();
/// let unasked = RawJson::new(br#"{"_meta":{"progressToken":null,"trace":1}}"#).unwrap();
/// mcp::write_request_with_progress(&mut out, id, "tools/list", Some(unasked), token)?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"progressToken":"p-7","trace":1}}}
/// "#[..]
/// );
///
/// // A request that asks already is refused, and nothing is written.
/// out.clear();
/// let asked = RawJson::new(br#"{"_meta":{"progressToken":1}}"#).unwrap();
/// let refused = mcp::write_request_with_progress(&mut out, id, "tools/list", Some(asked), token);
/// assert_eq!(refused, Err(ProgressRequestError::AlreadyAsked));
/// assert!(out.is_empty());
/// # Ok::<(), ProgressRequestError>(())
/// ```
pub fn write_request_with_progress(
    out: &mut BytesMut,
    id: Id<'_>,
    method: &str,
    params: Option<RawJson<'_>>,
    token: Id<'_>,
) -> Result<(), ProgressRequestError> {
    if matches!(id.kind(), IdKind::Null | IdKind::Number) {
        return Err(ProgressRequestError::BadId);
    }
    if matches!(token.kind(), IdKind::Null | IdKind::Number) {
        return Err(ProgressRequestError::BadToken);
    }
    let Some(params) = params else {
        encode::write_request_head(out, id, method);
        out.extend_from_slice(br#","params":{"_meta":{"progressToken":"#);
        out.extend_from_slice(token.raw());
        out.extend_from_slice(b"}}}\n");
        return Ok(());
    };
    let (at, splice) = insertion(params)?;
    let bytes = params.as_bytes();
    encode::write_request_head(out, id, method);
    out.extend_from_slice(b",\"params\":");
    encode::write_raw_json(out, RawJson::trusted(&bytes[..at]));
    let rest = match splice {
        Splice::Replace(end) => {
            out.extend_from_slice(token.raw());
            end
        }
        Splice::Add(member) => {
            out.extend_from_slice(member.prefix());
            out.extend_from_slice(token.raw());
            out.extend_from_slice(member.suffix(is_empty_after(&bytes[at..])));
            at
        }
    };
    encode::write_raw_json(out, RawJson::trusted(&bytes[rest..]));
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// Appends a request sent under `token` that asks for progress on that same token:
/// [`write_request_with_progress`] with `token` (a [`PendingTable`](crate::PendingTable)'s, an
/// integer) as both the request's id and its `params._meta.progressToken`. A client that asks
/// so finds the request of each `notifications/progress` by the token it reports
/// ([`Token::from_id`], then [`PendingTable::get`](crate::PendingTable::get)), with no map of
/// its own.
///
/// # Errors
/// As [`write_request_with_progress`] for `params` (nothing is appended):
/// [`NotAnObject`](ProgressRequestError::NotAnObject),
/// [`Malformed`](ProgressRequestError::Malformed),
/// [`AlreadyAsked`](ProgressRequestError::AlreadyAsked). The id and the token, integers, are
/// always valid.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{mcp, Decoder, Message, PendingTable, RawJson, Token};
/// let mut pending = PendingTable::new();
/// let token = pending.insert("tools/call").unwrap();
/// let mut out = BytesMut::new();
/// let params = RawJson::new(br#"{"name":"slow"}"#).unwrap();
/// mcp::write_request_with_progress_token(&mut out, token, "tools/call", Some(params))?;
/// let expected = format!(
///     r#"{{"jsonrpc":"2.0","id":{token},"method":"tools/call","params":{{"_meta":{{"progressToken":{token}}},"name":"slow"}}}}"#
/// );
/// assert_eq!(&out[..out.len() - 1], expected.as_bytes());
///
/// // The server reports on the token: it names the request.
/// let progress = format!(
///     r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#
/// );
/// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(progress.as_bytes()) else { panic!() };
/// let reported = mcp::Progress::from_notification(&n).unwrap().token;
/// assert_eq!(Token::from_id(reported).and_then(|t| pending.get(t)), Some(&"tools/call"));
/// # Ok::<(), mcp::ProgressRequestError>(())
/// ```
pub fn write_request_with_progress_token(
    out: &mut BytesMut,
    token: Token,
    method: &str,
    params: Option<RawJson<'_>>,
) -> Result<(), ProgressRequestError> {
    let mut buf = [0; 20];
    let id = token.to_id(&mut buf);
    write_request_with_progress(out, id, method, params, id)
}

/// What the token makes of `params` at the insertion point: a new member, or the token in
/// place of the bytes up to the given end (a `"progressToken":null`'s `null`).
#[derive(Clone, Copy)]
enum Splice {
    Add(NewMember),
    Replace(usize),
}

/// What goes in at the insertion point: a whole `_meta` member, or the token's member of an
/// existing `_meta`.
#[derive(Clone, Copy)]
enum NewMember {
    Meta,
    Token,
}

impl NewMember {
    fn prefix(self) -> &'static [u8] {
        match self {
            NewMember::Meta => br#""_meta":{"progressToken":"#,
            NewMember::Token => br#""progressToken":"#,
        }
    }

    /// What closes the new member: a comma before the object's first member, if any.
    fn suffix(self, object_was_empty: bool) -> &'static [u8] {
        match (self, object_was_empty) {
            (NewMember::Meta, true) => b"}",
            (NewMember::Meta, false) => b"},",
            (NewMember::Token, true) => b"",
            (NewMember::Token, false) => b",",
        }
    }
}

/// Where in `params` the token goes (just after the `{` of the object that takes a new
/// member, or where a `null` token starts) and how.
fn insertion(params: RawJson<'_>) -> Result<(usize, Splice), ProgressRequestError> {
    if params.kind() != JsonKind::Object {
        return Err(ProgressRequestError::NotAnObject);
    }
    let meta = match meta_slot(params) {
        MetaSlot::Absent => return Ok((1, Splice::Add(NewMember::Meta))),
        MetaSlot::Found(meta) => meta,
        MetaSlot::Unreadable => return Err(ProgressRequestError::Malformed),
    };
    if meta.kind() != JsonKind::Object {
        return Err(ProgressRequestError::NotAnObject);
    }
    match meta.lookup(meta_keys::PROGRESS_TOKEN) {
        Lookup::Absent => {}
        Lookup::Found(null) if null.kind() == JsonKind::Null => {
            let start = encode::offset_in(params.as_bytes(), null.as_bytes());
            return Ok((start, Splice::Replace(start + null.as_bytes().len())));
        }
        Lookup::Found(_) | Lookup::Ambiguous => return Err(ProgressRequestError::AlreadyAsked),
        Lookup::Malformed => return Err(ProgressRequestError::Malformed),
    }
    let at = encode::offset_in(params.as_bytes(), meta.as_bytes()) + 1;
    Ok((at, Splice::Add(NewMember::Token)))
}

/// Where the `_meta` of an object of params is.
pub(super) enum MetaSlot<'a> {
    /// There is none.
    Absent,
    /// There is one (of any type).
    Found(RawJson<'a>),
    /// The params cannot be read member by member, or hold `_meta` twice.
    Unreadable,
}

/// The `_meta` of `params`, an object.
pub(super) fn meta_slot(params: RawJson<'_>) -> MetaSlot<'_> {
    match params.lookup("_meta") {
        Lookup::Absent => MetaSlot::Absent,
        Lookup::Found(meta) => MetaSlot::Found(meta),
        Lookup::Ambiguous | Lookup::Malformed => MetaSlot::Unreadable,
    }
}

/// Whether the rest of an object, just after its `{`, is only whitespace and its `}`.
pub(super) fn is_empty_after(rest: &[u8]) -> bool {
    rest.get(skip_ws(rest, 0)) == Some(&b'}')
}
