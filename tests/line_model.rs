//! Every entry point of newline framing against a model written apart from the crate (split
//! on `\n`, drop one `\r` before it, skip blank lines, report a line over the limit at its
//! start): `LineFramer::decode` called a few times per read (not drained, so complete lines
//! wait in the buffer while more bytes arrive), `decode` and `decode_chunk` taking turns on one
//! framer (and on one framer reading two streams in turn), `Framer::frames`,
//! `Decoder::decode_lines`, `Lines::next_decoded` (on long lines too, with the lines' limit and
//! the decoder's each below, at or above the other) and `LineCodec` through a `FramedRead`; and
//! the SSE and `Content-Length` codecs through a `FramedRead` give the same items in any reads.

mod common;

use common::pieces;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::{DecodeOptions, Decoder, Dialect, FrameError, Framer, LineFramer, Lines, Role};

/// A frame with its stream offset, or the stream offset of an over-long line.
type Item = Result<(u64, Vec<u8>), u64>;

/// The model: every line of `input` (the last one without its `\n`), without its `\n` and one
/// `\r` before it; a line over `max` bytes so cut is an error at its start, whatever it holds;
/// a line of JSON whitespace alone is skipped unless `blank`.
fn model(input: &[u8], max: usize, blank: bool) -> Vec<Item> {
    let mut out = vec![];
    let mut start = 0;
    for line in input.split(|&b| b == b'\n') {
        let end = start + line.len();
        if end == input.len() && line.is_empty() {
            break;
        }
        let frame = line.strip_suffix(b"\r").unwrap_or(line);
        if frame.len() > max {
            out.push(Err(start as u64));
        } else if blank || !frame.iter().all(|b| b" \t\r\n".contains(b)) {
            out.push(Ok((start as u64, frame.to_vec())));
        }
        start = end + 1;
    }
    out
}

/// A framer's answer as an [`Item`] (its offset the framer's `last_offset`); `None` when it
/// needs more bytes.
fn item_of(framed: Result<Option<bytes::Bytes>, FrameError>, framer: &LineFramer) -> Option<Item> {
    match framed {
        Ok(frame) => frame.map(|f| Ok((framer.last_offset(), f.to_vec()))),
        Err(e) => {
            assert_eq!(e.offset(), framer.last_offset());
            Some(Err(e.offset()))
        }
    }
}

/// `decode` called at most `calls_per_read` times after each read, then `decode_eof` until
/// the end: the lines a read brings need not be taken before the next read.
fn by_unhurried_decode(
    chunks: &[&[u8]],
    max: usize,
    calls_per_read: usize,
    blank: bool,
) -> Vec<Item> {
    let mut framer = LineFramer::new(max).yield_blank_lines(blank);
    let mut buf = BytesMut::new();
    let mut out = vec![];
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        for _ in 0..calls_per_read {
            match item_of(framer.decode(&mut buf), &framer) {
                Some(item) => out.push(item),
                None => break,
            }
        }
    }
    while let Some(item) = item_of(framer.decode_eof(&mut buf), &framer) {
        out.push(item);
    }
    assert!(buf.is_empty());
    out
}

/// One framer read with `decode` and with `decode_chunk` (framed with `Lines`) in turns,
/// `by_chunk[k]` saying which the k-th call (modulo its length) is, every read drained.
fn by_decode_and_chunk(chunks: &[&[u8]], max: usize, by_chunk: &[bool]) -> Vec<Item> {
    by_decode_and_chunk_with(&mut LineFramer::new(max), chunks, max, by_chunk)
}

