//! Hostile streams and frames: each test states the expected outcome; none may panic. Sized for
//! CI in debug on 2 cores (the whole file runs in a few seconds). The 1 GiB no-newline flood
//! with its memory measurement lives in `tests/hostile_rss.rs`, alone in its process.

use bytes::BytesMut;
use rpcwire::{
    DecodeError, DecodeOptions, Decoder, Dialect, FrameError, IdKind, Kind, Limits, LineFramer,
    Lines, Message, RawJson, ReplyId, Role,
    scan::{ScanError, Validation},
};

const PING: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[1,"x"]}}"#;

/// Every decoder configuration: both dialects, both validation modes.
fn decoders() -> Vec<Decoder> {
    let mut all = vec![];
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for validation in [Validation::Lazy, Validation::Strict] {
            let mut opts = DecodeOptions::new(dialect);
            opts.validation = validation;
            all.push(Decoder::new(opts));
        }
    }
    all
}

fn hardened(dialect: Dialect) -> Decoder {
    let mut opts = DecodeOptions::new(dialect);
    opts.hardened = true;
    opts.limits = Limits::HARDENED;
    Decoder::new(opts)
}

#[track_caller]
fn assert_parse_error(dec: &Decoder, frame: &[u8]) -> DecodeError {
    let rej = dec.decode(frame).expect_err("a parse error, not a message");
    assert!(rej.error().is_parse_error(), "{:?}", rej.error());
    let reply = rej.reply().expect("a parse error is answered");
    assert_eq!(reply.code.get(), -32700);
    assert_eq!(reply.id, dec.options().unreadable_id);
    rej.error()
}

/// Frames `stream` in `chunk`-byte reads; returns every item. Between reads the framer holds
/// no more than a frame and its CR: an over-long line is discarded as it arrives, not kept.
fn frame_all(stream: &[u8], chunk: usize, max_frame: usize) -> Vec<Result<Vec<u8>, FrameError>> {
    let mut framer = LineFramer::new(max_frame);
    let mut buf = BytesMut::new();
    let mut out = vec![];
    for piece in stream.chunks(chunk) {
        buf.extend_from_slice(piece);
        while let Some(item) = framer.decode(&mut buf).transpose() {
            out.push(item.map(|b| b.to_vec()));
        }
        assert!(buf.len() <= max_frame + 1, "buffered {}", buf.len());
    }
    while let Some(item) = framer.decode_eof(&mut buf).transpose() {
        out.push(item.map(|b| b.to_vec()));
    }
    out
}

/// One million `[`: no stack overflow (every scanner is iterative), a clean TooDeep.
#[test]
#[cfg_attr(miri, ignore)]
fn a_million_nested_brackets() {
    let deep = vec![b'['; 1_000_000];
    for dec in decoders() {
        let e = assert_parse_error(&dec, &deep);
        assert_eq!(e, DecodeError::Syntax(ScanError::TooDeep));
    }
    let mut in_params = br#"{"jsonrpc":"2.0","id":1,"method":"x","params":"#.to_vec();
    in_params.extend_from_slice(&deep);
    for dec in decoders() {
        let e = assert_parse_error(&dec, &in_params);
        assert_eq!(e, DecodeError::Syntax(ScanError::TooDeep));
    }
    // Balanced: past RawJson::new's default depth limit (a walk down it would cost depth
    // times size); without a limit, still iterative: accepted.
    let mut balanced = deep.clone();
    balanced.extend(std::iter::repeat_n(b']', 1_000_000));
    assert!(RawJson::new(&balanced).is_none());
    assert!(RawJson::with_max_depth(&balanced, u32::MAX).is_some());
    let at_limit = |depth: usize| [vec![b'['; depth], vec![b']'; depth]].concat();
    assert!(RawJson::new(&at_limit(127)).is_some());
    assert!(RawJson::new(&at_limit(128)).is_none());
    assert!(RawJson::with_max_depth(&at_limit(129), 129).is_some());
    // Through the framer, as one line.
    let items = frame_all(&deep, 1 << 16, 16 << 20);
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap().len(), 1_000_000);
}

/// A million tiny frames in 64 KiB reads: every one framed and decoded, nothing lost.
#[test]
#[cfg_attr(miri, ignore)]
fn a_million_tiny_frames() {
    const N: usize = 1_000_000;
    let one: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n";
    let stream: Vec<u8> = one.repeat(N);
    let dec = Decoder::mcp();
    let mut framer = LineFramer::new(1 << 10);
    let mut buf = BytesMut::new();
    let mut count = 0;
    for piece in stream.chunks(1 << 16) {
        buf.extend_from_slice(piece);
        while let Some(frame) = framer.decode(&mut buf).unwrap() {
            assert_eq!(dec.decode(&frame).unwrap().kind(), Kind::Notification);
            count += 1;
        }
    }
    assert_eq!(framer.decode_eof(&mut buf).unwrap(), None);
    assert_eq!(count, N);
    assert_eq!(framer.consumed(), stream.len() as u64);
}

/// Invalid UTF-8 at every position of a frame: always a parse error (the whole frame is
/// validated), whether the bad byte sits in a key, a string, a number or between tokens.
#[test]
fn invalid_utf8_at_every_position() {
    let decs = decoders();
    for at in 0..PING.len() {
        assert_invalid_utf8_at(&decs, PING, at);
    }
}

/// `frame` with its byte at `at` replaced by each of several invalid UTF-8 sequences: a parse
/// error, `InvalidUtf8`, for every decoder.
#[track_caller]
fn assert_invalid_utf8_at(decs: &[Decoder], frame: &[u8], at: usize) {
    for bad in [
        &[0xff][..],
        &[0xc3],
        &[0xed, 0xa0, 0x80],
        &[0xf0, 0x9f, 0x98],
    ] {
        let mut f = frame.to_vec();
        f.splice(at..at + 1, bad.iter().copied());
        for dec in decs {
            assert_eq!(
                assert_parse_error(dec, &f),
                DecodeError::InvalidUtf8,
                "at {at}"
            );
        }
    }
}

