//! The tasks the remapper keeps (MCP 2025-11-25, and the Tasks extension of 2026-07-28; see
//! [`IdRemapper`]'s section on tasks): a task's live route after its `CreateTaskResult`,
//! which routes its progress and its `notifications/tasks/status` to its client (2025-11-25;
//! under the extension it routes nothing, and holds its client's place until the task is
//! seen to end or its ttl passes), and once the task has ended the record of its client,
//! kept until its ttl passes; and how they take, share and give up the table's places and
//! byte budget.

use core::hash::Hash;

use bytes::BytesMut;

use super::task_messages::{CreatedTask, ttl_ends};
use super::{Entry, Held, IdRemapper, Origin, held_bytes};
use crate::encode;
use crate::id::{Id, IdBuf};
use crate::mcp::{Task, methods};
use crate::message::Notification;
use crate::pending::Token;

/// A task's route, after the `CreateTaskResult` of the request that created it; once the
/// task has ended (or its route's deadline passed), the record of its client only.
pub(super) struct TaskRoute<C> {
    pub(super) client: C,
    /// The client's progress token, as it spelled it (`None`: it asked for no progress, or
    /// the route no longer routes it).
    pub(super) progress_token: Option<IdBuf>,
    /// The task id, as the upstream spelled it in its `CreateTaskResult`: kept here only
    /// (the map by task id keeps the route's token, and finds the route by this).
    pub(super) task_id: IdBuf,
    /// What it counts against the budget: the progress token and the task id, each as long
    /// as its spelling.
    pub(super) held: usize,
    /// Whether progress and the route's deadline are still the task's: its end not seen,
    /// its route's deadline not passed.
    pub(super) live: bool,
    /// When the task's ttl passes (the time its `CreateTaskResult` was routed, plus its
    /// ttl), when known: the record's deadline once the route is no longer live, and a
    /// bound on the live route's.
    pub(super) ttl_ends: Option<u64>,
    /// Whether the live route's deadline is the caller's (its request's, which progress
    /// moves, or one set on it); else it has none but its ttl's (as a task of the Tasks
    /// extension has, until the caller sets one).
    pub(super) timed: bool,
}

impl<C> TaskRoute<C> {
    /// The route no longer routes progress: its progress token goes, and the bytes it held
    /// are returned (for the remapper's count).
    fn end(&mut self) -> usize {
        let released = self
            .progress_token
            .take()
            .map_or(0, |t| t.as_id().raw().len());
        self.live = false;
        self.held -= released;
        released
    }
}

impl<C: Clone + Eq + Hash, T> IdRemapper<C, T> {
    /// Routes an upstream `notifications/tasks/status` (MCP 2025-11-25, decoded from
    /// `frame`) to the client whose request created the task (see [Tasks](Self#tasks)):
    /// appends the frame unchanged (task ids are the upstream's), and returns the task's
    /// token (to move its route's deadline, as for progress: once the task has ended,
    /// [`has_deadline`](Self::has_deadline) says `None` and its deadline is its ttl's) and the
    /// client. A terminal status (`completed`, `failed`, `cancelled`) ends the task: progress
    /// on its token is no longer routed, and the remapper keeps its client until its ttl
    /// passes. `None`, nothing written, for another notification (the Tasks extension's
    /// `notifications/tasks` of MCP 2026-07-28 among them: it comes on a
    /// `subscriptions/listen` stream, stamped with the listen request's token, and goes to
    /// that stream's client, its stamp restored, with
    /// [`route_subscription`](Self::route_subscription)) or a task the remapper does not
    /// keep.
    pub fn route_task_status(
        &mut self,
        frame: &[u8],
        notification: &Notification<'_>,
        out: &mut BytesMut,
    ) -> Option<(Token, C)> {
        // 2025-11-25's notification only: another's stamp would reach the client unrestored.
        if !notification.method.eq_str(methods::TASKS_STATUS) {
            return None;
        }
        let task = Task::from_notification(notification)?;
        let (token, client) = self.task_entry(task.id)?;
        let client = client.clone();
        encode::write_with_tokens(out, frame, []);
        if task.is_terminal() {
            self.end_task(token);
        }
        Some((token, client))
    }

