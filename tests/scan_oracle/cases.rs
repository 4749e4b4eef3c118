//! The cases of the oracle tests, shared by `tests/scan_oracle.rs` (the fastest kernel of the
//! CPU), `tests/scan_oracle_avx2.rs` (the AVX2 instance of the lazy kernel, forced on a CPU
//! with AVX-512BW) and `tests/scan_oracle_portable.rs` (the portable kernels, which targets
//! without a SIMD kernel run): every call of a fast kernel goes through [`simd`], which picks
//! the instance its binary tests (`crate::FORCE_AVX2`, `crate::PORTABLE`).

use proptest::prelude::*;
use rpcwire::scan::{self, ScanError, Validation};

const MODES: [Validation; 2] = [Validation::Lazy, Validation::Strict];

/// The SIMD entry points of `rpcwire::scan`, on the instance this binary tests.
mod simd {
    use rpcwire::scan::{self, ScanError, Validation};

    /// Every call sets it: the tests of a binary run on threads of their own, in any order.
    fn instance() {
        scan::force_avx2(crate::FORCE_AVX2);
    }

    pub fn kernel() -> &'static str {
        instance();
        if crate::PORTABLE {
            return "portable";
        }
        scan::simd_kernel()
    }

    pub fn skip_value(
        buf: &[u8],
        start: usize,
        depth: u32,
        max_depth: u32,
        mode: Validation,
    ) -> Result<usize, ScanError> {
        instance();
        if crate::PORTABLE {
            return scan::portable::skip_value(buf, start, depth, max_depth, mode);
        }
        scan::simd_skip_value(buf, start, depth, max_depth, mode)
    }

    pub fn skip_lazy_value_ascii<const ONE_LINE: bool>(
        buf: &[u8],
        start: usize,
        depth: u32,
        max_depth: u32,
        ascii: &mut bool,
    ) -> Result<usize, ScanError> {
        instance();
        if crate::PORTABLE {
            return scan::portable::skip_lazy_value::<ONE_LINE>(buf, start, depth, max_depth);
        }
        scan::simd_skip_lazy_value_ascii::<ONE_LINE>(buf, start, depth, max_depth, ascii)
    }

    pub fn string_end(buf: &[u8], start: usize) -> Result<(usize, bool), ScanError> {
        instance();
        if crate::PORTABLE {
            return scan::portable::string_end(buf, start);
        }
        scan::simd_string_end(buf, start)
    }

    /// (The portable kernels have no ASCII check of their own: a target without a SIMD kernel
    /// answers with the scalar twin, which the test of this answer checks beside it.)
    pub fn ascii_prefix(buf: &[u8]) -> usize {
        instance();
        scan::simd_ascii_prefix(buf)
    }
}

/// The SIMD skip against the oracle, in both modes and on one line; returns whether the
/// value was said ASCII ([`check_ascii_said`]).
fn check_skip(buf: &[u8], start: usize, depth: u32, max_depth: u32) -> bool {
    for mode in MODES {
        let fast = simd::skip_value(buf, start, depth, max_depth, mode);
        let slow = scan::scalar_skip_value(buf, start, depth, max_depth, mode);
        assert_eq!(
            fast,
            slow,
            "{mode:?} start={start} depth={depth} max={max_depth} input={:?}",
            String::from_utf8_lossy(buf)
        );
    }
    check_ascii_said(buf, start, depth, max_depth)
}

