//! Method names defined by MCP.
//!
//! The constants are patterns: a server dispatches on a request's method by matching its
//! decoded string, which borrows the frame (no allocation) unless the name holds escapes.
//!
//! A method is in every revision from 2024-11-05 on unless its constant names the revisions
//! that have it: [`ELICITATION_CREATE`] came with 2025-06-18, [`ELICITATION_COMPLETE`] and
//! the experimental tasks' methods with 2025-11-25, [`SERVER_DISCOVER`],
//! [`SUBSCRIPTIONS_LISTEN`] and its acknowledgement with 2026-07-28 (with the Tasks
//! extension's [`TASKS_UPDATE`] and [`TASKS_NOTIFICATION`]), and
//! [`REMOVED_IN_2026_07_28`] lists those that 2026-07-28 no longer has.
//!
//! ```
//! use bytes::BytesMut;
//! use rpcwire::mcp::methods;
//! use rpcwire::{encode, Decoder, Message, RawJson};
//!
//! let frame = br#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#;
//! let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
//! let mut out = BytesMut::new();
//! match &*req.method.decode() {
//!     // (Up to 2025-11-25: 2026-07-28 has no `ping`, `methods::is_removed`.)
//!     methods::PING => encode::write_response(&mut out, req.id, RawJson::EMPTY_OBJECT),
//!     methods::TOOLS_LIST => {
//!         encode::write_response(&mut out, req.id, RawJson::new(br#"{"tools":[]}"#).unwrap())
//!     }
//!     _ => encode::write_method_not_found(&mut out, req.id, req.method),
//! }
//! assert_eq!(&out[..], b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"tools\":[]}}\n");
//! ```

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
/// `elicitation/create` (2025-06-18 on, which added elicitation; a server-to-client
/// request; from 2026-07-28 an input request, as [`SAMPLING_CREATE_MESSAGE`])
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
