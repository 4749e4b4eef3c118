//! Value skipping and string scanning: the one primitive the decoder uses to step over
//! everything it does not decode.
//!
//! [`skip_value`] is the safe entry point. It dispatches to the fastest kernel the CPU
//! supports; the portable [`scalar`] kernel is the reference the others are tested against
//! (`tests/scan_oracle.rs`): same end offset, same [`ScanError`] kind, on every input.
//!
//! - Lazy containers on x86_64 with AVX2 + PCLMULQDQ + BMI1/2 + POPCNT (detected at run time,
//!   cached): 64-byte blocks of bitmasks (`x86_64/`), classified with AVX-512BW where the
//!   CPU has it. Anything unusual in a block hands the whole value to the scalar oracle,
//!   which then gives the answer.
//! - Strings on x86_64: 16-byte SSE2 probes (SSE2 is baseline; targets without it, such as
//!   `x86_64-unknown-none`, take the scalar kernel), with a jump through long
//!   bodies by the AVX2 loop when present (its AVX-512 instance where the lazy kernel takes
//!   one).
//! - Strict containers: a flattened recursive-descent walk (`strict.rs`) using the fast string
//!   scanner.
//! - Other architectures (and x86_64 built with `RUSTFLAGS="--cfg rpcwire_portable"`, to
//!   measure and test what they run): the [`portable`] kernels, safe code that reads string
//!   bodies eight bytes at a time; lazy containers on x86_64 without AVX2 take the same walk
//!   with the SSE2 string scanner.
//! - Everything, on every target, after `force_scalar(true)` (for tests and benchmarks):
//!   the scalar kernel.

use core::sync::atomic::{AtomicBool, Ordering};

use smallvec::SmallVec;

pub mod portable;
pub mod scalar;
mod strict;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
#[allow(unsafe_code)]
mod x86_64;

/// Set by [`force_scalar`]: every entry point takes the scalar oracle.
static FORCE_SCALAR: AtomicBool = AtomicBool::new(false);

/// Makes every scan use the scalar oracle (`true`) or the fastest kernel the CPU supports
/// (`false`, the default). For benchmarks and tests.
#[doc(hidden)]
pub fn force_scalar(on: bool) {
    FORCE_SCALAR.store(on, Ordering::Relaxed);
}

/// Makes the lazy container skip and the long-string scan use their AVX2 instances even on a
/// CPU with AVX-512BW (`true`), or the fastest ones again (`false`). For the oracle tests of
/// both instances and for benchmarks; without AVX2, or forced to scalar, it changes nothing.
#[doc(hidden)]
pub fn force_avx2(on: bool) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    x86_64::force_avx2(on);
    let _ = on;
}

/// The name of the kernel [`skip_value`] uses for containers in lazy mode on this CPU, when
/// not forced to scalar: `"avx512"` (the AVX2 kernel, each block classified with AVX-512BW),
/// `"avx2"`, `"avx2 (slow pext)"` (without the shortcut that needs a fast `pext`), `"sse2"`
/// (strings only) or `"portable"`.
#[doc(hidden)]
pub fn simd_kernel() -> &'static str {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    {
        match x86_64::Avx2::get() {
            Some(avx2) if avx2.is_wide() => "avx512",
            Some(avx2) if avx2.has_fast_pext() => "avx2",
            Some(_) => "avx2 (slow pext)",
            None => "sse2",
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable))))]
    {
        "portable"
    }
}

/// How much of a payload value is checked while it is skipped: a decoder's
/// [`DecodeOptions::validation`](crate::DecodeOptions::validation). The envelope is
/// validated whole either way.
///
/// ```
/// use rpcwire::{DecodeOptions, Decoder, Validation};
/// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a" 1}}"#;
/// assert!(Decoder::mcp().decode(frame).is_ok()); // Lazy: delimited, not parsed
/// let strict = Decoder::new(DecodeOptions { validation: Validation::Strict, ..DecodeOptions::default() });
/// let reply = strict.decode(frame).unwrap_err().reply().unwrap();
/// assert_eq!(reply.code.get(), -32700);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Validation {
    /// Strings closed with valid escapes and no raw control bytes, brackets matched and
    /// correctly nested, depth limited, bytes outside strings drawn from the JSON alphabet.
    /// Scalars standing alone are fully validated. Token order inside containers
    /// (`{"a" 1}`) is not checked.
    #[default]
    Lazy,
    /// Full RFC 8259 validation of every value.
    Strict,
}

