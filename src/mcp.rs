//! MCP on top of the envelope: method names, the cancellation and progress notifications
//! (read, and written with [`write_cancelled`], [`write_cancelled_token`] and
//! [`write_progress`]), tasks ([`Task`], [`related_task`], [`is_task_augmented`]),
//! per-request `_meta` fields ([`RequestMeta`], and a server's check of them,
//! [`RequestMeta::check`]), the stream a `subscriptions/listen`
//! notification belongs to ([`subscription_id`]), `resultType` (read with [`ResultType`],
//! written on a 2026-07-28 result with [`write_result`]), the protocol versions and the
//! one a server answers `initialize` with ([`versions`]), the log level a 2026-07-28 request
//! names ([`requested_log_level`], [`may_log`]), the handshake's params and result
//! ([`Initialize`], [`InitializeResult`]), 2026-07-28's multi round-trip requests
//! ([`InputRequired`], [`write_retry`]; a server's side: [`write_input_required`],
//! [`Retry`]), a server's `server/discover` result ([`write_discover_result`]), and the
//! `_meta` key-name rules.
//!
//! Every extractor reads only the members it needs, with the lazy field access of
//! [`RawJson`]; none parses the whole payload.

use bytes::BytesMut;

use crate::encode;
use crate::id::{Id, IdKind};
use crate::json::{JsonKind, JsonStr, Lookup, RawJson};
use crate::message::{Message, Notification, Request};
use crate::pending::Token;

mod discover;
mod initialize;
mod input_required;
mod logging;
mod meta_request;
mod progress_request;
mod request_check;
pub use discover::{
    CacheHint, CacheScope, DiscoverMember, DiscoverReadError, DiscoverResult, DiscoverWriteError,
    write_discover_result,
};
pub use initialize::{
    HandshakeError, HandshakeMember, Initialize, InitializeResult, write_initialize,
    write_initialize_result,
};
pub use input_required::{
    InputRequest, InputRequests, InputRequired, InputRequiredError, InputRequiredWriteError, Retry,
    RetryError, RetryReadError, write_input_required, write_retry,
};
pub use logging::{LogLevel, UnknownLogLevel, log_message_level, may_log, requested_log_level};
pub use meta_request::{MetaRequestError, MetaValue, write_request_with_meta};
pub use progress_request::{
    ProgressRequestError, write_request_with_progress, write_request_with_progress_token,
};
pub use request_check::RequestMetaError;

/// Method names defined by MCP.
///
/// The constants are patterns: a server dispatches on a request's method by matching its
/// decoded string, which borrows the frame (no allocation) unless the name holds escapes.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::methods;
/// use rpcwire::{encode, Decoder, Message, RawJson};
///
/// let frame = br#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let mut out = BytesMut::new();
/// match &*req.method.decode() {
///     // (Up to 2025-11-25: 2026-07-28 has no `ping`, `methods::is_removed`.)
///     methods::PING => encode::write_response(&mut out, req.id, RawJson::EMPTY_OBJECT),
///     methods::TOOLS_LIST => {
///         encode::write_response(&mut out, req.id, RawJson::new(br#"{"tools":[]}"#).unwrap())
///     }
///     _ => encode::write_method_not_found(&mut out, req.id, req.method),
/// }
/// assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"tools\":[]}}\n");
/// ```
pub mod methods {
    /// `initialize` (up to 2025-11-25; a 2026-07-28 session has none:
    /// [`SERVER_DISCOVER`] says what a server speaks, and each request names its version)
    pub const INITIALIZE: &str = "initialize";
    /// `ping` (up to 2025-11-25: 2026-07-28 removed it)
    pub const PING: &str = "ping";
    /// `tools/list`
    pub const TOOLS_LIST: &str = "tools/list";
    /// `tools/call`
    pub const TOOLS_CALL: &str = "tools/call";
    /// `resources/list`
    pub const RESOURCES_LIST: &str = "resources/list";
    /// `resources/templates/list`
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
    /// `resources/read`
    pub const RESOURCES_READ: &str = "resources/read";
    /// `resources/subscribe` (up to 2025-11-25: 2026-07-28 asks for updates with
    /// [`SUBSCRIPTIONS_LISTEN`]'s `resourceSubscriptions` instead)
    pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
    /// `resources/unsubscribe` (up to 2025-11-25)
    pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
    /// `prompts/list`
    pub const PROMPTS_LIST: &str = "prompts/list";
    /// `prompts/get`
    pub const PROMPTS_GET: &str = "prompts/get";
    /// `completion/complete`
    pub const COMPLETION_COMPLETE: &str = "completion/complete";
    /// `logging/setLevel` (up to 2025-11-25: 2026-07-28 names the level in each request's
    /// `_meta`, [`LOG_LEVEL`](super::meta_keys::LOG_LEVEL))
    pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
    /// `sampling/createMessage` (a server-to-client request; from 2026-07-28 an input request
    /// in the `inputRequests` of an `input_required` result, no message of its own)
    pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
    /// `elicitation/create` (a server-to-client request; from 2026-07-28 an input request, as
    /// [`SAMPLING_CREATE_MESSAGE`])
    pub const ELICITATION_CREATE: &str = "elicitation/create";
    /// `roots/list` (a server-to-client request; from 2026-07-28 an input request, as
    /// [`SAMPLING_CREATE_MESSAGE`])
    pub const ROOTS_LIST: &str = "roots/list";
    /// `notifications/initialized` (up to 2025-11-25, as [`INITIALIZE`])
    pub const INITIALIZED: &str = "notifications/initialized";
    /// `notifications/cancelled`
    pub const CANCELLED: &str = "notifications/cancelled";
    /// `notifications/progress`
    pub const PROGRESS: &str = "notifications/progress";
    /// `notifications/message` (a log message)
    pub const MESSAGE: &str = "notifications/message";
    /// `notifications/resources/updated`
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// `notifications/resources/list_changed`
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// `notifications/tools/list_changed`
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    /// `notifications/prompts/list_changed`
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    /// `notifications/roots/list_changed` (up to 2025-11-25: 2026-07-28 removed it)
    pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
    /// `notifications/elicitation/complete` (2025-11-25 only: a URL-mode elicitation
    /// finished; 2026-07-28 removed it)
    pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
    /// `tasks/get` (2025-11-25, experimental: a task's status; either side may run tasks;
    /// from 2026-07-28 a method of the official Tasks extension, `io.modelcontextprotocol/tasks`)
    pub const TASKS_GET: &str = "tasks/get";
    /// `tasks/result` (2025-11-25, experimental: a finished task's result; the Tasks
    /// extension of 2026-07-28 has none, its `tasks/get` carries the result)
    pub const TASKS_RESULT: &str = "tasks/result";
    /// `tasks/list` (2025-11-25, experimental; not in the Tasks extension of 2026-07-28)
    pub const TASKS_LIST: &str = "tasks/list";
    /// `tasks/cancel` (2025-11-25, experimental; from 2026-07-28 a method of the official
    /// Tasks extension)
    pub const TASKS_CANCEL: &str = "tasks/cancel";
    /// `tasks/update` (2026-07-28, the official Tasks extension: the client's
    /// `inputResponses` to a task waiting for input)
    pub const TASKS_UPDATE: &str = "tasks/update";
    /// `notifications/tasks/status` (2025-11-25, experimental; the Tasks extension of
    /// 2026-07-28 sends [`TASKS_NOTIFICATION`] instead)
    pub const TASKS_STATUS: &str = "notifications/tasks/status";
    /// `server/discover` (2026-07-28: what a server speaks, in place of `initialize`;
    /// answered with [`write_discover_result`](crate::mcp::write_discover_result))
    pub const SERVER_DISCOVER: &str = "server/discover";
    /// `subscriptions/listen` (2026-07-28: a stream of change notifications, each with the
    /// request's id in `_meta` ([`SUBSCRIPTION_ID`](super::meta_keys::SUBSCRIPTION_ID)); the
    /// server's result to it closes the stream, so it waits as long as the stream is open)
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// `notifications/subscriptions/acknowledged` (2026-07-28: a `subscriptions/listen` stream
    /// is open, with what the server will send on it)
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    /// `notifications/tasks` (2026-07-28, the official Tasks extension
    /// `io.modelcontextprotocol/tasks`: a task's status, on a `subscriptions/listen` stream
    /// that asked for its `taskIds`; in place of 2025-11-25's [`TASKS_STATUS`])
    pub const TASKS_NOTIFICATION: &str = "notifications/tasks";