    /// The live task routes (see [Tasks](Self#tasks)): the task's end not seen yet, its
    /// route's deadline not passed. (A task of the Tasks extension of MCP 2026-07-28 has a
    /// live route that routes no progress.)
    pub fn task_routes(&self) -> usize {
        self.live
    }

    /// The tasks whose client the remapper keeps (see [Tasks](Self#tasks)): the
    /// [routes](Self::task_routes), and the records of the tasks that ended, within their ttl.
    pub fn tasks(&self) -> usize {
        self.routes
    }

    /// The client whose request created the task `task_id` (a string id, compared as
    /// the remapper compares ids: `"a"` is `"\u0061"`), while the remapper keeps the task
    /// (see [Tasks](Self#tasks)); `None` for a task it does not keep.
    pub fn task_owner(&self, task_id: Id<'_>) -> Option<&C> {
        self.task_entry(task_id).map(|(_, client)| client)
    }

    /// The token of the task `task_id`'s entry, and its client.
    pub(super) fn task_entry(&self, task_id: Id<'_>) -> Option<(Token, &C)> {
        if self.routes == 0 {
            return None;
        }
        let token = self.task_ids.find(&self.pending, task_id)?;
        match &self.pending.get(token)?.held {
            Held::Task(route) => Some((token, &route.client)),
            Held::Request { .. } => None,
        }
    }

    /// Turns the request under `token` (in flight, task-augmented) into the route of the
    /// task its reply `created` (when the reply came at `now`), and returns its origin; `None`
    /// when the route would pass the byte budget even with every record of an ended task
    /// given up. A task that has ended already keeps no progress token: it needs the room of
    /// its record only (the caller ends it); nor does a task of the Tasks extension, which
    /// has no progress, and whose live route has no deadline but its ttl's (see
    /// [The Tasks extension](Self#the-tasks-extension-of-mcp-2026-07-28)). Records give up
    /// the room it needs, its client's own first ([`Self::make_room`]), and a task the
    /// remapper kept under the same id is forgotten first (it is gone upstream).
    pub(super) fn keep_route(
        &mut self,
        token: Token,
        created: &CreatedTask<'_>,
        now: Option<u64>,
    ) -> Option<Origin<C, T>> {
        let CreatedTask {
            id: task_id,
            ttl,
            ended,
            extension,
        } = *created;
        let Held::Request { origin, .. } = &self.pending.get(token)?.held else {
            return None;
        };
        let client = origin.client.clone();
        let progress_token = if ended || extension {
            None
        } else {
            origin.progress_token.clone()
        };
        let held =
            progress_token.as_ref().map_or(0, |t| t.as_id().raw().len()) + task_id.raw().len();
        let released = held_bytes(origin);
        // A task id the remapper keeps already names a task that is gone: the upstream gives
        // a new task an id no task it holds has (it may reuse one after its ttl, or after an
        // end the remapper did not see). The new task takes the id over; left with the old
        // client, the new task would be open to that client and closed to its own.
        let (old, place) = self.task_ids.lookup(&self.pending, task_id);
        if let Some(old) = old {
            self.forget_task(old);
        }
        if (self.bytes - released - self.ended_bytes).saturating_add(held) > self.max_bytes {
            return None;
        }
        // A live route counts against its client's share of the budget, as its request did
        // (a task ended already keeps only its record, which does not).
        if !ended && self.over_client_share(token, released, held)? {
            return None;
        }
        // The request's place becomes the route's: room for the bytes only.
        self.make_room(&client, false, held.saturating_sub(released));
        let requested = self.pending.deadline(token);
        // An extension task's live route keeps no deadline of its request's: nothing of the
        // task tells the caller the route's token to move it by (no progress; its statuses
        // come under a `tasks/get`'s token, or a listen stream's), and the route would turn
        // into a record its client's requests may give up while the task runs.
        let deadline = if extension { None } else { requested };
        let timed = deadline.is_some();
        let entry = self.pending.get_mut(token)?;
        if !matches!(entry.held, Held::Request { .. }) {
            return None;
        }
        let ttl_ends = now.and_then(|now| ttl_ends(now, ttl));
        let route = TaskRoute {
            client,
            progress_token,
            task_id: task_id.to_owned_id(),
            held,
            live: true,
            ttl_ends,
            timed,
        };
        let Held::Request { origin, .. } = core::mem::replace(&mut entry.held, Held::Task(route))
        else {
            return None;
        };
        self.by_client
            .remove(&origin.client, origin.id.as_id(), token);
        self.bytes = self.bytes - released + held;
        // The route takes its request's place in its client's count, with its own bytes.
        let entries = self
            .heads
            .get_mut(&origin.client)
            .expect("a client with entries has a list");
        entries.bytes = entries.bytes - released + held;
        self.task_ids.insert(&self.pending, place, token);
        self.routes += 1;
        self.live += 1;
        // A route ends at its task's ttl at the latest (one without a deadline of its own,
        // or with its request's past the ttl): the upstream may delete a task then without a
        // terminal status, and the route would hold its place until its client goes.
        let bounded = held_to_ttl(deadline, ttl_ends);
        if bounded != requested {
            self.pending.set_deadline(token, bounded);
        }
        Some(origin)
    }

