//! Deadlines: requests expiring, task routes ending and ended tasks' records forgotten when
//! theirs pass, and the caller moving a request's deadline (as progress resets a timeout).

use core::hash::Hash;

use super::tasks::held_to_ttl;
use super::{Entry, Held, IdRemapper, Origin};
use crate::pending::Token;
// For the docs' links only.
#[cfg(doc)]
use crate::pending::PendingTable;

impl<C: Clone + Eq + Hash, T> IdRemapper<C, T> {
    /// Requests whose deadline is ≤ `now`, removed: answer each client locally and send the
    /// upstream a cancellation for the token (not for `initialize`, which MCP forbids
    /// cancelling). Task routes whose deadline is ≤ `now` end on the way (their progress is
    /// no longer routed; their tasks' clients are kept until the tasks' ttl passes), tasks
    /// whose ttl has passed are forgotten, and neither is handed out.
    ///
    /// `now` is on the caller's monotonic clock and should not go backwards, as for
    /// [`PendingTable::expire`]: a `now` smaller than an earlier call's finds nothing new (a
    /// request given a deadline before that earlier `now` falls due at the first call whose
    /// `now` is at least the earlier one).
    ///
    /// An [`Origin`] does not say which method its request was: a gateway that forwards a
    /// client's `initialize` keeps that in the request's value
    /// ([`forward_request_with`](Self::forward_request_with)), to send no cancellation for
    /// it here, nor when [`drop_client`](Self::drop_client) hands it back.
    ///
    /// ```
    /// use bytes::BytesMut;
    /// use rpcwire::{mcp, Decoder, IdRemapper, Message};
    ///
    /// let mut remap = IdRemapper::new(16);
    /// let mut upstream = BytesMut::new();
    /// for frame in [
    ///     &br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#[..],
    ///     br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    /// ] {
    ///     let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else { panic!() };
    ///     let initialize = req.method.eq_str(mcp::methods::INITIALIZE);
    ///     remap.forward_request_with("a", initialize, frame, &req, Some(1_000), &mut upstream).unwrap();
    /// }
    /// upstream.clear();
    /// let expired: Vec<_> = remap.expire(1_000).collect();
    /// for (token, origin) in expired {
    ///     if !origin.value {
    ///         mcp::write_cancelled_token(&mut upstream, token, Some("timed out"));
    ///     }
    /// }
    /// // One cancellation: the `tools/list`'s (token 2), none for the `initialize`.
    /// assert_eq!(&upstream[..], &br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"timed out"}}
    /// "#[..]);
    /// ```
    // The one `expect` cannot fail: `pop_due` hands out the tokens of entries in the table.
    #[allow(clippy::missing_panics_doc)]
    pub fn expire(&mut self, now: u64) -> impl Iterator<Item = (Token, Origin<C, T>)> + '_ {
        // One due request at a time, each forgotten as it is handed out: one not handed out
        // (the iterator dropped early) stays in flight, due at the next call.
        core::iter::from_fn(move || {
            loop {
                let token = self.pending.pop_due(now)?;
                if let Some(Entry {
                    held: Held::Task(route),
                    ..
                }) = self.pending.get(token)
                {
                    // A live route past its deadline ends in place, under its token (a
                    // `tasks/get` in flight names it by that token); its record stays until its
                    // ttl.
                    if route.live && route.ttl_ends.is_none_or(|ends| ends > now) {
                        self.end_task(token);
                        continue;
                    }
                }
                let entry = self
                    .pending
                    .cancel(token)
                    .expect("a due entry is in the table");
                if let Some(origin) = self.forget(token, entry) {
                    return Some((token, origin));
                }
            }
        })
    }

    /// Gives the request under `token` a new deadline, or none: MCP lets progress reset a
    /// request's timeout ([`route_progress`](Self::route_progress) gives the token). `false`
    /// when it is not in flight. A request forwarded without a deadline (a listen stream)
    /// should keep none: ask [`has_deadline`](Self::has_deadline) first.
    /// A task's live route (see [Tasks](Self#tasks)) counts as in flight, its deadline
    /// never past its task's ttl (when known); a task that has ended does not (its deadline
    /// is its ttl's).
    pub fn set_deadline(&mut self, token: Token, deadline: Option<u64>) -> bool {
        let deadline = match self.pending.get_mut(token) {
            Some(Entry {
                held: Held::Task(route),
                ..
            }) if route.live => {
                route.timed = deadline.is_some();
                held_to_ttl(deadline, route.ttl_ends)
            }
            _ => deadline,
        };
        self.is_timed(token) && self.pending.set_deadline(token, deadline)
    }

    /// Whether the request under `token` has a deadline (see [`PendingTable::has_deadline`]):
    /// progress on a request without one (a listen stream) must not give it one. `None` when
    /// it is not in flight, as for [`set_deadline`](Self::set_deadline). For a task's live
    /// route, whether it has a deadline of the caller's (its request's, or one set on it): a
    /// route whose only deadline is its task's ttl says `false`.
    pub fn has_deadline(&self, token: Token) -> Option<bool> {
        match self.pending.get(token) {
            // (A live route without one of its own may have its ttl's.)
            Some(Entry {
                held: Held::Task(route),
                ..
            }) if route.live => Some(route.timed),
            _ if self.is_timed(token) => self.pending.has_deadline(token),
            _ => None,
        }
    }

    /// Whether `token` names a request in flight or a live task route: an entry whose
    /// deadline the caller moves.
    fn is_timed(&self, token: Token) -> bool {
        match self.pending.get(token) {
            Some(Entry {
                held: Held::Task(route),
                ..
            }) => route.live,
            Some(_) => true,
            None => false,
        }
    }

    /// When to call [`expire`](Self::expire) next (see [`PendingTable::next_wakeup`]).
    pub fn next_wakeup(&self) -> Option<u64> {
        self.pending.next_wakeup()
    }
}
