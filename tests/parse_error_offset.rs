//! `Decoder::parse_error_offset` in strict mode against an oracle of its own: a recogniser of
//! the starts of JSON texts (RFC 8259's grammar, byte by byte, and UTF-8), written here and
//! sharing nothing with the decoder. The library's own tests check the offset's binary search
//! against trying every prefix with the decoder; this checks what the decoder calls a prefix
//! that "continues".
//!
//! In strict mode every payload is read as JSON, so a frame is refused as not JSON (-32700)
//! exactly when it is no JSON text, and the offset is the first byte no JSON text has there
//! (the first byte of its character), or the frame's length when the frame is cut short. Lazy
//! mode accepts more starts (it does not read payload tokens): where it refuses a frame as
//! not JSON, strict mode does too, at the same byte or before it.

mod reference;

use proptest::prelude::*;
use reference::MAX_DEPTH;
use reference::json_prefix::{self, Verdict, recognise};
use rpcwire::{DecodeOptions, Decoder, Dialect, Role, Validation};

/// Decoders of both dialects and roles, nesting at most `max_depth` deep (the envelope
/// counts), with a frame limit no test frame reaches.
fn decoders(validation: Validation, max_depth: usize) -> Vec<Decoder> {
    let mut out = Vec::new();
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for role in [Role::Server, Role::Client] {
            let mut options = DecodeOptions::new(dialect);
            options.validation = validation;
            options.role = role;
            options.limits.max_depth = max_depth as u32;
            out.push(Decoder::new(options));
        }
    }
    out
}

/// The strict decoders' answers against the recogniser's, and the lazy decoders' against
/// the strict ones'; returns how many frames were bad before their end.
fn check(frame: &[u8], max_depth: usize) -> Result<usize, TestCaseError> {
    let verdict = recognise(frame, max_depth);
    let shown = || String::from_utf8_lossy(frame).into_owned();
    let strict_offset = decoders(Validation::Strict, max_depth)
        .iter()
        .map(|decoder| {
            let offset = decoder.parse_error_offset(frame);
            let want = json_prefix::parse_error_offset(frame, max_depth);
            prop_assert_eq!(offset, want, "{:?} on {:?}", decoder.options(), shown());
            // And the offset is there exactly when the decoder refuses the frame as no JSON.
            let refused = decoder
                .decode(frame)
                .err()
                .map(|r| r.error().is_parse_error());
            prop_assert_eq!(refused == Some(true), want.is_some(), "{:?}", shown());
            Ok(offset)
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (lazy, strict) in decoders(Validation::Lazy, max_depth)
        .iter()
        .zip(&strict_offset)
    {
        if let Some(at) = lazy.parse_error_offset(frame) {
            prop_assert!(
                strict.is_some_and(|s| s <= at),
                "lazy {at}, strict {strict:?} on {:?}",
                shown()
            );
        }
    }
    Ok(usize::from(matches!(verdict, Verdict::BadAt(_))))
}

/// Frames of each shape, with strings, escapes, numbers of every form and non-ASCII text.
const FRAMES: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,-2.5e3,0.25E+1,"s\"t\u00e9\n",null,true,false,{}]}}}"#,
    r#"{"jsonrpc":"2.0","id":"r","result":{"content":[{"type":"text","text":"caf\u00e9 é ü 😀"}],"n":-0}}"#,
    r#"{"method":"notifications/progress","params":{"progressToken":1,"progress":2},"jsonrpc":"2.0"}"#,
    r#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b","params":[]}]"#,
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":[[[[1e-7]]]]}}"#,
    "{\"jsonrpc\" : \"2.0\",\r\n\t\"id\" : 1 , \"method\" : \"é\" }  ",
];

