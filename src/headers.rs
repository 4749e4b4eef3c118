//! MCP 2026-07-28 request metadata headers on Streamable HTTP: the check that the headers
//! mirroring the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-{Name}`)
//! agree with it, and the error reply a server sends when they do not (-32020
//! `HeaderMismatch`, or -32022 for an unsupported protocol version).
//!
//! Values that are not plain ASCII travel in the Base64 sentinel form
//! `=?base64?{Base64EncodedValue}?=` (standard alphabet, padded, over the UTF-8 bytes); they are
//! decoded before the comparison, as the transport specification requires.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use base64::Engine as _;
use bytes::BytesMut;
use smallvec::SmallVec;

use crate::encode;
use crate::error::ErrorCode;
use crate::id::{Id, IdKind};
use crate::inflight::IdKey;
use crate::json::{JsonKind, Lookup, RawJson};
use crate::mcp::{meta_keys, methods};
use crate::message::{Message, ReplyId};

/// `MCP-Protocol-Version`: the protocol version of the request (= `_meta`'s
/// `io.modelcontextprotocol/protocolVersion`).
pub const PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Method`: the request's `method`.
pub const METHOD: &str = "Mcp-Method";
/// `Mcp-Name`: `params.name` (`tools/call`, `prompts/get`) or `params.uri`
/// (`resources/read`).
pub const NAME: &str = "Mcp-Name";
/// The prefix of the headers a tool's `x-mcp-header` annotations ask for.
pub const PARAM_PREFIX: &str = "Mcp-Param-";

/// The opening marker of the Base64 sentinel form (case-sensitive).
pub const SENTINEL_PREFIX: &str = "=?base64?";
/// The closing marker of the Base64 sentinel form.
pub const SENTINEL_SUFFIX: &str = "?=";

/// One of the mirrored headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// status `400 Bad Request`.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::headers::{Header, HeaderError};
    /// use rpcwire::{Id, ReplyId};
    /// let mut out = BytesMut::new();
    /// let id = ReplyId::Id(Id::from_token(b"1").unwrap());
    /// HeaderError::Mismatch(Header::Name).write_reply(&mut out, id, &[]);
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch: Mcp-Name header does not match the request body"}}
    /// "#[..]);
    /// ```
    pub fn write_reply(&self, out: &mut BytesMut, id: ReplyId<'_>, supported: &[&str]) {
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
                let mut data = BytesMut::new();
                data.extend_from_slice(b"{\"supported\":[");
                for (i, version) in supported.iter().enumerate() {
                    if i > 0 {
                        data.extend_from_slice(b",");
                    }
                    encode::write_json_string(&mut data, version);
                }
                data.extend_from_slice(b"],\"requested\":");
                encode::write_json_string(&mut data, requested);
                data.extend_from_slice(b"}");
                let data = RawJson::new(&data);
                encode::write_error(out, id, self.code(), "Unsupported protocol version", data);
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

#[cfg(feature = "std")]
impl std::error::Error for HeaderError<'_> {}

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
/// (`params.uri`); for `tools/call`, each [`ParamHeader`] whose value is present (and not
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
/// Where the official MCP Python SDK (2.3) decides otherwise, this check follows the text of
/// the transport specification (`tests/headers_python.rs` compares the two):
/// - the protocol version comes first, so a request at a version the server does not support
///   gets -32022 even when its other headers are wrong: the specification orders neither, the
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
    params: &'a [ParamHeader<'a>],
}

/// The values of the mirrored headers found in a request.
struct Found<'h> {
    version: Option<&'h [u8]>,
    method: Option<&'h [u8]>,
    name: Option<&'h [u8]>,
    params: SmallVec<[Option<&'h [u8]>; 4]>,
}

impl<'a> HeaderCheck<'a> {
    /// A check that accepts the protocol versions `supported_versions` (an empty list accepts
    /// any version).
    pub const fn new(supported_versions: &'a [&'a str]) -> Self {
        HeaderCheck {
            supported_versions,
            params: &[],
        }
    }

    /// Also checks these `Mcp-Param-*` headers (the annotated parameters of the tool that a
    /// `tools/call` names).
    pub const fn with_params(mut self, params: &'a [ParamHeader<'a>]) -> Self {
        self.params = params;
        self
    }

    /// Checks `headers` (name, value) against `msg`, the decoded body.
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
        let found = self.collect(headers)?;
        let method = msg.method();
        let params = msg.params();

        // The protocol version first: the other rules are those of the version requested.
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
                    Lookup::Ambiguous => false,
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

        let name_member = match method {
            Some(m) if m.eq_str(methods::TOOLS_CALL) || m.eq_str(methods::PROMPTS_GET) => {
                Some("name")
            }
            Some(m) if m.eq_str(methods::RESOURCES_READ) => Some("uri"),
            _ => None,
        };
        if let Some(member) = name_member {
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
            for (binding, value) in self.params.iter().zip(&found.params) {
                let header = Header::Param(binding.name);
                let body = match arguments {
                    Lookup::Found(a) => a.lookup_path(binding.path),
                    other => other,
                };
                let body = match body {
                    Lookup::Found(v) if v.kind() == JsonKind::Null => None,
                    Lookup::Found(v) => Some(v),
                    Lookup::Absent => None,
                    // Which of two values a server acts on is anybody's guess.
                    Lookup::Ambiguous => return Err(HeaderError::Mismatch(header)),
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

    /// One pass over the headers: the values of the mirrored ones, duplicates refused.
    fn collect<'h, I>(&self, headers: I) -> Result<Found<'h>, HeaderError<'h>>
    where
        I: IntoIterator<Item = (&'h str, &'h [u8])>,
        'a: 'h,
    {
        let mut found = Found {
            version: None,
            method: None,
            name: None,
            params: self.params.iter().map(|_| None).collect(),
        };
        for (name, value) in headers {
            let (slot, header) = if name.eq_ignore_ascii_case(PROTOCOL_VERSION) {
                (&mut found.version, Header::ProtocolVersion)
            } else if name.eq_ignore_ascii_case(METHOD) {
                (&mut found.method, Header::Method)
            } else if name.eq_ignore_ascii_case(NAME) {
                (&mut found.name, Header::Name)
            } else if let Some(suffix) = strip_prefix_ignore_case(name, PARAM_PREFIX) {
                let Some(i) = self
                    .params
                    .iter()
                    .position(|p| p.name.eq_ignore_ascii_case(suffix))
                else {
                    continue;
                };
                (&mut found.params[i], Header::Param(self.params[i].name))
            } else {
                continue;
            };
            if slot.replace(value).is_some() {
                return Err(HeaderError::Duplicate(header));
            }
        }
        Ok(found)
    }
}

fn strip_prefix_ignore_case<'s>(s: &'s str, prefix: &str) -> Option<&'s str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// The value as text when it holds only visible ASCII, spaces and tabs (RFC 9110 field
/// values, without obsolete text), the spaces and tabs around it stripped (RFC 9110's OWS:
/// another control character at either end, a line break, is malformed as one inside is).
fn plain(value: &[u8]) -> Option<&str> {
    let is_ows = |b: &u8| matches!(b, b' ' | b'\t');
    let start = value.iter().position(|b| !is_ows(b)).unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    let value = &value[start..end];
    if value
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) || b == b'\t')
    {
        core::str::from_utf8(value).ok()
    } else {
        None
    }
}

