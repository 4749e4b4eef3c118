//! The SSE event framer: the SSE vectors in both dialects, the WHATWG line rules, reads split
//! at every byte, zero-copy single-line data, and constant memory on an endless event.

mod common;

use bytes::{Bytes, BytesMut};
use common::{
    Outcome, assert_any_split, decoder_for, encoded_messages, frame_all, input, load, outcome,
    pieces, written_message,
};
use proptest::prelude::*;
use rpcwire::{
    Decoder, FrameError, Kind, SseEvent, SseFramer, SseWriteError, write_sse_comment,
    write_sse_event, write_sse_retry,
};
use serde_json::Value;

/// Every event (and error) of `chunks` read one after the other, from `SseFramer`'s own
/// `decode` and `decode_eof`, which hand out priming events (the `Framer` trait does not).
fn sse_all(framer: &mut SseFramer, chunks: &[&[u8]]) -> Vec<Result<SseEvent, FrameError>> {
    let mut buf = BytesMut::new();
    let mut out = vec![];
    for chunk in chunks {
        buf.extend_from_slice(chunk);
        while let Some(event) = framer.decode(&mut buf).transpose() {
            out.push(event);
        }
    }
    while let Some(event) = framer.decode_eof(&mut buf).transpose() {
        out.push(event);
    }
    assert!(buf.is_empty());
    out
}

fn events(input: &[u8]) -> Vec<Result<SseEvent, FrameError>> {
    sse_all(&mut SseFramer::new(1 << 20), &[input])
}

fn data_of(input: &[u8]) -> Vec<Vec<u8>> {
    events(input)
        .into_iter()
        .map(|e| e.unwrap().data.to_vec())
        .collect()
}

/// K04, K07, K08: every `framing: sse` vector, in both dialects.
#[test]
fn sse_vectors_both_dialects() {
    let mut ran = 0;
    for case in load("envelope.jsonl")
        .iter()
        .filter(|c| c["framing"] == "sse")
    {
        let name = case["name"].as_str().unwrap();
        for dialect in ["jsonrpc2", "mcp"] {
            let decoder = decoder_for(dialect, case["dir"].as_str().unwrap());
            let mut framer = SseFramer::new(1 << 20).yield_empty_events(true);
            let got: Vec<Outcome> = sse_all(&mut framer, &[&input(case)])
                .into_iter()
                .map(|item| match item {
                    Ok(e) if e.data.is_empty() => Outcome::of_class("skip"),
                    Ok(e) => outcome(&decoder, &e.data),
                    Err(_) => Outcome::of_class("framing_error"),
                })
                .collect();
            let msgs = case[dialect]["msgs"].as_array().unwrap();
            assert_eq!(got.len(), msgs.len(), "{name}/{dialect}: {got:?}");
            for (g, m) in got.iter().zip(msgs) {
                assert_eq!(g.class, m["c"].as_str().unwrap(), "{name}/{dialect}");
                if let Some(id) = m["id"].as_str() {
                    assert_eq!(g.id.as_deref(), Some(id), "{name}/{dialect}");
                }
                match m.get("r") {
                    Some(Value::Null) => assert_eq!(g.reply, None, "{name}/{dialect}"),
                    Some(Value::Array(r)) => {
                        let (code, id) = g.reply.clone().unwrap();
                        assert_eq!(code, r[0].as_i64().unwrap(), "{name}/{dialect}");
                        let alts: Vec<&str> = r[1..]
                            .iter()
                            .filter_map(Value::as_str)
                            .chain(m["id_alt"].as_str())
                            .collect();
                        assert!(alts.contains(&id.as_str()), "{name}/{dialect}: {id}");
                    }
                    _ => {}
                }
            }
            ran += 1;
        }
    }
    assert_eq!(ran, 6, "K04, K07, K08 in two dialects");
}

#[test]
fn sse_k08_id_with_nul_is_ignored() {
    let case = load("envelope.jsonl")
        .into_iter()
        .find(|c| c["name"].as_str().unwrap().starts_with("K08"))
        .unwrap();
    let got = events(&input(&case));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].as_ref().unwrap().id, None);
}

#[test]
fn sse_line_ends_lf_crlf_cr() {
    let expected = vec![b"a".to_vec(), b"b\nc".to_vec()];
    assert_eq!(data_of(b"data: a\n\ndata: b\ndata: c\n\n"), expected);
    assert_eq!(
        data_of(b"data: a\r\n\r\ndata: b\r\ndata: c\r\n\r\n"),
        expected
    );
    assert_eq!(data_of(b"data: a\r\rdata: b\rdata: c\r\r"), expected);
    assert_eq!(data_of(b"data: a\r\n\rdata: b\ndata: c\r\r\n"), expected);
    // A CRLF cut between two reads after its CR (a blank line's too) is one line end, not a CR
    // and then a blank line (which a framer yielding empty events would hand out as an event).
    for chunks in [
        &[&b"data: a\r"[..], b"\n\r\ndata: b\r\ndata: c\r\n\r\n"][..],
        &[b"data: a\r\n\r", b"\ndata: b\r\ndata: c\r\n\r", b"\n"],
    ] {
        let mut framer = SseFramer::new(1 << 20).yield_empty_events(true);
        let got: Vec<Vec<u8>> = sse_all(&mut framer, chunks)
            .into_iter()
            .map(|e| e.unwrap().data.to_vec())
            .collect();
        assert_eq!(got, expected, "{chunks:?}");
    }
}

#[test]
fn sse_field_rules() {
    // One leading space is removed, not two; no colon: the whole line is the field name.
    assert_eq!(data_of(b"data:  x\n\n"), vec![b" x".to_vec()]);
    assert_eq!(data_of(b"data:x\n\n"), vec![b"x".to_vec()]);
    // Only a U+0020 SPACE: a tab (or any other blank) after the colon is part of the value.
    assert_eq!(data_of(b"data:\tx\n\n"), vec![b"\tx".to_vec()]);
    assert_eq!(data_of(b"data: \tx\n\n"), vec![b"\tx".to_vec()]);
    assert_eq!(data_of(b"data:\x0cx\n\n"), vec![b"\x0cx".to_vec()]);
    assert_eq!(data_of(b"data\ndata\n\n"), vec![b"\n".to_vec()]);
    // Comments and unknown fields are ignored; field names are case-sensitive.
    assert_eq!(
        data_of(b": hi\nfoo: bar\nDATA: no\ndata: yes\n\n"),
        vec![b"yes".to_vec()]
    );
    // A blank line with no data dispatches nothing.
    assert!(events(b"\n\n: only a comment\n\nevent: x\n\ndata:\n\n").is_empty());
    let e = events(b"event: notice\nid: 7\nretry: 1500\ndata: {}\n\n");
    let e = e[0].as_ref().unwrap();
    assert_eq!(e.event.as_deref(), Some(&b"notice"[..]));
    assert_eq!(e.id.as_deref(), Some(&b"7"[..]));
    assert_eq!(e.retry, Some(1500));
    // retry must be digits only; the last valid id wins; an id with NUL is ignored.
    let e = events(b"retry: 15s\nretry:\nid: 1\nid: 2\nid: 3\0\ndata: x\n\n");
    let e = e[0].as_ref().unwrap();
    assert_eq!(e.retry, None);
    assert_eq!(e.id.as_deref(), Some(&b"2"[..]));
}

