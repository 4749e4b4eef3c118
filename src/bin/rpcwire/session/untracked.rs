//! Client batch elements beyond the limits of the requests in flight, forwarded untracked
//! with their batch: those whose id the server may still answer for another request go under
//! an id the session minted, so that the server's reply to one is told from any other, and
//! goes back with the client's id ([`UntrackedRewrites`]); and each, minted or not, is kept
//! within bounds of its own until its reply comes ([`UntrackedElements`]), so that its batch's
//! timeout answers it and, never answered, it is reported at the end. The server's batch
//! elements beyond the limits are kept likewise (under their own ids, with no deadline). While
//! an element is kept its sender's id is in use, as a request's waiting is (a request reusing
//! it is a duplicate), and a reply with the id it went under answers it. An element its sender
//! cancels (MCP) is kept no more, as a cancelled request waits no more.

use std::collections::{BTreeMap, HashMap, VecDeque};

use rpcwire::{Id, IdBuf, IdKey};

use super::recent::{RECENT, RECENT_BYTES};
use super::waiting::Waiting;
use super::{Dir, Session};

/// The batch elements one side sent that went untracked (beyond `--max-in-flight` or the byte
/// budget of the requests in flight) and still wait for their reply, by the id they went to
/// the peer under (a client's may be minted): at most [`RECENT`] of them at once,
/// [`RECENT_BYTES`] of ids, so that the limits of the requests in flight still bound what the
/// session holds. An element past these bounds is not kept (nothing answers a client's at its
/// batch's deadline, nor is it reported at the end), nor is one whose id another element kept
/// holds.
///
/// Every copy of an element's ids is here, and counted, for as long as the element is kept:
/// its client batch finds it through [`by_batch`](Self::by_batch) (the batch's record keeps
/// only how many wait), and a request reusing its sender's id through
/// [`sender_ids`](Self::sender_ids).
#[derive(Debug, Default)]
pub(super) struct UntrackedElements {
    /// Each element: the id it went to the peer under, and what a request waiting holds
    /// (its batch, its method, the client's id when the id was minted).
    waiting: HashMap<IdKey, (IdBuf, Waiting)>,
    /// The elements of each client batch (not the server's: batch 0), in the order they came
    /// (by [`Waiting::seq`]), by the id they went under: what the proxy answers, in that
    /// order, when it answers what is left of a batch.
    by_batch: HashMap<u64, BTreeMap<u64, IdKey>>,
    /// The client's own ids of the elements kept under an id minted in their place, with how
    /// many are kept under each ([`Waiting::client_id`]): its sender may not reuse one of them
    /// while the element waits ([`UntrackedElements::holds_sender_id`]).
    sender_ids: HashMap<IdKey, u32>,
    /// The bytes of the ids in `waiting`, `by_batch` and `sender_ids`.
    bytes: usize,
}

/// The bytes an element's ids count: the key and spelling of the id it went under (and the
/// key again in its batch's set, for a client batch's element), and the client's id as spelled
/// and as keyed when that one was minted.
fn element_cost(key: &IdKey, upstream: &IdBuf, waiting: &Waiting) -> usize {
    let in_batch_set = if waiting.batch != 0 {
        key.encoded_len()
    } else {
        0
    };
    let sender = waiting.client_id.as_ref().map_or(0, |id| {
        id.as_id().raw().len() + IdKey::of(id.as_id()).encoded_len()
    });
    key.encoded_len() + in_batch_set + upstream.as_id().raw().len() + sender
}

impl UntrackedElements {
    /// Keeps the element that went to the server under `upstream` until its reply comes.
    /// Returns whether it was kept: not beyond the bounds, nor when an element kept holds the
    /// id.
    pub(super) fn push(&mut self, upstream: IdBuf, waiting: Waiting) -> bool {
        let key = IdKey::of(upstream.as_id());
        let bytes = element_cost(&key, &upstream, &waiting);
        if self.waiting.len() >= RECENT
            || self.bytes + bytes > RECENT_BYTES
            || self.waiting.contains_key(&key)
        {
            return false;
        }
        self.bytes += bytes;
        if waiting.batch != 0 {
            let batch = self.by_batch.entry(waiting.batch).or_default();
            batch.insert(waiting.seq, key.clone());
        }
        if let Some(client_id) = &waiting.client_id {
            *self
                .sender_ids
                .entry(IdKey::of(client_id.as_id()))
                .or_default() += 1;
        }
        self.waiting.insert(key, (upstream, waiting));
        true
    }