/// The lazy skip that also says whether the value is ASCII: the same result as the plain
/// skip, and "ASCII" never said of a value holding a byte that is not (the decoder skips the
/// UTF-8 check of such a value). Returns what it said.
fn check_ascii_said(buf: &[u8], start: usize, depth: u32, max_depth: u32) -> bool {
    // The one-line instance: the same result, and "clean" never said of a value with a
    // `\n` (the decoder of a whole stream then skips looking for a line end in it).
    let mut clean = false;
    let one_line = simd::skip_lazy_value_ascii::<true>(buf, start, depth, max_depth, &mut clean);
    if clean {
        let end = one_line.expect("clean said of a value that failed");
        assert!(
            buf[start..end].is_ascii() && !buf[start..end].contains(&b'\n'),
            "clean said of a value that is not: start={start} input={:?}",
            String::from_utf8_lossy(buf)
        );
    }
    let line = &buf[..buf[start.min(buf.len())..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(buf.len(), |nl| start + nl)];
    // Its answer: the oracle's on the line when the value ends there, an error otherwise.
    assert_eq!(
        one_line.ok(),
        scan::scalar_skip_value(line, start, depth, max_depth, Validation::Lazy).ok(),
        "one-line instance against the oracle on the line, start={start}"
    );
    let mut ascii = false;
    let got = simd::skip_lazy_value_ascii::<false>(buf, start, depth, max_depth, &mut ascii);
    let plain = simd::skip_value(buf, start, depth, max_depth, Validation::Lazy);
    assert_eq!(
        got,
        plain,
        "start={start} input={:?}",
        String::from_utf8_lossy(buf)
    );
    if ascii {
        let end = got.expect("ASCII said of a value that failed");
        assert!(
            buf[start..end].is_ascii(),
            "ASCII said of a value that is not: start={start} input={:?}",
            String::from_utf8_lossy(buf)
        );
    }
    ascii
}

fn check_string(buf: &[u8], start: usize) {
    assert_eq!(
        simd::string_end(buf, start),
        scan::scalar::string_end(buf, start),
        "string_end start={start} input={:?}",
        String::from_utf8_lossy(buf)
    );
}

/// Every suffix start that begins a value, and every prefix cut, of `buf`.
fn check_all_cuts(buf: &[u8]) {
    for cut in 0..=buf.len() {
        let b = &buf[..cut];
        check_skip(b, 0, 0, 128);
        if !b.is_empty() && b[0] == b'"' {
            check_string(b, 1);
        }
    }
}

/// Names the kernel under test, one of those `scan::simd_kernel` documents; the binary that
/// forces the AVX2 instance never runs the AVX-512 one.
#[test]
fn reports_kernel() {
    let kernel = simd::kernel();
    eprintln!("scan_oracle: SIMD kernel under test = {kernel}");
    assert!(
        matches!(
            kernel,
            "avx512" | "avx2" | "avx2 (slow pext)" | "sse2" | "portable"
        ),
        "{kernel}"
    );
    assert!(!(crate::FORCE_AVX2 && kernel == "avx512"), "AVX2 forced");
    if !kernel.starts_with("avx") {
        eprintln!(
            "scan_oracle: no AVX2 kernel under test (none on this CPU, none on this target, \
             or the portable kernels tested): comparing the SSE2 or portable paths only"
        );
    }
}

#[test]
fn every_byte_at_every_offset() {
    // A template that crosses several 64-byte blocks; every position gets every byte value.
    let template: Vec<u8> = br#"{"a":[1,2,{"b":"x\"y\\z\u00e9"}],"c":"0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ","d":{"e":[true,false,null,-1.5e+3]}}"#.to_vec();
    for pos in 0..template.len() {
        for byte in 0..=255u8 {
            let mut b = template.clone();
            b[pos] = byte;
            check_skip(&b, 0, 0, 128);
            check_skip(&b, 0, 1, 3);
        }
    }
}

/// The ASCII check's contract, on the SIMD kernel and on its scalar twin (the one a build
/// forced to scalar, or a CPU without AVX2, decodes with): every byte before its answer is
/// ASCII, and the answer is the whole length exactly when every byte is (checked against a
/// byte loop; the kernel answers at block starts, the scalar twin all or nothing).
fn check_ascii_prefix(buf: &[u8]) {
    let first_other = buf.iter().position(|b| !b.is_ascii()).unwrap_or(buf.len());
    for (kernel, got) in [
        ("simd", simd::ascii_prefix(buf)),
        ("scalar", scan::scalar::ascii_prefix(buf)),
    ] {
        assert!(
            got <= first_other,
            "{kernel}: {got} past the byte at {first_other}: {buf:?}"
        );
        assert_eq!(
            got == buf.len(),
            first_other == buf.len(),
            "{kernel}: {buf:?}"
        );
    }
}

#[test]
fn ascii_prefix_with_a_high_byte_anywhere() {
    for len in 0..200 {
        let plain = vec![b'a'; len];
        check_ascii_prefix(&plain);
        for at in 0..len {
            for high in [0x80u8, 0xc3, 0xff] {
                let mut buf = plain.clone();
                buf[at] = high;
                check_ascii_prefix(&buf);
                // And at the end of a sub-slice that starts mid-buffer.
                check_ascii_prefix(&buf[at / 2..]);
            }
        }
    }
}

#[test]
fn backslash_runs_straddling_blocks() {
    for prefix in 0..70 {
        for run in 0..10 {
            for after in [&b"\""[..], b"n", b"u00e9", b"u00", b"x", b"\"]", b"/"] {
                let mut b = b"[\"".to_vec();
                b.extend(std::iter::repeat_n(b'a', prefix));
                b.extend(std::iter::repeat_n(b'\\', run));
                b.extend_from_slice(after);
                b.extend_from_slice(b"tail\"]");
                check_skip(&b, 0, 0, 128);
                check_string(&b, 2);
                for cut in b.len().saturating_sub(12)..b.len() {
                    check_skip(&b[..cut], 0, 0, 128);
                    check_string(&b[..cut], 2);
                }
            }
        }
    }
}

#[test]
fn quotes_and_brackets_at_block_edges() {
    for pad in 0..140 {
        for tail in [
            &b"\"}"[..],
            b"\"]",
            b"\",\"k\":[]}",
            b"\"}]",
            b"\"]}",
            b"\\\"\"}",
            b"\\u0041\"}",
            b"\x01\"}",
            b"\"}  ",
        ] {
            let mut b = b"{\"k\":\"".to_vec();
            b.extend(std::iter::repeat_n(b'q', pad));
            b.extend_from_slice(tail);
            check_all_cuts(&b);
        }
    }
}

/// Rows of objects holding arrays of scalars (the kernel proves whole blocks of these
/// without walking their brackets), at every offset against the 64-byte blocks; then each
/// bracket turned into the other kind, or dropped, or doubled.
#[test]
fn leaf_arrays_in_rows_of_objects() {
    let row = |n: usize| {
        format!(
            r#"{{"id":{n},"p":{{"a":1,"c":[1,22,333]}},"q":{{"r":{{"s":[]}}}},"t":["x","y]"]}}"#
        )
    };
    let rows: Vec<String> = (0..6).map(row).collect();
    let value = format!(r#"{{"rows":[{}],"n":[[1],[2,[3]]]}}"#, rows.join(","));
    for pad in 0..64 {
        let mut buf = vec![b' '; pad];
        buf.extend_from_slice(value.as_bytes());
        for depth in [0, 1, 120] {
            check_skip(&buf, pad, depth, 128);
        }
    }
    let brackets = value
        .bytes()
        .enumerate()
        .filter(|(_, b)| b"{}[]".contains(b));
    for (i, b) in brackets {
        let other = match b {
            b'{' => b'[',
            b'[' => b'{',
            b'}' => b']',
            _ => b'}',
        };
        let mut flipped = value.clone().into_bytes();
        flipped[i] = other;
        let mut dropped = value.clone().into_bytes();
        dropped.remove(i);
        let mut doubled = value.clone().into_bytes();
        doubled.insert(i, b);
        for buf in [flipped, dropped, doubled] {
            check_skip(&buf, 0, 0, 128);
        }
    }
}

/// From 4 KiB on, `skip_value` takes the kernel instance for long values: the same values
/// and their broken twins, followed by enough input to make the buffer long (rows of objects
/// at every offset; a value cut short, which runs into the padding).
#[test]
fn values_in_long_buffers() {
    let row =
        |n: usize| format!(r#"{{"id":{n},"p":{{"a":1,"c":[1,22,333]}},"q":{{"r":{{"s":[]}}}}}}"#);
    let rows: Vec<String> = (0..80).map(row).collect();
    let value = format!(r#"{{"rows":[{}],"n":[[1],[2,[3]]]}}"#, rows.join(","));
    assert!(value.len() > 4096);
    let pad_to_long = |mut buf: Vec<u8>| {
        buf.resize(buf.len() + 4096, b' ');
        buf
    };
    for pad in 0..64 {
        let mut buf = vec![b' '; pad];
        buf.extend_from_slice(&value.as_bytes()[..200]);
        check_skip(&pad_to_long(buf), pad, 0, 128);
        let mut buf = vec![b' '; pad];
        buf.extend_from_slice(value.as_bytes());
        check_skip(&buf, pad, 0, 128);
    }
    let bytes = value.as_bytes();
    for i in (0..bytes.len()).step_by(7) {
        let mut flipped = bytes.to_vec();
        flipped[i] = match bytes[i] {
            b'{' => b'[',
            b'[' => b'{',
            b'}' => b']',
            b']' => b'}',
            b'"' => b'x',
            _ => b'"',
        };
        check_skip(&pad_to_long(flipped), 0, 0, 128);
    }
}

#[test]
fn depth_limits_near_max() {
    for max in [1u32, 2, 63, 64, 65, 127, 128, 129, 200, u32::MAX] {
        for levels in [1usize, 2, 63, 64, 65, 127, 128, 129, 130, 200, 300] {
            for (open, close) in [(b'[', b']'), (b'{', b'}')] {
                let mut b = Vec::new();
                for _ in 0..levels {
                    b.push(open);
                    if open == b'{' {
                        b.extend_from_slice(b"\"k\":");
                    }
                }
                b.extend_from_slice(b"1");
                for _ in 0..levels {
                    b.push(close);
                }
                if open == b'{' {
                    // `{"k":{"k":...1}}` — valid objects need keys; arrays are fine as is.
                    check_skip(&b, 0, 0, max);
                    check_skip(&b, 0, 1, max);
                } else {
                    check_skip(&b, 0, 0, max);
                    check_skip(&b, 0, 5, max);
                }
                // Mixed kinds, alternating, and a wrong closer in the middle.
                let mixed: Vec<u8> = (0..levels)
                    .map(|i| if i % 3 == 0 { b'{' } else { b'[' })
                    .chain(
                        (0..levels)
                            .rev()
                            .map(|i| if i % 3 == 0 { b'}' } else { b']' }),
                    )
                    .collect();
                check_skip(&mixed, 0, 0, max);
                let mut wrong = mixed.clone();
                let mid = levels + levels / 2;
                wrong[mid] = if wrong[mid] == b'}' { b']' } else { b'}' };
                check_skip(&wrong, 0, 0, max);
            }
        }
    }
}

/// The strict walk's short paths against the oracle at every cut: keys of up to three plain
/// bytes (and the keys just past them, or with a stop byte, a space or no colon after them,
/// where it hands over to the longer way) and the literals, whole, misspelt and cut short.
#[test]
fn short_keys_and_literals_at_every_cut() {
    let keys: [&[u8]; 14] = [
        b"",
        b"a",
        b"id",
        b"abc",
        b"abcd",
        b"\\",
        b"a\\n",
        b"\x1f",
        b"a\x01",
        b"ab\x00",
        b"\x7f",
        b"\xc3\xa9",
        b"\xff\xff\xff",
        b"a\"",
    ];
    let colons: [&[u8]; 5] = [b":", b" :", b": ", b"", b","];
    let values: [&[u8]; 16] = [
        b"true", b"false", b"null", b"tru", b"fals", b"nul", b"truex", b"falsy", b"nulll", b"t",
        b"f", b"nUll", b"1", b"-0.5", b"\"v1\"", b"{}",
    ];
    for key in keys {
        for colon in colons {
            for value in values {
                let member = [b"\"", key, b"\"", colon, value].concat();
                let object = [b"{", &member[..], b",", &member[..], b"}"].concat();
                check_all_cuts(&object);
                let array = [b"[", value, b",", value, b"]"].concat();
                check_all_cuts(&array);
            }
        }
    }
}

/// Valid mixed nesting across the strict walk's 63-level stack word (and its spills),
/// with every depth limit near there, and each closing bracket in turn swapped for the
/// other kind.
#[test]
fn strict_nesting_across_the_stack_word() {
    for levels in [62usize, 63, 64, 65, 126, 127, 128, 129, 200] {
        let kinds: Vec<bool> = (0..levels).map(|l| l % 3 != 1).collect();
        let mut b = Vec::new();
        for &object in &kinds {
            b.extend_from_slice(if object { b"{\"k\":" } else { b"[" });
        }
        b.push(b'0');
        for &object in kinds.iter().rev() {
            b.extend_from_slice(if object { b",\"z\":true}" } else { b",2]" });
        }
        for max in [63u32, 64, 65, 127, 128, 129, 300] {
            check_skip(&b, 0, 0, max);
            check_skip(&b, 0, 2, max);
        }
        for at in 0..b.len() {
            let swapped = match b[at] {
                b'}' => b']',
                b']' => b'}',
                _ => continue,
            };
            let mut wrong = b.clone();
            wrong[at] = swapped;
            check_skip(&wrong, 0, 0, 300);
        }
    }
}

#[test]
fn long_strings() {
    for len in [60usize, 63, 64, 65, 127, 128, 129, 1000, 4096, 70_000] {
        let body: Vec<u8> = (0..len).map(|i| b"ABCDEFGHabcdefgh+/=="[i % 20]).collect();
        let mut b = b"{\"blob\":\"".to_vec();
        b.extend_from_slice(&body);
        b.extend_from_slice(b"\",\"n\":[1,2]}");
        check_skip(&b, 0, 0, 128);
        check_string(&b, 9);
        // A control byte, a backslash escape, a bad escape near the end of the body.
        for (at, byte) in [
            (len - 1, 0x1fu8),
            (len / 2, 0x00),
            (len - 2, b'\\'),
            (len - 3, b'"'),
        ] {
            let mut c = b.clone();
            c[9 + at] = byte;
            check_skip(&c, 0, 0, 128);
            check_string(&c, 9);
        }
        let mut esc = b.clone();
        esc[9 + len - 2] = b'\\';
        esc[9 + len - 1] = b'n';
        check_skip(&esc, 0, 0, 128);
        // Unterminated.
        check_skip(&b[..9 + len], 0, 0, 128);
    }
}

/// The long-string jump reads 256 bytes a turn (AVX-512BW) or 128 (AVX2), then 64, then
/// bytes: a stop byte (the closing quote, a control byte, a backslash) at every offset of a
/// long body, and a byte that is not ASCII there, are found where the oracle finds them.
#[test]
fn stops_at_every_offset_of_a_long_string() {
    let body: Vec<u8> = (0..1000).map(|i| b"ABCDEFGHabcdefgh+/=="[i % 20]).collect();
    let mut b = b"{\"blob\":\"".to_vec();
    b.extend_from_slice(&body);
    b.extend_from_slice(b"\",\"n\":[1,2]}");
    for at in 0..body.len() - 1 {
        for byte in [b'"', 0x01, b'\\'] {
            let mut c = b.clone();
            c[9 + at] = byte;
            check_skip(&c, 0, 0, 128);
            check_string(&c, 9);
        }
        let mut c = b.clone();
        c[9 + at] = 0xc3;
        c[9 + at + 1] = 0xa9;
        assert!(
            !check_ascii_said(&c, 0, 0, 128),
            "non-ASCII at {at} called ASCII"
        );
    }
}

/// A long string without escapes (its end found 64 bytes at a time, after the jump over its
/// body or in a block of its own) followed, in the block of its closing quote, by a backslash
/// that is no byte of it: the next member's escape, a run of backslashes, one the input ends
/// with. `string_end` says the body has escapes only when it has: the block's backslashes
/// count up to the quote only. The quote at every offset of three blocks.
#[test]
fn backslashes_after_the_closing_quote_of_a_long_string() {
    let afters: [&[u8]; 5] = [
        br#"\n"#,
        br#","k":"a\"b"}"#,
        br#","k":"\\\\"}"#,
        br#"}  \"#,
        br#","k":"\u00e9"}"#,
    ];
    for len in 60..260 {
        let body: Vec<u8> = (0..len).map(|i| b"ABCDEFGHabcdefgh+/=="[i % 20]).collect();
        for after in afters {
            let mut b = b"{\"t\":\"".to_vec();
            b.extend_from_slice(&body);
            b.push(b'"');
            b.extend_from_slice(after);
            check_string(&b, 6);
            check_skip(&b, 0, 0, 128);
            assert_eq!(
                simd::string_end(&b, 6),
                Ok((6 + len, false)),
                "{len} {}",
                after.escape_ascii()
            );
        }
    }
}

/// A byte that is not ASCII anywhere in a long string (block edges, the long-string jump and
/// its last bytes) or just after the value: the lazy skip never calls such a value ASCII, and
/// calls the all-ASCII one so (the kernel then spares the decoder a UTF-8 pass).
#[test]
fn ascii_said_only_of_ascii_values() {
    for len in [10usize, 63, 64, 65, 200, 1000] {
        let body: Vec<u8> = (0..len).map(|i| b"ABCDEFGHabcdefgh+/=="[i % 20]).collect();
        let mut b = b"{\"blob\":\"".to_vec();
        b.extend_from_slice(&body);
        b.extend_from_slice(b"\",\"n\":[1,2]} ");
        let said = check_ascii_said(&b, 0, 0, 128);
        // (ASCII is tracked by every AVX2 instance, with the one-kind shortcut or without it
        // on a CPU whose `pext` is slow; the SSE2 and scalar paths do not track it.)
        assert_eq!(
            said,
            matches!(simd::kernel(), "avx2" | "avx2 (slow pext)" | "avx512"),
            "len {len}"
        );
        for at in 0..b.len() {
            for byte in [0x80u8, 0xc3, 0xff] {
                let mut c = b.clone();
                c[at] = byte;
                check_ascii_said(&c, 0, 0, 128);
            }
        }
    }
}

/// Values and string bodies placed at every distance (0 to 64 bytes) from the end of a buffer
/// longer than a block, after hostile bytes (not ASCII, quotes, backslashes, brackets,
/// newlines, control bytes): a last block read from before the start holds them, and none
/// of them is the value's. The oracle's answer in both modes and on one line, and, on the
/// AVX2 kernels, "ASCII" said of exactly the valid values that are ASCII (the bytes after
/// them are).
#[test]
fn values_at_the_end_after_hostile_bytes() {
    let tracks = simd::kernel().starts_with("avx");
    let long = "y".repeat(80);
    let values = [
        "{}".to_string(),
        r#"[1,{"a":"b"}]"#.to_string(),
        r#"{"s":"x\"y\\\u00e9\n","t":[true,null,-1.5]}"#.to_string(),
        r#"[{"a":[1,2]},{"b":{}},[[],[[]]]]"#.to_string(),
        r#"{"k":"café"}"#.to_string(),
        format!(r#"{{"long":"{long}","n":[1]}}"#),
        "[1,2".to_string(),
        r#"["\x"]"#.to_string(),
        "[\"\x01\"]".to_string(),
        r#"{"a":[}]}"#.to_string(),
        r#"["\u12"#.to_string(),
        "[1\n]".to_string(),
    ];
    let hostile: [&[u8]; 4] = [b"\xe9\xff\x80", b"\"\\", b"{[\n", b"]}\"\\\x01\xc3\n"];
    for value in &values {
        for before in hostile {
            for pad in [64usize, 65, 99] {
                for after in 0..=64 {
                    let mut buf: Vec<u8> = before.iter().copied().cycle().take(pad).collect();
                    buf.extend_from_slice(value.as_bytes());
                    buf.extend(b" ]}\"\\,".iter().copied().cycle().take(after));
                    check_skip(&buf, pad, 1, 128);
                    let said = check_ascii_said(&buf, pad, 1, 128);
                    let valid = scan::scalar_skip_value(&buf, pad, 1, 128, Validation::Lazy);
                    assert_eq!(
                        said,
                        tracks && valid.is_ok() && value.is_ascii(),
                        "{value} after {pad} of {}, {after} after",
                        before.escape_ascii()
                    );
                    if value.starts_with(r#"{"long":""#) {
                        check_string(&buf, pad + 9);
                    }
                }
            }
        }
    }
    // String bodies alone, from a start inside the string (the SSE2 scanner's last 16 bytes
    // read from before it, the 64-byte one's last block).
    let bodies: [&[u8]; 5] = [
        b"abc\"",
        br#"\"q\\\""#,
        b"caf\xc3\xa9\"",
        br#"\u12""#,
        b"no end",
    ];
    for body in bodies {
        for lead in [0usize, 15, 16, 17, 63, 64, 70] {
            for before in hostile {
                for after in 0..=64 {
                    let mut buf: Vec<u8> = before.iter().copied().cycle().take(100).collect();
                    buf.extend(core::iter::repeat_n(b'b', lead));
                    buf.extend_from_slice(body);
                    buf.extend(b"\"\\ ]".iter().copied().cycle().take(after));
                    check_string(&buf, 100);
                }
            }
        }
    }
}

#[test]
fn escape_heavy_strings() {
    let unit = br#"\"quoted\" \\path\\ line\n caf\u00e9 \/ \t\r\b\f"#;
    for reps in [1usize, 2, 5, 20, 100] {
        let mut b = b"[\"".to_vec();
        for _ in 0..reps {
            b.extend_from_slice(unit);
        }
        b.extend_from_slice(b"\",{\"k\":\"\\u12\"}]");
        check_all_cuts(&b[..b.len().min(400)]);
        check_skip(&b, 0, 0, 128);
    }
}

/// Long escape-heavy strings (the lazy kernel goes through their bodies with its
/// string-body loop, and so does the string scanner once it has seen a backslash) with a
/// piece at every offset across several 64-byte edges: escapes and backslash runs cut by an
/// edge, a `\u` whose digits cross it, bad escapes, control bytes, an early closing quote, a
/// byte that is not ASCII; the value then cut at a few points. Both the skip of the object
/// and the end of its string.
#[test]
fn escape_heavy_bodies_at_every_offset() {
    let unit: &[u8] = br#"x \"q\" \\p\\ \n caf\u00e9 \/"#;
    let pieces: [&[u8]; 10] = [
        br#"\\\""#,
        br#"\\\\\u0041"#,
        br#"\uD83D\uDE00"#,
        br#"\u00g0"#,
        br#"\q"#,
        b"\x1f",
        b"\n",
        br#"""#,
        b"\xc3\xa9",
        br#"\"#,
    ];
    for piece in pieces {
        for offset in 120..270 {
            let mut b = b"{\"t\":\"".to_vec();
            while b.len() + unit.len() <= offset {
                b.extend_from_slice(unit);
            }
            b.resize(offset, b'y');
            b.extend_from_slice(piece);
            for _ in 0..5 {
                b.extend_from_slice(unit);
            }
            b.extend_from_slice(br#"","n":[1,{"k":2}]}"#);
            check_skip(&b, 0, 0, 128);
            check_string(&b, 6);
            for cut in [offset + 1, offset + 64, b.len() - 3] {
                check_skip(&b[..cut.min(b.len())], 0, 1, 10);
                check_string(&b[..cut.min(b.len())], 6);
            }
        }
    }
}

/// Bytes JSON-ish enough to make interesting containers, plus any byte now and then.
fn jsonish_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        20 => prop::sample::select(b"{}[]\",:\\ ".to_vec()),
        10 => prop::sample::select(b"0123456789-+.eEtrufalsnbx".to_vec()),
        4 => prop::sample::select(b"u/abcdefABCDEF".to_vec()),
        2 => prop::sample::select(vec![b'\t', b'\n', b'\r', 0x00, 0x1f, 0x7f, 0xc3, 0xa9, 0xff]),
        1 => any::<u8>(),
    ]
}

/// A random JSON value, serialized with random whitespace and escapes.
fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:e}")),
        "[a-z\\\\\"\\n\\t\u{e9}\u{1F600} ]{0,90}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        (0usize..200).prop_map(|n| format!("\"{}\"", "x".repeat(n))),
    ];
    leaf.prop_recursive(12, 200, 8, |inner| {
        let ws = prop::sample::select(vec!["", " ", "\n", "\t ", ""]);
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..8), ws.clone())
                .prop_map(|(v, w)| format!("[{w}{}{w}]", v.join(&format!(",{w}")))),
            (prop::collection::vec(("[a-z\\\\\"]{0,8}", inner), 0..8), ws).prop_map(|(v, w)| {
                let members: Vec<String> = v
                    .into_iter()
                    .map(|(k, v)| format!("{}{w}:{w}{v}", serde_json::to_string(&k).unwrap()))
                    .collect();
                format!("{{{w}{}{w}}}", members.join(","))
            }),
        ]
    })
}

