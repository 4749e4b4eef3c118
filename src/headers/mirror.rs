//! The client side of header mirroring: the headers a message carries on Streamable HTTP,
//! which [`HeaderCheck`](super::HeaderCheck) then finds in agreement with a body that names
//! its protocol version (MCP 2026-07-28 on).

use alloc::borrow::Cow;
use alloc::vec::Vec;

use super::value::plain;
use super::{Header, HeaderError, ToolHeaders, encode_header_value, name_member};
use crate::json::{JsonStr, Lookup};
use crate::mcp::{meta_keys, methods};
use crate::message::Message;

/// The mirrored headers a client sends with `msg` over Streamable HTTP (MCP 2026-07-28), as
/// (header, value) pairs ready for an HTTP request:
/// - `MCP-Protocol-Version`: the version the body's `_meta` names, else `negotiated` (the
///   version agreed at `initialize`, for a session of an earlier version, whose server checks
///   this header against that version, not with [`HeaderCheck`](super::HeaderCheck)), else
///   none. A notification whose `_meta` names it twice, or names a value that is not a
///   string, goes without the header: a server checks a notification's headers only when
///   present;
/// - `Mcp-Method`: the method;
/// - `Mcp-Name`: `params.name` of `tools/call` and `prompts/get`, `params.uri` of
///   `resources/read`, `params.taskId` of `tasks/get`, `tasks/update` and `tasks/cancel` (the
///   official Tasks extension), when the body has it as a string ([`encode_header_value`]: the Base64
///   sentinel form when it is not plain ASCII). A notification's such member that no header
///   can stand for gives no header (a server checks only the headers a notification
///   carries);
/// - `Mcp-Param-*`: for a `tools/call`, the annotated arguments of `tool`, the schema of the
///   tool it names ([`ToolHeaders::mirror`]).
///
/// Requests and notifications have them. Other messages (a response, an error response, a
/// batch) mirror nothing of their body, which has no method and names no version; given
/// `negotiated`, the HTTP request carrying one still has `MCP-Protocol-Version`, which a
/// client "MUST include … on all subsequent requests" after `initialize` (MCP 2025-06-18 on):
/// its answer to a server's `sampling/createMessage` or `roots/list` too.
///
/// # Errors
///
/// A message no headers can be mirrored for is refused here, before it is sent; a server
/// would refuse it whatever its headers:
/// - [`HeaderError::Mismatch`]`(`[`Header::ProtocolVersion`]`)` for a request whose `_meta`
///   names its protocol version twice, or names a value that is not a string (`null`
///   included), or whose `_meta` cannot be read;
/// - for a request's `Mcp-Name` member: [`HeaderError::Missing`] when it is absent;
///   [`HeaderError::Mismatch`] when it is not a string (`null` included) or spelt twice;
///   [`HeaderError::Malformed`] when it is a string holding a lone surrogate escape,
///   `\ud800`, which has no UTF-8 form to encode;
/// - for a `tools/call` mirrored with `tool`, an argument that cannot be mirrored, under its
///   parameter's header: [`HeaderError::Malformed`] for one with no header form (an object,
///   an array, a string holding a lone surrogate escape), and for an integer parameter's
///   number that is not an integer within ±(2^53−1), which the specification forbids (a
///   [`HeaderCheck`](super::HeaderCheck) server compares one sent anyway by value);
///   [`HeaderError::Mismatch`] for one spelt twice, or under an `arguments` spelt twice;
/// - [`HeaderError::Malformed`] for a method or protocol version (the body's or
///   `negotiated`) that cannot be a header value as it is (a byte outside visible ASCII,
///   space and tab, or whitespace at either end: a line break would end the header): the
///   transport defines no encoding for them, and no MCP method or version needs one.
///
/// ```
/// use rpcwire::headers::{mirror_headers, HeaderCheck};
/// use rpcwire::Decoder;
/// let body = br#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///caf\u00e9.txt","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
/// let msg = Decoder::mcp().decode(body).unwrap();
/// let headers = mirror_headers(&msg, None, None).unwrap();
/// let text: Vec<_> = headers.iter().map(|(h, v)| (h.to_string(), &**v)).collect();
/// assert_eq!(text, [
///     ("MCP-Protocol-Version".to_string(), "2026-07-28"),
///     ("Mcp-Method".to_string(), "resources/read"),
///     ("Mcp-Name".to_string(), "=?base64?ZmlsZTovLy9jYWbDqS50eHQ=?="),
/// ]);
/// // What a server checks: they agree with the body.
/// let names: Vec<String> = headers.iter().map(|(h, _)| h.to_string()).collect();
/// let sent = names.iter().zip(&headers).map(|(n, (_, v))| (n.as_str(), v.as_bytes()));
/// assert_eq!(HeaderCheck::new(&["2026-07-28"]).check(sent, &msg), Ok(()));
/// ```
pub fn mirror_headers<'m>(
    msg: &Message<'m>,
    negotiated: Option<&'m str>,
    tool: Option<&'m ToolHeaders>,
) -> Result<Vec<(Header<'m>, Cow<'m, str>)>, HeaderError<'m>> {
    let mut headers = Vec::new();
    let (Message::Request(_) | Message::Notification(_)) = msg else {
        // A response (or a batch, 2025-03-26's) has no method and names no version of its
        // own; the HTTP request that carries it is still one of the session's, which names the
        // negotiated version "on all subsequent requests to the MCP server" (2025-06-18 on).
        if let Some(version) = negotiated {
            headers.push((
                Header::ProtocolVersion,
                field_value(Cow::Borrowed(version), Header::ProtocolVersion)?,
            ));
        }
        return Ok(headers);
    };
    let params = msg.params();
    let is_request = matches!(msg, Message::Request(_));

    let meta_version = match params.map_or(Lookup::Absent, |p| {
        p.lookup_path(&["_meta", meta_keys::PROTOCOL_VERSION])
    }) {
        Lookup::Found(v) => match v.as_str() {
            Some(v) => MetaVersion::Readable(v),
            // Not a string (`null` included): no header equals it, so none may stand for it.
            None => MetaVersion::Unreadable,
        },
        Lookup::Absent => MetaVersion::Absent,
        // Named twice: no version, whatever header goes with it.
        // Or in a malformed `_meta`: a version a server cannot read.
        Lookup::Ambiguous | Lookup::Malformed => MetaVersion::Unreadable,
    };
    let version = match meta_version {
        MetaVersion::Readable(v) => Some(v.decode()),
        MetaVersion::Absent => negotiated.map(Cow::Borrowed),
        // A request requires the header, which no value can make agree: refused, as a
        // server finds it. A notification requires none: it goes without, as the
        // unreadable name of one does (below), and a server checks only what it carries.
        MetaVersion::Unreadable if is_request => {
            return Err(HeaderError::Mismatch(Header::ProtocolVersion));
        }
        MetaVersion::Unreadable => None,
    };
    if let Some(version) = version {
        headers.push((
            Header::ProtocolVersion,
            field_value(version, Header::ProtocolVersion)?,
        ));
    }

    let Some(method) = msg.method() else {
        return Ok(headers);
    };
    headers.push((
        Header::Method,
        field_value(method.decode(), Header::Method)?,
    ));

    if let Some(member) = name_member(method)
        && let Some(value) = name_value(
            params.map_or(Lookup::Absent, |p| p.lookup(member)),
            is_request,
        )?
    {
        headers.push((Header::Name, value));
    }

    if let (Some(tool), true) = (tool, method.eq_str(methods::TOOLS_CALL)) {
        match params.map_or(Lookup::Absent, |p| p.lookup("arguments")) {
            Lookup::Found(arguments) => {
                for header in tool.mirror_each(arguments) {
                    headers.extend(header?);
                }
            }
            Lookup::Absent => {}
            // `arguments` spelt twice: so is every annotated value.
            Lookup::Ambiguous | Lookup::Malformed => {
                if let Some(param) = tool.iter().next() {
                    return Err(HeaderError::Mismatch(param.header()));
                }
            }
        }
    }
    Ok(headers)
}

