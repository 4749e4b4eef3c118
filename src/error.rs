//! Error codes (JSON-RPC's and MCP's), and why a frame was rejected.

use crate::scan::ScanError;

/// A JSON-RPC error code: an open newtype, so every code a peer sends is representable. (The
/// decoder reads `error.code` as an integer token within `i64`; one outside it, or spelled as a
/// fraction or with an exponent, makes the error object invalid:
/// `DecodeError::BadErrorObject(Member::ErrorCode)`.)
///
/// ```
/// use rpcwire::{CodeRange, ErrorCode};
/// assert_eq!(ErrorCode::METHOD_NOT_FOUND.range(), CodeRange::Standard);
/// assert_eq!(ErrorCode(-32020).range(), CodeRange::McpReservedDefined);
/// assert!(ErrorCode(-32042).is_forbidden_in_mcp_2026());
/// assert_eq!(ErrorCode(42).range(), CodeRange::Application);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorCode(pub i64);

/// Where an error code sits in the reserved blocks of JSON-RPC 2.0 and MCP 2026-07-28.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CodeRange {
    /// One of the five codes JSON-RPC 2.0 defines (-32700, -32600..-32603).
    Standard,
    /// Elsewhere in JSON-RPC's reserved block, -32768..-32100 (the five standard codes
    /// aside): reserved for future use by JSON-RPC.
    JsonRpcReserved,
    /// MCP's legacy block -32019..-32000 (implementation-defined server errors; only -32002,
    /// the older "resource not found", has a meaning).
    McpLegacy,
    /// A code MCP defines in its reserved block -32099..-32020 (-32020, -32021, -32022, and the
    /// withdrawn -32042).
    McpReservedDefined,
    /// A code in MCP's reserved block -32099..-32020 that no MCP version defines.
    McpReservedUndefined,
    /// Outside -32768..-32000: free for applications.
    Application,
}

impl ErrorCode {
    /// -32700: invalid JSON was received.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// -32600: the JSON sent is not a valid Request object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// -32601: the method does not exist or is not available.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// -32602: invalid method parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// -32603: internal JSON-RPC error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// -32002: MCP's "resource not found", the code a server of 2025-11-25 and earlier
    /// answers a `resources/read` of an unknown URI with (the resources page, "Error
    /// Handling": "Resource not found: `-32002`"). MCP 2026-07-28 withdrew it (-32602
    /// instead; [`is_forbidden_in_mcp_2026`](Self::is_forbidden_in_mcp_2026)): not to be
    /// emitted under that version, while a session of an earlier one still uses it.
    pub const MCP_RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);
    /// -32042: MCP 2025-11-25's "URL elicitation required" (`URL_ELICITATION_REQUIRED`: "the
    /// server requires the client to provide additional information via an elicitation
    /// request", the URL elicitations in `data.elicitations`), for a session of 2025-11-25.
    /// MCP 2026-07-28 withdrew it: not to be emitted under that version
    /// ([`is_forbidden_in_mcp_2026`](Self::is_forbidden_in_mcp_2026)).
    pub const MCP_URL_ELICITATION_REQUIRED: ErrorCode = ErrorCode(-32042);
    /// -32020: MCP 2026-07-28 header mismatch (HTTP headers disagree with the body).
    pub const MCP_HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// -32021: MCP 2026-07-28 missing required client capability.
    pub const MCP_MISSING_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// -32022: MCP 2026-07-28 unsupported protocol version.
    pub const MCP_UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

    /// The code's number.
    #[inline]
    pub const fn get(self) -> i64 {
        self.0
    }

    /// Where the code sits in the reserved blocks.
    pub const fn range(self) -> CodeRange {
        match self.0 {
            -32700 | -32600 | -32601 | -32602 | -32603 => CodeRange::Standard,
            -32019..=-32000 => CodeRange::McpLegacy,
            -32020 | -32021 | -32022 | -32042 => CodeRange::McpReservedDefined,
            -32099..=-32023 => CodeRange::McpReservedUndefined,
            -32768..=-32100 => CodeRange::JsonRpcReserved,
            _ => CodeRange::Application,
        }
    }

    /// The specification's message for the codes it defines (`None` for the others).
    pub const fn default_message(self) -> Option<&'static str> {
        Some(match self.0 {
            -32700 => "Parse error",
            -32600 => "Invalid Request",
            -32601 => "Method not found",
            -32602 => "Invalid params",
            -32603 => "Internal error",
            -32002 => "Resource not found",
            -32042 => "URL elicitation required",
            -32020 => "Header mismatch",
            -32021 => "Missing required client capability",
            -32022 => "Unsupported protocol version",
            _ => return None,
        })
    }

    /// Whether an implementation of MCP 2026-07-28 is not to emit this code: it must not emit
    /// the withdrawn -32002 and -32042, codes of the reserved blocks that no specification
    /// defines, and JSON-RPC's reserved codes other than the five standard ones; and a new
    /// implementation should not use the rest of the legacy block (-32000..-32019), which
    /// existing ones keep using (an SDK's -32000 "connection closed", say). A peer's code here
    /// is no reason to refuse its message.
    pub const fn is_forbidden_in_mcp_2026(self) -> bool {
        match self.range() {
            CodeRange::Standard | CodeRange::Application => false,
            CodeRange::McpReservedDefined => self.0 == -32042,
            CodeRange::McpLegacy | CodeRange::McpReservedUndefined | CodeRange::JsonRpcReserved => {
                true
            }
        }
    }
}

