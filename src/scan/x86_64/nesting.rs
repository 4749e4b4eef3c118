//! The lazy kernel's bracket bookkeeping: the stack of open containers ([`Nesting`]) and the
//! shortcuts that carry it over a block's brackets without walking them one by one.

use core::arch::x86_64::*;

use super::block::low_bits;

/// The lazy kernel's nesting state, for [`Nesting::after_block_of_one_kind`] and
/// [`Nesting::after_block_of_one_kind_counted`].
pub(super) struct Nesting {
    /// One bit per open container, innermost at bit 0 (1 = object).
    pub(super) stack: u64,
    /// How many bits of `stack` are used.
    pub(super) len: u32,
    /// The most entries `stack` may hold: the levels left to the depth limit below the
    /// value's start, at most 64.
    pub(super) room: u32,
}

impl Nesting {
    /// The simplest fast case, for the kernel instances without the one-kind shortcut (a CPU
    /// whose `pext` is slow, or a skip that does not track ASCII, as
    /// [`crate::scan::skip_value`]'s when fewer than 4 KiB follow the value's start): the
    /// block's brackets are of one kind, fewer closers than open containers (the value cannot
    /// end here), the depth limit cannot be crossed, and the `c` innermost containers, the
    /// only ones the block can close, are of that kind. Whatever the order, the brackets then
    /// close containers of their own kind: the stack loses its `c` innermost entries (some may
    /// be closed and reopened: same kind) and gains `o` of that kind. Returns the new `stack`
    /// and `len`, or `None` when the brackets must be walked.
    #[inline]
    #[target_feature(enable = "bmi2,popcnt")]
    pub(super) fn after_block_of_one_kind_counted(
        &self,
        opens: u64,
        closes: u64,
        objects: u64,
    ) -> Option<(u64, u32)> {
        let brackets = opens | closes;
        let (o, c) = (opens.count_ones(), closes.count_ones());
        let all_objects = objects == brackets;
        let of_kind = |n: u32| if all_objects { low_bits(n) } else { 0 };
        let (stack, len) = (self.stack, self.len);
        if (all_objects || objects == 0)
            && c < len
            && stack & low_bits(c) == of_kind(c)
            && len + o <= self.room
        {
            Some((((stack >> c) << (o & 63)) | of_kind(o), len - c + o))
        } else {
            None
        }
    }

    /// The fast case of nearly every block: the block's brackets, bar leaf arrays
    /// (`"c":[1,2,3]`: pairs that are matched and nest nothing), are of one kind, cannot end
    /// the value, cannot cross the depth limit, and close only containers of their kind (the
    /// `popped` innermost ones, counted exactly). Whatever their order, they then close
    /// containers of their own kind: the stack loses `popped` entries and gains
    /// `popped - c + o` of that kind. Returns the new `stack` and `len`, or `None` when the
    /// brackets must be walked.
    ///
    /// It covers the simplest case too, and every condition is computed, then tested once:
    /// which of the cases a block of a document falls in follows no order a predictor could
    /// learn, and a branch per case cost more in mispredictions than the work it spared
    /// (dense +6 to +15 % in the fastest passes on a Zen 5 with the AVX-512 instance, the AVX2
    /// one unchanged; −2.6 % instructions).
    ///
    /// `WIDE` says which kernel instance calls it, so that each has a copy of its own: with
    /// one caller LLVM inlines it, with two it did not (dense +18 % instructions).
    #[inline]
    #[target_feature(enable = "avx2,pclmulqdq,popcnt,bmi1,bmi2")]
    pub(super) fn after_block_of_one_kind<const WIDE: bool>(
        &self,
        opens: u64,
        closes: u64,
        objects: u64,
    ) -> Option<(u64, u32)> {
        let brackets = opens | closes;
        // Arrays alone, nested or not; or objects and leaf arrays, which are set aside.
        let arrays_only = objects == 0;
        let kept = if arrays_only { brackets } else { objects };
        let fill = if arrays_only { 0 } else { u64::MAX };
        let one_kind = arrays_only | leaf_arrays(brackets, opens, objects);
        let (opens, closes) = (opens & kept, closes & kept);
        let (o, c) = (opens.count_ones(), closes.count_ones());
        // A leaf array may sit one level below the deepest brace.
        let leaf_level = u32::from(kept != brackets);
        let popped = popped_entries::<WIDE>(opens, kept);
        let (stack, len) = (self.stack, self.len);
        // (`popped < len`: the value does not end here, which only the walk finds.)
        let fits = one_kind
            & (popped < len)
            & ((stack ^ fill) & low_bits(popped) == 0)
            & (len + o + leaf_level <= self.room);
        if !fits {
            return None;
        }
        let pushed = popped + o - c;
        Some((
            ((stack >> popped) << pushed) | (fill & low_bits(pushed)),
            len + o - c,
        ))
    }
}

