//! Whether an array of replies fits a client batch (JSON-RPC 2.0 §6: one array answers one
//! batch): each of its replies answers a distinct element of that batch still owed one. A
//! success answers a request of its id; an error, a request or an invalid element of its id;
//! with a null id, a request whose id was null or an invalid element whose id was null or
//! could not be read (§5.1). (A null-id error to an invalid element whose id could be read,
//! which the session matches all the same, does not fit: a server that answers so fits no
//! batch, and its array is matched element by element.)

use std::collections::HashMap;

use rpcwire::{Id, IdBuf, IdKey};

use super::dir::slot;
use super::waiting::Waiting;
use super::{Dir, Session};

/// At most this many of the client batches holding an id an array answers are tried, oldest
/// first: a server answering a client that reuses one id in many batches at once has its
/// arrays matched element by element past them.
const CANDIDATES: usize = 64;

/// The replies of an array, by id (`None`: null).
#[derive(Debug, Default)]
pub struct ArrayReplies {
    by_id: HashMap<Option<IdKey>, Answers>,
}

/// The replies of an array with one id: the id, how many are successes, how many errors.
#[derive(Debug)]
struct Answers {
    id: Option<IdBuf>,
    successes: usize,
    errors: usize,
}

impl ArrayReplies {
    /// Adds a reply, a success or an error, with the id `id` (`None` or null: a null id).
    pub fn add(&mut self, success: bool, id: Option<Id<'_>>) {
        let id = id.filter(|id| !id.is_null());
        let answers = self
            .by_id
            .entry(id.map(IdKey::of))
            .or_insert_with(|| Answers {
                id: id.map(|id| id.to_owned_id()),
                successes: 0,
                errors: 0,
            });
        match success {
            true => answers.successes += 1,
            false => answers.errors += 1,
        }
    }

    /// The keys of the ids its replies carry (the null id's, for a null id).
    pub fn ids(&self) -> impl Iterator<Item = IdKey> + '_ {
        self.by_id
            .keys()
            .map(|key| key.clone().unwrap_or_else(null_key))
    }

    /// Whether the array holds no reply.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// How many replies it holds.
    fn len(&self) -> usize {
        self.by_id.values().map(|a| a.successes + a.errors).sum()
    }

    /// Whether the replies fit a batch that owes, for an id, `owed(id)`: how many of its
    /// requests (answered by a success or an error) and of its invalid elements (by an error)
    /// wait for a reply with that id; with `whole`, only if they answer all it owes, `total`.
    fn fit(
        &self,
        whole: bool,
        total: usize,
        owed: impl Fn(Option<&IdKey>, Option<Id<'_>>) -> (usize, usize),
    ) -> bool {
        (!whole || self.len() == total)
            && self.by_id.iter().all(|(key, answers)| {
                let (requests, invalid) = owed(key.as_ref(), answers.id.as_ref().map(IdBuf::as_id));
                answers.successes <= requests
                    && answers.successes + answers.errors <= requests + invalid
            })
    }

    /// Whether the replies fit the batch `owed`, none of whose elements was answered yet (with
    /// `whole`: answer all of them).
    pub fn fit_batch(&self, owed: &BatchOwed, whole: bool) -> bool {
        let total = owed.by_id.values().map(|(r, i)| r + i).sum();
        self.fit(whole, total, |key, _| {
            owed.by_id.get(&key.cloned()).copied().unwrap_or_default()
        })
    }
}

/// The elements of a client batch owed a reply, by the id it carries (`None`: null): how many
/// requests and how many invalid elements.
#[derive(Debug, Default)]
pub struct BatchOwed {
    by_id: HashMap<Option<IdKey>, (usize, usize)>,
}

impl BatchOwed {
    /// Adds an element owed a reply with the id `id` (`None` or null: a null id): a request,
    /// or an invalid element (owed an error).
    pub fn add(&mut self, request: bool, id: Option<Id<'_>>) {
        let key = id.filter(|id| !id.is_null()).map(IdKey::of);
        let owed = self.by_id.entry(key).or_default();
        match request {
            true => owed.0 += 1,
            false => owed.1 += 1,
        }
    }
}

