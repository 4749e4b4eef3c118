//! JSON-RPC batches: what each batch from the client leaves to answer, and the elements of a
//! batch observed one by one.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use rpcwire::{IdBuf, IdKey};

use super::dir::slot;
use super::kind::{rejected_violation, rejected_violation_of};
use super::room::give_back;
use super::timeout::{Deadline, DeadlineOf};
use super::waiting::Waiting;
use super::{Dir, Observation, Session, Verdict};

/// A client batch with something left to answer: one array answers a batch (JSON-RPC 2.0
/// §6), so when the proxy answers in the server's place (at the batch's deadline, or in place
/// of a dropped server array that answered it) it answers all it can of the batch in one
/// array of its own, and the server's, coming later, holds only late replies.
#[derive(Debug, Default)]
pub(super) struct BatchWait {
    /// Its requests still waiting, by their number ([`Waiting::seq`], in the order they
    /// came): the id each waits by (taken when the proxy answers what is left of it). Each
    /// copy counts against the budget of the requests waiting, as its request's extra bytes
    /// (its spelling, beside the one the table holds). A request that stops waiting takes its
    /// own out at once ([`Session::release`]), as its table gives its bytes back: a record
    /// kept by one thing left does not hold the ids of the rest of its batch, outside every
    /// budget.
    ///
    /// [`Session::release`]: super::Session::release
    pub(super) requests: BTreeMap<u64, IdBuf>,
    /// Its invalid elements whose replies are still owed with an id, by their place among
    /// them: the id each reply carries, as spelled (counted against the budget of the replies
    /// owed: [`OwedReplies`], whose entry knows its place here and takes its spelling out
    /// when it goes); taken when the proxy answers them.
    ///
    /// [`OwedReplies`]: super::owed::OwedReplies
    pub(super) owed: BTreeMap<u64, IdBuf>,
    /// How many of its replies owed carry a null id (to elements whose id could not be read):
    /// a count, not an entry each (a batch of a million `1`s owes a million).
    pub(super) owed_without_id: usize,
    /// The place the next reply owed with an id takes in `owed`.
    next_owed_place: u64,
    /// How many of its elements that went untracked (beyond the limits of the requests in
    /// flight) and were kept still wait ([`UntrackedElements`], which holds them, and finds
    /// them by batch when the proxy answers what is left of it: a copy of their ids here
    /// would be outside the bounds of theirs).
    ///
    /// [`UntrackedElements`]: super::untracked::UntrackedElements
    pub(super) untracked_left: usize,
}

impl BatchWait {
    /// Whether nothing of the batch is left to answer (the server's array came, or the proxy
    /// answered in place of a dropped one): its record then goes at once, so that records do
    /// not pile up with the rate of batches times the timeout.
    fn is_answered(&self) -> bool {
        self.requests.is_empty()
            && self.owed.is_empty()
            && self.owed_without_id == 0
            && self.untracked_left == 0
    }

    /// The place of the next reply owed with an id (places are never reused).
    fn take_owed_place(&mut self) -> u64 {
        let place = self.next_owed_place;
        self.next_owed_place += 1;
        place
    }

    /// The reply owed at `place` ([`WITHOUT_ID`]: one with a null id) is owed no more.
    pub(super) fn owed_answered(&mut self, place: u64) {
        if place == WITHOUT_ID {
            self.owed_without_id = self.owed_without_id.saturating_sub(1);
        } else {
            self.owed.remove(&place);
        }
    }
}

/// The place an owed reply with a null id is recorded at in [`OwedReplies`]: its batch's
/// record counts such replies, and holds no entry for them.
///
/// [`OwedReplies`]: super::owed::OwedReplies
pub(super) const WITHOUT_ID: u64 = u64::MAX;