/// WHATWG: an event type applies to an event with a `data:` line, even an empty one (the
/// data buffer is then "\n", not empty); an empty `event:` field means the default type,
/// `message` (`None`).
#[test]
fn sse_event_type_rules() {
    let mut framer = SseFramer::new(1 << 20).yield_empty_events(true);
    let got = sse_all(&mut framer, &[b"event: ping\ndata:\n\nevent: ping\n\n"]);
    assert_eq!(got.len(), 2, "{got:?}");
    let with_data = got[0].as_ref().unwrap();
    assert_eq!(
        (&with_data.data[..], with_data.event.as_deref()),
        (&b""[..], Some(&b"ping"[..]))
    );
    // No data line: nothing would be dispatched, and the type is reset.
    assert_eq!(got[1].as_ref().unwrap().event, None);
    // Reset for the events that follow, too: the type of a block without data (skipped, or
    // handed out for its id) does not carry over to the next event, in one read or two.
    let input = b"event: ping\n\ndata: a\n\nevent: ping\nid: 1\n\ndata: b\n\n";
    for at in 0..=input.len() {
        let (a, b) = input.split_at(at);
        let got = sse_all(&mut SseFramer::new(1 << 20), &[a, b]);
        let got: Vec<_> = got
            .into_iter()
            .map(|e| e.unwrap())
            .map(|e| (e.data.to_vec(), e.event))
            .collect();
        assert_eq!(
            got,
            [(b"a".to_vec(), None), (vec![], None), (b"b".to_vec(), None)],
            "split at {at}"
        );
    }
    let got = events(b"event:\ndata: x\n\nevent: \ndata: y\n\n");
    assert_eq!(got.len(), 2, "{got:?}");
    for e in got {
        assert_eq!(e.unwrap().event, None);
    }
}

/// WHATWG sets the reconnection time when a `retry` field is read, not when its event is
/// dispatched: a `retry` left pending at end of stream (what a server sends before closing,
/// so the client knows when to reconnect) or read in an event found over-long later still
/// comes.
#[test]
fn sse_retry_is_not_lost_at_eof_or_in_an_over_long_event() {
    let got = events(b"data: {}\n\nretry: 3000\n");
    assert_eq!(got.len(), 2, "{got:?}");
    let retry = got[1].as_ref().unwrap();
    assert_eq!((retry.retry, retry.data.is_empty()), (Some(3000), true));
    // Split at every byte, the same.
    let input = b"data: {}\n\nretry: 3000\ndata: lost";
    for at in 0..=input.len() {
        let (a, b) = input.split_at(at);
        let got = sse_all(&mut SseFramer::new(1 << 20), &[a, b]);
        let retries: Vec<_> = got.iter().map(|e| e.as_ref().unwrap().retry).collect();
        assert_eq!(retries, vec![None, Some(3000)], "split at {at}");
    }
    // An event made over-long by its data after a retry: the retry comes with the next event.
    let mut framer = SseFramer::new(8);
    let got = sse_all(
        &mut framer,
        &[b"retry: 5\ndata: far too long for eight\n\ndata: ok\n\n"],
    );
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(matches!(got[0], Err(FrameError::TooLong { offset: 0, .. })));
    let next = got[1].as_ref().unwrap();
    assert_eq!((&next.data[..], next.retry), (&b"ok"[..], Some(5)));
    // Nothing pending, nothing more at end of stream.
    assert_eq!(events(b"retry: 7\ndata: x\n\n").len(), 1);
}

/// Nor is a `retry` read after its event was found over-long: WHATWG applies it as the line
/// is read (only the event's data, type and id go with the event), so the reconnection time
/// takes it and the next event carries it, however the reads are cut. The over-long line
/// (here longer than the limit, or data joined past it) is not read as a field.
#[test]
fn sse_retry_after_the_limit_in_an_over_long_event() {
    let inputs: [&[u8]; 2] = [
        b"data: far too long for eight\nretry: 5000\n\ndata: ok\n\n",
        b"data: 12345\ndata: 12345\nretry: 5000\nid: 9\n\ndata: ok\n\n",
    ];
    for input in inputs {
        for at in 0..=input.len() {
            let (a, b) = input.split_at(at);
            let mut framer = SseFramer::new(8);
            let got = sse_all(&mut framer, &[a, b]);
            assert_eq!(got.len(), 2, "split at {at}: {got:?}");
            assert!(matches!(got[0], Err(FrameError::TooLong { offset: 0, .. })));
            let next = got[1].as_ref().unwrap();
            assert_eq!(
                (&next.data[..], next.retry),
                (&b"ok"[..], Some(5000)),
                "split at {at}"
            );
            assert_eq!(framer.reconnection_time(), Some(5000));
        }
    }
}

/// WHATWG sets the last event ID buffer when an `id` line is read, and the last event ID
/// string from it at the event's blank line, whatever the event's data: an over-long event
/// that a reader without a limit would dispatch sets the last event id too, from an `id`
/// line before or after the limit was crossed (the last one wins). An `id` line over the
/// limit is not read (nor is any line over it), an `id` with a NUL is ignored, and an event
/// the stream's end cuts off sets nothing, as for any event.
#[test]
fn an_over_long_event_sets_the_last_event_id() {
    let long_id = format!(
        "id: {}
",
        "9".repeat(40)
    );
    let cases: [(&[u8], Option<&[u8]>); 7] = [
        (
            b"id: 4
data: far too long for eight

",
            Some(b"4"),
        ),
        (
            b"data: far too long for eight
id: 5

",
            Some(b"5"),
        ),
        (
            b"id: 4
data: 12345
data: 12345
id: 6

",
            Some(b"6"),
        ),
        (
            b"id: 4
data: far too long for eight
id

",
            Some(b""),
        ),
        (
            b"id: 4
data: far too long for eight
id: 7\0

",
            Some(b"4"),
        ),
        (
            [
                &b"id: 4
data: far too long for eight
"[..],
                long_id.as_bytes(),
                b"
",
            ]
            .concat()
            .leak(),
            Some(b"4"),
        ),
        (
            b"id: 4
data: far too long for eight
",
            Some(b"1"),
        ),
    ];
    for (over_long, want) in cases {
        let input = [
            &b"id: 1
data: a

"[..],
            over_long,
        ]
        .concat();
        for at in 0..=input.len() {
            let (a, b) = input.split_at(at);
            let mut framer = SseFramer::new(8);
            let got = sse_all(&mut framer, &[a, b]);
            assert_eq!(
                got.len(),
                2,
                "{} split at {at}: {got:?}",
                over_long.escape_ascii()
            );
            assert!(matches!(
                got[1],
                Err(FrameError::TooLong { offset: 15, .. })
            ));
            assert_eq!(
                framer.last_event_id(),
                want,
                "{} split at {at}",
                over_long.escape_ascii()
            );
            // The next event without an id keeps it (WHATWG's buffer would give it again).
            sse_all(
                &mut framer,
                &[b"data: b

"],
            );
            assert_eq!(framer.last_event_id(), want);
        }
    }
}

/// WHATWG ignores comment lines and unknown fields: one longer than the limit is skipped,
/// without buffering it, and does not make its event over-long.
#[test]
fn sse_long_comments_and_unknown_fields_are_skipped() {
    let pad = "p".repeat(200);
    for line in [
        format!(":{pad}"),
        format!(": {pad}"),
        format!("x-padding: {pad}"),
        format!("data{pad}"),
        pad.clone(),
    ] {
        let input = format!("{line}\ndata: {{}}\n\n{line}\r\n\ndata: []\n{line}\rid: 9\n\n");
        let whole = sse_all(&mut SseFramer::new(64), &[input.as_bytes()]);
        let got: Vec<_> = whole.iter().map(|e| e.as_ref().unwrap()).collect();
        assert_eq!(got.len(), 2, "{line:.12}: {whole:?}");
        assert_eq!(&got[0].data[..], b"{}");
        assert_eq!(
            (&got[1].data[..], got[1].id.as_deref()),
            (&b"[]"[..], Some(&b"9"[..]))
        );
        // Read in small pieces, the framer never holds more than a line's worth.
        let mut framer = SseFramer::new(64);
        let mut buf = BytesMut::new();
        let mut pieces = vec![];
        for chunk in input.as_bytes().chunks(7) {
            buf.extend_from_slice(chunk);
            while let Some(e) = framer.decode(&mut buf).unwrap() {
                pieces.push(e);
            }
            assert!(buf.len() <= 64 + 8 + 1 + 7, "{}", buf.len());
        }
        while let Some(e) = framer.decode_eof(&mut buf).unwrap() {
            pieces.push(e);
        }
        assert_eq!(
            pieces,
            got.into_iter().cloned().collect::<Vec<_>>(),
            "{line:.12}"
        );
    }
    // A kept field over the limit still makes its event over-long.
    let long_id = format!("id: {}\ndata: {{}}\n\ndata: 1\n\n", "9".repeat(200));
    let got = sse_all(&mut SseFramer::new(64), &[long_id.as_bytes()]);
    assert!(
        matches!(got[0], Err(FrameError::TooLong { offset: 0, .. })),
        "{got:?}"
    );
    assert_eq!(&got[1].as_ref().unwrap().data[..], b"1");
}

/// Once a comment or an unknown field is known to be over the limit (skipped), the rest of it
/// is dropped as it comes: each short read of it leaves the read buffer empty, the offsets
/// count every byte, and the event after it comes out whole. No test fed the rest of a
/// skipped line in reads shorter than the limit, which the framer could keep in the buffer
/// until its end or a line's worth of it came.
#[test]
fn the_rest_of_a_skipped_line_is_dropped_as_it_comes() {
    for head in [": ", "x-padding: "] {
        let mut framer = SseFramer::new(64);
        let mut buf = BytesMut::from(format!("{head}{}", "p".repeat(200)).as_bytes());
        let mut fed = buf.len();
        assert_eq!(framer.decode(&mut buf).unwrap(), None);
        assert!(buf.is_empty(), "{head}: {} bytes kept", buf.len());
        for _ in 0..8 {
            buf.extend_from_slice(b"pppp");
            fed += 4;
            assert_eq!(framer.decode(&mut buf).unwrap(), None);
            assert!(buf.is_empty(), "{head}: {} bytes kept", buf.len());
            assert_eq!(framer.consumed(), fed as u64);
        }
        buf.extend_from_slice(b"\ndata: {}\n\n");
        let event = framer.decode(&mut buf).unwrap().unwrap();
        assert_eq!(&event.data[..], b"{}");
        assert!(buf.is_empty());
    }
}

#[test]
fn sse_priming_event_reports_its_id() {
    let got = events(b"id: prime-1\ndata:\n\nid: 2\ndata: {}\n\n");
    assert_eq!(got.len(), 2);
    let prime = got[0].as_ref().unwrap();
    assert_eq!(prime.id.as_deref(), Some(&b"prime-1"[..]));
    assert!(prime.data.is_empty());
    assert_eq!(&got[1].as_ref().unwrap().data[..], b"{}");
    // A retry-only event is reported too; an empty id (a reset) is reported as Some("").
    let got = events(b"retry: 10\n\nid\n\n");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].as_ref().unwrap().retry, Some(10));
    assert_eq!(got[1].as_ref().unwrap().id.as_deref(), Some(&b""[..]));
}

