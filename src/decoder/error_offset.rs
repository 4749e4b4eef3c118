//! Where a frame stops being JSON: the offset of a parse error, found again on a cold path,
//! so that the decoder's hot path keeps no positions.

use alloc::vec::Vec;

use super::Decoder;
use crate::error::DecodeError;
use crate::scan::ScanError;

impl Decoder {
    /// Where `frame`, which this decoder refuses as not JSON (-32700), stops being JSON: the
    /// offset of the first byte (the first byte of the character) that no JSON text could
    /// have there (one the decoder accepts, or refuses only as JSON-RPC, -32600: `null` is
    /// JSON, so in `nul!` it is the `!`), or `frame.len()` when the frame is cut short (an
    /// unclosed string or object, nothing but whitespace). `None` when the decoder does not
    /// refuse `frame` as not JSON.
    ///
    /// It is the decoder's own reading, in its own mode: in lazy mode a payload's bad number
    /// is no error (lazy mode only delimits payloads), and the offset is that of what lazy
    /// mode refuses. Past [`Limits::max_frame`](crate::Limits::max_frame), with no error
    /// before it, the offset is the limit (the first byte too many); in the hardened profile,
    /// a carriage return's.
    ///
    /// For logs and diagnostics, not the hot path: it decodes prefixes of the frame again,
    /// about `log2(frame.len())` of them. (A prefix is the start of some message up to the
    /// first bad byte and never after it, since the decoder reads left to right: a binary
    /// search over the prefix lengths finds that byte.)
    ///
    /// ```
    /// use rpcwire::Decoder;
    /// let decoder = Decoder::mcp();
    /// // The array is closed by a brace.
    /// let frame = br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,2}}}"#;
    /// assert_eq!(decoder.parse_error_offset(frame), Some(55));
    /// assert_eq!(&frame[53..56], b",2}");
    /// // Cut short: the end.
    /// assert_eq!(decoder.parse_error_offset(br#"{"jsonrpc":"2.0","id":1"#), Some(23));
    /// // Refused, but as JSON (-32600): no offset.
    /// assert_eq!(decoder.parse_error_offset(br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#), None);
    /// ```
    #[cold]
    pub fn parse_error_offset(&self, frame: &[u8]) -> Option<usize> {
        let error = self.decode_spans(frame).err()?.error;
        if !error.is_parse_error() {
            return None;
        }
        if self.continues(frame) {
            return Some(frame.len());
        }
        // `good` is a prefix length that continues, `bad` one that does not.
        let (mut good, mut bad) = (0, frame.len());
        while bad - good > 1 {
            let mid = good + (bad - good) / 2;
            if self.continues(&frame[..mid]) {
                good = mid;
            } else {
                bad = mid;
            }
        }
        let at = bad - 1;
        // A byte inside a character (a non-ASCII one where none may be): its first byte.
        Some(match core::str::from_utf8(&frame[..at]) {
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            _ => at,
        })
    }

    /// Whether `prefix` is the start of some message this decoder accepts, or of a frame it
    /// refuses only for what it says as JSON (-32600): a message cut short, or a whole one
    /// (whitespace may follow it).
    fn continues(&self, prefix: &[u8]) -> bool {
        match self.decode_spans(prefix) {
            Ok(_) => true,
            Err(reject) => match reject.error {
                DecodeError::Syntax(ScanError::UnexpectedEnd) | DecodeError::Empty => true,
                // Cut inside a character: as the prefix with the character completed (any
                // completion: JSON tells no two non-ASCII characters apart; it may have one
                // inside a string and nowhere else).
                DecodeError::InvalidUtf8 => match core::str::from_utf8(prefix) {
                    Err(e) if e.error_len().is_none() => {
                        self.continues(&complete_last_character(prefix, e.valid_up_to()))
                    }
                    _ => false,
                },
                e => !e.is_parse_error(),
            },
        }
    }
}