    /// Whether no element is kept (checked before an id's key is built).
    pub(super) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Whether an element is kept under `key`: the server may still answer it.
    pub(super) fn contains(&self, key: &IdKey) -> bool {
        self.waiting.contains_key(key)
    }

    /// Whether an element kept holds `key` as its sender's own id: one kept under it as it
    /// came, or under an id minted in its place (which the sender never sent, and which does
    /// not count), as a request waiting holds its id ([`Session::sender_reuses`]).
    pub(super) fn holds_sender_id(&self, key: &IdKey) -> bool {
        let as_sent = self
            .waiting
            .get(key)
            .is_some_and(|(_, w)| w.client_id.is_none());
        as_sent || self.sender_ids.contains_key(key)
    }

    /// The number of the batch of the element kept under `key`.
    pub(super) fn batch_of(&self, key: &IdKey) -> Option<u64> {
        self.waiting.get(key).map(|(_, w)| w.batch)
    }

    /// The ids the elements of the client batch `batch` still kept went under, in the order
    /// the elements came.
    pub(super) fn keys_of_batch(&self, batch: u64) -> Vec<IdKey> {
        self.by_batch
            .get(&batch)
            .map_or_else(Vec::new, |keys| keys.values().cloned().collect())
    }

    /// The element kept under `key`, taken: its reply came, or the proxy answers it.
    pub(super) fn take(&mut self, key: &IdKey) -> Option<(IdBuf, Waiting)> {
        let (upstream, waiting) = self.waiting.remove(key)?;
        self.bytes -= element_cost(key, &upstream, &waiting);
        if let Some(batch) = self.by_batch.get_mut(&waiting.batch) {
            batch.remove(&waiting.seq);
            if batch.is_empty() {
                self.by_batch.remove(&waiting.batch);
            }
        }
        if let Some(client_id) = &waiting.client_id {
            let client_key = IdKey::of(client_id.as_id());
            if let Some(n) = self.sender_ids.get_mut(&client_key) {
                *n -= 1;
                if *n == 0 {
                    self.sender_ids.remove(&client_key);
                }
            }
        }
        Some((upstream, waiting))
    }

    /// Every element kept, taken (the session ended).
    pub(super) fn drain(&mut self) -> impl Iterator<Item = (IdBuf, Waiting)> + '_ {
        self.bytes = 0;
        self.by_batch.clear();
        self.sender_ids.clear();
        self.waiting.drain().map(|(_, element)| element)
    }
}

/// The client's ids of the untracked batch elements forwarded under a minted id, by that id,
/// each taken by the first reply carrying it: the last [`RECENT`] of them, at most
/// [`RECENT_BYTES`] of ids (the minted id's key and the client's id as spelled), the oldest
/// forgotten first. An element past these bounds is not tracked at all, as beyond
/// `--max-in-flight` (a reply to it then carries the minted id to the client, as unknown,
/// unless the element itself is kept: [`UntrackedElements`], which keeps the client's id).
#[derive(Debug, Default)]
pub(super) struct UntrackedRewrites {
    /// The client's id of each element, by the id minted for it.
    client_ids: HashMap<IdKey, IdBuf>,
    /// The minted ids in the order they were minted, oldest first; one already answered is
    /// skipped when met (at most [`RECENT`] of them in all).
    order: VecDeque<IdKey>,
    /// The bytes of the ids in `client_ids`.
    bytes: usize,
}

/// The bytes an element's ids count: the minted id's key, the client's id as spelled.
fn cost(minted: &IdKey, client_id: &IdBuf) -> usize {
    minted.encoded_len() + client_id.as_id().raw().len()
}

impl UntrackedRewrites {
    /// Remembers that the element of `client_id` went to the server under `minted` (an id
    /// no other request holds), forgetting the oldest beyond the bounds. Returns whether it
    /// was remembered: not when its ids alone pass the byte budget.
    pub(super) fn push(&mut self, minted: IdKey, client_id: IdBuf) -> bool {
        let bytes = cost(&minted, &client_id);
        if bytes > RECENT_BYTES {
            return false;
        }
        self.bytes += bytes;
        self.order.push_back(minted.clone());
        self.client_ids.insert(minted, client_id);
        while self.order.len() > RECENT || self.bytes > RECENT_BYTES {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(client_id) = self.client_ids.remove(&oldest) {
                self.bytes -= cost(&oldest, &client_id);
            }
        }
        true
    }