#[test]
fn sse_unterminated_event_is_dropped_at_eof() {
    assert!(events(b"data: {}").is_empty());
    assert!(events(b"data: {}\n").is_empty());
    assert!(events(b"data: {}\r").is_empty());
    assert_eq!(data_of(b"data: a\n\ndata: b\n"), vec![b"a".to_vec()]);
}

#[test]
fn sse_leading_bom_is_stripped() {
    assert_eq!(data_of(b"\xEF\xBB\xBFdata: a\n\n"), vec![b"a".to_vec()]);
    // Only at the very start of the stream.
    assert_eq!(
        data_of(b"data: a\n\n\xEF\xBB\xBFdata: b\n\n"),
        vec![b"a".to_vec()]
    );
    // Once: a second one is the start of the first line's field name (no field WHATWG
    // knows), however the reads are cut.
    let twice = b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\ndata: b\n\n";
    for at in 0..=twice.len() {
        let (a, b) = twice.split_at(at);
        let got: Vec<Vec<u8>> = sse_all(&mut SseFramer::new(1 << 20), &[a, b])
            .into_iter()
            .map(|e| e.unwrap().data.to_vec())
            .collect();
        assert_eq!(got, [b"b".to_vec()], "split at {at}");
    }
    // Nor at the start of a later read.
    let got: Vec<Vec<u8>> = sse_all(
        &mut SseFramer::new(1 << 20),
        &[b"data: a\n\n", b"\xEF\xBB\xBFdata: b\n\n"],
    )
    .into_iter()
    .map(|e| e.unwrap().data.to_vec())
    .collect();
    assert_eq!(got, [b"a".to_vec()]);
}

#[test]
fn sse_single_line_data_is_zero_copy() {
    let mut framer = SseFramer::new(1 << 20);
    let mut buf =
        BytesMut::from(&b"id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\n"[..]);
    let range = buf.as_ptr() as usize..buf.as_ptr() as usize + buf.len();
    let e = framer.decode(&mut buf).unwrap().unwrap();
    assert!(
        range.contains(&(e.data.as_ptr() as usize)),
        "data was copied"
    );
    assert!(range.contains(&(e.id.as_ref().unwrap().as_ptr() as usize)));
    assert_eq!(
        Decoder::mcp().decode(&e.data).unwrap().kind(),
        Kind::Notification
    );
}

