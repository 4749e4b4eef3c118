//! The params of MCP's progress and cancellation notifications, held against the schema of
//! each protocol version the crate knows (2024-11-05 to 2026-07-28):
//!
//! - `ProgressNotificationParams`: `progressToken: ProgressToken` ("a string or integer
//!   value"), `progress: number`, `total?: number`, and from 2025-03-26 on `message?: string`
//!   (2024-11-05 has no such member: there any value is an unknown member's);
//! - `CancelledNotificationParams`: `requestId: RequestId` (a string or an integer), which
//!   2025-11-25 alone leaves optional (it "MUST be provided for cancelling non-task requests";
//!   tasks are cancelled by `tasks/cancel`), and `reason?: string`.
//!
//! An optional member given as `null` is of the wrong type (the schema's is `number` or
//! `string`, not nullable); a member given twice is at fault too, since peers may read either
//! value.
//!
//! The `initialize` handshake (MCP up to 2025-11-25) is held to its schema the same way, as
//! `mcp::Initialize` and `mcp::InitializeResult` read it: `InitializeRequestParams`
//! (`protocolVersion: string`, `capabilities` and `clientInfo` objects) and `InitializeResult`
//! (`protocolVersion: string`, `capabilities` and `serverInfo` objects, `instructions?: string`).

use rpcwire::mcp::{self, HandshakeError, HandshakeMember, Initialize, InitializeResult, versions};
use rpcwire::{Id, IdKind, JsonKind, Lookup, Notification, RawJson, Request};

/// What is wrong with the params of a `notifications/progress` or `notifications/cancelled`:
/// the first fault found, one that breaks every version before one that breaks only some
/// ([`ParamsFault::Message`], [`ParamsFault::NoRequestId`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamsFault {
    /// No `params` (both notifications require them; MCP's decoder refuses params that are
    /// not an object); for `initialize` also params that cannot be read member by member
    /// (lazy validation lets through `{"a" 1}`).
    Params,
    /// `progressToken` missing, given twice, or not a string or an integer.
    ProgressToken,
    /// `progress` missing, given twice, or not a number.
    Progress,
    /// `total` given twice or not a number.
    Total,
    /// `message` given twice or not a string: a fault from 2025-03-26 on, which defines it.
    Message,
    /// `requestId` given twice or not a string or an integer.
    RequestId,
    /// No `requestId`: a fault under every version but 2025-11-25.
    NoRequestId,
    /// `reason` given twice or not a string.
    Reason,
    /// `initialize`: `protocolVersion` missing, given twice, or not a string.
    ProtocolVersion,
    /// `initialize`: `capabilities` missing, given twice, or not an object.
    Capabilities,
    /// `initialize`: `clientInfo` missing, given twice, or not an object.
    ClientInfo,
    /// The result of `initialize`: `serverInfo` missing, given twice, or not an object.
    ServerInfo,
    /// The result of `initialize`: `instructions` given twice or not a string.
    Instructions,
    /// The result of `initialize` cannot be read member by member (lazy validation lets
    /// through `{"a" 1}`), or is not an object.
    Result,
}

impl ParamsFault {
    /// Every fault, for reading one back by name.
    const ALL: [ParamsFault; 14] = [
        ParamsFault::Params,
        ParamsFault::ProgressToken,
        ParamsFault::Progress,
        ParamsFault::Total,
        ParamsFault::Message,
        ParamsFault::RequestId,
        ParamsFault::NoRequestId,
        ParamsFault::Reason,
        ParamsFault::ProtocolVersion,
        ParamsFault::Capabilities,
        ParamsFault::ClientInfo,
        ParamsFault::ServerInfo,
        ParamsFault::Instructions,
        ParamsFault::Result,
    ];

