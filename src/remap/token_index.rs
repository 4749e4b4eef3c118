//! The remapper's two indexes into its pending table: the requests in flight by their client
//! and the client's id ([`RequestsByClient`]: how a client's cancellation, `get` and a
//! duplicate id find the request, and how a client's reused id is refused), and the tasks kept
//! by their task id ([`TasksById`]: how a task's status, a `tasks/get`, a reply naming a task
//! and [`IdRemapper::task_owner`](super::IdRemapper::task_owner) find its entry).
//!
//! An index keeps each entry's token only: the client and the id are in the entry itself (a
//! request's [`Origin`](super::Origin), a task's
//! [`TaskRoute::task_id`](super::tasks::TaskRoute::task_id), each kept once), and the token is
//! hashed by them, the id by its canonical form ([`Canonical`]), which for most ids is the
//! id's own spelling, borrowed. A lookup neither copies the client nor builds a key: only an
//! id spelled with escapes (or a number not spelled canonically) has its form built, on the
//! stack up to 30 bytes.

use core::hash::{BuildHasher, Hash, Hasher};
use core::marker::PhantomData;

use hashbrown::HashTable;

use super::{Entry, Held};
use crate::id::Id;
use crate::inflight::Canonical;
use crate::pending::{PendingTable, Token};

/// Which entries of the pending table an index files, and by what.
pub(super) trait Filing {
    /// The client (`None` for an index of ids that are not a client's) and the id `entry` is
    /// filed by, or `None` when the index does not file entries of its kind.
    fn key<C, T>(entry: &Entry<C, T>) -> Option<(Option<&C>, Id<'_>)>;
}

/// Files requests in flight ([`Held::Request`]) by their client and the client's id.
pub(super) enum ByClient {}

impl Filing for ByClient {
    fn key<C, T>(entry: &Entry<C, T>) -> Option<(Option<&C>, Id<'_>)> {
        match &entry.held {
            Held::Request { origin, .. } => Some((Some(&origin.client), origin.id.as_id())),
            Held::Task(_) => None,
        }
    }
}

/// Files tasks kept ([`Held::Task`]) by their task id, which the upstream minted: one space of
/// ids for all clients.
pub(super) enum ByTaskId {}

impl Filing for ByTaskId {
    fn key<C, T>(entry: &Entry<C, T>) -> Option<(Option<&C>, Id<'_>)> {
        match &entry.held {
            Held::Task(route) => Some((None, route.task_id.as_id())),
            Held::Request { .. } => None,
        }
    }
}

/// The requests in flight, by client and id.
pub(super) type RequestsByClient = TokenIndex<ByClient>;

/// The tokens of the tasks kept (live routes and ended tasks' records), by task id.
pub(super) type TasksById = TokenIndex<ByTaskId>;

/// Where an entry not filed yet goes ([`TokenIndex::insert`]): the hash of its key, computed
/// once for the lookup and the insertion.
pub(super) struct Place(u64);

/// Tokens of a pending table, each hashed by the key [`Filing::key`] reads from its entry.
/// Every token filed must name an entry of its kind in the table: that is how the index
/// hashes them again as it grows or shrinks, so an entry leaves the index before it leaves
/// the table or changes kind.
pub(super) struct TokenIndex<F> {
    tokens: HashTable<Token>,
    hasher: foldhash::quality::RandomState,
    filing: PhantomData<F>,
}

impl<F: Filing> TokenIndex<F> {
    pub(super) fn new() -> Self {
        TokenIndex {
            tokens: HashTable::new(),
            hasher: Default::default(),
            filing: PhantomData,
        }
    }

    /// The token of the entry filed under `client` and `id`, kept in `pending`, and the
    /// place an entry with that key goes when none is (or once the one found is taken out).
    fn lookup_key<C: Eq + Hash, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        client: Option<&C>,
        id: Id<'_>,
    ) -> (Option<Token>, Place) {
        let form = Canonical::of(id, false);
        let is_it = |token: &Token| {
            pending
                .get(*token)
                .and_then(F::key)
                .is_some_and(|(filed_client, filed_id)| {
                    filed_client == client && form.matches(id, filed_id, false)
                })
        };
        let hash = hash(&self.hasher, client, &form);
        (self.tokens.find(hash, is_it).copied(), Place(hash))
    }

