//! The portable, safe scanner: the reference every SIMD kernel is tested against, the path
//! Miri runs, and the fallback on CPUs without the SIMD features.
//!
//! Skipping is iterative (no recursion), so nesting depth costs a bit per level on a fixed
//! stack, never a call frame.

use super::{NestingStack, ScanError, Validation};

/// `true` for the four JSON whitespace bytes (RFC 8259 §2).
#[inline(always)]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Index of the first non-whitespace byte at or after `i` (or `buf.len()`).
#[inline(always)]
pub(crate) fn skip_ws(buf: &[u8], mut i: usize) -> usize {
    // Every whitespace byte is <= 0x20: a byte above it ends the run at once (the usual
    // case in compact JSON).
    if buf.get(i).is_some_and(|&b| b > b' ') {
        return i;
    }
    while i < buf.len() && is_ws(buf[i]) {
        i += 1;
    }
    i
}

/// Bytes that may appear outside strings inside a container in lazy mode: structure,
/// whitespace, and the characters numbers and the literals `true`/`false`/`null` are made of.
/// Anything else (`N`aN, `I`nfinity, comments, single quotes, NBSP) cannot be JSON.
pub(crate) const fn lazy_allowed_table() -> [bool; 256] {
    let mut t = [false; 256];
    let allowed = b" \t\n\r{}[],:0123456789-+.eEtrufalsn";
    let mut i = 0;
    while i < allowed.len() {
        t[allowed[i] as usize] = true;
        i += 1;
    }
    t
}

pub(crate) static LAZY_ALLOWED: [bool; 256] = lazy_allowed_table();

/// `buf.len()` when every byte of `buf` is ASCII, else 0 (the weakest answer the contract of
/// `ascii_prefix` allows: the caller then validates all of `buf` as UTF-8). The word-at-a-time
/// check of the standard library.
pub fn ascii_prefix(buf: &[u8]) -> usize {
    if buf.is_ascii() { buf.len() } else { 0 }
}

/// How many leading bytes of `line` are UTF-8 (all of them when it is).
pub(crate) fn utf8_prefix(line: &[u8]) -> usize {
    match core::str::from_utf8(line) {
        Ok(_) => line.len(),
        Err(e) => e.valid_up_to(),
    }
}

/// Scans the body of a string whose opening quote is at `start - 1`.
///
/// Returns the index of the closing quote and whether the body contains a backslash.
/// Accepts lone surrogate escapes (they are valid JSON text; the hardened profile checks
/// them separately).
///
/// # Errors
///
/// The first fault in the body: [`ScanError::ControlInString`] for a raw control character
/// (U+0000..U+001F); [`ScanError::BadEscape`] for a backslash followed by a byte JSON
/// defines no escape for, or a `\u` followed by a byte that is no hex digit within four;
/// [`ScanError::UnexpectedEnd`] when `buf` ends before the closing quote (inside an escape
/// too).
pub fn string_end(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    let mut i = start;
    let mut escaped = false;
    while i < buf.len() {
        let b = buf[i];
        match b {
            b'"' => return Ok((i, escaped)),
            b'\\' => {
                escaped = true;
                i = escape_end(buf, i)?;
                continue;
            }
            0x00..=0x1f => return Err(ScanError::ControlInString),
            _ => {}
        }
        i += 1;
    }
    Err(ScanError::UnexpectedEnd)
}

/// Validates the escape sequence whose backslash is at `i`; returns the index after it.
#[inline]
pub(crate) fn escape_end(buf: &[u8], i: usize) -> Result<usize, ScanError> {
    match buf.get(i + 1) {
        None => Err(ScanError::UnexpectedEnd),
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(i + 2),
        Some(b'u') => {
            // A byte that is no hex digit is a bad escape even when the input ends before the
            // fourth (`"\u1"` then the end: the quote is the error, not the end).
            let hex = &buf[i + 2..buf.len().min(i + 6)];
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                Err(ScanError::BadEscape)
            } else if hex.len() < 4 {
                Err(ScanError::UnexpectedEnd)
            } else {
                Ok(i + 6)
            }
        }
        Some(_) => Err(ScanError::BadEscape),
    }
}

