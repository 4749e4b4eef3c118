//! MCP 2026-07-28 request metadata headers on Streamable HTTP. The headers
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-{Name}`) mirror parts of the
//! request body. Three parts:
//!
//! - [`ToolHeaders`]: a tool's `x-mcp-header` annotations, read from its `inputSchema` and
//!   checked (a client drops a tool whose annotations are invalid);
//! - [`mirror_headers`]: the headers a client sends with a message;
//! - [`HeaderCheck`]: the server's check that the headers agree with the body, and the error
//!   reply it sends when they do not ([`HeaderError::write_reply`]: -32020
//!   `HeaderMismatch`, or -32022 for an unsupported protocol version).
//!
//! [`session_id`] reads the `Mcp-Session-Id` header of the versions with sessions (2025-03-26 to
//! 2025-11-25): visible ASCII, by the transport's rule.
//!
//! Values that are not plain ASCII travel in the Base64 sentinel form
//! `=?base64?{Base64EncodedValue}?=` (standard alphabet, padded, over the UTF-8 bytes); they are
//! decoded before the comparison, as the transport specification requires.

use alloc::borrow::Cow;
use alloc::format;

use bytes::BytesMut;
use smallvec::SmallVec;

use crate::encode;
use crate::error::ErrorCode;
use crate::id::{Id, IdKind};
use crate::inflight::IdKey;
use crate::json::{JsonKind, JsonStr, Lookup, RawJson};
use crate::mcp::{meta_keys, methods};
use crate::message::{Message, ReplyId};

mod mirror;
mod session;
mod tool;
mod value;

pub use mirror::mirror_headers;
pub use session::{SESSION_ID, SessionIdError, session_id};
pub use tool::{InvalidSchema, ParamType, SchemaError, ToolHeaders, ToolParam};
pub use value::{ValueError, decode_header_value, encode_header_value};
use value::{plain, trim_ows};

/// `MCP-Protocol-Version`: the protocol version of the request (= `_meta`'s
/// `io.modelcontextprotocol/protocolVersion`).
pub const PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Method`: the request's `method`.
pub const METHOD: &str = "Mcp-Method";
/// `Mcp-Name`: `params.name` (`tools/call`, `prompts/get`) or `params.uri`
/// (`resources/read`); `params.taskId` (`tasks/get`, `tasks/update`, `tasks/cancel`, under the
/// official Tasks extension).
pub const NAME: &str = "Mcp-Name";
/// The prefix of the headers a tool's `x-mcp-header` annotations ask for.
pub const PARAM_PREFIX: &str = "Mcp-Param-";

/// The opening marker of the Base64 sentinel form (case-sensitive).
pub const SENTINEL_PREFIX: &str = "=?base64?";
/// The closing marker of the Base64 sentinel form.
pub const SENTINEL_SUFFIX: &str = "?=";

/// One of the mirrored headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Header<'a> {
    /// `MCP-Protocol-Version`
    ProtocolVersion,
    /// `Mcp-Method`
    Method,
    /// `Mcp-Name`
    Name,
    /// `Mcp-Param-{name}`, with the name of the tool's `x-mcp-header` annotation.
    Param(&'a str),
}

impl core::fmt::Display for Header<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Header::ProtocolVersion => f.write_str(PROTOCOL_VERSION),
            Header::Method => f.write_str(METHOD),
            Header::Name => f.write_str(NAME),
            Header::Param(name) => write!(f, "{PARAM_PREFIX}{name}"),
        }
    }
}