    /// The fault's name in a proxy log's `params_fault` and a `check` record.
    pub fn as_str(self) -> &'static str {
        match self {
            ParamsFault::Params => "params",
            ParamsFault::ProgressToken => "progress_token",
            ParamsFault::Progress => "progress",
            ParamsFault::Total => "total",
            ParamsFault::Message => "message",
            ParamsFault::RequestId => "request_id",
            ParamsFault::NoRequestId => "no_request_id",
            ParamsFault::Reason => "reason",
            ParamsFault::ProtocolVersion => "protocol_version",
            ParamsFault::Capabilities => "capabilities",
            ParamsFault::ClientInfo => "client_info",
            ParamsFault::ServerInfo => "server_info",
            ParamsFault::Instructions => "instructions",
            ParamsFault::Result => "result",
        }
    }

    /// The fault named `name` ([`Self::as_str`]), if any.
    pub fn from_name(name: &str) -> Option<ParamsFault> {
        Self::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// What is wrong, in words, for a report read by people.
    pub fn why(self) -> &'static str {
        match self {
            ParamsFault::Params => {
                "params missing, not an object, or not readable member by member"
            }
            ParamsFault::ProgressToken => {
                "progressToken missing, given twice, or not a string or an integer"
            }
            ParamsFault::Progress => "progress missing, given twice, or not a number",
            ParamsFault::Total => "total given twice or not a number",
            ParamsFault::Message => "message given twice or not a string",
            ParamsFault::RequestId => "requestId given twice or not a string or an integer",
            ParamsFault::NoRequestId => "requestId missing",
            ParamsFault::Reason => "reason given twice or not a string",
            ParamsFault::ProtocolVersion => "protocolVersion missing, given twice, or not a string",
            ParamsFault::Capabilities => "capabilities missing, given twice, or not an object",
            ParamsFault::ClientInfo => "clientInfo missing, given twice, or not an object",
            ParamsFault::ServerInfo => "serverInfo missing, given twice, or not an object",
            ParamsFault::Instructions => "instructions given twice or not a string",
            ParamsFault::Result => "result not an object that can be read member by member",
        }
    }

    /// Whether the fault breaks the schema of the session's protocol `version`. The two that
    /// depend on it are judged only under a version the crate knows: with none known, or one
    /// it does not, the notification may follow a schema that allows it.
    pub fn breaks(self, version: Option<&str>) -> bool {
        let known = |v: &&str| versions::is_known(v);
        match self {
            ParamsFault::Message => version
                .filter(known)
                .is_some_and(|v| v != versions::V2024_11_05),
            ParamsFault::NoRequestId => version
                .filter(known)
                .is_some_and(|v| v != versions::V2025_11_25),
            _ => true,
        }
    }

    /// The fault of `n`'s params, when `n` is a `notifications/progress` or a
    /// `notifications/cancelled` whose params break the schema of some version; `None` for
    /// another method, or params every version accepts.
    pub fn of_notification(n: &Notification<'_>) -> Option<ParamsFault> {
        let progress = n.method.eq_str(mcp::methods::PROGRESS);
        if !progress && !n.method.eq_str(mcp::methods::CANCELLED) {
            return None;
        }
        let params = match n.params {
            Some(params) if params.kind() == JsonKind::Object => params,
            _ => return Some(ParamsFault::Params),
        };
        if progress {
            progress_fault(params)
        } else {
            cancelled_fault(params)
        }
    }

    /// The fault of `r`'s params, when `r` is an `initialize` whose params break
    /// `InitializeRequestParams`; `None` for another method, or params that do not.
    pub fn of_initialize(r: &Request<'_>) -> Option<ParamsFault> {
        match Initialize::from_request(r) {
            Err(HandshakeError::NotInitialize) | Ok(_) => None,
            Err(error) => Some(Self::of_handshake(error, ParamsFault::Params)),
        }
    }

    /// The fault of `result`, the result of `initialize`, when it breaks `InitializeResult`.
    pub fn of_initialize_result(result: RawJson<'_>) -> Option<ParamsFault> {
        InitializeResult::from_result(result)
            .err()
            .map(|error| Self::of_handshake(error, ParamsFault::Result))
    }

    /// The fault `error` tells of; `whole`: the fault of an object that cannot be read.
    fn of_handshake(error: HandshakeError, whole: ParamsFault) -> ParamsFault {
        match error.member() {
            Some(HandshakeMember::ProtocolVersion) => ParamsFault::ProtocolVersion,
            Some(HandshakeMember::Capabilities) => ParamsFault::Capabilities,
            Some(HandshakeMember::ClientInfo) => ParamsFault::ClientInfo,
            Some(HandshakeMember::ServerInfo) => ParamsFault::ServerInfo,
            Some(HandshakeMember::Instructions) => ParamsFault::Instructions,
            // (No other member; `NotAnObject` and `Malformed` are about the whole.)
            _ => whole,
        }
    }
}

/// Whether `value` is a string or an integer: a `ProgressToken` or `RequestId` MCP allows.
fn is_string_or_integer(value: RawJson<'_>) -> bool {
    Id::from_token(value.as_bytes())
        .is_some_and(|id| matches!(id.kind(), IdKind::String { .. } | IdKind::Integer))
}

/// Whether `value` is a JSON number, however large (the schema's `number` has no bound: `1e400`
/// is one, though no `f64` holds it). Its spelling is checked, as a lazily validated member's
/// is only delimited.
fn is_number(value: RawJson<'_>) -> bool {
    RawJson::new_strict(value.as_bytes()).is_some_and(|v| v.kind() == JsonKind::Number)
}

