//! The framers and codecs on hostile input: arbitrary bytes in arbitrary reads give the same
//! items at the same offsets as one read.

mod common;

use common::pieces;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::{FrameError, LineFramer, Lines};

/// Frames and errors with their stream offsets.
type Framed = Vec<Result<(u64, Vec<u8>), FrameError>>;

/// Frames `chunks` with `LineFramer::decode`, each frame with its `last_offset`.
fn by_decode(chunks: &[&[u8]], max: usize) -> Framed {
    by_decode_with(chunks, LineFramer::new(max))
}

/// Frames `chunks` with `framer`'s `decode`, each frame with its `last_offset`.
fn by_decode_with(chunks: &[&[u8]], mut framer: LineFramer) -> Framed {
    let max = framer.max_frame();
    let mut buf = BytesMut::new();
    let mut out = vec![];
    for (i, chunk) in chunks.iter().enumerate() {
        buf.extend_from_slice(chunk);
        let eof = i + 1 == chunks.len();
        loop {
            let r = if eof {
                framer.decode_eof(&mut buf)
            } else {
                framer.decode(&mut buf)
            };
            match r {
                Ok(Some(f)) => out.push(Ok((framer.last_offset(), f.to_vec()))),
                Ok(None) => break,
                Err(e) => {
                    assert_eq!(e.offset(), framer.last_offset());
                    out.push(Err(e))
                }
            }
        }
        assert!(buf.len() <= max.saturating_add(2), "buffered {}", buf.len());
    }
    assert!(buf.is_empty());
    out
}

/// Frames `chunks` with `LineFramer::decode_chunk` and `Lines` over each chunk.
fn by_chunk(chunks: &[&[u8]], max: usize) -> Framed {
    let mut framer = LineFramer::new(max);
    let mut buf = BytesMut::new();
    let mut out = vec![];
    for (i, chunk) in chunks.iter().enumerate() {
        buf.extend_from_slice(chunk);
        let eof = i + 1 == chunks.len();
        loop {
            let r = if eof {
                framer.decode_chunk_eof(&mut buf)
            } else {
                framer.decode_chunk(&mut buf)
            };
            match r {
                Ok(Some(c)) => {
                    let base = framer.last_offset();
                    for item in Lines::new(&c, max) {
                        out.push(
                            item.map(|(at, f)| (base + at as u64, f.to_vec()))
                                .map_err(|e| FrameError::TooLong {
                                    offset: base + e.offset(),
                                    limit: max,
                                }),
                        );
                    }
                }
                Ok(None) => break,
                Err(e) => out.push(Err(e)),
            }
        }
    }
    out
}

fn by_slice(input: &[u8], max: usize) -> Framed {
    Lines::new(input, max)
        .map(|r| r.map(|(at, f)| (at as u64, f.to_vec())))
        .collect()
}

