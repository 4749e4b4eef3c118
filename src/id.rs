//! Request ids: the exact wire token, its parsed form, and an owned copy.

use crate::inline_bytes::InlineBytes;

use crate::json::{JsonStr, is_integer_token, parse_i64};

/// What kind of JSON value an id is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// A string (`"abc"`); `has_escapes` tells whether the raw token contains a backslash.
    String {
        /// Whether the raw token contains escape sequences.
        has_escapes: bool,
    },
    /// A canonical integer token `-?(0|[1-9][0-9]*)`, of any size.
    Integer,
    /// Any other number (`1.5`, `1.0`, `1e3`): JSON-RPC allows it; an MCP decoder refuses it.
    /// (MCP's schema types an id `string | integer`; JSON Schema's `integer` would take `1.0`
    /// and `1e3`, the Python SDK's strict `int` does not. rpcwire reads MCP's integer ids as
    /// canonical integer tokens, so that a reply echoes the one spelling each id has.)
    Number,
    /// `null`: JSON-RPC allows it (and uses it in replies to unreadable requests); MCP only in
    /// an error response, its form for a request whose id could not be read (a request's or
    /// a success response's `null` id is `NullId` there).
    ///
    /// ```
    /// use rpcwire::{DecodeError, Decoder, Id};
    /// let error = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
    /// assert_eq!(Decoder::mcp_client().decode(error).unwrap().id(), Some(Id::NULL));
    /// let request = br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#;
    /// assert_eq!(Decoder::mcp().decode(request).unwrap_err().error(), DecodeError::NullId);
    /// ```
    Null,
}

/// A request id as received: the exact wire token (quotes included for strings), so a reply
/// echoes it byte for byte, plus its parsed kind.
///
/// ```
/// use rpcwire::{Id, IdKind};
/// let id = Id::from_token(br#""a\"b""#).unwrap();
/// assert_eq!(id.kind(), IdKind::String { has_escapes: true });
/// assert_eq!(id.as_str().unwrap().decode(), "a\"b");
/// assert_eq!(Id::from_token(b"42").unwrap().as_i64(), Some(42));
/// ```
///
/// Ids are equal, and hash alike, when their tokens are the same bytes (an [`IdBuf`] too):
/// `1` and `1.0`, `0` and `-0`, `"a"` and `"\u0061"` are different ids here, though a peer
/// that reads the values takes each pair for one request. [`IdKey`](crate::IdKey) matches
/// ids by value, as [`InFlight`](crate::InFlight) does:
///
/// ```
/// use rpcwire::{Id, IdKey};
/// let (one, spelled) = (Id::from_token(b"1").unwrap(), Id::from_token(b"1.0").unwrap());
/// assert_ne!(one, spelled);
/// assert_eq!(IdKey::of(one), IdKey::of(spelled));
/// let escaped = Id::from_token(br#""\u0061""#).unwrap();
/// assert_ne!(escaped, Id::from_token(br#""a""#).unwrap());
/// assert_eq!(IdKey::of(escaped), IdKey::of(Id::from_token(br#""a""#).unwrap()));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Id<'a> {
    raw: &'a [u8],
    kind: IdKind,
}

impl<'a> Id<'a> {
    /// The JSON `null` id.
    pub const NULL: Id<'static> = Id {
        raw: b"null",
        kind: IdKind::Null,
    };

    /// Builds an id from trusted parts (the decoder has validated the token).
    #[inline]
    pub(crate) const fn new(raw: &'a [u8], kind: IdKind) -> Self {
        Id { raw, kind }
    }

    /// Parses a standalone id token: a JSON string, number or `null` (no surrounding
    /// whitespace). Returns `None` for anything else.
    pub fn from_token(raw: &'a [u8]) -> Option<Self> {
        let kind = match raw.first()? {
            b'"' => {
                let (close, has_escapes) = crate::scan::string_end(raw, 1).ok()?;
                if close + 1 != raw.len() || core::str::from_utf8(raw).is_err() {
                    return None;
                }
                IdKind::String { has_escapes }
            }
            b'n' if raw == b"null" => IdKind::Null,
            b'-' | b'0'..=b'9' => {
                if crate::scan::scalar::number_end(raw, 0).ok()? != raw.len() {
                    return None;
                }
                Self::number_kind(raw)
            }
            _ => return None,
        };
        Some(Id { raw, kind })
    }

    #[inline]
    pub(crate) fn number_kind(raw: &[u8]) -> IdKind {
        if is_integer_token(raw) {
            IdKind::Integer
        } else {
            IdKind::Number
        }
    }

    /// The exact wire token, quotes included for strings.
    #[inline]
    pub const fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The kind of value.
    #[inline]
    pub const fn kind(&self) -> IdKind {
        self.kind
    }

    /// Whether this is the `null` id.
    #[inline]
    pub fn is_null(&self) -> bool {
        self.kind == IdKind::Null
    }

    /// The string, when the id is one.
    pub fn as_str(&self) -> Option<JsonStr<'a>> {
        match self.kind {
            IdKind::String { has_escapes } => Some(JsonStr::from_raw(
                &self.raw[1..self.raw.len() - 1],
                has_escapes,
            )),
            _ => None,
        }
    }

    /// The integer, when the id is a canonical integer token that fits `i64`.
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        match self.kind {
            IdKind::Integer => parse_i64(self.raw),
            _ => None,
        }
    }

    /// An owned copy (inline, no allocation, for tokens up to 38 bytes: a UUID string id
    /// with its quotes).
    pub fn to_owned_id(&self) -> IdBuf {
        debug_assert_eq!(kind_of_valid_token(self.raw), self.kind);
        IdBuf {
            raw: InlineBytes::new(self.raw),
        }
    }
}

