//! The tasks the remapper keeps by their task ids: how a task's status, a `tasks/get`, a
//! reply naming a task and [`IdRemapper::task_owner`](super::IdRemapper::task_owner) find its
//! entry.
//!
//! The map keeps each task's token only: its task id is in its entry of the pending table
//! (the route's, [`TaskRoute::task_id`](super::tasks::TaskRoute::task_id), kept once), and it
//! is hashed by the task id's canonical form ([`Canonical`]), which for most task ids is the
//! id's own spelling, borrowed. A lookup builds no key: only a task id spelled with escapes
//! has its decoded form built (on the stack up to 30 bytes, as [`Canonical`] builds it).

use core::hash::{BuildHasher, Hasher};

use hashbrown::HashTable;

use super::{Entry, Held};
use crate::id::Id;
use crate::inflight::Canonical;
use crate::pending::{PendingTable, Token};

/// Where a task not filed yet goes ([`TasksById::lookup`]): the hash of its task id,
/// computed once for the lookup and the insertion.
pub(super) struct Place(u64);

/// The tokens of the tasks kept (routes and ended tasks' records), by task id.
pub(super) struct TasksById {
    tokens: HashTable<Token>,
    hasher: foldhash::quality::RandomState,
}

impl TasksById {
    pub(super) fn new() -> Self {
        TasksById {
            tokens: HashTable::new(),
            hasher: Default::default(),
        }
    }

    /// The token of the task with id `task_id`, kept in `pending`.
    pub(super) fn find<C, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        task_id: Id<'_>,
    ) -> Option<Token> {
        self.lookup(pending, task_id).0
    }

    /// [`find`](Self::find), and where a task with id `task_id` is to be filed
    /// ([`insert`](Self::insert)) once none is kept (the one found forgotten first).
    pub(super) fn lookup<C, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        task_id: Id<'_>,
    ) -> (Option<Token>, Place) {
        let form = Canonical::of(task_id, false);
        let is_it = |token: &Token| match pending.get(*token) {
            Some(Entry {
                held: Held::Task(route),
                ..
            }) => form.matches(task_id, route.task_id.as_id(), false),
            _ => false,
        };
        let hash = hash(&self.hasher, &form);
        (self.tokens.find(hash, is_it).copied(), Place(hash))
    }

    /// Files `token`, a task kept in `pending` not filed yet, at the place
    /// [`lookup`](Self::lookup) gave for its task id. Every token filed must name a task in
    /// `pending`: that is how the map hashes them again as it grows.
    pub(super) fn insert<C, T>(
        &mut self,
        pending: &PendingTable<Entry<C, T>>,
        place: Place,
        token: Token,
    ) {
        let hasher = &self.hasher;
        self.tokens
            .insert_unique(place.0, token, |token| rehash(hasher, pending, *token));
    }

    /// Takes out `token`, the task with id `task_id` (its entry in the pending table may be
    /// gone already).
    pub(super) fn remove(&mut self, task_id: Id<'_>, token: Token) {
        let hash = hash(&self.hasher, &Canonical::of(task_id, false));
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

    /// Gives back the room a burst of tasks left (each token filed names a task in
    /// `pending`).
    pub(super) fn shrink_to_fit<C, T>(&mut self, pending: &PendingTable<Entry<C, T>>) {
        let hasher = &self.hasher;
        self.tokens
            .shrink_to_fit(|token| rehash(hasher, pending, *token));
    }
}

/// The hash of a task id of form `form`.
fn hash(hasher: &impl BuildHasher, form: &Canonical<'_>) -> u64 {
    let mut state = hasher.build_hasher();
    form.write_to(&mut state);
    state.finish()
}

/// The hash of the task `token` names in `pending`, when the map moves it.
fn rehash<C, T>(
    hasher: &impl BuildHasher,
    pending: &PendingTable<Entry<C, T>>,
    token: Token,
) -> u64 {
    match pending.get(token) {
        Some(Entry {
            held: Held::Task(route),
            ..
        }) => hash(hasher, &Canonical::of(route.task_id.as_id(), false)),
        _ => unreachable!("a token filed by task id names a task kept"),
    }
}