/// Why the headers of a request do not fit its body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HeaderError<'a> {
    /// A required header is absent (-32020).
    Missing(Header<'a>),
    /// A header appears more than once (-32020): which one counts would be ambiguous.
    Duplicate(Header<'a>),
    /// A header value holds characters outside visible ASCII, space and tab, or a Base64
    /// sentinel whose payload is not Base64 of UTF-8 text (-32020).
    Malformed(Header<'a>),
    /// A header value differs from the body's value, or names a value the body lacks
    /// (-32020).
    Mismatch(Header<'a>),
    /// Header and body agree on a protocol version the server does not support (-32022).
    UnsupportedVersion {
        /// The requested version, as the header carries it.
        requested: &'a str,
    },
}

impl HeaderError<'_> {
    /// The error code of the reply: -32020 `HeaderMismatch`, or -32022
    /// `UnsupportedProtocolVersion`.
    pub const fn code(&self) -> ErrorCode {
        match self {
            HeaderError::UnsupportedVersion { .. } => ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION,
            _ => ErrorCode::MCP_HEADER_MISMATCH,
        }
    }

    /// The header at fault (the protocol version header for an unsupported version).
    pub const fn header(&self) -> Header<'_> {
        match *self {
            HeaderError::Missing(h)
            | HeaderError::Duplicate(h)
            | HeaderError::Malformed(h)
            | HeaderError::Mismatch(h) => h,
            HeaderError::UnsupportedVersion { .. } => Header::ProtocolVersion,
        }
    }

    /// Appends the error reply (one line): -32020 with a message naming the header, or
    /// -32022 with `data: {"supported": [...], "requested": "..."}`. On HTTP it goes with
    /// status `400 Bad Request`. `id` is a [`ReplyId`] or, for the usual reply to a request,
    /// its [`Id`] (as [`encode::write_error`] takes it).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::headers::{Header, HeaderError};
    /// use rpcwire::Id;
    /// let mut out = BytesMut::new();
    /// let id = Id::from_token(b"1").unwrap();
    /// HeaderError::Mismatch(Header::Name).write_reply(&mut out, id, &[]);
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch: Mcp-Name header does not match the request body"}}
    /// "#[..]);
    /// ```
    pub fn write_reply<'i>(
        &self,
        out: &mut BytesMut,
        id: impl Into<ReplyId<'i>>,
        supported: &[&str],
    ) {
        let id = id.into();
        let message = match self {
            HeaderError::Missing(h) => format!("Header mismatch: required {h} header is missing"),
            HeaderError::Duplicate(h) => {
                format!("Header mismatch: {h} header appears more than once")
            }
            HeaderError::Malformed(h) => format!("Header mismatch: {h} header value is malformed"),
            HeaderError::Mismatch(h) => {
                format!("Header mismatch: {h} header does not match the request body")
            }
            HeaderError::UnsupportedVersion { requested } => {
                crate::mcp::versions::write_unsupported(out, id, self.code(), requested, supported);
                return;
            }
        };
        encode::write_error(out, id, self.code(), &message, None);
    }
}

impl core::fmt::Display for HeaderError<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            HeaderError::Missing(h) => write!(f, "required {h} header is missing"),
            HeaderError::Duplicate(h) => write!(f, "{h} header appears more than once"),
            HeaderError::Malformed(h) => write!(f, "{h} header value is malformed"),
            HeaderError::Mismatch(h) => write!(f, "{h} header does not match the request body"),
            HeaderError::UnsupportedVersion { requested } => {
                write!(f, "unsupported protocol version {requested:?}")
            }
        }
    }
}

impl core::error::Error for HeaderError<'_> {}

/// A tool parameter mirrored into a `Mcp-Param-{name}` header by an `x-mcp-header`
/// annotation in the tool's `inputSchema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamHeader<'a> {
    /// The annotation's value: the header is `Mcp-Param-{name}` (compared case-insensitively).
    pub name: &'a str,
    /// The chain of `properties` keys from the schema root to the parameter, i.e. the path of
    /// the value inside `params.arguments`.
    pub path: &'a [&'a str],
}