/// A stream of several events (every line-end form, comments, ids, multi-line data, an
/// over-long event) gives the same items fed in one read, one byte at a time, and split in
/// two at every position.
#[test]
fn sse_reads_split_at_every_byte() {
    let long = "x".repeat(100);
    let stream = format!(
        "\u{feff}: hello\r\nid: 1\r\ndata: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{}}}}\r\n\r\n\
         event: message\rdata: {{\"a\":\rdata: 1}}\r\r\
         id: p\ndata:\n\n\
         data: {long}\ndata: {long}\n\n\
         data: {long}{long}{long}\n\n\
         retry: 5\ndata: [1,\ndata:  2]\n\n\
         data: last\r\n\r"
    );
    let stream = stream.as_bytes();
    let make = || SseFramer::new(150);
    let whole = sse_all(&mut make(), &[stream]);
    let kinds: Vec<String> = whole
        .iter()
        .map(|e| match e {
            Ok(e) => String::from_utf8_lossy(&e.data).into_owned(),
            Err(e) => format!("{e:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".to_string(),
            "{\"a\":\n1}".into(),
            "".into(),
            "TooLong { offset: 115, limit: 150 }".into(),
            "TooLong { offset: 330, limit: 150 }".into(),
            "[1,\n 2]".into(),
            "last".into(),
        ]
    );
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(sse_all(&mut make(), &bytes), whole, "1-byte reads");
    for at in 0..=stream.len() {
        let (a, b) = stream.split_at(at);
        assert_eq!(sse_all(&mut make(), &[a, b]), whole, "split at {at}");
    }
}

/// An event that never ends (one endless data line, then endless data lines) is reported
/// once and discarded in constant memory, and the stream goes on after its blank line.
#[test]
fn sse_endless_event_constant_memory() {
    const LIMIT: usize = 1 << 20;
    const CHUNK: usize = 64 << 10;
    // The endless single line is 1 GiB in every build. The endless run of short data lines
    // costs a line's handling per 56 bytes: 256 MiB of it in debug builds (1 GiB would take
    // ~20 s there), 1 GiB in release.
    const LINES_TOTAL: usize = if cfg!(debug_assertions) {
        256 << 20
    } else {
        1 << 30
    };
    for (first, line, total) in [
        (&b"data: "[..], &[b'x'; CHUNK][..], 1 << 30),
        (
            &b""[..],
            &b"data: 0123456789abcdef0123456789abcdef0123456789abcdef\r\n".repeat(CHUNK / 56)[..],
            LINES_TOTAL,
        ),
    ] {
        let mut framer = SseFramer::new(LIMIT);
        let mut buf = BytesMut::new();
        let mut errors = 0;
        let mut fed = 0;
        buf.extend_from_slice(first);
        while fed < total {
            buf.extend_from_slice(line);
            fed += line.len();
            loop {
                match framer.decode(&mut buf) {
                    Ok(None) => break,
                    Ok(Some(e)) => panic!("unexpected event {e:?}"),
                    Err(FrameError::TooLong { offset, .. }) => {
                        assert_eq!(offset, 0);
                        errors += 1
                    }
                    Err(e) => panic!("{e:?}"),
                }
            }
            // What the framer keeps in the buffer is bounded by the limit plus one read;
            // the capacity by twice that (BytesMut grows by doubling).
            assert!(buf.len() <= LIMIT + 8 + CHUNK, "held {}", buf.len());
            assert!(
                buf.capacity() <= 2 * (LIMIT + 8 + CHUNK),
                "cap {}",
                buf.capacity()
            );
        }
        assert_eq!(errors, 1, "reported once");
        buf.extend_from_slice(b"\n\ndata: after\n\n");
        let e = framer.decode(&mut buf).unwrap().unwrap();
        assert_eq!(e.data, Bytes::from_static(b"after"));
    }
}

#[test]
fn sse_data_at_the_limit() {
    let mut framer = SseFramer::new(4);
    let got = sse_all(
        &mut framer,
        &[b"data: abcd\n\ndata: abcde\n\ndata: ab\ndata: c\n\ndata: ab\ndata: cd\n\ndata: ok\n\n"],
    );
    let data: Vec<_> = got
        .iter()
        .map(|e| e.as_ref().map(|e| e.data.to_vec()).map_err(|_| ()))
        .collect();
    assert_eq!(
        data,
        vec![
            Ok(b"abcd".to_vec()),
            Err(()),
            Ok(b"ab\nc".to_vec()),
            Err(()),
            Ok(b"ok".to_vec())
        ]
    );
}

/// Through the `Framer` trait, whose frames are messages, a priming event (an id and no data)
/// is skipped: generic code that decodes every frame would otherwise take it for a frame that
/// is not JSON. `SseFramer::decode` hands it out for its id; `yield_empty_events` brings it
/// back through the trait too.
#[test]
fn the_framer_trait_skips_priming_events() {
    let stream = &b"id: 0\ndata:\n\nretry: 5\n\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n"[..];
    let through_trait = common::frame_all(&mut SseFramer::new(1024), &[stream]);
    let ids: Vec<_> = through_trait
        .iter()
        .map(|e| e.as_ref().unwrap().id.clone())
        .collect();
    assert_eq!(ids, [Some(Bytes::from_static(b"1"))]);
    assert!(
        Decoder::mcp()
            .decode(&through_trait[0].as_ref().unwrap().data)
            .is_ok()
    );
    assert_eq!(sse_all(&mut SseFramer::new(1024), &[stream]).len(), 3);
    let all = SseFramer::new(1024).yield_empty_events(true);
    assert_eq!(common::frame_all(&mut all.clone(), &[stream]).len(), 3);
}

/// Through the `Framer` trait, an event of a type other than `message` is skipped too: its data
/// is no message (the 2024-11-05 transport's `endpoint` event holds a URL, which generic code
/// would otherwise decode as a frame that is not JSON). An `event: message` is a message, and
/// `yield_empty_events` brings every event back.
#[test]
fn the_framer_trait_skips_events_of_other_types() {
    let stream = &b"event: endpoint\ndata: /messages?session=42\n\n\
        event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n\n\
        event: custom\nid: 9\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n"[..];
    let mut framer = SseFramer::new(1024);
    let through_trait = common::frame_all(&mut framer, &[stream]);
    let data: Vec<_> = through_trait
        .iter()
        .map(|e| e.as_ref().unwrap().data.clone())
        .collect();
    assert_eq!(
        data,
        [Bytes::from_static(
            b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}"
        )]
    );
    assert_eq!(rpcwire::Framer::last_offset(&framer), 44);
    // What a skipped event said is kept.
    assert_eq!(framer.last_event_id(), Some(&b"9"[..]));
    assert_eq!(sse_all(&mut SseFramer::new(1024), &[stream]).len(), 3);
    let all = SseFramer::new(1024).yield_empty_events(true);
    assert_eq!(common::frame_all(&mut all.clone(), &[stream]).len(), 3);
}

/// `last_event_id` follows WHATWG's last event ID string: set by every event ended by a blank
/// line that has an `id` (a priming event too, though the `Framer` trait skips it), kept by
/// events without one, reset by an empty `id`, set by an event dropped as over-long (which
/// WHATWG, without a limit, dispatches), and not set by an event the stream's end cuts off.
#[test]
fn last_event_id_is_what_a_client_resumes_from() {
    let mut framer = SseFramer::new(16);
    let mut buf = BytesMut::new();
    let mut seen = vec![];
    let mut read = |framer: &mut SseFramer, bytes: &[u8], eof: bool| {
        buf.extend_from_slice(bytes);
        let n = rpcwire::Framer::frames(framer, &mut buf, eof).count();
        seen.push((n, framer.last_event_id().map(<[u8]>::to_vec)));
    };
    read(&mut framer, b"id: p\ndata:\n\n", false);
    read(&mut framer, b"data: 1\n\n", false);
    read(&mut framer, b"id: 2\ndata: 2\n\nid\ndata: 3\n\n", false);
    read(
        &mut framer,
        b"id: 4\ndata: far too long for sixteen\n\n",
        false,
    );
    read(&mut framer, b"id: 5\ndata: 5\n", true);
    assert_eq!(
        seen,
        [
            (0, Some(b"p".to_vec())),
            (1, Some(b"p".to_vec())),
            (2, Some(b"".to_vec())),
            (1, Some(b"4".to_vec())),
            (0, Some(b"4".to_vec())),
        ]
    );
}

/// One framer reads a client's streams one after the other (a reconnection with
/// `Last-Event-ID`): each may start with a byte order mark, skipped; an event cut off by the
/// end of a stream does not leak into the next, nor does its id; the last event id and the
/// reconnection time carry over to the next stream until it sets its own.
#[test]
fn a_framer_reads_the_next_stream_after_the_end_of_one() {
    let mut framer = SseFramer::new(1 << 10);
    let first = sse_all(
        &mut framer,
        &[b"\xEF\xBB\xBFretry: 500\nid: 1\ndata: a\n\nid: 2\ndata: cut"],
    );
    let data = |events: &[Result<SseEvent, FrameError>]| -> Vec<Vec<u8>> {
        events
            .iter()
            .map(|e| e.as_ref().unwrap().data.to_vec())
            .collect()
    };
    assert_eq!(data(&first), [b"a".to_vec()]);
    // (The cut event's id never came: it is not where the client resumes from.)
    assert_eq!(framer.last_event_id(), Some(&b"1"[..]));
    let second = sse_all(&mut framer, &[b"\xEF\xBB\xBF", b"data: b\n\n"]);
    assert_eq!(data(&second), [b"b".to_vec()]);
    assert_eq!(framer.last_event_id(), Some(&b"1"[..]));
    assert_eq!(framer.reconnection_time(), Some(500));
    let third = sse_all(&mut framer, &[b"\xEF\xBB\xBFid: 3\ndata: c\n\n"]);
    assert_eq!(data(&third), [b"c".to_vec()]);
    assert_eq!(framer.last_event_id(), Some(&b"3"[..]));
}