/// Whether `value` is a string.
fn is_string(value: RawJson<'_>) -> bool {
    value.as_str().is_some()
}

/// Whether a required member is there once, with a value `of_type` accepts.
fn required(member: Lookup<'_>, of_type: fn(RawJson<'_>) -> bool) -> bool {
    matches!(member, Lookup::Found(value) if of_type(value))
}

/// Whether an optional member is absent, or there once with a value `of_type` accepts.
fn optional(member: Lookup<'_>, of_type: fn(RawJson<'_>) -> bool) -> bool {
    match member {
        Lookup::Absent => true,
        Lookup::Found(value) => of_type(value),
        Lookup::Ambiguous | Lookup::Malformed => false,
    }
}

/// The fault of a `notifications/progress`'s params (an object), if any.
fn progress_fault(params: RawJson<'_>) -> Option<ParamsFault> {
    let [token, progress, total, message] = params.lookup_each([
        mcp::meta_keys::PROGRESS_TOKEN,
        "progress",
        "total",
        "message",
    ]);
    if !required(token, is_string_or_integer) {
        Some(ParamsFault::ProgressToken)
    } else if !required(progress, is_number) {
        Some(ParamsFault::Progress)
    } else if !optional(total, is_number) {
        Some(ParamsFault::Total)
    } else if !optional(message, is_string) {
        Some(ParamsFault::Message)
    } else {
        None
    }
}

