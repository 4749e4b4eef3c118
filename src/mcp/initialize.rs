//! The `initialize` handshake (MCP up to 2025-11-25): a server's view of the request's
//! params ([`Initialize`]) and a client's view of the result ([`InitializeResult`]), each member
//! checked once, present once and of its schema type, in one pass over the object; and their
//! writers, [`write_initialize`] and [`write_initialize_result`].

use bytes::BytesMut;

use crate::encode;
use crate::error::ErrorCode;
use crate::id::IdKind;
use crate::json::{JsonKind, JsonStr, Lookup, RawJson};
use crate::message::{ReplyId, Request};

use super::methods;

/// An `initialize` request's params, as a server reads them: the version the client asks
/// for, and its capabilities and identity as raw objects, read further with
/// [`RawJson::get`] when needed.
///
/// A member that is missing, given twice, or of another type than the schema's (MCP 2025-11-25
/// `InitializeRequestParams`: all three are required) is refused with a [`HandshakeError`],
/// whose [`write_reply`](HandshakeError::write_reply) is the -32602 answer. Other members
/// (`_meta`, and those a later revision may add) are not read.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{versions, HandshakeError, HandshakeMember, Initialize};
/// use rpcwire::{Decoder, Message};
///
/// let frame = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"host","version":"1.2"}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let init = Initialize::from_request(&req).unwrap();
/// assert_eq!(init.protocol_version.decode(), "2025-06-18");
/// assert!(init.capabilities.get("roots").is_some());
/// assert_eq!(init.client_info.get("name").and_then(|n| n.as_str()).unwrap().decode(), "host");
/// let supported = ["2025-11-25", "2025-06-18"];
/// let answer = versions::negotiate(&init.protocol_version.decode(), &supported);
/// assert_eq!(answer, Some("2025-06-18"));
///
/// // A version that is not a string gets the -32602 a server owes.
/// let frame = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":20250618,"capabilities":{},"clientInfo":{"name":"host","version":"1"}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let err = Initialize::from_request(&req).unwrap_err();
/// assert_eq!(err, HandshakeError::WrongType(HandshakeMember::ProtocolVersion));
/// let mut out = BytesMut::new();
/// err.write_reply(&mut out, req.id);
/// assert_eq!(
///     &out[..],
///     &b"{\"jsonrpc\":\"2.0\",\"id\":0,\"error\":{\"code\":-32602,\"message\":\"Invalid params: protocolVersion must be a string\"}}\n"[..]
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Initialize<'a> {
    /// `protocolVersion`: the version the client asks for (answer it with
    /// [`versions::negotiate`](super::versions::negotiate)).
    pub protocol_version: JsonStr<'a>,
    /// `capabilities` (an object).
    pub capabilities: RawJson<'a>,
    /// `clientInfo` (an object: `name` and `version`, perhaps `title` and more).
    pub client_info: RawJson<'a>,
}

impl<'a> Initialize<'a> {
    /// Reads the params of `r`, an `initialize` request.
    ///
    /// # Errors
    ///
    /// A [`HandshakeError`], whose [`write_reply`](HandshakeError::write_reply) is the -32602
    /// a server owes, checked in this order:
    /// - [`NotInitialize`](HandshakeError::NotInitialize) when `r`'s method is not
    ///   `initialize`;
    /// - [`NotAnObject`](HandshakeError::NotAnObject) when it has no params, or they are not
    ///   an object;
    /// - [`Malformed`](HandshakeError::Malformed) when they cannot be read member by member,
    ///   or [`Duplicated`](HandshakeError::Duplicated) for a member of the three given twice;
    /// - then for `protocolVersion`, `capabilities` and `clientInfo` in turn:
    ///   [`Missing`](HandshakeError::Missing) when it is absent,
    ///   [`WrongType`](HandshakeError::WrongType) when it is not a string
    ///   (`protocolVersion`) or not an object (the other two).
    pub fn from_request(r: &Request<'a>) -> Result<Self, HandshakeError> {
        if !r.method.eq_str(methods::INITIALIZE) {
            return Err(HandshakeError::NotInitialize);
        }
        let params = r.params.ok_or(HandshakeError::NotAnObject)?;
        let [version, capabilities, client_info] = read_members(
            params,
            [
                HandshakeMember::ProtocolVersion,
                HandshakeMember::Capabilities,
                HandshakeMember::ClientInfo,
            ],
        )?;
        Ok(Initialize {
            protocol_version: string(version, HandshakeMember::ProtocolVersion)?,
            capabilities: object(capabilities, HandshakeMember::Capabilities)?,
            client_info: object(client_info, HandshakeMember::ClientInfo)?,
        })
    }
}