/// Why a value could not be skipped. Every variant means the frame is not JSON (-32700).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScanError {
    /// The input ended inside the value.
    UnexpectedEnd,
    /// A byte that cannot appear here.
    UnexpectedByte,
    /// A raw control character (U+0000..U+001F) inside a string.
    ControlInString,
    /// A backslash escape that JSON does not define.
    BadEscape,
    /// A malformed number.
    BadNumber,
    /// A closing bracket that does not match the innermost open one.
    Mismatched,
    /// Nesting deeper than the configured limit.
    TooDeep,
}

impl ScanError {
    /// A short description, suitable for the `data` of a parse-error reply.
    pub const fn as_str(self) -> &'static str {
        match self {
            ScanError::UnexpectedEnd => "unexpected end of input",
            ScanError::UnexpectedByte => "unexpected byte",
            ScanError::ControlInString => "raw control character in string",
            ScanError::BadEscape => "invalid escape sequence",
            ScanError::BadNumber => "malformed number",
            ScanError::Mismatched => "mismatched bracket",
            ScanError::TooDeep => "nesting too deep",
        }
    }
}

impl core::fmt::Display for ScanError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stack of one bit per open container (`true` = object): the innermost levels in one
/// word, innermost at bit 0, above a marker bit (`word == 1`: none open), so a push is a
/// shift and an or and a pop a shift and one compare; deeper levels are spilled 63 at a
/// time, out of line (inline for the first 252). The strict walk's hot path uses
/// [`Self::top_is_object`] and [`Self::pop_is_last`]; the oracle the checked forms.
pub(crate) struct NestingStack {
    /// The marker bit, then the innermost levels. It is `1` only when the stack is empty:
    /// a word that empties takes the next spilled one back at once.
    word: u64,
    /// Full words of the outer levels, outermost first.
    spilled: SmallVec<[u64; 4]>,
}

impl NestingStack {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        NestingStack {
            word: 1,
            spilled: SmallVec::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, is_object: bool) {
        // The marker at the top bit: the word is full.
        if self.word >> 63 != 0 {
            spill(&mut self.spilled, self.word);
            self.word = 1;
        }
        self.word = (self.word << 1) | u64::from(is_object);
    }

    /// Whether the innermost open container is an object (one must be open).
    #[inline(always)]
    pub(crate) fn top_is_object(&self) -> bool {
        self.word & 1 != 0
    }

    /// Closes the innermost container (one must be open); `true` when that was the last.
    #[inline(always)]
    pub(crate) fn pop_is_last(&mut self) -> bool {
        self.word >>= 1;
        if self.word != 1 {
            return false;
        }
        if self.spilled.is_empty() {
            return true;
        }
        // The word emptied: the next spilled one comes back.
        self.word = unspill(&mut self.spilled);
        false
    }

    /// The innermost container's kind, `None` when none is open.
    #[inline(always)]
    pub(crate) fn top(&self) -> Option<bool> {
        (!self.is_empty()).then_some(self.top_is_object())
    }

    /// Closes the innermost container: its kind, `None` when none is open.
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<bool> {
        let top = self.top()?;
        self.pop_is_last();
        Some(top)
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.word == 1
    }
}

/// [`NestingStack::push`] with its word full: out of line and cold (past 63 levels), so the
/// hot walk carries none of the vector's growth code.
#[cold]
#[inline(never)]
fn spill(spilled: &mut SmallVec<[u64; 4]>, word: u64) {
    spilled.push(word);
}