/// What a dropped server batch answered, which the caller answers in its place, in one array
/// for each client batch ([`Session::take_answered_in_place`]): all that was left of the
/// client batches it held a reply to: their requests still waiting (a -32603 each), and the
/// replies still owed to their invalid elements (a -32600 each, with the id it carries;
/// `None`: null).
#[derive(Debug, Default)]
pub struct InPlace {
    /// The requests, by id.
    pub requests: Vec<IdBuf>,
    /// The owed replies, by the id each carries (`None`: null).
    pub owed: Vec<Option<IdBuf>>,
    /// Where each client batch's part ends in `requests` and in `owed`, in order: one array
    /// answers one batch (JSON-RPC 2.0 §6), so a dropped array holding replies to two
    /// batches is answered with two.
    pub ends: Vec<(usize, usize)>,
}

/// What is known of the batch last observed in a direction ([`Session::batch_forwards`]).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BatchForward {
    /// The receiver needs an element.
    needed: bool,
    /// The batch is dropped whatever its elements ([`Session::drop_batch`]).
    dropped: bool,
}

impl Session {
    /// The client batch last observed is complete: it is kept while it holds a request in
    /// flight or an owed reply, with a deadline under a timeout.
    pub(super) fn close_batch(&mut self) {
        let Some((no, at, wait)) = self.open_batch.take() else {
            return;
        };
        if wait.is_answered() {
            return;
        }
        self.batches.insert(no, wait);
        let Some(t) = self.timeout_ms else {
            return;
        };
        // (A number of its own: batches with the same deadline expire in the order they
        // came, each forgetting the oldest owed replies.)
        self.seq += 1;
        self.deadlines.push(Reverse(Deadline {
            at: at.saturating_add(t),
            seq: self.seq,
            of: DeadlineOf::Batch(no),
        }));
    }

    /// Whether the batch last observed in `dir` goes on, once all its elements are: it is
    /// never split, so it goes on whole when the receiver needs any element (it holds more
    /// than late replies and malformed responses), unless it was dropped. (The caller
    /// rebuilds it without its late replies, and with the ids the session rewrote:
    /// [`Verdict::forward_id`].)
    pub fn batch_forwards(&self, dir: Dir) -> bool {
        let b = self.batch_forward[slot(dir)];
        b.needed && !b.dropped
    }

    /// Drops the batch just observed in `dir`, before its elements: they are then counted,
    /// and an invalid one reported, but none has any effect (no request goes in flight, no
    /// reply resolves its request, which keeps waiting and may time out). For a batch from
    /// the server with an invalid element: the client gets valid messages only
    /// ([`drops_batch`](Self::drops_batch)).
    pub fn drop_batch(&mut self, dir: Dir) {
        self.batch_forward[slot(dir)].dropped = true;
    }