/// Checks that a request's mirrored HTTP headers agree with its decoded body.
///
/// For a request: `MCP-Protocol-Version` and `Mcp-Method` are required; `Mcp-Name` is
/// required for `tools/call` and `prompts/get` (`params.name`) and `resources/read`
/// (`params.uri`), and for `tasks/get`, `tasks/update` and `tasks/cancel` (`params.taskId`:
/// the official Tasks extension, `io.modelcontextprotocol/tasks`); for `tools/call`, each [`ParamHeader`] whose value is present (and not
/// `null`) in `params.arguments` requires its header, and a header whose value is absent is a
/// mismatch; a body member spelled twice (`{"region":"eu","region":"us"}`, or two
/// `arguments`) is ambiguous, and its header a mismatch whether present or not. For a
/// notification (the transport defines no header requirement for them) only the headers
/// present are checked, and `MCP-Protocol-Version` against the body only when the body
/// carries one (a notification's `_meta` has no protocol version). Other messages pass.
/// Header names are compared case-insensitively, values exactly (after decoding the Base64
/// sentinel form, for `Mcp-Name` and `Mcp-Param-*`); numbers are compared by value, exactly
/// (`42.0` = `42`, and `9007199254740993` ≠ `9007199254740992`). Unknown `Mcp-Param-*`
/// headers are ignored.
///
/// Two things the check does not do by itself:
/// - **It knows only the annotations it is given.** Without [`with_tool`](Self::with_tool)
///   (or [`with_params`](Self::with_params)), every `Mcp-Param-*` header is unknown, so
///   ignored: a server, or a router acting on those headers, must give it the called tool's
///   annotations, or not trust them.
/// - **It is MCP 2026-07-28's rule.** A request of an earlier session names no version in
///   its body, so its `MCP-Protocol-Version` header (which 2025-06-18 on also send) is a
///   mismatch here: check such a header against the session's negotiated version instead.
///   Run this check when either the header or the body's `_meta` names 2026-07-28 or later,
///   not on the header alone: a header naming an earlier version over a body naming a later
///   one is itself a mismatch, which this check reports.
///
/// Where the official MCP Python SDK (2.3) decides otherwise, this check follows the text of
/// the transport specification (`tests/headers_python.rs` compares the two):
/// - the protocol version comes first, so a request at a version the server does not support
///   gets -32022 even when its other headers are wrong (missing, different from the body, or
///   sent twice; only a version sent twice is -32020): the specification orders neither, the
///   other header rules are those of the requested version, and -32022 tells the client what
///   to retry with (the SDK answers -32020 first);
/// - `Mcp-Name` is required on `tools/call`, `prompts/get` and `resources/read` whatever the
///   body holds ("A required standard header … is missing" is a failure), and one whose value
///   the body lacks is a mismatch (the SDK compares only when the body has the value);
/// - a value holding a byte outside visible ASCII, space and tab is malformed ("A header value
///   contains invalid characters"; the SDK compares its Latin-1 reading);
/// - a value the body carries at an annotated path needs its header whatever its type ("Client
///   omits header but value is in body: Server MUST reject"; the SDK skips an object);
/// - an integer header in exponent form is the number it spells (`4.2e1` = `42`: the
///   specification compares numerically; the SDK only plain decimals);
/// - a duplicated body member is ambiguous, as above (the SDK's JSON reading keeps the last);
/// - a notification's headers, when present, must agree: the specification defines no header
///   requirement for notification POSTs, so none is missing (the SDK reads only the version,
///   and answers -32022 when it is absent).
///
/// ```
/// use rpcwire::headers::{HeaderCheck, HeaderError, Header};
/// use rpcwire::Decoder;
/// let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Seattle, WA"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
/// let msg = Decoder::mcp().decode(body).unwrap();
/// let check = HeaderCheck::new(&["2026-07-28"]);
/// let mut headers = vec![
///     ("MCP-Protocol-Version", &b"2026-07-28"[..]),
///     ("Mcp-Method", b"tools/call"),
///     ("Mcp-Name", b"get_weather"),
/// ];
/// assert_eq!(check.check(headers.iter().copied(), &msg), Ok(()));
/// headers[2].1 = b"get_forecast";
/// assert_eq!(check.check(headers.iter().copied(), &msg), Err(HeaderError::Mismatch(Header::Name)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeaderCheck<'a> {
    supported_versions: &'a [&'a str],
    params: Params<'a>,
}

/// The annotated parameters a check knows: listed by the caller, or read from the tool's
/// schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Params<'a> {
    Listed(&'a [ParamHeader<'a>]),
    Tool(&'a ToolHeaders),
}

impl Default for Params<'_> {
    fn default() -> Self {
        Params::Listed(&[])
    }
}

impl<'a> Params<'a> {
    fn len(self) -> usize {
        match self {
            Params::Listed(params) => params.len(),
            Params::Tool(tool) => tool.len(),
        }
    }

