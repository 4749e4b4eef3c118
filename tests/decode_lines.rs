//! `Decoder::decode_lines` gives what `Lines` and `Decoder::decode` give, item for item, on
//! the captured session and on a long message with a line break put at every byte.

mod fuzz_bodies;

use fuzz_bodies::assert_decodes_lines_as_framed as assert_same;
use rpcwire::{DecodeOptions, DecodedLine, Decoder, Dialect, Lines, Role, Validation};

fn decoders() -> Vec<Decoder> {
    let mut all = Vec::new();
    for dialect in [Dialect::Mcp, Dialect::JsonRpc2] {
        for role in [Role::Server, Role::Client] {
            for validation in [Validation::Lazy, Validation::Strict] {
                let mut opts = DecodeOptions::new(dialect);
                opts.role = role;
                opts.validation = validation;
                all.push(Decoder::new(opts));
            }
        }
    }
    all
}

#[test]
fn captured_session() {
    // The TypeScript SDK's session, and the Python SDK's in MCP 2026-07-28.
    for name in [
        "capture-c2s.ndjson",
        "capture-s2c.ndjson",
        "capture-2026-c2s.ndjson",
        "capture-2026-s2c.ndjson",
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        let stream = std::fs::read(path).unwrap();
        let lines = Lines::new(&stream, usize::MAX).count();
        assert!(lines > 5, "{name}: {lines} lines");
        for decoder in decoders() {
            assert_same(&decoder, &stream);
        }
    }
}

/// A resources/read result of about 5 KiB, then a ping, with one `\n` or `\r\n` inserted at
/// every offset of the long line: the break lands in the envelope, in keys, between tokens,
/// inside strings and escapes, in the base64 run and after the object.
#[cfg_attr(miri, ignore)]
#[test]
fn a_line_break_anywhere_in_a_long_line() {
    let blob = "QUJD".repeat(1100);
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":42,"result":{{"contents":[{{"uri":"file:///a","text":"x\"y\\z\u00e9 caf\u00e9","blob":"{blob}"}}],"n":[1,2.5,-3e4,true,false,null]}}}}"#
    );
    let ping = br#"{"jsonrpc":"2.0","id":43,"method":"ping"}"#;
    let decoder = Decoder::mcp_client();
    let lazy_server = Decoder::mcp();
    for brk in [&b"\n"[..], b"\r\n"] {
        for at in 0..=long.len() {
            let mut stream = long.as_bytes()[..at].to_vec();
            stream.extend_from_slice(brk);
            stream.extend_from_slice(&long.as_bytes()[at..]);
            stream.push(b'\n');
            stream.extend_from_slice(ping);
            assert_same(&decoder, &stream);
            if at % 97 == 0 {
                assert_same(&lazy_server, &stream);
            }
        }
    }
}

/// Lines with characters that are not ASCII (`é`, `€`, `𝄞`, a run of `日本語`) or sequences
/// that are no UTF-8 (`0xff`, a lead byte cut short, an overlong form, a surrogate) at every
/// offset (every seventh in lines over 700 bytes), in lines of many lengths up to the
/// one-pass threshold, each followed by lines with and without such bytes and ended by `\n`
/// or `\r\n`: how much of a line is known UTF-8 comes with its end, and a frame is judged as
/// `decode` judges it, whatever its neighbours hold.
#[cfg_attr(miri, ignore)]
#[test]
fn bytes_that_are_not_ascii_anywhere_in_a_line() {
    let decoders = [
        Decoder::mcp(),
        Decoder::new(DecodeOptions {
            validation: Validation::Strict,
            ..DecodeOptions::default()
        }),
    ];
    let after = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"caf\u{e9}\"}\r\n{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"a\"}";
    for len in [
        60, 63, 64, 65, 127, 128, 129, 200, 255, 256, 257, 300, 600, 1100, 4096,
    ] {
        let head = r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"t":""#;
        let tail = r#""}}"#;
        let body = "x".repeat(len - head.len() - tail.len());
        let line = format!("{head}{body}{tail}");
        assert_eq!(line.len(), len);
        let stride = if len > 700 { 7 } else { 1 };
        for at in (0..len).step_by(stride) {
            let odd: [(&[u8], &[u8]); 8] = [
                ("\u{e9}".as_bytes(), b"\n"),
                (&[0xff], b"\r\n"),
                ("\u{20ac}".as_bytes(), b"\r\n"),
                ("\u{1d11e}".as_bytes(), b"\n"),
                ("\u{65e5}\u{672c}\u{8a9e}\u{65e5}\u{672c}".as_bytes(), b"\n"),
                (&[0xe2, 0x82], b"\n"),
                (&[0xe0, 0x80, 0xaf], b"\r\n"),
                (&[0xed, 0xa0, 0x80], b"\n"),
            ];
            for (odd, ending) in odd {
                let mut stream = line.as_bytes()[..at].to_vec();
                stream.extend_from_slice(odd);
                stream.extend_from_slice(&line.as_bytes()[at + 1..]);
                stream.extend_from_slice(ending);
                stream.extend_from_slice(after.as_bytes());
                for decoder in &decoders {
                    assert_same(decoder, &stream);
                }
            }
        }
    }
}

