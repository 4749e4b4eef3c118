//! The replies owed to the invalid elements of JSON-RPC batches (§6), each answered once: by
//! the peer, or by the proxy in its place.

use std::collections::{BTreeMap, HashMap, VecDeque};

use rpcwire::{Id, IdKey};

use super::batch_fit::null_key;
use super::dir::slot;
use super::recent::{RECENT, RECENT_BYTES};
use super::room::give_back;
use super::{Dir, Session, Violation};

/// The replies owed to the invalid elements of batches sent one way, by the id they must
/// carry: matched in constant time (a batch of a million invalid elements must not make each
/// reply a scan of the others). Each entry holds the number of the client batch it came in
/// ([`BatchWait`](super::batch::BatchWait); 0 for the server's), so that the proxy, answering a
/// batch's owed replies itself (at its deadline, or in place of a dropped array), forgets that
/// batch's entries and no other batch's. A reply takes the oldest entry with its id (null: the
/// oldest without one): nothing on the wire says which batch it answers, so a server answering
/// batches out of order, with the same ids in their invalid elements, has its replies counted
/// against the older batch.
///
/// Bounded by a number of entries and a byte budget ([`MAX_IN_FLIGHT_BYTES`] for the replies
/// owed to the elements of client batches), against which each entry counts its id as it is
/// kept: its key here, and the spelling its batch's record keeps beside it (which the key does
/// not bound: `1.000…` keys as 1), as the requests in flight count theirs. An entry gives its
/// bytes back when it goes, however it goes (answered, or forgotten when the proxy answers it),
/// and tells its place in its batch's record, whose copy of its spelling then goes too.
///
/// [`MAX_IN_FLIGHT_BYTES`]: super::MAX_IN_FLIGHT_BYTES
#[derive(Debug, Default)]
pub(super) struct OwedReplies {
    /// Elements whose id could be read (their reply echoes it, or is null: §5.1), by that
    /// id: their batches, oldest first.
    by_id: HashMap<IdKey, OwedBatches>,
    /// Those ids in the order they were owed, for a null-id reply to take the oldest; an id
    /// already answered is skipped when met (and the queue rebuilt when mostly such).
    order: VecDeque<IdKey>,
    /// Elements whose id could not be read (their reply's id is null): their batches, oldest
    /// first.
    without_id: OwedBatches,
    len: usize,
    /// The bytes of the ids owed: of each, its key and the spelling kept elsewhere.
    bytes: usize,
}

impl OwedReplies {
    /// Records one reply owed to an element of `batch`, whose id's spelling, `spelled` bytes,
    /// is kept elsewhere (its batch's record, at `place`; 0 when none is); at `limit` (the
    /// limit of requests in flight), or when its id (its key and that spelling) would take the
    /// ids owed past `max_bytes`, it is not recorded, and its reply will be reported as
    /// unmatched. Returns whether it was recorded.
    pub(super) fn push(
        &mut self,
        id: Option<IdKey>,
        spelled: usize,
        (batch, place): (u64, u64),
        limit: usize,
        max_bytes: usize,
    ) -> bool {
        let bytes = id.as_ref().map_or(0, |id| id.encoded_len() + spelled);
        if self.len >= limit || self.bytes.saturating_add(bytes) > max_bytes {
            return false;
        }
        self.len += 1;
        self.bytes += bytes;
        match id {
            Some(id) => {
                let batches = self.by_id.entry(id.clone()).or_default();
                batches.push(batch, place, bytes);
                self.order.push_back(id);
            }
            None => self.without_id.push(batch, place, bytes),
        }
        true
    }