/// Long frames, whose UTF-8 a lazy decoder checks after the walk except in a payload the skip
/// kernel saw to be ASCII: invalid UTF-8 anywhere (before, in and after the payload, in place
/// of a structural byte) is still reported as such and before any syntax error; text that is
/// not ASCII, anywhere, is never taken for invalid UTF-8, and where the frame stays valid JSON
/// each lazy decoder reads it as the strict one does.
#[test]
#[cfg_attr(miri, ignore)]
fn utf8_in_long_frames() {
    let text = "abc ".repeat(1500);
    let frames = [
        format!(
            r#"{{"jsonrpc":"2.0","id":"r1","result":{{"content":[{{"type":"text","text":"{text}"}}],"isError":false}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"n","arguments":{{"t":"{text}"}}}}}}"#
        ),
        format!(r#"{{"jsonrpc":"2.0","params":{{"t":"{text}"}},"method":"say","id":3}}"#),
    ];
    let mut decs = decoders();
    decs.extend([hardened(Dialect::JsonRpc2), hardened(Dialect::Mcp)]);
    for frame in &frames {
        let frame = frame.as_bytes();
        assert!(frame.len() > 4096);
        // Every 61st byte, and the bytes around the payload's edges and its text's ends.
        let text_at = frame.windows(4).position(|w| w == b"abc ").unwrap();
        let mut spots: Vec<usize> = (0..frame.len()).step_by(61).collect();
        for edge in [text_at, text_at + text.len()] {
            spots.extend(edge.saturating_sub(12)..(edge + 12).min(frame.len()));
        }
        spots.push(frame.len() - 1);
        for &at in &spots {
            assert_invalid_utf8_at(&decs, frame, at);
        }
        // Text that is not ASCII in place of a letter anywhere (in keys and values before,
        // in and after the payload): never called invalid UTF-8, and on valid JSON each lazy
        // decoder (UTF-8 checked after the walk) agrees with the strict one of its dialect
        // (checked first).
        let (mut replaced, mut still_json) = (0, 0);
        for at in spots.iter().filter(|&&at| frame[at].is_ascii_alphabetic()) {
            replaced += 1;
            let mut f = frame.to_vec();
            f.splice(at..&(at + 1), "é".bytes());
            let is_json = serde_json::from_slice::<serde_json::Value>(&f).is_ok();
            let outcome = |dec: &Decoder| dec.decode(&f).map(|m| m.kind()).map_err(|r| r.error());
            for dec in &decs {
                assert_ne!(outcome(dec), Err(DecodeError::InvalidUtf8), "at {at}");
            }
            if is_json {
                still_json += 1;
                // `decoders()`: lazy then strict, for each dialect.
                assert_eq!(outcome(&decs[0]), outcome(&decs[1]), "at {at}");
                assert_eq!(outcome(&decs[2]), outcome(&decs[3]), "at {at}");
            }
        }
        assert!(
            replaced > 0 && still_json > 0,
            "{replaced} letters, {still_json} JSON"
        );
    }
}

/// `utf8_in_long_frames` in small (for Miri): one long frame, valid, then with a bad byte
/// before, in and after its payload.
#[test]
fn utf8_of_a_long_frame() {
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":"é","method":"m","params":{{"t":"{}"}},"x":"é"}}"#,
        "a".repeat(4200)
    );
    let dec = Decoder::jsonrpc();
    assert_eq!(dec.decode(frame.as_bytes()).unwrap().kind(), Kind::Request);
    let payload = frame.find("aaa").unwrap();
    for at in [24, payload + 2000, frame.len() - 3] {
        let mut f = frame.clone().into_bytes();
        f[at] = 0xff;
        assert_eq!(
            assert_parse_error(&dec, &f),
            DecodeError::InvalidUtf8,
            "at {at}"
        );
    }
}

/// A short payload ending near the end of a long frame, after text that is not ASCII: the
/// lazy kernel reads the payload's last block from before it, and the decoder then skips the
/// UTF-8 check of a payload the kernel saw to be ASCII. With a byte that is no UTF-8 at each
/// place of the payload, the frame is invalid UTF-8 to `decode` and to `decode_lines` (the
/// frame alone or followed by a line); without one, it decodes, whatever the envelope holds.
#[test]
#[cfg_attr(miri, ignore)]
fn a_short_payload_near_the_end_of_a_long_frame() {
    let text = "\u{e9}\u{20ac}".repeat(900);
    let decoder = Decoder::jsonrpc();
    let payloads = [
        r#"{"t":"abc"}"#,
        r#"[1,"x\"y",{"k":[]},null]"#,
        r#"{"a":{"b":[true,"0123456789012345678901234567890123456789"]}}"#,
    ];
    for payload in payloads {
        for spaces in 0..=64 {
            let frame = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"m","x":"{text}","params":{payload}}}{}"#,
                " ".repeat(spaces)
            );
            let frame = frame.as_bytes();
            assert!(frame.len() > 4096);
            let at = frame.len() - spaces - 1 - payload.len();
            let decodes = |f: &[u8]| {
                let mut stream = f.to_vec();
                stream.extend_from_slice(b"\n");
                stream.extend_from_slice(PING);
                let lines: Vec<_> = decoder
                    .decode_lines(&stream)
                    .map(|line| {
                        line.unwrap()
                            .message
                            .map(|m| m.kind())
                            .map_err(|r| r.error())
                    })
                    .collect();
                assert_eq!(lines.len(), 2);
                let alone = decoder.decode_lines(f).next().unwrap().unwrap();
                let alone = alone.message.map(|m| m.kind()).map_err(|r| r.error());
                let decoded = decoder.decode(f).map(|m| m.kind()).map_err(|r| r.error());
                assert_eq!(lines[0], decoded, "{spaces} spaces");
                assert_eq!(alone, decoded, "{spaces} spaces");
                decoded
            };
            assert_eq!(
                decodes(frame),
                Ok(Kind::Request),
                "{payload}, {spaces} spaces"
            );
            // (Every fifth place at each distance: every place over five distances.)
            for i in (0..payload.len()).filter(|i| (i + spaces) % 5 == 0) {
                let mut f = frame.to_vec();
                f[at + i] = 0xff;
                assert_eq!(
                    decodes(&f),
                    Err(DecodeError::InvalidUtf8),
                    "{payload}: 0xff at {i}, {spaces} spaces"
                );
            }
        }
    }
}

/// A long frame's payload is read by the full grammar in strict mode, as a short frame's is:
/// a number with a leading zero after 5 KB of `params` (`01`, whose `1` no JSON has there) is a
/// parse error to a strict decoder, and nothing to a lazy one, which only delimits payloads.
#[test]
fn a_long_payload_is_checked_whole_in_strict_mode() {
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"t":"{}","n":01}}}}"#,
        "a".repeat(5000)
    );
    let frame = frame.as_bytes();
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        let mut opts = DecodeOptions::new(dialect);
        assert_eq!(opts.validation, Validation::Lazy);
        assert_eq!(
            Decoder::new(opts).decode(frame).unwrap().kind(),
            Kind::Request
        );
        opts.validation = Validation::Strict;
        assert_eq!(
            assert_parse_error(&Decoder::new(opts), frame),
            DecodeError::Syntax(ScanError::UnexpectedByte)
        );
    }
}

/// A frame cut at every byte: each proper prefix is a parse error; framed at end of stream,
/// the prefix is handed out as the last frame.
#[test]
fn a_frame_cut_at_every_byte() {
    let decs = decoders();
    for cut in 1..PING.len() {
        let prefix = &PING[..cut];
        for dec in &decs {
            assert_parse_error(dec, prefix);
        }
        let items = frame_all(prefix, 7, 1 << 10);
        assert_eq!(items, vec![Ok(prefix.to_vec())], "cut at {cut}");
    }
    for dec in &decs {
        assert!(dec.decode(PING).is_ok());
    }
}

/// A UTF-8 byte order mark is not JSON whitespace: parse error, on the first line and later.
#[test]
fn byte_order_mark() {
    let mut f = b"\xef\xbb\xbf".to_vec();
    f.extend_from_slice(PING);
    for dec in decoders() {
        assert_parse_error(&dec, &f);
    }
    let mut stream = PING.to_vec();
    stream.push(b'\n');
    stream.extend_from_slice(&f);
    let items = frame_all(&stream, 5, 1 << 10);
    assert_eq!(items.len(), 2);
    assert!(Decoder::mcp().decode(items[0].as_ref().unwrap()).is_ok());
    assert_parse_error(&Decoder::mcp(), items[1].as_ref().unwrap());
}

