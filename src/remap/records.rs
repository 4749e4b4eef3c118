//! The records of tasks that ended (see [`IdRemapper`]'s section on tasks), and which of them
//! gives its room up when a request or a task's route needs it: the requesting client's own
//! oldest record while it holds one, else the oldest record of a client holding the most.
//! So no client can push another's record out while it, or any client holding more records
//! than that one, has a record to give up. Each client's records are queued oldest first, and
//! the clients are filed by how many records they hold, so that a client holding the most is
//! found at once.

use core::hash::Hash;

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use super::{Entry, Held, IdRemapper};
use crate::pending::{PendingTable, Token};

/// The clients holding records of ended tasks, filed by how many they hold.
pub(super) struct ByRecords<C> {
    /// `counts[k - 1]`: the clients holding `k` records (in any order; each client's
    /// [`ClientEntries::slot`](super::ClientEntries::slot) is its place there). The last is
    /// never empty: its clients hold the most.
    counts: Vec<Vec<C>>,
}

impl<C: Clone + Eq + Hash> ByRecords<C> {
    pub(super) fn new() -> Self {
        ByRecords { counts: Vec::new() }
    }

    pub(super) fn clear(&mut self) {
        self.counts.clear();
    }

    /// A client holding the most records, if any client holds one.
    fn most(&self) -> Option<&C> {
        self.counts.last()?.last()
    }

    /// The room its files have (the clients they have room for, and the files).
    fn capacity(&self) -> usize {
        self.counts.capacity() + self.counts.iter().map(Vec::capacity).sum::<usize>()
    }
}

impl<C: Clone + Eq + Hash, T> IdRemapper<C, T> {
    /// The task under `token`, `client`'s, has ended (its route is its record now): its record
    /// is queued, its client's latest, to give its room up when needed.
    pub(super) fn record_ended(&mut self, token: Token, client: C) {
        let entries = self
            .heads
            .get_mut(&client)
            .expect("a client with entries has a list");
        compact(&mut entries.ended, &self.pending, entries.records);
        entries.ended.push_back(token);
        let held = entries.records;
        self.refile(&client, held, held + 1);
    }

    /// Gives back the room the records' queues and files have beyond what they hold: each
    /// client's queue loses the tokens whose records went otherwise (the records' order
    /// kept), and every queue and file shrinks to fit. A pass over each.
    pub(super) fn shrink_records(&mut self) {
        let pending = &self.pending;
        for entries in self.heads.values_mut() {
            entries.ended.retain(|&t| is_record(pending.get(t)));
            entries.ended.shrink_to_fit();
        }
        for file in &mut self.by_records.counts {
            file.shrink_to_fit();
        }
        self.by_records.counts.shrink_to_fit();
    }

    /// The room the records' queues and files have: the clients' queues together, and
    /// [`ByRecords`]'.
    pub(super) fn records_capacity(&self) -> (usize, usize) {
        let queues = self.heads.values().map(|e| e.ended.capacity()).sum();
        (queues, self.by_records.capacity())
    }

    /// A record of `client`'s went (its entry already out of the table): one fewer filed.
    /// Its queue loses the tokens of records gone once they pass twice the records it still
    /// holds (the whole queue when it holds none): a client that stays does not keep the
    /// queue of the most records it ever held.
    pub(super) fn record_gone(&mut self, client: &C) {
        let entries = self
            .heads
            .get_mut(client)
            .expect("a client with entries has a list");
        let held = entries.records;
        if held == 1 {
            entries.ended = VecDeque::new();
        } else {
            compact(&mut entries.ended, &self.pending, held - 1);
        }
        self.refile(client, held, held - 1);
    }

    /// A client went, holding `records` records, filed at `slot` (its list already out of
    /// `heads`): it is no longer filed.
    pub(super) fn unfile(&mut self, records: usize, slot: usize) {
        if records > 0 {
            self.take_out_of(records, slot);
            self.trim_records();
        }
    }

    /// `client`, holding `from` records, now holds `to` (one more or one fewer).
    fn refile(&mut self, client: &C, from: usize, to: usize) {
        if from > 0 {
            let slot = self.heads[client].slot;
            self.take_out_of(from, slot);
        }
        let entries = self
            .heads
            .get_mut(client)
            .expect("a client with entries has a list");
        entries.records = to;
        if to > 0 {
            let counts = &mut self.by_records.counts;
            if counts.len() < to {
                counts.resize_with(to, Vec::new);
            }
            entries.slot = counts[to - 1].len();
            counts[to - 1].push(client.clone());
        }
        self.trim_records();
    }

    /// Takes the client at `slot` of those holding `records` out of their file; the one
    /// moved into its slot is told its new one.
    fn take_out_of(&mut self, records: usize, slot: usize) {
        let file = &mut self.by_records.counts[records - 1];
        file.swap_remove(slot);
        if let Some(moved) = file.get(slot) {
            self.heads
                .get_mut(moved)
                .expect("a client holding records has a list")
                .slot = slot;
        }
    }

    /// Drops the empty files past the last client's: the last file holds the most.
    fn trim_records(&mut self) {
        let counts = &mut self.by_records.counts;
        while counts.last().is_some_and(Vec::is_empty) {
            counts.pop();
        }
    }

    /// Forgets records of ended tasks while the table is full (when a `place` is needed) or
    /// `held` more bytes would pass the budget, for a request or route of `client`'s: a
    /// request in flight, or a task's route, matters more than the record of a task's client
    /// past its end (the task is then one the remapper does not keep, as once its ttl has
    /// passed). `client`'s own oldest record goes first; when it holds none, the oldest
    /// record of a client holding the most. Live routes and requests are never given up.
    pub(super) fn make_room(&mut self, client: &C, place: bool, held: usize) {
        while (place && self.pending.len() >= self.pending.capacity_limit())
            || self.bytes.saturating_add(held) > self.max_bytes
        {
            let own = self
                .heads
                .get(client)
                .filter(|entries| entries.records > 0)
                .map(|_| client);
            let Some(giver) = own.or_else(|| self.by_records.most()).cloned() else {
                return;
            };
            let entries = self
                .heads
                .get_mut(&giver)
                .expect("a client holding records has a list");
            // Every record of the client's is queued: one is met before the queue ends.
            let token = loop {
                let token = entries
                    .ended
                    .pop_front()
                    .expect("a client holding records has them queued");
                if is_record(self.pending.get(token)) {
                    break token;
                }
            };
            self.forget_task(token);
        }
    }
}

/// Drops from a client's queue the tokens whose records went otherwise (their ttl, a -32602
/// answer, their id taken over), and the room they took, once the queue holds more than
/// twice the `records` left (and 16 more): a pass over the queue, paid for by the tokens it
/// drops (more than half of it).
fn compact<C, T>(ended: &mut VecDeque<Token>, pending: &PendingTable<Entry<C, T>>, records: usize) {
    let keep = 2 * records + 16;
    if ended.len() > keep {
        ended.retain(|&t| is_record(pending.get(t)));
        ended.shrink_to(keep);
    }
}

/// Whether `entry` is the record of a task that ended.
fn is_record<C, T>(entry: Option<&Entry<C, T>>) -> bool {
    matches!(entry, Some(Entry { held: Held::Task(route), .. }) if !route.live)
}
