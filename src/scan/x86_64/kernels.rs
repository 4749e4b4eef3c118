//! The kernels that are not inlined and call one another: the lazy container skip
//! ([`skip_lazy_avx2`] and [`skip_lazy_avx512`], one body stamped for each block classifier)
//! with the scalar oracle it hands every value it does not prove to ([`lazy_oracle`]); the
//! end of a long string, 64 bytes at a time ([`string_end_avx2`]); the loop over a long string
//! body both go through ([`string_body`]); and the SSE2 string scanner, which hands a long
//! string to the 64-byte one ([`string_end_sse2`]). What they are built from, all inlined, is
//! in the sibling modules.
//!
//! They share one module because rustc cuts a crate into codegen units by module, and LLVM
//! compiles a call from what it knows of the callee within its own unit only. Split by
//! concept, the lazy kernel's instances that do not track ASCII set up `high` for every
//! `string_body` call, which their `string_body` instance ignores (two instructions a call:
//! +0.1 % instructions on the typical corpus), and `string_end_avx2`, called from
//! `string_end_sse2` alone, compiled to other code. (So moving a function into or out of
//! this module, or adding a module, may change the code of others: compare the instruction
//! counts and the symbols' sizes before and after.)

use super::Avx2;
use super::block::{
    Outside, classify, classify_last, classify_wide, classify_wide_last, escaped_bytes, prefix_xor,
    up_to,
};
use super::nesting::Nesting;
use super::string::{
    body_blocks, body_blocks_wide, stops16, stops16_quotes, string_run, string_run_wide,
};
use super::tables::{OUTSIDE_LINE_LUT, OUTSIDE_LUT};
use crate::scan::{ScanError, scalar};

/// The scalar oracle the lazy kernel hands a value to, on the value's line only or not: one
/// closure type for both, so that both share one kernel instance.
pub(super) fn lazy_oracle(
    buf: &[u8],
    start: usize,
    depth: u32,
    max_depth: u32,
    on_line: bool,
) -> impl FnOnce() -> Result<usize, ScanError> + '_ {
    move || {
        if on_line {
            scalar::skip_container_lazy_on_line(buf, start, depth, max_depth)
        } else {
            scalar::skip_container_lazy(buf, start, depth, max_depth)
        }
    }
}