impl Session {
    /// The server's array observed now (its elements next) answers the client batch `batch`,
    /// which it fits ([`Session::batch_fitting`]): its errors take the replies owed to that
    /// batch's invalid elements first, before those of other batches of the same id, or of a
    /// request of that id of another batch (a reply alone matches the oldest).
    pub fn answer_array_for(&mut self, batch: u64) {
        self.array_batch = Some(batch);
    }

    /// Whether the request `w`, sent in `dir`, is of a client batch other than the one the
    /// server's array observed now answers, when that one is known.
    pub(super) fn in_other_batch(&self, dir: Dir, w: &Waiting) -> bool {
        dir == Dir::C2s && self.array_batch.is_some_and(|batch| w.batch != batch)
    }

    /// The oldest client batch observed that the server's array `replies` fits (with `whole`:
    /// answers all that is left of), if any: the batches holding one of its ids are tried (at
    /// most [`CANDIDATES`] of them).
    pub fn batch_fitting(&self, replies: &ArrayReplies, whole: bool) -> Option<u64> {
        let (key, answers) = replies.by_id.iter().max_by_key(|(key, _)| key.is_some())?;
        let id = answers.id.as_ref().map(IdBuf::as_id);
        let mut candidates = self.batches_owing(key.as_ref(), id);
        candidates.sort_unstable();
        candidates.dedup();
        candidates.into_iter().find(|&batch| {
            let total = self.left_of_batch(batch);
            replies.fit(whole, total, |key, id| self.owed_by_batch(batch, key, id))
        })
    }

    /// How many replies the client batch `batch` is still owed.
    fn left_of_batch(&self, batch: u64) -> usize {
        let open = self.open_batch.as_ref().filter(|(no, ..)| *no == batch);
        let wait = open.map(|(_, _, wait)| wait).or(self.batches.get(&batch));
        wait.map_or(0, |w| {
            w.requests.len() + w.owed.len() + w.owed_without_id + w.untracked_left
        })
    }

    /// The client batches observed that hold an element owed a reply with the id `id` (its
    /// key `key`; `None`: null), at most [`CANDIDATES`] of those owed an error.
    fn batches_owing(&self, key: Option<&IdKey>, id: Option<Id<'_>>) -> Vec<u64> {
        let owed = &self.owed_element_replies[slot(Dir::C2s)];
        let mut batches = owed.batches(key, CANDIDATES);
        if key.is_none() {
            batches.extend(owed.batches(Some(&null_key()), CANDIDATES));
        }
        let id = id.or(null_id());
        batches.extend(self.request_batch(key, id));
        batches.retain(|&batch| batch != 0);
        batches
    }

    /// The number of the client batch of the request waiting for a reply with the id `id`
    /// (its key `key`), if one came in a batch: in the table, or kept beyond the limits.
    fn request_batch(&self, key: Option<&IdKey>, id: Option<Id<'_>>) -> Option<u64> {
        let waiting = id.and_then(|id| self.waiting[slot(Dir::C2s)].get(id));
        match waiting {
            Some(w) => w.in_batch.then_some(w.batch),
            None => self.untracked_elements.batch_of(key?),
        }
    }

    /// How many requests and invalid elements of the client batch `batch` wait for a reply
    /// with the id `id` (its key `key`; `None`: null).
    fn owed_by_batch(&self, batch: u64, key: Option<&IdKey>, id: Option<Id<'_>>) -> (usize, usize) {
        let id = id.or(null_id());
        let requests = usize::from(self.request_batch(key, id) == Some(batch));
        let owed = &self.owed_element_replies[slot(Dir::C2s)];
        let mut invalid = owed.count(key, batch);
        if key.is_none() {
            invalid += owed.count(Some(&null_key()), batch);
        }
        (requests, invalid)
    }
}

/// The null id.
fn null_id() -> Option<Id<'static>> {
    Id::from_token(b"null")
}

/// The key of the null id.
fn null_key() -> IdKey {
    IdKey::of(null_id().expect("null is an id"))
}