    /// The bytes the ids owed count against the budget.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The room of the table of ids owed, of their order, and of the largest batch's entries
    /// under one id (or without one: [`OwedBatches`] keeps a list of them a batch), by name.
    #[cfg(test)]
    pub(super) fn rooms(&self) -> [(&'static str, usize); 3] {
        let largest = self
            .by_id
            .values()
            .chain([&self.without_id])
            .flat_map(|batches| batches.entries.values())
            .map(Vec::capacity)
            .max();
        [
            ("owed by id", self.by_id.capacity()),
            ("owed order", self.order.capacity()),
            ("owed largest batch", largest.unwrap_or(0)),
        ]
    }

    /// Whether a reply with this id (`None`: null) is owed: one with the same id, or for a
    /// null id any (an element without a readable id first).
    fn owes(&self, key: Option<&IdKey>) -> bool {
        match key {
            Some(key) => self.by_id.contains_key(key),
            None => self.len > 0,
        }
    }

    /// How many replies with this id (`None`: to elements whose id could not be read) are
    /// owed to elements of `batch`.
    pub(super) fn count(&self, key: Option<&IdKey>, batch: u64) -> usize {
        let batches = match key {
            Some(key) => match self.by_id.get(key) {
                Some(batches) => batches,
                None => return 0,
            },
            None => &self.without_id,
        };
        batches.count(batch)
    }

    /// The batches of the elements owed a reply with this id (`None`: of those whose id could
    /// not be read), oldest first, at most `limit` of them.
    pub(super) fn batches(&self, key: Option<&IdKey>, limit: usize) -> Vec<u64> {
        let batches = match key {
            Some(key) => self.by_id.get(key),
            None => Some(&self.without_id),
        };
        batches.map_or_else(Vec::new, |batches| {
            batches.entries.keys().take(limit).copied().collect()
        })
    }

    /// The batch of the oldest element owed a reply with this id (`None`: of the oldest whose
    /// id could not be read; in constant time, so not one whose id could be read, which a
    /// null-id reply may also answer).
    pub(super) fn oldest_batch(&self, key: Option<&IdKey>) -> Option<u64> {
        match key {
            Some(key) => self.by_id.get(key)?.oldest(),
            None => self.without_id.oldest(),
        }
    }

    /// Takes the reply `owes` found, if any: the batch its element came in, and its place in
    /// that batch's record.
    pub(super) fn take(&mut self, key: Option<&IdKey>) -> Option<(u64, u64)> {
        let key = match key {
            Some(key) => key.clone(),
            None if !self.without_id.is_empty() => {
                let (owed_to, bytes) = self.without_id.take(None)?;
                self.len -= 1;
                self.bytes -= bytes;
                return Some(owed_to);
            }
            // A null id for an element whose id could be read (§5.1 allows it): the oldest.
            None => loop {
                let key = self.order.pop_front()?;
                give_back(&mut self.order);
                if self.by_id.contains_key(&key) {
                    break key;
                }
            },
        };
        self.take_by_id(&key, None)
    }

    /// Forgets a reply owed with this id (`None`: to an element whose id could not be read)
    /// to an element of `batch` (the oldest of any batch: `None`), if there is one: it was
    /// answered otherwise. Returns the batch of the element it was owed to and its place in
    /// that batch's record, if it was owed.
    fn forget(&mut self, key: Option<&IdKey>, batch: Option<u64>) -> Option<(u64, u64)> {
        match key {
            Some(key) => self.take_by_id(key, batch),
            None => {
                let (owed_to, bytes) = self.without_id.take(batch)?;
                self.len -= 1;
                self.bytes -= bytes;
                Some(owed_to)
            }
        }
    }

    /// Takes an entry with id `key` of `batch` (the oldest: `None`): its batch, and its place
    /// in that batch's record.
    fn take_by_id(&mut self, key: &IdKey, batch: Option<u64>) -> Option<(u64, u64)> {
        let batches = self.by_id.get_mut(key)?;
        let (taken, bytes) = batches.take(batch)?;
        if batches.is_empty() {
            self.by_id.remove(key);
            give_back(&mut self.by_id);
        }
        self.len -= 1;
        self.bytes -= bytes;
        // Ids answered by their own id stay in `order` until met: rebuild it when they are
        // most of it, so that it stays within twice what is owed with an id (entries, not
        // distinct ids: one id owed to many batches would rebuild it at every answer).
        if self.order.len() > 2 * (self.len - self.without_id.len()) + 16 {
            let by_id = &self.by_id;
            let mut seen: HashMap<IdKey, usize> = HashMap::new();
            self.order.retain(|k| {
                let n = seen.entry(k.clone()).or_default();
                *n += 1;
                by_id.get(k).is_some_and(|owed| *n <= owed.len())
            });
            give_back(&mut self.order);
        }
        Some(taken)
    }
}

/// The batches of the replies owed with one id (or to elements without one), each with the
/// bytes each of its entries counts: any batch's entry is counted and taken in logarithmic
/// time, the oldest's too (a batch answered in place need not be the oldest owed, and a
/// queue's removal from its middle let a server answering a client's many batches out of
/// order go quadratic).
#[derive(Debug, Default)]
struct OwedBatches {
    /// By batch, its entries in the order they came: each one's place in its batch's record
    /// and the bytes it counts. One id may be spelled differently by elements of one batch
    /// (`1`, `1.0`): each entry gives back what it counted, and its place tells the record
    /// which spelling goes with it. (Which of them a reply takes does not matter: the newest.)
    entries: BTreeMap<u64, Vec<(u64, usize)>>,
    len: usize,
}

impl OwedBatches {
    fn push(&mut self, batch: u64, place: u64, bytes: usize) {
        self.entries.entry(batch).or_default().push((place, bytes));
        self.len += 1;
    }