/// [`NestingStack::pop_is_last`] with its word emptied and a spilled one to take back.
#[cold]
#[inline(never)]
fn unspill(spilled: &mut SmallVec<[u64; 4]>) -> u64 {
    spilled.pop().unwrap_or(1)
}

/// Skips the JSON value that starts at `buf[start]` (no leading whitespace), nested inside
/// `depth` open containers. Returns the index just after the value.
///
/// The result (end offset or error kind) is exactly the scalar oracle's
/// ([`scalar::skip_container`] for containers) on every input; only the speed depends on the
/// kernel chosen for the CPU.
///
/// # Errors
///
/// The oracle's [`ScanError`]: [`ScanError::UnexpectedEnd`] when `start` is not inside
/// `buf`; for a container, those of [`scalar::skip_container`]; for a string, those of
/// [`scalar::string_end`]; for a number, those of [`scalar::number_end`]; else
/// [`ScanError::UnexpectedByte`], unless the value is `true`, `false` or `null`
/// ([`ScanError::UnexpectedEnd`] for one that `buf` cuts short).
///
/// ```
/// use rpcwire::scan::{skip_value, Validation};
/// let buf = br#"{"a":[1,"]"]} tail"#;
/// assert_eq!(skip_value(buf, 0, 0, 128, Validation::Lazy), Ok(13));
/// ```
#[inline]
pub fn skip_value(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    validation: Validation,
) -> Result<usize, ScanError> {
    if FORCE_SCALAR.load(Ordering::Relaxed) {
        return scalar_skip_value(buf, start, depth, max_depth, validation);
    }
    simd_skip_value(buf, start, depth, max_depth, validation)
}

/// From how many bytes after its start a lazy container may be long, for [`simd_skip_value`]:
/// the kernel instance for long values pays on dense blocks (−20 %) and costs 2–6 % on short
/// values, as the decoder found for frames (`decoder::DEFER_UTF8_ABOVE`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
const LONG_VALUE: usize = 4096;

/// [`skip_value`] on the fastest kernel of this CPU, ignoring [`force_scalar`] (the side of
/// the oracle tests that is not the oracle).
#[doc(hidden)]
#[inline]
pub fn simd_skip_value(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    validation: Validation,
) -> Result<usize, ScanError> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    {
        match buf.get(start) {
            None => Err(ScanError::UnexpectedEnd),
            // `{}` and `[]` (empty params and results are common): the answer is known.
            Some(&open @ (b'{' | b'['))
                if buf.get(start + 1).copied() == Some(open + 2) && depth < max_depth =>
            {
                Ok(start + 2)
            }
            Some(b'{' | b'[') => match (validation, x86_64::Avx2::get()) {
                // What follows is long enough for a long value: the kernel instance with the
                // shortcut for dense blocks (its ASCII answer is not needed here).
                (Validation::Lazy, Some(avx2)) if buf.len() - start >= LONG_VALUE => avx2
                    .skip_container_lazy::<true, false>(buf, start, depth, max_depth, &mut false),
                (Validation::Lazy, Some(avx2)) => avx2
                    .skip_container_lazy::<false, false>(buf, start, depth, max_depth, &mut false),
                (Validation::Lazy, None) => scalar::skip_container_lazy_with::<false, _>(
                    buf,
                    start,
                    depth,
                    max_depth,
                    fast_string_end,
                ),
                (Validation::Strict, _) => {
                    strict::skip_container_strict::<false>(buf, start, depth, max_depth)
                }
            },
            Some(_) => scalar::scalar_end_with(buf, start, fast_string_end),
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable))))]
    {
        portable::skip_value(buf, start, depth, max_depth, validation)
    }
}