/// [`by_decode_and_chunk`] with `framer`, whose limit is `max`, read to the end of the
/// stream.
fn by_decode_and_chunk_with(
    framer: &mut LineFramer,
    chunks: &[&[u8]],
    max: usize,
    by_chunk: &[bool],
) -> Vec<Item> {
    let mut buf = BytesMut::new();
    let mut out = vec![];
    let mut calls = 0;
    // One call; `false` when the framer needs more bytes.
    let mut call = |framer: &mut LineFramer, buf: &mut BytesMut, eof: bool, out: &mut Vec<Item>| {
        calls += 1;
        if !by_chunk[calls % by_chunk.len()] {
            let framed = if eof {
                framer.decode_eof(buf)
            } else {
                framer.decode(buf)
            };
            return item_of(framed, framer).map(|item| out.push(item)).is_some();
        }
        let chunk = if eof {
            framer.decode_chunk_eof(buf)
        } else {
            framer.decode_chunk(buf)
        };
        match chunk {
            Ok(Some(chunk)) => {
                let base = framer.last_offset();
                out.extend(Lines::new(&chunk, max).map(|line| {
                    line.map(|(at, frame)| (base + at as u64, frame.to_vec()))
                        .map_err(|e| base + e.offset())
                }));
                true
            }
            Ok(None) => false,
            Err(e) => {
                out.push(Err(e.offset()));
                true
            }
        }
    };
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        while call(framer, &mut buf, false, &mut out) {}
    }
    while call(framer, &mut buf, true, &mut out) {}
    assert!(buf.is_empty());
    out
}

/// The frames (and over-long lines) of `Framer::frames`, read by read, each frame at the
/// offset the iterator gives (`Frames::last_offset`).
fn by_frames(chunks: &[&[u8]], max: usize) -> Vec<Item> {
    let mut framer = LineFramer::new(max);
    let mut buf = BytesMut::new();
    let mut out = vec![];
    for (i, chunk) in chunks.iter().enumerate() {
        buf.extend_from_slice(chunk);
        let eof = i + 1 == chunks.len();
        let mut frames = framer.frames(&mut buf, eof);
        while let Some(frame) = frames.next() {
            out.push(
                frame
                    .map(|f| (frames.last_offset(), f.to_vec()))
                    .map_err(|e| e.offset()),
            );
        }
    }
    out
}

/// A lazy MCP client's decoder whose frame limit is `max`.
fn decoder_limited_to(max: usize) -> Decoder {
    let mut options = DecodeOptions::new(Dialect::Mcp);
    options.role = Role::Client;
    options.limits.max_frame = max;
    Decoder::new(options)
}

/// The lines `lines.next_decoded(decoder)` gives, each decoded as `decoder.decode` decodes
/// its frame.
fn by_next_decoded(mut lines: Lines<'_>, decoder: &Decoder) -> Vec<Item> {
    let mut out = vec![];
    while let Some(line) = lines.next_decoded(decoder) {
        out.push(
            line.map(|line| {
                assert_eq!(line.message, decoder.decode(line.frame), "{line:?}");
                (line.offset as u64, line.frame.to_vec())
            })
            .map_err(|e| e.offset()),
        );
    }
    out
}