/// The fault of a `notifications/cancelled`'s params (an object), if any.
fn cancelled_fault(params: RawJson<'_>) -> Option<ParamsFault> {
    let [request_id, reason] = params.lookup_each(["requestId", "reason"]);
    if !optional(request_id, is_string_or_integer) {
        Some(ParamsFault::RequestId)
    } else if !optional(reason, is_string) {
        Some(ParamsFault::Reason)
    } else if matches!(request_id, Lookup::Absent) {
        Some(ParamsFault::NoRequestId)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use rpcwire::{Decoder, Message};

    use super::*;

    /// The fault of the notification `method` with `params` (a JSON text, or none).
    fn fault(method: &str, params: Option<&str>) -> Option<ParamsFault> {
        let params = params.map_or(String::new(), |p| format!(",\"params\":{p}"));
        let frame = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\"{params}}}");
        match Decoder::mcp().decode(frame.as_bytes()) {
            Ok(Message::Notification(n)) => ParamsFault::of_notification(&n),
            other => panic!("not a notification: {other:?}"),
        }
    }

    /// `initialize` params that lazy validation let through but that cannot be read member
    /// by member are `params` at fault, and the words say so (they are an object).
    #[test]
    fn initialize_params_that_cannot_be_read_are_said_so() {
        let frame = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{} "x":1}}"#;
        let Ok(Message::Request(r)) = Decoder::mcp().decode(frame) else {
            panic!("lazy validation lets it through")
        };
        let fault = ParamsFault::of_initialize(&r);
        assert_eq!(fault, Some(ParamsFault::Params));
        assert!(fault.unwrap().why().contains("member by member"));
    }

    fn progress(params: &str) -> Option<ParamsFault> {
        fault(mcp::methods::PROGRESS, Some(params))
    }

    fn cancelled(params: &str) -> Option<ParamsFault> {
        fault(mcp::methods::CANCELLED, Some(params))
    }

    /// Every shape `ProgressNotificationParams` allows is clean: a string or integer token,
    /// any number as `progress` and `total` (a float, a negative, one beyond `f64`), a string
    /// `message`, and members the schema does not name (`_meta`).
    #[test]
    fn valid_progress_params_have_no_fault() {
        for params in [
            r#"{"progressToken":"p","progress":1}"#,
            r#"{"progressToken":7,"progress":0.5,"total":1.0,"message":"half"}"#,
            r#"{"progressToken":-3,"progress":-1e400,"total":1e400}"#,
            r#"{"progressToken":"p","progress":2,"_meta":{"k":1},"extra":null}"#,
        ] {
            assert_eq!(progress(params), None, "{params}");
        }
    }

    /// Each member `ProgressNotificationParams` requires or types, broken: missing, of
    /// another type (`null` included, which the schema's types do not allow), or given twice.
    #[test]
    fn each_malformed_progress_member_is_named() {
        use ParamsFault::*;
        for (params, expected) in [
            (r#"{"progress":1}"#, ProgressToken),
            (r#"{"progressToken":null,"progress":1}"#, ProgressToken),
            (r#"{"progressToken":1.5,"progress":1}"#, ProgressToken),
            (r#"{"progressToken":true,"progress":1}"#, ProgressToken),
            (
                r#"{"progressToken":"a","progressToken":"b","progress":1}"#,
                ProgressToken,
            ),
            (r#"{"progressToken":"p"}"#, Progress),
            (r#"{"progressToken":"p","progress":"1"}"#, Progress),
            (r#"{"progressToken":"p","progress":null}"#, Progress),
            (r#"{"progressToken":"p","progress":1,"total":"10"}"#, Total),
            (r#"{"progressToken":"p","progress":1,"total":null}"#, Total),
            (r#"{"progressToken":"p","progress":1,"message":5}"#, Message),
            (
                r#"{"progressToken":"p","progress":1,"message":null}"#,
                Message,
            ),
            (
                r#"{"progressToken":"p","progress":1,"message":"a","message":"b"}"#,
                Message,
            ),
            // The first fault found is named, one that breaks every version first.
            (
                r#"{"progressToken":"p","progress":"x","message":5}"#,
                Progress,
            ),
        ] {
            assert_eq!(progress(params), Some(expected), "{params}");
        }
        assert_eq!(fault(mcp::methods::PROGRESS, None), Some(Params));
    }

    /// `CancelledNotificationParams`: a string or integer `requestId`, a string `reason`,
    /// both checked; a missing `requestId` is told apart, as only some versions require it.
    #[test]
    fn cancelled_params_are_checked() {
        use ParamsFault::*;
        for params in [r#"{"requestId":"a"}"#, r#"{"requestId":3,"reason":"user"}"#] {
            assert_eq!(cancelled(params), None, "{params}");
        }
        for (params, expected) in [
            (r#"{"requestId":1.5}"#, RequestId),
            (r#"{"requestId":null}"#, RequestId),
            (r#"{"requestId":{"id":1}}"#, RequestId),
            (r#"{"requestId":1,"requestId":2}"#, RequestId),
            (r#"{"requestId":1,"reason":42}"#, Reason),
            (r#"{"requestId":1,"reason":null}"#, Reason),
            (r#"{"reason":"user"}"#, NoRequestId),
            (r#"{}"#, NoRequestId),
            (r#"{"reason":42}"#, Reason),
        ] {
            assert_eq!(cancelled(params), Some(expected), "{params}");
        }
        assert_eq!(fault(mcp::methods::CANCELLED, None), Some(Params));
    }

    /// Params that lazy validation let through but whose members cannot all be read (a
    /// malformed member after the well-formed ones) are a fault, never clean: past the
    /// malformed spot a member may be given again, so every member counts as given twice and
    /// the first one checked is named.
    #[test]
    fn params_that_cannot_be_read_whole_are_a_fault() {
        use ParamsFault::*;
        for params in [
            r#"{"progressToken":"p","progress":1,"total":01}"#,
            r#"{"progressToken":"p","progress":1 "total":2}"#,
            r#"{"progressToken":"p","progress":1,}"#,
        ] {
            assert_eq!(progress(params), Some(ProgressToken), "{params}");
        }
        for params in [
            r#"{"requestId":1,"reason":"r","x":01}"#,
            r#"{"requestId":1,,"reason":"r"}"#,
        ] {
            assert_eq!(cancelled(params), Some(RequestId), "{params}");
        }
    }

    /// Other notifications are not this check's business, whatever their params.
    #[test]
    fn other_methods_have_no_fault() {
        assert_eq!(fault("notifications/message", Some(r#"{"level":5}"#)), None);
        assert_eq!(fault("notifications/initialized", None), None);
    }

    /// `message` is a string from 2025-03-26 on; 2024-11-05 does not name it. `requestId` is
    /// required but under 2025-11-25. Both are judged only under a version the crate knows;
    /// the other faults break every version.
    #[test]
    fn the_version_decides_the_faults_that_depend_on_it() {
        use ParamsFault::*;
        let breaks = |fault: ParamsFault| {
            [
                None,
                Some("2024-11-05"),
                Some("2025-03-26"),
                Some("2025-06-18"),
                Some("2025-11-25"),
                Some("2026-07-28"),
                Some("2099-01-01"),
            ]
            .map(|v| fault.breaks(v))
        };
        assert_eq!(
            breaks(Message),
            [false, false, true, true, true, true, false]
        );
        assert_eq!(
            breaks(NoRequestId),
            [false, true, true, true, false, true, false]
        );
        for always in [Params, ProgressToken, Progress, Total, RequestId, Reason] {
            assert_eq!(breaks(always), [true; 7], "{always:?}");
        }
    }

    /// Each fault reads back from its name (a proxy log's), and no other name reads.
    #[test]
    fn faults_read_back_by_name() {
        for fault in ParamsFault::ALL {
            assert_eq!(ParamsFault::from_name(fault.as_str()), Some(fault));
        }
        assert_eq!(ParamsFault::from_name("Total"), None);
    }
}
