//! Unit tests of the table's internals: token layout, generations, retirement.

use super::*;
use alloc::collections::BTreeSet;
use alloc::vec;
use alloc::vec::Vec;

fn wire(token: Token) -> Vec<u8> {
    let mut buf = [0u8; 20];
    token.to_wire(&mut buf).to_vec()
}

#[test]
fn fresh_table_mints_small_nonzero_tokens() {
    let mut t = PendingTable::new();
    let tokens: Vec<u64> = (0..3).map(|i| t.insert(i).unwrap().get()).collect();
    assert_eq!(tokens, [1, 2, 3]);
    assert_eq!(t.complete_wire(b"0"), Err(Miss::Unknown));
}

#[test]
fn layout_bits_for_limits() {
    for (limit, index_bits) in [
        (0, 1),
        (1, 2),
        (2, 3),
        (1000, 11),
        (PendingTable::<()>::DEFAULT_CAPACITY_LIMIT, 18),
        (PendingTable::<()>::MAX_CAPACITY_LIMIT, 32),
        (usize::MAX, 32),
    ] {
        let t = PendingTable::<()>::with_capacity_limit(limit);
        assert_eq!(t.generation_step, 1 << index_bits, "limit {limit}");
        assert!(t.max_slots > 2 * t.limit, "room to retire slots");
    }
}

/// The largest token any layout can mint — highest slot index, last generation — is
/// `<= 2^53 − 1`, and its index part never spills into the generation.
#[test]
fn every_minted_token_fits_in_53_bits() {
    let mut limit = 0usize;
    loop {
        let t = PendingTable::<()>::with_capacity_limit(limit);
        let index_bits = t.generation_step.trailing_zeros();
        assert!(index_bits <= 32);
        let last_generation = (1u64 << (53 - index_bits)) - 1;
        let highest_low = t.max_slots as u64; // index + 1 of the last slot
        assert!(highest_low <= t.index_mask);
        let top = (last_generation << index_bits) | highest_low;
        assert!(top <= Token::MAX.get(), "limit {limit}: {top}");
        if limit >= PendingTable::<()>::MAX_CAPACITY_LIMIT {
            assert_eq!(top, Token::MAX.get());
            break;
        }
        limit = (limit * 2 + 1).min(PendingTable::<()>::MAX_CAPACITY_LIMIT);
    }
}

#[test]
fn reused_slot_gets_new_generation_old_token_is_stale() {
    let mut t = PendingTable::new();
    let a = t.insert("a").unwrap();
    assert_eq!(t.remove(a), Ok("a"));
    let b = t.insert("b").unwrap();
    assert_ne!(a, b);
    assert_eq!(a.get() & t.index_mask, b.get() & t.index_mask, "same slot");
    assert_eq!(t.get(a), None);
    assert_eq!(t.remove(a), Err(Miss::Stale));
    assert_eq!(t.complete_wire(&wire(a)), Err(Miss::Stale));
    assert_eq!(t.cancel(a), None);
    assert_eq!(t.get(b), Some(&"b"));
}

#[test]
fn unknown_tokens() {
    let mut t = PendingTable::new();
    let a = t.insert(1).unwrap();
    // Slot never allocated.
    assert_eq!(
        t.remove(Token::new(a.get() + 1).unwrap()),
        Err(Miss::Unknown)
    );
    // A generation the slot has not reached yet.
    let ahead = Token::new(a.get() + t.generation_step).unwrap();
    assert_eq!(t.remove(ahead), Err(Miss::Unknown));
    // Index part 0, and the largest token.
    assert_eq!(
        t.remove(Token::new(t.generation_step).unwrap()),
        Err(Miss::Unknown)
    );
    assert_eq!(t.remove(Token::MAX), Err(Miss::Unknown));
    for raw in [
        &b"\"1\""[..],
        b"-1",
        b"01",
        b"1.0",
        b"1e3",
        b"9007199254740992",
        b"",
    ] {
        assert_eq!(t.complete_wire(raw), Err(Miss::Unknown));
    }
    assert_eq!(t.len(), 1);
    // The next generation of a vacant slot was not issued yet either.
    assert_eq!(t.remove(a), Ok(1));
    assert_eq!(t.remove(ahead), Err(Miss::Unknown));
    assert_eq!(t.remove(a), Err(Miss::Stale));
}