    /// The names of the annotations, in order.
    fn names(self) -> impl Iterator<Item = &'a str> {
        let (listed, tool) = match self {
            Params::Listed(params) => (params, None),
            Params::Tool(tool) => (&[][..], Some(tool)),
        };
        let tool = tool.into_iter().flat_map(|t| t.iter().map(ToolParam::name));
        listed.iter().map(|p| p.name).chain(tool)
    }

    /// The position and name of the parameter whose header is `Mcp-Param-{name}`, names
    /// compared case-insensitively: by a scan of a listed parameters, by binary search of a
    /// tool's.
    fn find(self, name: &str) -> Option<(usize, &'a str)> {
        match self {
            Params::Listed(params) => params
                .iter()
                .position(|p| p.name.eq_ignore_ascii_case(name))
                .map(|i| (i, params[i].name)),
            Params::Tool(tool) => tool.find(name),
        }
    }

    /// The values of the parameters in `arguments`, in order.
    fn lookup_all<'v>(self, arguments: RawJson<'v>) -> SmallVec<[Lookup<'v>; 4]> {
        match self {
            Params::Listed(params) => tool::lookup_all(arguments, params.len(), |i, depth| {
                params[i].path.get(depth).copied()
            }),
            Params::Tool(tool) => tool.lookup_all(arguments),
        }
    }
}

/// The values of the mirrored headers found in a request.
struct Found<'h> {
    version: Option<&'h [u8]>,
    method: Option<&'h [u8]>,
    name: Option<&'h [u8]>,
    params: SmallVec<[Option<&'h [u8]>; 4]>,
    /// The first header found twice: the protocol version's duplicate comes first, the other
    /// rules being those of the version requested.
    duplicate: Option<Header<'h>>,
}

