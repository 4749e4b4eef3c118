//! Scans over a whole line, 64 bytes at a time: where it ends and how much of it is known
//! UTF-8 ([`line_end_avx2`], and [`line_end_wide`] on AVX-512BW), and how much of a frame is
//! ASCII ([`ascii_prefix_avx2`]).

use core::arch::x86_64::*;

use super::block::{low_bits, movemask64};
use crate::scan::scalar::utf8_prefix;

/// The index of the first `\n` in `buf`, and how many bytes before it (or of `buf`, when
/// there is none) are known UTF-8, a character boundary: all of them when they are UTF-8 and
/// no 64-byte block holds more than [`SPARSE`] bytes that are not ASCII; else as many as are
/// UTF-8 when no block before the first sequence that is not holds more, and else the
/// start of the first block that holds more (or the end of a character reaching into it):
/// the caller's UTF-8 check then starts there, if at all, so one pass over a line finds both. The
/// bytes that are not ASCII come with the newline search (a movemask of the raw bytes on the
/// same loads), and each character they start is checked on its own: a frame holding a few
/// (a `°`, an `é`) needs no second pass over it, which cost strict `typical` ~5 %. A line is
/// found in the first block or the next few, so this is `memchr` without its set-up (a
/// dispatch through a pointer, alignment), which cost more than the search on a short line.
///
/// Its UTF-8 check needs POPCNT and BMI1 as well ([`Utf8Prefix::check`]), which its
/// `target_feature` list does not say: a caller must have proven them too (an `Avx2` has).
#[target_feature(enable = "avx2")]
pub(super) fn line_end_avx2(buf: &[u8]) -> (Option<usize>, usize) {
    let nl = _mm256_set1_epi8(b'\n' as i8);
    // The 32 bytes at `at` in `bytes`.
    let load = |bytes: &[u8], at: usize| {
        let half: &[u8; 32] = bytes[at..at + 32].try_into().unwrap();
        // SAFETY: `half` is 32 readable bytes; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(half.as_ptr().cast()) }
    };
    let eq = |v: __m256i| _mm256_cmpeq_epi8(v, nl);
    // Bit `i` set where byte `i` of `block` is `\n`, and where it is not ASCII.
    let newlines_high = |block: &[u8; 64]| {
        let (lo, hi) = (load(block, 0), load(block, 32));
        (movemask64(eq(lo), eq(hi)), movemask64(lo, hi))
    };
    let mut utf8 = Utf8Prefix::new();
    let ends_in = |utf8, pos, found, high| ends_in(buf, utf8, pos, found, high);
    let mut pos = 0;
    // The first two blocks one by one: most lines end in them (tiny +1 % instructions when
    // the second is part of the loop below).
    while let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        let (found, high) = newlines_high(block);
        if found != 0 {
            return ends_in(utf8, pos, found, high);
        }
        utf8.check(buf, pos, high);
        pos += 64;
        if pos == 128 {
            break;
        }
    }
    // Then 128 bytes a turn, one test and one branch for four loads, as `memchr`'s own loop,
    // to the end (a line of 1.1 KiB: ~70 instructions fewer than blocks of 64 up to 512
    // bytes, then `memchr` for the rest, which cost its set-up again).
    while let Some(chunk) = buf.get(pos..).and_then(<[u8]>::first_chunk::<128>) {
        let x = [0, 32, 64, 96].map(|at| load(chunk, at));
        let [a, b, c, d] = x.map(eq);
        let any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
        let raw = _mm256_or_si256(_mm256_or_si256(x[0], x[1]), _mm256_or_si256(x[2], x[3]));
        if _mm256_testz_si256(any, any) == 0 || _mm256_movemask_epi8(raw) != 0 {
            let first = movemask64(a, b);
            if first != 0 {
                return ends_in(utf8, pos, first, movemask64(x[0], x[1]));
            }
            utf8.check(buf, pos, movemask64(x[0], x[1]));
            let second = movemask64(c, d);
            if second != 0 {
                return ends_in(utf8, pos + 64, second, movemask64(x[2], x[3]));
            }
            utf8.check(buf, pos + 64, movemask64(x[2], x[3]));
        }
        pos += 128;
    }
    if let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        let (found, high) = newlines_high(block);
        if found != 0 {
            return ends_in(utf8, pos, found, high);
        }
        utf8.check(buf, pos, high);
        pos += 64;
    }
    // Fewer than 64 bytes left: the buffer's last 64 bytes, those before `pos` shifted out
    // (they hold no `\n`), or a short buffer byte by byte.
    let rest = buf.len() - pos;
    if rest == 0 {
        return (None, utf8.known(buf.len()));
    }
    match buf.last_chunk::<64>() {
        Some(last) => {
            let (found, high) = newlines_high(last);
            let (found, high) = (found >> (64 - rest), high >> (64 - rest));
            if found != 0 {
                return ends_in(utf8, pos, found, high);
            }
            utf8.check(buf, pos, high);
            (None, utf8.known(buf.len()))
        }
        None => {
            let nl = buf.iter().position(|&b| b == b'\n');
            let line = &buf[..nl.unwrap_or(buf.len())];
            (nl, utf8_prefix(line))
        }
    }
}