#[test]
fn vacant_entry_dropped_leaves_table_unchanged() {
    let mut t = PendingTable::new();
    let first = t.vacant_entry().unwrap().token();
    assert_eq!((t.len(), t.slots.len()), (0, 0));
    let e = t.vacant_entry().unwrap();
    assert_eq!(e.token(), first);
    assert_eq!(e.insert("x"), first);
    assert_eq!(t.remove(first), Ok("x"));

    // Reusing a freed slot.
    let second = t.vacant_entry().unwrap().token();
    assert_ne!(second, first);
    assert_eq!((t.len(), t.free_head), (0, 0));
    let e = t.vacant_entry().unwrap();
    assert_eq!(e.token(), second);
    assert_eq!(e.insert_with_deadline("y", 5), second);
    assert_eq!(t.expire(5).collect::<Vec<_>>(), [(second, "y")]);
}

#[test]
fn capacity_limit_is_hard() {
    let mut t = PendingTable::with_capacity_limit(3);
    assert_eq!(t.capacity_limit(), 3);
    let tokens: Vec<Token> = (0..3).map(|i| t.insert(i).unwrap()).collect();
    fn full<V>(value: V) -> TableFull<V> {
        TableFull { value, limit: 3 }
    }
    assert_eq!(t.insert(99), Err(full(99)));
    assert_eq!(t.insert_with_deadline(98, 1), Err(full(98)));
    assert_eq!(t.vacant_entry().unwrap_err(), full(()));
    assert_eq!(t.len(), 3);
    t.remove(tokens[1]).unwrap();
    assert!(t.insert(4).is_ok());
    assert_eq!(t.insert(5).unwrap_err().into_inner(), 5);

    let mut none = PendingTable::with_capacity_limit(0);
    let refused = none.insert('a').unwrap_err();
    assert_eq!((refused.value, refused.limit), ('a', 0));
}

/// A slot is reused at most once per free; with the default layout its 2^35 generations
/// last 34 billion reuses, so a million reuses of the hottest slot never come close to
/// aliasing a late reply.
#[test]
fn hot_slot_reuse_never_aliases_an_old_token() {
    let mut t = PendingTable::new();
    let first = t.insert(0u32).unwrap();
    t.remove(first).unwrap();
    // Fewer rounds under Miri, which runs this about a thousand times slower.
    let rounds = if cfg!(miri) { 1_000 } else { 1_000_000u32 };
    for i in 1..rounds {
        let token = t.insert(i).unwrap();
        assert_ne!(token, first);
        assert_eq!(t.remove(first), Err(Miss::Stale));
        assert_eq!(t.remove(token), Ok(i));
    }
    assert_eq!(t.slots.len(), 1);
}

/// With 3 generation bits a slot mints 8 tokens, then retires; the table moves to a fresh
/// index instead of wrapping, so every token is unique until the space (5 slots × 8) is
/// used up. Only then are retired slots taken back, and from then on every miss on a slot
/// that came back is reported stale.
#[test]
fn retire_then_recycle_when_token_space_is_exhausted() {
    let mut t = PendingTable::with_layout(2, 50, 5);
    let mut seen = BTreeSet::new();
    for i in 0..40u32 {
        let token = t.insert(i).unwrap();
        assert!(token.get() <= Token::MAX.get());
        assert!(seen.insert(token), "token {token} minted twice");
        assert_eq!(t.remove(token), Ok(i));
        for old in &seen {
            assert_eq!(t.remove(*old), Err(Miss::Stale));
        }
    }
    assert_eq!(t.slots.len(), 5);
    assert!(t.wrapped.is_empty());
    assert_eq!(t.free_head, NIL, "all five slots retired");

    let token = t.insert(40).unwrap();
    assert!(t.has_wrapped(0) && t.has_wrapped(4));
    assert!(seen.contains(&token), "the space wrapped");
    assert_eq!(t.get(token), Some(&40));
    let ahead = Token::new(token.get() + t.generation_step).unwrap();
    assert_eq!(t.remove(ahead), Err(Miss::Stale));
    assert_eq!(t.remove(token), Ok(40));
    assert!(t.is_empty());
}