/// A code as it is on the wire.
///
/// ```
/// use rpcwire::ErrorCode;
/// assert_eq!(ErrorCode::from(-32601), ErrorCode::METHOD_NOT_FOUND);
/// assert_eq!(i64::from(ErrorCode::METHOD_NOT_FOUND), -32601);
/// ```
impl From<i64> for ErrorCode {
    fn from(code: i64) -> Self {
        ErrorCode(code)
    }
}

/// The code's integer, as [`ErrorCode::from`] takes it.
impl From<ErrorCode> for i64 {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

impl core::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// An envelope member, named in errors about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Member {
    /// `jsonrpc`
    JsonRpc,
    /// `id`
    Id,
    /// `method`
    Method,
    /// `params`
    Params,
    /// `result`
    Result,
    /// `error`
    Error,
    /// `error.code`
    ErrorCode,
    /// `error.message`
    ErrorMessage,
    /// `error.data`
    ErrorData,
}

impl Member {
    /// The member's JSON name.
    pub const fn name(self) -> &'static str {
        match self {
            Member::JsonRpc => "jsonrpc",
            Member::Id => "id",
            Member::Method => "method",
            Member::Params => "params",
            Member::Result => "result",
            Member::Error => "error",
            Member::ErrorCode => "code",
            Member::ErrorMessage => "message",
            Member::ErrorData => "data",
        }
    }
}

