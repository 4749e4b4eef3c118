//! The newline framer: partial reads at every split, CRLF, blank lines, the end-of-stream
//! line, and over-long lines reported once and discarded in constant memory.

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::{FrameError, Framer, LineFramer, Lines};

/// Frames `chunks` read by read; returns frames (as vectors) and errors in order, and checks
/// that the framer never holds more than the limit and a terminator between reads.
fn frame_all(chunks: &[&[u8]], max: usize) -> Vec<Result<Vec<u8>, FrameError>> {
    let mut framer = LineFramer::new(max);
    let mut buf = BytesMut::new();
    let mut out = vec![];
    for c in chunks {
        buf.extend_from_slice(c);
        out.extend(framer.frames(&mut buf, false));
        assert!(
            buf.len() <= max + 2,
            "buffered {} bytes beyond the limit",
            buf.len()
        );
    }
    out.extend(framer.frames(&mut buf, true));
    out.into_iter().map(|r| r.map(|f| f.to_vec())).collect()
}

const STREAM: &[u8] = b"{\"a\":1}\r\n\n  \n{\"b\":\"x\\ny\"}\n\r\n{\"c\":[1,2,3]}";

#[test]
fn every_two_way_split_gives_the_one_shot_frames() {
    let one_shot = frame_all(&[STREAM], 64);
    assert_eq!(
        one_shot,
        vec![
            Ok(b"{\"a\":1}".to_vec()),
            Ok(b"{\"b\":\"x\\ny\"}".to_vec()),
            Ok(b"{\"c\":[1,2,3]}".to_vec())
        ]
    );
    for at in 0..=STREAM.len() {
        let (a, b) = STREAM.split_at(at);
        assert_eq!(frame_all(&[a, b], 64), one_shot, "split at {at}");
    }
    let bytes: Vec<&[u8]> = STREAM.chunks(1).collect();
    assert_eq!(frame_all(&bytes, 64), one_shot);
}

#[test]
fn the_slice_framer_agrees() {
    let frames: Vec<Vec<u8>> = Lines::new(STREAM, 64)
        .map(|r| r.unwrap().1.to_vec())
        .collect();
    let framed: Vec<Vec<u8>> = frame_all(&[STREAM], 64)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(frames, framed);
}

/// `Lines::max_frame` is the limit it frames with: a line of that length passes, one byte
/// more does not.
#[test]
fn the_slice_framers_limit_is_the_one_it_was_given() {
    let lines = Lines::new(b"12345\n123456\n", 5);
    assert_eq!(lines.max_frame(), 5);
    let framed: Vec<_> = lines.collect();
    assert_eq!(
        framed,
        vec![
            Ok((0, &b"12345"[..])),
            Err(FrameError::TooLong {
                offset: 6,
                limit: 5
            })
        ]
    );
}

#[test]
fn over_long_line_is_reported_once_then_discarded() {
    let mut long = vec![b'x'; 1000];
    long.push(b'\n');
    let input = [&b"{\"ok\":1}\n"[..], &long, b"{\"ok\":2}\n"].concat();
    for chunk in [1, 7, 64, 4096] {
        let chunks: Vec<&[u8]> = input.chunks(chunk).collect();
        let got = frame_all(&chunks, 100);
        assert_eq!(
            got,
            vec![
                Ok(b"{\"ok\":1}".to_vec()),
                Err(FrameError::TooLong {
                    offset: 9,
                    limit: 100
                }),
                Ok(b"{\"ok\":2}".to_vec())
            ],
            "chunk size {chunk}"
        );
    }
}

#[test]
fn a_frame_of_exactly_the_limit_passes_with_lf_or_crlf() {
    let line = vec![b'1'; 100];
    for term in [&b"\n"[..], b"\r\n"] {
        let input = [&line[..], term, &line[..], b"1", term].concat();
        let got = frame_all(&[&input], 100);
        assert_eq!(
            got,
            vec![
                Ok(line.clone()),
                Err(FrameError::TooLong {
                    offset: (100 + term.len()) as u64,
                    limit: 100,
                })
            ]
        );
    }
}

#[test]
fn unterminated_over_long_tail_at_eof_is_dropped_after_one_error() {
    let got = frame_all(&[&[b'a'; 5000][..]], 100);
    assert_eq!(
        got,
        vec![Err(FrameError::TooLong {
            offset: 0,
            limit: 100
        })]
    );
}

/// Frames and errors of one stream read by `framer` in `chunks`, to its end (`decode_eof`
/// until `Ok(None)`), with the stream offset of each.
fn one_stream(
    framer: &mut LineFramer,
    chunks: &[&[u8]],
) -> Vec<(u64, Result<Vec<u8>, FrameError>)> {
    let mut buf = BytesMut::new();
    let mut out = vec![];
    let mut take = |framer: &mut LineFramer, item: Result<bytes::Bytes, FrameError>| {
        out.push((framer.last_offset(), item.map(|f| f.to_vec())));
    };
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        while let Some(item) = framer.decode(&mut buf).transpose() {
            take(framer, item);
        }
    }
    while let Some(item) = framer.decode_eof(&mut buf).transpose() {
        take(framer, item);
    }
    assert!(buf.is_empty());
    out
}

