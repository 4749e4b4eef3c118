//! Hostile-input review of the framers and codecs: arbitrary bytes in arbitrary reads.

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::{FrameError, LineFramer, Lines};

/// `input` cut at the given places, in order.
fn pieces<'a>(input: &'a [u8], cuts: &[proptest::sample::Index]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
    cuts.sort_unstable();
    let mut chunks = vec![];
    let mut from = 0;
    for cut in cuts.into_iter().chain([input.len()]) {
        chunks.push(&input[from..cut]);
        from = cut;
    }
    chunks
}

type Framed = Vec<Result<(u64, Vec<u8>), FrameError>>;

/// Frames `chunks` with `LineFramer::decode`, each frame with its `last_offset`.
fn by_decode(chunks: &[&[u8]], max: usize) -> Framed {
    let mut framer = LineFramer::new(max);
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
    #![proptest_config(ProptestConfig::with_cases(2000))]
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
        }
    }
}

/// Tests of the tokio codecs.
#[cfg(feature = "tokio")]
mod codecs {
    use bytes::BytesMut;
    use rpcwire::codec::{SseCodec, SsePayload};
    use rpcwire::Decoder;
    use tokio_util::codec::Decoder as _;

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