/// Why a frame is not a valid message. Small and `Copy`; [`DecodeError::code`] says which
/// error reply it calls for. A [`Rejection`](crate::Rejection) carries one
/// ([`Rejection::error`](crate::Rejection::error)); its `Display` is a line for a log.
///
/// ```
/// use rpcwire::{DecodeError, Decoder, ErrorCode, Member};
/// let decoder = Decoder::mcp();
/// let error = decoder.decode(br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#).unwrap_err().error();
/// assert_eq!(error, DecodeError::DuplicateMember(Member::Id));
/// assert_eq!((error.code(), error.to_string().as_str()), (ErrorCode::INVALID_REQUEST, r#"duplicate "id" member"#));
/// let error = decoder.decode(b"{oops").unwrap_err().error();
/// assert!(error.is_parse_error() && matches!(error, DecodeError::Syntax(_)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeError {
    /// The frame is not JSON (-32700).
    Syntax(ScanError),
    /// The frame is not UTF-8 (-32700).
    InvalidUtf8,
    /// A complete JSON value is followed by more than whitespace (-32700).
    TrailingData,
    /// The frame holds no value at all (-32700).
    Empty,
    /// A carriage return inside the frame, which some peers read as a line end (-32700):
    /// hardened profile.
    LoneCarriageReturn,
    /// The frame is longer than [`Limits::max_frame`](crate::Limits::max_frame) (-32700): a
    /// frame that did not come through a framer with that limit.
    FrameTooLong {
        /// The limit, in bytes: [`Limits::max_frame`](crate::Limits::max_frame) of the decoder's
        /// options, capped at `u32::MAX`. (A `u32`, which keeps the error small: the decoder
        /// refuses a frame of more than `u32::MAX` bytes whatever its `max_frame`, and that is
        /// the limit such a frame crosses.)
        limit: u32,
    },
    /// The frame is JSON but not an object (nor, where allowed, a batch array).
    NotAnObject,
    /// A batch (top-level array) where [`DecodeOptions::batches`](crate::DecodeOptions::batches)
    /// is off: by default in MCP (every session but a 2025-03-26 one), and in JSON-RPC when
    /// set so. The array is one invalid request, answered once (-32600, under the id the
    /// decoder gives what it cannot read: [`DecodeOptions::unreadable_id`]), even when it
    /// holds notifications alone: its elements are not read as messages, so none of them is
    /// answered, nor forwarded. A batch of responses alone (each with `result` or `error`
    /// and no `method`; or, read by a client, an `id` alone) is the one exception: nobody
    /// answers a response, so its [`reply`](crate::Rejection::reply) is `None`
    /// ([`is_response`](crate::Rejection::is_response)).
    ///
    /// [`DecodeOptions::unreadable_id`]: crate::DecodeOptions::unreadable_id
    ///
    /// ```
    /// use rpcwire::{DecodeError, DecodeOptions, Decoder, Dialect};
    /// let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    /// let refused = |options| Decoder::new(options).decode(batch).unwrap_err().error();
    /// let mcp = DecodeOptions::new(Dialect::Mcp);
    /// assert_eq!(refused(mcp.for_protocol_version("2024-11-05")), DecodeError::BatchNotAllowed);
    /// assert_eq!(refused(mcp.for_protocol_version("2025-06-18")), DecodeError::BatchNotAllowed);
    /// let jsonrpc = DecodeOptions { batches: false, ..DecodeOptions::new(Dialect::JsonRpc2) };
    /// assert_eq!(refused(jsonrpc), DecodeError::BatchNotAllowed);
    ///
    /// let notifications = br#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
    /// let reply = Decoder::mcp().decode(notifications).unwrap_err().reply().unwrap();
    /// assert_eq!(reply.code, rpcwire::ErrorCode::INVALID_REQUEST);
    ///
    /// let responses = br#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#;
    /// let refused = Decoder::mcp().decode(responses).unwrap_err();
    /// assert_eq!(refused.error(), DecodeError::BatchNotAllowed);
    /// assert!(refused.is_response() && refused.reply().is_none());
    /// ```
    BatchNotAllowed,
    /// An empty batch `[]`.
    EmptyBatch,
    /// A batch of more elements than [`Limits::max_batch_len`](crate::Limits::max_batch_len),
    /// refused whole with one -32600, or none for a batch of responses alone (as
    /// [`Self::BatchNotAllowed`]).
    BatchTooLong {
        /// The limit, in elements: [`Limits::max_batch_len`](crate::Limits::max_batch_len) of
        /// the decoder's options. (A `u32`, as for [`FrameTooLong`](Self::FrameTooLong): a
        /// batch has fewer elements than its frame has bytes.)
        limit: u32,
    },
    /// The `jsonrpc` member is missing.
    MissingVersion,
    /// The `jsonrpc` member is not exactly the string `"2.0"`.
    BadVersion,
    /// An envelope member appears twice (keys compared after unescaping).
    DuplicateMember(Member),
    /// The id is not a string, number or null: an object, an array or a boolean (refused in
    /// both dialects; MCP refuses a non-integer number and `null` too, as
    /// [`NonIntegerId`](Self::NonIntegerId) and [`NullId`](Self::NullId)).
    BadIdType,
    /// The id is `null` where the dialect forbids it (MCP).
    NullId,
    /// The id is a number but not a canonical integer where the dialect requires one (MCP).
    NonIntegerId,
    /// The id's raw token is longer than [`Limits::max_id_len`](crate::Limits::max_id_len).
    IdTooLong {
        /// The limit, in bytes: [`Limits::max_id_len`](crate::Limits::max_id_len) of the
        /// decoder's options. (A `u32`, as for [`FrameTooLong`](Self::FrameTooLong).)
        limit: u32,
    },
    /// `method` is not a string.
    MethodNotString,
    /// `method` is longer than [`Limits::max_method_len`](crate::Limits::max_method_len).
    MethodTooLong {
        /// The limit, in bytes: [`Limits::max_method_len`](crate::Limits::max_method_len) of
        /// the decoder's options. (A `u32`, as for [`FrameTooLong`](Self::FrameTooLong).)
        limit: u32,
    },
    /// `params` is neither an object nor an array (JSON-RPC; under MCP,
    /// [`Self::ParamsNotObject`]).
    BadParams,
    /// `params` is not an object where the dialect requires one (MCP).
    ParamsNotObject,
    /// Both `method` and `result`/`error` are present.
    MethodInResponse,
    /// Both `result` and `error` are present.
    ResultAndError,
    /// An object with none of `method`, `result`, `error` (with an id alone: an invalid
    /// request to a server, an invalid response to a client).
    NoMethodNoResult,
    /// A response without an `id` member where the dialect requires one.
    MissingId,
    /// `error` is not an object, or has members of the wrong type or missing.
    BadErrorObject(Member),
    /// `result` is not an object where the dialect requires one (MCP).
    ResultNotObject,
    /// `result.resultType` is present with a value the decoder does not accept
    /// ([`DecodeOptions::result_types`](crate::DecodeOptions::result_types)), occurs
    /// twice, or cannot be read (lazy validation let through a result whose members cannot
    /// all be read, `{"a":1 "resultType":…}`).
    BadResultType,
    /// A top-level member that is not an envelope member, with unknown members rejected.
    UnknownMember,
    /// A member whose name case-folds to an envelope name (`ID`, `Method`): hardened profile.
    CaseFoldedMember,
    /// An unpaired surrogate escape in `method` or a string id: hardened profile.
    LoneSurrogate,
    /// A C0 control character (U+0000–U+001F) in `method`: hardened profile.
    ControlInMethod,
    /// A numeric id that is not an integer within ±(2^53 − 1): hardened profile.
    UnsafeNumericId,
    /// MCP: an `initialize` request inside a batch (2025-03-26, the one version with batches:
    /// "The initialize request MUST NOT be part of a JSON-RPC batch").
    InitializeInBatch,
}

