//! JSON-RPC client requests reusing an id whose reply could still come, forwarded under an id
//! the session mints: every reply the server sends then answers one request, exactly.
//!
//! A request reusing the id of one the proxy gave up on (timed out) would otherwise take the
//! late reply to the old one as its own; one reusing an id in flight would take whichever
//! reply with that id comes first (a server may answer out of order). Counting the replies per
//! id cannot tell them apart; a fresh id upstream can. The server's reply to the minted id goes
//! back with the client's id restored, byte for byte ([`Verdict::forward_id`]); the late reply
//! to the old request keeps the old id, and is found late. The same holds of a request inside
//! a batch: its element goes on under the minted id (the batch rebuilt, the other elements
//! byte for byte), and the server's reply to it, in its array or alone, with the client's; so
//! does one beyond the limits of the requests in flight, untracked ([`untracked`]).
//!
//! [`Verdict::forward_id`]: super::Verdict::forward_id
//! [`untracked`]: super::untracked

use rpcwire::{Dialect, Id, IdBuf, IdKey, IdKind};

use super::dir::slot;
use super::room::give_back;
use super::{Dir, Session};

/// The largest integer every peer's number type holds exactly (2^53 - 1: a JavaScript
/// number's): minted numeric ids count down below it, far from the ids clients count up with.
const MINTED_NUMBERS_FROM: i64 = (1 << 53) - 1;

/// How far a session forwards JSON-RPC client requests reusing an id whose reply could still
/// come under an id it mints: each level is what a version of the proxy did, and takes in the
/// levels before it. The proxy runs at [`All`](Self::All); the replay of a log runs at its
/// proxy's level, read from the log's header ([`IdRewriting::LEVELS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum IdRewriting {
    /// No id is rewritten: two recorded streams, whose server read the client's ids as they
    /// were, or the log of a proxy from before the rewriting.
    None,
    /// Requests sent alone.
    Alone,
    /// And the batch elements the session tracks: the batch goes on rebuilt, the element
    /// under the minted id.
    TrackedElements,
    /// And the batch elements beyond the limits of the requests in flight, which go with
    /// their batch untracked ([`untracked`](super::untracked)).
    UntrackedElements,
    /// And a request with the id of a batch element that went untracked under that id
    /// lately (beyond the limits, fresh): the server's reply to the element is not taken for
    /// the request's.
    All,
}

impl IdRewriting {
    /// The levels in order, each the one of a proxy whose log header says `true` for the
    /// first `n` of `rewrites_reused_ids`, `rewrites_reused_ids_in_batches`,
    /// `rewrites_reused_ids_of_untracked_elements`, `rewrites_ids_of_untracked_elements_reused`
    /// (the flags were added in that order, one by each proxy version).
    pub const LEVELS: [IdRewriting; 5] = [
        IdRewriting::None,
        IdRewriting::Alone,
        IdRewriting::TrackedElements,
        IdRewriting::UntrackedElements,
        IdRewriting::All,
    ];
}

impl Session {
    /// A session that rewrites reused ids as far as `level` says ([`IdRewriting`]); under
    /// JSON-RPC, and under MCP inside a batch only (MCP refuses a reused id sent alone).
    pub fn rewriting(mut self, level: IdRewriting) -> Session {
        self.rewriting = level;
        self
    }

    /// A session that forwards a client request reusing an id whose reply could still come
    /// under an id it mints ([`Verdict::forward_id`](super::Verdict::forward_id)), as the
    /// proxy does and as its log is replayed: [`IdRewriting::All`].
    pub fn rewriting_reused_ids(self) -> Session {
        self.rewriting(IdRewriting::All)
    }

    /// Whether a request sent in `dir` with `id` goes to the server under a minted id: a
    /// JSON-RPC client request, sent alone, while a reply with its id could still come for
    /// another request (one waiting, in the table or in line behind it, or one cancelled or
    /// timed out lately, whose late reply may come). That covers a client sending an id the
    /// session minted while it is in use: rewritten in turn. Inside a batch too (unless the
    /// session rewrites requests sent alone only): the batch goes on rebuilt, that element
    /// under the minted id, and is answered with it in the server's array, whose element
    /// goes back with the client's id; an earlier element of the same batch holding the id
    /// counts as in flight, so a batch reusing an id of its own has each tracked. (Beyond the
    /// limits of the requests in flight, such an element goes under the minted id untracked,
    /// unless the session forwards those under the client's id: older logs.) Under MCP, which
    /// forbids reusing an id, inside a batch only (MCP 2025-03-26's): one sent alone is refused
    /// and answered -32600 by the proxy, which answers no element of a batch itself, so that
    /// one goes on under a minted id, its reply back with the client's id, its batch's timeout
    /// answering it (still a `duplicate_id`).
    pub(super) fn needs_upstream_id(&self, dir: Dir, id: Id<'_>, in_batch: bool) -> bool {
        let level = if in_batch {
            IdRewriting::TrackedElements
        } else {
            IdRewriting::Alone
        };
        self.rewriting >= level
            && (self.dialect == Dialect::JsonRpc2 || in_batch)
            && dir == Dir::C2s
            && self.server_may_answer(id)
    }