/// `Lines::next_decoded` gives what `Lines::next` and `Decoder::decode` give, item for item,
/// when the decoder changes from one line to the next and when the lines' frame limit is
/// below, at or above the decoder's: long lines (decoded in one pass where they can be) of
/// sizes around every limit, short ones, blank ones, over-long ones.
#[cfg_attr(miri, ignore)]
#[test]
fn next_decoded_with_a_decoder_per_line_and_a_limit_of_its_own() {
    let message = |size: usize| {
        let head = r#"{"jsonrpc":"2.0","id":7,"result":{"text":""#;
        let tail = r#""}}"#;
        let pad = size.saturating_sub(head.len() + tail.len());
        format!("{head}{}{tail}", "ab".repeat(pad / 2 + 1)[..pad].to_owned())
    };
    let mut stream = Vec::new();
    for size in [60, 4_000, 4_200, 5_000, 5_999, 6_000, 6_001, 7_000, 9_000] {
        stream.extend_from_slice(message(size).as_bytes());
        stream.extend_from_slice(if size % 2 == 0 { b"\n" } else { b"\r\n" });
        stream.extend_from_slice(b"  \n{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n");
    }
    stream.extend_from_slice(message(5_500).as_bytes()); // no line end
    let limited = |max_frame: usize, validation: Validation| {
        let mut opts = DecodeOptions::new(Dialect::Mcp);
        opts.role = Role::Client;
        opts.validation = validation;
        opts.limits.max_frame = max_frame;
        Decoder::new(opts)
    };
    let decoders = [
        limited(6_000, Validation::Lazy),
        Decoder::mcp_client(),
        limited(1 << 20, Validation::Strict),
        limited(5_000, Validation::Lazy),
    ];
    for lines_limit in [4_500, 6_000, 8_000, 1 << 20] {
        for first in 0..decoders.len() {
            let pick = |k: usize| &decoders[(first + k) % decoders.len()];
            let mut got = Vec::new();
            let mut lines = Lines::new(&stream, lines_limit);
            while let Some(item) = lines.next_decoded(pick(got.len())) {
                got.push(item);
            }
            let expected: Vec<_> = Lines::new(&stream, lines_limit)
                .enumerate()
                .map(|(k, line)| {
                    line.map(|(offset, frame)| DecodedLine {
                        offset,
                        frame,
                        message: pick(k).decode(frame),
                    })
                })
                .collect();
            assert_eq!(got.len(), 19, "{lines_limit}");
            assert_eq!(got, expected, "{lines_limit} {first}");
        }
    }
}

#[test]
fn debug_shows_where_the_framing_stands_and_frames_as_text() {
    // A derived `Debug` printed the whole input of `Lines` (and so of `DecodeLines`) and each
    // frame of a `DecodedLine` as lists of numbers: `[123, 111, 111, 112, 115]` for `{oops`.
    let input = b"{oops\n{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n";
    let mut lines = Lines::new(input, 1024);
    assert_eq!(
        format!("{lines:?}"),
        "Lines { offset: 0, remaining: 37, max_frame: 1024 }"
    );
    lines.next();
    assert_eq!(
        format!("{lines:?}"),
        "Lines { offset: 6, remaining: 31, max_frame: 1024 }"
    );

    let mut decoded = Decoder::mcp().decode_lines(input);
    assert!(
        format!("{decoded:?}")
            .ends_with("lines: Lines { offset: 0, remaining: 37, max_frame: 16777216 } }")
    );
    let line: DecodedLine<'_> = decoded.next().unwrap().unwrap();
    assert_eq!(
        format!("{line:?}"),
        "DecodedLine { offset: 0, frame: \"{oops\", message: Err(Rejection { error: \
         Syntax(UnexpectedByte), id: None, is_response: false, unreadable_id: Absent }) }"
    );
    let line = decoded.next().unwrap().unwrap();
    assert_eq!(
        format!("{line:?}"),
        "DecodedLine { offset: 6, frame: \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"method\\\":\\\"a\\\"}\", \
         message: Ok(Notification(Notification { method: \"a\", params: None })) }"
    );
}

/// A long object that fills the frame limit exactly, then a `\r` that is not followed by the
/// line's `\n` (blanks or text come first): the line is over the limit, and `decode_lines`
/// reports it so, as `Lines` does, rather than taking the object and its `\r` for the line
/// the limit's window ends in. The same object with `\r\n` right after it is a message.
#[test]
fn a_carriage_return_at_the_limit_does_not_end_the_line() {
    let head = r#"{"jsonrpc":"2.0","id":7,"result":{"b":""#;
    let frame = format!("{head}{}\"}}}}", "QUJD".repeat(1200));
    let mut opts = DecodeOptions::new(Dialect::Mcp);
    opts.role = Role::Client;
    opts.limits.max_frame = frame.len();
    let decoder = Decoder::new(opts);
    let ping = br#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#;
    for rest in [&b"\r \n"[..], b"\rx\n", b"\r\r\n", b"\r\n"] {
        let mut stream = frame.as_bytes().to_vec();
        stream.extend_from_slice(rest);
        stream.extend_from_slice(ping);
        assert_same(&decoder, &stream);
        let first = decoder.decode_lines(&stream).next().unwrap();
        assert_eq!(first.is_ok(), rest == b"\r\n", "{rest:?}");
    }
}
