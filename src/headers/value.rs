//! Header values: the Base64 sentinel form `=?base64?{Base64EncodedValue}?=` that carries
//! what is not plain ASCII, and the field-value syntax around it.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use base64::Engine as _;

use super::{SENTINEL_PREFIX, SENTINEL_SUFFIX};

/// The value as text when it holds only visible ASCII, spaces and tabs (RFC 9110 field
/// values, without obsolete text), the spaces and tabs around it stripped (RFC 9110's OWS:
/// another control character at either end, a line break, is malformed as one inside is).
pub(super) fn plain(value: &[u8]) -> Option<&str> {
    let (_, value) = trim_ows(value);
    if value
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) || b == b'\t')
    {
        core::str::from_utf8(value).ok()
    } else {
        None
    }
}

/// The value without the spaces and tabs around it (RFC 9110's optional whitespace, no part
/// of a field value), and where what is left starts.
pub(super) fn trim_ows(value: &[u8]) -> (usize, &[u8]) {
    let is_ows = |b: &u8| matches!(b, b' ' | b'\t');
    let start = value.iter().position(|b| !is_ows(b)).unwrap_or(value.len());
    let end = value
        .iter()
        .rposition(|b| !is_ows(b))
        .map_or(start, |i| i + 1);
    (start, &value[start..end])
}

/// Why a header value could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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

impl core::error::Error for ValueError {}

/// Decodes a `Mcp-Name` or `Mcp-Param-*` header value to the text the body carries: a value
/// in the sentinel form `=?base64?…?=` is Base64-decoded, any other value is taken as it is.
/// Spaces and tabs around the value are ignored (optional whitespace, no part of an HTTP
/// field value).
///
/// The payload must be Base64 as RFC 4648 defines it and as a client's encoder writes it: the
/// standard alphabet, padded ("Implementations MUST include appropriate pad characters at the
/// end of encoded data unless the specification referring to this document explicitly states
/// otherwise", §3.2; the transport specification does not, and pads its examples), with zero
/// pad bits (§3.5 lets decoders reject others). One value has one spelling, so no two
/// components reading the header can disagree on whether it holds a value.
///
/// # Errors
///
/// - [`ValueError::InvalidCharacter`] when the value holds a byte outside visible ASCII,
///   space and tab;
/// - [`ValueError::BadBase64`] when it is in the sentinel form and its payload is not such
///   Base64 (without its padding, say, or with stray pad bits);
/// - [`ValueError::NotUtf8`] when the payload decodes to bytes that are not UTF-8.
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
