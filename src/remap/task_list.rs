//! A `tasks/list` result, which lists the tasks of every client sharing the upstream's
//! session, written for the client that asked with that client's tasks only (see
//! [`IdRemapper`]'s section on tasks).

use core::hash::Hash;

use bytes::BytesMut;

use super::task_messages::reply_value;
use super::{IdRemapper, Origin};
use crate::encode;
use crate::error::ErrorCode;
use crate::id::Id;
use crate::json::{JsonKind, Lookup, RawJson};
use crate::mcp::Task;

impl<C: Clone + Eq + Hash, T> IdRemapper<C, T> {
    /// Writes the reply to `origin`'s `tasks/list` (the whole `frame`, with id `reply_id`) for
    /// its client: the client's id restored, and `result.tasks` holding only the tasks the
    /// remapper keeps as this client's, each as the upstream wrote it, in its order. An error
    /// goes as is; a result whose `tasks` is not one array that reads to its end is answered
    /// -32603 instead (nothing of it is sent).
    pub(super) fn write_task_list(
        &self,
        frame: &[u8],
        reply_id: Id<'_>,
        origin: &Origin<C, T>,
        out: &mut BytesMut,
    ) {
        let theirs = origin.id.as_id();
        let list = match reply_value(frame).map(|reply| reply.lookup("result")) {
            Some(Lookup::Found(result)) => match result.lookup("tasks") {
                Lookup::Found(tasks) if tasks.kind() == JsonKind::Array => Some(tasks),
                _ => None,
            },
            // An error reply.
            Some(Lookup::Absent) => {
                encode::write_with_id(out, frame, reply_id, theirs);
                return;
            }
            Some(Lookup::Ambiguous | Lookup::Malformed) | None => None,
        };
        let mut elements = list.map(|tasks| tasks.elements());
        let filtered = elements.as_mut().is_some_and(|elements| {
            elements.by_ref().for_each(drop);
            !elements.stopped_early()
        });
        let (Some(tasks), true) = (list, filtered) else {
            let message = "the upstream's tasks/list result could not be filtered for its client";
            encode::write_error(out, theirs, ErrorCode::INTERNAL_ERROR, message, None);
            return;
        };
        // The id and the list, in the frame's order; the rest as it is.
        let (id, list) = (reply_id.raw(), tasks.as_bytes());
        let (id_at, list_at) = (encode::offset_in(frame, id), encode::offset_in(frame, list));
        let mut at = 0;
        let mut spans = [(id_at, id.len(), true), (list_at, list.len(), false)];
        spans.sort_unstable_by_key(|&(start, ..)| start);
        for (start, len, is_id) in spans {
            encode::write_raw_json(out, RawJson::trusted(&frame[at..start]));
            if is_id {
                out.extend_from_slice(theirs.raw());
            } else {
                out.extend_from_slice(b"[");
                let mut first = true;
                for task in tasks.elements() {
                    let owned = Task::from_object(task)
                        .and_then(|task| self.task_owner(task.id))
                        .is_some_and(|owner| *owner == origin.client);
                    if owned {
                        if !first {
                            out.extend_from_slice(b",");
                        }
                        first = false;
                        encode::write_raw_json(out, task);
                    }
                }
                out.extend_from_slice(b"]");
            }
            at = start + len;
        }
        encode::write_raw_json(out, RawJson::trusted(&frame[at..]));
        out.extend_from_slice(b"\n");
    }
}