    /// How many replies are owed to elements of `batch`.
    fn count(&self, batch: u64) -> usize {
        self.entries.get(&batch).map_or(0, Vec::len)
    }

    /// The oldest batch owed one.
    fn oldest(&self) -> Option<u64> {
        self.entries.keys().next().copied()
    }

    /// Takes an entry of `batch` (of the oldest: `None`): its batch and its place in that
    /// batch's record, and the bytes it counted.
    fn take(&mut self, batch: Option<u64>) -> Option<((u64, u64), usize)> {
        let batch = match batch {
            Some(batch) => batch,
            None => self.oldest()?,
        };
        let entries = self.entries.get_mut(&batch)?;
        let (place, bytes) = entries.pop()?;
        if entries.is_empty() {
            self.entries.remove(&batch);
        } else {
            give_back(entries);
        }
        self.len -= 1;
        Some(((batch, place), bytes))
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
impl OwedReplies {
    /// Every reply owed: the key of the id it carries (`None`: to an element whose id could
    /// not be read), the batch of its element and its place in that batch's record.
    pub(super) fn entries(&self) -> Vec<(Option<&IdKey>, u64, u64)> {
        let by_id = self.by_id.iter().map(|(key, batches)| (Some(key), batches));
        by_id
            .chain([(None, &self.without_id)])
            .flat_map(|(key, batches)| {
                batches.entries.iter().flat_map(move |(&batch, entries)| {
                    entries.iter().map(move |&(place, _)| (key, batch, place))
                })
            })
            .collect()
    }

    /// Panics unless the counts and the bytes of the replies owed are those of the entries
    /// held, and no entry is empty.
    pub(super) fn assert_consistent(&self) {
        let by_id = self.by_id.values();
        let mut len = 0;
        let mut bytes = 0;
        for batches in by_id.chain([&self.without_id]) {
            let held: usize = batches.entries.values().map(Vec::len).sum();
            assert_eq!(batches.len, held, "replies owed under one id");
            assert!(
                batches.entries.values().all(|e| !e.is_empty()),
                "an empty batch"
            );
            len += held;
            bytes += batches
                .entries
                .values()
                .flatten()
                .map(|(_, b)| b)
                .sum::<usize>();
        }
        assert!(self.by_id.values().all(|b| b.len > 0), "an id owed nothing");
        assert_eq!((self.len, self.bytes), (len, bytes), "replies owed");
    }
}

impl Session {
    /// Whether a reply sent in `dir.other()` (with the id `key` or a null id when `None`)
    /// answers an invalid batch element sent in `dir`; if so, it is owed no more (see
    /// [`OwedReplies::take`]).
    pub(super) fn take_owed_reply(&mut self, dir: Dir, key: Option<&IdKey>) -> bool {
        // The client batch the server's array answers, when known, first: with a null id, an
        // element whose id could not be read, then one whose id was null, then one whose id
        // the array answers with a null id (`Fit::lenient`).
        let array_batch = self.array_batch.filter(|_| dir == Dir::C2s);
        let owed = &mut self.owed_element_replies[slot(dir)];
        let mut of_array_batch = array_batch.and_then(|batch| {
            let null = key.is_none().then(null_key);
            owed.forget(key, Some(batch))
                .or_else(|| owed.forget(Some(null.as_ref()?), Some(batch)))
        });
        if let (None, None, Some(batch)) = (of_array_batch, key, array_batch) {
            while let Some(lenient) = self.array_null_ids.pop_front() {
                of_array_batch = owed.forget(Some(&lenient), Some(batch));
                if of_array_batch.is_some() {
                    break;
                }
            }
        }
        let Some((batch, place)) = of_array_batch.or_else(|| owed.take(key)) else {
            return false;
        };
        self.batch_part_answered(batch, |batch| batch.owed_answered(place));
        self.prune_deadlines();
        true
    }

    /// Whether a reply sent in `dir.other()` with the id `id` (`None`: a null id, which only a
    /// reply inside an array may carry), may answer an invalid batch element sent in `dir`
    /// (see `take_owed_reply`).
    pub fn owes_element_reply(&self, dir: Dir, id: Option<Id<'_>>) -> bool {
        let key = id.filter(|id| !id.is_null()).map(IdKey::of);
        self.owed_element_replies[slot(dir)].owes(key.as_ref())
    }

    /// The violation of a reply of `kind` with the id `id`, sent in `dir`, that took a reply
    /// owed to an invalid batch element: none for an error, the -32600 owed; a success means
    /// the peer took the invalid element for a request, unless an error of its id inside an
    /// array answered a request of that id sent in a batch lately, while an element of its id
    /// was owed (in a merge, whatever was: `errors_to_batch_requests`): that error may have
    /// been the element's reply, and this success the request's (nothing on the wire tells
    /// them apart; both are answered either way). Either way it is the element's one reply:
    /// forwarded, and the element is owed nothing more (the proxy does not answer it again at
    /// its batch's deadline, nor does a later null-id error find it still owed).
    pub(super) fn owed_answered_by(
        &mut self,
        dir: Dir,
        kind: &str,
        id: Option<Id<'_>>,
    ) -> Option<Violation> {
        if kind != "success_response" {
            return None;
        }
        let swapped = id.is_some_and(|id| {
            self.errors_to_batch_requests[slot(dir.other())].take(&IdKey::of(id))
        });
        if swapped {
            None
        } else {
            self.flag(dir, Violation::SuccessToInvalid)
        }
    }

    /// The reply owed to an invalid element of a client batch is answered by the proxy at the
    /// batch's deadline ([`Session::expire`]; replaying a proxy log, where the log recorded
    /// it): owed no more, and the server's, coming later, is late. `id`: the id the reply
    /// carries (`None`: null). Returns whether it was owed.
    ///
    /// Its batch's record owes one fewer (it goes once nothing of it is left, as it does when
    /// the proxy answers the batch), the batch observed last complete first (the log may say
    /// so right after its elements: [`Session::time_out`]).
    pub fn forget_owed_reply(&mut self, id: Option<Id<'_>>) -> bool {
        self.close_batch();
        let Some((batch, place)) = self.forget_owed(id, None) else {
            return false;
        };
        self.batch_part_answered(batch, |batch| batch.owed_answered(place));
        true
    }

    /// [`Session::forget_owed_reply`], for an element of `batch` only (any: `None`). The
    /// server's reply, coming later in an array, is late once: with the element's id, or with
    /// a null one (§5.1 lets a server answer an invalid request so).
    /// Returns the batch of the element it was owed to and its place in that batch's record,
    /// if it was owed.
    pub(super) fn forget_owed(
        &mut self,
        id: Option<Id<'_>>,
        batch: Option<u64>,
    ) -> Option<(u64, u64)> {
        let key = id.map(IdKey::of);
        let owed = &mut self.owed_element_replies[slot(Dir::C2s)];
        let batch = owed.forget(key.as_ref(), batch)?;
        // (Its key only: no spelling is kept of a late reply.)
        self.late_owed
            .push(key.clone(), 0, (0, 0), RECENT, RECENT_BYTES);
        if let Some(key) = key {
            self.remember(Dir::C2s, key, None);
        }
        Some(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Owed replies are counted by id: a null-id reply takes an element without a readable
    /// id first, else the oldest with one; a reply echoing an id takes that one; and the order
    /// kept for null-id replies stays within twice what is owed however many were answered by
    /// their own id. Each entry gives back the bytes it counted, and tells its batch and its
    /// place in that batch's record.
    #[test]
    fn owed_replies_by_id_and_in_order() {
        let key = |n: u32| IdKey::of(Id::from_token(n.to_string().as_bytes()).unwrap());
        let mut owed = OwedReplies::default();
        for n in 0..1000 {
            owed.push(Some(key(n)), 100, (u64::from(n), 0), usize::MAX, usize::MAX);
        }
        owed.push(None, 0, (1000, 0), usize::MAX, usize::MAX);
        let keys: usize = (0..1000).map(|n| key(n).encoded_len()).sum();
        assert_eq!(owed.bytes, keys + 1000 * 100, "each id's key and spelling");
        for n in 10..1000 {
            assert_eq!(
                owed.take(Some(&key(n))),
                Some((u64::from(n), 0)),
                "its batch"
            );
        }
        assert!(owed.order.len() <= 2 * (owed.len - owed.without_id.len()) + 16);
        assert_eq!(owed.take(Some(&key(500))), None, "answered already");
        assert_eq!(owed.take(None), Some((1000, 0)), "the one without an id");
        assert!(owed.without_id.is_empty());
        for n in 0..10 {
            assert!(owed.owes(Some(&key(n))));
            assert_eq!(owed.take(None), Some((u64::from(n), 0)));
            assert!(!owed.owes(Some(&key(n))), "the oldest first: {n}");
        }
        assert_eq!(owed.take(None), None);
        assert_eq!((owed.len, owed.bytes), (0, 0));
        // At the limit, not recorded.
        owed.push(None, 0, (0, 0), 0, usize::MAX);
        assert!(!owed.owes(None));
        // Forgetting takes an entry of the batch named (not only the oldest), or the oldest.
        owed.push(Some(key(1)), 100, (1, 0), usize::MAX, usize::MAX);
        owed.push(Some(key(1)), 100, (2, 0), usize::MAX, usize::MAX);
        owed.push(Some(key(1)), 100, (3, 0), usize::MAX, usize::MAX);
        owed.push(None, 0, (1, 1), usize::MAX, usize::MAX);
        owed.push(None, 0, (3, 1), usize::MAX, usize::MAX);
        assert!(owed.forget(Some(&key(1)), Some(4)).is_none());
        assert!(owed.forget(None, Some(2)).is_none());
        assert!(owed.forget(Some(&key(1)), Some(2)).is_some());
        assert!(owed.forget(Some(&key(1)), Some(2)).is_none(), "once");
        assert_eq!(owed.forget(None, Some(3)), Some((3, 1)), "its place");
        assert_eq!(owed.take(Some(&key(1))), Some((1, 0)), "the oldest left");
        assert!(owed.forget(Some(&key(1)), None).is_some());
        assert!(owed.forget(None, None).is_some());
        assert_eq!((owed.len, owed.bytes), (0, 0));
        // One id owed to many batches (twice to each), forgotten batch by batch newest first,
        // as in-place answers may come: each takes its batch's entries, the counts follow.
        const BATCHES: u64 = 20_000;
        for batch in 0..BATCHES {
            owed.push(Some(key(7)), 100, (batch, 0), usize::MAX, usize::MAX);
            owed.push(Some(key(7)), 5, (batch, 1), usize::MAX, usize::MAX);
        }
        assert_eq!(
            owed.bytes,
            BATCHES as usize * (2 * key(7).encoded_len() + 105)
        );
        for batch in (1..BATCHES).rev() {
            assert_eq!(owed.count(Some(&key(7)), batch), 2);
            let (newest, oldest) = (Some((batch, 1)), Some((batch, 0)));
            assert_eq!(owed.forget(Some(&key(7)), Some(batch)), newest);
            assert_eq!(owed.forget(Some(&key(7)), Some(batch)), oldest);
            assert_eq!(owed.count(Some(&key(7)), batch), 0);
            assert!(owed.forget(Some(&key(7)), Some(batch)).is_none());
        }
        assert_eq!(owed.oldest_batch(Some(&key(7))), Some(0));
        assert_eq!(owed.take(Some(&key(7))), Some((0, 1)));
        assert_eq!(owed.take(Some(&key(7))), Some((0, 0)));
        assert!(!owed.owes(Some(&key(7))));
        assert_eq!((owed.len, owed.bytes), (0, 0));
    }
}