/// Once the token space is used up, the slots that wrapped have minted every generation, so
/// any miss on them is stale; a slot that held one request all along has not, and a token of
/// a generation it never reached is still unknown.
#[test]
fn a_slot_that_never_wrapped_keeps_telling_unknown_from_stale() {
    // 3 generation bits, 5 slots: slot 0 keeps its first request; the other four mint 8
    // tokens each, then retire.
    let mut t = PendingTable::with_layout(2, 50, 5);
    let long = t.insert(u32::MAX).unwrap();
    let mut minted = Vec::new();
    for i in 0..32u32 {
        let token = t.insert(i).unwrap();
        minted.push(token);
        t.remove(token).unwrap();
    }
    assert_eq!(t.free_head, NIL, "slots 1 to 4 retired");
    let after = t.insert(32).unwrap();
    assert!(minted.contains(&after), "the space wrapped");

    let generation = |token: Token, n: u64| Token::new(token.get() + n * t.generation_step);
    let unminted = generation(long, 3).unwrap();
    assert_eq!(t.remove(unminted), Err(Miss::Unknown));
    assert_eq!(t.complete_wire(&wire(unminted)), Err(Miss::Unknown));
    for token in minted.iter().filter(|&&token| token != after) {
        assert_eq!(t.remove(*token), Err(Miss::Stale), "{token}");
    }
    assert_eq!(t.remove(long), Ok(u32::MAX));
    assert_eq!(t.remove(long), Err(Miss::Stale));
    assert_eq!(t.remove(unminted), Err(Miss::Unknown));
    assert_eq!(t.remove(after), Ok(32));
}

/// The last token of the space, `Token::MAX` itself (the highest slot index at the last
/// generation), is minted like any other, and a request under it stays in flight while the
/// retired slots come back. With 2 index bits and 3 slots, `Token::MAX` is slot 2's last
/// token; the slots are moved to their last generations by hand.
#[test]
fn token_max_is_minted_and_survives_the_recycling_of_retired_slots() {
    let mut t = PendingTable::<usize>::with_layout(3, 2, 3);
    let [a, b, c] = [0, 1, 2].map(|i| t.insert(i).unwrap());
    t.remove(c).unwrap();
    t.slots[2].token = Token::MAX.get() - t.generation_step;
    let before_last = t.insert(3).unwrap();
    t.remove(before_last).unwrap();
    let last = t.insert(4).unwrap();
    assert_eq!(last, Token::MAX);
    // Slots 0 and 1 answered at their last generations: both retire.
    for (index, token) in [(0, a), (1, b)] {
        let last_of_slot = Token::new(Token::MAX.get() - 2 + index as u64).unwrap();
        t.slots[index].token = last_of_slot.get();
        assert_eq!(t.remove(last_of_slot), Ok(token.get() as usize - 1));
    }
    assert_eq!(t.free_head, NIL);
    let recycled = t.insert(5).unwrap();
    assert!(recycled.get() <= 2, "{recycled}");
    assert_eq!(t.get(last), Some(&4));
    assert_eq!(t.remove(last), Ok(4));
}

#[test]
fn retired_slot_is_not_reused_and_its_tokens_stay_stale() {
    // 1 generation bit: two tokens per slot.
    let mut t = PendingTable::with_layout(4, 52, 100);
    let a = t.insert('a').unwrap();
    t.remove(a).unwrap();
    let b = t.insert('b').unwrap();
    t.remove(b).unwrap();
    let c = t.insert('c').unwrap();
    assert_eq!(c.get() & t.index_mask, 2, "slot 0 retired, slot 1 used");
    assert_eq!(t.remove(a), Err(Miss::Stale));
    assert_eq!(t.remove(b), Err(Miss::Stale));
    assert_eq!(t.get(c), Some(&'c'));
}

#[test]
fn expire_yields_due_entries_only() {
    let mut t = PendingTable::new();
    let a = t.insert_with_deadline("a", 10).unwrap();
    let b = t.insert_with_deadline("b", 1_000_000).unwrap();
    let c = t.insert_with_deadline("c", 10).unwrap();
    let n = t.insert("no deadline").unwrap();
    assert_eq!(t.next_wakeup(), Some(10));
    assert_eq!(t.expire(9).count(), 0);
    let mut due: Vec<_> = t.expire(10).collect();
    due.sort();
    assert_eq!(due, [(a, "a"), (c, "c")]);
    assert_eq!(t.remove(a), Err(Miss::Stale));
    assert_eq!(t.expire(999_999).count(), 0);
    assert_eq!(t.expire(u64::MAX).collect::<Vec<_>>(), [(b, "b")]);
    assert_eq!(t.next_wakeup(), None);
    assert_eq!(t.get(n), Some(&"no deadline"));
}

#[test]
fn removed_entries_leave_nothing_on_the_wheel() {
    let mut t = PendingTable::new();
    let rounds = if cfg!(miri) { 300 } else { 10_000u64 };
    for round in 0..rounds {
        let token = t.insert_with_deadline(round, round + 5_000).unwrap();
        assert_eq!(t.remove(token), Ok(round));
    }
    let footprint = t.debug_footprint();
    assert_eq!(footprint.scheduled, 0);
    assert_eq!(footprint.slots, 1);
    assert_eq!(footprint.wheel_bucket_storage, wheel::BUCKETS);
    assert_eq!(t.next_wakeup(), None);
}

