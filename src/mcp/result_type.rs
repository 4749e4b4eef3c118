//! A result's `resultType` (MCP 2026-07-28): read ([`ResultType`]), and written on a result
//! that has none ([`write_result`]).

use bytes::BytesMut;

use crate::encode;
use crate::id::Id;
use crate::json::{JsonKind, JsonStr, Lookup, RawJson};

use super::{progress_request, versions};

/// The `resultType` of an MCP 2026-07-28 result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultType<'a> {
    /// `"complete"`, or absent (what earlier protocol versions send).
    Complete,
    /// `"input_required"`: the server needs input from the client first (`inputRequests`,
    /// `requestState`); the client answers and sends the request again.
    InputRequired,
    /// Another string value (valid only if the receiver knows it).
    Other(JsonStr<'a>),
    /// Present but not a string, or ambiguous (duplicated, or in an object too malformed to
    /// read whole).
    Malformed,
}

impl<'a> ResultType<'a> {
    /// Reads `result.resultType`. A duplicated one, or one in an object whose members cannot
    /// all be read, is ambiguous and [`Malformed`](Self::Malformed), as the decoder refuses it.
    ///
    /// ```
    /// use rpcwire::{mcp::ResultType, RawJson};
    /// assert_eq!(ResultType::of(RawJson::new(br#"{"tools":[]}"#).unwrap()), ResultType::Complete);
    /// assert_eq!(ResultType::of(RawJson::new(br#"{"resultType":7}"#).unwrap()), ResultType::Malformed);
    /// ```
    pub fn of(result: RawJson<'a>) -> Self {
        match result.lookup(RESULT_TYPE) {
            Lookup::Absent => ResultType::Complete,
            Lookup::Ambiguous | Lookup::Malformed => ResultType::Malformed,
            Lookup::Found(v) => match v.as_str() {
                Some(s) if s.eq_str("complete") => ResultType::Complete,
                Some(s) if s.eq_str("input_required") => ResultType::InputRequired,
                Some(s) => ResultType::Other(s),
                None => ResultType::Malformed,
            },
        }
    }
}

/// Appends the success response to a request made under MCP protocol `version`: `result` as
/// [`encode::write_response`] writes it, but from 2026-07-28 on with `"resultType":"complete"`
/// as its first member when it holds no `resultType` of its own. MCP 2026-07-28 requires the
/// member of every result ("Servers implementing this protocol version MUST include this
/// field"; its absence tells a client the server implements an earlier version). A result
/// that names its own type (`"input_required"`, the Tasks extension's `"task"`) is written as
/// it is, whatever the string: which types a client reads is its decoder's
/// [`DecodeOptions::result_types`](crate::DecodeOptions::result_types), and a type it does
/// not list is refused there. So is every result under an earlier version written as it is,
/// where `resultType` means nothing.
/// Only the members of `result` are read, its values written as they are (line breaks as
/// spaces, as every writer of [`encode`] makes them).
///
/// # Errors
/// Nothing is appended for [`ResultError::NotAnObject`], a `result` that is not an object
/// (MCP's results are: [`Decoder::mcp_client`](crate::Decoder::mcp_client) refuses another
/// value), nor, from 2026-07-28 on, for [`ResultError::BadResultType`], a `resultType` that is
/// not one string, or is ambiguous (given twice, or in an object that cannot be read member by
/// member, `{"a" 1}`), which a client refuses.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, versions};
/// use rpcwire::{Id, RawJson};
/// let id = Id::from_token(b"7").unwrap();
/// let result = RawJson::new(br#"{"content":[]}"#).unwrap();
/// let mut out = BytesMut::new();
/// mcp::write_result(&mut out, id, result, versions::V2026_07_28)?;
/// mcp::write_result(&mut out, id, RawJson::EMPTY_OBJECT, versions::V2026_07_28)?;
/// // Before 2026-07-28, as it is.
/// mcp::write_result(&mut out, id, result, versions::V2025_11_25)?;
/// assert_eq!(
///     &out[..],
///     &br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[]}}
/// {"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}
/// {"jsonrpc":"2.0","id":7,"result":{"content":[]}}
/// "#[..]
/// );
/// // A result of another type keeps it; one that is not an object is not written.
/// out.clear();
/// let asks = RawJson::new(br#"{"resultType":"input_required","requestState":"s"}"#).unwrap();
/// mcp::write_result(&mut out, id, asks, versions::V2026_07_28)?;
/// assert!(out.ends_with(br#""result":{"resultType":"input_required","requestState":"s"}}
/// "#));
/// out.clear();
/// let refused = mcp::write_result(&mut out, id, RawJson::new(b"[]").unwrap(), versions::V2026_07_28);
/// assert_eq!(refused, Err(mcp::ResultError::NotAnObject));
/// assert!(out.is_empty());
/// # Ok::<(), mcp::ResultError>(())
/// ```
pub fn write_result(
    out: &mut BytesMut,
    id: Id<'_>,
    result: RawJson<'_>,
    version: &str,
) -> Result<(), ResultError> {
    if result.kind() != JsonKind::Object {
        return Err(ResultError::NotAnObject);
    }
    if !versions::has_result_type(version) {
        encode::write_response(out, id, result);
        return Ok(());
    }
    match result.lookup(RESULT_TYPE) {
        Lookup::Found(v) if v.kind() == JsonKind::String => {
            encode::write_response(out, id, result);
            Ok(())
        }
        Lookup::Absent => {
            // After its `{` (a `RawJson` starts with its value): the new member, and a comma
            // unless the object was empty.
            let rest = &result.as_bytes()[1..];
            encode::write_response_head(out, id);
            out.extend_from_slice(br#"{"resultType":"complete""#);
            if !progress_request::is_empty_after(rest) {
                out.extend_from_slice(b",");
            }
            encode::write_raw_json(out, RawJson::trusted(rest));
            out.extend_from_slice(b"}\n");
            Ok(())
        }
        Lookup::Found(_) | Lookup::Ambiguous | Lookup::Malformed => Err(ResultError::BadResultType),
    }
}

/// Why [`write_result`] wrote nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultError {
    /// The result is not an object, as MCP's results are.
    NotAnObject,
    /// MCP 2026-07-28 or later: the result's `resultType` is not one string (another value,
    /// given twice, or in an object that cannot be read member by member).
    BadResultType,
}

impl core::fmt::Display for ResultError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NotAnObject => "an MCP result must be an object",
            Self::BadResultType => "a result's resultType must be one string",
        })
    }
}

impl core::error::Error for ResultError {}

/// The member of an MCP 2026-07-28 result that says its type.
pub(crate) const RESULT_TYPE: &str = "resultType";
