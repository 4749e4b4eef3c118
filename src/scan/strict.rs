//! The strict container skip, shaped for the branch predictor: the same grammar and the same
//! errors as [`scalar::skip_container_strict`] (the oracle, tested against it), but written as
//! recursive descent flattened into two loops ("at a value" and "after a value") instead of
//! one loop dispatching on a state variable, whose indirect jump mispredicted on almost
//! every token.

use super::scalar::{self, skip_ws};
use super::{fast_plain_key_colon, fast_string_end as string_end, NestingStack, ScanError};

/// At a key (whitespace before it allowed): the key string, whitespace, the colon. Returns
/// the index after the colon. Compact JSON (no whitespace) takes one compare per step.
#[inline(always)]
fn key_colon(buf: &[u8], mut i: usize) -> Result<usize, ScanError> {
    if buf.get(i) != Some(&b'"') {
        i = skip_ws(buf, i);
        match buf.get(i) {
            Some(b'"') => {}
            Some(_) => return Err(ScanError::UnexpectedByte),
            None => return Err(ScanError::UnexpectedEnd),
        }
    }
    if let Some(after_colon) = fast_plain_key_colon(buf, i + 1) {
        return Ok(after_colon);
    }
    let (close, _) = string_end(buf, i + 1)?;
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

/// [`scalar::skip_container_strict`], with strings scanned by the fastest string kernel.
#[inline]
pub(crate) fn skip_container_strict(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
) -> Result<usize, ScanError> {
    let mut stack = NestingStack::new();
    let mut level = depth;
    let mut i = start;
    loop {
        // At a value.
        i = skip_ws(buf, i);
        let Some(&b) = buf.get(i) else {
            return Err(ScanError::UnexpectedEnd);
        };
        match b {
            b'{' | b'[' => {
                // (Compared before the increment: no overflow at `u32::MAX`.)
                if level >= max_depth {
                    return Err(ScanError::TooDeep);
                }
                level += 1;
                let is_object = b == b'{';
                stack.push(is_object)?;
                // Compact JSON: an object's first key right after its brace.
                if is_object && buf.get(i + 1) == Some(&b'"') {
                    i = key_colon(buf, i + 1)?;
                    continue;
                }
                i = skip_ws(buf, i + 1);
                let empty = if is_object { b'}' } else { b']' };
                if buf.get(i) == Some(&empty) {
                    stack.pop();
                    level -= 1;
                    i += 1;
                    if stack.is_empty() {
                        return Ok(i);
                    }
                    // Fall through to "after a value".
                } else if is_object {
                    i = key_colon(buf, i)?;
                    continue;
                } else {
                    continue;
                }
            }
            b'"' => i = string_end(buf, i + 1)?.0 + 1,
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
            _ => i = scalar::scalar_end(buf, i)?,
        }
        // After a value: a comma (then a value, or a key and a value) or closing brackets.
        loop {
            let b = next_byte(buf, &mut i)?;
            let in_object = stack.top() == Some(true);
            match b {
                b',' => {
                    i += 1;
                    if in_object {
                        i = key_colon(buf, i)?;
                    }
                    break;
                }
                b'}' | b']' if (b == b'}') == in_object => {
                    stack.pop();
                    level -= 1;
                    i += 1;
                    if stack.is_empty() {
                        return Ok(i);
                    }
                }
                b'}' | b']' => return Err(ScanError::Mismatched),
                _ => return Err(ScanError::UnexpectedByte),
            }
        }
    }
}