    /// Whether no element waits for its reply (checked before an id's key is built).
    pub(super) fn is_empty(&self) -> bool {
        self.client_ids.is_empty()
    }

    /// Whether an element went to the server under `minted` and was not answered yet.
    pub(super) fn contains(&self, minted: &IdKey) -> bool {
        self.client_ids.contains_key(minted)
    }

    /// The client's id of the element forwarded under `minted`, taken: its reply came.
    pub(super) fn take(&mut self, minted: &IdKey) -> Option<IdBuf> {
        let client_id = self.client_ids.remove(minted)?;
        self.bytes -= cost(minted, &client_id);
        Some(client_id)
    }
}

impl Session {
    /// A session that keeps the client's batch elements that go untracked until their reply
    /// comes (`keep`, the default), or not: the replay of a log of a proxy that did not (its
    /// header lacks `keeps_untracked_elements`), which neither answered them at their batch's
    /// deadline nor reported them unanswered.
    pub fn keeping_untracked_elements(mut self, keep: bool) -> Session {
        self.keeps_untracked = keep;
        self
    }

    /// A session that keeps the server's batch elements that go untracked until the
    /// client's reply comes (`keep`, the default), or not: the replay of a log of a proxy
    /// that did not (its header lacks `keeps_untracked_server_elements`), which took their
    /// replies for unknown ones and did not report them unanswered.
    pub fn keeping_untracked_server_elements(mut self, keep: bool) -> Session {
        self.keeps_untracked_server = keep;
        self
    }

    /// The reply to the request sent in `asked` under `id` came, and matched no request
    /// waiting: when it is a batch element's that went untracked, kept, the element waits no
    /// more, and is returned.
    pub(super) fn untracked_answered(&mut self, asked: Dir, id: Id<'_>) -> Option<Waiting> {
        if self.kept(asked).is_empty() {
            return None;
        }
        let (_, w) = self.take_kept(asked, &IdKey::of(id))?;
        if asked == Dir::C2s {
            self.untracked_element_left(w.batch);
        }
        Some(w)
    }

    /// The batch elements sent in `dir` that went untracked and are kept.
    pub(super) fn kept(&self, dir: Dir) -> &UntrackedElements {
        match dir {
            Dir::C2s => &self.untracked_elements,
            Dir::S2c => &self.untracked_server_elements,
        }
    }

    /// Takes the element sent in `dir` kept under `key`: it stopped waiting, as a request
    /// taken from the table does, and is counted so ([`Session::stopped_waiting`]).
    fn take_kept(&mut self, dir: Dir, key: &IdKey) -> Option<(IdBuf, Waiting)> {
        let kept = match dir {
            Dir::C2s => &mut self.untracked_elements,
            Dir::S2c => &mut self.untracked_server_elements,
        };
        let taken = kept.take(key)?;
        // (A kept element carries no progress token.)
        self.stopped(dir, || (key.clone(), None));
        Some(taken)
    }

    /// Its sender cancelled a batch element of its own that went untracked and was kept
    /// (MCP's `notifications/cancelled`, naming `id`): it ends as a cancelled request in the
    /// table does. It is kept no more (its bytes given back), a client's batch no longer waits
    /// for it (its deadline does not answer it), and it is remembered for its late reply, and
    /// as an id its sender gave up on. Found by the id named, as a request in the table is:
    /// the id it went to the peer under, which under MCP is always its sender's own (ids are
    /// minted under JSON-RPC only, which has no cancellation; the proxy forwards a
    /// cancellation's `requestId` as it came).
    pub(super) fn cancel_untracked(&mut self, dir: Dir, id: Id<'_>) {
        if self.kept(dir).is_empty() {
            return;
        }
        let key = IdKey::of(id);
        match dir {
            Dir::C2s => {
                if let Some((_, w)) = self.stop_untracked(&key) {
                    self.untracked_element_left(w.batch);
                    self.prune_deadlines();
                }
            }
            Dir::S2c => {
                if self.take_kept(Dir::S2c, &key).is_some() {
                    self.remember(Dir::S2c, key, None);
                }
            }
        }
    }

    /// A kept element of the client batch `batch` waits no more (answered, cancelled, timed
    /// out): its batch's record waits for one fewer.
    pub(super) fn untracked_element_left(&mut self, batch: u64) {
        self.batch_part_answered(batch, |batch| {
            batch.untracked_left = batch.untracked_left.saturating_sub(1);
        });
    }

