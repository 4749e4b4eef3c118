//! The table's entries going in and out: each at the head of its client's list (so that a
//! client going away, [`IdRemapper::drop_client`], costs its own entries, not a scan of
//! every request in flight), and what an entry kept (its id or task id, its bytes) given
//! back when it goes.

use core::hash::Hash;

use alloc::collections::VecDeque;

use super::{ClientEntries, Entry, Held, IdRemapper, Origin, held_bytes};
use crate::pending::Token;

impl<C: Clone + Eq + Hash, T> IdRemapper<C, T> {
    /// A client went away: forgets its requests (their late replies will be `Stale`) and
    /// returns them, latest first, so that the upstream can be told to cancel each (but an
    /// `initialize`, which MCP forbids cancelling: see [`expire`](Self::expire)). Costs
    /// the client's own requests, however many other clients have in flight. Its tasks are
    /// forgotten too (routes and ended tasks' records: its tasks' progress and status go
    /// nowhere, and other clients may name them), and not returned.
    // The one `expect` cannot fail: a client's list links only its entries in the table.
    #[allow(clippy::missing_panics_doc)]
    pub fn drop_client(&mut self, client: &C) -> alloc::vec::Vec<(Token, Origin<C, T>)> {
        let mut dropped = alloc::vec::Vec::new();
        // Its counts go with its list.
        let mut at = self.heads.remove(client).map(|entries| {
            self.unfile(entries.records, entries.slot);
            entries.head
        });
        while let Some(token) = at {
            let entry = self
                .pending
                .cancel(token)
                .expect("a client's list holds its entries");
            at = entry.next;
            if let Some(origin) = self.release(token, entry.held) {
                dropped.push((token, origin));
            }
        }
        dropped
    }

    /// Forgets what `entry` kept besides its entry in `pending` (already removed): its
    /// request's id or its task id, its bytes, its place in its client's list and in its
    /// client's counts. Returns its request's origin (`None` for a task route).
    pub(super) fn forget(&mut self, token: Token, entry: Entry<C, T>) -> Option<Origin<C, T>> {
        let Entry { held, prev, next } = entry;
        match held.counted_bytes() {
            Some(bytes) => self.uncount(held.client(), bytes),
            None => self.record_gone(held.client()),
        }
        self.unlink(held.client(), prev, next);
        self.release(token, held)
    }

    /// An entry of `client`'s that held `bytes` went: it no longer counts against its
    /// client's limits. (A task's end, [`Self::end_task`], uncounts its route in place.)
    fn uncount(&mut self, client: &C, bytes: usize) {
        let entries = self
            .heads
            .get_mut(client)
            .expect("a client with entries has a list");
        entries.counted -= 1;
        entries.bytes -= bytes;
    }

    /// What `client`'s requests in flight and live task routes count against its limits:
    /// how many, and their bytes.
    pub(super) fn client_counts(&self, client: &C) -> (usize, usize) {
        self.heads
            .get(client)
            .map_or((0, 0), |entries| (entries.counted, entries.bytes))
    }

    /// Takes an entry of `client`'s, between `prev` and `next`, out of its client's list.
    fn unlink(&mut self, client: &C, prev: Option<Token>, next: Option<Token>) {
        match prev {
            Some(prev) => self.linked(prev).next = next,
            None => match next {
                Some(next) => {
                    self.heads
                        .get_mut(client)
                        .expect("a client with entries has a list")
                        .head = next;
                }
                None => {
                    self.heads.remove(client);
                }
            },
        }
        if let Some(next) = next {
            self.linked(next).prev = prev;
        }
    }

    /// Puts `held` in the table, with `deadline`, at the head of its client's list (counted
    /// against its client's limits as [`Held::counted_bytes`] says); `None` when the table is
    /// full.
    pub(super) fn insert_linked(
        &mut self,
        held: Held<C, T>,
        deadline: Option<u64>,
    ) -> Option<Token> {
        let vacant = self.pending.vacant_entry().ok()?;
        let token = vacant.token();
        let counted = held.counted_bytes();
        let next = match self.heads.get_mut(held.client()) {
            Some(entries) => {
                if let Some(bytes) = counted {
                    entries.counted += 1;
                    entries.bytes += bytes;
                }
                Some(core::mem::replace(&mut entries.head, token))
            }
            None => {
                let entries = ClientEntries {
                    head: token,
                    counted: usize::from(counted.is_some()),
                    bytes: counted.unwrap_or(0),
                    records: 0,
                    slot: 0,
                    ended: VecDeque::new(),
                };
                self.heads.insert(held.client().clone(), entries);
                None
            }
        };
        let entry = Entry {
            held,
            prev: None,
            next,
        };
        match deadline {
            Some(d) => vacant.insert_with_deadline(entry, d),
            None => vacant.insert(entry),
        };
        if let Some(next) = next {
            self.linked(next).prev = Some(token);
        }
        Some(token)
    }

    /// Forgets the id (or task id) and the bytes of what an entry held, and returns its
    /// request's origin (`None` for a task route).
    fn release(&mut self, token: Token, held: Held<C, T>) -> Option<Origin<C, T>> {
        match held {
            Held::Request { origin, .. } => {
                self.by_client
                    .remove(&origin.client, origin.id.as_id(), token);
                self.bytes -= held_bytes(&origin);
                Some(origin)
            }
            Held::Task(route) => {
                self.task_ids.remove(route.task_id.as_id(), token);
                self.bytes -= route.held;
                if !route.live {
                    self.ended_bytes -= route.held;
                }
                self.routes -= 1;
                self.live -= usize::from(route.live);
                None
            }
        }
    }

    /// An entry of a client's list (which holds entries of `pending` only).
    fn linked(&mut self, token: Token) -> &mut Entry<C, T> {
        self.pending
            .get_mut(token)
            .expect("a client's list holds its entries")
    }
}