/// How many containers open before a block a run of brackets of one kind closes: the most
/// closers in excess of openers over the run's prefixes (`opens` ⊆ `brackets`).
///
/// `WIDE`: one copy for each kernel instance, as for [`Nesting::after_block_of_one_kind`].
#[inline]
#[target_feature(enable = "bmi2,popcnt")]
fn popped_entries<const WIDE: bool>(opens: u64, brackets: u64) -> u32 {
    let n = brackets.count_ones();
    // The run in order, one bit per bracket (1 = opener), openers past its end (they change
    // no prefix's excess).
    let run = _pext_u64(opens, brackets) | !low_bits(n);
    let mut popped = 0i32;
    let mut excess = 0i32;
    for chunk in run.to_le_bytes().into_iter().take(n.div_ceil(8) as usize) {
        popped = popped.max(excess + i32::from(POPPED_BY_BYTE[usize::from(chunk)]));
        excess += 8 - 2 * chunk.count_ones() as i32;
    }
    popped as u32
}

/// [`popped_entries`] of eight brackets (bit `i` set: the `i`-th is an opener).
static POPPED_BY_BYTE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut excess, mut most) = (0i32, 0i32);
        let mut i = 0;
        while i < 8 {
            if byte >> i & 1 == 1 {
                excess -= 1;
            } else {
                excess += 1;
                if excess > most {
                    most = excess;
                }
            }
            i += 1;
        }
        table[byte] = most as u8;
        byte += 1;
    }
    table
};