/// Every line of `input` (its `\n` and one `\r` before it cut off; the last one, when
/// not empty, without its `\n`), blank lines included, and over-long ones as errors.
fn every_line(input: &[u8], max: usize) -> Framed {
    let mut out = vec![];
    let mut start = 0;
    while start < input.len() {
        let end = input[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(input.len(), |nl| start + nl);
        let line = &input[start..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        out.push(if line.len() > max {
            Err(FrameError::TooLong {
                offset: start as u64,
                limit: max,
            })
        } else {
            Ok((start as u64, line.to_vec()))
        });
        start = end + 1;
    }
    out
}

fn line_stream() -> impl Strategy<Value = Vec<u8>> {
    let tokens = proptest::sample::select(vec![
        &b"a"[..],
        b"{}",
        b" ",
        b"\t",
        b"\r",
        b"\n",
        b"\r\n",
        b"xxxxxxx",
    ]);
    proptest::collection::vec(tokens, 0..40).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(crate::common::cases(2000))]
    #[test]
    fn line_framer_any_bytes_any_reads(
        input in line_stream(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..6),
        max in 0usize..10,
    ) {
        let want = by_slice(&input, max);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        for chunks in [vec![&input[..]], bytes, pieces(&input, &cuts)] {
            prop_assert_eq!(&by_decode(&chunks, max), &want, "decode {:?}", chunks);
            prop_assert_eq!(&by_chunk(&chunks, max), &want, "chunk {:?}", chunks);
            let every = LineFramer::new(max).yield_blank_lines(true);
            prop_assert_eq!(by_decode_with(&chunks, every), every_line(&input, max), "blank {:?}", chunks);
        }
    }
}

/// Tests of the tokio codecs.
#[cfg(feature = "tokio")]
mod codecs {
    use bytes::BytesMut;
    use rpcwire::Decoder;
    use rpcwire::codec::{SseCodec, SsePayload};
    use tokio_util::codec::Decoder as _;

    use super::common::{assert_any_split, read_framed, show_incoming};

    /// Over-long lines (unterminated at the end, and exactly at the limit plus a CR or one
    /// byte over it) among good and bad ones, through a `FramedRead`: each is one item, the
    /// stream goes on, and the items are the same in any reads.
    #[test]
    fn line_codec_over_long_lines_in_any_reads() {
        let ping = &br#"{"jsonrpc":"2.0","method":"ping"}"#[..];
        let max = ping.len();
        let over = vec![b'x'; max + 1];
        let twice = [&over[..], &over[..]].concat();
        let spaces = vec![b' '; 3 * max];
        // A line at the limit with its CR kept is one byte over.
        let with_cr = [ping, b"\r"].concat();
        let lines: [(&[u8], &[u8]); 8] = [
            (ping, b"\r\n"),
            (&over, b"\n\n"),
            (&with_cr, b"\r\n"),
            (b"not json", b"\n"),
            (&spaces, b"\n"),
            (&twice, b"\r\n"),
            (ping, b"\n"),
            (&over, b""),
        ];
        let mut stream = vec![];
        let mut at = vec![];
        for (line, end) in lines {
            at.push(stream.len());
            stream.extend_from_slice(line);
            stream.extend_from_slice(end);
        }
        let read = |chunks: &[&[u8]]| {
            let codec = rpcwire::codec::LineCodec::new(Decoder::mcp(), max);
            read_framed(codec, chunks, |_, item| show_incoming(&item.unwrap())).0
        };
        let notification = format!("notification {}", String::from_utf8_lossy(ping));
        let too_long = |i: usize| format!("too long at {} (-32700)", at[i]);
        let expected = [
            notification.clone(),
            too_long(1),
            too_long(2),
            "rejected Some(-32700)".into(),
            too_long(4),
            too_long(5),
            notification,
            too_long(7),
        ];
        assert_any_split(&stream, &expected, read);
    }

    /// A body received whole and read with `decode_eof` alone (what `FramedRead` calls at the
    /// end, and what a caller with the whole body in hand calls): the events come out, and
    /// the codec says the body ended inside an event only when it did.
    #[test]
    fn sse_codec_decode_eof_on_a_whole_body() {
        let event = &b"data: {\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n\n"[..];
        for (tail, inside) in [
            (&b""[..], false),
            (b": bye\n", false),
            (b"data: {\"jsonrpc\"", true),
            (b"id: 2\ndata: {}\n", true),
        ] {
            let mut codec = SseCodec::new(Decoder::mcp_client(), 1024);
            let mut body = BytesMut::from(&[event, tail].concat()[..]);
            let mut items = vec![];
            while let Some(item) = codec.decode_eof(&mut body).unwrap() {
                items.push(item);
            }
            assert_eq!(items.len(), 1, "{tail:?}");
            assert!(matches!(items[0].payload, SsePayload::Message(_)));
            assert_eq!(codec.ended_inside_event(), inside, "{tail:?}");
        }
    }
}

/// What `sse_read` gives.
type SseRead = (
    Vec<Result<(u64, rpcwire::SseEvent), FrameError>>,
    Option<Vec<u8>>,
    Option<u64>,
    u64,
);

/// Every event (and error) an `SseFramer` hands out for `chunks`, with its `last_offset`,
/// then the framer's last event id, reconnection time and `consumed`.
fn sse_read(framer: &mut rpcwire::SseFramer, chunks: &[&[u8]]) -> SseRead {
    let mut buf = BytesMut::new();
    let mut out = vec![];
    let mut push = |framer: &rpcwire::SseFramer, r: Result<rpcwire::SseEvent, FrameError>| {
        if let Err(e) = &r {
            assert_eq!(e.offset(), framer.last_offset());
        }
        out.push(r.map(|e| (framer.last_offset(), e)));
    };
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        loop {
            match framer.decode(&mut buf) {
                Ok(None) => break,
                r => push(framer, r.map(Option::unwrap)),
            }
        }
    }
    loop {
        match framer.decode_eof(&mut buf) {
            Ok(None) => break,
            r => push(framer, r.map(Option::unwrap)),
        }
    }
    assert!(buf.is_empty());
    (
        out,
        framer.last_event_id().map(<[u8]>::to_vec),
        framer.reconnection_time(),
        framer.consumed(),
    )
}

