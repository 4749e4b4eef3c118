//! Tasks: a `Task` object ([`Task`]), the task a message belongs to ([`related_task`]), and
//! whether a request asks for one ([`is_task_augmented`]).

use crate::id::Id;
use crate::json::{JsonKind, JsonStr, Lookup, RawJson};
use crate::message::{Notification, Request};

use super::{meta_keys, methods};

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