/// The result of `initialize`, as a client reads it: the version the server answers with
/// (which settles the session's, or fails it: [`versions::accept`](super::versions::accept)),
/// the server's capabilities and identity as raw objects, and its optional instructions.
///
/// A required member that is missing, given twice, or of another type than the schema's
/// (MCP 2025-11-25 `InitializeResult`), and `instructions` given twice or not as a string,
/// are refused with a [`HandshakeError`]: a client cannot trust such a handshake.
///
/// ```
/// use rpcwire::mcp::{versions, InitializeResult};
/// use rpcwire::{Decoder, Message};
///
/// let frame = br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"stub","version":"0.1"},"instructions":"Call echo."}}"#;
/// let Ok(Message::Response(resp)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// let result = InitializeResult::from_result(resp.result).unwrap();
/// assert_eq!(versions::accept(&result.protocol_version.decode(), &["2025-06-18"]), Some("2025-06-18"));
/// assert!(result.capabilities.get("tools").is_some());
/// assert_eq!(result.instructions.unwrap().decode(), "Call echo.");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitializeResult<'a> {
    /// `protocolVersion`: the version the server answers with.
    pub protocol_version: JsonStr<'a>,
    /// `capabilities` (an object).
    pub capabilities: RawJson<'a>,
    /// `serverInfo` (an object: `name` and `version`, perhaps `title` and more).
    pub server_info: RawJson<'a>,
    /// `instructions`, when the server gives them.
    pub instructions: Option<JsonStr<'a>>,
}

impl<'a> InitializeResult<'a> {
    /// Reads `result`, the result of an `initialize` request.
    ///
    /// # Errors
    ///
    /// A [`HandshakeError`], checked in this order:
    /// - [`NotAnObject`](HandshakeError::NotAnObject) when `result` is not an object;
    /// - [`Malformed`](HandshakeError::Malformed) when it cannot be read member by member, or
    ///   [`Duplicated`](HandshakeError::Duplicated) for a member of the four given twice;
    /// - [`WrongType`](HandshakeError::WrongType) for an `instructions` that is not a string;
    /// - then for `protocolVersion`, `capabilities` and `serverInfo` in turn:
    ///   [`Missing`](HandshakeError::Missing) when it is absent,
    ///   [`WrongType`](HandshakeError::WrongType) when it is not a string
    ///   (`protocolVersion`) or not an object (the other two).
    pub fn from_result(result: RawJson<'a>) -> Result<Self, HandshakeError> {
        let [version, capabilities, server_info, instructions] = read_members(
            result,
            [
                HandshakeMember::ProtocolVersion,
                HandshakeMember::Capabilities,
                HandshakeMember::ServerInfo,
                HandshakeMember::Instructions,
            ],
        )?;
        let instructions = match instructions {
            Lookup::Absent => None,
            found => Some(string(found, HandshakeMember::Instructions)?),
        };
        Ok(InitializeResult {
            protocol_version: string(version, HandshakeMember::ProtocolVersion)?,
            capabilities: object(capabilities, HandshakeMember::Capabilities)?,
            server_info: object(server_info, HandshakeMember::ServerInfo)?,
            instructions,
        })
    }
}

/// A member of the `initialize` request's params or of its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HandshakeMember {
    /// `protocolVersion` (a string), in both.
    ProtocolVersion,
    /// `capabilities` (an object), in both.
    Capabilities,
    /// `clientInfo` (an object), in the request's params.
    ClientInfo,
    /// `serverInfo` (an object), in the result.
    ServerInfo,
    /// `instructions` (a string, optional), in the result.
    Instructions,
}

impl HandshakeMember {
    /// The member's JSON name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::ProtocolVersion => "protocolVersion",
            Self::Capabilities => "capabilities",
            Self::ClientInfo => "clientInfo",
            Self::ServerInfo => "serverInfo",
            Self::Instructions => "instructions",
        }
    }

    /// The JSON type the schema gives the member.
    const fn expected(self) -> &'static str {
        match self {
            Self::ProtocolVersion | Self::Instructions => "a string",
            Self::Capabilities | Self::ClientInfo | Self::ServerInfo => "an object",
        }
    }
}

/// Why [`Initialize::from_request`] or [`InitializeResult::from_result`] read nothing, or
/// [`write_initialize`] or [`write_initialize_result`] wrote nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HandshakeError {
    /// The request's method is not `initialize`.
    NotInitialize,
    /// The request has no params, or the params or result are not an object.
    NotAnObject,
    /// The object cannot be read member by member (lazy validation let through members out
    /// of order, `{"a" 1}`), so whether a member is there, or there twice, is unknown.
    Malformed,
    /// A required member is not there.
    Missing(HandshakeMember),
    /// A member is there twice: peers may read either.
    Duplicated(HandshakeMember),
    /// A member is not of the schema's type.
    WrongType(HandshakeMember),
    /// ([`write_initialize`]) The request id is neither a string nor an integer, as MCP's
    /// requests' must be.
    BadId,
}