/// Stamps the lazy container skip for one block classifier and the target features it needs:
/// [`skip_lazy_avx2`] and [`skip_lazy_avx512`] are one body.
macro_rules! lazy_kernel {
    (
        $(#[$doc:meta])* $name:ident, $classify:ident, $classify_last:ident, $wide:literal,
        $features:literal
    ) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) fn $name<const TRACK_ASCII: bool, const ONE_KIND_SHORTCUT: bool, F>(
            buf: &[u8],
            start: usize,
            depth: u32,
            max_depth: u32,
            ascii: &mut bool,
            one_line: bool,
            oracle: F,
        ) -> Result<usize, ScanError>
        where
            F: FnOnce() -> Result<usize, ScanError>,
        {
            // On one line, a `\n` outside strings is not in the alphabet: it goes to the oracle.
            let alphabet = if one_line {
                &OUTSIDE_LINE_LUT
            } else {
                &OUTSIDE_LUT
            };
            // Every block loaded so far and the long-string jumps' bytes, OR-ed as movemasks: a bit
            // set where a byte is not ASCII. (A scalar: the vector OR-ed across blocks was spilled to
            // the stack and reloaded in every block.)
            let mut high = 0i32;
            let mut pos = start;
            // All ones when the previous block ended inside a string.
            let mut in_string = 0u64;
            // 1 when the first byte of the block is escaped (see `escaped_bytes`).
            let mut escape_carry = 0u64;
            // Bytes of this block that must be hex digits because of a `\u` in the previous one.
            let mut hex_carry = 0u64;
            // The open containers of this value: one bit each (1 = object), innermost at bit 0.
            // Deeper than 64 levels below `start` is left to the oracle.
            //
            // The value's own opener (`buf[start]`, `{` or `[`) is counted here, before the first
            // block, whose mask then leaves it out (bit 0 while `pos == start`): so that block,
            // like any other, sees a value already open and may take the fast bracket path below.
            if depth >= max_depth {
                return oracle(); // TooDeep
            }
            let mut stack = u64::from(buf.get(start) == Some(&b'{'));
            let mut len = 1u32;
            // The most containers the stack may hold: the value's nesting depth is `depth + len`,
            // so one bound checks both the depth limit and the stack's width.
            let room = (max_depth - depth).min(64);
            // A last, partial block when the whole buffer is shorter than 64 bytes is copied here,
            // padded with spaces (neutral outside and inside strings).
            let mut tail = [b' '; 64];

            loop {
                let rest = buf.get(pos..).unwrap_or(&[]);
                let b = match rest.first_chunk() {
                    // (A whole block shifts no mask: the shift's code is in the last one's
                    // path alone.)
                    Some(block) => $classify(block, 0),
                    // The value is not closed, and every block before the end was proven (anything
                    // unproven went to the oracle): the oracle's answer, without reading it again.
                    None if rest.is_empty() => return Err(ScanError::UnexpectedEnd),
                    // Fewer than 64 bytes left.
                    None => $classify_last(buf, rest, &mut tail),
                };
                if TRACK_ASCII {
                    high |= b.non_ascii();
                }

                // 1. Escapes. Most blocks have no backslash and nothing carried in.
                let escaped = if b.backslash | escape_carry == 0 {
                    0
                } else {
                    escaped_bytes(b.backslash, &mut escape_carry)
                };

                // 2. Strings: unescaped quotes toggle; `string` covers the opening quote and the
                // body, not the closing quote.
                let quotes = b.quote & !escaped;
                // (Inside a long text most blocks have no quote: no carry-less multiply to wait on.
                // Escapes −4 %, large −3.5 %; typical and dense +1 %, where nearly every block has
                // quotes and the branch is one more.)
                let string = if quotes == 0 {
                    in_string
                } else {
                    prefix_xor(quotes) ^ in_string
                };
                let next_in_string = ((string as i64) >> 63) as u64;

                // 3. Everything the oracle would reject, as bits: raw control bytes inside strings,
                // bytes outside the lazy alphabet outside strings (this includes stray
                // backslashes and control bytes other than whitespace), and bad escapes.
                let mut bad = b.ctrl & string;
                if escaped | hex_carry != 0 {
                    bad |= b.bad_escapes(escaped, &mut hex_carry);
                }

                // 4. Bytes outside strings: the lazy alphabet, brackets. A block of string body
                // (a long text, a blob) has none.
                let out = if string == u64::MAX {
                    Outside::default()
                } else {
                    b.outside(alphabet)
                };
                bad |= out.not_outside & !string;
                let opens = out.open & !string & !u64::from(pos == start);
                let closes = out.close & !string;
                let brackets = opens | closes;
                if brackets != 0 {
                    let objects = brackets & out.bit5;
                    let nesting = Nesting { stack, len, room };
                    let fast = if ONE_KIND_SHORTCUT {
                        nesting.after_block_of_one_kind::<$wide>(opens, closes, objects)
                    } else {
                        nesting.after_block_of_one_kind_counted(opens, closes, objects)
                    };
                    if let Some((new_stack, new_len)) = fast {
                        stack = new_stack;
                        len = new_len;
                    } else {
                        // Walk the brackets one by one, in order, without branching on their kind
                        // (mixed `{[` blocks are common, and their order is unpredictable).
                        if len + opens.count_ones() > room {
                            // Deeper than the fast stack, or the depth limit within reach: rare,
                            // left to the oracle.
                            return oracle();
                        }
                        let mut bits = brackets;
                        let mut mismatch = 0u64;
                        while bits != 0 {
                            let i = bits.trailing_zeros();
                            bits &= bits - 1;
                            let kind = (objects >> i) & 1;
                            let is_close = (closes >> i) & 1;
                            // A closer must match the innermost open container.
                            mismatch |= is_close & (stack ^ kind) & 1;
                            // Pop for a closer, push `kind` for an opener: select without a branch.
                            stack = if is_close != 0 {
                                stack >> 1
                            } else {
                                (stack << 1) | kind
                            };
                            len = len + 1 - 2 * is_close as u32;
                            if len == 0 {
                                // The value ends here: only what came before had to be right.
                                if mismatch != 0 || bad & up_to(i) != 0 {
                                    return oracle();
                                }
                                if TRACK_ASCII {
                                    *ascii = high == 0;
                                }
                                return Ok(pos + i as usize + 1);
                            }
                        }
                        if mismatch != 0 {
                            return oracle(); // Mismatched
                        }
                    }
                }
                if bad != 0 {
                    return oracle();
                }

                // 5. Next block. After a whole block of string body the string is probably long (a
                // document, a base64 blob): go through its body with the string-body loop, which
                // does none of the work on bytes outside strings, and come back for the block that
                // ends it.
                pos += 64;
                in_string = next_in_string;
                if string == u64::MAX {
                    pos =
                        string_body::<TRACK_ASCII, $wide>(buf, pos, &mut escape_carry, &mut hex_carry, &mut high);
                }
            }
        }
    };
}

lazy_kernel! {
    /// The lazy container skip. Every case the fast path does not prove goes to `oracle` (the
    /// scalar skip of the same value, from the start; the tests pass a probe instead).
    ///
    /// With `TRACK_ASCII`, on success it sets `ascii` when every byte of the value is ASCII, a
    /// by-product of the blocks it loads anyway (the envelope then need not check those bytes for
    /// UTF-8 again); it leaves it alone when not known (the oracle's answers; a block that holds
    /// a non-ASCII byte outside the value). Two instances: the check costs 1–5 % where nothing
    /// asks for it.
    ///
    /// With `ONE_KIND_SHORTCUT` (ASCII tracked, on a CPU with a fast `pext`), a block's
    /// brackets go through [`Nesting::after_block_of_one_kind`], else through the simplest
    /// case, [`Nesting::after_block_of_one_kind_counted`]; what neither proves is walked.
    skip_lazy_avx2,
    classify,
    classify_last,
    false,
    "avx2,pclmulqdq,popcnt,bmi1,bmi2"
}