impl DecodeError {
    /// The error code of the reply this rejection calls for: -32700 when the frame is not
    /// JSON, -32600 otherwise.
    pub const fn code(self) -> ErrorCode {
        if self.is_parse_error() {
            ErrorCode::PARSE_ERROR
        } else {
            ErrorCode::INVALID_REQUEST
        }
    }

    /// Whether the rejection calls for -32700 (Parse error), whose reply never carries the
    /// frame's id: the frame is not JSON, or it was refused before its id could be trusted
    /// (longer than the frame limit, or holding a carriage return under the hardened
    /// profile), JSON or not.
    pub const fn is_parse_error(self) -> bool {
        matches!(
            self,
            DecodeError::Syntax(_)
                | DecodeError::InvalidUtf8
                | DecodeError::TrailingData
                | DecodeError::Empty
                | DecodeError::LoneCarriageReturn
                | DecodeError::FrameTooLong { .. }
        )
    }

    /// A short description, suitable for logs and for an error reply's `data`.
    pub const fn as_str(self) -> &'static str {
        match self {
            DecodeError::Syntax(e) => e.as_str(),
            DecodeError::InvalidUtf8 => "frame is not valid UTF-8",
            DecodeError::TrailingData => "data after the JSON value",
            DecodeError::Empty => "empty frame",
            DecodeError::LoneCarriageReturn => "carriage return inside the frame",
            DecodeError::FrameTooLong { .. } => "frame too long",
            DecodeError::NotAnObject => "message is not a JSON object",
            DecodeError::BatchNotAllowed => "batches are not allowed",
            DecodeError::EmptyBatch => "empty batch",
            DecodeError::BatchTooLong { .. } => "batch has more elements than its limit",
            DecodeError::MissingVersion => "missing \"jsonrpc\" member",
            DecodeError::BadVersion => "\"jsonrpc\" must be exactly \"2.0\"",
            DecodeError::DuplicateMember(_) => "duplicate envelope member",
            // (Both dialects refuse these types: JSON-RPC takes any number and null too, MCP
            // neither, with their own errors, `NonIntegerId` and `NullId`.)
            DecodeError::BadIdType => "id is an object, an array or a boolean",
            DecodeError::NullId => "id must not be null",
            DecodeError::NonIntegerId => "id must be a string or an integer",
            DecodeError::IdTooLong { .. } => "id too long",
            DecodeError::MethodNotString => "method must be a string",
            DecodeError::MethodTooLong { .. } => "method too long",
            DecodeError::BadParams => "params must be an object or an array",
            DecodeError::ParamsNotObject => "params must be an object",
            DecodeError::MethodInResponse => "method together with result or error",
            DecodeError::ResultAndError => "both result and error",
            DecodeError::NoMethodNoResult => "none of method, result, error",
            DecodeError::MissingId => "response without id",
            DecodeError::BadErrorObject(_) => "malformed error object",
            DecodeError::ResultNotObject => "result must be an object",
            DecodeError::BadResultType => "unknown, duplicated or unreadable resultType",
            DecodeError::UnknownMember => "unknown top-level member",
            DecodeError::CaseFoldedMember => "member name case-folds to an envelope member",
            DecodeError::LoneSurrogate => "unpaired surrogate in an envelope string",
            DecodeError::ControlInMethod => "control character in method",
            DecodeError::UnsafeNumericId => "numeric id outside the exactly representable range",
            DecodeError::InitializeInBatch => "initialize inside a batch",
        }
    }
}