impl core::fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&alloc::string::String::from_utf8_lossy(self.raw))
    }
}

impl core::fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self, f)
    }
}

/// An owned id: the wire token, kept inline for typical sizes (no heap allocation up to 38
/// bytes, which a UUID string id with its quotes takes). [`Id::to_owned_id`] (or
/// `IdBuf::from(id)`) makes one; [`as_id`](Self::as_id) borrows it back, with its kind read
/// from the token, as the [`encode`](crate::encode) writers take it.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{encode, Decoder, ErrorCode, IdBuf, Message};
/// // Keep a request's id past its frame, to answer it later.
/// let frame = br#"{"jsonrpc":"2.0","id":"req-7","method":"tools/call"}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let kept: IdBuf = req.id.to_owned_id();
/// let mut out = BytesMut::new();
/// encode::write_error(&mut out, kept.as_id(), ErrorCode::INTERNAL_ERROR, "timed out", None);
/// assert!(out.starts_with(br#"{"jsonrpc":"2.0","id":"req-7","error""#));
/// assert_eq!(kept.to_string(), r#""req-7""#);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct IdBuf {
    /// A valid token. Its kind is not kept: it follows from the token, and without it the
    /// 38 bytes of a UUID string id with its quotes fit in the 40 an `IdBuf` takes.
    raw: InlineBytes<38>,
}

impl IdBuf {
    /// Borrows this id.
    #[inline]
    pub fn as_id(&self) -> Id<'_> {
        let raw = self.raw.as_slice();
        Id {
            raw,
            kind: kind_of_valid_token(raw),
        }
    }

    /// An integer id.
    pub fn from_i64(n: i64) -> IdBuf {
        let mut b = itoa::Buffer::new();
        IdBuf {
            raw: InlineBytes::new(b.format(n).as_bytes()),
        }
    }
}

/// The kind of a token known to be a valid id (as the decoder and [`Id::from_token`] find
/// it: a string has escapes exactly when it holds a backslash).
#[inline]
fn kind_of_valid_token(raw: &[u8]) -> IdKind {
    match raw.first() {
        Some(b'"') => IdKind::String {
            has_escapes: memchr::memchr(b'\\', raw).is_some(),
        },
        Some(b'n') => IdKind::Null,
        _ => Id::number_kind(raw),
    }
}

impl core::fmt::Debug for IdBuf {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.as_id(), f)
    }
}

/// The wire token, as [`Id`]'s.
impl core::fmt::Display for IdBuf {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.as_id(), f)
    }
}

/// A [`PendingTable`](crate::PendingTable) token as an owned integer id: to keep the id a
/// request went out with (a [`Token`](crate::Token) is at most 2^53 − 1, so any fits).
/// ([`Token::to_id`](crate::Token::to_id) borrows a stack buffer instead, for writing it.)
///
/// ```
/// use rpcwire::{IdBuf, IdKind, PendingTable};
/// let mut table = PendingTable::new();
/// let id = IdBuf::from(table.insert("ping").unwrap());
/// assert_eq!(id.as_id().raw(), b"1");
/// assert_eq!(id.as_id().kind(), IdKind::Integer);
/// ```
impl From<crate::pending::Token> for IdBuf {
    fn from(token: crate::pending::Token) -> Self {
        let mut b = itoa::Buffer::new();
        IdBuf {
            raw: InlineBytes::new(b.format(token.get()).as_bytes()),
        }
    }
}

impl From<Id<'_>> for IdBuf {
    fn from(id: Id<'_>) -> Self {
        id.to_owned_id()
    }
}

/// The borrowed id, as [`IdBuf::as_id`] gives it.
///
/// ```
/// use rpcwire::{Id, IdBuf};
/// let kept = IdBuf::from_i64(7);
/// assert_eq!(Id::from(&kept), kept.as_id());
/// ```
impl<'a> From<&'a IdBuf> for Id<'a> {
    fn from(id: &'a IdBuf) -> Self {
        id.as_id()
    }
}

/// An owned id equals a borrowed one whose token is the same bytes, as two [`Id`]s compare
/// (`1` and `1.0` differ; [`IdKey`](crate::IdKey) matches by value): the id a request came
/// with, kept in an [`Origin`](crate::Origin), against one read from a frame.
///
/// ```
/// use rpcwire::{Id, IdBuf};
/// let kept = IdBuf::from_i64(7);
/// assert_eq!(kept, Id::from_token(b"7").unwrap());
/// assert_eq!(Id::from_token(b"7").unwrap(), kept);
/// assert_ne!(kept, Id::from_token(b"7.0").unwrap());
/// ```
impl PartialEq<Id<'_>> for IdBuf {
    fn eq(&self, other: &Id<'_>) -> bool {
        self.as_id() == *other
    }
}

/// As `IdBuf == Id`, the other way round.
impl PartialEq<IdBuf> for Id<'_> {
    fn eq(&self, other: &IdBuf) -> bool {
        *self == other.as_id()
    }
}