    /// Whether a reply with `id` could still come from the server: a client request with
    /// that id, as the server read it, waits (in the table or in line), was given up on
    /// lately, or went untracked under it, minted ([`untracked`](super::untracked)) or the
    /// client's own, lately ([`Session::untracked_own_ids`]) or still kept, waiting for its
    /// reply ([`Session::untracked_elements`], which outlives those memories of its id).
    fn server_may_answer(&self, id: Id<'_>) -> bool {
        let recent = &self.recent[slot(Dir::C2s)];
        let untracked = &self.untracked_rewrites;
        let own = &self.untracked_own_ids;
        let kept = &self.untracked_elements;
        // (The key is built only when a memory by key holds anything.)
        let none_keyed =
            recent.is_empty() && untracked.is_empty() && own.is_empty() && kept.is_empty();
        self.waiting[slot(Dir::C2s)].contains(id)
            || self.queued[slot(Dir::C2s)].contains(id)
            || (!none_keyed && {
                let key = IdKey::of(id);
                recent.contains(&key)
                    || untracked.contains(&key)
                    || own.contains(&key)
                    || kept.contains(&key)
            })
    }

    /// The client's id of the untracked batch element the server's reply with `id`, to a
    /// request sent in `asked`, answers, when that element went under `id`, minted; taken.
    pub(super) fn take_untracked_rewrite(&mut self, asked: Dir, id: Id<'_>) -> Option<IdBuf> {
        if asked != Dir::C2s || self.untracked_rewrites.is_empty() {
            return None;
        }
        self.untracked_rewrites.take(&IdKey::of(id))
    }

    /// Whether a request sent in `dir` with `id` reuses an id of its sender's whose reply could
    /// still come (a duplicate): one of its requests waits with that id (in the table as it
    /// is, in line, or under an id minted in its place), or one of its batch elements that
    /// went untracked and is kept waits with it (likewise: [`untracked`](super::untracked)),
    /// or it gave one up lately. An id the session minted does not count, in flight, kept or
    /// given up on: the sender never sent it, and a request equal to it goes on under another
    /// minted id, no duplicate of anything. (Nor does an id of `untracked_own_ids` no element
    /// kept holds: whether the element's reply came is not known.)
    pub(super) fn sender_reuses(&self, dir: Dir, id: Id<'_>) -> bool {
        let waits = self.waiting[slot(dir)]
            .get(id)
            .is_some_and(|w| w.client_id.is_none());
        if waits || self.queued[slot(dir)].contains(id) {
            return true;
        }
        // The id's key only when something keyed holds ids (every request comes here).
        let rewritten = (dir == Dir::C2s).then_some(&self.rewritten_client_ids);
        let rewritten = rewritten.filter(|ids| !ids.is_empty());
        let recent = &self.recent[slot(dir)];
        let kept = self.kept(dir);
        if rewritten.is_none() && recent.is_empty() && kept.is_empty() {
            return false;
        }
        let key = IdKey::of(id);
        rewritten.is_some_and(|ids| ids.contains_key(&key))
            || (!recent.is_empty() && recent.given_up_by_sender(&key))
            || (!kept.is_empty() && kept.holds_sender_id(&key))
    }

    /// A request forwarded under a minted id in place of the client's `client_id` no longer
    /// waits ([`Session::rewritten_client_ids`]).
    pub(super) fn forget_rewritten(&mut self, client_id: Id<'_>) {
        let key = IdKey::of(client_id);
        if let Some(n) = self.rewritten_client_ids.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                self.rewritten_client_ids.remove(&key);
                give_back(&mut self.rewritten_client_ids);
            }
        }
    }

    /// An id for the server that no other reply could carry: a number counting down from
    /// 2^53 - 2 (one below [`MINTED_NUMBERS_FROM`]) in place of a numeric id (a server may
    /// read ids as numbers only), a string `"rpcwire-N"` in place of any other; never one the server may still answer
    /// ([`server_may_answer`](Self::server_may_answer)).
    pub(super) fn mint_upstream_id(&mut self, like: Id<'_>) -> IdBuf {
        loop {
            self.minted += 1;
            let numeric = matches!(like.kind(), IdKind::Integer | IdKind::Number);
            let minted = match MINTED_NUMBERS_FROM.checked_sub_unsigned(self.minted) {
                Some(n) if numeric && n >= 0 => IdBuf::from_i64(n),
                _ => {
                    let token = format!("\"rpcwire-{}\"", self.minted);
                    Id::from_token(token.as_bytes())
                        .expect("a plain string is an id")
                        .to_owned_id()
                }
            };
            if !self.server_may_answer(minted.as_id()) {
                return minted;
            }
        }
    }
}