    /// The notifications a `subscriptions/listen` stream carries (2026-07-28): its
    /// acknowledgement and the changes it was asked for, each stamped with the listen
    /// request's id ([`subscription_id`](crate::mcp::subscription_id)): those of the core
    /// protocol, and the task statuses of its official Tasks extension
    /// ([`TASKS_NOTIFICATION`]).
    pub const LISTEN_STREAM: [&str; 6] = [
        SUBSCRIPTIONS_ACKNOWLEDGED,
        TOOLS_LIST_CHANGED,
        PROMPTS_LIST_CHANGED,
        RESOURCES_LIST_CHANGED,
        RESOURCES_UPDATED,
        TASKS_NOTIFICATION,
    ];

    /// The requests a server of 2026-07-28 may answer with an `input_required` result
    /// ([`write_input_required`](crate::mcp::write_input_required)), and no other: "Servers
    /// **MAY** send `InputRequiredResult` responses on the following client requests:
    /// `prompts/get`, `resources/read`, `tools/call` ... Servers **MUST NOT** send
    /// `InputRequiredResult` responses on any other client requests." [`may_require_input`]
    /// tells a request's method.
    pub const MAY_REQUIRE_INPUT: [&str; 3] = [PROMPTS_GET, RESOURCES_READ, TOOLS_CALL];

    /// Whether a server may answer a request of `method` with an `input_required` result:
    /// one of [`MAY_REQUIRE_INPUT`], escapes decoded.
    ///
    /// ```
    /// use rpcwire::mcp::methods;
    /// use rpcwire::{Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"t"}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// assert!(methods::may_require_input(req.method));
    /// let frame = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// assert!(!methods::may_require_input(req.method));
    /// ```
    pub fn may_require_input(method: crate::JsonStr<'_>) -> bool {
        MAY_REQUIRE_INPUT.iter().any(|m| method.eq_str(m))
    }

    /// The methods of the requests an `input_required` result may ask the client, and no
    /// other (2026-07-28): "`inputRequests` values are request objects that **MUST** be one of
    /// `ElicitRequest`, `CreateMessageRequest`, or `ListRootsRequest`". [`is_input_request`]
    /// tells a method, [`input_request_capability`] the client capability it needs.
    pub const INPUT_REQUESTS: [&str; 3] = [ELICITATION_CREATE, SAMPLING_CREATE_MESSAGE, ROOTS_LIST];

    /// Whether `method` is one an `input_required` result may ask: one of
    /// [`INPUT_REQUESTS`], exactly.
    pub fn is_input_request(method: &str) -> bool {
        INPUT_REQUESTS.contains(&method)
    }

    /// The client capability (a key of `ClientCapabilities`) an input request of `method`
    /// needs: `elicitation`, `sampling` or `roots`; `None` for a method that is no input
    /// request. "Servers **MUST NOT** send an `inputRequests` that the client has not declared
    /// support for in its capabilities. For example, if a client does not declare support for
    /// `elicitation`, the server **MUST NOT** include any `elicitation/create` requests"; in
    /// 2026-07-28 the request itself declares them, in
    /// [`RequestMeta::client_capabilities`](crate::mcp::RequestMeta::client_capabilities).
    /// (A capability's own members, such as elicitation's modes, are the server's to read.)
    ///
    /// ```
    /// use rpcwire::mcp::{methods, RequestMeta};
    /// use rpcwire::{Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// let caps = RequestMeta::from_request(&req).client_capabilities.unwrap();
    /// let declared = |method| {
    ///     methods::input_request_capability(method).is_some_and(|c| caps.get(c).is_some())
    /// };
    /// assert!(declared(methods::ROOTS_LIST));
    /// assert!(!declared(methods::ELICITATION_CREATE) && !declared(methods::TOOLS_LIST));
    /// ```
    pub fn input_request_capability(method: &str) -> Option<&'static str> {
        match method {
            ELICITATION_CREATE => Some("elicitation"),
            SAMPLING_CREATE_MESSAGE => Some("sampling"),
            ROOTS_LIST => Some("roots"),
            _ => None,
        }
    }

    /// The methods of 2025-11-25 that 2026-07-28 removed: the handshake (`initialize`,
    /// `notifications/initialized`), `ping`, `logging/setLevel` (the level is named in each
    /// request's `_meta`), `resources/subscribe` and `resources/unsubscribe` (a
    /// `subscriptions/listen` stream asks for updates), `notifications/roots/list_changed`,
    /// `notifications/elicitation/complete`, and the experimental tasks' `tasks/result`,
    /// `tasks/list` and `notifications/tasks/status`, which the official Tasks extension has
    /// not (its `tasks/get`, `tasks/update` and `tasks/cancel` are its own). (`sampling/createMessage`,
    /// `elicitation/create` and `roots/list` stay, as input requests in an `input_required`
    /// result.)
    ///
    /// A server serving 2026-07-28 answers a request of one as one of a method it does not
    /// implement, with -32601 Method not found (on HTTP, with `404 Not Found`: "If the server
    /// does not implement the requested RPC method, it **MUST** respond with 404 Not Found and
    /// a JSON-RPC error with code -32601"), as [`is_removed`] tells.
    /// One exception: a server serving only 2026-07-28 or later answers an `initialize`
    /// (which a legacy client sends without `_meta`) with an error that names the versions it
    /// supports ("A server that supports only modern versions **SHOULD** name the protocol
    /// versions it supports in any error it returns to an `initialize` request"; the code is
    /// its own): [`versions::write_unsupported`](crate::mcp::versions::write_unsupported).
    pub const REMOVED_IN_2026_07_28: [&str; 11] = [
        INITIALIZE,
        INITIALIZED,
        PING,
        LOGGING_SET_LEVEL,
        RESOURCES_SUBSCRIBE,
        RESOURCES_UNSUBSCRIBE,
        ROOTS_LIST_CHANGED,
        ELICITATION_COMPLETE,
        TASKS_RESULT,
        TASKS_LIST,
        TASKS_STATUS,
    ];

    /// Whether `method` is one MCP protocol `version` no longer has: one of
    /// [`REMOVED_IN_2026_07_28`] under 2026-07-28 or later (as
    /// [`versions::is_at_least`](crate::mcp::versions::is_at_least) orders versions), never
    /// under an earlier version. A server answers a request of such a method with -32601,
    /// whatever methods it serves under earlier versions. A notification of one (a legacy
    /// client's `notifications/initialized`, say) gets no reply, as no notification does
    /// ("The receiver **MUST NOT** send a response"): the server drops it.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::mcp::{methods, versions};
    /// use rpcwire::{encode, Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// assert!(methods::is_removed(req.method, versions::V2026_07_28));
    /// assert!(!methods::is_removed(req.method, versions::V2025_11_25));
    /// let mut out = BytesMut::new();
    /// encode::write_method_not_found(&mut out, req.id, req.method);
    /// assert!(out.starts_with(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"#));
    /// ```
    pub fn is_removed(method: crate::JsonStr<'_>, version: &str) -> bool {
        crate::mcp::versions::is_at_least(version, crate::mcp::versions::V2026_07_28)
            && REMOVED_IN_2026_07_28.iter().any(|m| method.eq_str(m))
    }
}