/// Validates a number per RFC 8259 starting at `i`; returns the index after it. What
/// follows the number is not looked at: `01` is the number `0`, ending at index 1.
///
/// # Errors
///
/// Where a digit is required (first, after the optional `-`; after a `.`; after an `e` or
/// `E` and its optional sign): [`ScanError::BadNumber`] for another byte there,
/// [`ScanError::UnexpectedEnd`] when `buf` ends there.
#[inline]
pub fn number_end(buf: &[u8], mut i: usize) -> Result<usize, ScanError> {
    let digits = |buf: &[u8], mut i: usize| {
        let s = i;
        while i < buf.len() && buf[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - s)
    };
    if buf.get(i) == Some(&b'-') {
        i += 1;
    }
    match buf.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(buf, i).0,
        Some(_) => return Err(ScanError::BadNumber),
        None => return Err(ScanError::UnexpectedEnd),
    }
    // A fraction or an exponent needs at least one digit.
    let required_digits = |i: usize| match digits(buf, i) {
        (_, 0) if i >= buf.len() => Err(ScanError::UnexpectedEnd),
        (_, 0) => Err(ScanError::BadNumber),
        (j, _) => Ok(j),
    };
    if buf.get(i) == Some(&b'.') {
        i = required_digits(i + 1)?;
    }
    if matches!(buf.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(buf.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        i = required_digits(i)?;
    }
    Ok(i)
}

/// Validates one of the literals `true`, `false`, `null` at `i`; returns the index after it.
#[inline]
pub(crate) fn literal_end(buf: &[u8], i: usize) -> Result<usize, ScanError> {
    // The valid literals by fixed-size compares (a 4-byte word each): the general compare
    // below has a run-time length and became a `memcmp` call (4 % of strict dense).
    if let Some(&word) = buf.get(i..).and_then(|rest| rest.first_chunk::<4>()) {
        match &word {
            b"true" | b"null" => return Ok(i + 4),
            b"fals" if buf.get(i + 4) == Some(&b'e') => return Ok(i + 5),
            _ => {}
        }
    }
    let lit: &[u8] = match buf[i] {
        b't' => b"true",
        b'f' => b"false",
        b'n' => b"null",
        _ => return Err(ScanError::UnexpectedByte),
    };
    match buf.get(i..i + lit.len()) {
        Some(s) if s == lit => Ok(i + lit.len()),
        Some(_) => Err(ScanError::UnexpectedByte),
        None if buf[i..] == lit[..buf.len() - i] => Err(ScanError::UnexpectedEnd),
        None => Err(ScanError::UnexpectedByte),
    }
}

/// Skips one scalar (string, number, literal) at `i`; returns the index after it.
#[inline]
pub(crate) fn scalar_end(buf: &[u8], i: usize) -> Result<usize, ScanError> {
    scalar_end_with(buf, i, string_end)
}

/// [`scalar_end`] with strings scanned by `string_end` (the scalar one, or a SIMD twin with
/// the same results).
#[inline(always)]
pub(crate) fn scalar_end_with<S>(buf: &[u8], i: usize, string_end: S) -> Result<usize, ScanError>
where
    S: Fn(&[u8], usize) -> Result<(usize, bool), ScanError>,
{
    match buf[i] {
        b'"' => string_end(buf, i + 1).map(|(end, _)| end + 1),
        b'-' | b'0'..=b'9' => number_end(buf, i),
        b't' | b'f' | b'n' => literal_end(buf, i),
        _ => Err(ScanError::UnexpectedByte),
    }
}

