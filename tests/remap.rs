//! Proxy id remapping: clients' ids out, our tokens upstream, the original tokens restored
//! byte for byte on the way back; unknown, stale, cancelled and expired replies go nowhere.

use bytes::BytesMut;
use rpcwire::{Decoder, IdRemapper, Message, Miss, RemapError};

fn request(frame: &[u8]) -> rpcwire::Request<'_> {
    match Decoder::jsonrpc().decode(frame) {
        Ok(Message::Request(r)) => r,
        other => panic!("{other:?}"),
    }
}

/// The upstream's reply to an upstream frame: same id token, a result naming the method.
fn upstream_reply(upstream: &[u8]) -> Vec<u8> {
    let req = request(&upstream[..upstream.len() - 1]);
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"m\":\"{}\"}}}}",
        String::from_utf8_lossy(req.id.raw()),
        req.method.decode()
    )
    .into_bytes()
}

fn route(remap: &mut IdRemapper<u32>, reply: &[u8]) -> (Result<u32, Miss>, Vec<u8>) {
    let msg = Decoder::jsonrpc().decode(reply).unwrap();
    let mut out = BytesMut::new();
    let r = remap.route_reply(reply, msg.id().unwrap(), &mut out);
    (r, out.to_vec())
}

#[test]
fn colliding_client_ids_round_trip_byte_for_byte() {
    let ids = [
        "1",
        "1",
        "\"a\\\"b\\u00e9\"",
        "9007199254740993",
        "-0",
        "1.0",
        "\"1\"",
    ];
    let mut remap = IdRemapper::new(64);
    let mut upstream = vec![];
    for (client, id) in ids.iter().enumerate() {
        let frame = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"m{client}\",\"params\":{{\"x\":[1, 2]}}}}");
        let mut out = BytesMut::new();
        let token = remap
            .forward_request(
                client as u32,
                frame.as_bytes(),
                &request(frame.as_bytes()),
                None,
                &mut out,
            )
            .unwrap();
        // Only the id changed.
        let expected =
            frame.replacen(&format!("\"id\":{id}"), &format!("\"id\":{token}"), 1) + "\n";
        assert_eq!(String::from_utf8(out.to_vec()).unwrap(), expected);
        upstream.push((client as u32, id, out));
    }
    assert_eq!(remap.len(), ids.len());
    // Replies come back in reverse order.
    for (client, id, up) in upstream.iter().rev() {
        let (routed, out) = route(&mut remap, &upstream_reply(up));
        assert_eq!(routed, Ok(*client));
        let expected =
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"m\":\"m{client}\"}}}}\n");
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
    assert!(remap.is_empty());
}

#[test]
fn unknown_stale_and_duplicate() {
    let mut remap = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
    let mut up = BytesMut::new();
    remap
        .forward_request(1, frame, &request(frame), None, &mut up)
        .unwrap();
    assert_eq!(
        remap.forward_request(1, frame, &request(frame), None, &mut BytesMut::new()),
        Err(RemapError::DuplicateId)
    );
    // The same id from another client is fine.
    let mut up2 = BytesMut::new();
    remap
        .forward_request(2, frame, &request(frame), None, &mut up2)
        .unwrap();
    let reply = upstream_reply(&up);
    assert_eq!(route(&mut remap, &reply).0, Ok(1));
    // Answered already: stale; never minted: unknown; not an integer token: unknown.
    assert_eq!(route(&mut remap, &reply), (Err(Miss::Stale), vec![]));
    assert_eq!(
        route(&mut remap, br#"{"jsonrpc":"2.0","id":999999,"result":{}}"#).0,
        Err(Miss::Unknown)
    );
    assert_eq!(
        route(&mut remap, br#"{"jsonrpc":"2.0","id":"7","result":{}}"#).0,
        Err(Miss::Unknown)
    );
}

#[test]
fn cancellation_is_rewritten_and_the_late_reply_is_stale() {
    let mut remap = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{"name":"slow"}}"#;
    let mut up = BytesMut::new();
    let token = remap
        .forward_request(5, frame, &request(frame), None, &mut up)
        .unwrap();
    let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"req-1","reason":"user"}}"#;
    let Ok(Message::Notification(n)) = Decoder::mcp().decode(cancel) else {
        panic!()
    };
    let mut out = BytesMut::new();
    assert!(
        !remap.forward_cancel(&6, cancel, &n, &mut out),
        "another client's id"
    );
    assert!(remap.forward_cancel(&5, cancel, &n, &mut out));
    assert_eq!(
        String::from_utf8(out.to_vec()).unwrap(),
        format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{token},\"reason\":\"user\"}}}}\n")
    );
    assert_eq!(route(&mut remap, &upstream_reply(&up)).0, Err(Miss::Stale));
}

/// Ids compare code unit by code unit: a cancellation naming another lone surrogate than the
/// request's id cancels nothing (both would read as U+FFFD).
#[test]
fn a_cancellation_names_its_own_lone_surrogate_id_only() {
    let mut remap = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":"\ud800","method":"tools/call","params":{"name":"x"}}"#;
    remap
        .forward_request(1, frame, &request(frame), None, &mut BytesMut::new())
        .unwrap();
    let mut out = BytesMut::new();
    for other in [r#""\udfff""#, r#""\ufffd""#, "\"\u{fffd}\""] {
        let cancel = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{other}}}}}"#
        );
        let Ok(Message::Notification(n)) = Decoder::mcp().decode(cancel.as_bytes()) else {
            panic!()
        };
        assert!(
            !remap.forward_cancel(&1, cancel.as_bytes(), &n, &mut out),
            "{other}"
        );
    }
    assert!(out.is_empty());
    assert_eq!(remap.len(), 1);
}

#[test]
fn expiry_and_disconnect() {
    let mut remap = IdRemapper::new(8);
    let a = br#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;
    let b = br#"{"jsonrpc":"2.0","id":2,"method":"b"}"#;
    let mut up_a = BytesMut::new();
    remap
        .forward_request(1, a, &request(a), Some(100), &mut up_a)
        .unwrap();
    remap
        .forward_request(1, b, &request(b), Some(500), &mut BytesMut::new())
        .unwrap();
    let expired: Vec<_> = remap
        .expire(200)
        .map(|(_, o)| (o.client, o.id.as_id().raw().to_vec()))
        .collect();
    assert_eq!(expired, [(1, b"1".to_vec())]);
    assert_eq!(
        route(&mut remap, &upstream_reply(&up_a)).0,
        Err(Miss::Stale)
    );
    // The id is free again for that client.
    remap
        .forward_request(1, a, &request(a), None, &mut BytesMut::new())
        .unwrap();
    assert_eq!(remap.drop_client(&1), 2);
    assert!(remap.is_empty());
}