/// `_meta` keys: MCP 2026-07-28's per-request and per-response metadata, and the keys naming
/// what a message belongs to (a listen stream, a task).
pub mod meta_keys {
    /// The protocol version the request is made under.
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's capabilities.
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's name and version.
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The progress token a request asks progress notifications for.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// On a notification of a `subscriptions/listen` stream: the id of the request that opened
    /// it.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// On a message of a task (MCP 2025-11-25, experimental; a `tasks/result` result, say):
    /// `{"taskId": …}`, the task it belongs to. (The Tasks extension of 2026-07-28 has no such
    /// key: its `tasks/get` result and `notifications/tasks` are the task, its `taskId` with
    /// them.)
    pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
    /// The least severe log level the request wants `notifications/message` for (2026-07-28:
    /// no `logging/setLevel`): read with [`requested_log_level`](crate::mcp::requested_log_level),
    /// and without it no log message is sent ([`may_log`](crate::mcp::may_log)).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// On a result of 2026-07-28: the server's name and version (an `Implementation`, as
    /// `serverInfo` was in `initialize`'s result). "Servers **SHOULD** include the following
    /// `io.modelcontextprotocol/*` field in every result's `_meta`, unless specifically
    /// configured not to do so".
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::mcp::{self, meta_keys, versions};
    /// use rpcwire::{Id, RawJson};
    /// let result = format!(
    ///     r#"{{"tools":[],"_meta":{{"{}":{{"name":"s","version":"1"}}}}}}"#,
    ///     meta_keys::SERVER_INFO
    /// );
    /// let mut out = BytesMut::new();
    /// let id = Id::from_token(b"1").unwrap();
    /// mcp::write_result(&mut out, id, RawJson::new(result.as_bytes()).unwrap(), versions::V2026_07_28)?;
    /// assert_eq!(
    ///     &out[..],
    ///     &br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}
    /// "#[..]
    /// );
    /// # Ok::<(), mcp::ResultError>(())
    /// ```
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
}

/// The identifiers of MCP's official extensions (2026-07-28 on): keys of a peer's
/// `capabilities.extensions`, which a client also declares on each request (its
/// [`CLIENT_CAPABILITIES`](meta_keys::CLIENT_CAPABILITIES)).
///
/// ```
/// use rpcwire::{Decoder, Message, RawJson, mcp};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// let path = ["_meta", mcp::meta_keys::CLIENT_CAPABILITIES, "extensions", mcp::extensions::TASKS];
/// assert_eq!(req.params.and_then(|p| p.get_path(&path)), Some(RawJson::EMPTY_OBJECT));
/// ```
pub mod extensions {
    /// `io.modelcontextprotocol/tasks`, the Tasks extension: a server may answer a request
    /// that declares it with a `CreateTaskResult` (`resultType: "task"`), and the task's
    /// status comes with `tasks/get` and on a `subscriptions/listen` stream
    /// ([`TASKS_NOTIFICATION`](super::methods::TASKS_NOTIFICATION)).
    pub const TASKS: &str = "io.modelcontextprotocol/tasks";
}

/// An id-like value (a request id or a progress token): a string or an integer; MCP allows
/// nothing else.
fn id_like(value: RawJson<'_>) -> Option<Id<'_>> {
    let id = Id::from_token(value.as_bytes())?;
    matches!(id.kind(), IdKind::String { .. } | IdKind::Integer).then_some(id)
}

/// An optional member of `params` read by `read`: `Some(None)` when it is absent, `None`
/// when it is there but cannot be read (`read` fails, or it is ambiguous). A `null` is there,
/// and read like any other value: MCP's optional members are not nullable unless the schema
/// says so (`total?: number`), and `read` refuses it as of another type.
fn optional<'a, T>(
    params: RawJson<'a>,
    key: &str,
    read: impl FnOnce(RawJson<'a>) -> Option<T>,
) -> Option<Option<T>> {
    match params.lookup(key) {
        Lookup::Absent => Some(None),
        Lookup::Found(v) => read(v).map(Some),
        Lookup::Ambiguous | Lookup::Malformed => None,
    }
}

/// `notifications/cancelled`: which request the peer gave up on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled<'a> {
    /// The id of the request being cancelled (a string or an integer).
    pub request_id: Id<'a>,
    /// The reason, if given once as a string. (One of another type, `null` included, which
    /// the schema's `reason?: string` does not allow, or one given twice, reads as none: the
    /// request is still cancelled, since what the peer wants of it is clear without the
    /// reason.)
    pub reason: Option<JsonStr<'a>>,
}

impl<'a> Cancelled<'a> {
    /// Reads a `notifications/cancelled` notification; `None` for another method, for one
    /// that names no request (no `requestId`: malformed, but under 2025-11-25, which leaves it
    /// optional for tasks, cancelled with `tasks/cancel` instead), and for a malformed one (a
    /// `requestId` that is not a string or an integer, or one given twice, which peers may
    /// read either way). Such a notification cancels nothing, and is never answered.
    ///
    /// ```
    /// use rpcwire::{mcp::Cancelled, Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"abc","reason":"user"}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame) else { panic!() };
    /// let c = Cancelled::from_notification(&n).unwrap();
    /// assert_eq!(c.request_id.raw(), br#""abc""#);
    /// assert_eq!(c.reason.unwrap().decode(), "user");
    /// ```
    pub fn from_notification(n: &Notification<'a>) -> Option<Self> {
        if !n.method.eq_str(methods::CANCELLED) {
            return None;
        }
        let params = n.params?;
        Some(Cancelled {
            request_id: id_like(params.get("requestId")?)?,
            reason: params.get("reason").and_then(|r| r.as_str()),
        })
    }
}

/// Appends a `notifications/cancelled` for the request `request_id` (its wire token, byte for
/// byte), with an optional reason: what a proxy sends upstream for a request it gave up on
/// (never for `initialize`, which MCP forbids cancelling). Returns `false`, writing nothing,
/// when `request_id` is neither a string nor an integer (MCP: "Requests MUST include a string
/// or integer ID"; `null` or `1.5` names no request a peer can cancel). For a request sent
/// under a [`Token`] (a [`PendingTable`](crate::PendingTable)'s or an
/// [`IdRemapper`](crate::IdRemapper)'s), which is always an integer,
/// [`write_cancelled_token`] writes the same and returns nothing to check.
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{mcp, Id};
/// let mut out = BytesMut::new();
/// assert!(mcp::write_cancelled(&mut out, Id::from_token(b"7").unwrap(), Some("timed out")));
/// assert_eq!(
///     &out[..],
///     b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"timed out\"}}\n"
/// );
/// assert!(!mcp::write_cancelled(&mut out, Id::NULL, None));
/// ```
#[must_use = "nothing is written for an id that is not a string or an integer"]
pub fn write_cancelled(out: &mut BytesMut, request_id: Id<'_>, reason: Option<&str>) -> bool {
    if matches!(request_id.kind(), IdKind::Null | IdKind::Number) {
        return false;
    }
    write_cancelled_raw(out, request_id.raw(), reason);
    true
}

/// Appends a `notifications/cancelled` for the request we sent under `token`, with an
/// optional reason: [`write_cancelled`] for a request id that is always an integer, so it
/// always writes. What a gateway sends upstream for a request it gave up on (timed out, its
/// client gone), and a client for one of its own (never for `initialize`, which MCP forbids
/// cancelling).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{mcp, PendingTable};
/// let mut pending = PendingTable::new();
/// let token = pending.insert("tools/call").unwrap();
/// let mut out = BytesMut::new();
/// mcp::write_cancelled_token(&mut out, token, Some("timed out"));
/// let expected = format!(
///     "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{token},\"reason\":\"timed out\"}}}}\n"
/// );
/// assert_eq!(&out[..], expected.as_bytes());
/// ```
pub fn write_cancelled_token(out: &mut BytesMut, token: Token, reason: Option<&str>) {
    write_cancelled_raw(out, token.to_wire(&mut [0; 20]), reason);
}

