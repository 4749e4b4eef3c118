//! The requests in flight by their client and the client's id: how a client's cancellation,
//! `get` and a duplicate id find the request, and how a client's reused id is refused.
//!
//! The map keeps each request's token only: its client and id are in its entry of the
//! pending table, and it is hashed by the client and the id's canonical form
//! ([`Canonical`]), which for most ids is the id's own spelling. A lookup neither copies
//! the client nor builds a key.

use core::hash::{BuildHasher, Hash};

use hashbrown::HashTable;

use super::{Entry, Held};
use crate::id::Id;
use crate::inflight::Canonical;
use crate::pending::{PendingTable, Token};

/// Where a request not filed yet goes ([`RequestsByClient::lookup`]): the hash of its client
/// and id, computed once for the lookup and the insertion.
pub(super) struct Place(u64);

/// The tokens of the requests in flight, by client and id.
pub(super) struct RequestsByClient {
    tokens: HashTable<Token>,
    hasher: foldhash::quality::RandomState,
}

impl RequestsByClient {
    pub(super) fn new() -> Self {
        RequestsByClient {
            tokens: HashTable::new(),
            hasher: Default::default(),
        }
    }

    /// The hash of an id of `client`'s whose canonical form is `form`.
    fn hash<C: Hash>(&self, client: &C, form: &Canonical<'_>) -> u64 {
        hash(&self.hasher, client, form)
    }

    /// The token of `client`'s request with id `id`, in flight in `pending`.
    pub(super) fn find<C: Eq + Hash, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        client: &C,
        id: Id<'_>,
    ) -> Option<Token> {
        self.lookup(pending, client, id).ok()
    }

    /// [`find`](Self::find), or where a request of `client`'s with id `id` is to be filed
    /// ([`insert`](Self::insert)) when none is in flight.
    pub(super) fn lookup<C: Eq + Hash, T>(
        &self,
        pending: &PendingTable<Entry<C, T>>,
        client: &C,
        id: Id<'_>,
    ) -> Result<Token, Place> {
        let form = Canonical::of(id, false);
        let is_it = |token: &Token| match pending.get(*token) {
            Some(Entry {
                held: Held::Request { origin, .. },
                ..
            }) => origin.client == *client && form.matches(id, origin.id.as_id(), false),
            _ => false,
        };
        let hash = self.hash(client, &form);
        self.tokens.find(hash, is_it).copied().ok_or(Place(hash))
    }

    /// Files `token`, a request in flight in `pending` not filed yet, at the place
    /// [`lookup`](Self::lookup) gave for its client and id. Every token filed must name a
    /// request in `pending`: that is how the map hashes them again as it grows.
    pub(super) fn insert<C: Hash, T>(
        &mut self,
        pending: &PendingTable<Entry<C, T>>,
        place: Place,
        token: Token,
    ) {
        let hasher = &self.hasher;
        self.tokens
            .insert_unique(place.0, token, |token| rehash(hasher, pending, *token));
    }

    /// Takes out `token`, `client`'s request with id `id` (its entry in the pending table
    /// may be gone or changed already).
    pub(super) fn remove<C: Hash>(&mut self, client: &C, id: Id<'_>, token: Token) {
        let hash = self.hash(client, &Canonical::of(id, false));
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

    /// Gives back the room a burst of requests left (each token filed names a request in
    /// `pending`).
    pub(super) fn shrink_to_fit<C: Hash, T>(&mut self, pending: &PendingTable<Entry<C, T>>) {
        let hasher = &self.hasher;
        self.tokens
            .shrink_to_fit(|token| rehash(hasher, pending, *token));
    }
}

/// The hash of a client's id of form `form`.
fn hash<C: Hash>(hasher: &impl BuildHasher, client: &C, form: &Canonical<'_>) -> u64 {
    use core::hash::Hasher;
    let mut state = hasher.build_hasher();
    client.hash(&mut state);
    form.write_to(&mut state);
    state.finish()
}

/// The hash of the request `token` names in `pending`, when the map moves it.
fn rehash<C: Hash, T>(
    hasher: &impl BuildHasher,
    pending: &PendingTable<Entry<C, T>>,
    token: Token,
) -> u64 {
    match pending.get(token) {
        Some(Entry {
            held: Held::Request { origin, .. },
            ..
        }) => hash(
            hasher,
            &origin.client,
            &Canonical::of(origin.id.as_id(), false),
        ),
        _ => unreachable!("a token filed by client names a request in flight"),
    }
}