impl<'a> HeaderCheck<'a> {
    /// A check that accepts the protocol versions `supported_versions` (an empty list accepts
    /// any version).
    ///
    /// ```
    /// use rpcwire::headers::{HeaderCheck, HeaderError};
    /// use rpcwire::{Decoder, ErrorCode};
    /// let body = br#"{"jsonrpc":"2.0","id":"req-1","method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}}"#;
    /// let msg = Decoder::mcp().decode(body).unwrap();
    /// let headers = [("MCP-Protocol-Version", &b"2027-01-01"[..]), ("Mcp-Method", b"ping")];
    /// let error = HeaderCheck::new(&["2026-07-28"]).check(headers, &msg).unwrap_err();
    /// assert_eq!(error, HeaderError::UnsupportedVersion { requested: "2027-01-01" });
    /// assert_eq!(error.code(), ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION); // -32022
    /// assert_eq!(HeaderCheck::new(&[]).check(headers, &msg), Ok(()));
    /// ```
    pub const fn new(supported_versions: &'a [&'a str]) -> Self {
        HeaderCheck {
            supported_versions,
            params: Params::Listed(&[]),
        }
    }

    /// Also checks these `Mcp-Param-*` headers (the annotated parameters of the tool that a
    /// `tools/call` names). Each `Mcp-Param-*` header of a request is looked for by a scan of
    /// the list: for a tool of many annotations, [`Self::with_tool`] searches a sorted index.
    /// The names must differ, compared case-insensitively as header names are: a header
    /// matches the first parameter of its name, so a second one of the same name would be
    /// [`HeaderError::Missing`] in a request whose body has its value. (A schema read by
    /// [`ToolHeaders::from_input_schema`] is refused with such a pair.)
    #[must_use]
    pub const fn with_params(mut self, params: &'a [ParamHeader<'a>]) -> Self {
        self.params = Params::Listed(params);
        self
    }

    /// Also checks the `Mcp-Param-*` headers of `tool`, read from the schema of the tool that a
    /// `tools/call` names (in place of [`Self::with_params`]).
    ///
    /// ```
    /// use rpcwire::headers::{Header, HeaderCheck, HeaderError, ToolHeaders};
    /// use rpcwire::{Decoder, RawJson};
    /// let schema = RawJson::new(br#"{"properties":{"region":{"type":"string","x-mcp-header":"Region"}}}"#).unwrap();
    /// let tool = ToolHeaders::from_input_schema(schema).unwrap();
    /// let body = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute_sql","arguments":{"region":"us-west1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    /// let msg = Decoder::mcp().decode(body).unwrap();
    /// let check = HeaderCheck::new(&["2026-07-28"]).with_tool(&tool);
    /// let mut headers = vec![
    ///     ("MCP-Protocol-Version", &b"2026-07-28"[..]),
    ///     ("Mcp-Method", b"tools/call"),
    ///     ("Mcp-Name", b"execute_sql"),
    /// ];
    /// assert_eq!(check.check(headers.iter().copied(), &msg), Err(HeaderError::Missing(Header::Param("Region"))));
    /// headers.push(("mcp-param-region", b"us-west1"));
    /// assert_eq!(check.check(headers.iter().copied(), &msg), Ok(()));
    /// ```
    #[must_use]
    pub const fn with_tool(mut self, tool: &'a ToolHeaders) -> Self {
        self.params = Params::Tool(tool);
        self
    }

    /// Checks `headers` (name, value) against `msg`, the decoded body: a request or a
    /// notification, by the rules of [`HeaderCheck`]. Any other message passes.
    ///
    /// # Errors
    ///
    /// The first fault found, in this order:
    /// - `MCP-Protocol-Version`: [`HeaderError::Duplicate`] when it is sent twice;
    ///   [`HeaderError::Missing`] when a request lacks it; [`HeaderError::Malformed`] when
    ///   its value holds a byte outside visible ASCII, space and tab;
    ///   [`HeaderError::Mismatch`] when the body's `_meta` names another version, a value
    ///   that is not a string, or it twice, or (for a request) none;
    ///   [`HeaderError::UnsupportedVersion`] when the list of supported versions is not
    ///   empty and lacks it;
    /// - [`HeaderError::Duplicate`] for the first other of these headers sent twice (an
    ///   `Mcp-Param-*` one when the check knows its parameter);
    /// - `Mcp-Method`: [`HeaderError::Missing`] when a request lacks it;
    ///   [`HeaderError::Malformed`] as for the version; [`HeaderError::Mismatch`] when it is
    ///   not the body's method;
    /// - `Mcp-Name`, for a method that has one: [`HeaderError::Missing`] when a request lacks
    ///   it; [`HeaderError::Malformed`] when
    ///   [`decode_header_value`] refuses its value; [`HeaderError::Mismatch`] when the body's
    ///   member is not a string equal to it;
    /// - `Mcp-Param-*`, for a `tools/call`, each parameter the check was given in turn:
    ///   [`HeaderError::Mismatch`] when its argument (or `arguments`) is spelt twice, or when
    ///   the header is sent for an argument that is absent or `null`;
    ///   [`HeaderError::Missing`] when a request lacks it for an argument the body has;
    ///   [`HeaderError::Malformed`] when [`decode_header_value`] refuses its value;
    ///   [`HeaderError::Mismatch`] when the value differs from the argument.
    ///
    /// The [`HeaderCheck`] example checks `Mcp-Name`. A server's check of a request, and the
    /// reply when a header does not agree with the body:
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::headers::{Header, HeaderCheck, HeaderError};
    /// use rpcwire::{Decoder, ErrorCode};
    /// let supported = ["2026-07-28"];
    /// let check = HeaderCheck::new(&supported);
    /// let body = br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    /// let msg = Decoder::mcp().decode(body).unwrap();
    ///
    /// let headers = [("MCP-Protocol-Version", &b"2026-07-28"[..]), ("Mcp-Method", b"tools/list")];
    /// assert_eq!(check.check(headers, &msg), Ok(()));
    ///
    /// let headers = [("MCP-Protocol-Version", &b"2026-07-28"[..]), ("Mcp-Method", b"tools/call")];
    /// let error = check.check(headers, &msg).unwrap_err();
    /// assert_eq!(error, HeaderError::Mismatch(Header::Method));
    /// assert_eq!(error.code(), ErrorCode::MCP_HEADER_MISMATCH); // -32020
    /// // Sent with HTTP status 400.
    /// let mut out = BytesMut::new();
    /// error.write_reply(&mut out, msg.id().unwrap(), &supported);
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: Mcp-Method header does not match the request body"}}
    /// "#[..]);
    /// ```
    pub fn check<'h, I>(&self, headers: I, msg: &Message<'_>) -> Result<(), HeaderError<'h>>
    where
        I: IntoIterator<Item = (&'h str, &'h [u8])>,
        'a: 'h,
    {
        let required = match msg {
            Message::Request(_) => true,
            Message::Notification(_) => false,
            _ => return Ok(()),
        };
        let found = self.collect(headers);
        let method = msg.method();
        let params = msg.params();

        // The protocol version first: the other rules are those of the version requested.
        if let Some(Header::ProtocolVersion) = found.duplicate {
            return Err(HeaderError::Duplicate(Header::ProtocolVersion));
        }
        match found.version {
            None if required => return Err(HeaderError::Missing(Header::ProtocolVersion)),
            None => {}
            Some(value) => {
                let value = plain(value).ok_or(HeaderError::Malformed(Header::ProtocolVersion))?;
                let body = params.map_or(Lookup::Absent, |p| {
                    p.lookup_path(&["_meta", meta_keys::PROTOCOL_VERSION])
                });
                let agrees = match body {
                    Lookup::Found(v) => v.as_str().is_some_and(|b| b.eq_str(value)),
                    // A notification carries no protocol version in its body.
                    Lookup::Absent => !required,
                    Lookup::Ambiguous | Lookup::Malformed => false,
                };
                if !agrees {
                    return Err(HeaderError::Mismatch(Header::ProtocolVersion));
                }
                if !self.supported_versions.is_empty() && !self.supported_versions.contains(&value)
                {
                    return Err(HeaderError::UnsupportedVersion { requested: value });
                }
            }
        }
        if let Some(header) = found.duplicate {
            return Err(HeaderError::Duplicate(header));
        }

        match found.method {
            None if required => return Err(HeaderError::Missing(Header::Method)),
            None => {}
            Some(value) => {
                let value = plain(value).ok_or(HeaderError::Malformed(Header::Method))?;
                if !method.is_some_and(|m| m.eq_str(value)) {
                    return Err(HeaderError::Mismatch(Header::Method));
                }
            }
        }

        if let Some(member) = method.and_then(name_member) {
            match found.name {
                None if required => return Err(HeaderError::Missing(Header::Name)),
                None => {}
                Some(value) => {
                    let value = decode_header_value(value)
                        .map_err(|_| HeaderError::Malformed(Header::Name))?;
                    let body = params.and_then(|p| p.get(member));
                    if !body.is_some_and(|b| string_matches(b, &value)) {
                        return Err(HeaderError::Mismatch(Header::Name));
                    }
                }
            }
        }

        if method.is_some_and(|m| m.eq_str(methods::TOOLS_CALL)) {
            let arguments = params.map_or(Lookup::Absent, |p| p.lookup("arguments"));
            let bodies = match arguments {
                Lookup::Found(a) => self.params.lookup_all(a),
                other => (0..self.params.len()).map(|_| other).collect(),
            };
            for ((name, value), body) in self.params.names().zip(&found.params).zip(bodies) {
                let header = Header::Param(name);
                let body = match body {
                    Lookup::Found(v) if v.kind() == JsonKind::Null => None,
                    Lookup::Found(v) => Some(v),
                    Lookup::Absent => None,
                    // Which of two values a server acts on is anybody's guess.
                    Lookup::Ambiguous | Lookup::Malformed => {
                        return Err(HeaderError::Mismatch(header));
                    }
                };
                match (body, value) {
                    (None, None) => {}
                    (Some(_), None) if required => return Err(HeaderError::Missing(header)),
                    (Some(_), None) => {}
                    (None, Some(_)) => return Err(HeaderError::Mismatch(header)),
                    (Some(body), Some(value)) => {
                        let value = decode_header_value(value)
                            .map_err(|_| HeaderError::Malformed(header))?;
                        if !param_matches(body, &value) {
                            return Err(HeaderError::Mismatch(header));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// One pass over the headers: the values of the mirrored ones, and the first duplicate.
    fn collect<'h, I>(&self, headers: I) -> Found<'h>
    where
        I: IntoIterator<Item = (&'h str, &'h [u8])>,
        'a: 'h,
    {
        let mut found = Found {
            version: None,
            method: None,
            name: None,
            params: (0..self.params.len()).map(|_| None).collect(),
            duplicate: None,
        };
        for (name, value) in headers {
            let (slot, header) = if name.eq_ignore_ascii_case(PROTOCOL_VERSION) {
                (&mut found.version, Header::ProtocolVersion)
            } else if name.eq_ignore_ascii_case(METHOD) {
                (&mut found.method, Header::Method)
            } else if name.eq_ignore_ascii_case(NAME) {
                (&mut found.name, Header::Name)
            } else if let Some(suffix) = strip_prefix_ignore_case(name, PARAM_PREFIX) {
                let Some((i, name)) = self.params.find(suffix) else {
                    continue;
                };
                (&mut found.params[i], Header::Param(name))
            } else {
                continue;
            };
            if slot.is_some() {
                if found.duplicate.is_none() || header == Header::ProtocolVersion {
                    found.duplicate = Some(header);
                }
            } else {
                *slot = Some(value);
            }
        }
        found
    }
}

/// The member of `params` that `Mcp-Name` mirrors for `method`: `name` for `tools/call` and
/// `prompts/get`, `uri` for `resources/read`, and `taskId` for the requests of the official
/// Tasks extension, `tasks/get`, `tasks/update` and `tasks/cancel` ("the client **MUST** set
/// the `Mcp-Name` header to the value of `params.taskId`").
fn name_member(method: JsonStr<'_>) -> Option<&'static str> {
    if method.eq_str(methods::TOOLS_CALL) || method.eq_str(methods::PROMPTS_GET) {
        Some("name")
    } else if method.eq_str(methods::RESOURCES_READ) {
        Some("uri")
    } else if [
        methods::TASKS_GET,
        methods::TASKS_UPDATE,
        methods::TASKS_CANCEL,
    ]
    .iter()
    .any(|m| method.eq_str(m))
    {
        Some("taskId")
    } else {
        None
    }
}

fn strip_prefix_ignore_case<'s>(s: &'s str, prefix: &str) -> Option<&'s str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// Whether the body value is a string equal to `header`.
fn string_matches(body: RawJson<'_>, header: &str) -> bool {
    body.as_str().is_some_and(|s| s.eq_str(header))
}

/// Whether a primitive parameter value matches its header: strings exactly, booleans as
/// `true`/`false`, numbers by value, exactly at any size (`42.0` equals `42`; through `f64`,
/// `9007199254740993` would equal `9007199254740992`): both compared as the canonical keys
/// numeric ids get.
///
/// The header is read as a decimal number: a JSON number, leading zeros allowed (`042` is 42,
/// as the specification's numeric comparison has it), exponent included (`4.2e1` is 42); a
/// plus sign, a bare point or any other text is no number.
fn param_matches(body: RawJson<'_>, header: &str) -> bool {
    match body.kind() {
        JsonKind::String => string_matches(body, header),
        JsonKind::Bool => body.as_bytes() == header.as_bytes(),
        JsonKind::Number => {
            let number = |token: &[u8]| {
                Id::from_token(token)
                    .filter(|id| matches!(id.kind(), IdKind::Integer | IdKind::Number))
                    .map(IdKey::of)
            };
            let header = without_leading_zeros(header);
            matches!((number(body.as_bytes()), number(header.as_bytes())), (Some(b), Some(h)) if b == h)
        }
        _ => false,
    }
}

/// `number` without the leading zeros of its integer part, which JSON's grammar refuses
/// (`-007` → `-7`, `00.5` → `0.5`, `000` → `0`).
fn without_leading_zeros(number: &str) -> Cow<'_, str> {
    let (sign, digits) = match number.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", number),
    };
    let zeros = digits.bytes().take_while(|&b| b == b'0').count();
    // Keep the last zero when no digit follows it (`0`, `0.5`, `0e3`).
    let drop = if digits.as_bytes().get(zeros).is_some_and(u8::is_ascii_digit) {
        zeros
    } else {
        zeros.saturating_sub(1)
    };
    if drop == 0 {
        return Cow::Borrowed(number);
    }
    Cow::Owned(format!("{sign}{}", &digits[drop..]))
}