/// Appends a `notifications/cancelled` for the request id `raw`, a string or an integer
/// token.
fn write_cancelled_raw(out: &mut BytesMut, raw: &[u8], reason: Option<&str>) {
    out.extend_from_slice(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"#,
    );
    out.extend_from_slice(raw);
    if let Some(reason) = reason {
        out.extend_from_slice(br#","reason":"#);
        encode::write_json_string(out, reason);
    }
    out.extend_from_slice(b"}}\n");
}

/// Appends a `notifications/progress` on `token` (the request's `_meta.progressToken`, its
/// wire token byte for byte): `progress` so far, with the `total` and a `message` when given.
/// Returns `false`, writing nothing, when `progress` or `total` is not finite (JSON has no NaN
/// or infinity), or when `token` is neither a string nor an integer (MCP's `ProgressToken`:
/// `null` or `1.5` names no request's token).
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::{mcp, Id};
/// let mut out = BytesMut::new();
/// assert!(mcp::write_progress(&mut out, Id::from_token(b"\"p-1\"").unwrap(), 0.5, Some(1.0), Some("half")));
/// assert_eq!(
///     &out[..],
///     b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p-1\",\"progress\":0.5,\"total\":1.0,\"message\":\"half\"}}\n"
/// );
/// assert!(!mcp::write_progress(&mut out, Id::from_token(b"1").unwrap(), f64::NAN, None, None));
/// assert!(!mcp::write_progress(&mut out, Id::NULL, 1.0, None, None));
/// ```
#[must_use = "nothing is written for a progress or total that is not finite, or a token that is not a string or integer"]
pub fn write_progress(
    out: &mut BytesMut,
    token: Id<'_>,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> bool {
    use core::fmt::Write as _;
    if !progress.is_finite()
        || total.is_some_and(|t| !t.is_finite())
        || matches!(token.kind(), IdKind::Null | IdKind::Number)
    {
        return false;
    }
    out.extend_from_slice(
        br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"#,
    );
    out.extend_from_slice(token.raw());
    // `Debug` of a finite `f64` is a JSON number: the shortest digits that read back as the
    // same value, with an exponent from 1e16 up and below 1e-4 (`1e300`, `5e-324`, where
    // `Display` writes hundreds of digits, and serde_json refuses `f64::MAX` written out),
    // and `.0` on an integer (`-0.0` too, which JSON allows). Writing into a `BytesMut`
    // cannot fail.
    let _ = write!(out, r#","progress":{progress:?}"#);
    if let Some(total) = total {
        let _ = write!(out, r#","total":{total:?}"#);
    }
    if let Some(message) = message {
        out.extend_from_slice(br#","message":"#);
        encode::write_json_string(out, message);
    }
    out.extend_from_slice(b"}}\n");
    true
}

/// `notifications/progress`: progress of a long-running request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress<'a> {
    /// The token the request asked progress for (in its `_meta.progressToken`).
    pub token: Id<'a>,
    /// Progress so far.
    pub progress: f64,
    /// The total, if known.
    pub total: Option<f64>,
    /// A human-readable message, if given.
    pub message: Option<JsonStr<'a>>,
}

impl<'a> Progress<'a> {
    /// Reads a `notifications/progress` notification; `None` for another method or a
    /// malformed one: a token or `progress` missing or that cannot be read, or a `total` or
    /// `message` there that cannot be read (of another type, beyond `f64`, or given twice). A
    /// `null` `total` or `message` is of another type: MCP's schema has `total?: number` and
    /// `message?: string`, which may be left out but not be `null`.
    ///
    /// ```
    /// use rpcwire::{mcp::Progress, Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":2}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame) else { panic!() };
    /// assert_eq!(Progress::from_notification(&n).unwrap().total, Some(2.0));
    ///
    /// let frame = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":null}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame) else { panic!() };
    /// assert_eq!(Progress::from_notification(&n), None);
    /// ```
    pub fn from_notification(n: &Notification<'a>) -> Option<Self> {
        if !n.method.eq_str(methods::PROGRESS) {
            return None;
        }
        let params = n.params?;
        Some(Progress {
            token: id_like(params.get(meta_keys::PROGRESS_TOKEN)?)?,
            progress: params.get("progress")?.as_f64()?,
            total: optional(params, "total", |t| t.as_f64())?,
            message: optional(params, "message", |m| m.as_str())?,
        })
    }
}

/// A task: its id and status, as a `Task` object tells them.
///
/// - MCP 2025-11-25 (experimental): the `task` of a `CreateTaskResult`, a `tasks/get` or
///   `tasks/cancel` result, an element of a `tasks/list` result's `tasks`, the `params` of a
///   `notifications/tasks/status`.
/// - The official Tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`): a
///   `CreateTaskResult` itself (`resultType: "task"`, "`CreateTaskResult = Result & Task`"),
///   a `tasks/get` result, the `params` of a `notifications/tasks` (its `tasks/update` and
///   `tasks/cancel` results are empty acknowledgements). Its ttl is `ttlMs` (2025-11-25's
///   `ttl`), and a finished task carries its `result` or `error`; this reads neither.
///
/// Both say "Task IDs **MUST** be a string value" (the extension: `taskId: string`), and that
/// `completed`, `failed` and `cancelled` are terminal; `working` and `input_required` are not.
/// 2025-11-25 adds that progress for a task "**MUST** stop after the task reaches a terminal
/// status"; the extension routes no progress for tasks at all ("not supported on tasks in
/// general in this specification").
///
/// ```
/// use rpcwire::{mcp::Task, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t-1","status":"working","ttl":null}}}"#;
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// let task = Task::from_object(r.result.get("task").unwrap()).unwrap();
/// assert_eq!(task.id.raw(), br#""t-1""#);
/// assert!(!task.is_terminal());
///
/// let frame = br#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t-1","status":"completed"}}"#;
/// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// let task = Task::from_notification(&n).unwrap();
/// assert_eq!((task.id.raw(), task.is_terminal()), (&br#""t-1""#[..], true));
///
/// // The Tasks extension of 2026-07-28: the CreateTaskResult is the task.
/// let frame = br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"task","taskId":"t-2","status":"working","ttlMs":60000}}"#;
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// assert_eq!(Task::from_object(r.result).unwrap().id.raw(), br#""t-2""#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Task<'a> {
    /// The task's `taskId`, a string, as its token on the wire.
    pub id: Id<'a>,
    /// Its `status`, if given once as a string. (One of another type, `null` included, or
    /// given twice, reads as none, and so not terminal: the task is still known by its id, and a task taken for
    /// ended while its peer may read it as running would lose the progress still owed to it.)
    pub status: Option<JsonStr<'a>>,
}

impl<'a> Task<'a> {
    /// Reads a `Task` object; `None` when it is no object, or its `taskId` is missing, not a
    /// string, or given twice (which peers may read either way: no task can be named by it).
    pub fn from_object(task: RawJson<'a>) -> Option<Self> {
        let [id, status] = task.lookup_each(["taskId", "status"]);
        let Lookup::Found(id) = id else {
            return None;
        };
        id.as_str()?;
        let status = match status {
            Lookup::Found(status) => status.as_str(),
            Lookup::Absent | Lookup::Ambiguous | Lookup::Malformed => None,
        };
        Some(Task {
            id: Id::from_token(id.as_bytes())?,
            status,
        })
    }

    /// Reads a task's status notification, whose `params` are the task: MCP 2025-11-25's
    /// `notifications/tasks/status`, or the Tasks extension's `notifications/tasks` (MCP
    /// 2026-07-28: "`TaskStatusNotificationParams = NotificationParams & Task`"); `None` for
    /// another method, or a task [`from_object`](Self::from_object) cannot read.
    ///
    /// ```
    /// use rpcwire::{mcp::Task, Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t-1","status":"completed","ttlMs":60000,"result":{"content":[],"isError":false},"_meta":{"io.modelcontextprotocol/subscriptionId":"l1"}}}"#;
    /// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame) else { panic!() };
    /// let task = Task::from_notification(&n).unwrap();
    /// assert_eq!((task.id.raw(), task.is_terminal()), (&br#""t-1""#[..], true));
    /// ```
    pub fn from_notification(n: &Notification<'a>) -> Option<Self> {
        if !n.method.eq_str(methods::TASKS_STATUS) && !n.method.eq_str(methods::TASKS_NOTIFICATION)
        {
            return None;
        }
        Self::from_object(n.params?)
    }

    /// Whether the task's status is terminal: `completed`, `failed` or `cancelled`.
    pub fn is_terminal(&self) -> bool {
        self.status.is_some_and(|status| {
            ["completed", "failed", "cancelled"]
                .iter()
                .any(|terminal| status.eq_str(terminal))
        })
    }
}

/// The task a message's `params` or `result` (`value`) says it belongs to: the `taskId` of its
/// `_meta`'s [`RELATED_TASK`](meta_keys::RELATED_TASK) (MCP 2025-11-25 only: "All requests,
/// notifications, and responses related to a task **MUST** include the
/// `io.modelcontextprotocol/related-task` key in their `_meta` field"; a `tasks/result`
/// result, say, which comes once its task has ended). `None` when there is none that
/// [`Task::from_object`] reads a task id from.
///
/// ```
/// use rpcwire::{mcp, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t-1"}}}}"#;
/// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// assert_eq!(mcp::related_task(r.result).unwrap().raw(), br#""t-1""#);
/// ```
pub fn related_task(value: RawJson<'_>) -> Option<Id<'_>> {
    let related = value.get("_meta")?.get(meta_keys::RELATED_TASK)?;
    Some(Task::from_object(related)?.id)
}

/// The methods that ask about tasks (MCP 2025-11-25, and `tasks/update` of the Tasks
/// extension of 2026-07-28), whose results are no `CreateTaskResult`.
const TASK_METHODS: [&str; 5] = [
    methods::TASKS_GET,
    methods::TASKS_RESULT,
    methods::TASKS_CANCEL,
    methods::TASKS_LIST,
    methods::TASKS_UPDATE,
];

/// Whether a request is task-augmented (MCP 2025-11-25), so that a `CreateTaskResult` may
/// answer it: its `params.task` is an object, or is ambiguous (given twice, or in `params`
/// too malformed to read whole), which its receiver may read as one. Never a request of the
/// task methods (`tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list`, and the Tasks
/// extension's `tasks/update`), whatever its `params` hold: its result is the one its method
/// defines.
///
/// 2025-11-25's form only: under the official Tasks extension of 2026-07-28 a request asks
/// for no task ("The server is the sole decider; clients do not signal task preference on the
/// request itself"); a client declaring the extension in the request's capabilities may be
/// answered with a `CreateTaskResult` (`resultType: "task"`) all the same.
///
/// ```
/// use rpcwire::{mcp, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{"ttl":60000}}}"#;
/// let Ok(Message::Request(r)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert!(mcp::is_task_augmented(&r));
/// let frame = br#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"t-1","task":{}}}"#;
/// let Ok(Message::Request(r)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert!(!mcp::is_task_augmented(&r));
/// ```
pub fn is_task_augmented(r: &Request<'_>) -> bool {
    !TASK_METHODS.iter().any(|m| r.method.eq_str(m))
        && task_member_asks_for_task(r.params.map_or(Lookup::Absent, |p| p.lookup("task")))
}

/// Whether a request's `params.task` member, as looked up, asks for a task: an object, or
/// ambiguous (the receiver may read a task in it).
pub(crate) fn task_member_asks_for_task(task: Lookup<'_>) -> bool {
    match task {
        Lookup::Found(task) => task.kind() == JsonKind::Object,
        Lookup::Ambiguous | Lookup::Malformed => true,
        Lookup::Absent => false,
    }
}

/// The progress token of a message: the one a request asks progress for
/// (`params._meta.progressToken`), or the one a `notifications/progress` reports on
/// (`params.progressToken`, read alone, so a notification whose `progress` cannot be read
/// still yields its token, where [`Progress::from_notification`] gives `None`). `None` for
/// other messages, and for a token that is not a string or an integer (`IdRemapper` rewrites
/// any number token, `1.5` included; this function does not return one).
///
/// ```
/// use rpcwire::{mcp, Decoder};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"abc123"}}}"#;
/// let msg = Decoder::mcp().decode(frame).unwrap();
/// assert_eq!(mcp::progress_token(&msg).unwrap().raw(), br#""abc123""#);
///
/// let frame = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"abc123","progress":1}}"#;
/// let msg = Decoder::mcp().decode(frame).unwrap();
/// assert_eq!(mcp::progress_token(&msg).unwrap().raw(), br#""abc123""#);
/// ```
pub fn progress_token<'a>(msg: &Message<'a>) -> Option<Id<'a>> {
    match msg {
        Message::Request(r) => requested_progress_token(r),
        Message::Notification(n) => reported_progress_token(n),
        _ => None,
    }
}

/// The `subscriptions/listen` request a notification of its stream belongs to (MCP
/// 2026-07-28: `params._meta["io.modelcontextprotocol/subscriptionId"]`, the request's id), as
/// the token on the wire: a string or an integer, else `None`.
///
/// ```
/// use rpcwire::{mcp, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"listen-1"}}}"#;
/// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// assert_eq!(mcp::subscription_id(&n).unwrap().raw(), br#""listen-1""#);
/// ```
pub fn subscription_id<'a>(n: &Notification<'a>) -> Option<Id<'a>> {
    id_like(n.params?.get("_meta")?.get(meta_keys::SUBSCRIPTION_ID)?)
}