proptest! {

    #![proptest_config(crate::common::cases(2000))]

    #[test]
    fn ascii_prefix_on_any_bytes(buf in proptest::collection::vec(
        prop_oneof![4 => 0x20u8..0x7f, 1 => any::<u8>()], 0..300)) {
        check_ascii_prefix(&buf);
    }

    #[test]
    fn random_bytes(open in prop::sample::select(vec![b'{', b'[']),
                    body in prop::collection::vec(jsonish_byte(), 0..300),
                    depth in 0u32..4, max in 1u32..20) {
        let mut b = vec![open];
        b.extend_from_slice(&body);
        check_skip(&b, 0, depth, max);
        check_skip(&b, 0, 0, 128);
    }

    /// A random value after JSON-ish bytes (quotes, backslashes, brackets, bytes that are
    /// not ASCII: a last block read from before the value holds them), followed by more
    /// input or ending the buffer; a valid container is said ASCII on the AVX2 kernels
    /// exactly when it is.
    #[test]
    fn random_values(v in json_value(), before in prop::collection::vec(jsonish_byte(), 0..100),
                     depth in 0u32..3) {
        let pad = before.len();
        let mut b = before;
        b.extend_from_slice(v.as_bytes());
        b.extend_from_slice(b" ,\"after\":1}");
        let tracked = simd::kernel().starts_with("avx") && matches!(v.as_bytes()[0], b'{' | b'[');
        let said = check_skip(&b, pad, depth, 128);
        prop_assert_eq!(said, tracked && v.is_ascii(), "{:?}", String::from_utf8_lossy(&b));
        check_skip(&b, pad, 0, 6);
        let at_end = &b[..b.len() - 12];
        let said = check_skip(at_end, pad, depth, 128);
        prop_assert_eq!(said, tracked && v.is_ascii(), "{:?}", String::from_utf8_lossy(at_end));
    }

    #[test]
    fn mutated_values(v in json_value(), edits in prop::collection::vec((any::<prop::sample::Index>(), jsonish_byte(), 0u8..3), 1..4),
                      cut in any::<prop::sample::Index>()) {
        let mut b = v.into_bytes();
        for (at, byte, op) in edits {
            if b.is_empty() { break; }
            let i = at.index(b.len());
            match op {
                0 => b[i] = byte,
                1 => b.insert(i, byte),
                _ => { b.remove(i); }
            }
        }
        if b.is_empty() { return Ok(()); }
        check_skip(&b, 0, 0, 128);
        let cut = cut.index(b.len() + 1);
        check_skip(&b[..cut], 0, 1, 10);
        if b[0] == b'"' {
            check_string(&b, 1);
        }
    }

    /// Objects of short members (keys of 0 to 4 JSON-ish bytes, colons with and without
    /// space or missing, literals whole or cut), whole and cut anywhere: the strict walk's
    /// short-key and literal paths against the oracle.
    #[test]
    fn short_members(members in prop::collection::vec((
                         prop::collection::vec(jsonish_byte(), 0..5),
                         prop::sample::select(vec![":", " :", ": ", "", ","]),
                         prop::sample::select(vec!["true", "false", "null", "tru", "fals", "nul",
                             "truefalse", "0", "-1", "12.5", "\"v\"", "{}", "[true]", ""])), 1..6),
                     cut in any::<prop::sample::Index>()) {
        let mut b = b"{".to_vec();
        for (n, (key, colon, value)) in members.iter().enumerate() {
            if n > 0 {
                b.push(b',');
            }
            b.push(b'"');
            b.extend_from_slice(key);
            b.push(b'"');
            b.extend_from_slice(colon.as_bytes());
            b.extend_from_slice(value.as_bytes());
        }
        b.push(b'}');
        check_skip(&b, 0, 0, 128);
        let cut = cut.index(b.len() + 1);
        check_skip(&b[..cut], 0, 0, 128);
    }

    /// A random string body after JSON-ish bytes, cut anywhere.
    #[test]
    fn strings(body in prop::collection::vec(jsonish_byte(), 0..200),
               before in prop::collection::vec(jsonish_byte(), 0..80),
               cut in any::<prop::sample::Index>()) {
        let pad = before.len();
        let mut b = before;
        b.push(b'"');
        b.extend_from_slice(&body);
        check_string(&b, pad + 1);
        check_skip(&b, pad, 0, 128);
        let cut = pad + 1 + cut.index(body.len() + 1);
        check_string(&b[..cut], pad + 1);
    }
}