/// The stream offsets where an event may start: the start of every line that follows a
/// blank line (or starts the stream, after a byte order mark), as WHATWG splits lines.
fn sse_event_starts(input: &[u8]) -> Vec<u64> {
    let bom = if input.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let mut starts = vec![];
    let mut line_start = bom;
    let mut event_start = None;
    let mut i = bom;
    while i < input.len() {
        if matches!(input[i], b'\r' | b'\n') {
            let blank = i == line_start;
            event_start.get_or_insert(line_start);
            if input[i..].starts_with(b"\r\n") {
                i += 1;
            }
            if blank {
                starts.push(event_start.take().unwrap() as u64);
            }
            line_start = i + 1;
        } else {
            event_start.get_or_insert(line_start);
        }
        i += 1;
    }
    starts.extend(event_start.map(|s| s as u64));
    starts.push(input.len() as u64);
    starts
}

proptest! {
    #![proptest_config(crate::common::cases(3000))]
    /// Any stream in one read, one byte at a time and in random pieces, with or without the
    /// empty events: the same events, at the same offsets (each where an event starts).
    #[test]
    fn sse_framer_any_reads_same_events_and_offsets(
        input in common::sse_stream_bytes(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..6),
        limit in 0usize..24,
        empty in any::<bool>(),
    ) {
        let make = || rpcwire::SseFramer::new(limit).yield_empty_events(empty);
        let want = sse_read(&mut make(), &[&input]);
        let starts = sse_event_starts(&input);
        for item in &want.0 {
            let offset = match item {
                Ok((offset, _)) => *offset,
                Err(e) => e.offset(),
            };
            prop_assert!(starts.contains(&offset), "offset {} not in {:?} of {:?}", offset, starts, String::from_utf8_lossy(&input));
        }
        prop_assert_eq!(want.3, input.len() as u64);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        for chunks in [bytes, pieces(&input, &cuts)] {
            prop_assert_eq!(&sse_read(&mut make(), &chunks), &want, "{:?}", chunks);
            // Through the `Framer` trait: the events that carry a message (all, with the
            // empty ones), at the same offsets.
            let mut framer = make();
            let mut buf = BytesMut::new();
            let mut frames = vec![];
            for (i, chunk) in chunks.iter().enumerate() {
                buf.extend_from_slice(chunk);
                let eof = i + 1 == chunks.len();
                while let Some(r) = rpcwire::Framer::next_frame(&mut framer, &mut buf, eof).transpose() {
                    frames.push(r.map(|e| (rpcwire::Framer::last_offset(&framer), e)));
                }
            }
            let messages: Vec<_> = want
                .0
                .iter()
                .filter(|r| empty || r.as_ref().map_or(true, |(_, e)| e.carries_message()))
                .cloned()
                .collect();
            prop_assert_eq!(frames, messages, "trait {:?}", chunks);
        }
    }
}