/// Bytes that make lines of every sort: messages, other JSON and bytes that are not,
/// characters that are not ASCII and bytes that are no UTF-8, blanks (and a form feed, which
/// is not JSON whitespace), CRs alone, before a `\n` and doubled.
fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
    let tokens = proptest::sample::select(vec![
        &br#"{"jsonrpc":"2.0","method":"m"}"#[..],
        b"{}",
        b"a",
        b"xxxxxxx",
        "\u{e9}".as_bytes(),
        b"\xff",
        b" ",
        b"\t",
        b"\x0c",
        b"\r",
        b"\n",
        b"\n",
        b"\r\n",
        b"\r\r\n",
    ]);
    proptest::collection::vec(tokens, 0..60).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(crate::common::cases(2000))]
    /// Any bytes in one read, one byte at a time and in random pieces, with limits around the
    /// lines' lengths (none among them): every entry point gives the model's items.
    #[test]
    fn every_entry_point_frames_as_the_model(
        input in line_bytes(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
        max in prop_oneof![0usize..12, 25usize..40, Just(usize::MAX)],
        calls_per_read in 0usize..3,
        by_chunk in proptest::collection::vec(any::<bool>(), 1..6),
    ) {
        let want = model(&input, max, false);
        let decoder = decoder_limited_to(max);
        let decode_lines: Vec<Item> = decoder
            .decode_lines(&input)
            .map(|line| {
                line.map(|line| (line.offset as u64, line.frame.to_vec()))
                    .map_err(|e| e.offset())
            })
            .collect();
        prop_assert_eq!(&decode_lines, &want, "decode_lines");
        prop_assert_eq!(&by_next_decoded(Lines::new(&input, max), &decoder), &want);
        // A decoder whose own limit is higher (the lines' limit applies to the lines).
        prop_assert_eq!(&by_next_decoded(Lines::new(&input, max), &Decoder::mcp()), &want);
        let with_blanks = model(&input, max, true);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        for chunks in [vec![&input[..]], bytes, pieces(&input, &cuts)] {
            prop_assert_eq!(
                &by_unhurried_decode(&chunks, max, calls_per_read, false), &want,
                "decode {:?}", chunks
            );
            prop_assert_eq!(
                &by_unhurried_decode(&chunks, max, calls_per_read, true), &with_blanks,
                "decode, blank lines yielded {:?}", chunks
            );
            prop_assert_eq!(
                &by_decode_and_chunk(&chunks, max, &by_chunk), &want,
                "decode and decode_chunk {:?}", chunks
            );
            prop_assert_eq!(&by_frames(&chunks, max), &want, "frames {:?}", chunks);
            #[cfg(feature = "tokio")]
            prop_assert_eq!(&codecs::by_line_codec(&chunks, max), &want, "LineCodec {:?}", chunks);
        }
    }
}