/// Through the `Framer` trait, a skipped event (no data) leaves `last_offset` on the last
/// event handed out, and its `retry` is kept as the reconnection time (WHATWG sets it as the
/// line is read), as a retry-only event before the stream closes says when to reconnect.
#[test]
fn skipped_events_keep_the_offset_and_the_retry() {
    use rpcwire::Framer;
    let mut framer = SseFramer::new(1024);
    let mut buf = BytesMut::from(&b"data: {}\n\n"[..]);
    assert!(Framer::decode(&mut framer, &mut buf).unwrap().is_some());
    assert_eq!(Framer::last_offset(&framer), 0);
    buf.extend_from_slice(b"id: 7\n\nretry: 3000\n\n");
    assert!(Framer::decode(&mut framer, &mut buf).unwrap().is_none());
    assert_eq!(Framer::last_offset(&framer), 0);
    assert_eq!(framer.reconnection_time(), Some(3000));
    assert_eq!(framer.last_event_id(), Some(&b"7"[..]));
    buf.extend_from_slice(b"retry: x\ndata: 1\n\n");
    assert!(Framer::decode(&mut framer, &mut buf).unwrap().is_some());
    assert_eq!(Framer::last_offset(&framer), 30);
    assert_eq!(
        framer.reconnection_time(),
        Some(3000),
        "a retry that is not digits is ignored"
    );
    buf.extend_from_slice(b"retry: 10\n");
    assert!(Framer::decode_eof(&mut framer, &mut buf).unwrap().is_none());
    assert_eq!(framer.reconnection_time(), Some(10));
}

/// What a reader gets back from an event written with `message`: the written message (see
/// `written_message`) with every line break, `\r\n`, `\r` or `\n`, made `\n`.
fn read_back(message: &[u8]) -> Vec<u8> {
    let message = written_message(message);
    let mut out = Vec::with_capacity(message.len());
    let mut i = 0;
    while i < message.len() {
        if message[i] == b'\r' {
            out.push(b'\n');
            if message.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
        } else {
            out.push(message[i]);
        }
        i += 1;
    }
    out
}

fn event(data: &[u8], id: Option<&str>, event: Option<&str>) -> SseEvent {
    SseEvent {
        data: Bytes::copy_from_slice(data),
        id: id.map(|id| Bytes::copy_from_slice(id.as_bytes())),
        event: event.map(|e| Bytes::copy_from_slice(e.as_bytes())),
        retry: None,
    }
}

/// Every line the `encode` writers write, passed with its `\n`, without it and with `\r\n`
/// instead, under assorted ids and event types, comes back from the framer as the line
/// without its end, with its id and type: in one read, one byte at a time and split in two
/// at every position.
#[test]
fn sse_writer_round_trips_every_encode_shape() {
    let ids = [None, Some(""), Some("7"), Some(" spaced id "), Some("é/ü")];
    let types = [None, Some("message"), Some("custom type")];
    let mut stream = BytesMut::new();
    let mut expected = vec![];
    // (5 and 3 are coprime: every id goes with every type.)
    for (n, (message, body)) in encoded_messages().iter().enumerate() {
        let (id, kind) = (ids[n % ids.len()], types[n % types.len()]);
        write_sse_event(&mut stream, message, id, kind).unwrap();
        expected.push(Ok(event(body, id, kind)));
    }
    assert_any_split(&stream, &expected, |chunks| {
        sse_all(&mut SseFramer::new(1 << 10), chunks)
    });
    // Through the `Framer` trait: the messages (not the events of another type), and the id a
    // client resumes from.
    let mut framer = SseFramer::new(1 << 10);
    let frames = frame_all(&mut framer, &[&stream]);
    let data: Vec<Bytes> = frames.into_iter().map(|f| f.unwrap().data).collect();
    let want: Vec<Bytes> = expected
        .iter()
        .map(|e| e.clone().unwrap())
        .filter(|e| e.event.as_deref() != Some(&b"custom type"[..]))
        .map(|e| e.data)
        .collect();
    assert_eq!(data, want);
    let last_id = expected.iter().rev().find_map(|e| e.clone().unwrap().id);
    assert_eq!(framer.last_event_id(), last_id.as_deref());
}

/// Each line break in a message starts another `data:` line; one line end at the very end is
/// dropped, nothing else; and the framer reads the message back with its line breaks made
/// `\n`, split in two at every position.
#[test]
fn sse_writer_line_breaks_become_data_lines() {
    let cases: [(&[u8], &[u8]); 17] = [
        (b"{}", b"data: {}\n\n"),
        (b"a\nb", b"data: a\ndata: b\n\n"),
        (b"a\rb", b"data: a\ndata: b\n\n"),
        (b"a\r\nb", b"data: a\ndata: b\n\n"),
        (b"a\n\rb", b"data: a\ndata:\ndata: b\n\n"),
        (b"a\r\r\nb", b"data: a\ndata:\ndata: b\n\n"),
        (b"\na", b"data:\ndata: a\n\n"),
        (b"\r\na", b"data:\ndata: a\n\n"),
        (b"a\n", b"data: a\n\n"),
        (b"a\r\n", b"data: a\n\n"),
        (b"a\r", b"data: a\ndata:\n\n"),
        (b"a\n\n", b"data: a\ndata:\n\n"),
        (b"a\r\n\r\n", b"data: a\ndata:\n\n"),
        (b"\n", b"data:\n\n"),
        (b" a\n  b", b"data:  a\ndata:   b\n\n"),
        (
            b":x\ndata: y\nid: z",
            b"data: :x\ndata: data: y\ndata: id: z\n\n",
        ),
        (
            b"\0\xff\n\xEF\xBB\xBF",
            b"data: \0\xff\ndata: \xEF\xBB\xBF\n\n",
        ),
    ];
    for (message, wire) in cases {
        let mut out = BytesMut::new();
        write_sse_event(&mut out, message, None, None).unwrap();
        assert_eq!(&out[..], wire, "{:?}", message.escape_ascii().to_string());
        let want = [Ok(event(&read_back(message), None, None))];
        assert_any_split(&out, &want, |chunks| {
            sse_all(&mut SseFramer::new(64).yield_empty_events(true), chunks)
        });
    }
}

/// The usual event (an id, a type, one data line) is written into the room reserved for it
/// up front, from the lengths of its fields: into an empty buffer, without growing the buffer
/// again (a second growth at least doubles it) and without reserving a multiple of a field.
#[test]
fn sse_writer_reserves_a_one_line_event_once() {
    for message in [b"{}".to_vec(), vec![b'x'; 100]] {
        let mut out = BytesMut::new();
        write_sse_event(&mut out, &message, Some("7"), Some("message")).unwrap();
        let wire = [&b"id: 7\nevent: message\ndata: "[..], &message, b"\n\n"].concat();
        assert_eq!(&out[..], wire);
        assert!(
            out.capacity() < wire.len() + wire.len() / 2,
            "{} bytes of capacity for an event of {}",
            out.capacity(),
            wire.len()
        );
    }
}

/// An id or event type that a field cannot carry is an error, and nothing is written; a NUL
/// in an event type is fine.
#[test]
fn sse_writer_rejects_bad_ids_and_event_types() {
    let mut out = BytesMut::from(&b"data: before\n\n"[..]);
    for bad in ["a\nb", "\r", "x\r\n", "\n", "nul\0", "\0"] {
        let got = write_sse_event(&mut out, b"{}", Some(bad), None);
        assert_eq!(got, Err(SseWriteError::InvalidId), "{bad:?}");
        let got = write_sse_event(&mut out, b"{}", Some(bad), Some("bad\n"));
        assert_eq!(got, Err(SseWriteError::InvalidId), "{bad:?}");
    }
    for bad in ["a\nb", "\r", "x\r\n", "\n"] {
        let got = write_sse_event(&mut out, b"{}", Some("1"), Some(bad));
        assert_eq!(got, Err(SseWriteError::InvalidEventType), "{bad:?}");
    }
    assert_eq!(&out[..], b"data: before\n\n");
    write_sse_event(&mut out, b"{}", Some("1"), Some("a\0b")).unwrap();
    assert_eq!(
        data_of(&out),
        vec![b"before".to_vec(), b"{}".to_vec()],
        "{out:?}"
    );
    assert_eq!(events(&out)[1], Ok(event(b"{}", Some("1"), Some("a\0b"))));
    let error: &dyn std::error::Error = &SseWriteError::InvalidId;
    assert_eq!(
        error.to_string(),
        "an SSE event id cannot hold a line break or NUL"
    );
    assert_eq!(
        SseWriteError::InvalidEventType.to_string(),
        "an SSE event type cannot hold a line break"
    );
}