/// NUL bytes: alone on a line, raw inside a string, between tokens: parse errors; the stream
/// goes on after them. Escaped (`\u0000`) inside a string it is valid JSON.
#[test]
fn nul_bytes() {
    for dec in decoders() {
        assert_parse_error(&dec, b"\0");
        assert_parse_error(
            &dec,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\0ng\"}",
        );
        assert_parse_error(
            &dec,
            b"{\"jsonrpc\":\"2.0\",\0\"id\":1,\"method\":\"ping\"}",
        );
        let ok = dec
            .decode(br#"{"jsonrpc":"2.0","id":1,"method":"a\u0000b"}"#)
            .unwrap();
        assert_eq!(ok.method().unwrap().decode(), "a\0b");
        // A key of a member name's first letter and NUL bytes in place of the rest of
        // `name":` is no member: a frame that would be a request with it is still refused.
        for frame in [
            &b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"i\0\0\x001}"[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"m\0\0\0\0\0\0\0\"ping\"}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"p\0\0\0\0\0\0\0{}}",
            b"{\"j\0\0\0\0\0\0\0:\"2.0\",\"id\":1,\"method\":\"ping\"}",
        ] {
            assert_parse_error(&dec, frame);
        }
        // A key that starts with a raw control character is refused for it, whichever entry
        // of the plain keys' table the character's low five bits pick (those of no member
        // match nothing), NUL bytes after it included.
        for c in 0..0x20 {
            let mut frame = br#"{"jsonrpc":"2.0","id":1,"method":"ping",""#.to_vec();
            frame.push(c);
            frame.extend_from_slice(b"\0\0\0\0\0\0\0\":2}");
            assert_eq!(
                assert_parse_error(&dec, &frame),
                DecodeError::Syntax(ScanError::ControlInString),
                "{c:#04x}"
            );
        }
    }
    assert_eq!(
        hardened(Dialect::Mcp)
            .decode(br#"{"jsonrpc":"2.0","id":1,"method":"a\u0000b"}"#)
            .unwrap_err()
            .error(),
        DecodeError::ControlInMethod
    );
    let stream = b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n\0\n\0\0\0\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n";
    let items = frame_all(stream, 3, 1 << 10);
    assert_eq!(items.len(), 4);
    assert_eq!(items[1], Ok(b"\0".to_vec()));
    assert_eq!(items[2], Ok(b"\0\0\0".to_vec()));
}

/// A lone `\r` is not a line terminator: it stays inside the frame, where it is JSON
/// whitespace. `\r\n` ends a line; a lone `\r` at the very end of the stream is stripped.
#[test]
fn carriage_return_alone() {
    let stream = b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\r\n\r\n{\"jsonrpc\":\"2.0\",\r\"method\":\"c\"}\r";
    let items = frame_all(stream, 4, 1 << 10);
    assert_eq!(items.len(), 2, "{items:?}");
    let first = items[0].as_ref().unwrap();
    assert!(first.contains(&b'\r'));
    for dec in decoders() {
        // Two objects on one line: trailing data.
        assert_eq!(assert_parse_error(&dec, first), DecodeError::TrailingData);
        let second = dec.decode(items[1].as_ref().unwrap()).unwrap();
        assert!(second.method().unwrap().eq_str("c"));
        assert_parse_error(&dec, b"\r");
    }
    assert_eq!(frame_all(b"\r", 1, 16), vec![]);
    assert_eq!(frame_all(b"\r\r\n", 1, 16), vec![]);
}

/// Lone surrogate escapes are valid JSON text: accepted by default (decoded as U+FFFD),
/// refused by the hardened profile in `method` and string ids, accepted in payloads by both.
#[test]
fn lone_surrogates() {
    let in_method = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call\ud800"}"#;
    let in_id = br#"{"jsonrpc":"2.0","id":"\udc00","method":"ping"}"#;
    let in_params = br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"\ud800":"\udfff\ud800"}}"#;
    let reversed_pair = br#"{"jsonrpc":"2.0","id":1,"method":"\udc00\ud800"}"#;
    for dec in decoders() {
        let m = dec.decode(in_method).unwrap();
        assert_eq!(m.method().unwrap().decode(), "tools/call\u{fffd}");
        assert!(m.method().unwrap().has_lone_surrogate());
        assert_eq!(
            dec.decode(in_id).unwrap().id().unwrap().kind(),
            IdKind::String { has_escapes: true }
        );
        assert!(dec.decode(in_params).is_ok());
        assert_eq!(
            dec.decode(reversed_pair)
                .unwrap()
                .method()
                .unwrap()
                .decode(),
            "\u{fffd}\u{fffd}"
        );
    }
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        let h = hardened(dialect);
        for f in [&in_method[..], in_id, reversed_pair] {
            let rej = h.decode(f).unwrap_err();
            assert_eq!(rej.error(), DecodeError::LoneSurrogate);
            assert_eq!(rej.reply().unwrap().code.get(), -32600);
        }
        assert!(h.decode(in_params).is_ok());
    }
}

fn request_with_id(id: &[u8]) -> Vec<u8> {
    let mut f = br#"{"jsonrpc":"2.0","id":"#.to_vec();
    f.extend_from_slice(id);
    f.extend_from_slice(br#","method":"ping"}"#);
    f
}

/// 64 KiB ids: a string id of exactly the limit is accepted and echoed; one byte more is an
/// invalid request answered with the unreadable-id form (its id is not echoed).
#[test]
#[cfg_attr(miri, ignore)] // large inputs: minutes under Miri
fn ids_of_64_kib() {
    let max = Limits::DEFAULT.max_id_len;
    let at_limit = format!("\"{}\"", "a".repeat(max - 2)).into_bytes();
    let over = format!("\"{}\"", "a".repeat(max - 1)).into_bytes();
    for dec in decoders() {
        let (ok, bad) = (request_with_id(&at_limit), request_with_id(&over));
        let msg = dec.decode(&ok).unwrap();
        assert_eq!(msg.id().unwrap().raw().len(), max);
        let rej = dec.decode(&bad).unwrap_err();
        assert_eq!(rej.error(), DecodeError::IdTooLong { limit: 65538 });
        assert_eq!(rej.id(), None);
        assert_eq!(rej.reply().unwrap().id, dec.options().unreadable_id);
    }
    // The hardened profile caps ids at 256 bytes.
    let frame = request_with_id(&at_limit);
    let rej = hardened(Dialect::Mcp).decode(&frame).unwrap_err();
    assert_eq!(rej.error(), DecodeError::IdTooLong { limit: 256 });
}

/// Numbers with 10 000 digits: as an id a valid integer token in both dialects (MCP ids are
/// integers of any size, kept raw), refused only over `max_id_len`; as a payload value,
/// accepted; as an error code, not an i64, so a malformed error object.
#[test]
#[cfg_attr(miri, ignore)] // large inputs: minutes under Miri
fn numbers_with_ten_thousand_digits() {
    let big = format!("9{}", "8".repeat(9_999));
    let neg = format!("-{big}");
    for dec in decoders() {
        for id in [&big, &neg] {
            let frame = request_with_id(id.as_bytes());
            let msg = dec.decode(&frame).unwrap();
            let id_got = msg.id().unwrap();
            assert_eq!(id_got.kind(), IdKind::Integer);
            assert_eq!(id_got.raw(), id.as_bytes());
            assert_eq!(id_got.as_i64(), None);
        }
        let params = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"n":{big},"f":-{big}.{big}e-{big}}}}}"#
        );
        assert!(dec.decode(params.as_bytes()).is_ok());
        let code = format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-{big},"message":"m"}}}}"#);
        let rej = dec.decode(code.as_bytes()).unwrap_err();
        assert!(rej.is_response() && rej.reply().is_none());
    }
    // A fraction with many digits is a JSON-RPC id but not an MCP one.
    let frac = format!("1.{big}");
    assert!(
        Decoder::jsonrpc()
            .decode(&request_with_id(frac.as_bytes()))
            .is_ok()
    );
    assert_eq!(
        Decoder::mcp()
            .decode(&request_with_id(frac.as_bytes()))
            .unwrap_err()
            .error(),
        DecodeError::NonIntegerId
    );
    // Over a tighter id limit: invalid.
    let mut opts = DecodeOptions::new(Dialect::Mcp);
    opts.limits.max_id_len = 9_999;
    let frame = request_with_id(big.as_bytes());
    let rej = Decoder::new(opts).decode(&frame).unwrap_err();
    assert_eq!(rej.error(), DecodeError::IdTooLong { limit: 9_999 });
    assert_eq!(
        rej.error().to_string(),
        "id longer than its limit of 9999 bytes (max_id_len)"
    );
    // The hardened profile caps ids at 256 bytes, and wants numbers within ±(2^53 − 1).
    let rej = hardened(Dialect::JsonRpc2).decode(&frame).unwrap_err();
    assert_eq!(rej.error(), DecodeError::IdTooLong { limit: 256 });
    let frame = request_with_id(&big.as_bytes()[..200]);
    let rej = hardened(Dialect::JsonRpc2).decode(&frame).unwrap_err();
    assert_eq!(rej.error(), DecodeError::UnsafeNumericId);
}