#[test]
fn dropped_expire_iterator_keeps_the_rest() {
    let mut t = PendingTable::new();
    for i in 0..10 {
        t.insert_with_deadline(i, 3).unwrap();
    }
    assert_eq!(t.expire(100).take(4).count(), 4);
    assert_eq!(t.len(), 6);
    t.insert_with_deadline(10, 50).unwrap();
    assert_eq!(t.expire(100).count(), 7);
    assert!(t.is_empty());
    assert_eq!(t.debug_footprint().scheduled, 0);
}

#[test]
fn drain_empties_even_when_dropped_early() {
    let mut t = PendingTable::new();
    let tokens: Vec<Token> = (0..5)
        .map(|i| t.insert_with_deadline(i, 100 + i as u64).unwrap())
        .collect();
    let removed = t.remove(tokens[2]).unwrap();
    assert_eq!(removed, 2);
    let mut drain = t.drain();
    assert_eq!(drain.len(), 4);
    assert_eq!(drain.next(), Some((tokens[0], 0)));
    drop(drain);
    assert!(t.is_empty());
    assert_eq!(t.debug_footprint().scheduled, 0);
    assert_eq!(t.expire(u64::MAX).count(), 0);
    for token in &tokens {
        assert_eq!(t.remove(*token), Err(Miss::Stale));
    }
    // Reusable.
    let again = t.insert(7).unwrap();
    assert_eq!(t.drain().collect::<Vec<_>>(), vec![(again, 7)]);
}

#[test]
fn debug_lists_live_entries() {
    let mut t = PendingTable::new();
    t.insert("x").unwrap();
    let y = t.insert("y").unwrap();
    t.remove(y).unwrap();
    assert_eq!(alloc::format!("{t:?}"), r#"{1: "x"}"#);
}

/// The hot path touches one slot: keep it small (the wheel's links live apart). (The sizes
/// are a 64-bit target's; a 32-bit one's are smaller.)
#[cfg(target_pointer_width = "64")]
#[test]
fn slot_is_small() {
    assert_eq!(core::mem::size_of::<Slot<u64>>(), 24);
    assert_eq!(core::mem::size_of::<Slot<()>>(), 16);
}

/// The largest limit, clamped: its token layout is computed without overflow on 32-bit
/// targets too (`cargo +nightly miri test --target i686-unknown-linux-gnu --lib pending`).
#[test]
fn the_largest_capacity_limit_works() {
    let mut t: PendingTable<u8> = PendingTable::with_capacity_limit(usize::MAX);
    let token = t.insert(1).unwrap();
    assert_eq!(t.remove(token), Ok(1));
}

/// The tokens of a burst of `n` requests, every `keep_every`th kept in flight (with a
/// deadline of its index) and the others answered.
fn burst(t: &mut PendingTable<usize>, n: usize, keep_every: usize) -> (Vec<Token>, Vec<Token>) {
    let tokens: Vec<Token> = (0..n)
        .map(|i| t.insert_with_deadline(i, i as u64).unwrap())
        .collect();
    let (mut kept, mut gone) = (Vec::new(), Vec::new());
    for (i, token) in tokens.into_iter().enumerate() {
        if i % keep_every == 0 {
            kept.push(token);
        } else {
            assert_eq!(t.remove(token), Ok(i));
            gone.push(token);
        }
    }
    (kept, gone)
}

/// A shrink cuts the free slots after the last request in flight off, and gives back their
/// memory and the wheel's; the requests in flight keep their tokens and deadlines, and the
/// free slots left are taken before the slab grows again.
#[test]
fn shrink_cuts_the_free_slots_at_the_end_and_keeps_the_requests_in_flight() {
    let mut t = PendingTable::new();
    let (kept, _) = burst(&mut t, 1000, 300);
    assert_eq!(kept.len(), 4, "slots 0, 300, 600 and 900");
    let before = t.debug_footprint();
    t.shrink_to_fit();
    let after = t.debug_footprint();
    assert_eq!((after.slots, after.slot_capacity), (901, 901));
    assert!(before.slot_capacity >= 1000);
    assert_eq!(after.wheel_link_storage, 901);
    assert_eq!(after.wheel_bucket_storage, before.wheel_bucket_storage);
    for (i, &token) in kept.iter().enumerate() {
        assert_eq!(t.get(token), Some(&(i * 300)));
        assert_eq!(t.deadline(token), Some(i as u64 * 300));
    }
    // The free slots below the last request in flight are taken first (the free list lost
    // the slots cut off only).
    let refill: Vec<Token> = (0..897).map(|i| t.insert(i).unwrap()).collect();
    assert_eq!(t.slots.len(), 901);
    assert!(
        refill
            .iter()
            .all(|token| (token.get() & t.index_mask) <= 901)
    );
    assert_eq!(t.insert(0).unwrap().get() & t.index_mask, 902);
    let expired: Vec<(Token, usize)> = t.expire(1000).collect();
    let due: Vec<(Token, usize)> = kept
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, i * 300))
        .collect();
    assert_eq!(expired, due);
}