/// After `decode_eof` has said `Ok(None)`, one framer reads the next stream from a line's
/// start, whatever the last one ended in: an unterminated line (delivered, not joined to
/// the next stream's first), or an over-long line being discarded (the next stream's first
/// line is not taken for the rest of it). Offsets go on counting.
#[test]
fn a_framer_reads_the_next_stream_after_the_end_of_one() {
    let mut framer = LineFramer::new(8);
    assert_eq!(
        one_stream(&mut framer, &[b"[1]\n[2]"]),
        [(0, Ok(b"[1]".to_vec())), (4, Ok(b"[2]".to_vec()))]
    );
    assert_eq!(
        one_stream(&mut framer, &[b"[3]\n"]),
        [(7, Ok(b"[3]".to_vec()))]
    );
    // The end comes while the over-long line's rest is being discarded, read after read.
    assert_eq!(
        one_stream(&mut framer, &[b"[4, 5, 6, 7", b", 8"]),
        [(
            11,
            Err(FrameError::TooLong {
                offset: 11,
                limit: 8
            })
        )]
    );
    assert_eq!(
        one_stream(&mut framer, &[b"[9]\n"]),
        [(25, Ok(b"[9]".to_vec()))]
    );
}

/// `decode_chunk` with an over-long line, as its docs have it: an unfinished line that crosses
/// the limit is reported then, once, with its offset (not kept until its newline comes), its
/// bytes are dropped as they arrive, and the call that reaches its newline hands out the
/// complete lines after it (`Ok(None)` only when no complete line has arrived).
#[test]
fn decode_chunk_reports_an_unfinished_over_long_line_once_then_discards_it() {
    let mut framer = LineFramer::new(8);
    let mut buf = BytesMut::from(&b"[1]\n[2, 3, 4, 5"[..]);
    assert_eq!(
        framer.decode_chunk(&mut buf).unwrap().unwrap(),
        &b"[1]\n"[..]
    );
    // 11 bytes without a newline: past the limit and a `\r`, so over-long already.
    assert_eq!(
        framer.decode_chunk(&mut buf),
        Err(FrameError::TooLong {
            offset: 4,
            limit: 8
        })
    );
    assert_eq!(framer.last_offset(), 4);
    buf.extend_from_slice(b", 6, 7");
    assert_eq!(framer.decode_chunk(&mut buf), Ok(None));
    assert!(buf.is_empty(), "the over-long line is kept: {buf:?}");
    buf.extend_from_slice(b", 8]\n[9]\n[10]\n[11");
    let chunk = framer.decode_chunk(&mut buf).unwrap().unwrap();
    assert_eq!(chunk, &b"[9]\n[10]\n"[..]);
    assert_eq!(framer.last_offset(), 26);
    assert_eq!(framer.decode_chunk(&mut buf), Ok(None));
    assert_eq!(
        framer.decode_chunk_eof(&mut buf).unwrap().unwrap(),
        &b"[11"[..]
    );
    assert_eq!(framer.last_offset(), 35);
}

/// `Frames`' `Debug` shows the framer, the buffer's length and the end flag: not the bytes
/// buffered, a partial frame of up to the frame limit.
#[test]
fn frames_debug_shows_where_it_stands_not_the_buffer() {
    let mut framer = LineFramer::new(16);
    let mut buf = BytesMut::from(&b"[1]\n[2,3"[..]);
    let mut frames = framer.frames(&mut buf, false);
    assert!(frames.next().is_some());
    assert!(frames.next().is_none());
    assert_eq!(
        format!("{frames:?}"),
        "Frames { framer: LineFramer { next_index: 4, max_frame: 16, discarding: false, \
         consumed: 4, last_offset: 0, yield_blank: false }, buffered: 4, eof: false }"
    );
}

#[test]
fn a_long_blank_line_in_small_reads_is_skipped_and_consumed() {
    // A 1 MiB line arriving 16 bytes at a time (the cursor means each byte is scanned once).
    let mut line = vec![b' '; 1 << 20];
    line.push(b'\n');
    let mut framer = LineFramer::new(2 << 20);
    let mut buf = BytesMut::new();
    let mut frames = 0;
    for chunk in line.chunks(16) {
        buf.extend_from_slice(chunk);
        while framer.decode(&mut buf).unwrap().is_some() {
            frames += 1;
        }
    }
    // A whitespace-only line is blank: skipped.
    assert_eq!(frames, 0);
    assert!(buf.is_empty());
}