impl HandshakeError {
    /// The member the error is about, if one.
    pub const fn member(self) -> Option<HandshakeMember> {
        match self {
            Self::Missing(m) | Self::Duplicated(m) | Self::WrongType(m) => Some(m),
            Self::NotInitialize | Self::NotAnObject | Self::Malformed | Self::BadId => None,
        }
    }

    /// Appends a server's answer to an `initialize` request whose params were refused:
    /// -32602 Invalid params, with this error as its message.
    pub fn write_reply<'i>(self, out: &mut BytesMut, id: impl Into<ReplyId<'i>>) {
        // An error path: one small allocation for the message's text.
        let message = alloc::format!("Invalid params: {self}");
        encode::write_error(out, id, ErrorCode::INVALID_PARAMS, &message, None);
    }
}

impl core::fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotInitialize => f.write_str("the request is not initialize"),
            Self::NotAnObject => {
                f.write_str("the params or the result is missing or not an object")
            }
            Self::Malformed => f.write_str("the object cannot be read member by member"),
            Self::Missing(m) => write!(f, "{} is required", m.name()),
            Self::Duplicated(m) => write!(f, "{} is given twice", m.name()),
            Self::WrongType(m) => write!(f, "{} must be {}", m.name(), m.expected()),
            Self::BadId => f.write_str("a request id must be a string or an integer"),
        }
    }
}

impl core::error::Error for HandshakeError {}

/// Appends a client's `initialize` request `id` (MCP up to 2025-11-25): params
/// `protocolVersion` (the version the client asks for), `capabilities` and `clientInfo` (its
/// `name` and `version`, perhaps `title`), in the schema's order, what [`Initialize`] reads.
///
/// # Errors
/// Nothing is appended: [`HandshakeError::BadId`] for an id that is not a string or an
/// integer (MCP's server would refuse the request without reading its id, and never answer
/// it), [`HandshakeError::WrongType`] for `capabilities` or `client_info` that is not an
/// object. (What they hold is the caller's: an `Implementation`'s `name` and
/// `version` are not checked, as [`Initialize`] does not check them; nor is their syntax
/// past what made them a [`RawJson`]: one [`RawJson::new`] only delimited, `{"a" 1}`, is
/// written as it is, a line a strict peer refuses ([`RawJson::new_strict`] for bytes not
/// trusted to be JSON); nor is their depth: they sit one level below the params, so one of
/// the 127 levels [`RawJson::new`] takes makes a line the default decoder refuses, 126 at
/// most is read.)
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, versions, Initialize};
/// use rpcwire::{Decoder, Id, Message, RawJson};
///
/// let mut out = BytesMut::new();
/// let capabilities = RawJson::new(br#"{"roots":{}}"#).unwrap();
/// let me = RawJson::new(br#"{"name":"host","version":"1.2"}"#).unwrap();
/// mcp::write_initialize(&mut out, Id::from_token(b"0").unwrap(), versions::V2025_11_25, capabilities, me)?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"host","version":"1.2"}}}
/// "#[..]
/// );
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(&out[..out.len() - 1]) else { panic!() };
/// assert_eq!(Initialize::from_request(&req)?.protocol_version.decode(), "2025-11-25");
/// # Ok::<(), mcp::HandshakeError>(())
/// ```
pub fn write_initialize(
    out: &mut BytesMut,
    id: crate::Id<'_>,
    protocol_version: &str,
    capabilities: RawJson<'_>,
    client_info: RawJson<'_>,
) -> Result<(), HandshakeError> {
    if matches!(id.kind(), IdKind::Null | IdKind::Number) {
        return Err(HandshakeError::BadId);
    }
    let head = |out: &mut BytesMut| {
        encode::write_request_head(out, id, methods::INITIALIZE);
        out.extend_from_slice(br#","params":"#);
    };
    let info = (HandshakeMember::ClientInfo, client_info);
    write_handshake(out, head, protocol_version, capabilities, info, None)
}

/// Appends a server's answer to the `initialize` request `id` (MCP up to 2025-11-25): a
/// result of `protocolVersion` (the version the server answers with,
/// [`versions::negotiate`](super::versions::negotiate)'s), `capabilities`, `serverInfo`
/// and, when given, `instructions` (free text, escaped here), in the schema's order, what
/// [`InitializeResult`] reads.
///
/// # Errors
/// Nothing is appended: [`HandshakeError::WrongType`] for `capabilities` or `server_info`
/// that is not an object. (What they hold is the caller's, as for [`write_initialize`].)
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, versions, InitializeResult};
/// use rpcwire::{Decoder, Id, Message, RawJson};
///
/// let mut out = BytesMut::new();
/// let capabilities = RawJson::new(br#"{"tools":{}}"#).unwrap();
/// let me = RawJson::new(br#"{"name":"stub","version":"0.1"}"#).unwrap();
/// let id = Id::from_token(b"0").unwrap();
/// mcp::write_initialize_result(&mut out, id, versions::V2025_06_18, capabilities, me, Some("Call \"echo\".\n"))?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stub","version":"0.1"},"instructions":"Call \"echo\".\n"}}
/// "#[..]
/// );
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(&out[..out.len() - 1]) else { panic!() };
/// let read = InitializeResult::from_result(r.result)?;
/// assert_eq!(read.instructions.unwrap().decode(), "Call \"echo\".\n");
/// # Ok::<(), mcp::HandshakeError>(())
/// ```
pub fn write_initialize_result(
    out: &mut BytesMut,
    id: crate::Id<'_>,
    protocol_version: &str,
    capabilities: RawJson<'_>,
    server_info: RawJson<'_>,
    instructions: Option<&str>,
) -> Result<(), HandshakeError> {
    let head = |out: &mut BytesMut| encode::write_response_head(out, id);
    let info = (HandshakeMember::ServerInfo, server_info);
    write_handshake(
        out,
        head,
        protocol_version,
        capabilities,
        info,
        instructions,
    )
}