/// Whether every array bracket of a block (`brackets` minus `objects`) belongs to a leaf
/// array within the block, one with no bracket inside (an array of scalars): their `[` and
/// `]` alternate, from a `[`, and no brace sits between them. (A leaf array cut by the block's
/// edge is left to the walk.)
///
/// Without a carry-less multiply: for pairs that alternate from a `[`, the `]`s minus the `[`s
/// as integers (the sum of `2^close - 2^open`) is the mask from each `[` up to (not including)
/// its `]`, and they alternate exactly when that mask rises at each `[` and falls at each `]`
/// without running off the block's end. (The multiply's moves to and from a vector register
/// sat on the chain before every block's conditions: dense +4 to +7 % with AVX-512.)
#[inline]
fn leaf_arrays(brackets: u64, opens: u64, objects: u64) -> bool {
    let squares = brackets & !objects;
    let (open, close) = (squares & opens, squares & !opens);
    let inside = close.wrapping_sub(open);
    let rises = inside & !(inside << 1);
    let falls = !inside & (inside << 1);
    (rises == open) & (falls == close) & (inside >> 63 == 0) & (brackets & objects & inside == 0)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::scan::x86_64::Avx2;

    /// Random bracket blocks: positions, openers among them, objects among them. Densities
    /// vary so that runs of every length and mix occur (a fixed-seed xorshift: the test is
    /// the same on every run).
    pub(in crate::scan::x86_64) fn random_blocks(
        count: usize,
    ) -> impl Iterator<Item = (u64, u64, u64)> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count).map(move |i| {
            let sparse = [u64::MAX, next(), next() & next(), next() & next() & next()];
            let brackets = next() & sparse[i % 4];
            let opens = brackets & next();
            let objects = brackets & if i % 5 == 0 { u64::MAX } else { next() };
            (brackets, opens, objects)
        })
    }

    /// Bits `0..n`, the plain way.
    fn low(n: u32) -> u64 {
        u64::MAX.checked_shr(64 - n).unwrap_or(0)
    }

    /// The brackets of a block one by one, as the kernel's walk does: the stack and length
    /// after them, or `None` when one closes a container of the other kind or the value (all
    /// `len` containers) ends.
    fn walk(
        opens: u64,
        closes: u64,
        objects: u64,
        stack: u64,
        mut len: u32,
    ) -> Option<(u128, u32)> {
        let mut stack = u128::from(stack);
        let mut bits = opens | closes;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let kind = u128::from((objects >> i) & 1);
            if (closes >> i) & 1 == 1 {
                if stack & 1 != kind || len == 1 {
                    return None;
                }
                stack >>= 1;
                len -= 1;
            } else {
                stack = (stack << 1) | kind;
                len += 1;
            }
        }
        Some((stack & ((1u128 << len) - 1), len))
    }

    /// The deepest a block's brackets take a value open `len` deep.
    fn deepest(brackets: u64, opens: u64, len: u32) -> u32 {
        (0..64)
            .filter(|i| brackets >> i & 1 == 1)
            .scan(len, |depth, i| {
                *depth = if opens >> i & 1 == 1 {
                    *depth + 1
                } else {
                    *depth - 1
                };
                Some(*depth)
            })
            .max()
            .unwrap_or(len)
    }

    #[test]
    fn popped_entries_is_the_most_closers_in_excess() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        for (brackets, opens, _) in random_blocks(200_000).chain([(u64::MAX, 0, 0), (0, 0, 0)]) {
            let (mut excess, mut most) = (0i32, 0i32);
            let mut bits = brackets;
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                excess += if (opens >> i) & 1 == 1 { -1 } else { 1 };
                most = most.max(excess);
            }
            // SAFETY: `Avx2::get` returned a token: the CPU has the features.
            let got = unsafe { popped_entries::<false>(opens, brackets) };
            assert_eq!(got, most as u32, "brackets {brackets:#x} opens {opens:#x}");
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)] // 200,000 blocks; safe bit arithmetic, nothing for Miri to find.
    fn leaf_arrays_are_alternating_bracket_free_pairs() {
        let mut leaves = 0;
        for (brackets, opens, objects) in random_blocks(200_000).chain([
            // `[1,2]`, `{[]}`, `[{}]`, `][`, `[`.
            (0b10001, 0b00001, 0),
            (0b1111, 0b0011, 0b1001),
            (0b1111, 0b0011, 0b0110),
            (0b11, 0b10, 0),
            (0b1, 0b1, 0),
        ]) {
            // Naive: array brackets alternate from a `[`, end on a `]`, nothing between.
            let mut open = false;
            let mut leaf = true;
            let mut bits = brackets;
            while bits != 0 {
                let i = bits.trailing_zeros();
                bits &= bits - 1;
                let is_open = (opens >> i) & 1 == 1;
                match ((objects >> i) & 1 == 1, is_open, open) {
                    (true, _, true) => leaf = false,
                    (true, _, false) => {}
                    (false, true, false) => open = true,
                    (false, false, true) => open = false,
                    (false, _, _) => leaf = false,
                }
            }
            let want = leaf && !open;
            leaves += usize::from(want);
            let got = leaf_arrays(brackets, opens, objects);
            assert_eq!(
                got, want,
                "brackets {brackets:#x} opens {opens:#x} objects {objects:#x}"
            );
        }
        assert!(leaves > 1000, "too few leaf blocks generated: {leaves}");
    }

    /// Whenever the simplest case answers (the kernel instances for a slow `pext`), the walk
    /// gives the same stack and length, with no mismatch and without ending the value or
    /// crossing the room; and it answers on blocks of each kind.
    #[test]
    fn simplest_case_agrees_with_the_walk() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let mut answered = [0usize; 2];
        let stacks: Vec<u64> = random_blocks(1_000)
            .map(|(a, b, _)| a ^ b.rotate_left(11))
            .collect();
        for (n, (brackets, opens, objects)) in random_blocks(300_000).enumerate() {
            let closes = brackets & !opens;
            // Blocks of one kind, over stacks whose innermost entries are of that kind half
            // the time (else the case can answer only blocks without closers).
            let kind = if n % 2 == 0 { u64::MAX } else { 0 };
            let objects = objects & kind;
            for len in [1u32, 3, 8, 20, 40, 63, 64] {
                let stack = if n % 4 < 2 {
                    kind & low(len)
                } else {
                    stacks[n % stacks.len()] & low(len)
                };
                let nesting = Nesting {
                    stack,
                    len,
                    room: 62,
                };
                // SAFETY: `Avx2::get` returned a token: the CPU has the features.
                let got =
                    unsafe { nesting.after_block_of_one_kind_counted(opens, closes, objects) };
                let Some((new_stack, new_len)) = got else {
                    continue;
                };
                answered[usize::from(objects != 0)] += 1;
                // The room holds at the deepest point.
                assert!(deepest(brackets, opens, len) <= 62, "len {len}");
                assert_eq!(
                    Some((u128::from(new_stack & low(new_len)), new_len)),
                    walk(opens, closes, objects, stack, len),
                    "brackets {brackets:#x} opens {opens:#x} objects {objects:#x} stack {stack:#x} len {len}"
                );
            }
        }
        assert!(
            answered[0] > 1000 && answered[1] > 1000,
            "too few answers (arrays, objects): {answered:?}"
        );
    }

    /// Whenever the one-kind shortcut answers, the walk gives the same stack and length,
    /// with no mismatch and without ending the value; and it answers on blocks the simplest
    /// case ([`Nesting::after_block_of_one_kind_counted`]) does not take: mixed with leaf
    /// arrays, or of one kind but closing fewer entries than its `c` closers (the simplest
    /// case tests the `c` innermost entries, the shortcut only the `popped` ones reached).
    #[test]
    fn one_kind_shortcut_agrees_with_the_walk() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let mut answered = [0usize; 2];
        // Blocks of one kind alone that the simplest case does not take.
        let mut beyond_the_simplest = 0usize;
        let stacks: Vec<u64> = random_blocks(1_000)
            .map(|(a, b, _)| a ^ b.rotate_left(7))
            .collect();
        for (n, (brackets, opens, objects)) in random_blocks(300_000).enumerate() {
            let closes = brackets & !opens;
            let stack = stacks[n % stacks.len()];
            for len in [1u32, 3, 8, 20, 40, 63, 64] {
                let stack = stack & low(len);
                let nesting = Nesting {
                    stack,
                    len,
                    room: 62,
                };
                // SAFETY: as above.
                let got =
                    unsafe { nesting.after_block_of_one_kind::<false>(opens, closes, objects) };
                let Some((new_stack, new_len)) = got else {
                    continue;
                };
                let mixed = objects != 0 && objects != brackets;
                answered[usize::from(mixed)] += 1;
                // SAFETY: as above.
                let simplest =
                    unsafe { nesting.after_block_of_one_kind_counted(opens, closes, objects) };
                beyond_the_simplest += usize::from(!mixed && simplest.is_none());
                let want = walk(opens, closes, objects, stack, len);
                assert_eq!(
                    Some((u128::from(new_stack & low(new_len)), new_len)),
                    want,
                    "brackets {brackets:#x} opens {opens:#x} objects {objects:#x} stack {stack:#x} len {len}"
                );
                // The depth limit holds at the deepest point, leaf arrays included.
                assert!(deepest(brackets, opens, len) <= 62, "len {len}");
            }
        }
        assert!(
            answered[0] > 1000 && answered[1] > 100 && beyond_the_simplest > 1000,
            "too few answers: {answered:?}, {beyond_the_simplest} beyond the simplest case"
        );
    }
}
