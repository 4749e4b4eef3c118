//! What the session is told of a frame, read from it once.

use std::borrow::Cow;

use rpcwire::mcp::{self, Cancelled, Progress, RequestMeta, progress_token};
use rpcwire::{DecodeError, Id, Message, Rejection};

use super::tasks::{TaskReply, task_of_status};
use super::{Observation, ParamsFault};

/// What the session is told about one message or batch element, read from it once for the
/// proxy and for `check` (the strings it needs decoded, borrowed from the frame when they hold
/// no escape).
#[derive(Default)]
pub struct Described<'a> {
    pub kind: &'static str,
    /// Why a rejected frame is not a valid message.
    pub error: Option<DecodeError>,
    pub id: Option<Id<'a>>,
    pub method: Option<Cow<'a, str>>,
    pub error_code: Option<i64>,
    pub cancels: Option<Id<'a>>,
    pub protocol_version: Option<Cow<'a, str>>,
    pub progress_token: Option<Id<'a>>,
    pub progress: Option<f64>,
    pub params_fault: Option<ParamsFault>,
    pub subscription: Option<Id<'a>>,
    pub task_augmented: bool,
    pub task: Option<(Id<'a>, bool)>,
}

impl<'a> Described<'a> {
    /// An over-long line.
    pub fn too_long() -> Self {
        Described {
            kind: "framing_error",
            ..Described::default()
        }
    }

    /// A rejected frame: its kind, and its id when it could be read.
    pub fn of_rejection(rej: &Rejection<'a>) -> Self {
        Described {
            kind: rej.kind_str(),
            error: Some(rej.error()),
            id: rej.id(),
            ..Described::too_long()
        }
    }

    /// A decoded frame: [`of_message`](Self::of_message) or [`of_rejection`](Self::of_rejection).
    pub fn of(decoded: Result<&Message<'a>, &Rejection<'a>>, mcp: bool) -> Self {
        match decoded {
            Ok(msg) => Self::of_message(msg, mcp),
            Err(rej) => Self::of_rejection(rej),
        }
    }

    /// A valid message; `mcp`: the MCP dialect, whose progress tokens the session checks.
    /// (Protocol versions are read apart, while the session needs them:
    /// [`Self::read_protocol_version`], [`Self::read_request_version`].)
    pub fn of_message(msg: &Message<'a>, mcp: bool) -> Self {
        let method = msg.method().map(|m| m.decode());
        // (Only for the methods a listen stream carries: a lookup in the params of every
        // progress report and log message costs the proxy a few per cent of its throughput.)
        let subscription = match msg {
            Message::Notification(n)
                if mcp
                    && method
                        .as_deref()
                        .is_some_and(|m| mcp::methods::LISTEN_STREAM.contains(&m)) =>
            {
                mcp::subscription_id(n)
            }
            _ => None,
        };
        // A progress notification's token and value, read together; its token alone when the
        // notification cannot be read whole (its progress is then not judged).
        let progress = match msg {
            Message::Notification(n) if mcp => Progress::from_notification(n),
            _ => None,
        };
        let progress_token = match progress {
            Some(p) => Some(p.token),
            None if mcp => progress_token(msg),
            None => None,
        };
        Described {
            kind: msg.kind().as_str(),
            error: None,
            id: msg.id(),
            method,
            error_code: match msg {
                Message::ErrorResponse(e) => Some(e.error.code.get()),
                _ => None,
            },
            cancels: match msg {
                Message::Notification(n) => Cancelled::from_notification(n).map(|c| c.request_id),
                _ => None,
            },
            protocol_version: None,
            // (Looked up only in a request asking progress, the one a task may keep: a second
            // lookup in every request's params would cost the proxy throughput.)
            task_augmented: progress_token.is_some()
                && matches!(msg, Message::Request(r) if mcp::is_task_augmented(r)),
            progress_token,
            progress: progress.map(|p| p.progress),
            params_fault: match msg {
                Message::Notification(n) if mcp => ParamsFault::of_notification(n),
                Message::Request(r) if mcp => ParamsFault::of_initialize(r),
                _ => None,
            },
            subscription,
            task: if mcp { task_of_status(msg) } else { None },
        }
    }

    /// Reads the task a success response tells of, as a reply of kind `reply` (the session
    /// says which: [`Session::reads_task`](super::Session::reads_task)).
    pub fn read_task(&mut self, msg: &Message<'a>, reply: TaskReply) {
        self.task = reply.task_of(msg);
    }

    /// Reads the fault of the result of `initialize` (a success response the session says
    /// answers it: [`Session::is_initialize_reply`](super::Session::is_initialize_reply)),
    /// if its result breaks `InitializeResult`.
    pub fn read_initialize_result(&mut self, msg: &Message<'a>) {
        if let Message::Response(r) = msg {
            self.params_fault = ParamsFault::of_initialize_result(r.result);
        }
    }

    /// Reads the protocol version of a success response (only the reply to `initialize`
    /// carries one: the proxy calls it while that reply is awaited).
    pub fn read_protocol_version(&mut self, msg: &Message<'a>) {
        if let Message::Response(r) = msg {
            self.protocol_version = r
                .result
                .get("protocolVersion")
                .and_then(|v| v.as_str())
                .map(|s| s.decode());
        }
    }

    /// Reads the protocol version an MCP request names in its `_meta` (2026-07-28's
    /// per-request version: a session without `initialize` learns its version from them).
    pub fn read_request_version(&mut self, msg: &Message<'a>) {
        if let Message::Request(_) = msg {
            self.protocol_version = RequestMeta::from_message(msg)
                .protocol_version
                .map(|v| v.decode());
        }
    }

    /// What the session is told (the tools of a reply to `tools/list` are read apart, only
    /// when the session checks them:
    /// [`Session::reads_tool_headers`](super::Session::reads_tool_headers)).
    pub fn observation(&self) -> Observation<'_> {
        Observation {
            kind: self.kind,
            id: self.id,
            method: self.method.as_deref(),
            error_code: self.error_code,
            cancels: self.cancels,
            protocol_version: self.protocol_version.as_deref(),
            progress_token: self.progress_token,
            progress: self.progress,
            params_fault: self.params_fault,
            subscription: self.subscription,
            invalid_tools: None,
            task_augmented: self.task_augmented,
            task: self.task,
        }
    }
}