/// Every frame mutated at every byte: cut there, the byte dropped, or replaced by one that
/// often breaks JSON (or a UTF-8 sequence); with the default depth limit and one the frames
/// reach.
#[test]
#[cfg_attr(miri, ignore)]
fn strict_offsets_are_where_json_stops() {
    let mut bad = 0;
    let mut check_both = |frame: &[u8]| {
        for max_depth in [MAX_DEPTH, 4] {
            bad += check(frame, max_depth).unwrap();
        }
    };
    for frame in FRAMES {
        let frame = frame.as_bytes();
        check_both(frame);
        for at in 0..frame.len() {
            check_both(&frame[..at]);
            let mut dropped = frame.to_vec();
            dropped.remove(at);
            check_both(&dropped);
            for b in [
                b'}', b']', b'"', b'\\', b'x', b'0', b'.', b'e', b'-', 0x01, 0xC3, 0xFF,
            ] {
                let mut replaced = frame.to_vec();
                replaced[at] = b;
                check_both(&replaced);
            }
        }
    }
    // Most mutants are no JSON before their end.
    assert!(bad > 6_000, "{bad}");
}

/// A frame cut inside a character in a string is cut short, whichever lead byte the
/// character has: the smallest three- and four-byte characters (after `E0` and `F0` the
/// second byte has a floor of its own, `A0` and `90`), the largest, and those next to the
/// surrogates. The offset is the frame's length, in either mode.
#[test]
fn a_frame_cut_inside_any_character_is_cut_short() {
    for c in [
        '\u{800}',
        '\u{FFFF}',
        '\u{D7FF}',
        '\u{E000}',
        '\u{10000}',
        '\u{10FFFF}',
    ] {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{c}"}}"#);
        let frame = frame.as_bytes();
        let start = frame.iter().position(|&b| b >= 0x80).unwrap();
        for cut in start + 1..start + c.len_utf8() {
            let frame = &frame[..cut];
            for validation in [Validation::Lazy, Validation::Strict] {
                for decoder in decoders(validation, MAX_DEPTH) {
                    assert_eq!(
                        decoder.parse_error_offset(frame),
                        Some(frame.len()),
                        "{c:?} cut at {cut}"
                    );
                }
            }
            check(frame, MAX_DEPTH).unwrap();
        }
    }
}

/// The recogniser itself, on cases whose answer is known by hand.
#[test]
fn the_recogniser_knows_json() {
    use Verdict::*;
    for (text, want) in [
        (&b""[..], Cut),
        (b"  ", Cut),
        (b"1", Whole),
        (b"-", Cut),
        (b"-0.5e+3 ", Whole),
        (b"01", BadAt(1)),
        (b"1.", Cut),
        (b"1.e", BadAt(2)),
        (b"[1,]", BadAt(3)),
        (b"{\"a\" 1}", BadAt(5)),
        (b"{\"a\":tru", Cut),
        (b"{\"a\":trx", BadAt(7)),
        (b"\"\\u12g4\"", BadAt(5)),
        (b"\"a\x01\"", BadAt(2)),
        (b"\"\xc3\"", BadAt(1)),
        (b"\"\xc3", Cut),
        (b"[\xc3\xa9]", BadAt(1)),
        (b"{} {}", BadAt(3)),
        // Three levels at most: the fourth opener is bad.
        (b"[{\"a\":[1]}]", Whole),
        (b"[{\"a\":[[", BadAt(7)),
    ] {
        assert_eq!(
            recognise(text, 3),
            want,
            "{:?}",
            String::from_utf8_lossy(text)
        );
    }
}

proptest! {
    /// The same on arbitrary bytes around JSON's punctuation, and on envelopes with a byte
    /// string of that kind in their payload.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn strict_offsets_agree_on_any_bytes(
        noise in prop::collection::vec(
            prop_oneof![
                6 => prop::sample::select(&b"{}[]\":,\\ 0123456789.-+eEtrufalsn"[..]),
                1 => any::<u8>(),
            ],
            0..60,
        ),
        in_payload in any::<bool>(),
    ) {
        let frame = if in_payload {
            let mut frame = br#"{"jsonrpc":"2.0","id":7,"method":"m","params":{"p":"#.to_vec();
            frame.extend_from_slice(&noise);
            frame.extend_from_slice(b"}}");
            frame
        } else {
            noise
        };
        check(&frame, MAX_DEPTH)?;
        // And with the depth limit within reach.
        check(&frame, 4)?;
    }
}