/// A priming event (an id and an empty message), `retry` events and comments (keep-alives)
/// read back as a server means them: through the `Framer` trait only the message comes, and
/// the framer keeps the id and the reconnection time.
#[test]
fn sse_writer_priming_retry_and_keep_alives() {
    let mut out = BytesMut::new();
    write_sse_retry(&mut out, 2500);
    write_sse_event(&mut out, b"", Some("s-0"), None).unwrap();
    write_sse_comment(&mut out, "");
    write_sse_comment(&mut out, "keep\r\nalive\rnow\n");
    write_sse_event(&mut out, b"{}\n", Some("s-1"), None).unwrap();
    write_sse_comment(&mut out, "keep-alive");
    write_sse_event(&mut out, b"\n", None, None).unwrap();
    write_sse_retry(&mut out, u64::MAX);
    assert_eq!(
        &out[..],
        &b"retry: 2500\n\nid: s-0\ndata:\n\n:\n: keep\n: alive\n: now\n:\nid: s-1\ndata: {}\n\n\
           : keep-alive\ndata:\n\nretry: 18446744073709551615\n\n"[..]
    );
    let retry = |ms| SseEvent {
        retry: Some(ms),
        ..SseEvent::default()
    };
    assert_eq!(
        events(&out),
        vec![
            Ok(retry(2500)),
            Ok(event(b"", Some("s-0"), None)),
            Ok(event(b"{}", Some("s-1"), None)),
            Ok(retry(u64::MAX)),
        ]
    );
    let mut framer = SseFramer::new(1 << 10);
    let frames: Vec<_> = frame_all(&mut framer, &[&out]);
    assert_eq!(frames, vec![Ok(event(b"{}", Some("s-1"), None))]);
    assert_eq!(framer.last_event_id(), Some(&b"s-1"[..]));
    assert_eq!(framer.reconnection_time(), Some(u64::MAX));
}

proptest! {
    /// Any message bytes, id and event type: written between other lines, the event reads
    /// back as the message with its line breaks made `\n` (split in two anywhere), or the
    /// writer refuses the id or type and writes nothing.
    #[test]
    fn sse_writer_round_trips_any_message(
        message in proptest::collection::vec(
            prop_oneof![any::<u8>(), Just(b'\r'), Just(b'\n'), Just(b' ')],
            0..80,
        ),
        id in proptest::option::of("[a-z:\r\n\0 ]{0,6}"),
        kind in proptest::option::of("[a-z:\r\n\0 ]{0,6}"),
        at in any::<proptest::sample::Index>(),
    ) {
        let before = b": before\nretry: 1\n\n";
        let mut out = BytesMut::from(&before[..]);
        let written = write_sse_event(&mut out, &message, id.as_deref(), kind.as_deref());
        if id.as_deref().is_some_and(|id| id.contains(['\r', '\n', '\0'])) {
            prop_assert_eq!(written, Err(SseWriteError::InvalidId));
            prop_assert_eq!(&out[..], &before[..]);
            return Ok(());
        }
        if kind.as_deref().is_some_and(|kind| kind.contains(['\r', '\n'])) {
            prop_assert_eq!(written, Err(SseWriteError::InvalidEventType));
            prop_assert_eq!(&out[..], &before[..]);
            return Ok(());
        }
        prop_assert_eq!(written, Ok(()));
        write_sse_comment(&mut out, "after");
        let (a, b) = out.split_at(at.index(out.len() + 1));
        let mut framer = SseFramer::new(1 << 10).yield_empty_events(true);
        let got = sse_all(&mut framer, &[a, b]);
        let kind = kind.as_deref().filter(|kind| !kind.is_empty());
        let want = event(&read_back(&message), id.as_deref(), kind);
        prop_assert_eq!(got, vec![Ok(SseEvent { retry: Some(1), ..SseEvent::default() }), Ok(want)]);
    }
}

/// What a WHATWG event-stream reader makes of `input`, as the interpretation rules say
/// (no limits): the `(data, type)` of every dispatched message event, the last event ID
/// string, and the reconnection time. An event whose data is empty is left out, as
/// [`SseFramer`] leaves it out (not a message; `write_sse_event` documents it).
type Whatwg = (
    Vec<(Vec<u8>, Option<Vec<u8>>)>,
    Option<Vec<u8>>,
    Option<u64>,
);

/// The lines of an event stream, as WHATWG splits them: a BOM first is dropped, lines end
/// in CRLF, LF or CR; and the unterminated last line, which is never processed.
fn whatwg_lines(input: &[u8]) -> (Vec<Vec<u8>>, Vec<u8>) {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let mut lines = vec![];
    let mut line = vec![];
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'\r' | b'\n' => {
                if input[i..].starts_with(b"\r\n") {
                    i += 1;
                }
                lines.push(std::mem::take(&mut line));
            }
            b => line.push(b),
        }
        i += 1;
    }
    (lines, line)
}

fn whatwg(input: &[u8]) -> Whatwg {
    let (lines, _) = whatwg_lines(input);
    let (mut data, mut kind, mut id_buffer) = (vec![], vec![], None::<Vec<u8>>);
    let (mut events, mut last_id, mut retry) = (vec![], None, None);
    for line in lines {
        if line.is_empty() {
            last_id.clone_from(&id_buffer);
            if data.last() == Some(&b'\n') {
                data.pop();
            }
            if !data.is_empty() {
                events.push((std::mem::take(&mut data), Some(std::mem::take(&mut kind))));
            }
            (data, kind) = (vec![], vec![]);
            continue;
        }
        if line[0] == b':' {
            continue;
        }
        let colon = line.iter().position(|&b| b == b':').unwrap_or(line.len());
        let value = line.get(colon + 1..).unwrap_or(&[]);
        let value = value.strip_prefix(b" ").unwrap_or(value);
        match &line[..colon] {
            b"event" => kind = value.to_vec(),
            b"data" => {
                data.extend_from_slice(value);
                data.push(b'\n');
            }
            b"id" if !value.contains(&0) => id_buffer = Some(value.to_vec()),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                retry = std::str::from_utf8(value).unwrap().parse().ok().or(retry);
            }
            _ => {}
        }
    }
    let events = events
        .into_iter()
        .map(|(data, kind)| (data, kind.filter(|k| !k.is_empty())))
        .collect();
    (events, last_id, retry)
}

/// Streams of up to 40 tokens: field names, colons, spaces, line ends of every kind, NULs,
/// digits and byte order marks, so that fields, events and their ends meet in every way; and
/// whole `data` and `event` lines and blank lines, so that many streams dispatch events.
fn sse_stream() -> impl Strategy<Value = Vec<u8>> {
    let tokens = proptest::sample::select(vec![
        &b"data"[..],
        b"id",
        b"event",
        b"retry",
        b"Data",
        b":",
        b" ",
        b"\r",
        b"\n",
        b"\r\n",
        b"\0",
        b"x",
        b"12",
        b"\xEF\xBB\xBF",
        b"data: ",
        b"data: x\n",
        b"event: x\n",
        b"\n\n",
    ]);
    proptest::collection::vec(tokens, 0..40).prop_map(|tokens| tokens.concat())
}