/// [`skip_value`] in lazy mode, which also sets `ascii` when every byte of the value is ASCII
/// and the kernel saw so on its way (the AVX2 container skip); otherwise it leaves `ascii`
/// alone, which may also mean "not known". A decoder that knows a value is ASCII need not
/// check it for UTF-8 again. With `ONE_LINE`, the value must end on its line: a `\n` makes
/// it an error (see [`simd_skip_lazy_value_ascii`]).
#[inline]
pub(crate) fn skip_lazy_value_ascii<const ONE_LINE: bool>(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    ascii: &mut bool,
) -> Result<usize, ScanError> {
    if FORCE_SCALAR.load(Ordering::Relaxed) {
        if ONE_LINE && matches!(buf.get(start), Some(b'{' | b'[')) {
            return scalar::skip_container_lazy_on_line(buf, start, depth, max_depth);
        }
        return scalar_skip_value(buf, start, depth, max_depth, Validation::Lazy);
    }
    simd_skip_lazy_value_ascii::<ONE_LINE>(buf, start, depth, max_depth, ascii)
}

/// [`skip_lazy_value_ascii`] ignoring [`force_scalar`] (for the oracle tests: `ascii` must
/// never be set for a value with a byte that is not ASCII, nor, with `ONE_LINE`, for one
/// with a `\n`). With `ONE_LINE` the value must end on its line: the answer is the lazy
/// skip's when it does, an error otherwise, found without reading past the line (strings,
/// numbers and literals stop at a `\n` anyway; containers take the line variants).
#[doc(hidden)]
#[inline]
pub fn simd_skip_lazy_value_ascii<const ONE_LINE: bool>(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    ascii: &mut bool,
) -> Result<usize, ScanError> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    if let (Some(b'{' | b'['), Some(avx2)) = (buf.get(start), x86_64::Avx2::get()) {
        return avx2.skip_container_lazy::<true, ONE_LINE>(buf, start, depth, max_depth, ascii);
    }
    let _ = ascii;
    // (Without AVX2, or on another target: the oracle's walk with the fastest string scanner,
    // SSE2 or portable. The portable one measured faster inlined here than behind
    // `portable::skip_lazy_value`.)
    if ONE_LINE && matches!(buf.get(start), Some(b'{' | b'[')) {
        return scalar::skip_container_lazy_with::<true, _>(
            buf,
            start,
            depth,
            max_depth,
            fast_string_end,
        );
    }
    simd_skip_value(buf, start, depth, max_depth, Validation::Lazy)
}

/// [`skip_value`] on the scalar oracle.
#[doc(hidden)]
pub fn scalar_skip_value(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    validation: Validation,
) -> Result<usize, ScanError> {
    match buf.get(start) {
        None => Err(ScanError::UnexpectedEnd),
        Some(b'{' | b'[') => scalar::skip_container(buf, start, depth, max_depth, validation),
        Some(_) => scalar::scalar_end(buf, start),
    }
}

/// Scans a string body that starts at `start` (just after the opening quote). Returns the
/// index of the closing quote and whether the body contains escapes.
///
/// # Errors
///
/// Those of [`scalar::string_end`], the same on every input.
#[inline]
pub fn string_end(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    if FORCE_SCALAR.load(Ordering::Relaxed) {
        return scalar::string_end(buf, start);
    }
    simd_string_end(buf, start)
}

/// The fastest string kernel of this target (same results as [`scalar::string_end`]).
#[inline(always)]
fn fast_string_end(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    {
        x86_64::string_end_short(buf, start)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable))))]
    {
        portable::string_end(buf, start)
    }
}

/// The index after a key's closing quote and colon, when the key body at `start` is short
/// and plain (no escape) and the colon follows at once, found by the fastest kernel; `None`
/// otherwise (the caller then scans the key in full).
#[inline(always)]
pub(crate) fn fast_plain_key_colon(buf: &[u8], start: usize) -> Option<usize> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    {
        x86_64::plain_key_colon(buf, start)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable))))]
    {
        let _ = (buf, start);
        None
    }
}

/// How many leading bytes of `buf` are ASCII, at least: `buf.len()` exactly when all are;
/// otherwise a point at or before the first byte that is not (so a UTF-8 check of the rest
/// starts on a character boundary). The SIMD kernel answers in blocks.
#[inline]
pub(crate) fn ascii_prefix(buf: &[u8]) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    if let (false, Some(avx2)) = (FORCE_SCALAR.load(Ordering::Relaxed), x86_64::Avx2::get()) {
        return avx2.ascii_prefix(buf);
    }
    scalar::ascii_prefix(buf)
}

