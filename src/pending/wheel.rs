//! A hierarchical timing wheel over the pending table's slot indexes.
//!
//! Eleven levels of 64 buckets, 6 bits of the deadline per level (11 × 6 = 66 ≥ 64), so every
//! `u64` deadline has a bucket and no overflow list is needed. Level 0 buckets are one time
//! unit wide, so expiry is exact to the caller's unit: an entry is due on the first
//! [`Wheel::pop_due`] whose `now` is at or past its deadline, never earlier, never rounded.
//!
//! Each bucket is the head of a doubly linked list of slot indexes, whose links live in an
//! array parallel to the slab ([`Links`]): scheduling and unscheduling are O(1) pointer
//! updates, removing an entry before its deadline unlinks it at once (no lazy deletion, so no
//! garbage can pile up in a bucket that is never swept), and the wheel's storage is a fixed
//! 704 list heads plus at most one [`Links`] per slot, allocated on the first deadline (and
//! given back by a shrink of the table: the heads while nothing is on the wheel). An
//! entry moves down at most ten levels before it expires, so expiry
//! costs amortised O(1) per entry, independent of the table size and of how far `now` jumps
//! (empty buckets are skipped with one bit scan per level, never visited one by one).
//!
//! The placement rule is the one tokio's timer uses: an entry with deadline `when` sits on the
//! level of the highest 6-bit digit in which `when` differs from `elapsed` (the time the wheel
//! has processed up to), in the bucket given by `when`'s digit on that level. So every entry
//! on level `k` agrees with `elapsed` on all digits above `k` and its digit `k` is at or after
//! `elapsed`'s, which keeps the search for the earliest bucket a bit scan.

use alloc::vec::Vec;
use core::mem;

/// "No slot": the end of a list.
pub(super) const NIL: u32 = u32::MAX;
/// [`Links::bucket`] of an entry that is not on the wheel.
pub(super) const NO_BUCKET: u16 = u16::MAX;

const BITS_PER_LEVEL: u32 = 6;
const BUCKETS_PER_LEVEL: usize = 1 << BITS_PER_LEVEL;
const LEVELS: usize = 11;
/// Number of list heads the wheel allocates on its first deadline.
pub(super) const BUCKETS: usize = LEVELS * BUCKETS_PER_LEVEL;

/// The wheel's part of a slot: the deadline and the list pointers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Links {
    /// The entry's deadline, meaningful while `bucket != NO_BUCKET`.
    pub(super) deadline: u64,
    pub(super) prev: u32,
    pub(super) next: u32,
    /// `level * 64 + bucket`, or [`NO_BUCKET`].
    pub(super) bucket: u16,
}

impl Links {
    /// Links of an entry without a deadline.
    pub(super) const UNSCHEDULED: Links = Links {
        deadline: 0,
        prev: NIL,
        next: NIL,
        bucket: NO_BUCKET,
    };

    /// Whether the entry is on the wheel.
    #[inline]
    pub(super) fn is_scheduled(&self) -> bool {
        self.bucket != NO_BUCKET
    }
}

/// The wheel: list heads, an occupancy bit per bucket, the processed-up-to time, and the
/// links of every slot, indexed like the slab (kept apart from the slots so that tables
/// without deadlines keep small slots and never touch them).
#[derive(Debug, Clone)]
pub(super) struct Wheel {
    /// Every bucket `< elapsed` has been swept.
    elapsed: u64,
    /// `BUCKETS` list heads once a deadline was scheduled, empty before.
    heads: Vec<u32>,
    /// Bit `b` of `occupied[level]` is set when bucket `b` of that level is non-empty.
    occupied: [u64; LEVELS],
    /// Per slot index: deadline and list pointers. Grows to the highest slot index that
    /// ever had a deadline, so never past the slab.
    links: Vec<Links>,
    /// Entries on the wheel.
    scheduled: usize,
}

impl Wheel {
    pub(super) const fn new() -> Wheel {
        Wheel {
            elapsed: 0,
            heads: Vec::new(),
            occupied: [0; LEVELS],
            links: Vec::new(),
            scheduled: 0,
        }
    }

    /// Entries currently on the wheel.
    pub(super) fn scheduled(&self) -> usize {
        self.scheduled
    }

    /// Capacity of the list-head storage (fixed once allocated).
    pub(super) fn bucket_storage(&self) -> usize {
        self.heads.capacity()
    }