/// [`line_end_avx2`] on AVX-512BW: a block of 64 bytes is one load, and its `\n` and its
/// bytes that are not ASCII are two masks; the bytes past the last whole block are one masked
/// load (the bytes it leaves out read as 0, neither `\n` nor outside ASCII). Half the
/// instructions of the AVX2 search a block, and no byte loop for a line shorter than a block.
///
/// As [`line_end_avx2`], it needs POPCNT and BMI1 beyond its `target_feature` list.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(super) fn line_end_wide(buf: &[u8]) -> (Option<usize>, usize) {
    let nl = _mm512_set1_epi8(b'\n' as i8);
    // Bit `i` set where byte `i` of `block` is `\n`, and where it is not ASCII.
    let newlines_high = |block: __m512i| {
        (
            _mm512_cmpeq_epi8_mask(block, nl),
            _mm512_movepi8_mask(block),
        )
    };
    let mut utf8 = Utf8Prefix::new();
    let mut pos = 0;
    while let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        // SAFETY: `block` is 64 readable bytes; `loadu` has no alignment requirement.
        let (found, high) = newlines_high(unsafe { _mm512_loadu_si512(block.as_ptr().cast()) });
        if found != 0 {
            return ends_in(buf, utf8, pos, found, high);
        }
        utf8.check(buf, pos, high);
        pos += 64;
    }
    let rest = &buf[pos..];
    if rest.is_empty() {
        return (None, utf8.known(buf.len()));
    }
    // SAFETY: the mask selects the first `rest.len()` bytes (fewer than 64), all of them in
    // `rest`; a masked load does not read the bytes it masks off, nor faults on them. `loadu`
    // has no alignment requirement.
    let block =
        unsafe { _mm512_maskz_loadu_epi8(low_bits(rest.len() as u32), rest.as_ptr().cast()) };
    let (found, high) = newlines_high(block);
    if found != 0 {
        return ends_in(buf, utf8, pos, found, high);
    }
    utf8.check(buf, pos, high);
    (None, utf8.known(buf.len()))
}

/// The answer of a line search for the block at `pos` of `buf` whose first `\n` is the lowest
/// bit of `found` (not 0), its bytes that are not ASCII the bits of `high`: the bytes before
/// the `\n` are the line's (their characters checked), those after it the next line's.
#[inline(always)]
fn ends_in(
    buf: &[u8],
    mut utf8: Utf8Prefix,
    pos: usize,
    found: u64,
    high: u64,
) -> (Option<usize>, usize) {
    let at = pos + found.trailing_zeros() as usize;
    utf8.check(buf, pos, high & below_lowest(found));
    (Some(at), utf8.known(at))
}

/// A block with more bytes that are not ASCII than this ends [`line_end_avx2`]'s UTF-8 check:
/// text in a script outside ASCII is checked as a whole faster (by the caller's validator)
/// than character by character.
const SPARSE: u32 = 12;

/// The UTF-8 check that [`line_end_avx2`] makes on its way: how far the line is known to be
/// UTF-8, and whether the check still goes on.
#[derive(Clone, Copy)]
struct Utf8Prefix {
    /// Bytes before this are UTF-8, and it is a character boundary.
    checked: usize,
    /// Whether every block so far was checked (else `checked` stays where the check ended).
    on: bool,
}

impl Utf8Prefix {
    fn new() -> Self {
        Utf8Prefix {
            checked: 0,
            on: true,
        }
    }

    /// How many bytes of a line that ends at `end` are known UTF-8, once every block before
    /// `end` went through [`Self::check`].
    #[inline(always)]
    fn known(self, end: usize) -> usize {
        if self.on { end } else { self.checked.min(end) }
    }

    /// Checks the characters that start in the block at `pos` of `buf`, whose bytes that are
    /// not ASCII are the bits of `high` (bit `i` for `buf[pos + i]`): a character may reach
    /// into the next block, and one from the block before into this one. The check ends at a
    /// character that is not UTF-8 (one cut by the line's end is not) or at a block with more
    /// than [`SPARSE`] bytes that are not ASCII.
    #[inline(always)]
    fn check(&mut self, buf: &[u8], pos: usize, high: u64) {
        if high != 0 && self.on {
            // SAFETY: only `line_end_avx2` and `line_end_wide` check, whose callers must prove
            // POPCNT and BMI1 beyond their `target_feature` lists (their docs say so); both are
            // called only with an `Avx2`, which proved them.
            unsafe { self.check_chars(buf, pos, high) }
        }
    }

