//! The room the session's tables keep: what a burst of requests left behind is given back.
//!
//! A table of the requests waiting, of their deadlines, progress tokens, batches, the requests
//! waiting in line and the replies owed grows to the peak of the requests in flight, and a
//! collection keeps its room when entries go: a long-lived proxy that once had 100,000
//! requests in flight would hold their room for the rest of the session. Each table, after an
//! entry goes, asks [`give_back`]: past [`KEPT_ROOM`] entries of room, once it holds less than
//! a quarter of its room, it shrinks to about twice what it holds. Each shrink is paid for by
//! the removals since the table was last that large (amortised constant time), and a table
//! whose length goes up and down around one size never shrinks (it stays between a quarter
//! of its room and all of it): steady traffic allocates nothing more.

use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::hash::{BuildHasher, Hash};

use rpcwire::InFlight;

/// The room, in entries, a table of the session keeps whatever it holds: below it, no table
/// gives memory back (a few hundred kilobytes at most for the table of requests waiting, the
/// largest entry), so that ordinary traffic, a few requests in flight or a few thousand,
/// never reallocates for it.
pub(super) const KEPT_ROOM: usize = 4096;

/// A collection whose room (its capacity, in entries) can be given back.
pub(super) trait Room {
    /// How many entries it holds.
    fn entries(&self) -> usize;
    /// How many it has room for without reallocating.
    fn room(&self) -> usize;
    /// Shrinks its room as far as `min` entries (never below what it holds).
    fn shrink_room(&mut self, min: usize);
}

/// After an entry of `table` went: when its room is past [`KEPT_ROOM`] and it holds less than a
/// quarter of it, it shrinks to about twice what it holds (see the module's doc).
pub(super) fn give_back(table: &mut impl Room) {
    let (entries, room) = (table.entries(), table.room());
    if room > KEPT_ROOM && entries < room / 4 {
        table.shrink_room(2 * entries);
    }
}

/// `Room` for collections whose own `len`, `capacity` and `shrink_to` say it: the same three
/// lines for each.
macro_rules! room_of_collections {
    ($([$($generics:tt)*] $collection:ty),* $(,)?) => {$(
        impl<$($generics)*> Room for $collection {
            fn entries(&self) -> usize {
                self.len()
            }
            fn room(&self) -> usize {
                self.capacity()
            }
            fn shrink_room(&mut self, min: usize) {
                self.shrink_to(min);
            }
        }
    )*};
}

room_of_collections! {
    [K: Eq + Hash, V, S: BuildHasher] HashMap<K, V, S>,
    [T] VecDeque<T>,
    [T] Vec<T>,
    [T: Ord] BinaryHeap<T>,
    [T] InFlight<T>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table grown by a burst of 100,000 entries, then emptied one removal at a time, gives
    /// its room back as it goes: it never holds more than four times its entries' room past
    /// the floor, and ends within the floor.
    #[test]
    fn a_burst_is_given_back_as_it_drains() {
        let mut table: HashMap<u32, u64> = (0..100_000).map(|n| (n, 0)).collect();
        let peak = table.capacity();
        for n in 0..100_000 {
            table.remove(&n);
            give_back(&mut table);
            let room = table.capacity();
            assert!(
                room <= KEPT_ROOM.max(4 * table.len() + 8),
                "{room} for {}",
                table.len()
            );
        }
        assert!(
            table.capacity() <= KEPT_ROOM,
            "{} of {peak}",
            table.capacity()
        );
    }

    /// A table whose length goes up and down around one size never reallocates: no memory
    /// churn in steady traffic, even past the floor, and even around the size it has just
    /// shrunk for (the worst case: it shrank to twice that, and shrinks again only below a
    /// quarter of its room).
    #[test]
    fn a_table_oscillating_around_a_size_keeps_its_room() {
        let mut table: VecDeque<u32> = (0..40_000).collect();
        let peak = table.capacity();
        while table.capacity() == peak {
            table.pop_front();
            give_back(&mut table);
        }
        let (room, size) = (table.capacity(), table.len());
        assert!(room > KEPT_ROOM, "past the floor: {room}");
        // One up, two down, one up: around `size`, a step either way.
        for n in 0..10_000 {
            if n % 4 == 0 || n % 4 == 3 {
                table.push_back(n);
            } else {
                table.pop_front();
                give_back(&mut table);
            }
            assert_eq!(table.capacity(), room, "for {} entries", table.len());
        }
        assert_eq!(table.len(), size);
    }
}