lazy_kernel! {
    /// [`skip_lazy_avx2`] with each block classified by AVX-512BW ([`classify_wide`]).
    skip_lazy_avx512,
    classify_wide,
    classify_wide_last,
    true,
    "avx2,avx512f,avx512bw,pclmulqdq,popcnt,bmi1,bmi2"
}

/// The end of a string body, 64 bytes at a time: quotes, backslashes and control bytes by
/// bitmask, escapes removed and checked as in the lazy container kernel, and the adaptive jump
/// over long runs without a stop byte. Like that kernel it proves only success; whatever it
/// does not prove (a control byte, a bad escape, no closing quote) goes to the scalar scanner
/// from `start`, which gives the error.
///
/// Once a backslash has been seen (the answer's flag is then known), a block of body hands
/// the rest to the lazy kernel's [`string_body`] loop, which proves the blocks of an escaped
/// text with fewer masks, on AVX-512BW with `WIDE`; it stops at the block that ends the
/// string, or at one it cannot prove, which this loop then classifies.
#[target_feature(enable = "avx2,pclmulqdq,popcnt,bmi1,bmi2")]
pub(super) fn string_end_avx2<const WIDE: bool>(
    buf: &[u8],
    start: usize,
) -> Result<(usize, bool), ScanError> {
    let oracle = || scalar::string_end(buf, start);
    let mut pos = start;
    let mut escape_carry = 0u64;
    let mut hex_carry = 0u64;
    let mut escapes = false;
    loop {
        let rest = buf.get(pos..).unwrap_or(&[]);
        let b = match rest.first_chunk() {
            Some(block) => classify(block, 0),
            // No closing quote, and nothing wrong before the end (an escape the end cuts is
            // incomplete, not wrong): the oracle's answer, without reading the string again.
            None if rest.is_empty() => return Err(ScanError::UnexpectedEnd),
            // Fewer than 64 bytes left: the buffer's last 64, the bytes before `pos` shifted
            // out (bits past the end are clear: no quote there).
            None => match buf.last_chunk() {
                Some(last) => classify(last, 64 - rest.len() as u32),
                None => return oracle(),
            },
        };
        let escaped = if b.backslash | escape_carry == 0 {
            0
        } else {
            escaped_bytes(b.backslash, &mut escape_carry)
        };
        let quotes = b.quote & !escaped;
        // The body's bytes in this block, and the closing quote when it is here: a `\u`
        // whose hex digits run into the quote must be seen.
        let body = if quotes == 0 {
            u64::MAX
        } else {
            up_to(quotes.trailing_zeros())
        };
        let mut bad = b.ctrl;
        if escaped | hex_carry != 0 {
            bad |= b.bad_escapes(escaped, &mut hex_carry);
        }
        if bad & body != 0 {
            return oracle();
        }
        escapes |= b.backslash & body != 0;
        if quotes != 0 {
            // (The hex digits of a `\u` before the quote lie before it or on it: checked.)
            return Ok((pos + quotes.trailing_zeros() as usize, escapes));
        }
        pos += 64;
        if escapes {
            pos = string_body::<false, WIDE>(buf, pos, &mut escape_carry, &mut hex_carry, &mut 0);
        } else if b.quote | b.backslash | b.ctrl | escape_carry | hex_carry == 0 {
            // A block without a stop byte: jump to the next one.
            pos = jump::<false, WIDE>(buf, pos, &mut 0);
        }
    }
}