/// No token of a slot cut off is minted again, when the slab grows back past it: its misses
/// stay stale, and so do those of the tokens that went with the slots still there.
#[test]
fn tokens_of_slots_cut_off_are_never_minted_again() {
    let mut t = PendingTable::new();
    // Slot 0 stays hot (a few generations on), slots 1 to 99 each mint one token.
    for _ in 0..5 {
        let token = t.insert(0).unwrap();
        t.remove(token).unwrap();
    }
    let (kept, gone) = burst(&mut t, 100, 1000);
    assert_eq!(kept.len(), 1);
    t.shrink_to_fit();
    assert_eq!(t.slots.len(), 1);
    for token in &gone {
        assert_eq!(t.remove(*token), Err(Miss::Stale), "{token}");
    }
    let again: Vec<Token> = (0..300).map(|i| t.insert(i).unwrap()).collect();
    for token in &gone {
        assert!(!again.contains(token), "{token} minted twice");
        assert_eq!(t.get(*token), None);
        assert_eq!(t.remove(*token), Err(Miss::Stale), "{token}");
    }
    assert_eq!(t.get(kept[0]), Some(&0));
    for (i, token) in again.iter().enumerate() {
        assert_eq!(t.remove(*token), Ok(i));
    }
}

/// A token no slot minted is unknown after a shrink too: past every index the slab ever
/// had, or of a generation past the one slots cut off start at again.
#[test]
fn a_shrink_keeps_unknown_tokens_unknown() {
    let mut t = PendingTable::new();
    let (kept, gone) = burst(&mut t, 10, 1000);
    t.remove(kept[0]).unwrap();
    let first = gone[0];
    t.shrink_to_fit();
    assert_eq!(t.slots.len(), 0);
    let past_the_end = Token::new(20).unwrap();
    assert_eq!(t.remove(past_the_end), Err(Miss::Unknown));
    let later_generation = Token::new(first.get() + 5 * t.generation_step).unwrap();
    assert_eq!(t.remove(later_generation), Err(Miss::Unknown));
    assert_eq!(t.remove(first), Err(Miss::Stale));
    // At the edges: the token slot 0 was to mint next (the generation its index starts at
    // again), and a first-generation token of index 10, just past the slab's longest length.
    let next_of_slot_0 = Token::new(t.generation_step + 1).unwrap();
    assert_eq!(t.remove(next_of_slot_0), Err(Miss::Unknown));
    assert_eq!(t.remove(Token::new(11).unwrap()), Err(Miss::Unknown));
}

/// A free slot past the middle of its generations stays, and so do those before it: every
/// slot added again would start past its generation, with fewer than half its tokens.
#[test]
fn a_shrink_keeps_a_free_slot_in_the_later_half_of_its_generations() {
    // 3 generation bits: a slot mints 8 tokens, the later half from its 5th on.
    let mut t = PendingTable::with_layout(4, 50, 9);
    let tokens: Vec<Token> = (0..3).map(|i| t.insert(i).unwrap()).collect();
    t.remove(tokens[1]).unwrap();
    t.remove(tokens[2]).unwrap();
    // Slot 2 (the free list's head) mints 3 more: its next token is its 5th.
    for _ in 0..3 {
        let token = t.insert(9).unwrap();
        assert_eq!(token.get() & t.index_mask, 3);
        t.remove(token).unwrap();
    }
    t.shrink_to_fit();
    assert_eq!(t.slots.len(), 3, "slot 2 is in the later half");
    // In the lower half, it goes, and so does slot 1; slots come back at its generation.
    let mut t = PendingTable::with_layout(4, 50, 9);
    let tokens: Vec<Token> = (0..3).map(|i| t.insert(i).unwrap()).collect();
    t.remove(tokens[1]).unwrap();
    t.remove(tokens[2]).unwrap();
    for _ in 0..2 {
        let token = t.insert(9).unwrap();
        t.remove(token).unwrap();
    }
    t.shrink_to_fit();
    assert_eq!(t.slots.len(), 1);
    assert_eq!(t.insert(1).unwrap().get(), (3 << 50) | 2);
}