    /// Whether the request under `token` (its client's, holding `released` bytes), turned into
    /// a route holding `held`, would pass its client's share of the byte budget
    /// ([`max_bytes_per_client`](Self::max_bytes_per_client)); `None` when it is no request.
    fn over_client_share(&self, token: Token, released: usize, held: usize) -> Option<bool> {
        let Held::Request { origin, .. } = &self.pending.get(token)?.held else {
            return None;
        };
        let (_, bytes) = self.client_counts(&origin.client);
        Some((bytes - released).saturating_add(held) > self.max_bytes_per_client)
    }

    /// The task under `token` has ended: its route no longer routes progress (its progress
    /// token's bytes are given back), no longer counts against its client's limits, and its
    /// client is kept until its ttl passes.
    pub(super) fn end_task(&mut self, token: Token) {
        let Some(Entry {
            held: Held::Task(route),
            ..
        }) = self.pending.get_mut(token)
        else {
            return;
        };
        if !route.live {
            return;
        }
        let counted = route.held;
        let released = route.end();
        let client = route.client.clone();
        let entries = self
            .heads
            .get_mut(&client)
            .expect("a client with entries has a list");
        entries.counted -= 1;
        entries.bytes -= counted;
        let ttl_ends = route.ttl_ends;
        self.bytes -= released;
        self.ended_bytes += route.held;
        self.live -= 1;
        self.pending.set_deadline(token, ttl_ends);
        self.record_ended(token, client);
    }

    /// Forgets the task under `token` (a route, or the record of a task that ended).
    pub(super) fn forget_task(&mut self, token: Token) {
        if let Some(Entry {
            held: Held::Task(_),
            ..
        }) = self.pending.get(token)
            && let Some(entry) = self.pending.cancel(token)
        {
            self.forget(token, entry);
        }
    }
}

/// A live task route's deadline: the one it is given (none: none of its own), never past its
/// task's ttl (`ttl_ends`, when known).
pub(super) fn held_to_ttl(deadline: Option<u64>, ttl_ends: Option<u64>) -> Option<u64> {
    match (deadline, ttl_ends) {
        (Some(d), Some(end)) => Some(d.min(end)),
        (d, end) => d.or(end),
    }
}
