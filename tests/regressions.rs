//! Named regression tests for bugs found by the differential tests and the fuzzers. Each one
//! also has its frame under `fuzz/regressions/`, replayed through the fuzz target bodies by
//! `tests/fuzz_corpus.rs`.

use rpcwire::{DecodeError, Decoder, Member, ReplyId, Role};

/// A duplicated `id` behind an earlier duplicated member (`jsonrpc` here) was not seen as
/// ambiguous: the -32600 reply echoed the last `id`. It must carry the unreadable-id form.
#[test]
fn duplicate_id_after_another_duplicate_is_not_echoed() {
    let frame = br#"{"jsonrpc":"2.0","id":1,"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    for (decoder, unreadable) in [
        (Decoder::jsonrpc(), ReplyId::Null),
        (Decoder::mcp(), ReplyId::Absent),
    ] {
        let rej = decoder.decode(frame).unwrap_err();
        assert_eq!(rej.error(), DecodeError::DuplicateMember(Member::JsonRpc));
        assert_eq!(rej.id(), None);
        assert_eq!(rej.reply().unwrap().id, unreadable);
    }
}

/// A duplicated `resultType` in an MCP result was read as absent (= "complete") and the
/// response accepted, although a last-wins parser behind the proxy sees the other value.
#[test]
fn duplicate_result_type_is_rejected() {
    let mut opts = rpcwire::DecodeOptions::new(rpcwire::Dialect::Mcp);
    opts.role = Role::Client;
    let decoder = Decoder::new(opts);
    for frame in [
        &br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","resultType":"bogus"}}"#[..],
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","result\u0054ype":"complete"}}"#,
    ] {
        let rej = decoder.decode(frame).unwrap_err();
        assert_eq!(rej.error(), DecodeError::BadResultType);
        assert!(rej.is_response() && rej.reply().is_none());
    }
    // A single one is still read.
    let ok = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#;
    assert!(decoder.decode(ok).is_ok());
}

/// In MCP, a batch is left unanswered only when every element is a response. An element with a
/// duplicated `method` was counted as a response (`get` reads a duplicate as absent), so a
/// batch holding a request went unanswered; one with a duplicated `result` was not counted.
#[test]
fn mcp_batch_response_detection_counts_duplicates_as_present() {
    let dec = Decoder::mcp();
    let with_request = br#"[{"jsonrpc":"2.0","method":"a","method":"b","result":1}]"#;
    let rej = dec.decode(with_request).unwrap_err();
    assert_eq!(rej.error(), DecodeError::BatchNotAllowed);
    assert!(rej.reply().is_some());
    let responses = br#"[{"jsonrpc":"2.0","id":1,"result":{},"result":{}}]"#;
    let rej = dec.decode(responses).unwrap_err();
    assert!(rej.is_response() && rej.reply().is_none());
}

/// An over-long line was discarded together with everything after it in the same read: the
/// newline search was capped at the frame limit, and the whole buffer was dropped. A valid
/// frame that arrived in the same read as the end of an over-long line vanished unreported.
/// Found by the `framing_chunks` fuzz body on its seed corpus (a captured session framed with
/// a 41-byte limit).
#[test]
fn overlong_line_does_not_swallow_the_frames_after_it() {
    use bytes::BytesMut;
    use rpcwire::{FrameError, LineFramer};
    let mut f = LineFramer::new(4);
    let mut buf = BytesMut::from(&b"aaaaaaaaaa\n{}\nbbbbbbbbbb\n[]\n"[..]);
    assert_eq!(
        f.decode(&mut buf),
        Err(FrameError::TooLong {
            offset: 0,
            limit: 4
        })
    );
    assert_eq!(f.decode(&mut buf).unwrap().as_deref(), Some(&b"{}"[..]));
    assert_eq!(
        f.decode(&mut buf),
        Err(FrameError::TooLong {
            offset: 14,
            limit: 4
        })
    );
    assert_eq!(f.decode(&mut buf).unwrap().as_deref(), Some(&b"[]"[..]));
    assert_eq!(f.decode(&mut buf), Ok(None));

    // The end of the over-long line arrives in a later read, with a frame behind it.
    let mut f = LineFramer::new(4);
    let mut buf = BytesMut::from(&b"aaaaaaa"[..]);
    assert_eq!(
        f.decode(&mut buf),
        Err(FrameError::TooLong {
            offset: 0,
            limit: 4
        })
    );
    assert_eq!(f.decode(&mut buf), Ok(None));
    buf.extend_from_slice(b"aaaaaaaaaaaa\n{}\n");
    assert_eq!(f.decode(&mut buf).unwrap().as_deref(), Some(&b"{}"[..]));
    assert_eq!(f.consumed(), 23);
}

