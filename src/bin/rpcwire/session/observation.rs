//! What the session is told about one message, and what it answers.

use rpcwire::{Id, IdBuf};

use super::{ParamsFault, Violation};

/// What the session needs to know about one message.
#[derive(Debug, Clone, Copy, Default)]
pub struct Observation<'a> {
    /// `request`, `notification`, `success_response`, `error_response`, `batch`, `invalid`,
    /// `parse_error`, `invalid_response`, `framing_error`.
    pub kind: &'a str,
    pub id: Option<Id<'a>>,
    pub method: Option<&'a str>,
    pub error_code: Option<i64>,
    /// For `notifications/cancelled`: the request it cancels.
    pub cancels: Option<Id<'a>>,
    /// For the reply to `initialize`: the negotiated protocol version; for an MCP request:
    /// the version its `_meta` names (`io.modelcontextprotocol/protocolVersion`, MCP
    /// 2026-07-28's per-request version).
    pub protocol_version: Option<&'a str>,
    /// For a request: the progress token it asks progress for (`params._meta.progressToken`);
    /// for `notifications/progress`: the token it reports on. See
    /// [`progress_token`](rpcwire::mcp::progress_token).
    pub progress_token: Option<Id<'a>>,
    /// For `notifications/progress`: its `progress`, when the notification can be read
    /// ([`Progress`](rpcwire::mcp::Progress)).
    pub progress: Option<f64>,
    /// For `notifications/progress` and `notifications/cancelled` (MCP): what is wrong with
    /// its params, when they break the schema of some version ([`ParamsFault`]; the session
    /// judges it by its own).
    pub params_fault: Option<ParamsFault>,
    /// For a notification of an MCP 2026-07-28 `subscriptions/listen` stream: the listen
    /// request's id (`_meta`'s `io.modelcontextprotocol/subscriptionId`).
    pub subscription: Option<Id<'a>>,
    /// For a reply to `tools/list`: the tools whose `x-mcp-header` annotations are invalid,
    /// each with why ([`invalid_tool_headers`](super::invalid_tool_headers); read only when the
    /// session checks them).
    pub invalid_tools: Option<&'a str>,
    /// For an MCP request asking progress: whether it is task-augmented (2025-11-25:
    /// `params.task`), so that a `CreateTaskResult` answering it keeps its progress token
    /// active until the task ends.
    pub task_augmented: bool,
    /// The task a message tells of (MCP 2025-11-25, or the Tasks extension of 2026-07-28), with
    /// whether it has ended (its status is terminal): a `notifications/tasks/status` or
    /// `notifications/tasks`, or a reply the session reads it of
    /// ([`Session::reads_task`](super::Session::reads_task)).
    pub task: Option<(Id<'a>, bool)>,
}

#[cfg(test)]
impl<'a> Observation<'a> {
    /// A message of `kind` with `id` and `method`, and nothing else told of it: what tests
    /// build their observations on.
    pub fn of(kind: &'a str, id: Option<Id<'a>>, method: Option<&'a str>) -> Self {
        Observation {
            kind,
            id,
            method,
            ..Observation::default()
        }
    }
}

/// What to do with one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub forward: bool,
    pub violation: Option<Violation>,
    /// The id the message goes on with in place of its own, when the session rewrites it
    /// ([`Session::rewriting_reused_ids`](super::Session::rewriting_reused_ids)): for a client
    /// request reusing an id whose reply could still come, the id the session minted for the
    /// server; for the server's reply to it, the client's id, restored. `None`: as it came.
    pub forward_id: Option<IdBuf>,
}
