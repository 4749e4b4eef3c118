//! What the session is told of a `check` record, and the telling: the same for a proxy log's
//! records and for the two streams' messages.

use rpcwire::Id;

use crate::check::Record;
use crate::session::{Dir, Observation, Session, Violation};

/// A record's wire token (an id, a progress token) as an [`Id`].
pub(super) fn wire_id(token: &Option<String>) -> Option<Id<'_>> {
    token.as_deref().and_then(|t| Id::from_token(t.as_bytes()))
}

/// What the session is told of a record.
pub(super) fn observation(r: &Record) -> Observation<'_> {
    Observation {
        kind: r.kind,
        id: wire_id(&r.id),
        method: r.method.as_deref(),
        error_code: r.error_code,
        cancels: wire_id(&r.cancels),
        protocol_version: r.protocol_version.as_deref(),
        progress_token: wire_id(&r.progress_token),
        progress: r.progress,
        params_fault: r.params_fault,
        subscription: wire_id(&r.subscription),
        invalid_tools: r.invalid_tools.as_deref(),
        task_augmented: r.task_augmented,
        task: r
            .task
            .as_ref()
            .and_then(|(id, ended)| Some((Id::from_token(id.as_bytes())?, *ended))),
    }
}

/// Records one message in the session (a batch element, when the record is one).
pub(super) fn observe(
    session: &mut Session,
    dir: Dir,
    r: &Record,
    now_ms: u64,
) -> Option<Violation> {
    let obs = observation(r);
    match r.element {
        Some(_) => session.observe_element(dir, &obs, now_ms).violation,
        None => session.observe(dir, &obs, now_ms).violation,
    }
}