/// Skips the container that opens at `buf[i]` (`{` or `[`), already at nesting `depth`
/// (the container itself counts one more). Returns the index after its closing bracket.
///
/// # Errors
///
/// Those of [`skip_container_lazy`] or [`skip_container_strict`], as `validation` says.
pub fn skip_container(
    buf: &[u8],
    i: usize,
    depth: u32,
    max_depth: u32,
    validation: Validation,
) -> Result<usize, ScanError> {
    match validation {
        Validation::Lazy => skip_container_lazy(buf, i, depth, max_depth),
        Validation::Strict => skip_container_strict(buf, i, depth, max_depth),
    }
}

/// Lazy skip: strings fully checked (closed, valid escapes, no raw control bytes), brackets
/// matched and correctly nested, depth limited, and every byte outside strings drawn from the
/// JSON alphabet. Token order (commas, colons, the spelling of numbers) is not checked.
///
/// # Errors
///
/// The first fault met: [`ScanError::TooDeep`] for a bracket that opens past `max_depth`;
/// [`ScanError::Mismatched`] for a closing bracket that does not match the innermost open
/// one; [`ScanError::UnexpectedByte`] for a byte outside strings that is not in the JSON
/// alphabet; the errors of [`string_end`] for a string; [`ScanError::UnexpectedEnd`] when
/// `buf` ends before the container closes.
pub fn skip_container_lazy(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
) -> Result<usize, ScanError> {
    skip_container_lazy_with::<false, _>(buf, start, depth, max_depth, string_end)
}

/// [`skip_container_lazy`] for a value that must end on its line: a `\n` outside strings
/// ends the line, and the value unclosed there is [`ScanError::UnexpectedEnd`] (inside a
/// string it is a raw control byte, an error already). Never reads past the line.
pub(crate) fn skip_container_lazy_on_line(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
) -> Result<usize, ScanError> {
    skip_container_lazy_with::<true, _>(buf, start, depth, max_depth, string_end)
}

/// [`skip_container_lazy`] (with `ONE_LINE`, [`skip_container_lazy_on_line`]) with strings
/// scanned by `string_end` (the scalar one, or a faster twin with the same results): one walk
/// for every kernel that has no container skip of its own.
#[inline(always)]
pub(crate) fn skip_container_lazy_with<const ONE_LINE: bool, S>(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    string_end: S,
) -> Result<usize, ScanError>
where
    S: Fn(&[u8], usize) -> Result<(usize, bool), ScanError>,
{
    let mut stack = NestingStack::new();
    let mut i = start;
    let mut level = depth;
    while i < buf.len() {
        let b = buf[i];
        match b {
            b'"' => {
                i = string_end(buf, i + 1)?.0 + 1;
                continue;
            }
            b'{' | b'[' => {
                if level >= max_depth {
                    return Err(ScanError::TooDeep);
                }
                level += 1;
                stack.push(b == b'{');
            }
            b'}' | b']' => {
                if stack.pop() != Some(b == b'}') {
                    return Err(ScanError::Mismatched);
                }
                level -= 1;
                if stack.is_empty() {
                    return Ok(i + 1);
                }
            }
            b'\n' if ONE_LINE => return Err(ScanError::UnexpectedEnd),
            _ if LAZY_ALLOWED[b as usize] => {}
            _ => return Err(ScanError::UnexpectedByte),
        }
        i += 1;
    }
    Err(ScanError::UnexpectedEnd)
}