/// The hardened profile's numeric ids are integers within ±(2^53 − 1), as its docs say:
/// both ends are taken, and the first integers past them refused, in both dialects.
#[test]
fn hardened_numeric_ids_stop_exactly_at_the_largest_safe_integer() {
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        let dec = hardened(dialect);
        for id in ["9007199254740991", "-9007199254740991"] {
            let frame = request_with_id(id.as_bytes());
            let msg = dec.decode(&frame).unwrap();
            assert_eq!(msg.id().unwrap().raw(), id.as_bytes(), "{dialect:?}");
        }
        for id in ["9007199254740992", "-9007199254740992", "9007199254740993"] {
            let frame = request_with_id(id.as_bytes());
            let rej = dec.decode(&frame).unwrap_err();
            assert_eq!(
                rej.error(),
                DecodeError::UnsafeNumericId,
                "{id} {dialect:?}"
            );
        }
    }
}

/// The hardened profile judges an error response's id as a request's: in each member order
/// the SDKs write an error response in, compact or spaced, a numeric id past 2^53 − 1 and a
/// string id holding a lone surrogate are refused, and the largest safe integer is taken.
#[test]
fn hardened_error_responses_keep_the_id_rules() {
    let orders = [
        r#"{"jsonrpc":"2.0","id":ID,"error":{"code":-1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-1,"message":"m","data":{}},"id":ID}"#,
        r#"{"error":{"code":-1,"message":"m"},"jsonrpc":"2.0","id":ID}"#,
        r#"{"error":{"code":-1,"message":"m"},"id":ID,"jsonrpc":"2.0"}"#,
        r#"{"id":ID,"error":{"code":-1,"message":"m"},"jsonrpc":"2.0"}"#,
    ];
    let spaced = orders.map(|f| f.replace(',', ", ").replace(':', ": "));
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        let dec = hardened(dialect);
        for order in orders
            .iter()
            .copied()
            .chain(spaced.iter().map(String::as_str))
        {
            let with = |id: &str| order.replace("ID", id);
            let frame = with("9007199254740991");
            assert_eq!(
                dec.decode(frame.as_bytes()).unwrap().kind(),
                Kind::ErrorResponse
            );
            for (id, error) in [
                ("9007199254740993", DecodeError::UnsafeNumericId),
                (r#""\ud800""#, DecodeError::LoneSurrogate),
            ] {
                let frame = with(id);
                let rej = dec.decode(frame.as_bytes()).unwrap_err();
                assert_eq!(rej.error(), error, "{frame}");
            }
        }
    }
}

/// An error code is a JSON integer: in a usual error response, compact or spaced, `0` and
/// `-0` are code 0, and a code with a leading zero or sign JSON has not is a parse error.
#[test]
fn a_usual_error_responses_code_is_a_json_integer() {
    let compact = r#"{"jsonrpc":"2.0","id":1,"error":{"code":CODE,"message":"m"}}"#;
    let spaced = compact.replace(',', ", ").replace(':', ": ");
    for decoder in decoders() {
        for shape in [compact, &spaced] {
            for code in ["0", "-0"] {
                let frame = shape.replace("CODE", code);
                let msg = decoder.decode(frame.as_bytes()).unwrap();
                let error = msg.outcome().unwrap().unwrap_err();
                assert_eq!(error.code.get(), 0, "{frame}");
            }
            for code in ["01", "-01", "00", "+1", "--1", "-"] {
                assert_parse_error(&decoder, shape.replace("CODE", code).as_bytes());
            }
        }
    }
}

/// MCP's params are an object, JSON-RPC's an object or an array, in every member order a
/// request comes in (the Java SDK's, `params` after the id, included), compact or spaced.
#[test]
fn params_as_an_array_are_json_rpcs_only_in_every_usual_order() {
    let orders = [
        r#"{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}"#,
        r#"{"jsonrpc":"2.0","method":"a","params":[1],"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":1,"params":[1]}"#,
        r#"{"method":"a","params":[1],"jsonrpc":"2.0","id":1}"#,
        r#"{"method":"a","params":[1],"id":1,"jsonrpc":"2.0"}"#,
        r#"{"id":1,"method":"a","params":[1],"jsonrpc":"2.0"}"#,
    ];
    let spaced = orders.map(|f| f.replace(',', ", ").replace(':', ": "));
    for frame in orders
        .iter()
        .copied()
        .chain(spaced.iter().map(String::as_str))
    {
        let rej = Decoder::mcp().decode(frame.as_bytes()).unwrap_err();
        assert_eq!(rej.error(), DecodeError::ParamsNotObject, "{frame}");
        let msg = Decoder::jsonrpc().decode(frame.as_bytes()).unwrap();
        assert_eq!(msg.kind(), Kind::Request, "{frame}");
    }
}

/// MCP's params that are neither an object nor an array (`null`, a string, a number) are
/// refused as not an object, as an array is: the reason never says an array would do.
#[test]
fn mcp_params_of_another_type_are_refused_as_not_an_object() {
    for params in ["null", "1", "\"x\"", "true"] {
        for frame in [
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"a","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","method":"a","params":{params}}}"#),
            format!(r#"{{"params":{params},"method":"a","id":1,"jsonrpc":"2.0"}}"#),
        ] {
            let rej = Decoder::mcp().decode(frame.as_bytes()).unwrap_err();
            assert_eq!(rej.error(), DecodeError::ParamsNotObject, "{frame}");
            assert_eq!(
                rej.error().to_string(),
                "params must be an object",
                "{frame}"
            );
            let rej = Decoder::jsonrpc().decode(frame.as_bytes()).unwrap_err();
            assert_eq!(rej.error(), DecodeError::BadParams, "{frame}");
        }
    }
}