/// The progress token a request asks for (`params._meta.progressToken`): [`progress_token`]
/// for a handler that holds the [`Request`] alone. `None` when there is none, when it is
/// neither a string nor an integer (`null` asks for nothing), and when it is ambiguous (given
/// twice, or in a `params` or `_meta` too malformed to read whole): a server sends no progress
/// for such a request.
///
/// ```
/// use rpcwire::{mcp, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert_eq!(mcp::requested_progress_token(&req).unwrap().raw(), b"7");
///
/// let frame = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7,"progressToken":8}}}"#;
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
/// assert_eq!(mcp::requested_progress_token(&req), None);
/// ```
pub fn requested_progress_token<'a>(r: &Request<'a>) -> Option<Id<'a>> {
    match progress_token_member(r) {
        Lookup::Found(token) => id_like(token),
        Lookup::Absent | Lookup::Ambiguous | Lookup::Malformed => None,
    }
}

/// A request's `params._meta.progressToken` member, whatever its value: absent, found once,
/// or ambiguous (duplicated, or in an object too malformed to read whole). The one reader of
/// the path; [`progress_token`] and `IdRemapper` apply their own rules to what it finds.
pub(crate) fn progress_token_member<'a>(r: &Request<'a>) -> Lookup<'a> {
    r.params.map_or(Lookup::Absent, |params| {
        params.lookup_path(&["_meta", meta_keys::PROGRESS_TOKEN])
    })
}

/// A request's `params._meta.progressToken` member (as [`progress_token_member`] reads it),
/// its `params.task` member (MCP 2025-11-25: a task-augmented request), and its
/// `params._meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"]`
/// member (MCP 2026-07-28's Tasks extension, declared on the request: "A server **MUST NOT**
/// return `CreateTaskResult` to a client that did not include the extension capability on
/// its request"), in one pass over `params` and one over its `_meta`.
pub(crate) fn progress_task_and_extension_members<'a>(
    r: &Request<'a>,
) -> (Lookup<'a>, Lookup<'a>, Lookup<'a>) {
    let Some(params) = r.params else {
        return (Lookup::Absent, Lookup::Absent, Lookup::Absent);
    };
    let [meta, task] = params.lookup_each(["_meta", "task"]);
    let (token, capabilities) = match meta {
        Lookup::Found(meta) => {
            let [token, capabilities] =
                meta.lookup_each([meta_keys::PROGRESS_TOKEN, meta_keys::CLIENT_CAPABILITIES]);
            (token, capabilities)
        }
        other => (other, other),
    };
    let extension = match capabilities {
        Lookup::Found(capabilities) => capabilities.lookup_path(&["extensions", extensions::TASKS]),
        other => other,
    };
    (token, task, extension)
}