/// Strict skip: the container is validated against the full RFC 8259 grammar.
///
/// # Errors
///
/// The first fault met: [`ScanError::UnexpectedByte`] when `buf[start]` is no bracket, or
/// for a byte the grammar does not allow where it stands (a missing comma or colon, a key
/// that is not a string, a misspelt literal, a closing bracket right after an opening one
/// it does not match, a comma or a colon: `{]`, `[1,}`); [`ScanError::Mismatched`] for a
/// closing bracket after a value that does not match the innermost open one (`[1}`);
/// [`ScanError::TooDeep`] for a bracket that opens past `max_depth`; the errors of
/// [`string_end`] and [`number_end`] for strings and numbers; [`ScanError::UnexpectedEnd`]
/// when `buf` ends before the container closes.
///
/// ```
/// use rpcwire::scan::scalar::skip_container_strict;
/// use rpcwire::ScanError;
/// assert_eq!(skip_container_strict(b"[1}", 0, 0, 8), Err(ScanError::Mismatched));
/// assert_eq!(skip_container_strict(b"[1,}", 0, 0, 8), Err(ScanError::UnexpectedByte));
/// assert_eq!(skip_container_strict(b"{]", 0, 0, 8), Err(ScanError::UnexpectedByte));
/// ```
pub fn skip_container_strict(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
) -> Result<usize, ScanError> {
    skip_container_strict_with(buf, start, depth, max_depth, string_end)
}

/// [`skip_container_strict`] with strings scanned by `string_end` (the scalar one, or a SIMD
/// twin with the same results): one grammar walk for every kernel.
#[inline(always)]
pub(crate) fn skip_container_strict_with<S>(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    string_end: S,
) -> Result<usize, ScanError>
where
    S: Fn(&[u8], usize) -> Result<(usize, bool), ScanError>,
{
    // States of the grammar walk inside a container.
    #[derive(Clone, Copy, PartialEq)]
    enum Expect {
        // after `{`: a key or `}`
        FirstKey,
        // after `,` in an object: a key
        Key,
        // after a key: `:`
        Colon,
        // after `[`: a value or `]`
        FirstValue,
        // after `:` or `,` in an array: a value
        Value,
        // after a value: `,` or the closing bracket
        Comma,
    }
    // A container, or the walk below would take `1]` for one (and close what it never
    // opened).
    match buf.get(start) {
        Some(b'{' | b'[') => {}
        Some(_) => return Err(ScanError::UnexpectedByte),
        None => return Err(ScanError::UnexpectedEnd),
    }
    let mut stack = NestingStack::new();
    let mut level = depth;
    let mut i = start;
    let mut expect = Expect::Value;
    loop {
        i = skip_ws(buf, i);
        let Some(&b) = buf.get(i) else {
            return Err(ScanError::UnexpectedEnd);
        };
        match expect {
            Expect::FirstKey | Expect::Key => match b {
                b'"' => {
                    i = string_end(buf, i + 1)?.0 + 1;
                    expect = Expect::Colon;
                }
                b'}' if expect == Expect::FirstKey => {
                    stack.pop();
                    level -= 1;
                    i += 1;
                    if stack.is_empty() {
                        return Ok(i);
                    }
                    expect = Expect::Comma;
                }
                _ => return Err(ScanError::UnexpectedByte),
            },
            Expect::Colon => {
                if b != b':' {
                    return Err(ScanError::UnexpectedByte);
                }
                i += 1;
                expect = Expect::Value;
            }
            Expect::FirstValue | Expect::Value => match b {
                b'{' | b'[' => {
                    if level >= max_depth {
                        return Err(ScanError::TooDeep);
                    }
                    level += 1;
                    stack.push(b == b'{');
                    i += 1;
                    expect = if b == b'{' {
                        Expect::FirstKey
                    } else {
                        Expect::FirstValue
                    };
                }
                b']' if expect == Expect::FirstValue => {
                    stack.pop();
                    level -= 1;
                    i += 1;
                    if stack.is_empty() {
                        return Ok(i);
                    }
                    expect = Expect::Comma;
                }
                _ => {
                    i = scalar_end_with(buf, i, &string_end)?;
                    expect = Expect::Comma;
                }
            },
            Expect::Comma => {
                let in_object = stack.top() == Some(true);
                match b {
                    b',' => {
                        i += 1;
                        expect = if in_object {
                            Expect::Key
                        } else {
                            Expect::Value
                        };
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
}