/// `prefix`, whose bytes from `start` are the start of a UTF-8 character cut short (valid so
/// far), with that character completed by the smallest continuation bytes its lead byte
/// allows (after `E0` the second byte is at least `A0`, after `F0` at least `90`: no overlong
/// form).
fn complete_last_character(prefix: &[u8], start: usize) -> Vec<u8> {
    let lead = prefix[start];
    let len = match lead {
        0xF0..=0xF4 => 4,
        0xE0..=0xEF => 3,
        _ => 2,
    };
    let mut whole = prefix.to_vec();
    while whole.len() < start + len {
        let second = whole.len() == start + 1;
        whole.push(match lead {
            0xE0 if second => 0xA0,
            0xF0 if second => 0x90,
            _ => 0x80,
        });
    }
    whole
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoder::{DecodeOptions, Dialect, Role};
    use crate::scan::Validation;
    use proptest::prelude::*;

    /// The offset by brute force: the shortest prefix that does not continue, every prefix
    /// tried; and every longer one must not continue either (what the binary search relies
    /// on).
    fn by_every_prefix(decoder: &Decoder, frame: &[u8]) -> Option<usize> {
        let error = decoder.decode_spans(frame).err()?.error;
        if !error.is_parse_error() {
            return None;
        }
        let first_bad = (0..=frame.len()).find(|&n| !decoder.continues(&frame[..n]));
        if let Some(n) = first_bad {
            for longer in n..=frame.len() {
                assert!(
                    !decoder.continues(&frame[..longer]),
                    "prefix {longer} continues after {n} did not: {:?}",
                    String::from_utf8_lossy(frame)
                );
            }
        }
        Some(match first_bad {
            None => frame.len(),
            Some(n) => match core::str::from_utf8(&frame[..n - 1]) {
                Err(e) if e.error_len().is_none() => e.valid_up_to(),
                _ => n - 1,
            },
        })
    }

    fn decoders() -> Vec<Decoder> {
        let mut out = Vec::new();
        for dialect in [Dialect::Mcp, Dialect::JsonRpc2] {
            for validation in [Validation::Lazy, Validation::Strict] {
                for hardened in [false, true] {
                    let mut options = DecodeOptions::new(dialect);
                    options.validation = validation;
                    options.hardened = hardened;
                    options.role = Role::Server;
                    options.limits.max_depth = 6;
                    options.limits.max_frame = 300;
                    out.push(Decoder::new(options));
                }
            }
        }
        out
    }

    const FRAMES: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2.5e3,"s\"t",null,true]}}}"#,
        r#"{"jsonrpc":"2.0","id":"r","result":{"content":[{"type":"text","text":"caf\u00e9 é ü"}]}}"#,
        r#"{"method":"notifications/progress","params":{"progressToken":1,"progress":2},"jsonrpc":"2.0"}"#,
        r#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":[[[[1]]]]}}"#,
        "{\"jsonrpc\": \"2.0\",\r\n \"id\": 1, \"method\": \"é\"}",
    ];

    /// The binary search agrees with trying every prefix, on frames mutated at every byte
    /// (dropped, replaced by a byte that often breaks JSON, or cut), under every dialect,
    /// mode, the hardened profile, a low depth limit and a low frame limit.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_search_finds_the_first_bad_byte() {
        let decoders = decoders();
        let mut found = 0;
        for frame in FRAMES {
            let frame = frame.as_bytes();
            let mut variants = vec![frame.to_vec()];
            for at in 0..frame.len() {
                variants.push(frame[..at].to_vec());
                let mut dropped = frame.to_vec();
                dropped.remove(at);
                variants.push(dropped);
                for b in [b'}', b']', b'"', b'\\', b'x', 0x01, 0xC3, 0xA9] {
                    let mut replaced = frame.to_vec();
                    replaced[at] = b;
                    variants.push(replaced);
                }
            }
            for variant in &variants {
                for decoder in &decoders {
                    let expected = by_every_prefix(decoder, variant);
                    assert_eq!(
                        decoder.parse_error_offset(variant),
                        expected,
                        "{:?} under {:?}",
                        String::from_utf8_lossy(variant),
                        decoder.options()
                    );
                    found += usize::from(expected.is_some_and(|at| at < variant.len()));
                }
            }
        }
        // Most mutants are parse errors before their end.
        assert!(found > 10_000, "{found}");
    }

    /// Frames over 4 KiB, which lazy mode walks before it checks their UTF-8
    /// (`decode_long_object`), and whose payload the SIMD kernel skips: mutated at a few
    /// places each (inside a two-byte character too), the offset is the boundary it claims to
    /// be: the prefix before it continues, the prefix through its character (and the byte
    /// after an invalid sequence) does not, nor the whole frame. (Checked at the boundary, not by trying every prefix, which on
    /// 5 KB frames is too slow for a debug build; the tests above try every prefix.)
    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_offset_is_the_boundary_on_frames_over_4_kib() {
        let text = r#"caf\u00e9 é \"q\" "#.repeat(300);
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{text}"}}],"n":[1,{{"a":[]}}]}}}}"#
        );
        let frame = frame.as_bytes();
        assert!(frame.len() > 4096);
        let lazy = Decoder::mcp_client();
        let strict = Decoder::new(DecodeOptions {
            validation: Validation::Strict,
            role: Role::Client,
            ..DecodeOptions::default()
        });
        let first_e_acute = frame.iter().position(|&b| b == 0xC3).unwrap();
        let places = [
            40,
            60,
            first_e_acute,
            first_e_acute + 1,
            2000,
            4095,
            4096,
            4097,
        ];
        let places = places
            .into_iter()
            .chain([frame.len() - 30, frame.len() - 3]);
        let mut variants = vec![frame[..frame.len() - 1].to_vec()];
        for at in places {
            for b in [b'}', b']', b'\\', 0x01, 0xFF, 0xC3, b'\n'] {
                let mut replaced = frame.to_vec();
                replaced[at] = b;
                variants.push(replaced);
            }
        }
        let mut located = 0;
        for variant in &variants {
            for decoder in [&lazy, &strict] {
                let Some(at) = decoder.parse_error_offset(variant) else {
                    let refused = decoder.decode_spans(variant).err();
                    assert!(!refused.is_some_and(|r| r.error.is_parse_error()));
                    continue;
                };
                assert!(decoder.continues(&variant[..at]), "{at}");
                if at == variant.len() {
                    continue;
                }
                located += 1;
                // Up to four bytes on (a whole character, or an invalid sequence and the
                // byte that shows it is one), and the whole frame, do not continue.
                for end in [(at + 4).min(variant.len()), variant.len()] {
                    assert!(!decoder.continues(&variant[..end]), "{at} {end}");
                }
            }
        }
        assert!(located > 100, "{located}");
    }

    /// A container where an envelope member's value must be a scalar (`id`, `jsonrpc`,
    /// `method`, `error` that is no object, an error's `code` and `message`) is checked as JSON
    /// in lazy mode too: cut short after its first bad byte, it is already no JSON (no
    /// completion makes it so), and the offset is that byte, not the container's end.
    #[test]
    fn a_bad_container_in_the_envelope_is_located_in_lazy_mode() {
        for frame in [
            &br#"{"jsonrpc":"2.0","id":[1 2,3],"method":"x"}"#[..],
            br#"{"jsonrpc":[1 2,3],"id":1,"method":"x"}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":{"a" 2,"b":3}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":[1 2,3]}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":[1 2,3],"message":"m"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":[1 2,3]}}"#,
        ] {
            // The `2` after the space: no JSON has a value there.
            let bad = frame.windows(2).position(|w| w == b" 2").unwrap() + 1;
            for decoder in [Decoder::mcp(), Decoder::jsonrpc_client()] {
                assert_eq!(
                    decoder.parse_error_offset(frame),
                    Some(bad),
                    "{}",
                    String::from_utf8_lossy(frame)
                );
                assert!(!decoder.continues(&frame[..bad + 1]));
            }
        }
    }

    proptest! {
        /// The same on arbitrary bytes around JSON's punctuation.
        #[test]
        #[cfg_attr(miri, ignore)]
        fn the_search_agrees_on_any_bytes(
            frame in prop::collection::vec(
                prop_oneof![
                    4 => prop::sample::select(&b"{}[]\":,\\ 0123456789.-+eEtrufalsn"[..]),
                    1 => any::<u8>(),
                ],
                0..80,
            )
        ) {
            for decoder in decoders() {
                let expected = by_every_prefix(&decoder, &frame);
                prop_assert_eq!(decoder.parse_error_offset(&frame), expected);
            }
        }
    }

    #[test]
    fn offsets_of_each_kind_of_parse_error() {
        let mcp = Decoder::mcp();
        let at = |frame: &[u8]| mcp.parse_error_offset(frame);
        // A raw control character in a string, a bad escape, a bad `\u` digit.
        assert_eq!(at(b"{\"jsonrpc\":\"2\x01\"}"), Some(13));
        assert_eq!(at(br#"{"jsonrpc":"\q"}"#), Some(13));
        assert_eq!(at(br#"{"jsonrpc":"\u12x4"}"#), Some(16));
        // Trailing data: the first byte after the value and its whitespace.
        assert_eq!(at(br#"{"jsonrpc":"2.0","id":1,"method":"a"}  x"#), Some(39));
        // Invalid UTF-8: the first byte that makes no character.
        assert_eq!(
            at(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}"),
            Some(34)
        );
        // A whole character where none may be: its first byte.
        assert_eq!(at("{\"jsonrpc\":\"2.0\",é}".as_bytes()), Some(17));
        // A character cut short where no character may be, and where one may.
        assert_eq!(at(b"{\"jsonrpc\":\"2.0\"\xc3"), Some(16));
        assert_eq!(at(b"{\"jsonrpc\":\"2.0\xe2\x82"), Some(17));
        // Nothing at all, and a value cut short.
        assert_eq!(at(b""), Some(0));
        assert_eq!(at(b"  "), Some(2));
        assert_eq!(at(br#"{"jsonrpc":"2.0","id":1,"method":"a"#), Some(35));
        // Not a parse error, or no error.
        assert_eq!(at(br#"{"jsonrpc":"2.0","id":1,"method":"a"}"#), None);
        assert_eq!(at(br#"{"jsonrpc":"2.0","id":1}"#), None);
        // Lazy mode reads no payload token; strict mode does.
        let frame = br#"{"jsonrpc":"2.0","id":1,"method":"a","params":{"n":01,"m":[}}"#;
        assert_eq!(at(frame), Some(59));
        let strict = Decoder::new(DecodeOptions {
            validation: Validation::Strict,
            ..DecodeOptions::default()
        });
        assert_eq!(strict.parse_error_offset(frame), Some(52));
        // The frame limit: the first byte past it.
        let mut options = DecodeOptions::default();
        options.limits.max_frame = 10;
        let frame = br#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;
        assert_eq!(Decoder::new(options).parse_error_offset(frame), Some(10));
        // The hardened profile: a carriage return.
        options.limits.max_frame = 1 << 20;
        options.hardened = true;
        let frame = b"{\"jsonrpc\":\"2.0\",\r\"id\":1,\"method\":\"a\"}";
        assert_eq!(Decoder::new(options).parse_error_offset(frame), Some(17));
    }
}
