//! The Content-Length framer: header rules and errors, the charset a `Content-Type` names,
//! reads split at every byte, nothing reserved on a claimed length, and constant memory on an
//! endless over-long body.

mod common;

use bytes::{Bytes, BytesMut};
use common::{assert_any_split, encoded_messages, frame_all, written_message};
use proptest::prelude::*;
use rpcwire::{
    ContentLengthError as E, ContentLengthFramer, Decoder, Kind, write_content_length_frame,
};

fn frames(input: &[u8]) -> Vec<Result<Bytes, E>> {
    frame_all(&mut ContentLengthFramer::new(1 << 20), &[input])
}

fn msg(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

#[test]
fn bodies_and_header_forms() {
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let input = format!(
        "{}content-length:2\r\nCONTENT-TYPE: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{{}}\
         X-Other: x\r\nContent-Length: \t0007 \r\n\r\n[1,2,3]",
        msg(ping)
    );
    let got = frames(input.as_bytes());
    let got: Vec<_> = got.into_iter().map(Result::unwrap).collect();
    assert_eq!(
        got,
        vec![Bytes::from(ping), Bytes::from("{}"), Bytes::from("[1,2,3]")]
    );
    assert_eq!(
        Decoder::mcp().decode(&got[0]).unwrap().kind(),
        Kind::Request
    );
}

/// A body whose `Content-Type` names a charset other than UTF-8 is refused by its header,
/// not read: Latin-1 `Ã©` is the bytes `C3 A9`, valid UTF-8 (`é`), which the decoder would
/// take. It is reported once, with its offset; its bytes are skipped and the next message
/// is read.
#[test]
fn a_body_in_another_charset_is_skipped_and_the_stream_goes_on() {
    // The body is `["Ã©"]` in Latin-1: its bytes, `[ " C3 A9 " ]`, are UTF-8 `["é"]`.
    let body = b"[\"\xc3\xa9\"]";
    assert_eq!(std::str::from_utf8(body), Ok("[\"é\"]"));
    let input = [
        &b"Content-Length: 2\r\n\r\n{}"[..],
        b"Content-Type: application/vscode-jsonrpc; charset=latin1\r\nContent-Length: 6\r\n\r\n",
        body,
        b"Content-Length: 3\r\n\r\n[1]",
    ]
    .concat();
    let second = b"Content-Length: 2\r\n\r\n{}".len() as u64;
    let mut framer = ContentLengthFramer::new(1 << 20);
    let got = frame_all(&mut framer, &[&input]);
    assert_eq!(
        got,
        vec![
            Ok(Bytes::from("{}")),
            Err(E::UnsupportedCharset { offset: second }),
            Ok(Bytes::from("[1]")),
        ]
    );
    let err = got[1].as_ref().unwrap_err();
    assert!(!err.is_fatal() && !framer.is_failed());
    assert_eq!(err.offset(), second);
    assert_eq!(
        err.to_string(),
        format!(
            "Content-Type names a charset other than utf-8, or none that can be read \
             (message starting at byte {second})"
        )
    );
    assert_eq!(framer.consumed(), input.len() as u64);
}

/// `utf-8` and `utf8` (which the LSP base protocol asks to be read as `utf-8`) in any case,
/// quoted or not, and a `Content-Type` with no charset, all let the body through.
#[test]
fn utf8_by_name_or_by_default_is_read() {
    for content_type in [
        "application/vscode-jsonrpc; charset=utf-8",
        "application/vscode-jsonrpc; charset=utf8",
        "application/vscode-jsonrpc;charset=UTF-8",
        "application/vscode-jsonrpc ;\tCHARSET=\"Utf8\" ",
        "application/vscode-jsonrpc; charset=\"utf\\-8\"",
        "application/json",
        "application/json; profile=x; charset=utf-8;",
        "application/json; note=\"; charset=latin1\"",
    ] {
        let input = format!("Content-Type: {content_type}\r\nContent-Length: 2\r\n\r\n{{}}");
        assert_eq!(
            frames(input.as_bytes()),
            vec![Ok(Bytes::from("{}"))],
            "{content_type}"
        );
    }
}

/// Another charset, and a value that is not a media type (which charset it meant cannot be
/// told), each refuse the body, not the stream: the message after it is read.
#[test]
fn another_charset_or_a_malformed_content_type_refuses_the_body_only() {
    for content_type in [
        "application/vscode-jsonrpc; charset=latin1",
        "application/vscode-jsonrpc; charset=\"ISO-8859-1\"",
        "text/plain; charset=utf-16",
        "application/json; charset=\"\"",
        // Given twice: refused when either is not UTF-8.
        "application/json; charset=utf-8; charset=latin1",
        "application/json; charset=latin1; charset=utf8",
        // Malformed.
        "application/json; charset=",
        "application/json; charset=\"utf-8",
        "application/json; charset = utf-8",
        "application/json charset=utf-8",
        "\"application/json; charset=utf8\"",
        "",
    ] {
        let input = format!(
            "Content-Type: {content_type}\r\nContent-Length: 2\r\n\r\n{{}}\
             Content-Length: 3\r\n\r\n[1]"
        );
        assert_eq!(
            frames(input.as_bytes()),
            vec![
                Err(E::UnsupportedCharset { offset: 0 }),
                Ok(Bytes::from("[1]"))
            ],
            "{content_type:?}"
        );
    }
}

/// One message's `Content-Type` headers are all read: one naming another charset refuses
/// the body, whether it comes before or after one naming UTF-8 (neither the first nor the
/// last alone decides); the next message starts afresh.
#[test]
fn every_content_type_header_of_a_message_counts() {
    for (first, second) in [("utf-8", "latin1"), ("latin1", "utf-8")] {
        let input = format!(
            "Content-Type: a/b; charset={first}\r\nContent-Length: 2\r\n\
             content-type: a/b; charset={second}\r\n\r\n{{}}\
             Content-Type: a/b; charset=utf-8\r\nContent-Length: 2\r\n\r\n[]"
        );
        assert_eq!(
            frames(input.as_bytes()),
            vec![
                Err(E::UnsupportedCharset { offset: 0 }),
                Ok(Bytes::from("[]"))
            ],
            "{first}, then {second}"
        );
    }
}

/// A body both over the limit and in another charset is reported once, as in another
/// charset (which refuses it at any length), and skipped; at the end of a stream that cuts
/// such a body short, nothing more is reported (it was, once).
#[test]
fn a_refused_body_is_reported_once() {
    let input = b"Content-Type: a/b; charset=latin1\r\nContent-Length: 9\r\n\r\n123456789\
                  Content-Length: 2\r\n\r\n{}";
    let mut framer = ContentLengthFramer::new(4);
    assert_eq!(
        frame_all(&mut framer, &[input]),
        vec![
            Err(E::UnsupportedCharset { offset: 0 }),
            Ok(Bytes::from("{}"))
        ]
    );
    let cut = b"Content-Type: a/b; charset=latin1\r\nContent-Length: 9\r\n\r\n1234";
    let mut framer = ContentLengthFramer::new(1 << 20);
    assert_eq!(
        frame_all(&mut framer, &[cut]),
        vec![Err(E::UnsupportedCharset { offset: 0 })]
    );
    assert!(!framer.is_failed());
    assert_eq!(framer.consumed(), cut.len() as u64);
}

/// A header error after a refused charset still ends the stream: the charset is told only
/// once the header block is whole.
#[test]
fn a_fatal_header_error_wins_over_the_charset() {
    assert_eq!(
        frames(b"Content-Type: a/b; charset=latin1\r\n\r\n{}Content-Length: 2\r\n\r\n{}"),
        vec![Err(E::MissingLength { offset: 0 })]
    );
    assert_eq!(
        frames(b"Content-Type: a/b; charset=latin1\r\nContent-Length: x\r\n\r\n{}"),
        vec![Err(E::BadLength { offset: 0 })]
    );
}

/// A stream with a body in another charset between two messages gives the same items,
/// offsets and consumed count in one read, one byte at a time, and split at every byte.
#[test]
fn a_refused_body_reads_the_same_split_at_every_byte() {
    let stream = b"Content-Length: 2\r\n\r\n{}\
                   Content-Type: application/json; charset=\"latin1\"\r\nContent-Length: 6\r\n\r\n[\"\xc3\xa9\"]\
                   Content-Length: 3\r\n\r\n[1]";
    let read = |chunks: &[&[u8]]| {
        let mut framer = ContentLengthFramer::new(1 << 20);
        let mut items = vec![];
        let mut buf = BytesMut::new();
        for (i, chunk) in chunks.iter().enumerate() {
            buf.extend_from_slice(chunk);
            let eof = i + 1 == chunks.len();
            while let Some(item) =
                rpcwire::Framer::next_frame(&mut framer, &mut buf, eof).transpose()
            {
                items.push(item.map(|body| (framer.last_offset(), body)));
            }
        }
        (items, framer.consumed())
    };
    let last = (stream.len() - b"Content-Length: 3\r\n\r\n[1]".len()) as u64;
    let expected = (
        vec![
            Ok((0, Bytes::from("{}"))),
            Err(E::UnsupportedCharset { offset: 23 }),
            Ok((last, Bytes::from("[1]"))),
        ],
        stream.len() as u64,
    );
    assert_any_split(stream, &[expected], |chunks| vec![read(chunks)]);
}

/// `BadLength`'s text is true of every value that gets it: an empty one, a sign, a space
/// between digits, a letter, and a number of 2^64 or more, which is a decimal number but
/// not one below 2^64 (the text said "not a decimal number" of it too).
#[test]
fn the_bad_length_text_is_true_of_every_bad_value() {
    for value in [
        "",
        " \t ",
        "-2",
        "+2",
        "1 2",
        "2x",
        "0x10",
        "18446744073709551616",
        "99999999999999999999999",
    ] {
        let input = format!("Content-Length: {value}\r\n\r\n{{}}");
        let got = frames(input.as_bytes());
        assert_eq!(got, vec![Err(E::BadLength { offset: 0 })], "{value:?}");
        assert_eq!(
            got[0].as_ref().unwrap_err().to_string(),
            "Content-Length is not a decimal number below 2^64 (message starting at byte 0)",
            "{value:?}"
        );
    }
}

/// A length is any run of digits whose value fits `u64`, however many leading zeros it has:
/// `u64::MAX` is a length (over the limit, skipped), one more is not.
#[test]
fn a_length_up_to_u64_max() {
    let zeros = format!("Content-Length: {}2\r\n\r\n{{}}", "0".repeat(40));
    assert_eq!(frames(zeros.as_bytes()), vec![Ok(Bytes::from("{}"))]);
    let mut framer = ContentLengthFramer::new(usize::MAX - 1);
    let max = format!("Content-Length: {}\r\n\r\n{{}}", u64::MAX);
    assert_eq!(
        frame_all(&mut framer, &[max.as_bytes()]),
        vec![Err(E::TooLong {
            offset: 0,
            length: u64::MAX,
            limit: usize::MAX - 1,
        })]
    );
    assert!(!framer.is_failed());
    assert_eq!(framer.consumed(), max.len() as u64);
}

#[test]
fn header_names_take_every_rfc_9110_token_character() {
    let name = "!#$%&'*+-.^_`|~09azAZ";
    let input = format!("{name}: v\r\nContent-Length: 2\r\n\r\n{{}}");
    assert_eq!(frames(input.as_bytes()), vec![Ok(Bytes::from("{}"))]);
}

#[test]
fn fatal_header_errors() {
    for (input, expected) in [
        (
            &b"Content-Type: x\r\n\r\n{}"[..],
            E::MissingLength { offset: 0 },
        ),
        (b"\r\n{}", E::MissingLength { offset: 0 }),
        (
            b"Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}",
            E::DuplicateLength { offset: 0 },
        ),
        (b"Content-Length: -2\r\n\r\n{}", E::BadLength { offset: 0 }),
        (b"Content-Length: +2\r\n\r\n{}", E::BadLength { offset: 0 }),
        (b"Content-Length: 2x\r\n\r\n{}", E::BadLength { offset: 0 }),
        (b"Content-Length: 1 2\r\n\r\n{}", E::BadLength { offset: 0 }),
        (b"Content-Length:\r\n\r\n{}", E::BadLength { offset: 0 }),
        (b"Content-Length: \t \r\n\r\n{}", E::BadLength { offset: 0 }),
        (
            b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
            E::DuplicateLength { offset: 0 },
        ),
        (
            b"Content-Length: 18446744073709551616\r\n\r\n",
            E::BadLength { offset: 0 },
        ),
        (
            b"Content-Length: 99999999999999999999999\r\n\r\n",
            E::BadLength { offset: 0 },
        ),
        (b"Content-Length: 2\n\n{}", E::MalformedHeader { offset: 0 }),
        (
            b"Content-Length: 2\r\n\n{}",
            E::MalformedHeader { offset: 0 },
        ),
        (
            b"Content-Length: 2\r\r\n\r\n{}",
            E::MalformedHeader { offset: 0 },
        ),
        (
            b"Content-Length 2\r\n\r\n{}",
            E::MalformedHeader { offset: 0 },
        ),
        (b"Bad Name: 2\r\n\r\n{}", E::MalformedHeader { offset: 0 }),
        (b"X(: 2\r\n\r\n{}", E::MalformedHeader { offset: 0 }),
        (b"X@: 2\r\n\r\n{}", E::MalformedHeader { offset: 0 }),
        (b"X\xc3\xa9: 2\r\n\r\n{}", E::MalformedHeader { offset: 0 }),
        (b": 2\r\n\r\n{}", E::MalformedHeader { offset: 0 }),
        (b"X: a\x01b\r\n\r\n{}", E::MalformedHeader { offset: 0 }),
    ] {
        let mut framer = ContentLengthFramer::new(1 << 20);
        let got = frame_all(&mut framer, &[input, b"Content-Length: 2\r\n\r\n{}"]);
        assert_eq!(
            got,
            vec![Err(expected)],
            "{:?}",
            String::from_utf8_lossy(input)
        );
        assert!(expected.is_fatal());
        assert!(framer.is_failed());
    }
}

/// A line end between two messages (a peer that writes `\r\n` after each body) starts a
/// header block with its blank line: no `Content-Length`, fatal as documented, at the offset
/// of the stray line end, after the message before it was handed out; a bare `\n` there is
/// a malformed header line. vscode-jsonrpc refuses it too (its header block is then the
/// stray `\r\n` and the next message's headers, and the empty first line has no `:`), as
/// does lsp-server (a `\r\n` first ends the block, with no `Content-Length`); neither reads
/// the message after it.
#[test]
fn a_stray_line_end_between_messages_is_fatal() {
    for (stray, expected) in [
        (&b"\r\n"[..], E::MissingLength { offset: 23 }),
        (b"\n", E::MalformedHeader { offset: 23 }),
    ] {
        let stream = [
            &b"Content-Length: 2\r\n\r\n{}"[..],
            stray,
            msg("[]").as_bytes(),
        ]
        .concat();
        assert_any_split(&stream, &[Ok(Bytes::from("{}")), Err(expected)], |chunks| {
            let mut framer = ContentLengthFramer::new(1 << 20);
            let got = frame_all(&mut framer, chunks);
            assert!(framer.is_failed());
            got
        });
    }
}

/// The LSP base protocol: "The header part is encoded using the 'ascii' encoding." A byte
/// above 0x7F in a header value (UTF-8 `é`, a lone 0x80, 0xFF), of any header, is a malformed
/// header line, fatal as a control character is: the framer cannot tell what the peer meant
/// by it. (It was taken, and a `Content-Type` holding one was read for its charset.)
#[test]
fn a_header_value_byte_above_ascii_is_malformed() {
    for input in [
        &b"X-Client: caf\xc3\xa9\r\nContent-Length: 2\r\n\r\n{}"[..],
        b"X: \x80\r\nContent-Length: 2\r\n\r\n{}",
        b"Content-Length: 2\r\nX: a\xffb\r\n\r\n{}",
        b"Content-Length: 2\xc2\xa0\r\n\r\n{}",
        b"Content-Type: a/b; charset=\"utf-8\xc3\xa9\"\r\nContent-Length: 2\r\n\r\n{}",
        b"Content-Length: 2\r\nContent-Type: application/json; charset=utf-8\xff\r\n\r\n{}",
    ] {
        let mut framer = ContentLengthFramer::new(1 << 20);
        let got = frame_all(&mut framer, &[input, b"Content-Length: 2\r\n\r\n{}"]);
        let text = String::from_utf8_lossy(input);
        assert_eq!(got, vec![Err(E::MalformedHeader { offset: 0 })], "{text:?}");
        assert!(framer.is_failed(), "{text:?}");
    }
    // Every ASCII byte a value may hold is still taken.
    let printable: Vec<u8> = (0x20..0x7f).chain([b'\t']).collect();
    let mut input = b"X: ".to_vec();
    input.extend_from_slice(&printable);
    input.extend_from_slice(b"\r\nContent-Length: 2\r\n\r\n{}");
    assert_eq!(frames(&input), vec![Ok(Bytes::from("{}"))]);
}

#[test]
fn header_limits() {
    let mut framer = ContentLengthFramer::new(1 << 20).max_headers(3);
    let ok = b"A: 1\r\nB: 2\r\nContent-Length: 2\r\n\r\n{}";
    assert_eq!(frame_all(&mut framer, &[ok]), vec![Ok(Bytes::from("{}"))]);
    let mut framer = ContentLengthFramer::new(1 << 20).max_headers(3);
    let four = b"A: 1\r\nB: 2\r\nC: 3\r\nContent-Length: 2\r\n\r\n{}";
    assert_eq!(
        frame_all(&mut framer, &[four]),
        vec![Err(E::TooManyHeaders {
            offset: 0,
            limit: 3
        })]
    );
    // A header block without its blank line, fed forever: fatal once its limit is crossed,
    // and nothing is kept afterwards.
    let mut framer = ContentLengthFramer::new(1 << 20).max_header_bytes(64);
    let mut buf = BytesMut::new();
    let mut errors = vec![];
    for _ in 0..1000 {
        buf.extend_from_slice(b"X-Padding: aaaaaaaaaaaaaaaa\r\n");
        while let Some(r) = framer.decode(&mut buf).transpose() {
            errors.push(r.unwrap_err());
        }
        assert!(buf.len() <= 64);
    }
    assert_eq!(
        errors,
        vec![E::HeaderTooLarge {
            offset: 0,
            limit: 64
        }]
    );
    // A single endless header line.
    let mut framer = ContentLengthFramer::new(1 << 20).max_header_bytes(64);
    let got = frame_all(&mut framer, &[&[b'a'; 1000][..]]);
    assert_eq!(
        got,
        vec![Err(E::HeaderTooLarge {
            offset: 0,
            limit: 64
        })]
    );
}

/// The header block's limit is exact (its blank line counted): a block fails as soon as its
/// limit's bytes are there without its end, and a limit no block fits in fails on the first
/// byte of a block, not before one arrives: an empty buffer needs more.
#[test]
fn the_header_limit_is_exact_and_waits_for_a_byte() {
    let message = b"Content-Length: 2\r\n\r\n{}";
    let block = message.len() - 2;
    let mut framer = ContentLengthFramer::new(1 << 20).max_header_bytes(block);
    assert_eq!(
        frame_all(&mut framer, &[message]),
        vec![Ok(Bytes::from("{}"))]
    );
    let mut framer = ContentLengthFramer::new(1 << 20).max_header_bytes(block - 1);
    assert_eq!(
        frame_all(&mut framer, &[message]),
        vec![Err(E::HeaderTooLarge {
            offset: 0,
            limit: block - 1
        })]
    );
    // A header line that ends exactly at the limit leaves no room for the blank line: the
    // block fails then, in one read or byte by byte, not only when a next byte comes (a
    // stream that ended there was reported `Truncated`, one that went on `HeaderTooLarge`).
    let line = b"Content-Type: a/b; charset=utf-8\r\n";
    for chunks in [vec![&line[..]], line.chunks(1).collect()] {
        let mut framer = ContentLengthFramer::new(1 << 20).max_header_bytes(line.len());
        assert_eq!(
            frame_all(&mut framer, &chunks),
            vec![Err(E::HeaderTooLarge {
                offset: 0,
                limit: line.len()
            })]
        );
    }
    let mut framer = ContentLengthFramer::new(1 << 20).max_header_bytes(0);
    let mut buf = BytesMut::new();
    assert_eq!(framer.decode(&mut buf), Ok(None));
    assert_eq!(framer.decode_eof(&mut buf), Ok(None));
    buf.extend_from_slice(b"C");
    assert_eq!(
        framer.decode(&mut buf),
        Err(E::HeaderTooLarge {
            offset: 0,
            limit: 0
        })
    );
}

#[test]
fn over_long_body_is_skipped_exactly() {
    let mut framer = ContentLengthFramer::new(8);
    let input = b"Content-Length: 9\r\n\r\n123456789Content-Length: 8\r\n\r\n12345678";
    assert_eq!(
        frame_all(&mut framer, &[input]),
        vec![
            Err(E::TooLong {
                offset: 0,
                length: 9,
                limit: 8,
            }),
            Ok(Bytes::from("12345678"))
        ]
    );
    assert!(!framer.is_failed());
    assert_eq!(framer.last_offset(), 30);
}

/// The text of an over-long body says how long it is, from its header, and the framer's
/// `max_frame` it crossed: what a log needs to tell a slightly large message from a runaway
/// one.
#[test]
fn an_over_long_body_says_its_length() {
    let mut framer = ContentLengthFramer::new(8);
    let input = b"Content-Length: 2\r\n\r\n{}Content-Length: 12\r\n\r\n[1,2,3,4,56]";
    let got = frame_all(&mut framer, &[input]);
    assert_eq!(
        got[1].as_ref().unwrap_err().to_string(),
        "body of 12 bytes exceeds the frame limit of 8 bytes (message starting at byte 23)"
    );
}

/// The header limits' errors carry the limits the framer was given, not the defaults, and
/// their texts name them.
#[test]
fn the_header_limit_errors_name_their_limits() {
    let mut framer = ContentLengthFramer::new(1 << 20).max_headers(1);
    let got = frame_all(&mut framer, &[b"A: 1\r\nContent-Length: 2\r\n\r\n{}"]);
    let e = *got[0].as_ref().unwrap_err();
    assert_eq!(
        e,
        E::TooManyHeaders {
            offset: 0,
            limit: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "more headers than the limit of 1 (message starting at byte 0)"
    );
    let mut framer = ContentLengthFramer::new(1 << 20).max_header_bytes(10);
    let got = frame_all(&mut framer, &[b"Content-Length: 2\r\n\r\n{}"]);
    let e = *got[0].as_ref().unwrap_err();
    assert_eq!(
        e,
        E::HeaderTooLarge {
            offset: 0,
            limit: 10
        }
    );
    assert_eq!(
        e.to_string(),
        "header block exceeds its limit of 10 bytes (message starting at byte 0)"
    );
}

#[test]
fn truncated_at_eof() {
    assert_eq!(
        frames(b"Content-Length: 5\r\n\r\n{}"),
        vec![Err(E::Truncated { offset: 0 })]
    );
    assert_eq!(
        frames(b"Content-Length: 2\r\n\r\n{}Content-Le"),
        vec![Ok(Bytes::from("{}")), Err(E::Truncated { offset: 23 })]
    );
    assert_eq!(frames(b""), vec![]);
}

#[test]
fn claimed_length_is_never_reserved() {
    let mut framer = ContentLengthFramer::new(usize::MAX);
    // Half the address space: 2^63 - 1 bytes on a 64-bit target, 2^31 - 1 on a 32-bit one.
    let header = format!("Content-Length: {}\r\n\r\n{{", usize::MAX / 2);
    let mut buf = BytesMut::from(header.as_bytes());
    let before = buf.capacity();
    assert_eq!(framer.decode(&mut buf).unwrap(), None);
    assert!(buf.capacity() <= before, "the framer reserved memory");
}

/// Several messages (one over-long) give the same items in one read, one byte at a time,
/// and split in two at every position.
#[test]
fn content_length_reads_split_at_every_byte() {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;
    let stream = format!(
        "{}content-length: 40\r\n\r\n{}{}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}",
        msg(body),
        "x".repeat(40),
        msg("[1]"),
    );
    let stream = stream.as_bytes();
    let make = || ContentLengthFramer::new(32 + body.len());
    let whole = frame_all(&mut make(), &[stream]);
    assert_eq!(whole.len(), 4, "{whole:?}");
    assert!(whole.iter().all(Result::is_ok));
    let whole_long = frame_all(&mut ContentLengthFramer::new(16), &[stream]);
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(frame_all(&mut make(), &bytes), whole, "1-byte reads");
    for at in 0..=stream.len() {
        let (a, b) = stream.split_at(at);
        assert_eq!(frame_all(&mut make(), &[a, b]), whole, "split at {at}");
        assert_eq!(
            frame_all(&mut ContentLengthFramer::new(16), &[a, b]),
            whole_long,
            "split at {at}, limit 16"
        );
    }
    assert_eq!(whole_long.iter().filter(|r| r.is_err()).count(), 2);
}

/// A body announced longer than the limit, 1 GiB of it, streams through in constant memory,
/// and the next message follows.
#[test]
fn content_length_endless_body_constant_memory() {
    const LIMIT: usize = 1 << 20;
    const CHUNK: usize = 64 << 10;
    const TOTAL: usize = 1 << 30;
    let mut framer = ContentLengthFramer::new(LIMIT);
    let mut buf = BytesMut::from(format!("Content-Length: {TOTAL}\r\n\r\n").as_bytes());
    let chunk = vec![b'x'; CHUNK];
    let mut errors = 0;
    for _ in 0..TOTAL / CHUNK {
        buf.extend_from_slice(&chunk);
        while let Some(r) = framer.decode(&mut buf).transpose() {
            assert!(matches!(r, Err(E::TooLong { offset: 0, .. })));
            errors += 1;
        }
        assert!(buf.is_empty());
        assert!(buf.capacity() <= 2 * CHUNK, "cap {}", buf.capacity());
    }
    assert_eq!(errors, 1);
    buf.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
    assert_eq!(framer.decode(&mut buf).unwrap().unwrap(), &b"{}"[..]);
}

/// Every line the `encode` writers write, passed with its `\n`, without it and with `\r\n`
/// instead, comes back from the framer as the line without its end: in one read, one byte at
/// a time and split in two at every position.
#[test]
fn content_length_writer_round_trips_every_encode_shape() {
    let mut stream = BytesMut::new();
    let mut expected = vec![];
    for (message, body) in encoded_messages() {
        write_content_length_frame(&mut stream, &message);
        expected.push(Ok(Bytes::from(body)));
    }
    assert_any_split(&stream, &expected, |chunks| {
        frame_all(&mut ContentLengthFramer::new(1 << 10), chunks)
    });
}

/// The exact frame: the header, then the body as it is but for one line end at its very end.
#[test]
fn content_length_writer_bytes() {
    let cases: [(&[u8], &[u8]); 9] = [
        (b"{}", b"Content-Length: 2\r\n\r\n{}"),
        (b"{}\n", b"Content-Length: 2\r\n\r\n{}"),
        (b"{}\r\n", b"Content-Length: 2\r\n\r\n{}"),
        (b"{}\r", b"Content-Length: 3\r\n\r\n{}\r"),
        (b"{}\n\n", b"Content-Length: 3\r\n\r\n{}\n"),
        (b"\n\r\n", b"Content-Length: 1\r\n\r\n\n"),
        (b"", b"Content-Length: 0\r\n\r\n"),
        (b"\n", b"Content-Length: 0\r\n\r\n"),
        (
            b"[\r\n\r\nContent-Length: 1\r\n\r\n]",
            b"Content-Length: 27\r\n\r\n[\r\n\r\nContent-Length: 1\r\n\r\n]",
        ),
    ];
    for (message, wire) in cases {
        let mut out = BytesMut::from(&b"before"[..]);
        write_content_length_frame(&mut out, message);
        assert_eq!(&out[6..], wire, "{:?}", message.escape_ascii().to_string());
        assert_eq!(&out[..6], b"before");
        assert_eq!(
            frames(&out[6..]),
            vec![Ok(Bytes::copy_from_slice(written_message(message)))]
        );
    }
    let body = vec![b'x'; 100_000];
    let mut out = BytesMut::new();
    write_content_length_frame(&mut out, &body);
    assert!(out.starts_with(b"Content-Length: 100000\r\n\r\nxxx"));
    assert_eq!(frames(&out), vec![Ok(Bytes::from(body))]);
}

/// The writer reserves the frame's room up front, from its length: into an empty buffer, the
/// frame is written without growing the buffer again (a second growth at least doubles it)
/// and without reserving a multiple of the body.
#[test]
fn content_length_writer_reserves_the_frame_once() {
    for body in [b"{}".to_vec(), vec![b'x'; 100_000]] {
        let mut out = BytesMut::new();
        write_content_length_frame(&mut out, &body);
        let frame = out.len();
        assert_eq!(
            frame,
            b"Content-Length: \r\n\r\n".len() + body.len().to_string().len() + body.len()
        );
        assert!(
            out.capacity() < frame + frame / 2,
            "{} bytes of capacity for a frame of {frame}",
            out.capacity()
        );
    }
}

proptest! {
    /// Any message bytes, several in a row: the framer gives back each body exactly (the
    /// message without one line end at its very end), the stream split in two anywhere.
    #[test]
    fn content_length_writer_round_trips_any_bytes(
        messages in proptest::collection::vec(
            proptest::collection::vec(
                prop_oneof![any::<u8>(), Just(b'\r'), Just(b'\n'), Just(b':')],
                0..80,
            ),
            0..5,
        ),
        at in any::<proptest::sample::Index>(),
    ) {
        let mut out = BytesMut::new();
        for message in &messages {
            write_content_length_frame(&mut out, message);
        }
        let (a, b) = out.split_at(at.index(out.len() + 1));
        let got = frame_all(&mut ContentLengthFramer::new(1 << 10), &[a, b]);
        let want: Vec<Result<Bytes, E>> = messages
            .iter()
            .map(|m| Ok(Bytes::copy_from_slice(written_message(m))))
            .collect();
        prop_assert_eq!(got, want);
    }
}

/// What `ContentLengthFramer` hands out for a stream, as the LSP base protocol with the
/// framer's documented rules and limits gives it: `Ok(body)`, a body's `UnsupportedCharset`
/// (its `Content-Type` one of the stream's that do not declare UTF-8) or else an over-long
/// body's `TooLong` (its bytes skipped, however many arrive), or the first error that ends
/// the stream (fatal, or `Truncated` when the stream ends inside a message).
fn content_length_model(
    input: &[u8],
    max_frame: usize,
    max_bytes: usize,
    max_headers: usize,
) -> Vec<Result<Bytes, E>> {
    let is_tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    let mut out = vec![];
    let mut pos = 0;
    while pos < input.len() {
        let offset = pos as u64;
        let (mut length, mut count, mut utf8) = (None, 0, true);
        let body = loop {
            let window = &input[pos..input.len().min(offset as usize + max_bytes)];
            let Some(lf) = window.iter().position(|&b| b == b'\n') else {
                // The block's limit is crossed once as many bytes as it allows are there.
                return if input.len() >= offset as usize + max_bytes {
                    out.push(Err(E::HeaderTooLarge {
                        offset,
                        limit: max_bytes,
                    }));
                    out
                } else {
                    out.push(Err(E::Truncated { offset }));
                    out
                };
            };
            let line = &input[pos..pos + lf];
            pos += lf + 1;
            let Some(line) = line.strip_suffix(b"\r") else {
                out.push(Err(E::MalformedHeader { offset }));
                return out;
            };
            if line.is_empty() {
                match length {
                    Some(length) => break length,
                    None => {
                        out.push(Err(E::MissingLength { offset }));
                        return out;
                    }
                }
            }
            let colon = line.iter().position(|&b| b == b':');
            let Some((name, value)) = colon.map(|c| (&line[..c], &line[c + 1..])) else {
                out.push(Err(E::MalformedHeader { offset }));
                return out;
            };
            if name.is_empty()
                || !name.iter().all(|&b| is_tchar(b))
                || value.iter().any(|&b| (b < 0x20 && b != b'\t') || b >= 0x7f)
            {
                out.push(Err(E::MalformedHeader { offset }));
                return out;
            }
            if name.eq_ignore_ascii_case(b"content-length") {
                if length.is_some() {
                    out.push(Err(E::DuplicateLength { offset }));
                    return out;
                }
                let digits = value.trim_ascii();
                let parsed = (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit))
                    .then(|| std::str::from_utf8(digits).unwrap().parse::<u64>().ok())
                    .flatten();
                let Some(n) = parsed else {
                    out.push(Err(E::BadLength { offset }));
                    return out;
                };
                length = Some(n);
            }
            if name.eq_ignore_ascii_case(b"content-type") {
                utf8 &= UTF8_CONTENT_TYPES.contains(&value.trim_ascii());
            }
            count += 1;
            if count > max_headers {
                out.push(Err(E::TooManyHeaders {
                    offset,
                    limit: max_headers,
                }));
                return out;
            }
        };
        let rest = (input.len() - pos) as u64;
        if !utf8 {
            out.push(Err(E::UnsupportedCharset { offset }));
            pos += body.min(rest) as usize;
        } else if body > max_frame as u64 {
            out.push(Err(E::TooLong {
                offset,
                length: body,
                limit: max_frame,
            }));
            pos += body.min(rest) as usize;
        } else if body > rest {
            out.push(Err(E::Truncated { offset }));
            return out;
        } else {
            out.push(Ok(Bytes::copy_from_slice(&input[pos..pos + body as usize])));
            pos += body as usize;
        }
    }
    out
}

/// The `Content-Type` values of [`content_length_stream`] that declare UTF-8; its others
/// (another charset, an empty one) do not.
const UTF8_CONTENT_TYPES: [&[u8]; 2] = [
    b"application/vscode-jsonrpc; charset=utf-8",
    b"a/b;CHARSET=\"UTF8\"",
];

/// Messages of a few header lines (`Content-Length` in every form, `Content-Type` declaring
/// UTF-8 or not, other headers, malformed ones (a value that is not ASCII among them), bare
/// LF or CR line ends) and a body of about the announced length.
fn content_length_stream() -> impl Strategy<Value = Vec<u8>> {
    let header = proptest::sample::select(vec![
        "Content-Length: {n}",
        "content-length:{n}",
        "CONTENT-LENGTH:\t{n} ",
        "Content-Length: 0{n}",
        "Content-Length: {n}x",
        "Content-Length : {n}",
        "Content-Length: {n+1}",
        "Content-Type: application/vscode-jsonrpc; charset=utf-8",
        "content-type:a/b;CHARSET=\"UTF8\"",
        "Content-Type: a/b; charset=latin1",
        "Content-Type: a/b; charset=",
        "X-A: b",
        "X-A: caf\u{e9}",
        "X:",
        " X: y",
    ]);
    let end = proptest::sample::select(vec!["\r\n", "\r\n", "\r\n", "\r\n", "\n", "\r"]);
    let message = (
        proptest::collection::vec((header, end.clone()), 0..4),
        end,
        0usize..12,
        -1isize..2,
    )
        .prop_map(|(headers, blank, n, off)| {
            let mut m = String::new();
            for (h, e) in headers {
                m.push_str(
                    &h.replace("{n+1}", &(n + 1).to_string())
                        .replace("{n}", &n.to_string()),
                );
                m.push_str(e);
            }
            m.push_str(blank);
            m.push_str(&"b".repeat(n.saturating_add_signed(off)));
            m.into_bytes()
        });
    proptest::collection::vec(message, 0..5).prop_map(|m| m.concat())
}

proptest! {
    // Enough cases for messages whose every header is sound and fits the limits to be common,
    // a `Content-Type` in another charset among them.
    #![proptest_config(crate::common::cases(4000))]
    /// Any such stream, under any limits, in one read and one byte at a time: the framer
    /// hands out what the model gives.
    #[test]
    fn content_length_framer_agrees_with_the_model(
        input in content_length_stream(),
        max_frame in 0usize..12,
        max_bytes in 0usize..80,
        max_headers in 0usize..5,
    ) {
        let expected = content_length_model(&input, max_frame, max_bytes, max_headers);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        for chunks in [vec![&input[..]], bytes] {
            let mut framer = ContentLengthFramer::new(max_frame)
                .max_header_bytes(max_bytes)
                .max_headers(max_headers);
            prop_assert_eq!(
                frame_all(&mut framer, &chunks),
                expected.clone(),
                "{:?}",
                String::from_utf8_lossy(&input)
            );
        }
    }
}
