//! What MCP's task messages (2025-11-25, and the Tasks extension of 2026-07-28) say: what a request's reply may tell about tasks
//! ([`Kind`], which also marks a `subscriptions/listen` stream and an `initialize`), the task
//! a request names, and what a reply tells of a task (created, ended, unknown to the
//! upstream).

use super::RemapError;
use crate::error::ErrorCode;
use crate::id::Id;
use crate::json::{JsonKind, Lookup, RawJson};
use crate::mcp::{Task, methods, related_task, task_member_asks_for_task};
use crate::message::Request;
use crate::pending::Token;

/// What a request's reply may tell about tasks (MCP 2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Nothing.
    Plain,
    /// A request of plain JSON-RPC traffic ([`IdRemapper::dialect`]): nothing of it but its
    /// id was read, and nothing but its reply goes back on its token (no stream's
    /// notification, no progress).
    ///
    /// [`IdRemapper::dialect`]: super::IdRemapper::dialect
    JsonRpc,
    /// `params.task` is an object (or ambiguous), or the request declares the Tasks
    /// extension of MCP 2026-07-28 in its capabilities: a `CreateTaskResult` may answer it.
    TaskAugmented,
    /// `tasks/get` or `tasks/cancel`: the result is the task, its status perhaps terminal.
    /// For a task of the client's own, `task` is its entry's token: a -32602 error says the
    /// upstream no longer knows the task (`tasks/get`), or that the task has ended or is gone
    /// (`tasks/cancel`).
    TaskQuery { get: bool, task: Option<Token> },
    /// `tasks/result`: any reply comes once the task has ended (or is gone upstream), a
    /// result naming it in `_meta`. For a task of the client's own, `task` is its entry's
    /// token: any reply, result or error, ends its route.
    TaskResult { task: Option<Token> },
    /// `tasks/update` (the Tasks extension of MCP 2026-07-28: the client's `inputResponses`
    /// to a task waiting for input): checked as the other task requests are, its reply (an
    /// empty acknowledgement) telling nothing of the task.
    TaskUpdate,
    /// `tasks/list`: the result lists every client's tasks, to filter.
    TaskList,
    /// `initialize`, which a client "**MUST NOT**" cancel: its cancellation is not forwarded
    /// ([`IdRemapper::forward_cancel`]).
    ///
    /// [`IdRemapper::forward_cancel`]: super::IdRemapper::forward_cancel
    Initialize,
    /// `subscriptions/listen` (MCP 2026-07-28): a stream the upstream may tear down with a
    /// `notifications/cancelled` naming it ([`IdRemapper::route_stream_cancel`]).
    ///
    /// [`IdRemapper::route_stream_cancel`]: super::IdRemapper::route_stream_cancel
    Listen,
}

/// What the reply to `req` may tell about tasks, from its method, its `params.task` member
/// and its declaration of the Tasks extension (`extension`: its client capabilities'
/// `extensions["io.modelcontextprotocol/tasks"]`).
///
/// The method first: a `tasks/get`, `tasks/result`, `tasks/cancel` or `tasks/update` is one
/// whatever else its `params` hold (a `task` member must not spare it the check of its task's
/// client).
pub(super) fn kind_of(req: &Request<'_>, task: Lookup<'_>, extension: Lookup<'_>) -> Kind {
    let method = &req.method;
    if method.eq_str(methods::TASKS_GET) {
        return Kind::TaskQuery {
            get: true,
            task: None,
        };
    }
    if method.eq_str(methods::TASKS_CANCEL) {
        return Kind::TaskQuery {
            get: false,
            task: None,
        };
    }
    if method.eq_str(methods::TASKS_RESULT) {
        return Kind::TaskResult { task: None };
    }
    if method.eq_str(methods::TASKS_UPDATE) {
        return Kind::TaskUpdate;
    }
    if method.eq_str(methods::TASKS_LIST) {
        return Kind::TaskList;
    }
    if method.eq_str(methods::SUBSCRIPTIONS_LISTEN) {
        return Kind::Listen;
    }
    if method.eq_str(methods::INITIALIZE) {
        return Kind::Initialize;
    }
    // The extension's capability, in any form the upstream may read as declared: a
    // `CreateTaskResult` may answer the request (the server is "the sole decider").
    if task_member_asks_for_task(task) || extension != Lookup::Absent {
        Kind::TaskAugmented
    } else {
        Kind::Plain
    }
}