/// The lazy kernel's loop over a long string body (and [`string_end_avx2`]'s, once it has
/// seen a backslash): from `pos`, a block start inside a string (`escape_carry` and
/// `hex_carry` as the kernel keeps them), the whole 64-byte blocks that are string body with
/// valid escapes and no unescaped quote. Returns the start of the first block it does not
/// prove so (the one with the closing quote, a control byte or a bad escape; fewer than 64
/// bytes left), with the carries set for that block, which the caller then classifies in
/// full. With `TRACK_ASCII`, makes `high` not zero as [`string_run`] does.
///
/// A block of a long text is nearly always body alone, with escapes: [`body_blocks`] does
/// only what such a block needs. A block without a stop byte jumps to the next one by
/// [`string_run`]. (Not inlined: within the kernel, which keeps many values live, the loop
/// spilled and shuffled registers, ~20 instructions a block.)
///
/// With `WIDE` (only where AVX-512F and BW were detected: the lazy kernel's AVX-512
/// instance, [`string_end_avx2`] on such a CPU), the blocks are proven by
/// [`body_blocks_wide`].
#[inline(never)]
#[target_feature(enable = "avx2,pclmulqdq,popcnt,bmi1,bmi2")]
pub(super) fn string_body<const TRACK_ASCII: bool, const WIDE: bool>(
    buf: &[u8],
    pos: usize,
    escape_carry: &mut u64,
    hex_carry: &mut u64,
    high: &mut i32,
) -> usize {
    let mut carries = (*escape_carry, *hex_carry);
    let mut pos = pos.min(buf.len());
    loop {
        let (proven, plain) = if WIDE {
            // SAFETY: `WIDE` is set only by the AVX-512 instance of the lazy kernel and by
            // `string_end_blocks` for an `Avx2` that `is_wide`, which run only where
            // `detect_avx512` found AVX-512F and BW (and `detect_features` the rest).
            unsafe { body_blocks_wide::<TRACK_ASCII>(&buf[pos..], &mut carries, high) }
        } else {
            body_blocks::<TRACK_ASCII>(&buf[pos..], &mut carries, high)
        };
        pos += proven;
        if !plain {
            break;
        }
        pos = jump::<TRACK_ASCII, WIDE>(buf, pos, high);
    }
    (*escape_carry, *hex_carry) = carries;
    pos
}

/// The long-string jump: [`string_run`], or with `WIDE` [`string_run_wide`].
#[inline]
#[target_feature(enable = "avx2")]
fn jump<const TRACK_ASCII: bool, const WIDE: bool>(
    buf: &[u8],
    pos: usize,
    high: &mut i32,
) -> usize {
    if WIDE {
        // SAFETY: `WIDE` is set only by the AVX-512 instance of the lazy kernel and by
        // `string_end_blocks` for an `Avx2` that `is_wide`, which run only where
        // `detect_avx512` found AVX-512F and BW.
        unsafe { string_run_wide::<TRACK_ASCII>(buf, pos, high) }
    } else {
        string_run::<TRACK_ASCII>(buf, pos, high)
    }
}

/// [`string_end_sse2`] with its first 16-byte probe inlined: most keys and short values end
/// within it, before any call.
#[inline(always)]
pub(in crate::scan) fn string_end_short(
    buf: &[u8],
    start: usize,
) -> Result<(usize, bool), ScanError> {
    // Where the loop resumes: past a first chunk without any stop byte (no escape either,
    // so nothing is pending there), not back at `start`.
    let mut from = start;
    if let Some(chunk) = buf.get(start..).and_then(|rest| rest.first_chunk::<16>()) {
        // SAFETY: SSE2 is enabled at compile time wherever this module is compiled (`mod
        // x86_64` is behind `cfg(target_feature = "sse2")`, asserted below); not every x86_64
        // target has it (`x86_64-unknown-none` does not, and takes the scalar kernel).
        let (stop, quote) = unsafe { stops16_quotes(chunk) };
        // The first stop is a quote: no need to load the byte again.
        if stop & stop.wrapping_neg() & quote != 0 {
            return Ok((start + stop.trailing_zeros() as usize, false));
        }
        // No stop at all: one more probe (values of 17 to 32 bytes are common).
        if stop == 0 {
            from = start + 16;
            if let Some(next) = buf
                .get(start + 16..)
                .and_then(|rest| rest.first_chunk::<16>())
            {
                // SAFETY: as above.
                let (stop, quote) = unsafe { stops16_quotes(next) };
                if stop & stop.wrapping_neg() & quote != 0 {
                    return Ok((start + 16 + stop.trailing_zeros() as usize, false));
                }
            }
        }
    }
    string_end_sse2(buf, from)
}

/// [`scalar::string_end`], 16 bytes at a time: the same result on every input, because the
/// interesting bytes (`"`, `\`, control bytes) are handled in order exactly as the scalar
/// loop does.
#[inline(never)]
fn string_end_sse2(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
    let mut i = start;
    let mut escaped = false;
    loop {
        // A long string (a document, a base64 blob): 64 bytes at a time from here, when the
        // CPU has AVX2. `i` is never inside an escape sequence at this point.
        if i - start >= 64
            && let Some(avx2) = Avx2::get()
        {
            return avx2
                .string_end_blocks(buf, i)
                .map(|(end, esc)| (end, esc || escaped));
        }
        let rest = buf.get(i..).unwrap_or(&[]);
        let stop = match rest.first_chunk::<16>() {
            // SAFETY: SSE2 is enabled at compile time wherever this module is compiled (see
            // `string_end_short`; asserted below).
            Some(chunk) => unsafe { stops16(chunk) },
            None => match buf.last_chunk::<16>() {
                // Fewer than 16 bytes left: probe the buffer's last 16 bytes and shift the
                // bytes before `i` out of the mask.
                Some(last) if !rest.is_empty() => {
                    // SAFETY: as above.
                    let stop = unsafe { stops16(last) } >> (16 - rest.len());
                    if stop == 0 {
                        return Err(ScanError::UnexpectedEnd);
                    }
                    stop
                }
                // A buffer shorter than 16 bytes (or nothing left): the scalar loop.
                _ => {
                    return match scalar::string_end(buf, i) {
                        Ok((end, esc)) => Ok((end, esc || escaped)),
                        Err(e) => Err(e),
                    };
                }
            },
        };
        if stop == 0 {
            i += 16;
            continue;
        }
        // Handle every stop of this chunk in order without reloading: escapes are often
        // dense (`\"`, `\\`, `\n`), and each clears the bits of the bytes it covers.
        let mut stop = stop;
        loop {
            if stop == 0 {
                i += 16;
                break;
            }
            let at = i + stop.trailing_zeros() as usize;
            match buf[at] {
                b'"' => return Ok((at, escaped)),
                b'\\' => {
                    escaped = true;
                    let next = scalar::escape_end(buf, at)?;
                    let covered = next - i;
                    if covered >= 16 {
                        i = next;
                        break;
                    }
                    stop &= !((1u32 << covered) - 1);
                }
                _ => return Err(ScanError::ControlInString),
            }
        }
    }
}