    /// A client batch element that went untracked, kept under `key`, which the proxy answers
    /// itself (its batch timed out, or a dropped array answered it): taken, and remembered
    /// for a late reply, which then neither goes back with the client's id nor answers a
    /// request of the element's id.
    pub(super) fn stop_untracked(&mut self, key: &IdKey) -> Option<(IdBuf, Waiting)> {
        let (upstream, waiting) = self.take_kept(Dir::C2s, key)?;
        self.untracked_rewrites.take(key);
        let client_key = waiting.client_id.as_ref().map(|id| IdKey::of(id.as_id()));
        self.remember(Dir::C2s, key.clone(), client_key);
        Some((upstream, waiting))
    }
}

#[cfg(test)]
impl UntrackedElements {
    /// Every element kept: the key of the id it went under, and what it waits with.
    pub(super) fn elements(&self) -> impl Iterator<Item = (&IdKey, &Waiting)> {
        self.waiting.iter().map(|(key, (_, w))| (key, w))
    }

    /// Panics unless what the elements' records count agrees with what they hold: the bytes
    /// of their ids ([`element_cost`]), each client batch's set of its elements, and the
    /// count of the elements kept under each sender's id minted over.
    pub(super) fn assert_consistent(&self) {
        let bytes: usize = self
            .waiting
            .iter()
            .map(|(key, (upstream, w))| element_cost(key, upstream, w))
            .sum();
        assert_eq!(self.bytes, bytes, "bytes of the elements kept");
        let mut by_batch: HashMap<u64, BTreeMap<u64, IdKey>> = HashMap::new();
        let mut sender_ids: HashMap<IdKey, u32> = HashMap::new();
        for (key, (_, w)) in &self.waiting {
            if w.batch != 0 {
                by_batch
                    .entry(w.batch)
                    .or_default()
                    .insert(w.seq, key.clone());
            }
            if let Some(client_id) = &w.client_id {
                *sender_ids.entry(IdKey::of(client_id.as_id())).or_default() += 1;
            }
        }
        assert_eq!(self.by_batch, by_batch, "elements kept by batch");
        assert_eq!(
            self.sender_ids, sender_ids,
            "senders' ids of the elements kept"
        );
    }
}