/// The task a `tasks/get`, `tasks/result`, `tasks/cancel` or `tasks/update` names: its `params.taskId`, one
/// string, else [`RemapError::BadTaskId`].
pub(super) fn requested_task<'a>(req: &Request<'a>) -> Result<Id<'a>, RemapError> {
    let Some(Lookup::Found(id)) = req.params.map(|p| p.lookup("taskId")) else {
        return Err(RemapError::BadTaskId);
    };
    id.as_str().ok_or(RemapError::BadTaskId)?;
    Id::from_token(id.as_bytes()).ok_or(RemapError::BadTaskId)
}

/// The tasks a `subscriptions/listen` asks the status notifications of (the Tasks extension
/// of MCP 2026-07-28: its `params.notifications.taskIds`, "a list of task IDs the client is
/// interested in"), each a string's token, or [`RemapError::BadTaskId`] for an element that
/// is not a string: none when it names none. [`RemapError::BadTaskId`] when the list is not
/// one array that reads to its end (given twice, another type, malformed), which the
/// upstream might read as tasks the remapper did not check.
pub(super) fn listened_tasks<'a>(
    req: &Request<'a>,
) -> Result<impl Iterator<Item = Result<Id<'a>, RemapError>> + use<'a>, RemapError> {
    let list = match req.params.map_or(Lookup::Absent, |p| {
        p.lookup_path(&["notifications", "taskIds"])
    }) {
        Lookup::Absent => None,
        Lookup::Found(list) if list.kind() == JsonKind::Array => {
            let mut elements = list.elements();
            elements.by_ref().for_each(drop);
            if elements.stopped_early() {
                return Err(RemapError::BadTaskId);
            }
            Some(list)
        }
        Lookup::Found(_) | Lookup::Ambiguous | Lookup::Malformed => {
            return Err(RemapError::BadTaskId);
        }
    };
    Ok(list
        .into_iter()
        .flat_map(|list| list.elements())
        .map(|task_id| {
            task_id.as_str().ok_or(RemapError::BadTaskId)?;
            Id::from_token(task_id.as_bytes()).ok_or(RemapError::BadTaskId)
        }))
}

/// A reply (the whole `frame`, which its decoder read) as one value, however deep:
/// [`RawJson::new`]'s limit is a value's, one level under the decoder's for a frame (which
/// counts the envelope), and a decoder may be given a higher one.
pub(super) fn reply_value(frame: &[u8]) -> Option<RawJson<'_>> {
    RawJson::with_max_depth(frame, u32::MAX)
}

/// A task a reply created ([`created_task`]).
#[derive(Clone, Copy)]
pub(super) struct CreatedTask<'a> {
    /// Its id.
    pub(super) id: Id<'a>,
    /// Its ttl member (2025-11-25's `ttl`, the extension's `ttlMs`).
    pub(super) ttl: Option<RawJson<'a>>,
    /// Whether its status is terminal already: it leaves its record only, no live route.
    pub(super) ended: bool,
    /// Whether it is a task of the Tasks extension of MCP 2026-07-28: its live route routes
    /// no progress, and has no deadline but its ttl's (see [`IdRemapper`]'s section on the
    /// extension).
    ///
    /// [`IdRemapper`]: super::IdRemapper
    pub(super) extension: bool,
}