    /// [`Self::check`] of a block with bytes that are not ASCII, out of line: ASCII lines, the
    /// usual case, keep the search loop short.
    #[inline(never)]
    #[target_feature(enable = "popcnt,bmi1")]
    fn check_chars(&mut self, buf: &[u8], pos: usize, mut high: u64) {
        // The continuation bytes of a character from the block before (at most three).
        if self.checked > pos {
            high &= u64::MAX << (self.checked - pos);
        }
        // Every block before this one was checked: what it left unchecked is ASCII, so the
        // line is known UTF-8 to this block's start at least (a character that reaches into
        // it, to that character's end).
        self.checked = self.checked.max(pos);
        if high.count_ones() > SPARSE {
            self.on = false;
            return;
        }
        while high != 0 {
            let at = pos + high.trailing_zeros() as usize;
            let Some(len) = utf8_char_len(buf, at) else {
                // The bytes before this character are ASCII or checked characters.
                self.checked = at;
                self.on = false;
                return;
            };
            self.checked = at + len;
            let past = self.checked - pos;
            high = if past >= 64 {
                0
            } else {
                high & (u64::MAX << past)
            };
        }
    }
}

/// The bits below the lowest set bit of `x` (all of them when none is set).
#[inline(always)]
fn below_lowest(x: u64) -> u64 {
    !x & x.wrapping_sub(1)
}

/// `buf.len()` when every byte of `buf` is ASCII; otherwise the start of the first 64-byte
/// block (or of the tail) that holds a byte that is not, which is at or before that byte.
#[target_feature(enable = "avx2")]
pub(super) fn ascii_prefix_avx2(buf: &[u8]) -> usize {
    // SAFETY: `chunk` is 32 readable bytes; `loadu` has no alignment requirement.
    let load = |chunk: &[u8; 32]| unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
    let mut pos = 0;
    while let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        // SAFETY: `block` is 64 readable bytes; `loadu` has no alignment requirement.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(block.as_ptr().cast()),
                _mm256_loadu_si256(block.as_ptr().add(32).cast()),
            )
        };
        if _mm256_movemask_epi8(_mm256_or_si256(lo, hi)) != 0 {
            return pos;
        }
        pos += 64;
    }
    // Fewer than 64 bytes left: the first and the last 32 bytes of the rest, or the last 32
    // bytes of the buffer (those before `pos` are known ASCII), or the bytes one by one.
    let rest = &buf[pos..];
    let high = match (rest.first_chunk::<32>(), buf.last_chunk::<32>()) {
        (Some(first), Some(last)) => _mm256_movemask_epi8(_mm256_or_si256(load(first), load(last))),
        (None, Some(last)) if !rest.is_empty() => _mm256_movemask_epi8(load(last)),
        _ => i32::from(!rest.is_ascii()),
    };
    if high == 0 { buf.len() } else { pos }
}

/// The length of the UTF-8 character that starts at `buf[at]`, a byte that is not ASCII, when
/// it is one (the well-formed sequences of Unicode's table 3-7: no overlong form, no
/// surrogate, nothing past U+10FFFF, not cut short by the end of `buf`); `None` otherwise.
#[inline(always)]
fn utf8_char_len(buf: &[u8], at: usize) -> Option<usize> {
    let byte = |k: usize| buf.get(at + k).copied().unwrap_or(0);
    let tail = |k: usize| byte(k) & 0xc0 == 0x80;
    // The range the second byte must be in, by lead byte; the others are any continuation.
    let (len, second) = match byte(0) {
        0xc2..=0xdf => (2, 0x80..=0xbf),
        0xe0 => (3, 0xa0..=0xbf),
        0xe1..=0xec | 0xee..=0xef => (3, 0x80..=0xbf),
        0xed => (3, 0x80..=0x9f),
        0xf0 => (4, 0x90..=0xbf),
        0xf1..=0xf3 => (4, 0x80..=0xbf),
        0xf4 => (4, 0x80..=0x8f),
        _ => return None,
    };
    let valid = second.contains(&byte(1)) && (len < 3 || tail(2)) && (len < 4 || tail(3));
    valid.then_some(len)
}

#[cfg(test)]
mod tests {
    use super::utf8_char_len;

    /// `utf8_char_len` agrees with `core::str::from_utf8` on every lead byte that is not ASCII
    /// and every second byte, with third and fourth bytes at the edges of the continuation
    /// range and outside it, and cut short by the end of the buffer.
    #[test]
    fn utf8_char_len_agrees_with_core() {
        // (Under Miri, interpreted: one lead byte of each class and the edges of the ranges.)
        let edges: &[u8] = if cfg!(miri) {
            &[0x41, 0x80, 0xc0]
        } else {
            &[
                0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xf0, 0xff,
            ]
        };
        let (leads, seconds): (Vec<u8>, Vec<u8>) = if cfg!(miri) {
            (
                vec![
                    0x80, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xf0, 0xf1, 0xf4, 0xf5,
                ],
                vec![0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0],
            )
        } else {
            ((0x80..=0xff).collect(), (0..=255).collect())
        };
        for &b0 in &leads {
            for &b1 in &seconds {
                for &b2 in edges {
                    for &b3 in edges {
                        let buf = [b0, b1, b2, b3];
                        for cut in 1..=4 {
                            let buf = &buf[..cut];
                            let want = (1..=cut).find(|&n| core::str::from_utf8(&buf[..n]).is_ok());
                            assert_eq!(utf8_char_len(buf, 0), want, "{buf:x?}");
                        }
                    }
                }
            }
        }
    }
}