/// The `Mcp-Name` value of the body's `name` or `uri` member (`None`: no header). A request
/// requires the header, so one whose member no header can stand for is refused, as a server
/// refuses it whatever headers it comes with: absent ([`HeaderError::Missing`]), not a string
/// or spelt twice ([`HeaderError::Mismatch`]), a string holding a lone surrogate escape
/// ([`HeaderError::Malformed`]). A notification requires none: only a string it holds once,
/// with a UTF-8 form, is mirrored (a server checks the headers a notification carries, and
/// accepts it without them).
fn name_value(
    member: Lookup<'_>,
    is_request: bool,
) -> Result<Option<Cow<'_, str>>, HeaderError<'static>> {
    let refused = |error| if is_request { Err(error) } else { Ok(None) };
    match member {
        Lookup::Found(v) => match v.as_str() {
            Some(text) => match encoded(text) {
                Some(value) => Ok(Some(value)),
                None => refused(HeaderError::Malformed(Header::Name)),
            },
            // No header equals a number, an object or `null`.
            None => refused(HeaderError::Mismatch(Header::Name)),
        },
        Lookup::Absent => refused(HeaderError::Missing(Header::Name)),
        // Spelt twice: which one a server acts on is unknown, and it refuses the call.
        Lookup::Ambiguous | Lookup::Malformed => refused(HeaderError::Mismatch(Header::Name)),
    }
}

/// `value` when it can be a header value as it is: what [`plain`] reads back unchanged (no
/// byte outside visible ASCII, space and tab, and no whitespace around it to be stripped).
fn field_value<'m>(
    value: Cow<'m, str>,
    header: Header<'m>,
) -> Result<Cow<'m, str>, HeaderError<'m>> {
    if plain(value.as_bytes()).is_some_and(|read| read.len() == value.len()) {
        Ok(value)
    } else {
        Err(HeaderError::Malformed(header))
    }
}

/// A JSON string's text through [`encode_header_value`]; `None` for a string holding a lone
/// surrogate escape (`\ud800`), which has no UTF-8 form to encode (U+FFFD in its place would
/// be another value, and [`HeaderCheck`](super::HeaderCheck) matches it to no header).
pub(super) fn encoded<'v>(value: JsonStr<'v>) -> Option<Cow<'v, str>> {
    if value.has_lone_surrogate() {
        return None;
    }
    Some(match value.decode() {
        Cow::Borrowed(text) => encode_header_value(text),
        Cow::Owned(text) => Cow::Owned(encode_header_value(&text).into_owned()),
    })
}

/// What a message's `_meta` says of its protocol version.
enum MetaVersion<'a> {
    /// A string: the version.
    Readable(JsonStr<'a>),
    /// Not there: the version is the negotiated one, if any.
    Absent,
    /// Named twice, not a string, or in a malformed `_meta`: no header agrees with it.
    Unreadable,
}
