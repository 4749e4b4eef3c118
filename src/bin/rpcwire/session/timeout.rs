//! Timeouts: the deadlines of client requests and batches, and what expires at them.

use std::cmp::Reverse;
use std::sync::Arc;

use rpcwire::{Dialect, Id, IdBuf, IdKey};

use super::dir::slot;
use super::room::give_back;
use super::waiting::Waiting;
use super::{Dir, Session, Violation};

/// What timed out: a request sent alone, or what was left unanswered of a batch.
#[derive(Debug)]
pub enum Timeout {
    Request(Expired),
    Batch {
        requests: Vec<Expired>,
        /// The replies owed to its invalid elements, each with the id it carries (`None`:
        /// null): a -32600 each, as the server would have answered them.
        owed: Vec<Option<IdBuf>>,
    },
}

/// A request that timed out: the caller answers the client and cancels on the server.
#[derive(Debug)]
pub struct Expired {
    /// The client's id, which its reply carries.
    pub id: IdBuf,
    /// The id the server knows the request by, when the session minted one
    /// ([`Session::rewriting_reused_ids`]); its late reply carries that one.
    pub upstream_id: Option<IdBuf>,
    pub method: Arc<str>,
    /// Whether the server is to be told with MCP's `notifications/cancelled`: not for MCP's
    /// `initialize`, which "MUST NOT be cancelled", and not under plain JSON-RPC 2.0, which
    /// has no cancellation (a server of another protocol would read a stray notification).
    pub cancel_on_server: bool,
}

impl Expired {
    /// The id the server knows the request by (what a cancellation names).
    pub fn upstream(&self) -> Id<'_> {
        self.upstream_id.as_ref().unwrap_or(&self.id).as_id()
    }
}

/// When a client request, or a client batch, times out; ordered by time, then by arrival.
#[derive(Debug)]
pub(super) struct Deadline {
    pub(super) at: u64,
    pub(super) seq: u64,
    pub(super) of: DeadlineOf,
}

#[derive(Debug)]
pub(super) enum DeadlineOf {
    Request(IdBuf),
    /// The number of a batch in [`Session::batches`].
    Batch(u64),
}

impl PartialEq for Deadline {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Deadline {}

impl PartialOrd for Deadline {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Deadline {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

impl Session {
    /// Drops the deadlines of client requests no longer waiting, and of batches answered,
    /// once they outnumber the live ones: the heap then grows with the requests and batches in
    /// flight, not with their rate times the timeout (each prune is paid for by as many
    /// releases as it keeps entries).
    pub(super) fn prune_deadlines(&mut self) {
        let live = self.waiting[slot(Dir::C2s)].len()
            + self.queued[slot(Dir::C2s)].len()
            + self.batches.len();
        if self.deadlines.len() > 2 * live + 64 {
            let mut deadlines = std::mem::take(&mut self.deadlines);
            deadlines.retain(|Reverse(d)| self.is_live(d));
            give_back(&mut deadlines);
            self.deadlines = deadlines;
        }
    }

    /// Whether `d` is still to expire something: the deadline of a client request still
    /// waiting (or queued) under it, or of a batch not yet answered.
    fn is_live(&self, d: &Deadline) -> bool {
        match &d.of {
            DeadlineOf::Request(id) => {
                let id = id.as_id();
                self.waiting[slot(Dir::C2s)]
                    .get(id)
                    .is_some_and(|w| w.seq == d.seq)
                    || self.queued[slot(Dir::C2s)].holds(id, d.seq)
            }
            DeadlineOf::Batch(no) => self.batches.contains_key(no),
        }
    }

    /// The earliest deadline still to expire something, in the unit of [`Session::expire`]'s
    /// `now_ms`: when `expire` is next worth calling (`None`: none is). The deadlines of
    /// requests answered since, and of batches answered, are dropped on the way, so that a
    /// timer sleeping until it is not woken for nothing. A batch observed last counts once
    /// complete (as `expire` has it: call this after `expire`), and a deadline set later, by
    /// a message read later, is at least the whole timeout after that message.
    pub fn next_deadline(&mut self) -> Option<u64> {
        while let Some(Reverse(d)) = self.deadlines.peek() {
            if self.is_live(d) {
                return Some(d.at);
            }
            self.deadlines.pop();
            give_back(&mut self.deadlines);
        }
        None
    }

    /// Client requests and batches whose deadline passed by `now_ms` (the time rounded down
    /// to a whole millisecond, the arrivals having been rounded up: [`Session::observe`]):
    /// their requests still waiting removed, remembered for late replies, counted as timed
    /// out; a batch's owed replies no longer owed (the caller answers them).
    pub fn expire(&mut self, now_ms: u64) -> Vec<Timeout> {
        self.close_batch();
        let mut out = vec![];
        while self.deadlines.peek().is_some_and(|d| d.0.at <= now_ms) {
            let Some(Reverse(Deadline { seq, of, .. })) = self.deadlines.pop() else {
                break;
            };
            give_back(&mut self.deadlines);
            match of {
                DeadlineOf::Request(id) => {
                    let waits = self.waiting[slot(Dir::C2s)].get(id.as_id());
                    if waits.is_some_and(|w| w.seq == seq) {
                        out.extend(self.expire_request(id.as_id()).map(Timeout::Request));
                    }
                }
                DeadlineOf::Batch(no) => {
                    let (requests, owed) = self.take_rest_of_batch(no);
                    let requests: Vec<Expired> = requests
                        .into_iter()
                        .map(|(id, w)| self.timed_out(id, w))
                        .collect();
                    if !requests.is_empty() || !owed.is_empty() {
                        out.push(Timeout::Batch { requests, owed });
                    }
                }
            }
        }
        out
    }

    /// A client request timed out: removed, remembered for a late reply, counted.
    fn expire_request(&mut self, id: Id<'_>) -> Option<Expired> {
        let (id, w) = self.stop_waiting(id)?;
        Some(self.timed_out(id, w))
    }

    /// A client request, no longer waiting ([`Session::stop_waiting`]), timed out: counted.
    fn timed_out(&mut self, id: IdBuf, w: Waiting) -> Expired {
        let was_initialize = self.is_initialize_waiting(&w);
        self.flag(Dir::C2s, Violation::TimedOut);
        let (id, upstream_id) = match w.client_id {
            Some(client_id) => (*client_id, Some(id)),
            None => (id, None),
        };
        Expired {
            id,
            upstream_id,
            method: w.method,
            // (A batch's request too: MCP 2025-03-26's. JSON-RPC has no cancellation.)
            cancel_on_server: self.dialect == Dialect::Mcp && !was_initialize,
        }
    }

    /// A client request timed out at a time recorded elsewhere (replaying a proxy log): as
    /// [`Session::expire`] for that one id (the one the server knows it by, minted or the
    /// client's), a batch element that went untracked included. Returns whether it was
    /// waiting.
    ///
    /// The batch observed last is complete first, as [`Session::expire`] has it: the log may
    /// name one of its requests right after its elements, before any other message, and the
    /// batch's record then counts that request as no longer waiting (else the record, waiting
    /// for it still, would stay for the rest of the replay).
    pub fn time_out(&mut self, id: Id<'_>) -> bool {
        self.close_batch();
        if self.expire_request(id).is_some() {
            return true;
        }
        if self.untracked_elements.is_empty() {
            return false;
        }
        let Some((upstream, w)) = self.stop_untracked(&IdKey::of(id)) else {
            return false;
        };
        self.untracked_element_left(w.batch);
        self.timed_out(upstream, w);
        true
    }
}