proptest! {
    #[test]
    fn random_chunkings_agree_with_the_slice_framer(
        lines in proptest::collection::vec("[ -~]{0,40}", 0..12),
        cuts in proptest::collection::vec(0usize..600, 0..8),
        crlf in any::<bool>(),
    ) {
        let term: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let input: Vec<u8> = lines.iter().flat_map(|l| [l.as_bytes(), term].concat()).collect();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
        cuts.sort();
        let mut chunks = vec![];
        let mut prev = 0;
        for c in cuts {
            chunks.push(&input[prev..c]);
            prev = c;
        }
        chunks.push(&input[prev..]);
        let expected: Vec<Result<Vec<u8>, FrameError>> =
            Lines::new(&input, 32).map(|r| r.map(|(_, l)| l.to_vec())).collect();
        prop_assert_eq!(frame_all(&chunks, 32), expected);
    }
}

/// Each framer after a partial frame in one buffer is handed a new, shorter one (a caller
/// that cleared or replaced its buffer): it searches the new buffer from its start, gives its
/// frame, and never slices past its end (each of these panicked while the framers resumed
/// where their last search of the old buffer had stopped).
#[test]
fn a_replaced_shorter_buffer_is_searched_from_its_start() {
    fn check<F: Framer>(framer: &mut F, partial: &[u8], complete: &[u8], frame: &[u8]) {
        let mut old = BytesMut::from(partial);
        assert!(framer.decode(&mut old).unwrap_or(None).is_none());
        let mut new = BytesMut::from(complete);
        let got = framer.decode(&mut new).ok().flatten();
        assert_eq!(got.as_ref().map(AsRef::as_ref), Some(frame));
    }
    let partial = b"{\"jsonrpc\":\"2.0\",\"method\":\"partial";
    check(&mut LineFramer::new(1024), partial, b"{}\n", b"{}");
    let events = [&b"data: "[..], partial].concat();
    check(
        &mut rpcwire::SseFramer::new(1024),
        &events,
        b"data: {}\n\n",
        b"{}",
    );
    check(
        &mut rpcwire::ContentLengthFramer::new(1024),
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8",
        b"Content-Length: 2\r\n\r\n{}",
        b"{}",
    );
    // The chunk reader too.
    let mut framer = LineFramer::new(1024);
    let mut old = BytesMut::from(&partial[..]);
    assert_eq!(framer.decode_chunk(&mut old).unwrap(), None);
    let mut new = BytesMut::from(&b"{}\n"[..]);
    assert_eq!(
        framer.decode_chunk(&mut new).unwrap().unwrap(),
        &b"{}\n"[..]
    );
}

/// A decoder's framers share its frame limit: a frame of exactly the limit goes through the
/// framer and decodes; one byte more is refused by the framer, not handed to the decoder to be
/// refused there.
#[test]
fn a_decoders_framers_share_its_frame_limit() {
    use rpcwire::{DecodeOptions, Decoder, Message};
    let padding = |n: usize| " ".repeat(n);
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut options = DecodeOptions::default();
    options.limits.max_frame = ping.len() + 8;
    let decoder = Decoder::new(options);
    let at_limit = format!("{}{ping}\n", padding(8));
    let frame = decoder
        .line_framer()
        .decode(&mut BytesMut::from(at_limit.as_bytes()))
        .unwrap()
        .unwrap();
    assert!(matches!(decoder.decode(&frame), Ok(Message::Request(_))));
    let over = format!("{}{ping}\n", padding(9));
    assert!(matches!(
        decoder
            .line_framer()
            .decode(&mut BytesMut::from(over.as_bytes())),
        Err(FrameError::TooLong { .. })
    ));
    let event = format!("data: {}{ping}\n\n", padding(8));
    let event = decoder
        .sse_framer()
        .decode(&mut BytesMut::from(event.as_bytes()))
        .unwrap()
        .unwrap();
    assert!(decoder.decode(&event.data).is_ok());
    let body = format!("{}{ping}", padding(8));
    let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    let frame = decoder
        .content_length_framer()
        .decode(&mut BytesMut::from(framed.as_bytes()))
        .unwrap()
        .unwrap();
    assert!(decoder.decode(&frame).is_ok());
}

/// An over-long frame's error carries the limit its framer was given, not the default, and
/// its text names it: from `decode`, `decode_eof`, `decode_chunk`, `Lines` and an SSE framer.
#[test]
fn a_too_long_error_names_the_framers_limit() {
    use rpcwire::SseFramer;
    let want = FrameError::TooLong {
        offset: 0,
        limit: 8,
    };
    let mut buf = BytesMut::from(&b"0123456789\n"[..]);
    assert_eq!(LineFramer::new(8).decode(&mut buf), Err(want));
    let mut buf = BytesMut::from(&b"0123456789"[..]);
    assert_eq!(LineFramer::new(8).decode_eof(&mut buf), Err(want));
    let mut buf = BytesMut::from(&b"0123456789"[..]);
    assert_eq!(LineFramer::new(8).decode_chunk(&mut buf), Err(want));
    assert_eq!(Lines::new(b"0123456789\n", 8).next(), Some(Err(want)));
    let mut buf = BytesMut::from(&b"data: 0123456789\n\n"[..]);
    assert_eq!(SseFramer::new(8).decode(&mut buf), Err(want));
    assert_eq!(
        want.to_string(),
        "frame starting at byte 0 exceeds the frame limit of 8 bytes"
    );
}
