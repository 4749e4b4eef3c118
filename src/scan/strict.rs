//! The strict container skip, shaped for the branch predictor: the same grammar and the same
//! errors as [`scalar::skip_container_strict`] (the oracle, tested against it), but written as
//! recursive descent flattened into two loops ("at a value" and "after a value") instead of
//! one loop dispatching on a state variable, whose indirect jump mispredicted on almost
//! every token.

use super::scalar::{self, skip_ws};
use super::{NestingStack, ScanError, fast_plain_key_colon, fast_string_end, portable};

/// The string scanner of a walk: the fastest of this target, or with `PORTABLE` the
/// [`portable`] one (the fastest where there is no SIMD kernel; the other instance tests it
/// where there is one).
#[inline(always)]
fn string_end<const PORTABLE: bool>(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    if PORTABLE {
        portable::string_end(buf, start)
    } else {
        fast_string_end(buf, start)
    }
}

/// Bytes that stand for themselves in a string body: not `"`, `\\`, nor a control byte.
static PLAIN: [bool; 256] = {
    let mut t = [true; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = false;
        b += 1;
    }
    t[b'"' as usize] = false;
    t[b'\\' as usize] = false;
    t
};

/// The index after a key's closing quote and colon, when the key body at `start` is one to
/// three plain bytes and the colon follows at once (`"id":`, `"x":`); `None` otherwise (the
/// caller then takes the longer way). Byte by byte on purpose: each step is a branch the
/// predictor learns from the shape of the data, so the next position is known at once; the
/// 16-byte probe makes it wait for a load, compares, a mask and a count, about a dozen
/// cycles on the walk's critical path for every key.
#[inline(always)]
fn short_key_colon(buf: &[u8], start: usize) -> Option<usize> {
    let w = buf.get(start..)?.first_chunk::<5>()?;
    let plain = |b: u8| PLAIN[usize::from(b)];
    if !plain(w[0]) {
        return None;
    }
    if w[1] == b'"' {
        return (w[2] == b':').then_some(start + 3);
    }
    if !plain(w[1]) {
        return None;
    }
    if w[2] == b'"' {
        return (w[3] == b':').then_some(start + 4);
    }
    if !plain(w[2]) {
        return None;
    }
    (w[3] == b'"' && w[4] == b':').then_some(start + 5)
}

/// At a key (whitespace before it allowed): the key string, whitespace, the colon. Returns
/// the index after the colon. Compact JSON (no whitespace) takes one compare per step.
#[inline(always)]
fn key_colon<const PORTABLE: bool>(buf: &[u8], mut i: usize) -> Result<usize, ScanError> {
    if buf.get(i) != Some(&b'"') {
        i = skip_ws(buf, i);
        match buf.get(i) {
            Some(b'"') => {}
            Some(_) => return Err(ScanError::UnexpectedByte),
            None => return Err(ScanError::UnexpectedEnd),
        }
    }
    if let Some(after_colon) = short_key_colon(buf, i + 1) {
        return Ok(after_colon);
    }
    if !PORTABLE && let Some(after_colon) = fast_plain_key_colon(buf, i + 1) {
        return Ok(after_colon);
    }
    let (close, _) = string_end::<PORTABLE>(buf, i + 1)?;
    // Compact JSON: the colon right after the key.
    if buf.get(close + 1) == Some(&b':') {
        return Ok(close + 2);
    }
    let i = skip_ws(buf, close + 1);
    match buf.get(i) {
        Some(b':') => Ok(i + 1),
        Some(_) => Err(ScanError::UnexpectedByte),
        None => Err(ScanError::UnexpectedEnd),
    }
}

/// The first byte at or after `*i` that is not whitespace; `*i` moves to it. In compact JSON
/// (the usual case) that is one compare.
#[inline(always)]
fn next_byte(buf: &[u8], i: &mut usize) -> Result<u8, ScanError> {
    match buf.get(*i) {
        Some(&b) if b > b' ' => Ok(b),
        _ => {
            *i = skip_ws(buf, *i);
            buf.get(*i).copied().ok_or(ScanError::UnexpectedEnd)
        }
    }
}

/// [`scalar::literal_end`] for the literal at `i`, inline: a valid `true`, `false` or `null`
/// by fixed-size compares, anything else (misspelt, cut short) by the oracle.
#[inline(always)]
fn literal_end(buf: &[u8], i: usize) -> Result<usize, ScanError> {
    if let Some(word) = buf.get(i..).and_then(|rest| rest.first_chunk::<5>()) {
        match word {
            [b't', b'r', b'u', b'e', _] | [b'n', b'u', b'l', b'l', _] => return Ok(i + 4),
            b"false" => return Ok(i + 5),
            _ => {}
        }
    }
    scalar::literal_end(buf, i)
}

/// [`scalar::skip_container_strict`], with strings scanned by the fastest string kernel (with
/// `PORTABLE`, by the portable one).
#[inline]
pub(crate) fn skip_container_strict<const PORTABLE: bool>(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
) -> Result<usize, ScanError> {
    debug_assert!(matches!(buf.get(start), Some(b'{' | b'[')));
    // How many more containers may open: `depth + open >= max_depth` is the oracle's "too
    // deep", and a depth already at the limit leaves no room at all.
    let mut room = max_depth.saturating_sub(depth);
    let mut stack = NestingStack::new();
    let mut i = start;
    loop {
        // At a value.
        let b = next_byte(buf, &mut i)?;
        match b {
            b'{' | b'[' => {
                if room == 0 {
                    return Err(ScanError::TooDeep);
                }
                room -= 1;
                let is_object = b == b'{';
                stack.push(is_object);
                // Compact JSON: an object's first key right after its brace.
                if is_object && buf.get(i + 1) == Some(&b'"') {
                    i = key_colon::<PORTABLE>(buf, i + 1)?;
                    continue;
                }
                i = skip_ws(buf, i + 1);
                let empty = if is_object { b'}' } else { b']' };
                if buf.get(i) == Some(&empty) {
                    room += 1;
                    i += 1;
                    if stack.pop_is_last() {
                        return Ok(i);
                    }
                    // Fall through to "after a value".
                } else if is_object {
                    i = key_colon::<PORTABLE>(buf, i)?;
                    continue;
                } else {
                    continue;
                }
            }
            b'"' => i = string_end::<PORTABLE>(buf, i + 1)?.0 + 1,
            b'1'..=b'9' => {
                // Integers, the common case, inline: digits then anything that cannot
                // continue a number (not `.`, `e`, `E`) is exactly where `number_end` stops.
                let mut j = i + 1;
                while j < buf.len() && buf[j].is_ascii_digit() {
                    j += 1;
                }
                i = match buf.get(j) {
                    Some(b'.' | b'e' | b'E') => scalar::number_end(buf, i)?,
                    _ => j,
                };
            }
            b't' | b'f' | b'n' => i = literal_end(buf, i)?,
            _ => i = scalar::scalar_end(buf, i)?,
        }
        // After a value: a comma (then a value, or a key and a value) or closing brackets.
        loop {
            let b = next_byte(buf, &mut i)?;
            if b == b',' {
                i += 1;
                if stack.top_is_object() {
                    i = key_colon::<PORTABLE>(buf, i)?;
                }
                break;
            }
            match b {
                b'}' | b']' if (b == b'}') == stack.top_is_object() => {
                    room += 1;
                    i += 1;
                    if stack.pop_is_last() {
                        return Ok(i);
                    }
                }
                b'}' | b']' => return Err(ScanError::Mismatched),
                _ => return Err(ScanError::UnexpectedByte),
            }
        }
    }
}