proptest! {
    #![proptest_config(crate::common::cases(1000))]
    /// A framer read to the end of one stream (`decode_eof` or `decode_chunk_eof` gave
    /// `Ok(None)`) reads the next as a new one, as those functions promise: its first line is
    /// whole, even after an over-long line the end cut short or a CR the end left alone, and
    /// its offsets go on from the first stream's length.
    #[test]
    fn a_framer_read_to_the_end_reads_the_next_stream_anew(
        first in line_bytes(),
        second in line_bytes(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
        max in prop_oneof![0usize..12, 25usize..40],
        by_chunk in proptest::collection::vec(any::<bool>(), 1..6),
    ) {
        let mut want = model(&first, max, false);
        want.extend(model(&second, max, false).into_iter().map(|item| {
            let shift = first.len() as u64;
            item.map(|(at, frame)| (at + shift, frame)).map_err(|at| at + shift)
        }));
        let mut framer = LineFramer::new(max);
        let mut got = by_decode_and_chunk_with(&mut framer, &pieces(&first, &cuts), max, &by_chunk);
        got.extend(by_decode_and_chunk_with(&mut framer, &pieces(&second, &cuts), max, &by_chunk));
        prop_assert_eq!(got, want);
    }
}

/// A response of `size` bytes, an object (a line long enough is decoded as its end is found).
fn long_object(size: usize) -> Vec<u8> {
    let head = r#"{"jsonrpc":"2.0","id":7,"result":{"t":""#;
    let tail = r#""}}"#;
    let pad = "a".repeat(size - head.len() - tail.len());
    [head, &pad, tail].concat().into_bytes()
}

proptest! {
    #![proptest_config(crate::common::cases(300))]
    /// Objects of about 4 KiB (around the size from which a line is decoded in the pass that
    /// finds its end), each after blanks and followed by blanks, CRs, line ends or bytes that
    /// leave the line no message, under a decoder limit and a lines limit around their
    /// sizes: `next_decoded` gives the model's lines, each decoded as `decode` decodes it.
    #[test]
    fn long_lines_are_framed_as_the_model(
        lines in proptest::collection::vec(
            (
                4085usize..4110,
                proptest::collection::vec(
                    proptest::sample::select(vec![&b" "[..], b"\t", b"\r", b"\n", b"\r\n", b"x", b"{"]),
                    0..4,
                ),
            ),
            1..4,
        ),
        lead in proptest::collection::vec(proptest::sample::select(vec![&b" "[..], b"\t", b"\r"]), 0..3),
        decoder_max in 4080usize..4115,
        lines_max in prop_oneof![4080usize..4115, Just(usize::MAX)],
    ) {
        let mut input = vec![];
        for (size, tail) in &lines {
            input.extend(lead.concat());
            input.extend(long_object(*size));
            input.extend(tail.concat());
        }
        let decoder = decoder_limited_to(decoder_max);
        prop_assert_eq!(
            by_next_decoded(Lines::new(&input, lines_max), &decoder),
            model(&input, lines_max, false)
        );
    }
}

/// The tokio codecs through a `FramedRead`.
#[cfg(feature = "tokio")]
mod codecs {
    use proptest::prelude::*;
    use rpcwire::Decoder;
    use rpcwire::codec::{ContentLengthCodec, Incoming, LineCodec, SseCodec};

    use super::common::{content_length_stream_bytes, io_error, read_framed, sse_stream_bytes};
    use super::{Item, pieces};

    /// The items of a `LineCodec` of limit `max` as [`Item`]s: a message's or a rejected
    /// frame's bytes at the framer's `last_offset`, an over-long line's offset.
    pub fn by_line_codec(chunks: &[&[u8]], max: usize) -> Vec<Item> {
        let codec = LineCodec::new(Decoder::mcp(), max);
        let item = |codec: &LineCodec, item: std::io::Result<Incoming>| match item.unwrap() {
            Incoming::Message(m) => Ok((codec.framer().last_offset(), m.frame().to_vec())),
            Incoming::Rejected(r) => Ok((codec.framer().last_offset(), r.frame().to_vec())),
            Incoming::TooLong { offset, .. } => Err(offset),
            other => panic!("{other:?}"),
        };
        read_framed(codec, chunks, item).0
    }

    proptest! {
        #![proptest_config(crate::common::cases(1000))]
        /// The SSE and `Content-Length` codecs, as the line codec: any stream in one read,
        /// one byte at a time and in random pieces gives the same items (or error) at the
        /// same offsets, and for SSE the same state at the end.
        #[test]
        fn sse_and_content_length_codecs_in_any_reads(
            content_length in content_length_stream_bytes(),
            sse in sse_stream_bytes(),
            cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
            max in prop_oneof![0usize..16, 28usize..34],
        ) {
            let read_content_length = |chunks: &[&[u8]]| {
                let codec = ContentLengthCodec::new(Decoder::mcp(), max);
                read_framed(codec, chunks, |codec, item| {
                    (item.map_err(|e| io_error(&e)), codec.framer().last_offset())
                })
                .0
            };
            let want = read_content_length(&[&content_length]);
            let bytes: Vec<&[u8]> = content_length.chunks(1).collect();
            for chunks in [bytes, pieces(&content_length, &cuts)] {
                prop_assert_eq!(&read_content_length(&chunks), &want, "{:?}", chunks);
            }
            let read_sse = |chunks: &[&[u8]]| {
                let codec = SseCodec::new(Decoder::mcp_client(), max);
                let (items, codec) = read_framed(codec, chunks, |codec, item| {
                    (item.map_err(|e| io_error(&e)), codec.framer().last_offset())
                });
                let id = codec.last_event_id().map(<[u8]>::to_vec);
                (items, codec.ended_inside_event(), id, codec.reconnection_time())
            };
            let want = read_sse(&[&sse]);
            let bytes: Vec<&[u8]> = sse.chunks(1).collect();
            for chunks in [bytes, pieces(&sse, &cuts)] {
                prop_assert_eq!(&read_sse(&chunks), &want, "{:?}", chunks);
            }
        }
    }
}
