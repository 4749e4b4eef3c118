//! Scans over a whole line, 64 bytes at a time: where it ends ([`newline_avx2`]) and how much
//! of it is ASCII ([`ascii_prefix_avx2`]).

use core::arch::x86_64::*;

use super::block::movemask64;

/// The index of the first `\n` in `buf`. A line is found in the first block or the next few,
/// so this is `memchr` without its set-up (a dispatch through a pointer, alignment), which
/// cost more than the search on a short line.
#[target_feature(enable = "avx2")]
pub(super) fn newline_avx2(buf: &[u8]) -> Option<usize> {
    let nl = _mm256_set1_epi8(b'\n' as i8);
    // 0xff where a byte of the 32 at `at` in `bytes` is `\n`.
    let eq = |bytes: &[u8], at: usize| {
        let half: &[u8; 32] = bytes[at..at + 32].try_into().unwrap();
        // SAFETY: `half` is 32 readable bytes; `loadu` has no alignment requirement.
        _mm256_cmpeq_epi8(unsafe { _mm256_loadu_si256(half.as_ptr().cast()) }, nl)
    };
    // Bit `i` set where byte `i` of `block` is `\n`.
    let newlines = |block: &[u8; 64]| movemask64(eq(block, 0), eq(block, 32));
    let mut pos = 0;
    // The first two blocks one by one: most lines end in them (tiny +1 % instructions when
    // the second is part of the loop below).
    while let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        let found = newlines(block);
        if found != 0 {
            return Some(pos + found.trailing_zeros() as usize);
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
        let [a, b, c, d] = [0, 32, 64, 96].map(|at| eq(chunk, at));
        let any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
        if _mm256_testz_si256(any, any) == 0 {
            let first = movemask64(a, b);
            return Some(if first != 0 {
                pos + first.trailing_zeros() as usize
            } else {
                pos + 64 + movemask64(c, d).trailing_zeros() as usize
            });
        }
        pos += 128;
    }
    if let Some(block) = buf.get(pos..).and_then(<[u8]>::first_chunk::<64>) {
        let found = newlines(block);
        if found != 0 {
            return Some(pos + found.trailing_zeros() as usize);
        }
        pos += 64;
    }
    // Fewer than 64 bytes left: the buffer's last 64 bytes, those before `pos` shifted out
    // (they hold no `\n`), or a short buffer byte by byte.
    let rest = buf.len() - pos;
    if rest == 0 {
        return None;
    }
    match buf.last_chunk::<64>() {
        Some(last) => {
            let found = newlines(last) >> (64 - rest);
            (found != 0).then(|| pos + found.trailing_zeros() as usize)
        }
        None => buf.iter().position(|&b| b == b'\n'),
    }
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