/// The progress token a `notifications/progress` reports on (`params.progressToken`), read
/// alone: [`progress_token`] for a handler that holds the [`Notification`]. `None` for
/// another method, and for a token that is not one string or integer.
///
/// ```
/// use rpcwire::{mcp, Decoder, Message};
/// let frame = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":"half"}}"#;
/// let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame) else { panic!() };
/// assert_eq!(mcp::reported_progress_token(&n).unwrap().raw(), br#""t1""#);
/// assert!(mcp::Progress::from_notification(&n).is_none());
/// ```
pub fn reported_progress_token<'a>(n: &Notification<'a>) -> Option<Id<'a>> {
    if !n.method.eq_str(methods::PROGRESS) {
        return None;
    }
    id_like(n.params?.get(meta_keys::PROGRESS_TOKEN)?)
}

/// The per-request `_meta` fields of MCP 2026-07-28.
///
/// A server reads them ([`from_request`](Self::from_request)) and checks them
/// ([`check`](Self::check)). A client writes them into the params of each request it sends
/// (`server/discover` included, whose params hold nothing else): the version it speaks to
/// the server ([`versions::choose`], [`DiscoverResult::choose`]) under
/// [`meta_keys::PROTOCOL_VERSION`], and its capabilities, an object (`{}` declares none),
/// under [`meta_keys::CLIENT_CAPABILITIES`]; its identity, optional, under
/// [`meta_keys::CLIENT_INFO`]. [`write_request_with_meta`] splices them into the params the
/// client has, whatever those hold. Or they are members of the params the client writes, a
/// `_meta` field of its params struct with serde, say. Write one `_meta`: a wrapper that
/// `#[serde(flatten)]`s params holding a `_meta` of their own and adds another writes the
/// member twice (serde_json does, and the `serde` feature's `typed::to_raw` lets it through:
/// RFC 8259 allows it), and a server reads such a request as naming no version (-32602). A
/// progress token goes into that same `_meta` ([`write_request_with_progress_token`] adds it
/// to the `_meta` the params hold):
///
/// ```
/// use bytes::BytesMut;
/// use rpcwire::mcp::{self, versions, RequestMeta};
/// use rpcwire::{Decoder, Message, PendingTable, RawJson};
///
/// #[derive(serde::Serialize)]
/// struct Meta<'a> {
///     #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
///     protocol_version: &'a str,
///     #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
///     client_capabilities: serde_json::Value,
/// }
/// #[derive(serde::Serialize)]
/// struct CallTool<'a> {
///     name: &'a str,
///     #[serde(rename = "_meta")]
///     meta: Meta<'a>,
/// }
///
/// let meta = Meta { protocol_version: versions::V2026_07_28, client_capabilities: serde_json::json!({}) };
/// let params = serde_json::to_vec(&CallTool { name: "slow", meta }).unwrap();
/// let mut pending = PendingTable::new();
/// let token = pending.insert("tools/call").unwrap();
/// let mut out = BytesMut::new();
/// let params = RawJson::new(&params).unwrap();
/// mcp::write_request_with_progress_token(&mut out, token, "tools/call", Some(params))?;
///
/// // What the server reads: the version, the capabilities and the progress token.
/// let Ok(Message::Request(req)) = Decoder::mcp().decode(&out[..out.len() - 1]) else { panic!() };
/// assert_eq!(RequestMeta::from_request(&req).check(&[versions::V2026_07_28]), Ok(versions::V2026_07_28));
/// assert!(mcp::requested_progress_token(&req).is_some());
/// # Ok::<(), mcp::ProgressRequestError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RequestMeta<'a> {
    /// `io.modelcontextprotocol/protocolVersion`
    pub protocol_version: Option<JsonStr<'a>>,
    /// `io.modelcontextprotocol/clientCapabilities` (raw object)
    pub client_capabilities: Option<RawJson<'a>>,
    /// `io.modelcontextprotocol/clientInfo` (raw object)
    pub client_info: Option<RawJson<'a>>,
}

impl<'a> RequestMeta<'a> {
    /// Reads the fields from a request's or notification's `params._meta`. A field that is
    /// absent, of another type, or ambiguous (given twice, or in a `_meta` given twice or too
    /// malformed to read whole) is `None` alike. Where the difference matters (a gateway
    /// choosing a request's options by its version must refuse an ambiguous one, which the
    /// server behind it may read either way, rather than fall back to the session's), look
    /// the field up with [`RawJson::lookup_path`]:
    ///
    /// ```
    /// use rpcwire::mcp::{meta_keys, RequestMeta};
    /// use rpcwire::{Decoder, Lookup};
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#;
    /// let msg = Decoder::mcp().decode(frame).unwrap();
    /// assert_eq!(RequestMeta::from_message(&msg).protocol_version, None);
    /// let path = ["_meta", meta_keys::PROTOCOL_VERSION];
    /// assert_eq!(msg.params().unwrap().lookup_path(&path), Lookup::Ambiguous);
    /// ```
    pub fn from_message(msg: &Message<'a>) -> Self {
        Self::from_params(msg.params())
    }

    /// [`from_message`](Self::from_message) for a handler that holds the [`Request`] alone
    /// (as [`requested_progress_token`] is [`progress_token`]'s): the version a 2026-07-28
    /// request names, to serve it by or refuse it with, as [`check`](Self::check) does
    /// (-32602 when it names none, -32022 with the supported versions when the server does
    /// not speak it).
    ///
    /// ```
    /// use rpcwire::mcp::{versions, RequestMeta, RequestMetaError};
    /// use rpcwire::{Decoder, Message};
    ///
    /// const SPEAKS: &[&str] = &[versions::V2026_07_28];
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    /// let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    /// let meta = RequestMeta::from_request(&req);
    /// assert_eq!(meta.protocol_version.unwrap().decode(), "2099-01-01");
    /// assert!(matches!(meta.check(SPEAKS), Err(RequestMetaError::UnsupportedVersion { .. })));
    /// ```
    pub fn from_request(r: &Request<'a>) -> Self {
        Self::from_params(r.params)
    }

    /// The fields of `params._meta`.
    fn from_params(params: Option<RawJson<'a>>) -> Self {
        let Some(meta) = params.and_then(|p| p.get("_meta")) else {
            return RequestMeta::default();
        };
        let object = |key| meta.get(key).filter(|v| v.kind() == JsonKind::Object);
        RequestMeta {
            protocol_version: meta
                .get(meta_keys::PROTOCOL_VERSION)
                .and_then(|v| v.as_str()),
            client_capabilities: object(meta_keys::CLIENT_CAPABILITIES),
            client_info: object(meta_keys::CLIENT_INFO),
        }
    }
}

/// MCP protocol revisions (`protocolVersion` values) where a rule of this crate changes.
///
/// Revisions are dates, `YYYY-MM-DD`, so they order as strings: [`is_at_least`](versions::is_at_least)
/// compares them so. A version that is not a date compares as a string too: a draft's name
/// starting with a letter (`DRAFT-2026-v1`) orders after every dated revision and gets the
/// newest rules; one starting with a digit or a sign below `2` (`1.0`, or an empty string)
/// orders before them.
pub mod versions {
    /// 2024-11-05: the first dated revision.
    pub const V2024_11_05: &str = "2024-11-05";
    /// 2025-03-26: JSON-RPC batches allowed.
    pub const V2025_03_26: &str = "2025-03-26";
    /// 2025-06-18: batches removed.
    pub const V2025_06_18: &str = "2025-06-18";
    /// 2025-11-25: an error reply's `id` may be left out (to a request whose id cannot be
    /// read); URL elicitation; tasks. ([`for_protocol_version`] does not set
    /// [`unreadable_id`] from it: peers of every version differ on that form, so it is a
    /// per-peer setting, left out by default in the MCP dialect.)
    ///
    /// [`for_protocol_version`]: crate::DecodeOptions::for_protocol_version
    /// [`unreadable_id`]: crate::DecodeOptions::unreadable_id
    pub const V2025_11_25: &str = "2025-11-25";
    /// 2026-07-28: `resultType` on results, per-request `_meta`, no requests from the
    /// server (a result with `resultType: "input_required"` asks the client instead), the
    /// split of the -32000..-32099 error codes.
    pub const V2026_07_28: &str = "2026-07-28";