/// A rejection for a duplicated envelope member or a malformed error object says which member
/// in its text, by the name JSON gives it (`code`, not `error.code`); every other rejection's
/// text is its short description. Each `Member` names its own member.
#[test]
fn a_rejection_names_its_member_as_json_spells_it() {
    use rpcwire::Member;
    let members = [
        (Member::JsonRpc, "jsonrpc"),
        (Member::Id, "id"),
        (Member::Method, "method"),
        (Member::Params, "params"),
        (Member::Result, "result"),
        (Member::Error, "error"),
        (Member::ErrorCode, "code"),
        (Member::ErrorMessage, "message"),
        (Member::ErrorData, "data"),
    ];
    for (member, name) in members {
        assert_eq!(member.name(), name);
        let duplicate = DecodeError::DuplicateMember(member);
        assert_eq!(
            duplicate.to_string(),
            format!("duplicate \"{name}\" member")
        );
        assert_eq!(duplicate.as_str(), "duplicate envelope member");
        let malformed = DecodeError::BadErrorObject(member);
        assert_eq!(
            malformed.to_string(),
            format!("malformed error object ({name})")
        );
        assert_eq!(malformed.as_str(), "malformed error object");
    }
    let cases: [(&[u8], &str); 3] = [
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            r#"duplicate "method" member"#,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#,
            "malformed error object (code)",
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}"#,
            "malformed error object (message)",
        ),
    ];
    for (frame, text) in cases {
        let rejection = Decoder::mcp().decode(frame).unwrap_err();
        assert_eq!(rejection.error().to_string(), text);
    }
    assert_eq!(DecodeError::EmptyBatch.to_string(), "empty batch");
}

/// An escaped `jsonrpc` value is compared after unescaping: `"2\u002e0"` is the version,
/// and an escaped string that unescapes to anything else is not (`"\u0031.0"` is `"1.0"`).
#[test]
fn an_escaped_version_is_compared_unescaped() {
    let cases: &[(&[u8], Result<Kind, DecodeError>)] = &[
        (
            br#"{"jsonrpc":"2\u002e0","id":1,"method":"a"}"#,
            Ok(Kind::Request),
        ),
        (
            br#"{"id":1,"jsonrpc":"\u0032.0","method":"a"}"#,
            Ok(Kind::Request),
        ),
        (
            br#"{"jsonrpc":"\u0031.0","id":1,"method":"a"}"#,
            Err(DecodeError::BadVersion),
        ),
        (
            br#"{"id":1,"jsonrpc":"2.0\u0020","method":"a"}"#,
            Err(DecodeError::BadVersion),
        ),
        (
            br#"{"jsonrpc":"1.0","id":1,"method":"a"}"#,
            Err(DecodeError::BadVersion),
        ),
    ];
    for (frame, expected) in cases {
        for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
            let got = Decoder::new(DecodeOptions::new(dialect))
                .decode(frame)
                .map(|m| m.kind())
                .map_err(|r| r.error());
            assert_eq!(&got, expected, "{}", String::from_utf8_lossy(frame));
        }
    }
}

/// Duplicate and escaped envelope keys: keys compare after unescaping, duplicates are invalid
/// requests, and a duplicated id is never echoed.
#[test]
fn duplicate_and_escaped_envelope_keys() {
    use rpcwire::Member;
    let cases: &[(&[u8], Result<Kind, DecodeError>)] = &[
        (
            br#"{"jsonrpc":"2.0","\u0069d":7,"\u006d\u0065thod":"ping"}"#,
            Ok(Kind::Request),
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"a","m\u0065thod":"b"}"#,
            Err(DecodeError::DuplicateMember(Member::Method)),
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"\u0069d":1,"method":"a"}"#,
            Err(DecodeError::DuplicateMember(Member::Id)),
        ),
        (
            br#"{"jsonrpc":"2.0","json\u0072pc":"2.0","id":1,"method":"a"}"#,
            Err(DecodeError::DuplicateMember(Member::JsonRpc)),
        ),
        // The usual opening `{"jsonrpc":"2.0",` is read in one compare: a second
        // `jsonrpc` after it is still a duplicate.
        (
            br#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"a"}"#,
            Err(DecodeError::DuplicateMember(Member::JsonRpc)),
        ),
        (
            br#"{"jsonrpc":"2.0", "id":1, "method":"a", "jsonrpc":"1.0"}"#,
            Err(DecodeError::DuplicateMember(Member::JsonRpc)),
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"a","params":{},"params":[]}"#,
            Err(DecodeError::DuplicateMember(Member::Params)),
        ),
        (
            br#"{"jsonrpc":"2\u002e0","method":"a"}"#,
            Ok(Kind::Notification),
        ),
        // Case variants are not envelope members (ignored by default).
        (
            br#"{"jsonrpc":"2.0","ID":1,"method":"a"}"#,
            Ok(Kind::Notification),
        ),
        (
            br#"{"jsonrpc":"2.0","id":1,"Method":"a"}"#,
            Err(DecodeError::NoMethodNoResult),
        ),
    ];
    for (frame, expected) in cases {
        for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
            let mut opts = DecodeOptions::new(dialect);
            opts.validation = Validation::Strict;
            let dec = Decoder::new(opts);
            let got = dec.decode(frame).map(|m| m.kind()).map_err(|r| r.error());
            assert_eq!(&got, expected, "{}", String::from_utf8_lossy(frame));
            if let Err(DecodeError::DuplicateMember(Member::Id)) = got {
                let rej = dec.decode(frame).unwrap_err();
                assert_eq!(rej.reply().unwrap().id, dec.options().unreadable_id);
            } else if got.is_err() {
                let rej = dec.decode(frame).unwrap_err();
                assert!(matches!(rej.reply().unwrap().id, ReplyId::Id(id) if id.raw() == b"1"));
            }
        }
    }
    // The hardened profile refuses case-folded envelope names.
    let rej = hardened(Dialect::Mcp)
        .decode(br#"{"jsonrpc":"2.0","ID":1,"method":"a"}"#)
        .unwrap_err();
    assert_eq!(rej.error(), DecodeError::CaseFoldedMember);
    // A key that folds to `id` beside `id` makes the id ambiguous (a peer folding case may
    // read either): the reply echoes neither, as for a second `id`. A key folding to
    // another member leaves the id alone.
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        let dec = hardened(dialect);
        for frame in [
            &br#"{"jsonrpc":"2.0","ID":1,"id":2,"method":"a"}"#[..],
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"\u{131}d\":1,\"method\":\"a\"}".as_bytes(),
        ] {
            let rej = dec.decode(frame).unwrap_err();
            assert_eq!(rej.error(), DecodeError::CaseFoldedMember);
            assert_eq!(rej.reply().unwrap().id, dec.options().unreadable_id);
        }
        let rej = dec
            .decode(br#"{"jsonrpc":"2.0","id":2,"Method":"b","method":"a"}"#)
            .unwrap_err();
        assert_eq!(rej.error(), DecodeError::CaseFoldedMember);
        assert!(matches!(rej.reply().unwrap().id, ReplyId::Id(id) if id.raw() == b"2"));
    }
}