// `string_end_sse2`, `string_end_short` and `plain_key_colon` rely on SSE2 being enabled at
// compile time (the `cfg` on `mod x86_64` already requires it).
const _: () = assert!(cfg!(target_feature = "sse2"));

#[cfg(test)]
mod tests {
    use super::*;

    /// Valid values must take the fast path (never the oracle) and end where the oracle
    /// says.
    #[test]
    fn valid_values_stay_on_the_fast_path() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let blob = "QUJD".repeat(100);
        let esc = r#"\"q\" \\ \n caf\u00e9 "#.repeat(20);
        let deep = format!("{}1{}", "[{\"k\":".repeat(30), "}]".repeat(30));
        let cases = [
            r#"{}"#.to_string(),
            r#"[]"#.to_string(),
            r#"{"a":[1,2,{"b":"x\"y\\z\u00e9"}],"c":null}"#.to_string(),
            format!(r#"{{"blob":"{blob}","t":[true,false]}}"#),
            format!(r#"["{esc}",{{"k":"{esc}"}}]"#),
            deep,
            format!(r#"{{"a":{{"b":{{"c":[[[1]]],"d":"{blob}"}}}}}}"#),
            // Not ASCII: in a block, in a long-string jump, in the jump's last bytes.
            r#"{"t":"café"}"#.to_string(),
            format!(r#"{{"d":"{blob}é{blob}"}}"#),
            format!(r#"{{"d":"{blob}é"}}"#),
        ];
        // Before the value, spaces, or bytes that are not ASCII: a last block read from before
        // the value holds them, and they must not count as the value's.
        let pads = [0usize, 1, 31, 63]
            .into_iter()
            .flat_map(|n| [(n, b' '), (n, 0xe9)]);
        for case in &cases {
            for (pad, pad_byte) in pads.clone() {
                let mut buf = vec![pad_byte; pad];
                buf.extend_from_slice(case.as_bytes());
                buf.extend_from_slice(b",\"tail\":1}");
                let expected = scalar::skip_container_lazy(&buf, pad, 1, 128);
                assert_eq!(expected, Ok(pad + case.len()), "{case}");
                // SAFETY: `Avx2::get` returned a token: the CPU has the features.
                let mut ascii = false;
                let got = unsafe {
                    skip_lazy_avx2::<true, true, _>(&buf, pad, 1, 128, &mut ascii, false, || {
                        panic!("fell back on {case}")
                    })
                };
                assert_eq!(got, expected, "{case}");
                // SAFETY: as above.
                let untracked = unsafe {
                    skip_lazy_avx2::<false, false, _>(&buf, pad, 1, 128, &mut false, false, || {
                        panic!("fell back on {case}")
                    })
                };
                assert_eq!(untracked, expected, "{case}");
                // SAFETY: as above. (The instance for CPUs with a slow `pext`.)
                let mut tracked = false;
                let without_shortcut = unsafe {
                    skip_lazy_avx2::<true, false, _>(&buf, pad, 1, 128, &mut tracked, false, || {
                        panic!("fell back on {case}")
                    })
                };
                assert_eq!((without_shortcut, tracked), (expected, ascii), "{case}");
                // SAFETY: as above. (The instance for a value on one line: none of these
                // has a `\n`, so it never falls back either.)
                let mut on_one_line = false;
                let one_line = unsafe {
                    skip_lazy_avx2::<true, true, _>(
                        &buf,
                        pad,
                        1,
                        128,
                        &mut on_one_line,
                        true,
                        || panic!("fell back on {case}"),
                    )
                };
                assert_eq!((one_line, on_one_line), (expected, ascii), "{case}");
                // Said ASCII exactly when it is (the bytes after the value are ASCII).
                assert_eq!(
                    ascii,
                    case.is_ascii(),
                    "{case}, {pad} bytes {pad_byte:#x} before"
                );
            }
        }
    }

    /// The one-line instance never says a value with a `\n` in it is clean, wherever the
    /// `\n` is (whitespace between tokens, inside a string, in a long-string jump, after a
    /// block edge), and still ends where the oracle says.
    #[test]
    fn one_line_instance_never_vouches_for_a_newline() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let blob = "QUJD".repeat(50);
        let body =
            format!(r#"{{"a":[1, 2, {{"b":"x\"y"}}],"blob":"{blob}","c":{{"d":[true,null]}}}}"#);
        for at in 1..body.len() - 1 {
            let mut value = body.clone().into_bytes();
            value.insert(at, b'\n');
            for pad in [0usize, 1, 33, 63] {
                let mut buf = vec![b' '; pad];
                buf.extend_from_slice(&value);
                buf.extend_from_slice(b",\"tail\":1}");
                // The value does not end on its line.
                let expected = scalar::skip_container_lazy_on_line(&buf, pad, 1, 128);
                assert!(expected.is_err(), "newline at {at}");
                for shortcut in [true, false] {
                    let mut clean = false;
                    let oracle = || scalar::skip_container_lazy_on_line(&buf, pad, 1, 128);
                    // SAFETY: `Avx2::get` returned a token: the CPU has the features.
                    let got = unsafe {
                        let line = true;
                        if shortcut {
                            skip_lazy_avx2::<true, true, _>(
                                &buf, pad, 1, 128, &mut clean, line, oracle,
                            )
                        } else {
                            skip_lazy_avx2::<true, false, _>(
                                &buf, pad, 1, 128, &mut clean, line, oracle,
                            )
                        }
                    };
                    assert_eq!(
                        (got, clean),
                        (expected, false),
                        "newline at {at}, pad {pad}"
                    );
                }
                // Through the dispatch, which picks the oracle's line variant itself.
                let mut clean = false;
                let got = Avx2::get()
                    .unwrap()
                    .skip_container_lazy::<true, true>(&buf, pad, 1, 128, &mut clean);
                assert_eq!(
                    (got, clean),
                    (expected, false),
                    "newline at {at}, pad {pad}"
                );
            }
        }
    }

    /// The block string scanner against the scalar one: long bodies with a tricky piece at
    /// every offset around the 64-byte blocks (escapes cut by a block edge, a `\u` whose
    /// digits meet the quote, control bytes, escaped quotes, no closing quote), ending at
    /// every distance from the end of the buffer.
    #[test]
    fn long_strings_agree_with_the_scalar_scanner() {
        if Avx2::get().is_none() {
            eprintln!("no AVX2: skipped");
            return;
        }
        let pieces: [&[u8]; 12] = [
            br#"\""#,
            br#"\\""#,
            br#"\\\""#,
            br#"\u00e9""#,
            br#"\u12""#,
            br#"\u12345""#,
            br#"\x""#,
            b"\x01\"",
            br#"\"#,
            br#"\u"#,
            br#"plain""#,
            br#"\n\t\/\b\f\r""#,
        ];
        for piece in pieces {
            for offset in 60..200 {
                for tail in [0usize, 1, 7, 63, 64, 100] {
                    let mut buf = vec![b'a'; offset];
                    buf.extend_from_slice(piece);
                    buf.extend(core::iter::repeat_n(b'b', tail));
                    assert_eq!(
                        string_end_sse2(&buf, 0),
                        scalar::string_end(&buf, 0),
                        "{} at {offset}, {tail} after",
                        String::from_utf8_lossy(piece)
                    );
                }
            }
        }
    }

    /// The string-body loop against the oracle: a long escape-heavy string (the loop runs on
    /// its blocks) with a piece put at every offset across three 64-byte edges (escapes and
    /// backslash runs cut by an edge, a `\u` whose digits cross it, bad escapes, control
    /// bytes, a closing quote, a byte that is not ASCII), the value ending at several
    /// distances from the end of the buffer. Every instance gives the oracle's answer, says
    /// ASCII only of ASCII values, and never falls back on a valid value.
    #[test]
    fn string_body_agrees_with_the_oracle() {
        if Avx2::get().is_none() {
            eprintln!("no AVX2: skipped");
            return;
        }
        let unit: &[u8] = br#"ab \"c\" d\\e\nf \u00e9\/"#;
        let pieces: [&[u8]; 16] = [
            br#"\""#,
            br#"\\"#,
            br#"\\\""#,
            br#"\\\\\\\u0041"#,
            br#"\u00e9"#,
            br#"\uABCD"#,
            br#"\u12"#,
            br#"\u12g4"#,
            br#"\x"#,
            br#"\"#,
            b"\x01",
            b"\n",
            b"\x7f\x1f",
            br#"""#,
            b"\xc3\xa9",
            br#"\t\r\b\f"#,
        ];
        for piece in pieces {
            for offset in 100..260 {
                let mut value = b"[\"".to_vec();
                while value.len() + unit.len() <= offset {
                    value.extend_from_slice(unit);
                }
                value.resize(offset, b'a');
                value.extend_from_slice(piece);
                for _ in 0..6 {
                    value.extend_from_slice(unit);
                }
                value.extend_from_slice(br#"",1]"#);
                for tail in [0usize, 1, 31, 63, 64, 65] {
                    let mut buf = value.clone();
                    buf.resize(value.len() + tail, b' ');
                    let expected = scalar::skip_container_lazy(&buf, 0, 1, 128);
                    let what = || format!("{} at {offset}, {tail} after", piece.escape_ascii());
                    let fell_back = core::cell::Cell::new(false);
                    let oracle = || {
                        fell_back.set(true);
                        scalar::skip_container_lazy(&buf, 0, 1, 128)
                    };
                    let mut ascii = [false; 3];
                    // SAFETY: `Avx2::get` returned a token: the CPU has the features.
                    let got = unsafe {
                        [
                            skip_lazy_avx2::<true, true, _>(
                                &buf,
                                0,
                                1,
                                128,
                                &mut ascii[0],
                                false,
                                oracle,
                            ),
                            skip_lazy_avx2::<true, false, _>(
                                &buf,
                                0,
                                1,
                                128,
                                &mut ascii[1],
                                false,
                                oracle,
                            ),
                            skip_lazy_avx2::<false, false, _>(
                                &buf,
                                0,
                                1,
                                128,
                                &mut ascii[2],
                                false,
                                oracle,
                            ),
                        ]
                    };
                    assert_eq!(got, [expected; 3], "{}", what());
                    if expected.is_ok() {
                        assert!(!fell_back.get(), "fell back on {}", what());
                    }
                    let is_ascii = expected.is_ok_and(|end| buf[..end].is_ascii());
                    assert!(ascii[0] == is_ascii && ascii[1] == is_ascii, "{}", what());
                    assert!(!ascii[2], "{}", what());
                    // On one line, through the dispatch (a raw `\n` in the string is an
                    // error there).
                    let mut clean = false;
                    let on_line = Avx2::get()
                        .unwrap()
                        .skip_container_lazy::<true, true>(&buf, 0, 1, 128, &mut clean);
                    let expected = scalar::skip_container_lazy_on_line(&buf, 0, 1, 128);
                    assert_eq!(on_line, expected, "on one line: {}", what());
                    assert_eq!(
                        clean,
                        expected.is_ok_and(|end| buf[..end].is_ascii()),
                        "on one line: {}",
                        what()
                    );
                }
            }
        }
    }

    /// Hostile bytes before the start: what a last block read from before the position holds
    /// (bytes that are not ASCII, quotes, backslashes, brackets, newlines, control bytes).
    const HOSTILE: [&[u8]; 6] = [
        b"\xe9\xff\x80\xc3",
        b"\"",
        b"\\",
        b"{[\n",
        b"]}\"\\\x01",
        b"\"\\\"\\\\]}\n\xe9",
    ];

    /// A buffer of `before` bytes of `hostile` (repeated), then `value`, then `after` bytes
    /// of `tail` (repeated): the value starts at `before`.
    fn placed(hostile: &[u8], before: usize, value: &[u8], tail: &[u8], after: usize) -> Vec<u8> {
        let mut buf: Vec<u8> = hostile.iter().copied().cycle().take(before).collect();
        buf.extend_from_slice(value);
        buf.extend(tail.iter().copied().cycle().take(after));
        buf
    }

    /// The lazy kernel's AVX2 instances on values shorter and a little longer than a block,
    /// placed at every distance from the end of a buffer longer than a block, after hostile
    /// bytes: the oracle's answer, on the fast path for a valid value, and said ASCII (or clean
    /// on one line) exactly when the value is.
    #[test]
    fn values_at_the_end_after_hostile_bytes() {
        let Some(_) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let long = "x".repeat(90);
        let values: Vec<String> = [
            "{}",
            "[]",
            "[1]",
            r#"{"a":1}"#,
            r#"[1,2,{"b":"x\"y\\"}]"#,
            r#"{"s":"\u00e9\n\/","t":[true,null]}"#,
            r#"["\\",{"k":"\\\""}]"#,
            r#"{"k":"é","l":[1,2,3]}"#,
            r#"[{"a":[1,2,3]},{"b":{}},[[],[[]]]]"#,
            &format!(r#"{{"long":"{long}"}}"#),
            &format!(r#"["{long}é"]"#),
            &format!(r#"[{{"a":"{}"}},1]"#, "\\\"".repeat(30)),
            // Not values: the oracle's error, wherever the value ends.
            "[1,2",
            r#"{"a":"x"#,
            r#"["\x"]"#,
            "[\"\x01\"]",
            "[}",
            r#"{"a":[}]}"#,
            r#"["\u12"#,
            r#"["\u12g4"]"#,
            r#"["a\"#,
            "[1\n]",
            "[\"\n\"]",
        ]
        .map(String::from)
        .to_vec();
        for value in &values {
            let value = value.as_bytes();
            for hostile in HOSTILE {
                for before in [64, 65, 100] {
                    for (tail, after_max) in [(&b" "[..], 64), (b"]}\"\\,\n", 64), (b"\xe9", 2)] {
                        for after in 0..=after_max {
                            let buf = placed(hostile, before, value, tail, after);
                            check_lazy_instances(&buf, before, tail.is_ascii() || after == 0);
                        }
                    }
                }
            }
        }
    }

    /// Every AVX2 instance of the lazy kernel on the value at `start` of `buf`, against the
    /// oracle (see [`values_at_the_end_after_hostile_bytes`]); the ASCII answers are held to be
    /// exact when `exact` (no byte that is not ASCII after the value), else never wrong.
    fn check_lazy_instances(buf: &[u8], start: usize, exact: bool) {
        let what = || format!("{:?} from {start}", buf.escape_ascii().to_string());
        let expected = scalar::skip_container_lazy(buf, start, 1, 128);
        let expected_line = scalar::skip_container_lazy_on_line(buf, start, 1, 128);
        let is_ascii = |end: Result<usize, ScanError>| end.is_ok_and(|e| buf[start..e].is_ascii());
        let fell_back = core::cell::Cell::new(false);
        let oracle = |line: bool| {
            let fell_back = &fell_back;
            move || {
                fell_back.set(true);
                lazy_oracle(buf, start, 1, 128, line)()
            }
        };
        for line in [false, true] {
            let want = if line { expected_line } else { expected };
            let want_ascii =
                is_ascii(want) && !(line && want.is_ok_and(|e| buf[start..e].contains(&b'\n')));
            let mut said = [false; 3];
            fell_back.set(false);
            // SAFETY: the caller checked that `Avx2::get` returned a token.
            let got = unsafe {
                [
                    skip_lazy_avx2::<true, true, _>(
                        buf,
                        start,
                        1,
                        128,
                        &mut said[0],
                        line,
                        oracle(line),
                    ),
                    skip_lazy_avx2::<true, false, _>(
                        buf,
                        start,
                        1,
                        128,
                        &mut said[1],
                        line,
                        oracle(line),
                    ),
                    skip_lazy_avx2::<false, false, _>(
                        buf,
                        start,
                        1,
                        128,
                        &mut said[2],
                        line,
                        oracle(line),
                    ),
                ]
            };
            assert_eq!(got, [want; 3], "line {line}: {}", what());
            if want.is_ok() {
                assert!(!fell_back.get(), "fell back: {}", what());
            }
            for said in &said[..2] {
                assert!(
                    !*said || want_ascii,
                    "line {line}: ASCII said of {}",
                    what()
                );
                if exact && want.is_ok() && !fell_back.get() {
                    assert_eq!(*said, want_ascii, "line {line}: {}", what());
                }
            }
            assert!(!said[2], "untracked: {}", what());
        }
    }

    /// The 64-byte string scanner (and the SSE2 one before it) from a point of a string body
    /// after hostile bytes, the string ending at every distance from the end of the buffer: the
    /// scalar scanner's answer, the escape flag included.
    #[test]
    fn string_ends_at_the_end_after_hostile_bytes() {
        let Some(avx2) = Avx2::get() else {
            eprintln!("no AVX2: skipped");
            return;
        };
        let bodies: [&[u8]; 10] = [
            b"\"",
            b"abc\"",
            b"\\\"q\\\\\"",
            b"caf\xc3\xa9 \\u00e9\"",
            b"\\u12\"",
            b"\\u1",
            b"\\",
            b"a\x01\"",
            b"\\x\"",
            b"no closing quote",
        ];
        for body in bodies {
            for pad in [0usize, 1, 20, 63, 64, 70] {
                let mut body = body.to_vec();
                body.splice(0..0, core::iter::repeat_n(b'b', pad));
                for hostile in HOSTILE {
                    for before in [64, 65, 100] {
                        for after in 0..=64 {
                            let buf = placed(hostile, before, &body, b"]\"\\ ", after);
                            let want = scalar::string_end(&buf, before);
                            let what =
                                || format!("{:?} from {before}", buf.escape_ascii().to_string());
                            assert_eq!(avx2.string_end_blocks(&buf, before), want, "{}", what());
                            // SAFETY: `Avx2::get` returned a token: the CPU has the features.
                            // (The AVX2 instance, which the dispatch skips on AVX-512BW.)
                            let narrow = unsafe { string_end_avx2::<false>(&buf, before) };
                            assert_eq!(narrow, want, "avx2: {}", what());
                            assert_eq!(string_end_sse2(&buf, before), want, "sse2: {}", what());
                        }
                    }
                }
            }
        }
    }
}