    /// Whether a batch travelling in `dir` whose elements are of the kinds `kinds` is dropped
    /// whole: one from the server holding anything invalid.
    pub fn drops_batch<'k>(dir: Dir, mut kinds: impl Iterator<Item = &'k str>) -> bool {
        dir == Dir::S2c && kinds.any(|k| rejected_violation_of(k).is_some())
    }

    /// Records one element of the batch last observed in `dir` (JSON-RPC 2.0 §6) as a message
    /// of its own: a request goes in flight, a reply resolves its request, and each breach is
    /// a violation of this element. The batch travels whole (never split), so the verdict's
    /// `forward` says whether the receiver needs this element:
    /// - an invalid element is a violation, but the receiver answers it itself in its reply
    ///   to the batch (§6), so that reply is owed and matched, never reported;
    /// - a request beyond the limit of requests in flight is a violation and goes with its
    ///   batch untracked (its reply is reported as `unknown_reply` unless it was kept, below):
    ///   it cannot be refused alone, and refusing its batch would leave the others
    ///   unanswered. When the
    ///   server may still answer its id for another request, it goes under a minted id (a
    ///   session rewriting reused ids: [`Verdict::forward_id`]), and its reply goes back with
    ///   the client's. It is kept all the same, within bounds of its own
    ///   ([`UntrackedElements`](super::untracked::UntrackedElements)), until its reply
    ///   comes: its reply is then no violation, the proxy answers a client's with what is
    ///   left of its batch (at its deadline, or in place of a dropped array), and one never
    ///   answered is unanswered at the end;
    /// - everything else as for a message sent alone.
    pub fn observe_element(&mut self, dir: Dir, o: &Observation<'_>, now_ms: u64) -> Verdict {
        self.count_message(dir, o.kind);
        let verdict = if self.batch_forward[slot(dir)].dropped {
            self.answer_in_place_of(dir, o);
            Verdict {
                forward: false,
                violation: rejected_violation_of(o.kind).and_then(|v| self.flag(dir, v)),
                forward_id: None,
            }
        } else {
            self.check_element(dir, o, now_ms)
        };
        self.batch_forward[slot(dir)].needed |= verdict.forward;
        verdict
    }

    /// A reply inside a dropped batch to a request sent in a batch, or to an invalid element
    /// of one: the dropped array was the server's answer to that batch (one array answers a
    /// batch), and it never reaches the client, whose requests would wait until their batch's
    /// deadline (forever without one). So the caller answers, in one array, all that is left of
    /// that batch ([`take_answered_in_place`](Self::take_answered_in_place)): its requests
    /// still waiting wait no more, its replies still owed are owed no more, and the server's
    /// replies to them, coming later, are late. (A request sent alone keeps waiting, and times
    /// out.)
    fn answer_in_place_of(&mut self, dir: Dir, o: &Observation<'_>) {
        // Only the server's batches are dropped: the requests they answer are the client's.
        let reply = matches!(o.kind, "success_response" | "error_response");
        if dir != Dir::S2c || !reply {
            return;
        }
        let id = o.id.filter(|id| !id.is_null());
        let request_batch = id.and_then(|id| self.waiting[slot(Dir::C2s)].get(id));
        // (A request sent alone is not answered in an array: an owed reply of its id first.)
        let batch = match request_batch.map(|w| w.batch).filter(|&batch| batch != 0) {
            Some(batch) => batch,
            None => {
                let key = id.map(IdKey::of);
                let owed = &self.owed_element_replies[slot(Dir::C2s)];
                let untracked = &self.untracked_elements;
                owed.oldest_batch(key.as_ref())
                    .or_else(|| untracked.batch_of(key.as_ref()?))
                    .unwrap_or(0)
            }
        };
        if batch == 0 {
            return;
        }
        let (requests, owed) = self.take_rest_of_batch(batch);
        let answered = &mut self.answered_in_place;
        // Each with the client's id (a request forwarded under a minted id keeps that one
        // in the table).
        answered.requests.extend(
            requests
                .into_iter()
                .map(|(id, mut w)| w.take_client_id().unwrap_or(id)),
        );
        answered.owed.extend(owed);
        let end = (answered.requests.len(), answered.owed.len());
        if answered.ends.last().map_or((0, 0), |&last| last) != end {
            answered.ends.push(end);
        }
    }

    /// What the last dropped batch answered, which the caller now answers itself, in one
    /// array.
    pub fn take_answered_in_place(&mut self) -> InPlace {
        std::mem::take(&mut self.answered_in_place)
    }

    /// What is left unanswered of the client batch `no`, which the proxy answers itself now
    /// (at its deadline, or in place of a dropped array): its requests still waiting, removed
    /// (each remembered for a late reply), and the id each of its replies still owed carries
    /// (`None`: null), owed no more. The batch's record goes.
    pub(super) fn take_rest_of_batch(
        &mut self,
        no: u64,
    ) -> (Vec<(IdBuf, Waiting)>, Vec<Option<IdBuf>>) {
        let Some(wait) = self.batches.remove(&no) else {
            return (vec![], vec![]);
        };
        give_back(&mut self.batches);
        let without_id = std::iter::repeat_n(None, wait.owed_without_id);
        let owed = wait
            .owed
            .into_values()
            .map(Some)
            .chain(without_id)
            .filter(|id| {
                self.forget_owed(id.as_ref().map(IdBuf::as_id), Some(no))
                    .is_some()
            })
            .collect();
        let mut requests = vec![];
        for (seq, id) in &wait.requests {
            let waits = self.waiting[slot(Dir::C2s)].get(id.as_id());
            if waits.is_some_and(|w| w.batch == no && w.seq == *seq) {
                requests.extend(self.stop_waiting(id.as_id()));
            }
        }
        for key in self.untracked_elements.keys_of_batch(no) {
            requests.extend(self.stop_untracked(&key));
        }
        (requests, owed)
    }

    fn check_element(&mut self, dir: Dir, o: &Observation<'_>, now_ms: u64) -> Verdict {
        match o.kind {
            "invalid" | "parse_error" => {
                // The reply carries the element's id when it could be read (a parse error's
                // never: its id is not trusted). Bounded like the requests in flight.
                let id = o.id.filter(|_| o.kind == "invalid");
                let batch = self.open_batch_no(dir);
                // Its spelling, kept in its batch's record (a client batch has one), counts
                // against the budget with its key, which does not bound it (`1.000…` keys as
                // 1), as the requests in flight count their ids.
                let spelled = match (id, batch) {
                    (Some(id), 1..) => id.raw().len(),
                    _ => 0,
                };
                let place = match (&mut self.open_batch, batch, id) {
                    (Some((_, _, wait)), 1.., Some(_)) => wait.take_owed_place(),
                    _ => WITHOUT_ID,
                };
                let owed = self.owed_element_replies[slot(dir)].push(
                    id.map(IdKey::of),
                    spelled,
                    (batch, place),
                    self.max_in_flight,
                    self.max_owed_bytes,
                );
                if let (true, Some((_, _, wait)), 1..) = (owed, &mut self.open_batch, batch) {
                    match id {
                        Some(id) => {
                            wait.owed.insert(place, id.to_owned_id());
                        }
                        None => wait.owed_without_id += 1,
                    }
                }
                Verdict {
                    forward: true,
                    violation: self.flag(dir, rejected_violation(o.kind)),
                    forward_id: None,
                }
            }
            _ => {
                let mut verdict = self.check(dir, o, now_ms, true);
                // A request goes on with its batch whatever it breaks (the proxy answers no
                // element itself: the receiver's array does), untracked: one beyond the
                // limits of the requests in flight, and under MCP one reusing an id in flight
                // (`duplicate_id`). So the receiver needs it: a batch holding nothing else
                // goes on too, and does not wait unanswered.
                if o.kind == "request" {
                    verdict.forward = true;
                }
                verdict
            }
        }
    }

    /// A request, owed reply or kept element of the client batch `no` was answered (or
    /// cancelled, or the proxy answered it): `part` counts it off the batch's record, which
    /// goes once nothing of it is left. The batch may still be open (its sender cancelled a
    /// request of its own in it, MCP): its record then counts it as well, and is kept only if
    /// something is left when it closes ([`Session::close_batch`]).
    pub(super) fn batch_part_answered(&mut self, no: u64, part: impl FnOnce(&mut BatchWait)) {
        if let Some((open, _, wait)) = &mut self.open_batch
            && *open == no
        {
            part(wait);
            return;
        }
        let Some(batch) = self.batches.get_mut(&no) else {
            return;
        };
        part(batch);
        if batch.is_answered() {
            self.batches.remove(&no);
            give_back(&mut self.batches);
        }
    }

    /// The number of the client batch being observed ([`BatchWait`]) when `dir` is the
    /// client's; 0 otherwise.
    pub(super) fn open_batch_no(&self, dir: Dir) -> u64 {
        match (&self.open_batch, dir) {
            (Some((no, ..)), Dir::C2s) => *no,
            _ => 0,
        }
    }
}

#[cfg(test)]
impl Session {
    /// The bytes of the ids the client batches' records hold (the open batch's included), as
    /// spelled: computed from what they hold.
    pub(super) fn batch_record_id_bytes(&self) -> usize {
        let open = self.open_batch.iter().map(|(_, _, wait)| wait);
        open.chain(self.batches.values())
            .map(|wait| {
                let requests: usize = wait
                    .requests
                    .values()
                    .map(|id| id.as_id().raw().len())
                    .sum();
                let owed: usize = wait.owed.values().map(|id| id.as_id().raw().len()).sum();
                requests + owed
            })
            .sum()
    }
}
