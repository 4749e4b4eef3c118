//! `_meta` keys: MCP 2026-07-28's per-request and per-response metadata, and the keys naming
//! what a message belongs to (a listen stream, a task).

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