#[cfg(test)]
impl Session {
    /// The bytes of the ids held for the client's batch elements kept, wherever they are held
    /// (their spellings and keys, as [`element_cost`] counts them), computed from what is held
    /// rather than from the count kept of it.
    pub(super) fn kept_id_bytes(&self) -> usize {
        let kept = &self.untracked_elements;
        let elements: usize = kept
            .waiting
            .iter()
            .map(|(key, (upstream, w))| {
                let client_id = w.client_id.as_ref().map_or(0, |id| id.as_id().raw().len());
                key.encoded_len() + upstream.as_id().raw().len() + client_id
            })
            .sum();
        let by_batch: usize = kept
            .by_batch
            .values()
            .flat_map(|keys| keys.values())
            .map(IdKey::encoded_len)
            .sum();
        let sender_ids: usize = kept.sender_ids.keys().map(IdKey::encoded_len).sum();
        elements + by_batch + sender_ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(token: &str) -> IdKey {
        IdKey::of(Id::from_token(token.as_bytes()).unwrap())
    }

    fn buf(token: &str) -> IdBuf {
        Id::from_token(token.as_bytes()).unwrap().to_owned_id()
    }

    /// An element waiting in batch `batch`, sent as `client` (when its id was minted).
    fn element(batch: u64, client: Option<&str>) -> Waiting {
        Waiting {
            method: "m".into(),
            seq: batch,
            progress_token: None,
            in_batch: true,
            batch,
            names_version: false,
            lists_tools: false,
            task_augmented: false,
            client_id: client.map(|id| Box::new(buf(id))),
            untracked_in_arrays: 0,
        }
    }

    /// Elements are kept up to [`RECENT`] at once, or [`RECENT_BYTES`] of ids, each once by
    /// the id it went under; one beyond is refused (not evicting an older one, which its
    /// batch's deadline is still to answer), and one taken gives its room back.
    #[test]
    fn untracked_elements_are_kept_within_bounds() {
        let mut kept = UntrackedElements::default();
        assert!(kept.push(buf("1"), element(1, None)));
        assert!(!kept.push(buf("1"), element(2, None)), "one by id");
        assert_eq!(kept.batch_of(&key("1")), Some(1));
        for n in 2..=RECENT {
            assert!(kept.push(buf(&n.to_string()), element(1, Some("7"))));
        }
        assert!(!kept.push(buf("0"), element(1, None)), "past RECENT");
        let (upstream, w) = kept.take(&key("2")).unwrap();
        assert_eq!(
            (upstream.to_string(), w.client_id.unwrap().to_string()),
            ("2".into(), "7".into())
        );
        assert!(kept.push(buf("0"), element(1, None)));
        assert_eq!(kept.drain().count(), RECENT);
        assert_eq!((kept.bytes, kept.is_empty()), (0, true));
        let long = |n: usize| buf(&format!("\"{n:0>65000}\""));
        let mut n = 0;
        while kept.push(long(n), element(1, None)) {
            n += 1;
        }
        assert!(
            kept.bytes <= RECENT_BYTES && n < 20,
            "{n} of {} bytes",
            kept.bytes
        );
        assert!(kept.take(&key(&format!("\"{:0>65000}\"", 0))).is_some());
        assert!(kept.push(long(n), element(1, None)));
    }

    /// An element is found by its batch, in the order the batch's elements came, and by its
    /// sender's id (as sent, or the client's in place of which its id was minted, not the
    /// minted one), each for as long as it is kept, every copy of its ids counted.
    #[test]
    fn untracked_elements_are_found_by_batch_and_by_sender_id() {
        let mut kept = UntrackedElements::default();
        let in_batch = |batch, seq, client| Waiting {
            seq,
            ..element(batch, client)
        };
        assert!(kept.push(buf("30"), in_batch(2, 30, None)));
        assert!(kept.push(buf("10"), in_batch(2, 10, Some("7"))));
        assert!(kept.push(buf("20"), in_batch(3, 20, None)));
        assert_eq!(kept.keys_of_batch(2), [key("10"), key("30")]);
        assert_eq!(kept.keys_of_batch(3), [key("20")]);
        assert!(kept.keys_of_batch(4).is_empty());
        assert!(kept.holds_sender_id(&key("30")) && kept.holds_sender_id(&key("7")));
        assert!(!kept.holds_sender_id(&key("10")), "minted");
        let ids = |token: &str| 2 * key(token).encoded_len() + token.len();
        let minted = ids("10") + 1 + key("7").encoded_len();
        assert_eq!(kept.bytes, ids("30") + minted + ids("20"));
        kept.take(&key("10"));
        assert!(!kept.holds_sender_id(&key("7")));
        assert_eq!(kept.keys_of_batch(2), [key("30")]);
        kept.take(&key("30"));
        assert!(kept.keys_of_batch(2).is_empty() && !kept.by_batch.contains_key(&2));
        assert_eq!(kept.bytes, ids("20"));
        kept.drain().count();
        assert!(kept.by_batch.is_empty() && kept.sender_ids.is_empty());
    }

    /// Each element is answered once; the oldest are forgotten beyond [`RECENT`] entries, or
    /// [`RECENT_BYTES`] of ids, and an element whose ids alone pass that is not remembered.
    #[test]
    fn untracked_rewrites_are_taken_once_and_bounded() {
        let mut rewrites = UntrackedRewrites::default();
        assert!(rewrites.push(key("100"), buf("7")));
        assert!(rewrites.contains(&key("100")) && !rewrites.contains(&key("7")));
        assert_eq!(
            rewrites.take(&key("100")).map(|id| id.to_string()),
            Some("7".into())
        );
        assert!(rewrites.take(&key("100")).is_none());
        assert_eq!(rewrites.bytes, 0);
        for n in 0..RECENT + 1 {
            assert!(rewrites.push(key(&(1000 + n).to_string()), buf("7")));
        }
        assert!(!rewrites.contains(&key("1000")) && rewrites.contains(&key("1001")));
        assert!(rewrites.order.len() <= RECENT);
        let long = |n: usize| buf(&format!("\"{n:0>65000}\""));
        for n in 0..100 {
            assert!(rewrites.push(key(&(5000 + n).to_string()), long(n)));
        }
        assert!(rewrites.bytes <= RECENT_BYTES, "{}", rewrites.bytes);
        assert!(rewrites.contains(&key("5099")) && !rewrites.contains(&key("5080")));
        let too_long = buf(&format!("\"{}\"", "0".repeat(RECENT_BYTES)));
        assert!(!rewrites.push(key("9"), too_long));
        assert!(!rewrites.contains(&key("9")));
    }
}