    /// Capacity of the per-slot link storage.
    pub(super) fn link_storage(&self) -> usize {
        self.links.capacity()
    }

    /// Gives back storage: the links of the slot indexes from `slots` on (none of which is on
    /// the wheel), keeping room for `min_capacity`, and the list heads while nothing is on
    /// the wheel (the next deadline allocates them again).
    pub(super) fn shrink_to(&mut self, slots: usize, min_capacity: usize) {
        debug_assert!(self.links.iter().skip(slots).all(|l| !l.is_scheduled()));
        self.links.truncate(slots);
        self.links.shrink_to(min_capacity);
        if self.scheduled == 0 {
            debug_assert!(self.occupied.iter().all(|&bits| bits == 0));
            self.heads = Vec::new();
        }
    }

    /// Puts slot `index` (not on the wheel yet) on the wheel with `deadline`.
    pub(super) fn schedule(&mut self, index: u32, deadline: u64) {
        if self.heads.is_empty() {
            self.heads.resize(BUCKETS, NIL);
        }
        if index as usize >= self.links.len() {
            self.links.resize(index as usize + 1, Links::UNSCHEDULED);
        }
        // A deadline already past is filed at `elapsed`, so the next sweep hands it back.
        let when = deadline.max(self.elapsed);
        let level = level_for(self.elapsed, when);
        let bucket = digit(when, level);
        let id = level * BUCKETS_PER_LEVEL + bucket;
        let head = self.heads[id];
        if head != NIL {
            self.links[head as usize].prev = index;
        }
        self.links[index as usize] = Links {
            deadline,
            prev: NIL,
            next: head,
            // `id < 704` fits in a u16.
            bucket: id as u16,
        };
        self.heads[id] = index;
        self.occupied[level] |= 1 << bucket;
        self.scheduled += 1;
    }

    /// The deadline of slot `index`, when it is on the wheel.
    pub(super) fn deadline(&self, index: u32) -> Option<u64> {
        let links = self.links.get(index as usize)?;
        links.is_scheduled().then_some(links.deadline)
    }

    /// Takes slot `index` off the wheel; does nothing if it is not on it.
    #[inline]
    pub(super) fn unschedule(&mut self, index: u32) {
        let Some(&links) = self.links.get(index as usize) else {
            return;
        };
        if !links.is_scheduled() {
            return;
        }
        let id = links.bucket as usize;
        if links.prev == NIL {
            self.heads[id] = links.next;
            if links.next == NIL {
                self.occupied[id / BUCKETS_PER_LEVEL] &= !(1 << (id % BUCKETS_PER_LEVEL));
            }
        } else {
            self.links[links.prev as usize].next = links.next;
        }
        if links.next != NIL {
            self.links[links.next as usize].prev = links.prev;
        }
        self.links[index as usize] = Links::UNSCHEDULED;
        self.scheduled -= 1;
    }

    /// Takes one entry whose deadline is `<= now` off the wheel and returns its slot index, or
    /// `None` when no entry is due at `now` (the wheel then counts `now` as processed).
    ///
    /// Coarse buckets whose time has come are moved down a level or more on the way.
    pub(super) fn pop_due(&mut self, now: u64) -> Option<u32> {
        loop {
            let Some((id, start)) = self.earliest_bucket() else {
                self.elapsed = self.elapsed.max(now);
                return None;
            };
            if start > now {
                // Moving `elapsed` up to `now` keeps the placement invariant: `now` lies before
                // the earliest bucket, so it shares every higher digit with its entries.
                self.elapsed = self.elapsed.max(now);
                return None;
            }
            self.elapsed = start;
            if id < BUCKETS_PER_LEVEL {
                // Level 0 buckets are one unit wide: every entry in it is due.
                let index = self.heads[id];
                debug_assert!(self.links[index as usize].deadline <= now);
                self.unschedule(index);
                return Some(index);
            }
            // A coarse bucket: move all of it down at once (its entries agree with the new
            // `elapsed` on this level's digit, so they land on lower levels), which keeps
            // every lower level ahead of every higher one for the next search.
            let mut index = mem::replace(&mut self.heads[id], NIL);
            self.occupied[id / BUCKETS_PER_LEVEL] &= !(1 << (id % BUCKETS_PER_LEVEL));
            while index != NIL {
                let links = mem::replace(&mut self.links[index as usize], Links::UNSCHEDULED);
                self.scheduled -= 1;
                self.schedule(index, links.deadline);
                index = links.next;
            }
        }
    }