    /// Every revision this crate knows the rules of, oldest first: the list to check a
    /// `protocolVersion` or an `MCP-Protocol-Version` header read from the wire against
    /// before handing it to [`for_protocol_version`] (which trusts its input), unless the
    /// application supports fewer.
    ///
    /// ```
    /// use rpcwire::mcp::versions::{KNOWN, LATEST, V2024_11_05};
    /// assert_eq!((KNOWN[0], KNOWN[KNOWN.len() - 1]), (V2024_11_05, LATEST));
    /// assert!(KNOWN.windows(2).all(|w| w[0] < w[1]));
    /// ```
    ///
    /// [`for_protocol_version`]: crate::DecodeOptions::for_protocol_version
    pub const KNOWN: &[&str] = &[
        V2024_11_05,
        V2025_03_26,
        V2025_06_18,
        V2025_11_25,
        V2026_07_28,
    ];

    /// The latest revision this crate knows. It has no `initialize` (each request names its
    /// version in `_meta`, [`RequestMeta`](crate::mcp::RequestMeta)), so it is not one to
    /// offer or answer in an `initialize` handshake: [`V2025_11_25`] is the latest that has
    /// one, and [`negotiate`] never answers with a later one.
    ///
    /// ```
    /// use rpcwire::mcp::versions::{negotiate, KNOWN, LATEST, V2025_11_25};
    /// assert_eq!(negotiate(LATEST, KNOWN), Some(V2025_11_25));
    /// ```
    pub const LATEST: &str = V2026_07_28;

    /// The version a server answers an `initialize` with, given the client's `requested`
    /// (its `params.protocolVersion`) and the versions the server `supported`s: MCP's version
    /// negotiation ("If the server supports the requested protocol version, it MUST respond
    /// with the same version. Otherwise, the server MUST respond with another protocol
    /// version it supports. This SHOULD be the latest version supported by the server."; the
    /// client then disconnects if it does not speak the answer).
    ///
    /// `requested` when it is in `supported` (exactly), else the latest of `supported`, as
    /// this module orders versions (as strings, whatever order the list is in). Versions
    /// without `initialize` take no part: 2026-07-28 and later (a session of those negotiates
    /// nothing; a client learns what a server speaks from `server/discover`, and each request
    /// names its version in `_meta`), so a server may pass the whole list it speaks (the one
    /// it also hands [`HeaderError::write_reply`](crate::headers::HeaderError::write_reply),
    /// say), and a client asking `initialize` for 2026-07-28 gets the latest before it.
    /// `None` when `supported` holds no version with `initialize`: the server has no version
    /// to answer with, and refuses the request (MCP's example: -32602 "Unsupported protocol
    /// version", with `data: {"supported": [...], "requested": "..."}`).
    ///
    /// The answer borrows `supported`, not `requested` (which usually borrows the frame).
    ///
    /// ```
    /// use rpcwire::mcp::versions::{negotiate, KNOWN, V2025_06_18, V2025_11_25};
    /// const SUPPORTED: &[&str] = &["2025-06-18", "2025-11-25", "2026-07-28"];
    /// assert_eq!(negotiate("2025-06-18", SUPPORTED), Some(V2025_06_18));
    /// // One the server does not speak, or one with no `initialize`: its latest that has one.
    /// assert_eq!(negotiate("2024-11-05", SUPPORTED), Some(V2025_11_25));
    /// assert_eq!(negotiate("2026-07-28", SUPPORTED), Some(V2025_11_25));
    /// // Every version this crate knows the rules of.
    /// assert_eq!(negotiate("2024-11-05", KNOWN), Some("2024-11-05"));
    /// // Nothing to answer with.
    /// assert_eq!(negotiate("2025-06-18", &["2026-07-28"]), None);
    /// ```
    pub fn negotiate<'a>(requested: &str, supported: &[&'a str]) -> Option<&'a str> {
        let with_initialize = supported.iter().copied().filter(|v| has_initialize(v));
        with_initialize
            .clone()
            .find(|v| *v == requested)
            .or_else(|| with_initialize.max())
    }

    /// The client's side of [`negotiate`]: the version of `supported` (the versions the
    /// client speaks) that is `answered`, the `protocolVersion` of the server's answer to its
    /// `initialize`, exactly; `None` when the client does not speak it, or when it is one
    /// without `initialize` (2026-07-28 and later, which no server answers `initialize` with:
    /// [`negotiate`] never does). MCP: "If the client does not support the version in the
    /// server's response, it SHOULD disconnect"; on `Some`, the session follows that version
    /// ([`for_protocol_version`], which trusts its input: the answer is the client's own
    /// string, checked, and it outlives the frame).
    ///
    /// ```
    /// use rpcwire::mcp::versions::{accept, V2025_06_18};
    /// use rpcwire::Decoder;
    /// const SPEAKS: &[&str] = &["2025-06-18", "2025-11-25"];
    /// // The client asked for 2025-11-25; the server answered with an earlier one it speaks.
    /// let version = accept("2025-06-18", SPEAKS).unwrap();
    /// assert_eq!(version, V2025_06_18);
    /// let decoder = Decoder::mcp_client().for_protocol_version(version);
    /// # let _ = decoder;
    /// // One it does not speak (disconnect), and one that has no `initialize`.
    /// assert_eq!(accept("2024-11-05", SPEAKS), None);
    /// assert_eq!(accept("2026-07-28", &["2025-11-25", "2026-07-28"]), None);
    /// ```
    ///
    /// [`for_protocol_version`]: crate::DecodeOptions::for_protocol_version
    pub fn accept<'a>(answered: &str, supported: &[&'a str]) -> Option<&'a str> {
        supported
            .iter()
            .copied()
            .find(|v| *v == answered && has_initialize(v))
    }

    /// The version a client talks to a server in, given what the server's `server/discover`
    /// result `offered` (its `supportedVersions`, a JSON array of strings, escapes decoded)
    /// and the versions the client `supported`s: the latest both speak, as this module orders
    /// versions. One of 2026-07-28 or later the client names in each request's `_meta`; an
    /// earlier one (both speak no later one, as `supportedVersions` may list the versions of
    /// `initialize` too) it negotiates with `initialize` ([`accept`] reads the answer), and a
    /// server refuses it per request ([`RequestMeta::check`](crate::mcp::RequestMeta::check)).
    /// `None` when they share none (or `offered` is not an array).
    ///
    /// The answer borrows `supported`, not the frame.
    ///
    /// ```
    /// use rpcwire::mcp::versions::{choose, V2025_11_25, V2026_07_28};
    /// use rpcwire::{Decoder, Message};
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2025-11-25","2026-07-28","2027-01-01"],"capabilities":{}}}"#;
    /// let Ok(Message::Response(r)) = Decoder::mcp_client().decode(frame) else { panic!() };
    /// let offered = r.result.get("supportedVersions").unwrap();
    /// assert_eq!(choose(offered, &[V2025_11_25, V2026_07_28]), Some(V2026_07_28));
    /// // A client of 2025-11-25 alone speaks it to this server, through `initialize`.
    /// assert_eq!(choose(offered, &[V2025_11_25]), Some(V2025_11_25));
    /// assert_eq!(choose(offered, &["2024-11-05"]), None);
    /// ```
    pub fn choose<'a>(offered: crate::RawJson<'_>, supported: &[&'a str]) -> Option<&'a str> {
        let offers = |version: &str| {
            offered
                .elements()
                .any(|v| v.as_str().is_some_and(|offer| offer.eq_str(version)))
        };
        supported.iter().copied().filter(|v| offers(v)).max()
    }

    /// Whether `version` is one of the [`KNOWN`] revisions, exactly.
    ///
    /// ```
    /// use rpcwire::mcp::versions::is_known;
    /// assert!(is_known("2025-06-18"));
    /// assert!(!is_known("2025-06-19") && !is_known(" 2025-06-18") && !is_known("DRAFT-2026-v1"));
    /// ```
    pub fn is_known(version: &str) -> bool {
        KNOWN.contains(&version)
    }

    /// Whether `version` has `initialize`: every revision before 2026-07-28.
    fn has_initialize(version: &str) -> bool {
        !is_at_least(version, V2026_07_28)
    }

    /// Whether `version` is `revision` or a later one.
    ///
    /// ```
    /// use rpcwire::mcp::versions::{is_at_least, V2026_07_28};
    /// assert!(is_at_least("2026-07-28", V2026_07_28));
    /// assert!(!is_at_least("2025-11-25", V2026_07_28));
    /// assert!(is_at_least("DRAFT-2026-v1", V2026_07_28));
    /// ```
    pub fn is_at_least(version: &str, revision: &str) -> bool {
        version >= revision
    }

    /// Whether `version` has JSON-RPC batches: 2025-03-26, exactly (its receivers must
    /// accept them, and 2025-06-18, the next revision, removed them). Not compared as text,
    /// as [`is_at_least`] does: every revision that could have them is published, so a
    /// version from the wire that sorts between the two (`"2025-03-26x"`, `"2025-05-01"`) is
    /// none of them, and has none.
    ///
    /// ```
    /// use rpcwire::mcp::versions::has_batches;
    /// assert!(has_batches("2025-03-26"));
    /// assert!(!has_batches("2024-11-05") && !has_batches("2025-06-18"));
    /// assert!(!has_batches("2025-05-01") && !has_batches("2025-03-26x"));
    /// ```
    pub fn has_batches(version: &str) -> bool {
        version == V2025_03_26
    }

    /// Whether results under `version` carry a `resultType` to check (2026-07-28 on). Under
    /// an earlier version `resultType` is an extra member like any other: see
    /// [`DecodeOptions::for_protocol_version`](crate::DecodeOptions::for_protocol_version).
    pub fn has_result_type(version: &str) -> bool {
        is_at_least(version, V2026_07_28)
    }

    /// Appends the error reply to a request made under a protocol version the server does not
    /// support: `code`, the message "Unsupported protocol version", and MCP's `data`,
    /// `{"supported": [...], "requested": "..."}`, the versions the server speaks, for the
    /// client to retry with one. `code` is -32022
    /// ([`ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION`](crate::ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION))
    /// for a request of 2026-07-28 or later, whose `_meta` names a version the server does
    /// not implement ([`RequestMeta::check`](crate::mcp::RequestMeta::check) finds it, and
    /// its error's reply is this one; "it **MUST** return an `UnsupportedProtocolVersionError`", on stdio as on
    /// HTTP, where it goes with 400 and is also
    /// [`HeaderError::UnsupportedVersion`](crate::headers::HeaderError::UnsupportedVersion)'s
    /// reply), and -32602 (Invalid params) for an `initialize` the server has no version to
    /// answer with ([`negotiate`] gave `None`: the lifecycle's example; 2026-07-28 leaves that
    /// code to the server, and asks the list of it: "A server that supports only modern
    /// versions **SHOULD** name the protocol versions it supports in any error it returns to
    /// an `initialize` request"). `id` is the request's [`Id`](crate::Id), or any
    /// [`ReplyId`](crate::ReplyId).
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::mcp::versions::{self, KNOWN};
    /// use rpcwire::{ErrorCode, Id};
    /// let mut out = BytesMut::new();
    /// let id = Id::from_token(b"3").unwrap();
    /// let code = ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION;
    /// versions::write_unsupported(&mut out, id, code, "2099-01-01", &KNOWN[3..]);
    /// assert_eq!(&out[..], &br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25","2026-07-28"],"requested":"2099-01-01"}}}
    /// "#[..]);
    /// ```
    pub fn write_unsupported<'i>(
        out: &mut bytes::BytesMut,
        id: impl Into<crate::ReplyId<'i>>,
        code: crate::ErrorCode,
        requested: &str,
        supported: &[&str],
    ) {
        let mut data = bytes::BytesMut::new();
        data.extend_from_slice(b"{\"supported\":");
        crate::encode::write_json_string_array(&mut data, supported);
        data.extend_from_slice(b",\"requested\":");
        crate::encode::write_json_string(&mut data, requested);
        data.extend_from_slice(b"}");
        let data = crate::RawJson::new(&data);
        crate::encode::write_error(out, id, code, "Unsupported protocol version", data);
    }
}

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