/// The index of the first `\n` in `buf` (`memchr`, with less set-up on short lines), and how
/// many bytes of the line before it (all of `buf` when there is none) are known UTF-8, a
/// character boundary: the line's length when it is UTF-8 (on a line with many bytes that are
/// not ASCII, possibly less), otherwise a point at or before the first byte that is not. The
/// AVX2 search checks the line's few characters that are not ASCII in the same pass;
/// `memchr` and `core::str::from_utf8`, safe, are its twin and the answer without AVX2.
#[inline]
pub(crate) fn line_end(buf: &[u8]) -> (Option<usize>, usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    if let (false, Some(avx2)) = (FORCE_SCALAR.load(Ordering::Relaxed), x86_64::Avx2::get()) {
        return avx2.line_end(buf);
    }
    scalar_line_end(buf)
}

/// [`line_end`] without SIMD: `memchr`, then how much of the line is UTF-8.
fn scalar_line_end(buf: &[u8]) -> (Option<usize>, usize) {
    let nl = memchr::memchr(b'\n', buf);
    (nl, scalar::utf8_prefix(&buf[..nl.unwrap_or(buf.len())]))
}

/// [`ascii_prefix`] on the fastest kernel, ignoring [`force_scalar`] (for the oracle tests).
#[doc(hidden)]
pub fn simd_ascii_prefix(buf: &[u8]) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
    if let Some(avx2) = x86_64::Avx2::get() {
        return avx2.ascii_prefix(buf);
    }
    scalar::ascii_prefix(buf)
}

/// [`string_end`] on the fastest kernel, ignoring [`force_scalar`].
#[doc(hidden)]
#[inline]
pub fn simd_string_end(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    fast_string_end(buf, start)
}

#[cfg(test)]
mod line_end_tests {
    use super::{line_end, scalar_line_end};

    /// A search for a line's end: `line_end` or one of its SIMD instances.
    type LineEnd = fn(&[u8]) -> (Option<usize>, usize);

    /// Each SIMD instance of `line_end` this CPU runs (AVX2, and AVX-512BW where it has it:
    /// `line_end` itself runs only one of them), or `line_end` alone without SIMD.
    fn instances() -> Vec<(&'static str, LineEnd)> {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(rpcwire_portable)))]
        if let Some(avx2) = super::x86_64::Avx2::get() {
            return avx2.line_end_instances();
        }
        vec![("line_end", line_end)]
    }

    /// `line_end` finds the `\n` `memchr` finds, and a prefix of the line that is UTF-8 (so it
    /// ends on a character boundary), all of it when the line is UTF-8 with few bytes that are
    /// not ASCII: on every length up to a few blocks (the first two blocks, the 128-byte
    /// turns, the block and the tail after them) and around 512 bytes, with no newline, one at
    /// each position, and two, at every alignment, with characters of two, three and four
    /// bytes and sequences that are no UTF-8 before, at, across and after each newline.
    /// (Not under Miri: it has no AVX2, so `line_end` is its scalar twin there, and the
    /// interpreted test would only compare it with itself, slowly.)
    #[test]
    #[cfg_attr(miri, ignore)]
    fn line_end_agrees_with_memchr_and_the_utf8_check() {
        for (name, line_end) in instances() {
            agrees_with_memchr_and_the_utf8_check(name, line_end);
        }
    }

