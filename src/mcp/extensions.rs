//! The identifiers of MCP's official extensions (2026-07-28 on): keys of a peer's
//! `capabilities.extensions`, which a client also declares on each request (its
//! [`CLIENT_CAPABILITIES`](super::meta_keys::CLIENT_CAPABILITIES)).
//!
//! ```
//! use rpcwire::{Decoder, Message, RawJson, mcp};
//! let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#;
//! let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
//! let path = ["_meta", mcp::meta_keys::CLIENT_CAPABILITIES, "extensions", mcp::extensions::TASKS];
//! assert_eq!(req.params.and_then(|p| p.get_path(&path)), Some(RawJson::EMPTY_OBJECT));
//! ```

/// `io.modelcontextprotocol/tasks`, the Tasks extension: a server may answer a request
/// that declares it with a `CreateTaskResult` (`resultType: "task"`), and the task's
/// status comes with `tasks/get` and on a `subscriptions/listen` stream
/// ([`TASKS_NOTIFICATION`](super::methods::TASKS_NOTIFICATION)).
pub const TASKS: &str = "io.modelcontextprotocol/tasks";
