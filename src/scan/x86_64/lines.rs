//! Scans over a whole line, 64 bytes at a time: where it ends and how much of it is ASCII
//! ([`line_end_avx2`]), and how much of a frame is ASCII ([`ascii_prefix_avx2`]).

use core::arch::x86_64::*;

use super::block::movemask64;

/// The index of the first `\n` in `buf`, and how many bytes before it (or of `buf`, when
/// there is none) are ASCII at least: all of them exactly when all are, else the start of a
/// 64- or 128-byte chunk at or before the first that is not (the SIMD UTF-8 check of a
/// line then starts there, if at all: one pass over a line finds both). A line is found in
/// the first block or the next few, so this is `memchr` without its set-up (a dispatch
/// through a pointer, alignment), which cost more than the search on a short line.
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
    // The answer for a block at `pos` whose first `\n` is the lowest bit of `found` (not 0):
    // the bytes before it in the block count for ASCII, those after it are the next line's.
    let ends_in = |pos: usize, found: u64, high: u64, ascii: usize| {
        let before = high & below_lowest(found);
        let ascii = if before != 0 { ascii.min(pos) } else { ascii };
        let at = pos + found.trailing_zeros() as usize;
        (Some(at), ascii.min(at))
    };
    // Where the first chunk holding a byte that is not ASCII starts (`usize::MAX`: none yet).
    let mut ascii = usize::MAX;
    let mut pos = 0;
    // The first two blocks one by one: most lines end in them (tiny +1 % instructions when
    // the second is part of the loop below).
    while let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        let (found, high) = newlines_high(block);
        if found != 0 {
            return ends_in(pos, found, high, ascii);
        }
        if high != 0 {
            ascii = ascii.min(pos);
        }
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
        if _mm256_testz_si256(any, any) == 0 {
            let first = movemask64(a, b);
            if first != 0 {
                return ends_in(pos, first, movemask64(x[0], x[1]), ascii);
            }
            if movemask64(x[0], x[1]) != 0 {
                ascii = ascii.min(pos);
            }
            return ends_in(pos + 64, movemask64(c, d), movemask64(x[2], x[3]), ascii);
        }
        let raw = _mm256_or_si256(_mm256_or_si256(x[0], x[1]), _mm256_or_si256(x[2], x[3]));
        if _mm256_movemask_epi8(raw) != 0 {
            ascii = ascii.min(pos);
        }
        pos += 128;
    }
    if let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        let (found, high) = newlines_high(block);
        if found != 0 {
            return ends_in(pos, found, high, ascii);
        }
        if high != 0 {
            ascii = ascii.min(pos);
        }
        pos += 64;
    }
    // Fewer than 64 bytes left: the buffer's last 64 bytes, those before `pos` shifted out
    // (they hold no `\n`), or a short buffer byte by byte.
    let rest = buf.len() - pos;
    if rest == 0 {
        return (None, ascii.min(buf.len()));
    }
    match buf.last_chunk::<64>() {
        Some(last) => {
            let (found, high) = newlines_high(last);
            let (found, high) = (found >> (64 - rest), high >> (64 - rest));
            if found != 0 {
                return ends_in(pos, found, high, ascii);
            }
            if high != 0 {
                ascii = ascii.min(pos);
            }
            (None, ascii.min(buf.len()))
        }
        None => {
            let nl = buf.iter().position(|&b| b == b'\n');
            let line = &buf[..nl.unwrap_or(buf.len())];
            (
                nl,
                line.iter()
                    .position(|b| !b.is_ascii())
                    .unwrap_or(line.len()),
            )
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
    if high == 0 {
        buf.len()
    } else {
        pos
    }
}