/// Over-long lines in a stream are reported once each, discarded without buffering, and never
/// take the frames around them along (a regression: see `tests/regressions.rs`).
#[test]
#[cfg_attr(miri, ignore)] // large inputs: minutes under Miri
fn overlong_lines_between_frames() {
    let mut stream = vec![];
    for i in 0..50 {
        stream.extend(std::iter::repeat_n(b'x', 100 + i * 37));
        stream.push(b'\n');
        stream.extend_from_slice(PING);
        stream.push(b'\n');
    }
    for chunk in [1, 7, 64, 1000, stream.len()] {
        let items = frame_all(&stream, chunk, PING.len());
        assert_eq!(items.len(), 100, "chunk {chunk}");
        for pair in items.chunks(2) {
            assert!(matches!(pair[0], Err(FrameError::TooLong { .. })));
            assert_eq!(pair[1].as_deref(), Ok(PING));
        }
    }
    let lines: Vec<_> = Lines::new(&stream, PING.len()).collect();
    assert_eq!(lines.len(), 100);
}

/// The role decides what an id with none of method/result/error is: to a server an invalid
/// request, answered under that id; to a client an invalid response, not answered.
#[test]
fn id_only_frame_by_role() {
    let frame = br#"{"jsonrpc":"2.0","id":5}"#;
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        let mut opts = DecodeOptions::new(dialect);
        let server = Decoder::new(opts).decode(frame).unwrap_err();
        assert_eq!(server.kind_str(), "invalid");
        assert!(matches!(server.reply().unwrap().id, ReplyId::Id(id) if id.raw() == b"5"));
        opts.role = Role::Client;
        let client = Decoder::new(opts).decode(frame).unwrap_err();
        assert_eq!(client.kind_str(), "invalid_response");
        assert!(client.reply().is_none());
    }
    assert!(matches!(
        Decoder::mcp().decode(br#"{"jsonrpc":"2.0","method":"m"}"#),
        Ok(Message::Notification(_))
    ));
}

/// An object with none of `method`, `result`, `error` is an object: its error says what it
/// lacks (`NoMethodNoResult`, as with an id), not that it is no object (`NotAnObject`, for
/// `5` or `"x"`), with or without an id, whatever else it holds.
#[test]
fn an_object_without_method_or_result_is_still_an_object() {
    for frame in [
        &br#"{"jsonrpc":"2.0"}"#[..],
        br#"{"jsonrpc":"2.0","Method":"ping"}"#,
        br#"{"jsonrpc":"2.0","params":{}}"#,
        br#"{"jsonrpc":"2.0","id":5}"#,
    ] {
        for dec in decoders() {
            let rej = dec.decode(frame).unwrap_err();
            assert_eq!(
                rej.error(),
                DecodeError::NoMethodNoResult,
                "{}",
                String::from_utf8_lossy(frame)
            );
        }
    }
    assert_eq!(
        Decoder::mcp().decode(b"5").unwrap_err().error(),
        DecodeError::NotAnObject
    );
}

/// The hardened profile refuses a CR inside a frame: a peer that ends lines on a lone CR
/// would cut the frame in two where rpcwire sees one message.
#[test]
fn hardened_profile_rejects_a_lone_cr() {
    let mut opts = rpcwire::DecodeOptions::new(rpcwire::Dialect::Mcp);
    opts.hardened = true;
    let dec = rpcwire::Decoder::new(opts);
    let rej = dec
        .decode(b"{\"jsonrpc\":\"2.0\",\r\"method\":\"c\"}")
        .unwrap_err();
    assert_eq!(rej.error(), rpcwire::DecodeError::LoneCarriageReturn);
    assert_eq!(rej.reply().unwrap().code, rpcwire::ErrorCode::PARSE_ERROR);
    assert!(
        dec.decode(b"{\"jsonrpc\":\"2.0\",\t\"method\":\"c\"}")
            .is_ok()
    );
    // The default profile reads it as JSON whitespace.
    assert!(
        rpcwire::Decoder::mcp()
            .decode(b"{\"jsonrpc\":\"2.0\",\r\"method\":\"c\"}")
            .is_ok()
    );
}

/// `DecodeOptions::hardened_profile` turns the hardened checks on and sets
/// `Limits::HARDENED`, and keeps every other field (dialect, role, ...) as it was.
#[test]
fn hardened_profile_sets_the_checks_and_limits_and_keeps_the_rest() {
    let base = DecodeOptions {
        role: Role::Client,
        reject_unknown_members: true,
        ..DecodeOptions::new(Dialect::JsonRpc2)
    };
    let hardened = base.hardened_profile();
    assert_eq!(
        hardened,
        DecodeOptions {
            hardened: true,
            limits: Limits::HARDENED,
            ..base
        }
    );
    let rej = Decoder::new(hardened)
        .decode(b"{\"jsonrpc\":\"2.0\",\r\"method\":\"c\"}")
        .unwrap_err();
    assert_eq!(rej.error(), DecodeError::LoneCarriageReturn);
}

/// After the usual opening `{"jsonrpc":"2.0",` (read in one compare) a member must follow:
/// a closing brace, a second comma or the end of the frame there is a parse error, as
/// anywhere else.
#[test]
fn the_usual_opening_still_needs_a_member_after_its_comma() {
    for frame in [
        &br#"{"jsonrpc":"2.0",}"#[..],
        br#"{"jsonrpc":"2.0",,"method":"a"}"#,
        br#"{"jsonrpc":"2.0","#,
        br#"{"jsonrpc":"2.0", "#,
    ] {
        let rej = rpcwire::Decoder::mcp().decode(frame).unwrap_err();
        assert_eq!(
            rej.reply().unwrap().code,
            rpcwire::ErrorCode::PARSE_ERROR,
            "{}",
            String::from_utf8_lossy(frame)
        );
    }
    let msg = rpcwire::Decoder::mcp()
        .decode(br#"{"jsonrpc":"2.0", "method":"a"}"#)
        .unwrap();
    assert_eq!(msg.kind(), rpcwire::Kind::Notification);
}

/// A frame in one of the usual shapes (each member order the SDKs write, compact or spaced
/// as Python writes it, error responses too) with one of its commas, colons or braces dropped
/// or turned into a space, the first brace turned into a space, or a byte after the closing
/// brace, is no JSON, and a parse error: the straight paths that read these shapes compare their separators, and none
/// may step over a byte it did not compare.
///
/// Under Miri, each frame takes every eighth of its broken forms, starting at a different
/// one from frame to frame, so that every kind of break is still read: all of them took
/// about 150 s of the interpreter's time, more than any other test.
#[test]
fn a_usual_shape_with_a_separator_broken_is_a_parse_error() {
    let compact: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"a","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"a","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"a","params":{},"id":1}"#,
        r#"{"jsonrpc":"2.0","method":"a","id":1,"params":{}}"#,
        r#"{"method":"a","params":{},"jsonrpc":"2.0","id":7}"#,
        r#"{"method":"a","params":{},"id":7,"jsonrpc":"2.0"}"#,
        r#"{"id":7,"method":"a","params":{},"jsonrpc":"2.0"}"#,
        r#"{"jsonrpc":"2.0","id":"x","result":{}}"#,
        r#"{"jsonrpc":"2.0","result":{},"id":"x"}"#,
        r#"{"result":{},"jsonrpc":"2.0","id":"x"}"#,
        r#"{"result":{},"id":"x","jsonrpc":"2.0"}"#,
        r#"{"id":"x","result":{},"jsonrpc":"2.0"}"#,
        r#"{"jsonrpc":"2.0","id":-3,"error":{"code":-1,"message":"m","data":{}}}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-1,"message":"m"},"id":0}"#,
        r#"{"error":{"code":-1,"message":"m"},"jsonrpc":"2.0","id":0}"#,
        r#"{"error":{"code":-1,"message":"m"},"id":0,"jsonrpc":"2.0"}"#,
        r#"{"id":0,"error":{"code":-1,"message":"m"},"jsonrpc":"2.0"}"#,
    ];
    let spaced = compact
        .iter()
        .map(|f| f.replace(',', ", ").replace(':', ": "));
    let frames: Vec<String> = compact
        .iter()
        .map(|f| f.to_string())
        .chain(spaced)
        .collect();
    let decoders = decoders();
    let step = if cfg!(miri) { 8 } else { 1 };
    for (k, frame) in frames.iter().enumerate() {
        assert!(Decoder::mcp().decode(frame.as_bytes()).is_ok(), "{frame}");
        let blank = |at: usize| [&frame[..at], " ", &frame[at + 1..]].concat();
        let mut broken = vec![blank(0), blank(frame.len() - 1), format!("{frame}x")];
        for (at, _) in frame.match_indices([',', ':', '{', '}']) {
            broken.push([&frame[..at], &frame[at + 1..]].concat());
            broken.push(blank(at));
        }
        for broken in broken.iter().skip(k % step).step_by(step) {
            for decoder in &decoders {
                assert_parse_error(decoder, broken.as_bytes());
            }
        }
    }
}

