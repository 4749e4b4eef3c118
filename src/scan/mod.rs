//! Value skipping and string scanning: the one primitive the decoder uses to step over
//! everything it does not decode.
//!
//! [`skip_value`] is the safe entry point. It dispatches to the fastest kernel the CPU
//! supports; the portable [`scalar`] kernel is the reference the others are tested against
//! (`tests/scan_oracle.rs`): same end offset, same [`ScanError`] kind, on every input.
//!
//! - Lazy containers on x86_64 with AVX2 + PCLMULQDQ + BMI1/2 + POPCNT (detected at run time,
//!   cached): 64-byte blocks of bitmasks (`x86_64.rs`). Anything unusual in a block hands the
//!   whole value to the scalar oracle, which then gives the answer.
//! - Strings on x86_64: 16-byte SSE2 probes (SSE2 is baseline), with a jump through long
//!   bodies by the AVX2 loop when present.
//! - Strict containers: a flattened recursive-descent walk (`strict.rs`) using the fast string
//!   scanner.
//! - Everything else, other architectures, and builds with
//!   `RUSTFLAGS="--cfg rpcwire_force_scalar"`: the scalar kernel.

use core::sync::atomic::{AtomicBool, Ordering};

use smallvec::SmallVec;

pub mod scalar;
mod strict;
#[cfg(all(target_arch = "x86_64", not(rpcwire_force_scalar)))]
#[allow(unsafe_code)]
mod x86_64;

/// Set by [`force_scalar`]: every entry point takes the scalar oracle.
static FORCE_SCALAR: AtomicBool = AtomicBool::new(false);

/// Makes every scan use the portable scalar kernel (`true`) or the fastest kernel the CPU
/// supports (`false`, the default). For benchmarks and tests; the build-time equivalent is
/// `RUSTFLAGS="--cfg rpcwire_force_scalar"`.
#[doc(hidden)]
pub fn force_scalar(on: bool) {
    FORCE_SCALAR.store(on, Ordering::Relaxed);
}

/// The name of the kernel [`skip_value`] uses for containers in lazy mode on this CPU, when
/// not forced to scalar: `"avx2"`, `"sse2"` (strings only) or `"scalar"`.
#[doc(hidden)]
pub fn simd_kernel() -> &'static str {
    #[cfg(all(target_arch = "x86_64", not(rpcwire_force_scalar)))]
    {
        if x86_64::Avx2::get().is_some() {
            "avx2"
        } else {
            "sse2"
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(rpcwire_force_scalar))))]
    {
        "scalar"
    }
}

/// How much of a payload value is checked while it is skipped.
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

/// A stack of one bit per open container (`true` = object), inline for the first 256 levels.
pub(crate) struct NestingStack {
    words: SmallVec<[u64; 4]>,
    len: usize,
}

impl NestingStack {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        NestingStack {
            words: SmallVec::new(),
            len: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, is_object: bool) -> Result<(), ScanError> {
        let (word, bit) = (self.len / 64, self.len % 64);
        if word == self.words.len() {
            self.words.push(0);
        }
        let mask = 1u64 << bit;
        if is_object {
            self.words[word] |= mask;
        } else {
            self.words[word] &= !mask;
        }
        self.len += 1;
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn top(&self) -> Option<bool> {
        let i = self.len.checked_sub(1)?;
        Some(self.words[i / 64] & (1 << (i % 64)) != 0)
    }

    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<bool> {
        let top = self.top()?;
        self.len -= 1;
        Some(top)
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Skips the JSON value that starts at `buf[start]` (no leading whitespace), nested inside
/// `depth` open containers. Returns the index just after the value.
///
/// The result (end offset or error kind) is exactly the scalar oracle's
/// ([`scalar::skip_container`] for containers) on every input; only the speed depends on the
/// kernel chosen for the CPU.
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
    #[cfg(all(target_arch = "x86_64", not(rpcwire_force_scalar)))]
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
                (Validation::Lazy, Some(avx2)) => {
                    avx2.skip_container_lazy(buf, start, depth, max_depth)
                }
                (Validation::Lazy, None) => {
                    scalar::skip_container_lazy(buf, start, depth, max_depth)
                }
                (Validation::Strict, _) => {
                    strict::skip_container_strict(buf, start, depth, max_depth)
                }
            },
            Some(_) => scalar::scalar_end_with(buf, start, fast_string_end),
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(rpcwire_force_scalar))))]
    {
        match (buf.get(start), validation) {
            (Some(b'{' | b'['), Validation::Strict) => {
                strict::skip_container_strict(buf, start, depth, max_depth)
            }
            _ => scalar_skip_value(buf, start, depth, max_depth, validation),
        }
    }
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
    #[cfg(all(target_arch = "x86_64", not(rpcwire_force_scalar)))]
    {
        x86_64::string_end_short(buf, start)
    }
    #[cfg(not(all(target_arch = "x86_64", not(rpcwire_force_scalar))))]
    {
        scalar::string_end(buf, start)
    }
}

/// [`string_end`] on the fastest kernel, ignoring [`force_scalar`].
#[doc(hidden)]
#[inline]
pub fn simd_string_end(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    #[cfg(all(target_arch = "x86_64", not(rpcwire_force_scalar)))]
    {
        x86_64::string_end_short(buf, start)
    }
    #[cfg(not(all(target_arch = "x86_64", not(rpcwire_force_scalar))))]
    {
        scalar::string_end(buf, start)
    }
}