    /// Files `token`, an entry kept in `pending` not filed yet, at the place the lookup of
    /// its key gave.
    pub(super) fn insert<C: Hash, T>(
        &mut self,
        pending: &PendingTable<Entry<C, T>>,
        place: Place,
        token: Token,
    ) {
        let hasher = &self.hasher;
        self.tokens.insert_unique(place.0, token, |token| {
            rehash::<F, C, T>(hasher, pending, *token)
        });
    }

    /// Takes out `token`, filed under `client` and `id` (its entry in the pending table may
    /// be gone or changed already).
    fn remove_key<C: Hash>(&mut self, client: Option<&C>, id: Id<'_>, token: Token) {
        let hash = hash(&self.hasher, client, &Canonical::of(id, false));
        if let Ok(filed) = self.tokens.find_entry(hash, |filed| *filed == token) {
            filed.remove();
        }
    }

    pub(super) fn clear(&mut self) {
        self.tokens.clear();
    }

    pub(super) fn capacity(&self) -> usize {
        self.tokens.capacity()
    }

    /// Gives back the room a burst of entries left.
    pub(super) fn shrink_to_fit<C: Hash, T>(&mut self, pending: &PendingTable<Entry<C, T>>) {
        let hasher = &self.hasher;
        self.tokens
            .shrink_to_fit(|token| rehash::<F, C, T>(hasher, pending, *token));
    }
}

impl RequestsByClient {
    /// The token of `client`'s request with id `id`, in flight in `pending`.
    pub(super) fn find<C: Eq + Hash, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        client: &C,
        id: Id<'_>,
    ) -> Option<Token> {
        self.lookup_key(pending, Some(client), id).0
    }

    /// [`find`](Self::find), or where a request of `client`'s with id `id` is to be filed
    /// ([`insert`](Self::insert)) when none is in flight.
    pub(super) fn lookup<C: Eq + Hash, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        client: &C,
        id: Id<'_>,
    ) -> Result<Token, Place> {
        match self.lookup_key(pending, Some(client), id) {
            (Some(token), _) => Ok(token),
            (None, place) => Err(place),
        }
    }

    /// Takes out `token`, `client`'s request with id `id`.
    pub(super) fn remove<C: Hash>(&mut self, client: &C, id: Id<'_>, token: Token) {
        self.remove_key(Some(client), id, token);
    }
}

impl TasksById {
    /// The token of the task with id `task_id`, kept in `pending`.
    pub(super) fn find<C: Eq + Hash, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        task_id: Id<'_>,
    ) -> Option<Token> {
        self.lookup_key(pending, None, task_id).0
    }

    /// [`find`](Self::find), and where a task with id `task_id` is to be filed
    /// ([`insert`](Self::insert)) once none is kept (the one found forgotten first).
    pub(super) fn lookup<C: Eq + Hash, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        task_id: Id<'_>,
    ) -> (Option<Token>, Place) {
        self.lookup_key(pending, None, task_id)
    }

    /// Takes out `token`, the task with id `task_id`.
    pub(super) fn remove(&mut self, task_id: Id<'_>, token: Token) {
        // No client: `None` hashes the same whatever its type.
        self.remove_key(None::<&()>, task_id, token);
    }
}

/// The hash of an id of form `form` filed under `client`.
fn hash<C: Hash>(hasher: &impl BuildHasher, client: Option<&C>, form: &Canonical<'_>) -> u64 {
    let mut state = hasher.build_hasher();
    client.hash(&mut state);
    form.write_to(&mut state);
    state.finish()
}

/// The hash of the entry `token` names in `pending`, when the index moves it.
fn rehash<F: Filing, C: Hash, T>(
    hasher: &impl BuildHasher,
    pending: &PendingTable<Entry<C, T>>,
    token: Token,
) -> u64 {
    match pending.get(token).and_then(F::key) {
        Some((client, id)) => hash(hasher, client, &Canonical::of(id, false)),
        None => unreachable!("a token an index files names an entry of its kind"),
    }
}