/// A limit of [`Limits`](crate::Limits) as the `u32` a [`DecodeError`] carries: exact for
/// every limit a frame can cross (a frame is at most `u32::MAX` bytes), `u32::MAX` beyond.
pub(crate) const fn limit_u32(limit: usize) -> u32 {
    if limit > u32::MAX as usize {
        u32::MAX
    } else {
        limit as u32
    }
}

impl From<ScanError> for DecodeError {
    fn from(e: ScanError) -> Self {
        DecodeError::Syntax(e)
    }
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DecodeError::DuplicateMember(m) => write!(f, "duplicate \"{}\" member", m.name()),
            DecodeError::BadErrorObject(m) => write!(f, "malformed error object ({})", m.name()),
            DecodeError::FrameTooLong { limit } => {
                write!(
                    f,
                    "frame longer than its limit of {limit} bytes (max_frame)"
                )
            }
            DecodeError::BatchTooLong { limit } => write!(
                f,
                "batch has more elements than its limit of {limit} (max_batch_len)"
            ),
            DecodeError::IdTooLong { limit } => {
                write!(f, "id longer than its limit of {limit} bytes (max_id_len)")
            }
            DecodeError::MethodTooLong { limit } => write!(
                f,
                "method longer than its limit of {limit} bytes (max_method_len)"
            ),
            _ => f.write_str(self.as_str()),
        }
    }
}

/// The text of a [`Syntax`](DecodeError::Syntax) error is its [`ScanError`]'s, so that error
/// is not given again as the [`source`](core::error::Error::source): a report of the error
/// chain prints each text once. The scan error is the variant's field.
///
/// ```
/// use std::error::Error;
/// use rpcwire::{DecodeError, ScanError};
/// let syntax = DecodeError::Syntax(ScanError::BadNumber);
/// assert_eq!(syntax.to_string(), ScanError::BadNumber.to_string());
/// assert!(syntax.source().is_none());
/// ```
impl core::error::Error for DecodeError {}

impl core::error::Error for ScanError {}