/// Found by the `sse_chunks` fuzz target on its first run after over-long comment and
/// unknown-field lines became skipped lines: a skipped line cut across reads left the
/// discarding mode's "inside a line" flag set, so the blank line ending a later over-long
/// event was not seen and the event after it was discarded too (one-shot framing kept it).
#[test]
fn sse_skipped_line_across_reads_does_not_hide_a_later_blank_line() {
    use bytes::BytesMut;
    use rpcwire::{FrameError, SseFramer};
    let mut f = SseFramer::new(1);
    let mut buf = BytesMut::from(&b"x-pad: 0123"[..]);
    assert_eq!(f.decode(&mut buf), Ok(None));
    buf.extend_from_slice(b"456789\ndata: 12\n\ndata:x\n\n");
    assert_eq!(
        f.decode(&mut buf),
        Err(FrameError::TooLong {
            offset: 0,
            limit: 1
        })
    );
    let event = f
        .decode(&mut buf)
        .unwrap()
        .expect("the event after the over-long one");
    assert_eq!(&event.data[..], b"x");
}

/// Found by the `sse_chunks` fuzz target: an event of no fields ended by a CRLF split across
/// two reads was reported one byte later than in one-shot framing (its offset was taken after
/// the CR was consumed). Offsets of such events now point at their blank line either way.
#[test]
fn sse_empty_event_offset_does_not_depend_on_where_a_crlf_is_split() {
    use bytes::BytesMut;
    let offsets = |chunks: &[&[u8]]| {
        let mut f = rpcwire::SseFramer::new(64).yield_empty_events(true);
        let mut buf = BytesMut::new();
        let mut out = vec![];
        for c in chunks {
            buf.extend_from_slice(c);
            while let Some(_e) = f.decode(&mut buf).unwrap() {
                out.push(f.last_offset());
            }
        }
        while let Some(_e) = f.decode_eof(&mut buf).unwrap() {
            out.push(f.last_offset());
        }
        out
    };
    let one_shot = offsets(&[b"\r\r\n\r"]);
    assert_eq!(one_shot, [0, 1, 3]);
    assert_eq!(offsets(&[b"\r\r", b"\n\r"]), one_shot);
}

/// JSON-RPC 2.0 accepts a request whose id is `null` (discouraged, but allowed), and its
/// success response must carry the same id (§5) — the decoder refused that response as "a
/// success response with a null id". Found by the `decode` target, whose body answers every
/// request it decodes. MCP refuses both (ids are never null outside error responses).
#[test]
fn a_null_id_request_can_be_answered_in_jsonrpc() {
    let request = br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#;
    let response = br#"{"jsonrpc":"2.0","id":null,"result":{}}"#;
    let mut client = rpcwire::DecodeOptions::new(rpcwire::Dialect::JsonRpc2);
    client.role = Role::Client;
    let request_seen = Decoder::jsonrpc().decode(request).unwrap();
    assert!(request_seen.id().unwrap().is_null());
    let answer = Decoder::new(client).decode(response).unwrap();
    assert_eq!(answer.kind(), rpcwire::Kind::Response);
    assert!(answer.id().unwrap().is_null());

    let mut mcp_client = rpcwire::DecodeOptions::new(rpcwire::Dialect::Mcp);
    mcp_client.role = Role::Client;
    assert_eq!(
        Decoder::mcp().decode(request).unwrap_err().error(),
        DecodeError::NullId
    );
    assert_eq!(
        Decoder::new(mcp_client)
            .decode(response)
            .unwrap_err()
            .error(),
        DecodeError::NullId
    );
}