proptest! {
    /// Streams of SSE tokens read in random pieces with a random limit: when nothing is over
    /// the limit, `SseFramer` reads what the WHATWG rules read.
    #[test]
    fn sse_framer_reads_what_whatwg_reads(
        input in sse_stream(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..4),
        limit in prop_oneof![Just(1usize << 10), 0usize..24],
    ) {
        let chunks = pieces(&input, &cuts);
        let mut framer = SseFramer::new(limit);
        let read: Result<Vec<SseEvent>, FrameError> = sse_all(&mut framer, &chunks).into_iter().collect();
        if let Ok(read) = read {
            let events: Vec<_> = read
                .into_iter()
                .filter(|e| !e.data.is_empty())
                .map(|e| (e.data.to_vec(), e.event.map(|k| k.to_vec())))
                .collect();
            let ours = (
                events,
                framer.last_event_id().map(<[u8]>::to_vec),
                framer.reconnection_time(),
            );
            prop_assert_eq!(ours, whatwg(&input), "{:?}", String::from_utf8_lossy(&input));
        }
    }
}

/// `ends_inside_event`: whether the stream, ended after the bytes given (read in pieces of
/// every size, all decoded), would drop an event with data, which a reader does silently.
#[test]
fn ends_inside_event_tells_an_event_the_end_would_drop() {
    let cases: &[(&[u8], bool)] = &[
        (b"", false),
        (b"data: {}\n\n", false),
        (b": keep-alive\n\n: hi", false),
        (b"id: 7\nevent: message\n", false),
        (b"retry: 10", false),
        (b"data: {}\n", true),
        (b"data: {}\r", true),
        (b"data: {}\r\n", true),
        (b"data: {}", true),
        (b"dat", false),
        (b"data", true),
        (b"data:", true),
        (b"id: 1\ndata: [1,\ndata: 2]\n", true),
        (b"data: {}\n\ndata: {}", true),
        (b"data: {}\n\nid: 2", false),
        (b"\xEF\xBB\xBFdata: {}\n", true),
        // Over the limit: reported once already, as `TooLong`.
        (b"data: 0123456789012345678901234567890123456789\n", false),
        // A comment over the limit is skipped, and its event goes on.
        (
            b"data: {}\n: 0123456789012345678901234567890123456789",
            true,
        ),
        (
            b"data: {}\nx-unknown: 0123456789012345678901234567890123456789",
            true,
        ),
        (b": 0123456789012345678901234567890123456789", false),
        (b": 0123456789012345678901234567890123456789\ndata", true),
    ];
    for &(input, expected) in cases {
        for piece in 1..=input.len().max(1) {
            let mut framer = SseFramer::new(16);
            let mut buf = BytesMut::new();
            for chunk in input.chunks(piece) {
                buf.extend_from_slice(chunk);
                while let Ok(Some(_)) | Err(_) = framer.decode(&mut buf) {}
            }
            assert_eq!(
                framer.ends_inside_event(&buf),
                expected,
                "{:?} in pieces of {piece}",
                String::from_utf8_lossy(input)
            );
        }
    }
}

/// Whether a WHATWG reader, at the end of `input`, drops an event that has data: a `data`
/// field read since the last blank line, or an unterminated last line naming the `data`
/// field (which the reader never processes).
fn whatwg_ends_inside_event(input: &[u8]) -> bool {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let mut has_data = false;
    let mut start = 0;
    let mut i = 0;
    while i < input.len() {
        if matches!(input[i], b'\r' | b'\n') {
            let complete = &input[start..i];
            if input[i..].starts_with(b"\r\n") {
                i += 1;
            }
            let name = complete.split(|&b| b == b':').next().unwrap_or(&[]);
            if complete.is_empty() {
                has_data = false;
            } else if name == b"data" {
                has_data = true;
            }
            start = i + 1;
        }
        i += 1;
    }
    let line = &input[start.min(input.len())..];
    has_data || (!line.is_empty() && line.split(|&b| b == b':').next() == Some(&b"data"[..]))
}

proptest! {
    /// `ends_inside_event` after any stream read in random pieces (every event decoded, none
    /// over the limit, though comments and unknown fields may be, which are skipped) says what
    /// the WHATWG rules drop at its end.
    #[test]
    fn ends_inside_event_agrees_with_whatwg(
        input in sse_stream(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..4),
        limit in prop_oneof![Just(1usize << 10), 0usize..24],
    ) {
        let mut framer = SseFramer::new(limit);
        let mut buf = BytesMut::new();
        for piece in pieces(&input, &cuts) {
            buf.extend_from_slice(piece);
            loop {
                match framer.decode(&mut buf) {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    // Over the limit: not what this compares.
                    Err(_) => return Ok(()),
                }
            }
        }
        prop_assert_eq!(
            framer.ends_inside_event(&buf),
            whatwg_ends_inside_event(&input),
            "{:?}",
            String::from_utf8_lossy(&input)
        );
    }
}

/// What [`SseFramer`] hands out for a stream, as the WHATWG rules with its documented limits
/// give it: an event ended by a blank line comes out when it has data, an `id` or a pending
/// `retry` (its type only with data, an empty type as none); an event whose joined data
/// exceeds `limit`, or with a `data`, `id`, `event` or `retry` line longer than `limit` plus 8
/// bytes, is one `TooLong` and sets nothing but the `retry`s and the `id`s of its lines within
/// that length (the reconnection time as each is read, the last event id at its blank line);
/// longer comments and unknown fields are ignored; an unterminated last line is not read
/// (but reported when it is over the limit and would make its event over-long); a `retry`
/// left pending at the end comes alone. Then the last event id and the reconnection time.
type Limited = (Vec<Result<SseEvent, ()>>, Option<Vec<u8>>, Option<u64>);

fn whatwg_with_limits(input: &[u8], limit: usize) -> Limited {
    let line_limit = limit + 8;
    let (lines, line) = whatwg_lines(input);
    let kept = |line: &[u8]| {
        let name = line.split(|&b| b == b':').next().unwrap_or(&[]);
        matches!(name, b"data" | b"id" | b"event" | b"retry")
    };
    let mut out = vec![];
    let (mut data, mut kind, mut id) = (None::<Vec<u8>>, None::<Vec<u8>>, None::<Vec<u8>>);
    let (mut over, mut pending_retry) = (false, None);
    let (mut last_id, mut reconnection) = (None, None);
    for line in lines {
        if line.is_empty() {
            if id.is_some() {
                last_id.clone_from(&id);
            }
            if !over {
                let retry = pending_retry.take();
                let had_data = data.is_some();
                let data = data.take().unwrap_or_default();
                if !data.is_empty() || id.is_some() || retry.is_some() {
                    out.push(Ok(SseEvent {
                        data: data.into(),
                        id: id.clone().map(Into::into),
                        event: kind
                            .clone()
                            .filter(|k| had_data && !k.is_empty())
                            .map(Into::into),
                        retry,
                    }));
                }
            }
            (data, kind, id, over) = (None, None, None, false);
            continue;
        }
        if line.len() > line_limit {
            if kept(&line) && !over {
                out.push(Err(()));
                (data, kind, over) = (None, None, true);
            }
            continue;
        }
        if line[0] == b':' {
            continue;
        }
        let colon = line.iter().position(|&b| b == b':').unwrap_or(line.len());
        let value = line.get(colon + 1..).unwrap_or(&[]);
        let value = value.strip_prefix(b" ").unwrap_or(value);
        match &line[..colon] {
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                if let Ok(ms) = std::str::from_utf8(value).unwrap().parse() {
                    (reconnection, pending_retry) = (Some(ms), Some(ms));
                }
            }
            b"id" if !value.contains(&0) => id = Some(value.to_vec()),
            _ if over => {}
            b"event" => kind = Some(value.to_vec()),
            b"data" => {
                let joined = match data.take() {
                    Some(mut d) => {
                        d.push(b'\n');
                        d.extend_from_slice(value);
                        d
                    }
                    None => value.to_vec(),
                };
                if joined.len() > limit {
                    out.push(Err(()));
                    (data, kind, over) = (None, None, true);
                } else {
                    data = Some(joined);
                }
            }
            _ => {}
        }
    }
    if line.len() > line_limit && kept(&line) && !over {
        out.push(Err(()));
    }
    if let Some(retry) = pending_retry {
        out.push(Ok(SseEvent {
            retry: Some(retry),
            ..SseEvent::default()
        }));
    }
    (out, last_id, reconnection)
}

