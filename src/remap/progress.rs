//! Progress: the token a request's `params._meta.progressToken` goes upstream as, and the
//! route ([`ProgressRoute`]) an upstream `notifications/progress` takes back to its client.

use core::hash::Hash;

use bytes::BytesMut;

use super::{Held, IdRemapper, Origin, RemapError};
use crate::encode;
use crate::id::{Id, IdKind};
use crate::json::{JsonKind, Lookup};
use crate::mcp::reported_progress_token;
use crate::message::Notification;
use crate::pending::Token;

/// Where [`IdRemapper::route_progress`] sends an upstream progress notification.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ProgressRoute<'a, C, T = ()> {
    /// The token of the request (or of the task's route) the progress is for: give it to
    /// [`IdRemapper::set_deadline`] when progress resets a timeout.
    pub token: Token,
    /// The client to send the notification to.
    pub client: &'a C,
    /// The request, while it is in flight; `None` for a task's progress after its
    /// `CreateTaskResult` (the request was answered: its [`Origin`] went with its reply).
    pub request: Option<&'a Origin<C, T>>,
}

impl<C, T> Clone for ProgressRoute<'_, C, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C, T> Copy for ProgressRoute<'_, C, T> {}

impl<C: Clone + Eq + Hash, T> IdRemapper<C, T> {
    /// Routes an upstream `notifications/progress` (decoded from `frame`) on the token of a
    /// request in flight that asked for progress, or of a task it created (see
    /// [Tasks](Self#tasks)): appends the client-bound frame with the client's progress token
    /// restored, and returns the token (to move the deadline with
    /// [`set_deadline`](Self::set_deadline): MCP lets progress reset a timeout), the client
    /// to send it to, and the request while it is in flight. `None`, nothing written, for
    /// another notification or a token no such request or task carries (progress after the
    /// result, or after the task ended, or for a request that asked for none: MCP says to
    /// drop it).
    ///
    /// # Panics
    ///
    /// When `notification` was not decoded from `frame`.
    pub fn route_progress(
        &self,
        frame: &[u8],
        notification: &Notification<'_>,
        out: &mut BytesMut,
    ) -> Option<ProgressRoute<'_, C, T>> {
        let reported = reported_progress_token(notification)?;
        let token = Token::from_wire(reported.raw())?;
        let (client, theirs, request) = match &self.pending.get(token)?.held {
            Held::Request { origin, .. } => (
                &origin.client,
                origin.progress_token.as_ref()?,
                Some(origin),
            ),
            Held::Task(route) => (&route.client, route.progress_token.as_ref()?, None),
        };
        encode::write_with_id(out, frame, reported, theirs.as_id());
        Some(ProgressRoute {
            token,
            client,
            request,
        })
    }
}

/// The progress token to rewrite, from a request's `_meta.progressToken` member: `None` when
/// it asks for none (no `_meta.progressToken`, or `null`); an error when the token could be
/// read differently by the upstream than here (duplicated, unreadable, or not a string or a
/// number).
pub(super) fn progress_token_to_rewrite(member: Lookup<'_>) -> Result<Option<Id<'_>>, RemapError> {
    match member {
        Lookup::Absent => Ok(None),
        Lookup::Found(v) if v.kind() == JsonKind::Null => Ok(None),
        Lookup::Found(v) => match Id::from_token(v.as_bytes()) {
            Some(id) if id.kind() != IdKind::Null => Ok(Some(id)),
            _ => Err(RemapError::BadProgressToken),
        },
        Lookup::Ambiguous | Lookup::Malformed => Err(RemapError::BadProgressToken),
    }
}
