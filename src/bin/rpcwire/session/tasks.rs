//! MCP's tasks (2025-11-25, experimental) as far as progress goes: the progress token of a
//! task-augmented request stays active after the `CreateTaskResult` that answers it, until
//! the task ends. The revision's progress utility says:
//!
//! > For task-augmented requests, the `progressToken` provided in the original request
//! > **MUST** continue to be used for progress notifications throughout the task's lifetime,
//! > even after the `CreateTaskResult` has been returned. The progress token remains valid
//! > and associated with the task until the task reaches a terminal status.
//!
//! MCP 2026-07-28's official Tasks extension keeps no token active: its requests carry no
//! `params.task`, its `CreateTaskResult` no `result.task`, and "`notifications/progress` and
//! `notifications/message` notifications [...] are not supported on tasks in general in this
//! specification". Its `notifications/tasks` is read as a task's status all the same.

use std::collections::HashMap;

use rpcwire::mcp::{self, Task, methods};
use rpcwire::{Id, IdKey, Message};

/// What a reply tells of a task, by the request it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskReply {
    /// The reply to a task-augmented request: a `CreateTaskResult` holds the new task in
    /// `result.task`.
    Created,
    /// The reply to `tasks/get` or `tasks/cancel`: the result is the task itself.
    Queried,
    /// The reply to `tasks/result`: the task's result, which comes once the task has ended,
    /// naming the task in `_meta` (`io.modelcontextprotocol/related-task`).
    Result,
}

impl TaskReply {
    /// What the reply to a request of `method` tells of a task, when it is one of the task
    /// requests (`None` for any other method).
    pub(super) fn of_task_request(method: &str) -> Option<TaskReply> {
        match method {
            methods::TASKS_GET | methods::TASKS_CANCEL => Some(TaskReply::Queried),
            methods::TASKS_RESULT => Some(TaskReply::Result),
            _ => None,
        }
    }

    /// The task a success `msg` of this kind tells of: its id (a string's token), and whether
    /// it has ended. `None` when the reply names no task that can be read.
    pub fn task_of<'a>(self, msg: &Message<'a>) -> Option<(Id<'a>, bool)> {
        let Message::Response(r) = msg else {
            return None;
        };
        let task = match self {
            TaskReply::Created => Task::from_object(r.result.get("task")?)?,
            TaskReply::Queried => Task::from_object(r.result)?,
            TaskReply::Result => return Some((mcp::related_task(r.result)?, true)),
        };
        Some(id_and_ended(task))
    }
}

/// The task a `notifications/tasks/status` (MCP 2025-11-25) or a `notifications/tasks` (the
/// Tasks extension of 2026-07-28) tells of (its `params` are the whole task): its id,
/// and whether its status is terminal. `None` for another message, or one whose task id cannot
/// be read.
pub(super) fn task_of_status<'a>(msg: &Message<'a>) -> Option<(Id<'a>, bool)> {
    match msg {
        Message::Notification(n) => Task::from_notification(n).map(id_and_ended),
        _ => None,
    }
}

/// A task as the session keeps it: its id, and whether it has ended.
fn id_and_ended(task: Task<'_>) -> (Id<'_>, bool) {
    (task.id, task.is_terminal())
}

/// How many tasks keep their progress tokens in each direction, at most: beyond it, a new
/// task's token ends with its `CreateTaskResult`, as any request's does with its reply.
pub(super) const MAX_TASKS: usize = 4096;

/// How many bytes of task ids and progress tokens the tasks keep in each direction, at most.
pub(super) const MAX_TASK_BYTES: usize = 1 << 20;

/// The tasks of one direction's requests whose progress tokens are active: each task's id and
/// the token of the request that created it, within [`MAX_TASKS`] and [`MAX_TASK_BYTES`].
#[derive(Debug, Default)]
pub(super) struct TaskTokens {
    by_task: HashMap<IdKey, IdKey>,
    bytes: usize,
}

impl TaskTokens {
    /// Whether no task keeps a token.
    pub(super) fn is_empty(&self) -> bool {
        self.by_task.is_empty()
    }

    /// Keeps `token` active for `task`. `Err(token)`, keeping nothing, beyond the bounds;
    /// `Ok(Some(old))` when `task` held a token already (task ids are unique among a
    /// receiver's tasks: the old one is the caller's to release).
    pub(super) fn keep(&mut self, task: IdKey, token: IdKey) -> Result<Option<IdKey>, IdKey> {
        let bytes = task.encoded_len() + token.encoded_len();
        // A token held for `task` already gives its place and its bytes to the new one.
        let held = self.by_task.get(&task);
        let held_bytes = held.map_or(0, |old| task.encoded_len() + old.encoded_len());
        let others = self.by_task.len() - usize::from(held.is_some());
        if others >= MAX_TASKS || self.bytes - held_bytes + bytes > MAX_TASK_BYTES {
            return Err(token);
        }
        self.bytes += bytes;
        let old = self.by_task.insert(task.clone(), token);
        if let Some(old) = &old {
            self.bytes -= task.encoded_len() + old.encoded_len();
        }
        Ok(old)
    }

    /// Ends `task`: the token it kept active, if any.
    pub(super) fn end(&mut self, task: &IdKey) -> Option<IdKey> {
        let token = self.by_task.remove(task)?;
        self.bytes -= task.encoded_len() + token.encoded_len();
        Some(token)
    }
}

#[cfg(test)]
impl TaskTokens {
    /// The token each task keeps active (a token two tasks keep, twice).
    pub(super) fn tokens(&self) -> impl Iterator<Item = &IdKey> {
        self.by_task.values()
    }