/// The `error` object is part of the envelope: its own grammar is checked in lazy mode too
/// (a lazy skip took `{"code":1 "message":"m"}` and `"data":}` as valid error responses, and
/// read members past the damage wrongly). Its `data` stays a lazily skipped payload.
#[test]
fn error_object_grammar_is_checked_in_every_mode() {
    let broken = [
        &br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600 "message":"x"}}"#[..],
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"x","data":}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,,"message":"x"}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"x",}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{,"code":-32600,"message":"x"}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code" -32600,"message":"x"}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{code:-32600,"message":"x"}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"x""#,
    ];
    for dec in decoders() {
        for frame in broken {
            assert_parse_error(&dec, frame);
        }
        let fine = br#"{"jsonrpc":"2.0","id":1,"error":{ "code" : -32600 , "message":"x", "data":{"a" 1} }}"#;
        let lazy = dec.options().validation == Validation::Lazy;
        match dec.decode(fine) {
            Ok(Message::ErrorResponse(e)) if lazy => {
                assert_eq!(e.error.code.0, -32600);
                assert_eq!(e.error.data.unwrap().as_bytes(), br#"{"a" 1}"#);
            }
            // Strict mode checks the payload `data` too.
            Err(r) if !lazy => assert!(r.error().is_parse_error()),
            other => panic!("{other:?}"),
        }
    }
}

/// The envelope's own values are checked as JSON in every mode, as the `error` object's
/// grammar is: an `id`, `method`, `jsonrpc` or `error` (or an error's `code` or `message`) of the wrong
/// type that is not JSON either (`[1 2]`) makes the frame a parse error (-32700, which takes
/// precedence over -32600), not an invalid request answered -32600, as strict mode and every
/// JSON parser say. Lazy mode skipped such a value like a payload, without reading its tokens;
/// payloads (`params`, `result`, `error.data`) and unknown members stay lazily skipped.
#[test]
fn envelope_values_of_the_wrong_type_are_checked_as_json_in_every_mode() {
    let pad = "x".repeat(5000);
    let broken = [
        r#"{"jsonrpc":"2.0","id":[1 2],"method":"a"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":{"a" 1},"method":"a"}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"a","id":[1,]}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"method":[1:2]}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"method":{"a":01}}"#.to_string(),
        r#"{"jsonrpc":{"v" "2.0"},"id":1,"method":"a"}"#.to_string(),
        r#"{"jsonrpc":["2.0",,],"id":1,"method":"a"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":[1 2],"message":"m"}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":{"a" 1}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"error":[1 2]}"#.to_string(),
        // A long frame (the walk that defers UTF-8), and a batch element.
        format!(r#"{{"jsonrpc":"2.0","id":[1 2],"method":"a","params":{{"p":"{pad}"}}}}"#),
        format!(r#"{{"jsonrpc":"2.0","params":{{"p":"{pad}"}},"method":"a","id":{{"a" 1}}}}"#),
        r#"[{"jsonrpc":"2.0","id":[1 2],"method":"a"}]"#.to_string(),
    ];
    for dec in decoders() {
        for frame in &broken {
            assert_parse_error(&dec, frame.as_bytes());
            // The same line in a stream, read in the pass that finds its end.
            let stream = format!("{frame}\n{}\n", std::str::from_utf8(PING).unwrap());
            let lines: Vec<_> = dec.decode_lines(stream.as_bytes()).collect();
            let first = lines[0].as_ref().unwrap().message.unwrap_err();
            assert!(first.error().is_parse_error(), "{frame}: {first:?}");
            assert!(lines[1].as_ref().unwrap().message.is_ok());
        }
        // Valid JSON of the wrong type stays an invalid request, answered with -32600.
        for frame in [
            &br#"{"jsonrpc":"2.0","id":[1,2],"method":"a"}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":{"a":[1]}}"#,
            br#"{"jsonrpc":["2.0"],"id":1,"method":"a"}"#,
        ] {
            let rej = dec.decode(frame).unwrap_err();
            assert_eq!(rej.reply().unwrap().code.get(), -32600);
        }
    }
}

/// MCP allows a null id only in an error response: a request that also carries an `error`
/// member (rejected: method and response members) must not have its null id echoed.
#[test]
fn a_null_id_is_valid_in_mcp_only_in_an_error_response() {
    for frame in [
        &br#"{"jsonrpc":"2.0","id":null,"method":"ping","error":null}"#[..],
        br#"{"jsonrpc":"2.0","id":null,"method":"ping","error":{"code":1,"message":"m"}}"#,
        br#"{"jsonrpc":"2.0","id":null,"method":"ping","result":{}}"#,
    ] {
        let rej = Decoder::mcp().decode(frame).unwrap_err();
        assert_eq!(rej.error(), DecodeError::MethodInResponse);
        assert!(!rej.is_response());
        assert_eq!(rej.id(), None, "{}", String::from_utf8_lossy(frame));
        assert_eq!(rej.reply().unwrap().id, ReplyId::Absent);
    }
    let error = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}"#;
    let msg = Decoder::mcp().decode(error).unwrap();
    assert!(msg.id().unwrap().is_null());
}

/// The batch array and the error object are walked member by member now, not skipped whole:
/// their own nesting level still counts against the depth limit.
#[test]
fn walked_envelope_containers_count_against_the_depth_limit() {
    let with_depth = |dialect, max_depth| {
        let mut opts = DecodeOptions::new(dialect);
        opts.limits.max_depth = max_depth;
        Decoder::new(opts)
    };
    let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#;
    let result = br#"{"jsonrpc":"2.0","id":1,"result":{"a":1}}"#;
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for frame in [&error[..], result] {
            let e = assert_parse_error(&with_depth(dialect, 1), frame);
            assert_eq!(e, DecodeError::Syntax(ScanError::TooDeep));
            assert!(with_depth(dialect, 2).decode(frame).is_ok());
        }
    }
    let e = assert_parse_error(&with_depth(Dialect::JsonRpc2, 0), b"[1]");
    assert_eq!(e, DecodeError::Syntax(ScanError::TooDeep));
    assert!(with_depth(Dialect::JsonRpc2, 1).decode(b"[1]").is_ok());
}