/// Once the token space is used up, every generation of a slot that wrapped may have been
/// minted: no slot is cut off.
#[test]
fn no_slot_is_cut_off_once_the_token_space_is_used_up() {
    let mut t = PendingTable::with_layout(2, 50, 5);
    for i in 0..41u32 {
        let token = t.insert(i).unwrap();
        t.remove(token).unwrap();
    }
    assert!(!t.wrapped.is_empty());
    t.shrink_to_fit();
    assert_eq!(t.slots.len(), 5);
}

/// The wheel's list heads go while nothing is on it, and come back with the next deadline.
#[test]
fn a_shrink_with_nothing_on_the_wheel_gives_its_heads_back() {
    let mut t = PendingTable::new();
    let timed = t.insert_with_deadline(1, 10).unwrap();
    let open = t.insert(2).unwrap();
    t.remove(timed).unwrap();
    t.shrink_to_fit();
    let footprint = t.debug_footprint();
    assert_eq!((footprint.wheel_bucket_storage, footprint.slots), (0, 2));
    assert_eq!(t.get(open), Some(&2));
    let timed = t.insert_with_deadline(3, 20).unwrap();
    assert_eq!(t.next_wakeup(), Some(20));
    assert_eq!(t.expire(20).collect::<Vec<_>>(), vec![(timed, 3)]);
}

/// A later shrink keeps what an earlier one set: a slot that stayed at an early generation
/// and is cut off later does not bring the generation slots come back at down, nor the
/// stale misses of the slots cut off first back to unknown ones.
#[test]
fn a_later_shrink_keeps_the_tokens_an_earlier_one_cut_off_retired() {
    let mut t = PendingTable::new();
    // Slot 0 stays in flight at generation 0; slot 1 mints five tokens.
    let first = t.insert(0).unwrap();
    let mut cut: Vec<Token> = (0..5)
        .map(|i| {
            let token = t.insert(i).unwrap();
            t.remove(token).unwrap();
            token
        })
        .collect();
    assert!(cut.iter().all(|token| token.get() & t.index_mask == 2));
    t.shrink_to_fit();
    assert_eq!(t.slots.len(), 1);
    t.remove(first).unwrap();
    cut.push(first);
    // Cuts slot 0, at generation 1.
    t.shrink_to_fit();
    assert_eq!(t.slots.len(), 0);
    for token in &cut {
        assert_eq!(t.remove(*token), Err(Miss::Stale), "{token}");
    }
    let again: Vec<Token> = (0..10).map(|i| t.insert(i).unwrap()).collect();
    for token in &cut {
        assert!(!again.contains(token), "{token} minted twice");
        assert_eq!(t.remove(*token), Err(Miss::Stale), "{token}");
    }
}