    /// Panics unless the bytes counted are those of the task ids and tokens kept.
    pub(super) fn assert_consistent(&self) {
        let bytes: usize = self
            .by_task
            .iter()
            .map(|(task, token)| task.encoded_len() + token.encoded_len())
            .sum();
        assert_eq!(self.bytes, bytes, "bytes of the tasks' tokens");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpcwire::Decoder;

    fn key(token: &str) -> IdKey {
        IdKey::of(Id::from_token(token.as_bytes()).unwrap())
    }

    /// What each reply tells of its task, as MCP 2025-11-25's messages hold it: a
    /// `CreateTaskResult`'s `result.task`, a `tasks/get` result (the task itself), a
    /// `tasks/result` result naming its task in `_meta` (ended by then). A task id that is
    /// not a string ("Task IDs **MUST** be a string value") names no task.
    #[test]
    fn replies_tell_of_their_task() {
        let decoder = Decoder::mcp_client();
        let told = |reply: TaskReply, frame: &str| {
            let msg = decoder.decode(frame.as_bytes()).unwrap();
            reply
                .task_of(&msg)
                .map(|(id, ended)| (String::from_utf8(id.raw().to_vec()).unwrap(), ended))
        };
        let created =
            r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working"}}}"#;
        assert_eq!(
            told(TaskReply::Created, created),
            Some(("\"t\"".into(), false))
        );
        let numeric =
            r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":7,"status":"working"}}}"#;
        assert_eq!(told(TaskReply::Created, numeric), None);
        let plain = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        assert_eq!(told(TaskReply::Created, plain), None);
        for (status, ended) in [
            ("working", false),
            ("input_required", false),
            ("completed", true),
            ("failed", true),
            ("cancelled", true),
        ] {
            let got = format!(
                r#"{{"jsonrpc":"2.0","id":2,"result":{{"taskId":"t","status":"{status}"}}}}"#
            );
            assert_eq!(
                told(TaskReply::Queried, &got),
                Some(("\"t\"".into(), ended)),
                "{status}"
            );
        }
        let result = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t"}}}}"#;
        assert_eq!(
            told(TaskReply::Result, result),
            Some(("\"t\"".into(), true))
        );
        assert_eq!(told(TaskReply::Result, plain), None);
    }

    /// A request asking progress is task-augmented by its `params.task` object, as the
    /// library's remapper reads it: never a `tasks/get` (or another task method), whose reply
    /// is the task itself, to read as one ([`TaskReply::Queried`]), not a `CreateTaskResult`.
    #[test]
    fn task_methods_are_never_task_augmented() {
        let decoder = Decoder::mcp();
        let augmented = |method: &str| {
            let frame = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"taskId":"t","task":{{}},"_meta":{{"progressToken":"p"}}}}}}"#
            );
            let msg = decoder.decode(frame.as_bytes()).unwrap();
            crate::session::Described::of_message(&msg, true).task_augmented
        };
        assert!(augmented("tools/call"));
        for method in [
            "tasks/get",
            "tasks/result",
            "tasks/cancel",
            "tasks/list",
            "tasks/update",
        ] {
            assert!(!augmented(method), "{method}");
        }
    }

    /// At most [`MAX_TASKS`] tasks keep a token, and their ids and tokens take at most
    /// [`MAX_TASK_BYTES`]; ending one makes room, and a task id kept again hands back the
    /// token it held.
    #[test]
    fn task_tokens_are_bounded() {
        let mut tasks = TaskTokens::default();
        for n in 0..MAX_TASKS {
            assert_eq!(tasks.keep(key(&format!("\"t{n}\"")), key("1")), Ok(None));
        }
        assert_eq!(tasks.keep(key("\"over\""), key("2")), Err(key("2")));
        assert_eq!(tasks.keep(key("\"t0\""), key("3")), Ok(Some(key("1"))));
        assert_eq!(tasks.end(&key("\"t1\"")), Some(key("1")));
        assert_eq!(tasks.end(&key("\"t1\"")), None);
        assert_eq!(tasks.keep(key("\"over\""), key("2")), Ok(None));

        // Three task ids of 300 000 bytes fit in the bytes, a fourth does not.
        let long = |c: &str| key(&format!("\"{}\"", c.repeat(300_000)));
        let mut tasks = TaskTokens::default();
        for c in ["a", "b", "c"] {
            assert_eq!(tasks.keep(long(c), key("1")), Ok(None));
        }
        assert_eq!(tasks.keep(long("d"), key("2")), Err(key("2")));
        assert_eq!(tasks.end(&long("a")), Some(key("1")));
        assert_eq!(tasks.keep(long("d"), key("2")), Ok(None));
        // A task kept again counts its new token in place of its old one: within the bytes
        // when that fits, refused (the old one still held) when it does not.
        let token_of_len = |len: usize| {
            let overhead = key("\"\"").encoded_len();
            let token = key(&format!("\"{}\"", "p".repeat(len - overhead)));
            assert_eq!(token.encoded_len(), len);
            token
        };
        let room = MAX_TASK_BYTES - tasks.bytes + key("1").encoded_len();
        // (`is_err`: a failed comparison would print the whole token.)
        assert!(tasks.keep(long("b"), token_of_len(room + 1)).is_err());
        assert_eq!(
            tasks.keep(long("b"), token_of_len(room)),
            Ok(Some(key("1")))
        );
        assert_eq!(tasks.bytes, MAX_TASK_BYTES);
    }
}