/// Streams of tokens as `sse_stream`'s, with long runs and whole fields, so that lines and
/// events cross the limit in every way.
fn sse_stream_with_long_lines() -> impl Strategy<Value = Vec<u8>> {
    let tokens = proptest::sample::select(vec![
        &b"data"[..],
        b"id",
        b"event",
        b"retry",
        b":",
        b" ",
        b"\r",
        b"\n",
        b"\r\n",
        b"\0",
        b"x",
        b"12",
        b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        b"\xEF\xBB\xBF",
        b"data: ",
        b"retry: 7",
        b"\n\n",
    ]);
    proptest::collection::vec(tokens, 0..60).prop_map(|tokens| tokens.concat())
}

proptest! {
    /// Any stream, over the limit or not, read in one piece, one byte at a time and in random
    /// pieces: `SseFramer` hands out what the WHATWG rules with its limits give.
    #[test]
    fn sse_framer_reads_what_whatwg_reads_under_its_limits(
        input in sse_stream_with_long_lines(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..4),
        limit in 0usize..24,
    ) {
        let expected = whatwg_with_limits(&input, limit);
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        for chunks in [vec![&input[..]], bytes, pieces(&input, &cuts)] {
            let mut framer = SseFramer::new(limit);
            let read: Vec<_> = sse_all(&mut framer, &chunks)
                .into_iter()
                .map(|e| e.map_err(drop))
                .collect();
            let ours = (
                read,
                framer.last_event_id().map(<[u8]>::to_vec),
                framer.reconnection_time(),
            );
            prop_assert_eq!(&ours, &expected, "{:?}", String::from_utf8_lossy(&input));
        }
    }
}

/// The last event id outlives its event (a client resumes from it), but not the read buffer
/// it came in: once the events handed out are dropped, the buffer's memory is the caller's
/// again (a slice of it held until the next id would keep the whole read buffer alive, one
/// per stream, up to the frame limit each).
#[test]
fn the_last_event_id_does_not_keep_the_read_buffer() {
    let mut framer = SseFramer::new(1 << 20);
    let mut buf = BytesMut::with_capacity(4096);
    for (stream, id) in [
        (&b"id: 7\ndata: {}\n\n"[..], &b"7"[..]),
        (b"id: 8\n\n", b"8"),
        (b"id\n\n", b""),
    ] {
        buf.extend_from_slice(stream);
        let event = framer.decode(&mut buf).unwrap().unwrap();
        assert_eq!(event.id.as_deref(), Some(id));
        drop(event);
        assert!(buf.is_empty());
        assert!(buf.try_reclaim(4096), "the buffer is still shared");
        assert_eq!(framer.last_event_id(), Some(id));
    }
}

/// A framer started from a saved last event id (a client restarted from disk) gives it back
/// until an event sets another, through a stream cut at its end too; an empty id is the reset
/// state; an id no event stream can set (a line break, a NUL) is refused.
#[test]
fn a_framer_starts_from_a_saved_last_event_id() {
    let mut framer = SseFramer::new(1024).with_last_event_id(b"s/41").unwrap();
    assert_eq!(framer.last_event_id(), Some(&b"s/41"[..]));
    let events = sse_all(&mut framer, &[b"data: 1\n\nid: s/42\ndata: cut"]);
    assert_eq!(events.len(), 1);
    assert_eq!(framer.last_event_id(), Some(&b"s/41"[..]));
    sse_all(&mut framer, &[b"id: s/42\ndata:\n\n"]);
    assert_eq!(framer.last_event_id(), Some(&b"s/42"[..]));

    let reset = SseFramer::new(1024).with_last_event_id("").unwrap();
    assert_eq!(reset.last_event_id(), Some(&b""[..]));
    for bad in [&b"a\nb"[..], b"a\rb", b"a\0b", b"\n"] {
        assert_eq!(
            SseFramer::new(1024).with_last_event_id(bad).unwrap_err(),
            SseWriteError::InvalidId,
            "{bad:?}"
        );
    }
}

/// A saved id is bounded as an id read from the stream is: the longest a framer takes is the
/// longest an `id:` line within its limit sets (the limit plus 8 bytes of slack for the line,
/// less `id:`), so an id one framer gave back is taken by another with the same limit, and
/// one a byte longer, which no stream read with that limit can set, is refused with the
/// bound in the error, not kept to be sent back as an unbounded `Last-Event-ID` header.
#[test]
fn a_saved_last_event_id_is_bounded_as_a_read_one() {
    for limit in [0, 1, 16, 1024] {
        let longest = "7".repeat(limit + 5);
        let mut reader = SseFramer::new(limit);
        let read = sse_all(
            &mut reader,
            &[format!(
                "id:{longest}

"
            )
            .as_bytes()],
        );
        assert_eq!(read.len(), 1, "limit {limit}: {read:?}");
        assert_eq!(reader.last_event_id(), Some(longest.as_bytes()));
        let resumed = SseFramer::new(limit).with_last_event_id(reader.last_event_id().unwrap());
        assert_eq!(resumed.unwrap().last_event_id(), Some(longest.as_bytes()));

        let longer = format!("{longest}7");
        let read = sse_all(
            &mut SseFramer::new(limit),
            &[format!(
                "id:{longer}

"
            )
            .as_bytes()],
        );
        assert!(
            matches!(read[..], [Err(FrameError::TooLong { .. })]),
            "limit {limit}: {read:?}"
        );
        assert_eq!(
            SseFramer::new(limit)
                .with_last_event_id(&longer)
                .unwrap_err(),
            SseWriteError::IdTooLong { limit: limit + 5 },
            "limit {limit}"
        );
    }
    let error = SseFramer::new(16)
        .with_last_event_id([b'7'; 64])
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "an SSE event id longer than 21 bytes, the longest an `id:` line within the framer's limit can set"
    );
}

/// WHATWG's `retry` rule, case by case: "If the field value consists of only ASCII digits,
/// then interpret the field value as an integer in base ten, and set the event stream's
/// reconnection time to that integer. Otherwise, ignore the field." The value is what
/// follows the colon less one space. An empty value is no integer, and one past `u64` is
/// ignored as documented (`SseEvent::retry`); both leave the reconnection time as it was.
#[test]
fn sse_retry_values_follow_the_whatwg_rule() {
    let cases: &[(&[u8], Option<u64>)] = &[
        (b"retry: 5", Some(5)),
        (b"retry:5", Some(5)),
        (b"retry: 007", Some(7)),
        (b"retry: 0", Some(0)),
        (b"retry: 18446744073709551615", Some(u64::MAX)),
        (b"retry:", None),
        (b"retry: ", None),
        (b"retry", None),
        (b"retry:  5", None),
        (b"retry: 5 ", None),
        (b"retry:5x", None),
        (b"retry: +5", None),
        (b"retry: -5", None),
        (b"retry: 5.0", None),
        (b"retry: 18446744073709551616", None),
        (b"retry: 99999999999999999999999", None),
    ];
    for &(line, want) in cases {
        // After a valid retry of 100: an ignored field leaves the reconnection time at 100.
        let input = [&b"retry: 100\n\n"[..], line, b"\ndata: x\n\n"].concat();
        let mut framer = SseFramer::new(1024);
        let got = sse_all(&mut framer, &[&input]);
        let got: Vec<_> = got.into_iter().map(|e| e.unwrap().retry).collect();
        assert_eq!(got, [Some(100), want], "{}", line.escape_ascii());
        assert_eq!(
            framer.reconnection_time(),
            Some(want.unwrap_or(100)),
            "{}",
            line.escape_ascii()
        );
        let model = whatwg(&input);
        assert_eq!(
            model.2,
            framer.reconnection_time(),
            "{}",
            line.escape_ascii()
        );
    }
}
