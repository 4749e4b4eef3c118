//! Whether an array of replies fits a client batch (JSON-RPC 2.0 §6: one array answers one
//! batch): each of its replies answers a distinct element of that batch still owed one. A
//! success answers a request of its id; an error, a request or an invalid element of its id;
//! with a null id, a request whose id was null or an invalid element whose id was null or
//! could not be read (§5.1). A null-id error to an invalid element whose id could be read,
//! which §5.1 does not call for but the session matches all the same, fits only leniently
//! ([`Fit::lenient`]).

use std::collections::HashMap;

use rpcwire::{Id, IdBuf, IdKey};

use super::dir::slot;
use super::waiting::Waiting;
use super::{Dir, Session};

/// At most this many of the client batches holding an id an array answers are tried, oldest
/// first: a server answering a client that reuses one id in many batches at once has its
/// arrays matched element by element past them.
const CANDIDATES: usize = 64;

/// How an array of replies fits a batch: each reply answers a distinct element of the batch
/// still owed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// Every element owed a reply is answered.
    pub whole: bool,
    /// A null-id error may answer an invalid element whose id could be read.
    pub lenient: bool,
}

/// How an array may fit a batch, in the order they are tried: a batch it answers whole first
/// (one it fits only in part may be answered by another array), one its null-id errors fit
/// only leniently after one they fit strictly.
pub const FITS: [Fit; 4] = [
    Fit {
        whole: true,
        lenient: false,
    },
    Fit {
        whole: true,
        lenient: true,
    },
    Fit {
        whole: false,
        lenient: false,
    },
    Fit {
        whole: false,
        lenient: true,
    },
];

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

    /// The keys of the ids a batch it fits (`fit`) must send, by its requests or invalid
    /// elements (the null id's, for a null id, but leniently).
    pub fn ids(&self, fit: Fit) -> impl Iterator<Item = IdKey> + '_ {
        let null = !fit.lenient;
        self.by_id
            .keys()
            .filter_map(move |key| key.clone().or_else(|| null.then(null_key)))
    }

    /// Whether the array holds no reply.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// How many replies it holds.
    fn len(&self) -> usize {
        self.by_id.values().map(|a| a.successes + a.errors).sum()
    }

    /// Whether the replies fit (`fit`) a batch that owes, for an id, `owed(id)`: how many of
    /// its requests (answered by a success or an error) and of its invalid elements (by an
    /// error) wait for a reply with that id. `total`: how many replies it is owed; `with_id`:
    /// how many of its invalid elements whose id could be read (not null) are.
    fn fit(
        &self,
        fit: Fit,
        (total, with_id): (usize, usize),
        owed: impl Fn(Option<&IdKey>, Option<Id<'_>>) -> (usize, usize),
    ) -> bool {
        if fit.whole && self.len() != total {
            return false;
        }
        // The invalid elements with an id that its errors of that id leave to null-id errors
        // (leniently), and how many of those these need.
        let mut spare = if fit.lenient { with_id } else { 0 };
        let mut null_needs = 0;
        for (key, answers) in &self.by_id {
            let (requests, invalid) = owed(key.as_ref(), answers.id.as_ref().map(IdBuf::as_id));
            let replies = answers.successes + answers.errors;
            if answers.successes > requests {
                return false;
            }
            match key {
                Some(_) if replies > requests + invalid => return false,
                Some(_) => spare = spare.saturating_sub(replies.saturating_sub(requests)),
                None => null_needs = replies.saturating_sub(requests + invalid),
            }
        }
        null_needs <= spare
    }

    /// Whether the replies fit (`fit`) the batch `owed`, none of whose elements was answered
    /// yet.
    pub fn fit_batch(&self, owed: &BatchOwed, fit: Fit) -> bool {
        let total = owed.by_id.values().map(|(r, i)| r + i).sum();
        let with_id = owed.by_id.iter().filter(|(key, _)| key.is_some());
        let with_id = with_id.map(|(_, (_, invalid))| invalid).sum();
        self.fit(fit, (total, with_id), |key, _| {
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
    pub fn answer_array_for(&mut self, batch: u64, replies: &ArrayReplies) {
        self.array_batch = Some(batch);
        // The invalid elements of the batch its null-id errors answer leniently: those whose id
        // no reply in the array carries, in order, as many as it holds null-id errors (the
        // batch looked at up to those and the replies of its ids: not the whole batch for each).
        let nulls = replies.by_id.get(&None).map_or(0, |answers| answers.errors);
        let open = self.open_batch.as_ref().filter(|(no, ..)| *no == batch);
        let Some(wait) = open.map(|(_, _, wait)| wait).or(self.batches.get(&batch)) else {
            return;
        };
        let null = null_key();
        let keys = wait.owed.values().map(|id| IdKey::of(id.as_id()));
        let left =
            keys.filter(|key| *key != null && !replies.by_id.contains_key(&Some(key.clone())));
        self.array_null_ids.extend(left.take(nulls));
    }

    /// Whether the request `w`, sent in `dir`, is of a client batch other than the one the
    /// server's array observed now answers, when that one is known.
    pub(super) fn in_other_batch(&self, dir: Dir, w: &Waiting) -> bool {
        dir == Dir::C2s && self.array_batch.is_some_and(|batch| w.batch != batch)
    }

    /// The oldest client batch observed that the server's array `replies` fits (`fit`), if
    /// any: the batches holding one of its ids are tried (at most [`CANDIDATES`] of them; for
    /// an array of null ids fitting leniently, the oldest batches with anything owed).
    pub fn batch_fitting(&self, replies: &ArrayReplies, fit: Fit) -> Option<u64> {
        let (key, answers) = replies.by_id.iter().max_by_key(|(key, _)| key.is_some())?;
        let id = answers.id.as_ref().map(IdBuf::as_id);
        let mut candidates = match key {
            None if fit.lenient => self.oldest_batches(),
            _ => self.batches_owing(key.as_ref(), id),
        };
        candidates.sort_unstable();
        candidates.dedup();
        candidates.into_iter().find(|&batch| {
            let left = self.left_of_batch(batch);
            replies.fit(fit, left, |key, id| self.owed_by_batch(batch, key, id))
        })
    }

    /// How many replies the client batch `batch` is still owed, and how many of them to
    /// invalid elements whose id could be read (not null).
    fn left_of_batch(&self, batch: u64) -> (usize, usize) {
        let open = self.open_batch.as_ref().filter(|(no, ..)| *no == batch);
        let wait = open.map(|(_, _, wait)| wait).or(self.batches.get(&batch));
        let owed = &self.owed_element_replies[slot(Dir::C2s)];
        let with_null_id = owed.count(Some(&null_key()), batch);
        wait.map_or((0, 0), |w| {
            let total = w.requests.len() + w.owed.len() + w.owed_without_id + w.untracked_left;
            (total, w.owed.len().saturating_sub(with_null_id))
        })
    }

    /// The oldest client batches observed with something left to answer, at most
    /// [`CANDIDATES`] of them.
    fn oldest_batches(&self) -> Vec<u64> {
        let open = self.open_batch.iter().map(|(no, ..)| *no);
        let mut batches: Vec<u64> = self.batches.keys().copied().chain(open).collect();
        batches.sort_unstable();
        batches.truncate(CANDIDATES);
        batches
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
pub(super) fn null_key() -> IdKey {
    IdKey::of(null_id().expect("null is an id"))
}