/// `WrongType(member)` unless `value` is an object.
fn must_be_object(value: RawJson<'_>, member: HandshakeMember) -> Result<(), HandshakeError> {
    if value.kind() == JsonKind::Object {
        Ok(())
    } else {
        Err(HandshakeError::WrongType(member))
    }
}

/// A handshake message: `head` (the envelope up to the params' or result's value), then
/// `{"protocolVersion":…,"capabilities":…,` the peer's `clientInfo` or `serverInfo`, and
/// `instructions` when given, then the envelope's end and the line end; nothing when
/// `capabilities` or the peer's identity is not an object.
fn write_handshake(
    out: &mut BytesMut,
    head: impl FnOnce(&mut BytesMut),
    protocol_version: &str,
    capabilities: RawJson<'_>,
    (info_member, info): (HandshakeMember, RawJson<'_>),
    instructions: Option<&str>,
) -> Result<(), HandshakeError> {
    must_be_object(capabilities, HandshakeMember::Capabilities)?;
    must_be_object(info, info_member)?;
    head(out);
    out.extend_from_slice(br#"{"protocolVersion":"#);
    encode::write_json_string(out, protocol_version);
    out.extend_from_slice(br#","capabilities":"#);
    encode::write_raw_json(out, capabilities);
    out.extend_from_slice(b",\"");
    out.extend_from_slice(info_member.name().as_bytes());
    out.extend_from_slice(b"\":");
    encode::write_raw_json(out, info);
    if let Some(instructions) = instructions {
        out.extend_from_slice(br#","instructions":"#);
        encode::write_json_string(out, instructions);
    }
    out.extend_from_slice(b"}}\n");
    Ok(())
}

/// Looks up `members` in `object` in one pass: an error when it is not an object or cannot be
/// read whole, or when a member is given twice.
fn read_members<'a, const N: usize>(
    object: RawJson<'a>,
    members: [HandshakeMember; N],
) -> Result<[Lookup<'a>; N], HandshakeError> {
    if object.kind() != JsonKind::Object {
        return Err(HandshakeError::NotAnObject);
    }
    let found = object.lookup_each(members.map(HandshakeMember::name));
    for (lookup, member) in found.iter().zip(members) {
        match lookup {
            Lookup::Malformed => return Err(HandshakeError::Malformed),
            Lookup::Ambiguous => return Err(HandshakeError::Duplicated(member)),
            Lookup::Found(_) | Lookup::Absent => {}
        }
    }
    Ok(found)
}

/// A required member that must be a string.
fn string(found: Lookup<'_>, member: HandshakeMember) -> Result<JsonStr<'_>, HandshakeError> {
    required(found, member)?
        .as_str()
        .ok_or(HandshakeError::WrongType(member))
}

/// A required member that must be an object.
fn object(found: Lookup<'_>, member: HandshakeMember) -> Result<RawJson<'_>, HandshakeError> {
    let value = required(found, member)?;
    must_be_object(value, member)?;
    Ok(value)
}

/// A member that must be there (`read_members` has turned duplicates away).
fn required(found: Lookup<'_>, member: HandshakeMember) -> Result<RawJson<'_>, HandshakeError> {
    match found {
        Lookup::Found(v) => Ok(v),
        _ => Err(HandshakeError::Missing(member)),
    }
}