/// Why a header value could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueError {
    /// The value holds a byte outside visible ASCII, space and tab.
    InvalidCharacter,
    /// The value wears the sentinel markers but its payload is not canonical Base64 (standard
    /// alphabet, padded, zero pad bits).
    BadBase64,
    /// The decoded payload is not UTF-8.
    NotUtf8,
}

impl core::fmt::Display for ValueError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            ValueError::InvalidCharacter => {
                "header value holds a byte outside visible ASCII, space and tab"
            }
            ValueError::BadBase64 => "header value in the Base64 sentinel form is not Base64",
            ValueError::NotUtf8 => "Base64 header value does not decode to UTF-8",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ValueError {}

/// Decodes a `Mcp-Name` or `Mcp-Param-*` header value to the text the body carries: a value
/// in the sentinel form `=?base64?…?=` is Base64-decoded, any other value is taken as it is.
/// Spaces and tabs around the value are ignored (optional whitespace, no part of an HTTP
/// field value).
///
/// The payload must be Base64 as RFC 4648 defines it and as a client's encoder writes it: the
/// standard alphabet, padded ("Implementations MUST include appropriate pad characters at the
/// end of encoded data unless the specification referring to this document explicitly states
/// otherwise", §3.2; the transport specification does not, and pads its examples), with zero
/// pad bits (§3.5 lets decoders reject others). A payload without its padding, or with stray
/// pad bits, is [`ValueError::BadBase64`]: one value has one spelling, so no two components
/// reading the header can disagree on whether it holds a value.
///
/// ```
/// use rpcwire::headers::{decode_header_value, ValueError};
/// assert_eq!(decode_header_value(b"get_weather").unwrap(), "get_weather");
/// assert_eq!(decode_header_value(b"=?base64?SGVsbG8sIOS4lueVjA==?=").unwrap(), "Hello, 世界");
/// assert_eq!(decode_header_value(b"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=").unwrap(), "=?base64?literal?=");
/// assert_eq!(decode_header_value(b"=?base64?SGVsbG8sIOS4lueVjA?="), Err(ValueError::BadBase64));
/// ```
pub fn decode_header_value(value: &[u8]) -> Result<Cow<'_, str>, ValueError> {
    let text = plain(value).ok_or(ValueError::InvalidCharacter)?;
    let Some(payload) = text
        .strip_prefix(SENTINEL_PREFIX)
        .and_then(|rest| rest.strip_suffix(SENTINEL_SUFFIX))
    else {
        return Ok(Cow::Borrowed(text));
    };
    // Padding required and canonical, no trailing bits: the engine's defaults.
    let bytes: Vec<u8> = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .map_err(|_| ValueError::BadBase64)?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| ValueError::NotUtf8)
}

/// Encodes a value for a `Mcp-Name` or `Mcp-Param-*` header (the client side): as it is when
/// it is plain visible ASCII (spaces inside allowed) with no whitespace around it and does
/// not look like the sentinel, else in the sentinel form.
///
/// "Looks like the sentinel" is the specification's test, "starts with `=?base64?` and ends
/// with `?=`", markers overlapping or not: `=?base64?=` is encoded (the Python SDK sends it as
/// it is; both read it back as itself).
///
/// ```
/// use rpcwire::headers::encode_header_value;
/// assert_eq!(encode_header_value("us-west1"), "us-west1");
/// assert_eq!(encode_header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
/// assert_eq!(encode_header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
/// ```
pub fn encode_header_value(value: &str) -> Cow<'_, str> {
    let plain = value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && value.trim_matches(' ') == value
        && !(value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX));
    if plain {
        return Cow::Borrowed(value);
    }
    let mut out = String::from(SENTINEL_PREFIX);
    base64::engine::general_purpose::STANDARD.encode_string(value, &mut out);
    out.push_str(SENTINEL_SUFFIX);
    Cow::Owned(out)
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