/// The task a reply (the whole `frame`) to a task-augmented request created. `None` for any
/// other reply (an error, a plain result).
///
/// - MCP 2025-11-25: the `CreateTaskResult`'s `result.task`, its `ttl`.
/// - The Tasks extension of MCP 2026-07-28: a result whose `resultType` is `"task"` ("Servers
///   **MUST** set `resultType` to `"task"` when returning a `CreateTaskResult`") is the task
///   itself (`CreateTaskResult = Result & Task`), its ttl `ttlMs`. Its live route routes no
///   progress: "`notifications/progress` and `notifications/message` notifications [...]
///   are not supported on tasks in general in this specification", and its status
///   notifications come on a `subscriptions/listen` stream, routed as the stream's.
///
/// Either ends at once when its status is terminal already.
pub(super) fn created_task(frame: &[u8]) -> Option<CreatedTask<'_>> {
    let result = reply_value(frame)?.get("result")?;
    let [result_type, object] = result.lookup_each(["resultType", "task"]);
    if let Lookup::Found(result_type) = result_type
        && result_type.as_str().is_some_and(|t| t.eq_str("task"))
    {
        let task = Task::from_object(result)?;
        return Some(CreatedTask {
            id: task.id,
            ttl: result.get("ttlMs"),
            ended: task.is_terminal(),
            extension: true,
        });
    }
    let Lookup::Found(object) = object else {
        return None;
    };
    let task = Task::from_object(object)?;
    Some(CreatedTask {
        id: task.id,
        ttl: object.get("ttl"),
        ended: task.is_terminal(),
        extension: false,
    })
}

/// When a task created at `now` may be deleted: `now` plus its `ttl` member (Task's "actual
/// retention duration from creation in milliseconds, null for unlimited"). `None`, kept
/// until its client goes, for `null` (or a ttl missing or unreadable, which no receiver
/// sends: the record is the client's safety, better kept too long than too short).
pub(super) fn ttl_ends(now: u64, ttl: Option<RawJson<'_>>) -> Option<u64> {
    let ttl = ttl?;
    let ms = match ttl.as_i64() {
        Some(ms) => u64::try_from(ms).unwrap_or(0),
        None => {
            let ms = ttl.as_f64().filter(|ms| ms.is_finite())?;
            // `as` saturates; a fraction of a millisecond more.
            (ms.max(0.0) as u64).saturating_add(1)
        }
    };
    Some(now.saturating_add(ms))
}

/// Whether a reply (the whole `frame`) is an error with code -32602 (Invalid params): MCP's
/// answer to a `tasks/get` of an "invalid or nonexistent `taskId`".
pub(super) fn is_invalid_params(frame: &[u8]) -> bool {
    reply_value(frame)
        .and_then(|reply| reply.get("error")?.get("code")?.as_i64())
        .is_some_and(|code| code == ErrorCode::INVALID_PARAMS.get())
}

/// The task a reply (the whole `frame`) to a request of `kind` tells has ended: a `tasks/get`
/// or `tasks/cancel` result with a terminal status (the result is the task: 2025-11-25's
/// `GetTaskResult` and `CancelTaskResult`, the Tasks extension's `GetTaskResult = Result &
/// DetailedTask`; the extension's `tasks/cancel` result, "an empty acknowledgement", tells
/// none), or a `tasks/result` result (which comes once its task has ended), by the task id
/// in its `_meta`.
pub(super) fn ended_task(frame: &[u8], kind: Kind) -> Option<Id<'_>> {
    let result = match kind {
        Kind::TaskQuery { .. } | Kind::TaskResult { .. } => reply_value(frame)?.get("result")?,
        Kind::Plain
        | Kind::JsonRpc
        | Kind::TaskAugmented
        | Kind::TaskUpdate
        | Kind::TaskList
        | Kind::Listen
        | Kind::Initialize => {
            return None;
        }
    };
    match kind {
        Kind::TaskQuery { .. } => {
            let task = Task::from_object(result)?;
            task.is_terminal().then_some(task.id)
        }
        _ => related_task(result),
    }
}