/// Why a `_meta` key name breaks MCP's naming rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MetaKeyError {
    /// A prefix label is empty, does not start with a letter, does not end with a letter or
    /// digit, or holds a character other than letters, digits and hyphens.
    BadPrefixLabel,
    /// The name is not empty and does not begin and end with an alphanumeric character, or
    /// holds a character other than alphanumerics, `-`, `_` and `.` (an empty name is allowed).
    BadName,
}

impl core::fmt::Display for MetaKeyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            MetaKeyError::BadPrefixLabel => "a _meta key prefix label breaks MCP's naming rules",
            MetaKeyError::BadName => "a _meta key name breaks MCP's naming rules",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for MetaKeyError {}

/// A `_meta` key that follows MCP's rules: an optional prefix (`labels.separated.by.dots/`)
/// and a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetaKey<'a> {
    /// The prefix without its slash, if any.
    pub prefix: Option<&'a str>,
    /// The name.
    pub name: &'a str,
}

impl<'a> MetaKey<'a> {
    /// Checks `key` against the rules.
    ///
    /// ```
    /// use rpcwire::mcp::MetaKey;
    /// let k = MetaKey::parse("io.modelcontextprotocol/protocolVersion").unwrap();
    /// assert!(k.is_reserved());
    /// assert!(!MetaKey::parse("progressToken").unwrap().is_reserved());
    /// assert!(MetaKey::parse("-bad/x").is_err());
    /// ```
    pub fn parse(key: &'a str) -> Result<Self, MetaKeyError> {
        let (prefix, name) = match key.rfind('/') {
            Some(at) => (Some(&key[..at]), &key[at + 1..]),
            None => (None, key),
        };
        if let Some(prefix) = prefix {
            for label in prefix.split('.') {
                let b = label.as_bytes();
                let ok = b.first().is_some_and(u8::is_ascii_alphabetic)
                    && b.last().is_some_and(u8::is_ascii_alphanumeric)
                    && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-');
                if !ok {
                    return Err(MetaKeyError::BadPrefixLabel);
                }
            }
        }
        let b = name.as_bytes();
        let ok = b.is_empty()
            || (b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(c)));
        if !ok {
            return Err(MetaKeyError::BadName);
        }
        Ok(MetaKey { prefix, name })
    }

    /// Whether the prefix is reserved for MCP: its second label is `modelcontextprotocol` or
    /// `mcp` (MCP 2025-11-25 and later: `io.modelcontextprotocol/`, `dev.mcp/`,
    /// `com.mcp.tools/` are reserved, `com.example.mcp/` is not). Labels are compared
    /// ignoring ASCII case, as domain labels are. (MCP 2025-06-18 worded it the other way
    /// round, `modelcontextprotocol` or `mcp` followed by a label: it reserved
    /// `modelcontextprotocol.io/` and `tools.mcp.com/` instead, and not
    /// `io.modelcontextprotocol/`.)
    pub fn is_reserved(&self) -> bool {
        let second = self.prefix.and_then(|p| p.split('.').nth(1));
        second.is_some_and(|l| {
            l.eq_ignore_ascii_case("modelcontextprotocol") || l.eq_ignore_ascii_case("mcp")
        })
    }
}