    /// A time before which nothing on the wheel is due, or `None` if the wheel is empty.
    pub(super) fn next_wakeup(&self) -> Option<u64> {
        self.earliest_bucket().map(|(_, start)| start)
    }

    /// The earliest non-empty bucket: its id and the first time unit it covers.
    fn earliest_bucket(&self) -> Option<(usize, u64)> {
        // A non-empty lower level always comes before any higher one: its buckets lie inside
        // `elapsed`'s current block of the next level, which the higher levels are past.
        for level in 0..LEVELS {
            let occupied = self.occupied[level];
            if occupied == 0 {
                continue;
            }
            let here = digit(self.elapsed, level);
            // The invariant puts every entry at or after `elapsed`'s digit; the fallback to
            // the whole mask only keeps a broken invariant from hiding entries.
            let ahead = occupied & (u64::MAX << here);
            debug_assert!(ahead != 0, "timer wheel entry behind elapsed");
            let bucket = if ahead != 0 { ahead } else { occupied }.trailing_zeros() as usize;
            let shift = BITS_PER_LEVEL * level as u32;
            let level_span_bits = shift + BITS_PER_LEVEL;
            let level_start = if level_span_bits >= 64 {
                0
            } else {
                self.elapsed & !((1u64 << level_span_bits) - 1)
            };
            let start = level_start + ((bucket as u64) << shift);
            return Some((level * BUCKETS_PER_LEVEL + bucket, start));
        }
        None
    }
}

/// The level for a deadline `when >= elapsed`: the highest 6-bit digit where they differ.
#[inline]
fn level_for(elapsed: u64, when: u64) -> usize {
    let masked = (elapsed ^ when) | (BUCKETS_PER_LEVEL as u64 - 1);
    let significant = 63 - masked.leading_zeros();
    (significant / BITS_PER_LEVEL) as usize
}

/// Digit `level` (6 bits) of `time`.
#[inline]
fn digit(time: u64, level: usize) -> usize {
    let shift = BITS_PER_LEVEL * level as u32;
    ((time >> shift) as usize) & (BUCKETS_PER_LEVEL - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(wheel: &mut Wheel, now: u64) -> Vec<u32> {
        let mut out = Vec::new();
        while let Some(i) = wheel.pop_due(now) {
            out.push(i);
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn levels_cover_every_deadline() {
        assert_eq!(level_for(0, 0), 0);
        assert_eq!(level_for(0, 63), 0);
        assert_eq!(level_for(0, 64), 1);
        assert_eq!(level_for(0, u64::MAX), 10);
        assert_eq!(level_for(u64::MAX, u64::MAX), 0);
    }

    #[test]
    fn expires_exactly_at_deadline() {
        let mut w = Wheel::new();
        w.schedule(0, 5);
        w.schedule(1, 100);
        w.schedule(2, 4_000);
        w.schedule(3, u64::MAX);
        assert_eq!(drain(&mut w, 4), Vec::<u32>::new());
        assert_eq!(drain(&mut w, 5), [0]);
        assert_eq!(drain(&mut w, 99), Vec::<u32>::new());
        assert_eq!(drain(&mut w, 100), [1]);
        assert_eq!(drain(&mut w, 3_999), Vec::<u32>::new());
        assert_eq!(drain(&mut w, 4_000), [2]);
        assert_eq!(drain(&mut w, u64::MAX - 1), Vec::<u32>::new());
        assert_eq!(drain(&mut w, u64::MAX), [3]);
        assert_eq!(w.scheduled(), 0);
        assert_eq!(w.occupied, [0; LEVELS]);
    }

    #[test]
    fn past_deadline_is_due_next_sweep() {
        let mut w = Wheel::new();
        assert_eq!(drain(&mut w, 1_000), Vec::<u32>::new());
        w.schedule(0, 10);
        w.schedule(1, 1_000);
        assert_eq!(drain(&mut w, 1_000), [0, 1]);
    }

    #[test]
    fn unschedule_middle_head_tail() {
        let mut w = Wheel::new();
        for i in 0..3 {
            w.schedule(i, 7);
        }
        w.unschedule(1);
        w.unschedule(1);
        assert_eq!(w.scheduled(), 2);
        w.unschedule(2);
        w.unschedule(0);
        assert_eq!(w.occupied, [0; LEVELS]);
        assert_eq!(drain(&mut w, 7), Vec::<u32>::new());
    }
}