    /// [`line_end_agrees_with_memchr_and_the_utf8_check`] for one instance, named `name`.
    fn agrees_with_memchr_and_the_utf8_check(name: &str, line_end: LineEnd) {
        // (`what` is formatted only when an assertion fails, not for each of the millions of
        // checks.)
        let check = |buf: &[u8], what: core::fmt::Arguments<'_>| {
            let what = format_args!("{name}: {what}");
            let (nl, utf8) = line_end(buf);
            let (want_nl, _) = scalar_line_end(buf);
            assert_eq!(nl, want_nl, "{what}");
            let line = &buf[..nl.unwrap_or(buf.len())];
            assert!(
                core::str::from_utf8(&line[..utf8]).is_ok(),
                "{what}: {utf8}"
            );
            // (Counted only in the blocks that are not ASCII: counting every byte in a debug
            // build took half the test's time.)
            let sparse = || {
                line.chunks(64)
                    .all(|c| c.is_ascii() || c.iter().filter(|b| !b.is_ascii()).count() <= 4)
            };
            // A line with few bytes that are not ASCII is known UTF-8 up to its first
            // sequence that is not (all of it when there is none).
            if sparse() {
                let valid =
                    core::str::from_utf8(line).map_or_else(|e| e.valid_up_to(), |_| line.len());
                assert_eq!(utf8, valid, "{what}");
            }
        };
        // Characters of each length, and what is no UTF-8: a lone continuation byte, lead
        // bytes of two and three without their continuations, an overlong form, a surrogate,
        // past U+10FFFF, 0xff.
        let odd: [&[u8]; 11] = [
            "\u{e9}".as_bytes(),
            "\u{20ac}".as_bytes(),
            "\u{1d11e}".as_bytes(),
            &[0x80],
            &[0xc3],
            &[0xe2, 0x82],
            &[0xc0, 0xaf],
            &[0xe0, 0x80, 0xaf],
            &[0xed, 0xa0, 0x80],
            &[0xf4, 0x90, 0x80, 0x80],
            &[0xff],
        ];
        let mut backing: Vec<u8> = (0..1600u32).map(|i| b'a' + (i % 26) as u8).collect();
        let pristine = backing.clone();
        for offset in 0..4 {
            for len in (0..200).chain(500..530).chain([1500]) {
                let buf = &mut backing[offset..offset + len];
                check(buf, format_args!("{offset} {len}"));
                for at in 0..len {
                    buf[at] = b'\n';
                    check(buf, format_args!("{offset} {len} {at}"));
                    // Characters and sequences after the newline, before it, across it, and
                    // before and after it (on the long lines, only with the newline near a
                    // block's edge: elsewhere they repeat the shorter lines' cases, at a cost
                    // that grows with the square of the length).
                    let near_edge = !(3..61).contains(&(at % 64));
                    for (k, seq) in odd.iter().enumerate().filter(|_| len < 400 || near_edge) {
                        for (start, other) in [
                            (at + 1, None),
                            (at.wrapping_sub(seq.len()), None),
                            (at.wrapping_sub(1), None),
                            (at.wrapping_sub(40), Some(at + 5)),
                            (at.wrapping_sub(70), Some(at.wrapping_sub(9))),
                        ] {
                            let starts = [Some(start), other];
                            let fits =
                                |s: &usize| s.checked_add(seq.len()).is_some_and(|e| e <= len);
                            if !starts.iter().flatten().all(fits) {
                                continue;
                            }
                            for s in starts.iter().flatten() {
                                buf[*s..*s + seq.len()].copy_from_slice(seq);
                            }
                            check(
                                buf,
                                format_args!("{offset} {len} {at} seq {k} at {starts:?}"),
                            );
                            for s in starts.iter().flatten() {
                                let put = offset + s..offset + s + seq.len();
                                buf[*s..*s + seq.len()].copy_from_slice(&pristine[put]);
                            }
                            buf[at] = b'\n';
                        }
                    }
                    if at + 7 < len {
                        buf[at + 7] = b'\n';
                        check(buf, format_args!("{offset} {len} {at} and {}", at + 7));
                        buf[at + 7] = b'x';
                    }
                    buf[at] = 0x8a; // (`\n` with the top bit set)
                    check(buf, format_args!("{offset} {len} 0x8a at {at}"));
                    buf[at] = pristine[offset + at];
                }
            }
        }
    }

    /// Lines dense in characters that are not ASCII (characters of two bytes, and of three,
    /// from every offset), with one byte that is no UTF-8 put at every place: the prefix is
    /// UTF-8, and stops before the bad byte.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn line_end_on_lines_dense_in_characters_that_are_not_ascii() {
        for (_, line_end) in instances() {
            on_lines_dense_in_characters_that_are_not_ascii(line_end);
        }
    }

    /// [`line_end_on_lines_dense_in_characters_that_are_not_ascii`] for one instance.
    fn on_lines_dense_in_characters_that_are_not_ascii(line_end: LineEnd) {
        // After a long ASCII part, the line is known UTF-8 at least to the start of the block
        // where the dense part begins (the caller's check starts there, not at the line's).
        for ascii in [64, 200, 1000] {
            let mut line = "x".repeat(ascii) + &"\u{65e5}".repeat(40);
            line.push('\n');
            let (nl, utf8) = line_end(line.as_bytes());
            assert_eq!(nl, Some(line.len() - 1));
            assert!(
                utf8 >= ascii / 64 * 64 && line.is_char_boundary(utf8),
                "{ascii}: {utf8}"
            );
        }
        for char in ["\u{65e5}", "\u{e9}"] {
            for lead in 0..5 {
                for len in [60, 64, 100, 128, 129, 300] {
                    let mut line = "x".repeat(lead).into_bytes();
                    while line.len() + char.len() <= len {
                        line.extend_from_slice(char.as_bytes());
                    }
                    line.push(b'\n');
                    let (nl, utf8) = line_end(&line);
                    assert_eq!(nl, Some(line.len() - 1));
                    assert!(core::str::from_utf8(&line[..utf8]).is_ok());
                    // A byte put at every place: one that is never UTF-8, ASCII (which cuts a
                    // character short or leaves its continuation alone), and each byte at the
                    // edge of a class: continuations, leads of two bytes (of an overlong form
                    // below them), a lead of three.
                    for at in 0..line.len() - 1 {
                        let edges = [0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xdf, 0xe0];
                        for byte in [0xff, b'x'].into_iter().chain(edges) {
                            let mut bad = line.clone();
                            bad[at] = byte;
                            let (nl, utf8) = line_end(&bad);
                            assert_eq!(nl, Some(line.len() - 1));
                            let text = &bad[..line.len() - 1];
                            let valid = core::str::from_utf8(text)
                                .map_or_else(|e| e.valid_up_to(), |_| text.len());
                            assert!(utf8 <= valid, "{char} {lead} {len} {at} {byte}");
                            assert!(core::str::from_utf8(&bad[..utf8]).is_ok());
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod nesting_stack_tests {
    use super::NestingStack;

    /// Pushes and pops across the 63-level word boundaries and past the inline spill words,
    /// against a `Vec<bool>` model, through both the checked and the hot-path forms.
    #[test]
    fn nesting_stack_agrees_with_a_vec() {
        let mut stack = NestingStack::new();
        let mut model: Vec<bool> = Vec::new();
        let mut deepest = 0;
        // A deterministic walk: climb for 700 steps, fall for 700, and again, with a wobble
        // on the way.
        let mut state = 0x9e37_79b9u32;
        for step in 0..4000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let climbing = (step / 700) % 2 == 0;
            let push = if climbing {
                state & 3 != 0
            } else {
                state & 3 == 0
            };
            if push {
                let kind = state & 0x100 != 0;
                stack.push(kind);
                model.push(kind);
            } else if step % 3 == 0 && !model.is_empty() {
                assert_eq!(stack.top_is_object(), model.pop().unwrap(), "step {step}");
                assert_eq!(stack.pop_is_last(), model.is_empty(), "step {step}");
            } else {
                assert_eq!(stack.pop(), model.pop(), "step {step}");
            }
            assert_eq!(stack.top(), model.last().copied(), "step {step}");
            assert_eq!(stack.is_empty(), model.is_empty());
            deepest = deepest.max(model.len());
        }
        // Past the four spill words held inline (the walk reaches 398 levels).
        assert!(deepest > 4 * 63, "{deepest}");
        while let Some(kind) = model.pop() {
            assert_eq!(stack.pop(), Some(kind));
        }
        assert_eq!(stack.pop(), None);
        assert!(stack.is_empty());
    }
}
