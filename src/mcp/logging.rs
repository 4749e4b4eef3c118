//! Log levels (MCP's `LoggingLevel`), and the level a request of MCP 2026-07-28 names in its
//! `_meta` ([`requested_log_level`]), which alone lets a server send `notifications/message`
//! for it ([`may_log`]); and the level of a log message a server sends
//! ([`log_message_level`]), for a client or a gateway filtering them.

use crate::json::JsonStr;
use crate::message::{Notification, Request};

use super::{meta_keys, methods};

/// The severity of a log message, MCP's `LoggingLevel`: "The protocol follows the standard
/// syslog severity levels specified in RFC 5424". Ordered from the least severe ([`Debug`])
/// to the most ([`Emergency`]), so a level `l` is at least as severe as a minimum `min` when
/// `l >= min`.
///
/// [`Debug`]: LogLevel::Debug
/// [`Emergency`]: LogLevel::Emergency
///
/// ```
/// use rpcwire::mcp::LogLevel;
/// let level: LogLevel = "warning".parse().unwrap();
/// assert_eq!(level, LogLevel::Warning);
/// assert_eq!(level.as_str(), "warning");
/// assert!(LogLevel::Error > level && LogLevel::Info < level);
/// // The schema's names only, as they are spelled.
/// assert!("Warning".parse::<LogLevel>().is_err() && "warn".parse::<LogLevel>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// `debug`: detailed debugging information.
    Debug,
    /// `info`: general informational messages.
    Info,
    /// `notice`: normal but significant events.
    Notice,
    /// `warning`: warning conditions.
    Warning,
    /// `error`: error conditions.
    Error,
    /// `critical`: critical conditions.
    Critical,
    /// `alert`: action must be taken immediately.
    Alert,
    /// `emergency`: the system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, the least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level a JSON string names, its escapes decoded (`"w\u0061rning"` is `warning`);
    /// `None` for any other string.
    pub fn from_json(name: JsonStr<'_>) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|level| name.eq_str(level.as_str()))
    }
}

impl core::fmt::Display for LogLevel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is none of MCP's log levels ([`LogLevel`]'s `from_str`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownLogLevel;

impl core::fmt::Display for UnknownLogLevel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("not an MCP log level")
    }
}

impl core::error::Error for UnknownLogLevel {}

impl core::str::FromStr for LogLevel {
    type Err = UnknownLogLevel;

    /// The level named `s`, exactly as the schema spells it (lowercase).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.as_str() == s)
            .ok_or(UnknownLogLevel)
    }
}

/// The least severe level a request of MCP 2026-07-28 asks `notifications/message` for: its
/// `_meta`'s `io.modelcontextprotocol/logLevel` ("Minimum log level the server should emit
/// for this request"), a [`LogLevel`]. `None` when the request names none: the field is
/// absent, not a string, none of the levels, or ambiguous (given twice, or in a `_meta` given
/// twice or too malformed to read whole). Then the server sends no log message for it: see
/// [`may_log`].
///
/// 2026-07-28 has no `logging/setLevel`: the level is per request, and only the request
/// that names it has it. (Under an earlier version a session's level comes from
/// `logging/setLevel`, and no request names one.) 2026-07-28 also deprecates the Logging
/// feature (SEP-2577): it stays in the specification for at least twelve months, but "New
/// implementations **SHOULD NOT** adopt it" (the migration it suggests: stderr on stdio, or
/// OpenTelemetry).
///
/// ```
/// use rpcwire::mcp::{requested_log_level, LogLevel};
/// use rpcwire::{Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/logLevel":"info"}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert_eq!(requested_log_level(&req), Some(LogLevel::Info));
/// ```
pub fn requested_log_level(r: &Request<'_>) -> Option<LogLevel> {
    let level = r.params?.get("_meta")?.get(meta_keys::LOG_LEVEL)?;
    LogLevel::from_json(level.as_str()?)
}

/// Whether a server may send a `notifications/message` of `level` for the request `r` of MCP
/// 2026-07-28: only if `r` names a log level ([`requested_log_level`]), and `level` is that
/// one or a more severe one. "To receive log messages for a specific request, include
/// `io.modelcontextprotocol/logLevel` in the request's `_meta`. The server **MUST NOT** emit
/// `notifications/message` for a request that does not include this field." (A server
/// emitting any also declares the `logging` capability.)
///
/// ```
/// use rpcwire::mcp::{may_log, LogLevel};
/// use rpcwire::{Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/logLevel":"warning"}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert!(may_log(&req, LogLevel::Error) && may_log(&req, LogLevel::Warning));
/// assert!(!may_log(&req, LogLevel::Info));
///
/// // A request that names no level gets no log message, not even an emergency.
/// let frame = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert!(!may_log(&req, LogLevel::Emergency));
/// ```
pub fn may_log(r: &Request<'_>, level: LogLevel) -> bool {
    requested_log_level(r).is_some_and(|min| level >= min)
}

/// The level of a log message a server sends, for a client or a gateway that filters them:
/// a `notifications/message`'s `params.level` (the schema's `LoggingMessageNotification`,
/// whose params require `level`, "The severity of this log message", and `data`), a
/// [`LogLevel`]. Read lazily, with no allocation. `None` when `n` is another notification,
/// has no params, or its `level` is absent, not a string, none of the levels, or ambiguous
/// (given twice, or in params too malformed to read whole): a message a filter cannot place.
/// (`data` and `logger` are the application's, not read here.)
///
/// Any version: from 2026-07-28 on a server sends one only for a request that named a level
/// ([`may_log`]), and the Logging feature is deprecated there (see [`requested_log_level`]).
///
/// ```
/// use rpcwire::mcp::{log_message_level, LogLevel};
/// use rpcwire::{Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","logger":"db","data":{"error":"Connection failed"}}}"#;
/// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// let level = log_message_level(&n);
/// assert_eq!(level, Some(LogLevel::Error));
/// // A client showing warnings and worse keeps it.
/// assert!(level.is_some_and(|l| l >= LogLevel::Warning));
/// ```
pub fn log_message_level(n: &Notification<'_>) -> Option<LogLevel> {
    if !n.method.eq_str(methods::MESSAGE) {
        return None;
    }
    LogLevel::from_json(n.params?.get("level")?.as_str()?)
}