/// An error object's `code` and `message`, read as the envelope's values, and its `data`, a
/// payload, each open their containers one level below the error object (the envelope is
/// level 1, the error object 2): under a limit of 3 an array there is read (the code or
/// message of the wrong type is the peer's invalid response, not -32700), an array in it is
/// too deep, in either mode, whichever member holds it.
#[test]
fn an_error_members_containers_count_against_the_depth_limit() {
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for validation in [Validation::Lazy, Validation::Strict] {
            let mut opts = DecodeOptions::new(dialect);
            opts.limits.max_depth = 3;
            opts.validation = validation;
            let decoder = Decoder::new(opts);
            for (shallow, deep) in [
                (
                    r#"{"code":[1],"message":"m"}"#,
                    r#"{"code":[[1]],"message":"m"}"#,
                ),
                (
                    r#"{"code":1,"message":[1]}"#,
                    r#"{"code":1,"message":[[1]]}"#,
                ),
                (
                    r#"{"code":1,"message":"m","data":[1]}"#,
                    r#"{"code":1,"message":"m","data":[[1]]}"#,
                ),
            ] {
                let frame = |error: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"error":{error}}}"#);
                let shallow = frame(shallow);
                let read = decoder.decode(shallow.as_bytes()).err().map(|r| r.error());
                assert!(
                    !read.is_some_and(|e| e.is_parse_error()),
                    "{shallow} under {opts:?}: {read:?}"
                );
                let e = assert_parse_error(&decoder, frame(deep).as_bytes());
                assert_eq!(
                    e,
                    DecodeError::Syntax(ScanError::TooDeep),
                    "{deep} under {opts:?}"
                );
            }
        }
    }
}

/// The envelope object is depth 1 (`Limits::max_depth`), as a batch array is: with a limit of
/// 0 no object frame is read, whichever path decodes it (the usual shapes, the general walk,
/// a long object in lazy mode, a long line of `decode_lines`, strict, hardened), as
/// `RawJson::with_max_depth(b"{}", 0)` refuses `{}`.
#[test]
fn the_envelope_object_counts_against_the_depth_limit() {
    assert!(RawJson::with_max_depth(b"{}", 0).is_none());
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let frames = [
        ping.to_vec(),
        br#"{"id":1,"jsonrpc":"2.0","method":"ping"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":1,"result":1}"#.to_vec(),
        b"{}".to_vec(),
        [&ping[..], " ".repeat(5000).as_bytes()].concat(),
    ];
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for (validation, hardened) in [
            (Validation::Lazy, false),
            (Validation::Strict, false),
            (Validation::Lazy, true),
        ] {
            let mut opts = DecodeOptions::new(dialect);
            opts.limits.max_depth = 0;
            opts.validation = validation;
            opts.hardened = hardened;
            let decoder = Decoder::new(opts);
            for frame in &frames {
                let e = assert_parse_error(&decoder, frame);
                assert_eq!(e, DecodeError::Syntax(ScanError::TooDeep), "{opts:?}");
                let mut stream = frame.clone();
                stream.push(b'\n');
                let line = decoder.decode_lines(&stream).next().unwrap().unwrap();
                let rej = line.message.expect_err("refused in a stream too");
                assert_eq!(rej.error(), DecodeError::Syntax(ScanError::TooDeep));
            }
        }
    }
}

/// A frame longer than the decoder's `max_frame` (one that did not come through a framer with
/// that limit: an HTTP body, a caller's own framing) is refused with -32700, not decoded.
#[test]
fn a_frame_over_the_decoders_limit_is_a_parse_error() {
    let mut opts = DecodeOptions::new(Dialect::Mcp);
    opts.limits.max_frame = PING.len();
    assert!(Decoder::new(opts).decode(PING).is_ok());
    opts.limits.max_frame = PING.len() - 1;
    for validation in [Validation::Lazy, Validation::Strict] {
        opts.validation = validation;
        let rej = Decoder::new(opts).decode(PING).unwrap_err();
        let limit = (PING.len() - 1) as u32;
        assert_eq!(rej.error(), DecodeError::FrameTooLong { limit });
        assert_eq!(
            rej.error().to_string(),
            format!("frame longer than its limit of {limit} bytes (max_frame)")
        );
        assert_eq!(rej.reply().unwrap().code, rpcwire::ErrorCode::PARSE_ERROR);
        assert_eq!(rej.id(), None, "nothing of a refused frame is read");
    }
}

/// `Limits::DEFAULT` and `Limits::HARDENED` hold the values their docs give: 16 MiB frames
/// in both, depth 128 and 64, ids of 64 KiB + 2 and methods of 64 KiB by default, 256 bytes
/// each hardened, batches of 100,000 and 1,000 elements; `Limits::default()` is `DEFAULT`.
#[test]
fn default_and_hardened_limits_hold_their_documented_values() {
    const MIB: usize = 1024 * 1024;
    const KIB: usize = 1024;
    assert_eq!(
        Limits::DEFAULT,
        Limits {
            max_frame: 16 * MIB,
            max_depth: 128,
            max_id_len: 64 * KIB + 2,
            max_method_len: 64 * KIB,
            max_batch_len: 100_000,
        }
    );
    assert_eq!(
        Limits::HARDENED,
        Limits {
            max_frame: 16 * MIB,
            max_depth: 64,
            max_id_len: 256,
            max_method_len: 256,
            max_batch_len: 1_000,
        }
    );
    assert_eq!(Limits::default(), Limits::DEFAULT);
}

/// Every envelope key is read when whitespace stands between it and its colon (`"params" :`),
/// which sends it down the general path, not the one masked compare for `"name":`: `params`,
/// `result` and `error` there are their members, not unknown ones skipped (a request's
/// params lost, a response with no `result` or `error` refused).
#[test]
fn envelope_keys_spaced_before_the_colon_are_read() {
    let request = br#"{"jsonrpc" : "2.0", "id" : 1, "method" : "ping", "params" : {"a":7}}"#;
    let response = br#"{"jsonrpc" : "2.0", "id" : 1, "result" : {"ok":true}}"#;
    let error = br#"{"jsonrpc" : "2.0", "id" : 1, "error" : {"code":-32601,"message":"x"}}"#;
    for dec in decoders() {
        match dec.decode(request) {
            Ok(Message::Request(r)) => {
                assert!(r.method.eq_str("ping"));
                assert_eq!(r.params.unwrap().as_bytes(), br#"{"a":7}"#);
            }
            other => panic!("{other:?}"),
        }
        match dec.decode(response) {
            Ok(Message::Response(r)) => assert_eq!(r.result.as_bytes(), br#"{"ok":true}"#),
            other => panic!("{other:?}"),
        }
        match dec.decode(error) {
            Ok(Message::ErrorResponse(e)) => assert_eq!(e.error.code.0, -32601),
            other => panic!("{other:?}"),
        }
    }
}