#[test]
fn errors_are_classified() {
    // Sanity: the oracle's kinds come through the SIMD path.
    let cases: [(&[u8], ScanError); 6] = [
        (b"[}", ScanError::Mismatched),
        (b"{\"a\":\"\x01\"}", ScanError::ControlInString),
        (b"[\"\\x\"]", ScanError::BadEscape),
        (b"[NaN]", ScanError::UnexpectedByte),
        (b"[[[", ScanError::UnexpectedEnd),
        (b"[[[[]]]]", ScanError::TooDeep),
    ];
    for (input, kind) in cases {
        assert_eq!(
            simd::skip_value(input, 0, 0, 3, Validation::Lazy),
            Err(kind),
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
    // A `\u` escape, in both modes, on both paths: a byte that is no hex digit is the error
    // even when the input ends before the fourth (it was an unexpected end); only hex digits
    // cut short are.
    let escapes: [(&[u8], ScanError); 4] = [
        (b"[\"\\u1\"]", ScanError::BadEscape),
        (b"[\"\\u\"", ScanError::BadEscape),
        (b"[\"\\u1", ScanError::UnexpectedEnd),
        (b"[\"\\u12a", ScanError::UnexpectedEnd),
    ];
    for (input, kind) in escapes {
        for mode in MODES {
            let simd = simd::skip_value(input, 0, 0, 3, mode);
            let scalar = scan::scalar_skip_value(input, 0, 0, 3, mode);
            let text = String::from_utf8_lossy(input);
            assert_eq!(simd, Err(kind), "{text:?} {mode:?}");
            assert_eq!(scalar, Err(kind), "{text:?} {mode:?} (scalar)");
        }
    }
}

/// The kinds of a malformed number or literal ([`ScanError`]'s documented meanings, which
/// `RawJson::parse` and parse-error replies pass on): the input ending inside the value is
/// [`ScanError::UnexpectedEnd`] (`1.`, `1e+`, `-`, `tru`); a byte that cannot continue it is
/// [`ScanError::BadNumber`] in a number and [`ScanError::UnexpectedByte`] in a literal. Both
/// kernels share the number and literal checks, so comparing them cannot tell a wrong kind:
/// each is pinned here, on both paths, standing alone in both modes and inside a container
/// in strict mode (lazy mode does not check the spelling of values inside containers).
#[test]
fn number_and_literal_errors_are_classified() {
    use ScanError::{BadNumber, UnexpectedByte, UnexpectedEnd};
    let alone: [(&[u8], ScanError); 15] = [
        (b"1.", UnexpectedEnd),
        (b"1.x", BadNumber),
        (b"-", UnexpectedEnd),
        (b"-x", BadNumber),
        (b"1e", UnexpectedEnd),
        (b"1e+", UnexpectedEnd),
        (b"1ex", BadNumber),
        (b"1e+x", BadNumber),
        (b"tru", UnexpectedEnd),
        (b"trx", UnexpectedByte),
        (b"fals", UnexpectedEnd),
        (b"falsy", UnexpectedByte),
        (b"nul", UnexpectedEnd),
        (b"nux", UnexpectedByte),
        (b"nulx", UnexpectedByte),
    ];
    let inside: [(&[u8], ScanError); 6] = [
        (b"[1.]", BadNumber),
        (b"[1e]", BadNumber),
        (b"[-]", BadNumber),
        (b"[falsy]", UnexpectedByte),
        (b"[tru", UnexpectedEnd),
        (b"[fals", UnexpectedEnd),
    ];
    let cases = alone
        .iter()
        .flat_map(|&(input, kind)| MODES.map(|mode| (input, kind, mode)))
        .chain(inside.map(|(input, kind)| (input, kind, Validation::Strict)));
    // And `falsy` not at the buffer's start, with an `e` further on (where a wrong index for
    // the byte after `fals` could land).
    let cases = cases
        .map(|(input, kind, mode)| (input, 0, kind, mode))
        .chain(MODES.map(|mode| (&b"  falsy e"[..], 2, UnexpectedByte, mode)));
    for (input, start, kind, mode) in cases {
        let simd = simd::skip_value(input, start, 0, 3, mode);
        let scalar = scan::scalar_skip_value(input, start, 0, 3, mode);
        let text = String::from_utf8_lossy(input);
        assert_eq!(simd, Err(kind), "{text:?} {mode:?}");
        assert_eq!(scalar, Err(kind), "{text:?} {mode:?} (scalar)");
    }
}

/// A valid literal or number ends just past its last byte, standing alone at any start and
/// inside a strict container (both kernels share the literal check: comparing them cannot
/// tell a wrong end).
#[test]
fn literals_end_past_their_last_byte() {
    let cases: [(&[u8], usize, usize); 8] = [
        (b"false", 0, 5),
        (b"true", 0, 4),
        (b"null", 0, 4),
        (b"  false ", 2, 7),
        (b"      false", 6, 11),
        (b"  -1.5e3 ", 2, 8),
        (b"[false,true,null]", 0, 17),
        (b"[1,2,3,4,5,false]", 0, 17),
    ];
    for (input, start, end) in cases {
        for mode in MODES {
            let text = String::from_utf8_lossy(input);
            let simd = simd::skip_value(input, start, 0, 3, mode);
            let scalar = scan::scalar_skip_value(input, start, 0, 3, mode);
            assert_eq!(simd, Ok(end), "{text:?} {mode:?}");
            assert_eq!(scalar, Ok(end), "{text:?} {mode:?} (scalar)");
        }
    }
}

/// An empty container closed gives its nesting level back (the depth limit counts the
/// containers open, not those ever opened): siblings after `{}` and `[]` nest as deep as the
/// limit allows, on both kernels and in both modes.
#[test]
fn an_empty_container_gives_its_level_back() {
    for input in [&b"[{},{},[1]]"[..], b"[[],[],[1]]", b"{\"a\":{},\"b\":[1]}"] {
        for mode in MODES {
            let text = String::from_utf8_lossy(input);
            let want = Ok(input.len());
            assert_eq!(
                simd::skip_value(input, 0, 0, 2, mode),
                want,
                "{text:?} {mode:?}"
            );
            let scalar = scan::scalar_skip_value(input, 0, 0, 2, mode);
            assert_eq!(scalar, want, "{text:?} {mode:?} (scalar)");
        }
    }
}

/// The public entry points take any start and any depth: no panic (debug builds check
/// arithmetic), and the same answer from every kernel. A strict container skip that does not
/// start at a container is an error (it took `1]` for one).
#[test]
fn any_start_and_any_depth() {
    use rpcwire::scan::{self, ScanError, Validation, scalar};
    let inputs: [&[u8]; 6] = [
        b"1]",
        b"[[1]]",
        b"{\"a\":[]}",
        b"]",
        b"",
        b"[1,{\"b\":[2]}]",
    ];
    for buf in inputs {
        for start in 0..=buf.len() {
            for depth in [0, 1, u32::MAX - 2, u32::MAX - 1, u32::MAX] {
                for max_depth in [0, 1, 2, 128, u32::MAX] {
                    let lazy = scalar::skip_container_lazy(buf, start, depth, max_depth);
                    let strict = scalar::skip_container_strict(buf, start, depth, max_depth);
                    for validation in [Validation::Lazy, Validation::Strict] {
                        let simd = simd::skip_value(buf, start, depth, max_depth, validation);
                        let scalar =
                            scan::scalar_skip_value(buf, start, depth, max_depth, validation);
                        assert_eq!(simd, scalar, "{buf:?} at {start}, {depth}/{max_depth}");
                    }
                    if buf.get(start).is_some_and(|b| !matches!(b, b'{' | b'[')) {
                        assert!(strict.is_err(), "{buf:?} at {start}: {strict:?}");
                    }
                    if depth >= max_depth && matches!(buf.get(start), Some(b'{' | b'[')) {
                        assert_eq!(lazy, Err(ScanError::TooDeep));
                        assert_eq!(strict, Err(ScanError::TooDeep));
                    }
                }
            }
        }
    }
    assert_eq!(
        scalar::skip_container_strict(b"1]", 0, 0, 128),
        Err(ScanError::UnexpectedByte)
    );
}