/// What `cl_read` gives.
type ClRead = (
    Vec<Result<(u64, Vec<u8>), rpcwire::ContentLengthError>>,
    u64,
    bool,
);

/// Every body (and error) a `ContentLengthFramer` hands out for `chunks`, each with its
/// `last_offset`, then `consumed` and `is_failed`.
fn cl_read(framer: &mut rpcwire::ContentLengthFramer, chunks: &[&[u8]]) -> ClRead {
    let mut buf = BytesMut::new();
    let mut out = vec![];
    let mut push = |framer: &rpcwire::ContentLengthFramer, r: Result<bytes::Bytes, _>| {
        if let Err(e) = &r {
            let e: &rpcwire::ContentLengthError = e;
            assert_eq!(e.offset(), framer.last_offset());
        }
        out.push(r.map(|b| (framer.last_offset(), b.to_vec())));
    };
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        loop {
            match framer.decode(&mut buf) {
                Ok(None) => break,
                r => push(framer, r.map(Option::unwrap)),
            }
        }
        // A failed framer discards what comes (a working one may hold a partial message).
        assert!(buf.len() <= 64 + 16 || !framer.is_failed());
    }
    loop {
        match framer.decode_eof(&mut buf) {
            Ok(None) => break,
            r => push(framer, r.map(Option::unwrap)),
        }
    }
    assert!(buf.is_empty());
    (out, framer.consumed(), framer.is_failed())
}

proptest! {
    #![proptest_config(crate::common::cases(3000))]
    /// Any stream in one read, one byte at a time and in random pieces: the same bodies and
    /// errors at the same offsets.
    #[test]
    fn content_length_framer_any_reads_same_frames_and_offsets(
        input in common::content_length_stream_bytes(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..6),
        max_frame in 0usize..16,
        max_bytes in 0usize..64,
        max_headers in 0usize..4,
    ) {
        let make = || rpcwire::ContentLengthFramer::new(max_frame)
            .max_header_bytes(max_bytes)
            .max_headers(max_headers);
        let want = cl_read(&mut make(), &[&input]);
        prop_assert_eq!(want.1, input.len() as u64);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        for chunks in [bytes, pieces(&input, &cuts)] {
            prop_assert_eq!(&cl_read(&mut make(), &chunks), &want, "{:?}", chunks);
        }
    }
}

proptest! {
    #![proptest_config(crate::common::cases(1000))]
    /// A body whose `Content-Type` names another charset (or none that can be read), of any
    /// bytes, between two messages: in one read, one byte at a time and in random pieces, it
    /// is reported once at its offset, skipped, and the message after it is read.
    #[test]
    fn content_length_body_in_another_charset_any_reads(
        body in proptest::collection::vec(any::<u8>(), 0..40),
        content_type in proptest::sample::select(vec![
            "a/b; charset=latin1",
            "application/json; charset=\"ISO-8859-1\"",
            "text/plain;CHARSET=utf-16",
            "a/b; charset=",
            "a/b; charset=\"utf-8",
        ]),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
    ) {
        let first = b"Content-Length: 2\r\n\r\n{}";
        let refused = [
            format!("Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n", body.len())
                .as_bytes(),
            &body,
        ]
        .concat();
        let input = [&first[..], &refused, b"Content-Length: 3\r\n\r\n[1]"].concat();
        let offset = first.len() as u64;
        let want: ClRead = (
            vec![
                Ok((0, b"{}".to_vec())),
                Err(rpcwire::ContentLengthError::UnsupportedCharset { offset }),
                Ok((offset + refused.len() as u64, b"[1]".to_vec())),
            ],
            input.len() as u64,
            false,
        );
        let make = || rpcwire::ContentLengthFramer::new(64);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        for chunks in [vec![&input[..]], bytes, pieces(&input, &cuts)] {
            prop_assert_eq!(&cl_read(&mut make(), &chunks), &want, "{:?}", chunks);
        }
    }
}