/// The table with a token space of 4 or 8 generations per slot and a handful of slots,
/// against a model, as the generations run out: slots retiring and, once every one has,
/// coming back at generation 0; shrinks; deadlines with a clock that sometimes goes
/// backwards. (The model tests in `tests/pending_table.rs` use real layouts, whose
/// generations never run out, and a clock that only goes forwards.)
mod generations_running_out {
    use super::*;
    use alloc::collections::BTreeMap;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        /// Insert, with a deadline `now + d`.
        Insert(Option<u8>),
        /// Learn the next token from a vacant entry, then commit it (or drop it).
        Vacant(bool),
        /// Remove the k-th live request.
        Remove(usize),
        /// A reply to the token of slot `pick % 8` (0: no slot), generation `pick / 8` (wrapped
        /// to the layout's).
        Reply(u64),
        /// Expire at the latest `now` so far plus `d`.
        Expire(u8),
        /// Expire at `now − d`: the clock went backwards.
        ExpireBack(u8),
        /// A new deadline (`now + d`, or none) for the k-th live request.
        SetDeadline(usize, Option<u8>),
        Drain,
        /// `shrink_to(min)`.
        Shrink(u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => proptest::option::of(0u8..40).prop_map(Op::Insert),
            1 => any::<bool>().prop_map(Op::Vacant),
            5 => any::<usize>().prop_map(Op::Remove),
            2 => (0u64..64).prop_map(Op::Reply),
            2 => (0u8..20).prop_map(Op::Expire),
            1 => (0u8..20).prop_map(Op::ExpireBack),
            1 => (any::<usize>(), proptest::option::of(0u8..40))
                .prop_map(|(k, d)| Op::SetDeadline(k, d)),
            1 => Just(Op::Drain),
            1 => (0u8..4).prop_map(Op::Shrink),
        ]
    }

    /// What the model holds: the live requests (value, deadline) and every token minted; and,
    /// until the generations run out, what tells a token never minted `Stale` from `Unknown`:
    /// the latest generation minted at each slot index, the slab's length, and, once a shrink
    /// cut slots off, the generation slots added again start at and the longest the slab was
    /// when one was cut.
    #[derive(Default)]
    struct Model {
        live: BTreeMap<u64, (u32, Option<u64>)>,
        minted: BTreeSet<u64>,
        latest: BTreeMap<u64, u64>,
        slab: u64,
        restart: u64,
        shrunk_from: u64,
    }

    impl Model {
        /// A token the table just minted for `value`: never one in flight, and never one
        /// minted before until every generation of the slab was used up.
        fn minted(
            &mut self,
            t: &PendingTable<u32>,
            token: Token,
            value: u32,
            deadline: Option<u64>,
        ) {
            let token = token.get();
            assert!(token <= Token::MAX.get());
            assert!(
                !self.live.contains_key(&token),
                "live token {token} minted again"
            );
            let again = !self.minted.insert(token);
            assert!(!again || !t.wrapped.is_empty(), "{token} minted twice");
            self.live.insert(token, (value, deadline));
            let (index, generation) = (token & t.index_mask, token / t.generation_step);
            self.latest.insert(index, generation);
            self.slab = self.slab.max(index);
        }

        /// A shrink (the generations not run out): cuts the free slots at the slab's end in
        /// the lower half of their generations, whose indexes start again past every
        /// generation minted there.
        fn shrink(&mut self, t: &PendingTable<u32>) {
            let (old, half) = (self.slab, HALF_TOKEN_SPACE / t.generation_step);
            while self.slab > 0 {
                let next = self.latest[&self.slab] + 1;
                let live = self.live.keys().any(|&l| l & t.index_mask == self.slab);
                if live || next >= half {
                    break;
                }
                self.restart = self.restart.max(next);
                self.slab -= 1;
            }
            if self.slab < old {
                self.shrunk_from = self.shrunk_from.max(old);
            }
        }

        /// How a token never minted misses (the generations not run out), as `shrink_to`
        /// documents: at a slot in the slab, `Stale` below its latest generation (the ones a
        /// slot added after a shrink skipped), `Unknown` above; past the slab's end, `Stale`
        /// below the restart generation at an index a shrink cut off (or past the slab's
        /// end then), `Unknown` otherwise: a future generation stays unknown.
        fn never_minted(&self, t: &PendingTable<u32>, token: u64) -> Miss {
            let (index, generation) = (token & t.index_mask, token / t.generation_step);
            let stale = if index == 0 {
                false
            } else if index <= self.slab {
                generation < self.latest[&index]
            } else {
                index <= self.shrunk_from && generation < self.restart
            };
            if stale { Miss::Stale } else { Miss::Unknown }
        }

        fn kth_live(&self, k: usize) -> Option<u64> {
            (!self.live.is_empty()).then(|| *self.live.keys().nth(k % self.live.len()).unwrap())
        }
    }

    fn run(limit: usize, index_bits: u32, extra_slots: usize, ops: Vec<Op>) {
        let max_slots = limit + 1 + extra_slots;
        let mut t = PendingTable::with_layout(limit, index_bits, max_slots);
        let mut model = Model::default();
        let (mut now, mut latest, mut value, mut shrunk) = (0u64, 0u64, 0u32, false);
        for op in ops {
            let wrapped = !t.wrapped.is_empty();
            value += 1;
            match op {
                Op::Insert(d) => {
                    let deadline = d.map(|d| now + u64::from(d));
                    let got = match deadline {
                        Some(d) => t.insert_with_deadline(value, d),
                        None => t.insert(value),
                    };
                    match got {
                        Ok(token) => model.minted(&t, token, value, deadline),
                        Err(full) => {
                            let got = (full.value, full.limit, model.live.len());
                            assert_eq!(got, (value, limit, limit));
                        }
                    }
                }
                Op::Vacant(commit) => match t.vacant_entry() {
                    Err(full) => assert_eq!((full.limit, model.live.len()), (limit, limit)),
                    Ok(entry) if commit => {
                        let token = entry.token();
                        assert_eq!(entry.insert(value), token);
                        model.minted(&t, token, value, None);
                    }
                    Ok(entry) => {
                        // The entry dropped unused.
                        let token = entry.token();
                        let again = t.vacant_entry().map(|e| e.token());
                        assert_eq!(again, Ok(token), "a dropped entry reserves nothing");
                    }
                },
                Op::Remove(k) => {
                    if let Some(token) = model.kth_live(k) {
                        let (v, _) = model.live.remove(&token).unwrap();
                        assert_eq!(t.remove(Token::new(token).unwrap()), Ok(v));
                    }
                }
                Op::Reply(pick) => {
                    let generation = (pick / 8) % (1 << (53 - index_bits));
                    let token = generation << index_bits | (pick % 8);
                    let got = t.complete_wire(&wire(Token::new(token).unwrap()));
                    match model.live.remove(&token) {
                        Some((v, _)) => assert_eq!(got, Ok(v)),
                        None if model.minted.contains(&token) => {
                            assert_eq!(got, Err(Miss::Stale), "{token}")
                        }
                        // Either, once the generations running out made some tokens never
                        // minted stale: never a match.
                        None if wrapped => assert!(got.is_err()),
                        None => {
                            let want = model.never_minted(&t, token);
                            assert_eq!(got, Err(want), "{token}, shrunk: {shrunk}");
                        }
                    }
                }
                Op::Expire(d) | Op::ExpireBack(d) => {
                    now = match op {
                        Op::Expire(_) => latest + u64::from(d),
                        _ => now.saturating_sub(u64::from(d)),
                    };
                    for (token, v) in t.expire(now) {
                        let (want, deadline) = model.live.remove(&token.get()).expect("live");
                        assert_eq!(v, want);
                        assert!(deadline.is_some_and(|d| d <= now), "{token} expired early");
                    }
                    if now >= latest {
                        latest = now;
                        let stayed = model
                            .live
                            .values()
                            .filter(|(_, d)| d.is_some_and(|d| d <= now));
                        assert_eq!(stayed.count(), 0, "a due request stayed at {now}");
                    }
                }
                Op::SetDeadline(k, d) => {
                    if let Some(token) = model.kth_live(k) {
                        let deadline = d.map(|d| now + u64::from(d));
                        assert!(t.set_deadline(Token::new(token).unwrap(), deadline));
                        model.live.get_mut(&token).unwrap().1 = deadline;
                    }
                }
                Op::Drain => {
                    let got: BTreeMap<u64, u32> = t.drain().map(|(k, v)| (k.get(), v)).collect();
                    let want = model.live.iter().map(|(&k, &(v, _))| (k, v)).collect();
                    assert_eq!(got, want);
                    model.live.clear();
                }
                Op::Shrink(min) => {
                    t.shrink_to(usize::from(min));
                    shrunk = true;
                    if !wrapped {
                        model.shrink(&t);
                        assert_eq!(t.slots.len() as u64, model.slab, "the slots cut off");
                    }
                }
            }
            assert_eq!(t.len(), model.live.len());
            for (&token, &(v, deadline)) in &model.live {
                let token = Token::new(token).unwrap();
                assert_eq!(t.get(token), Some(&v));
                assert_eq!(t.has_deadline(token), Some(deadline.is_some()));
            }
            assert!(t.slots.len() <= max_slots);
        }
    }

    proptest! {
        #![proptest_config(crate::proptest_cases::cases(512))]

        #[test]
        // Safe code, and 512 runs of up to 300 operations: hours under Miri, which the
        // table's other tests already take through retirement and shrinking.
        #[cfg_attr(miri, ignore)]
        fn table_matches_model_as_generations_run_out(
            limit in 1usize..4,
            index_bits in 50u32..52,
            extra_slots in 0usize..3,
            ops in proptest::collection::vec(op(), 0..300),
        ) {
            run(limit, index_bits, extra_slots, ops);
        }
    }
}

/// The table's errors are `core::error::Error`s without the `std` feature too, as every error
/// type of the crate is (a `no_std` caller boxes them as `dyn core::error::Error`).
#[test]
fn the_errors_are_core_errors() {
    fn boxed<E: core::error::Error + 'static>(e: E) -> alloc::boxed::Box<dyn core::error::Error> {
        alloc::boxed::Box::new(e)
    }
    let mut t = PendingTable::with_capacity_limit(0);
    let full = boxed(t.insert("value").unwrap_err());
    assert_eq!(
        alloc::format!("{full}"),
        alloc::format!("{TABLE_FULL}: its limit is 0")
    );
    assert_eq!(
        alloc::format!("{}", boxed(Miss::Unknown)),
        Miss::Unknown.to_string()
    );
}
