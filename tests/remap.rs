//! Proxy id remapping: clients' ids out, our tokens upstream, the original tokens restored
//! byte for byte on the way back; unknown, stale, cancelled and expired replies go nowhere.

use bytes::BytesMut;
use rpcwire::{Decoder, Id, IdRemapper, Message, Miss, Origin, RemapError, StreamCancel, Token};

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
    let r = remap
        .route_reply(reply, msg.id().unwrap(), &mut out)
        .map(|origin| origin.client);
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
        let frame = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"m{client}\",\"params\":{{\"x\":[1, 2]}}}}"
        );
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
        remap.forward_cancel(&6, cancel, &n, &mut out).is_none(),
        "another client's id"
    );
    let (cancelled, origin) = remap.forward_cancel(&5, cancel, &n, &mut out).unwrap();
    assert_eq!((cancelled, origin.client), (token, 5));
    assert_eq!(origin.id.as_id().raw(), br#""req-1""#);
    assert_eq!(
        String::from_utf8(out.to_vec()).unwrap(),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{token},\"reason\":\"user\"}}}}\n"
        )
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
            remap
                .forward_cancel(&1, cancel.as_bytes(), &n, &mut out)
                .is_none(),
            "{other}"
        );
    }
    assert!(out.is_empty());
    assert_eq!(remap.len(), 1);
}

/// MCP: "The `initialize` request **MUST NOT** be cancelled by clients". A client's
/// cancellation of its `initialize` in flight (however the method is spelled) is not
/// forwarded, the upstream would read it from the gateway, its client; the request stays in
/// flight and its result still reaches the client. (A receiver "**MAY** ignore" a
/// cancellation of a request that cannot be cancelled.)
#[test]
fn a_cancellation_of_initialize_is_dropped_and_the_request_stays_in_flight() {
    for method in ["initialize", "\\u0069nitialize"] {
        let mut remap = IdRemapper::new(8);
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":"init","method":"{method}","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
        );
        let mut up = BytesMut::new();
        let token = remap
            .forward_request(
                1,
                frame.as_bytes(),
                &request(frame.as_bytes()),
                None,
                &mut up,
            )
            .unwrap();
        let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"init"}}"#;
        let Ok(Message::Notification(n)) = Decoder::mcp().decode(cancel) else {
            panic!()
        };
        let mut out = BytesMut::new();
        assert!(
            remap.forward_cancel(&1, cancel, &n, &mut out).is_none(),
            "{method}"
        );
        assert!(out.is_empty());
        assert_eq!(remap.len(), 1);
        assert_eq!(
            remap
                .get(&1, Id::from_token(b"\"init\"").unwrap())
                .map(|(t, _)| t),
            Some(token)
        );
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
        assert_eq!(
            route(&mut remap, reply.as_bytes()),
            (
                Ok(1),
                b"{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"result\":{}}\n".to_vec()
            )
        );
    }
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
    let mut dropped: Vec<_> = remap
        .drop_client(&1)
        .into_iter()
        .map(|(_, o)| o.id.as_id().raw().to_vec())
        .collect();
    dropped.sort();
    assert_eq!(dropped, [b"1".to_vec(), b"2".to_vec()]);
    assert!(remap.is_empty());
}

/// A gateway keeps its own value with each request (here the method, to keep MCP's
/// `initialize` from being cancelled), fails a request whose reply it cannot forward, and
/// answers everyone when the upstream goes away.
#[test]
fn values_lookups_failed_replies_and_a_lost_upstream() {
    let mut remap: IdRemapper<u32, String> = IdRemapper::new(8);
    let mut up = BytesMut::new();
    let mut tokens = vec![];
    for (client, frame) in [
        (
            1,
            &br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}"#[..],
        ),
        (1, br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        (2, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
    ] {
        let req = request(frame);
        let method = req.method.decode().into_owned();
        tokens.push(
            remap
                .forward_request_with(client, method, frame, &req, Some(50), &mut up)
                .unwrap(),
        );
    }
    let id = |raw: &'static [u8]| rpcwire::Id::from_token(raw).unwrap();
    let (token, method) = remap.get(&1, id(b"0")).unwrap();
    assert_eq!((token, method.as_str()), (tokens[0], "initialize"));
    assert_eq!(remap.get(&3, id(b"0")), None);
    assert_eq!(remap.next_wakeup(), Some(50));
    // An upstream reply that cannot be forwarded: the request is failed, not left waiting.
    let origin = remap.take(tokens[1].to_id(&mut [0; 20])).unwrap();
    assert_eq!((origin.client, origin.value.as_str()), (1, "tools/list"));
    assert_eq!(
        remap.take(tokens[1].to_id(&mut [0; 20])).err(),
        Some(Miss::Stale)
    );
    // The upstream is gone: every request left comes back once.
    let mut left: Vec<(u32, String)> = remap.drain().map(|(_, o)| (o.client, o.value)).collect();
    left.sort();
    assert_eq!(
        left,
        [(1, "initialize".to_string()), (2, "ping".to_string())]
    );
    assert!(remap.is_empty());
    assert_eq!(remap.get(&1, id(b"0")), None);
    assert_eq!(remap.next_wakeup(), None);
}

/// Progress tokens collide across clients as ids do: each request's token goes upstream as its
/// id's token, and the upstream's progress comes back with the client's token restored.
#[test]
fn progress_tokens_are_rewritten_both_ways() {
    let mut remap = IdRemapper::new(8);
    let frames: [&[u8]; 3] = [
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"1"}}}"#,
        // The token before the id, and a line break inside params.
        b"{\"jsonrpc\":\"2.0\",\"params\":{\"_meta\":{\"progressToken\":1},\n\"name\":\"b\"},\"method\":\"tools/call\",\"id\":1}",
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"c"}}"#,
    ];
    let mut tokens = vec![];
    for (client, frame) in [1u32, 2, 1].into_iter().zip(frames) {
        let mut up = BytesMut::new();
        let req = request(frame);
        let token = remap
            .forward_request(client, frame, &req, None, &mut up)
            .unwrap();
        let sent = Decoder::mcp().decode(&up[..up.len() - 1]).unwrap();
        assert_eq!(sent.id().unwrap().raw(), token.to_string().as_bytes());
        let asked = rpcwire::mcp::progress_token(&sent).map(|t| t.raw().to_vec());
        let expected = (client, frame) != (1, frames[2]);
        assert_eq!(asked, expected.then(|| token.to_string().into_bytes()));
        tokens.push(token);
    }
    let progress = |token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":5}}}}"#
        )
    };
    let route = |remap: &IdRemapper<u32>, frame: &str| {
        let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame.as_bytes()) else {
            panic!("{frame}")
        };
        let mut out = BytesMut::new();
        let client = remap
            .route_progress(frame.as_bytes(), &n, &mut out)
            .map(|r| *r.client);
        (client, String::from_utf8(out.to_vec()).unwrap())
    };
    assert_eq!(
        route(&remap, &progress(&tokens[0].to_string())),
        (Some(1), progress("\"1\"") + "\n")
    );
    assert_eq!(
        route(&remap, &progress(&tokens[1].to_string())),
        (Some(2), progress("1") + "\n")
    );
    // A request that asked for no progress, a token we never minted, another notification.
    for frame in [
        progress(&tokens[2].to_string()),
        progress("\"1\""),
        progress("999999"),
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"progressToken":1}}"#.into(),
    ] {
        assert_eq!(route(&remap, &frame), (None, String::new()), "{frame}");
    }
    // Once answered, the token is no longer active.
    let reply = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, tokens[0]);
    let msg = Decoder::mcp().decode(reply.as_bytes()).unwrap();
    remap
        .route_reply(reply.as_bytes(), msg.id().unwrap(), &mut BytesMut::new())
        .unwrap();
    assert_eq!(
        route(&remap, &progress(&tokens[0].to_string())),
        (None, String::new())
    );
}

/// A `null` progress token asks for no progress: the request is forwarded (not refused as a
/// token that cannot be rewritten), its `null` goes upstream as it came, and progress the
/// upstream reports on the token `null` (or on the request's own token) routes to no client.
#[test]
fn a_null_progress_token_asks_for_no_progress() {
    let mut remap = IdRemapper::new(8);
    let frame =
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":null}}}"#;
    let mut up = BytesMut::new();
    let token = remap
        .forward_request(1u32, frame, &request(frame), None, &mut up)
        .expect("a null progress token is no error");
    assert_eq!(
        String::from_utf8(up.to_vec()).unwrap(),
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{token},\"method\":\"tools/call\",\"params\":{{\"name\":\"a\",\"_meta\":{{\"progressToken\":null}}}}}}\n"
        )
    );
    for reported in ["null".to_string(), token.to_string()] {
        let progress = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{reported},"progress":5}}}}"#
        );
        let Ok(Message::Notification(n)) = Decoder::mcp().decode(progress.as_bytes()) else {
            panic!("{progress}")
        };
        let mut out = BytesMut::new();
        assert!(
            remap
                .route_progress(progress.as_bytes(), &n, &mut out)
                .is_none()
        );
        assert!(out.is_empty(), "{progress}");
    }
    // The request itself is in flight as any other, and answered under its client's id.
    let (routed, to_client) = route(&mut remap, &upstream_reply(&up));
    assert_eq!(routed, Ok(1));
    assert!(to_client.starts_with(br#"{"jsonrpc":"2.0","id":1,"#));
}

/// MCP 2026-07-28's `subscriptions/listen` streams: the upstream stamps each notification of
/// a stream with the listen request's id (our token), which goes back to the client that
/// opened it with the client's own id; two clients may use the same id. Once the stream's
/// result came (or for a token of nothing in flight, or an unstamped notification), nothing
/// is routed.
#[test]
fn subscription_streams_go_back_to_their_clients() {
    let mut remap = IdRemapper::new(8);
    let listen = br#"{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}"#;
    let tokens: Vec<_> = [1u32, 2]
        .into_iter()
        .map(|client| {
            let req = request(listen);
            remap
                .forward_request(client, listen, &req, None, &mut BytesMut::new())
                .unwrap()
        })
        .collect();
    let event = |stream: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{stream},"x":1}}}}}}"#
        )
    };
    let route_event = |remap: &mut IdRemapper<u32>, frame: &str| {
        let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else {
            panic!("{frame}")
        };
        let mut out = BytesMut::new();
        let client = remap
            .route_subscription(frame.as_bytes(), &n, &mut out)
            .map(|o| o.client);
        (client, String::from_utf8(out.to_vec()).unwrap())
    };
    for (client, token) in [1, 2].into_iter().zip(&tokens) {
        assert_eq!(
            route_event(&mut remap, &event(&token.to_string())),
            (Some(client), event("\"l1\"") + "\n")
        );
    }
    let unstamped = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#;
    for frame in [
        event("\"l1\""),
        event("999999"),
        event("[1]"),
        unstamped.into(),
    ] {
        assert_eq!(
            route_event(&mut remap, &frame),
            (None, String::new()),
            "{frame}"
        );
    }
    // The result closes the first stream; the second is still open.
    let closed = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, tokens[0]);
    assert_eq!(route(&mut remap, closed.as_bytes()).0, Ok(1));
    assert_eq!(
        route_event(&mut remap, &event(&tokens[0].to_string())),
        (None, String::new())
    );
    assert_eq!(
        route_event(&mut remap, &event(&tokens[1].to_string())).0,
        Some(2)
    );
}

/// Forwards client `client`'s `subscriptions/listen` with id `"l1"`; returns its token.
fn forward_listen(remap: &mut IdRemapper<u32>, client: u32) -> Token {
    let listen = br#"{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}"#;
    let req = request(listen);
    remap
        .forward_request(client, listen, &req, None, &mut BytesMut::new())
        .unwrap()
}

/// The upstream's `notifications/cancelled` with `request_id` (as written) for its
/// `requestId`, and a reason.
fn upstream_cancel(request_id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{request_id},"reason":"shutting down"}}}}"#
    )
}

/// What `route_stream_cancel` makes of `frame`, and what it wrote.
fn stream_cancel_to(remap: &mut IdRemapper<u32>, frame: &str) -> (StreamCancel<u32>, String) {
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else {
        panic!("{frame}")
    };
    let mut out = BytesMut::new();
    let routed = remap.route_stream_cancel(frame.as_bytes(), &n, &mut out);
    (routed, String::from_utf8(out.to_vec()).unwrap())
}

/// The teardown of client `client`'s listen stream (`forward_listen`), routed: its origin.
fn routed_listen(client: u32) -> StreamCancel<u32> {
    StreamCancel::Routed(Origin {
        client,
        id: Id::from_token(br#""l1""#).unwrap().to_owned_id(),
        progress_token: None,
        value: (),
    })
}

#[test]
fn a_streams_teardown_goes_to_its_client_and_closes_the_stream() {
    let mut remap = IdRemapper::new(8);
    // Two clients' streams under the same id "l1".
    let first = forward_listen(&mut remap, 1);
    let second = forward_listen(&mut remap, 2);
    let teardown = |token: Token| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{ "reason" : "bye","requestId" : {token} ,"x":[1]}}}}"#
        )
    };
    assert_eq!(
        stream_cancel_to(&mut remap, &teardown(second)),
        (
            routed_listen(2),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{ "reason" : "bye","requestId" : "l1" ,"x":[1]}}"#
                .to_owned()
                + "\n"
        )
    );
    // The second stream's entry is gone: its late result, and its events, go nowhere.
    assert_eq!((remap.len(), remap.client_len(&2)), (1, 0));
    assert!(remap.get(&2, Id::from_token(br#""l1""#).unwrap()).is_none());
    let late = format!(r#"{{"jsonrpc":"2.0","id":{second},"result":{{}}}}"#);
    assert_eq!(
        route(&mut remap, late.as_bytes()),
        (Err(Miss::Stale), vec![])
    );
    // The first stream is still open, and its teardown goes to its own client.
    assert!(remap.get(&1, Id::from_token(br#""l1""#).unwrap()).is_some());
    assert_eq!(
        stream_cancel_to(&mut remap, &upstream_cancel(&first.to_string())),
        (routed_listen(1), upstream_cancel(r#""l1""#) + "\n")
    );
    assert!(remap.is_empty());
}

#[test]
fn a_cancellation_of_a_request_that_is_no_stream_is_refused() {
    let mut remap = IdRemapper::new(8);
    let call = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}"#;
    let token = remap
        .forward_request(1, call, &request(call), None, &mut BytesMut::new())
        .unwrap();
    assert_eq!(
        stream_cancel_to(&mut remap, &upstream_cancel(&token.to_string())),
        (StreamCancel::NotAStream, String::new())
    );
    // The request is still in flight: its reply goes to its client.
    assert_eq!(remap.len(), 1);
    let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
    assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1));
}

#[test]
fn a_teardown_of_an_unknown_or_closed_stream_goes_nowhere() {
    let mut remap = IdRemapper::new(8);
    let token = forward_listen(&mut remap, 1);
    // Tokens never minted, and a string (our tokens are integers): unknown.
    for request_id in ["999999", r#""l1""#, &format!("\"{token}\"")] {
        assert_eq!(
            stream_cancel_to(&mut remap, &upstream_cancel(request_id)),
            (StreamCancel::Miss(Miss::Unknown), String::new()),
            "{request_id}"
        );
    }
    assert_eq!(remap.len(), 1);
    // The stream's result closes it: a teardown after it is stale.
    let result = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
    assert_eq!(route(&mut remap, result.as_bytes()).0, Ok(1));
    assert_eq!(
        stream_cancel_to(&mut remap, &upstream_cancel(&token.to_string())),
        (StreamCancel::Miss(Miss::Stale), String::new())
    );
}

#[test]
fn a_teardown_whose_request_id_cannot_be_read_goes_nowhere() {
    let mut remap = IdRemapper::new(8);
    let token = forward_listen(&mut remap, 1);
    let params = |members: &str| {
        format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{{members}}}}}"#)
    };
    for frame in [
        upstream_cancel(&format!("[{token}]")),
        upstream_cancel(&format!("{token}.0")),
        upstream_cancel("null"),
        upstream_cancel("true"),
        params(r#""reason":"no id""#),
        params(&format!(r#""requestId":{token},"requestId":{token}"#)),
        // A notification of the stream that is no cancellation.
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"requestId":{token},"_meta":{{"io.modelcontextprotocol/subscriptionId":{token}}}}}}}"#
        ),
    ] {
        assert_eq!(
            stream_cancel_to(&mut remap, &frame),
            (StreamCancel::NotAStream, String::new()),
            "{frame}"
        );
    }
    // The stream is still open.
    assert!(remap.get(&1, Id::from_token(br#""l1""#).unwrap()).is_some());
}

/// What a JavaScript or pydantic upstream reads as a request's progress token: the last of
/// duplicated keys, `5.0` as the integer 5.
fn upstream_progress_token(up: &[u8]) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_slice(up).ok()?;
    let t = v.pointer("/params/_meta/progressToken")?.as_f64()?;
    (t.fract() == 0.0).then_some(t as u64)
}

/// A client cannot get the upstream to report progress on another client's token: a token
/// spelled so that the upstream reads it differently (a float, duplicated keys) is rewritten
/// or refused, never forwarded as is.
#[test]
fn a_progress_token_cannot_point_at_another_clients_request() {
    let victim = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"mine"}}}"#;
    let metas: [fn(u64) -> String; 4] = [
        |t| format!(r#""_meta":{{"progressToken":{t}.0}}"#),
        |t| format!(r#""_meta":{{"progressToken":"x","progressToken":{t}}}"#),
        |t| format!(r#""_meta":{{"progressToken":"x"}},"_meta":{{"progressToken":{t}}}"#),
        |t| format!(r#""_meta":{{"progressToken":[{t}]}}"#),
    ];
    for (case, meta) in metas.into_iter().enumerate() {
        let mut remap = IdRemapper::new(8);
        let t1 = remap
            .forward_request(1u32, victim, &request(victim), None, &mut BytesMut::new())
            .unwrap();
        let attacker = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"b",{}}}}}"#,
            meta(t1.get())
        );
        let mut up = BytesMut::new();
        let forwarded = remap.forward_request(
            2,
            attacker.as_bytes(),
            &request(attacker.as_bytes()),
            None,
            &mut up,
        );
        match forwarded {
            Err(e) => {
                assert_eq!(e, RemapError::BadProgressToken, "{case}");
                assert!(up.is_empty());
                assert_eq!(remap.len(), 1);
            }
            Ok(t2) => {
                let read = upstream_progress_token(&up[..up.len() - 1]);
                assert_eq!(read, Some(t2.get()), "{case}: the upstream reads our token");
            }
        }
    }
    // The float is rewritten (MCP's progress token is a string or any number), and restored.
    let mut remap = IdRemapper::new(8);
    let frame =
        br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"progressToken":1.5}}}"#;
    let token = remap
        .forward_request(1u32, frame, &request(frame), None, &mut BytesMut::new())
        .unwrap();
    let progress = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#
    );
    let Ok(Message::Notification(n)) = Decoder::mcp().decode(progress.as_bytes()) else {
        panic!()
    };
    let mut out = BytesMut::new();
    assert_eq!(
        remap
            .route_progress(progress.as_bytes(), &n, &mut out)
            .map(|r| *r.client),
        Some(1)
    );
    assert!(
        String::from_utf8(out.to_vec())
            .unwrap()
            .contains(r#""progressToken":1.5,"#)
    );
}

/// `route_progress` gives the token of the request the progress is for, which moves that
/// request's deadline (MCP lets progress reset a timeout), not another's.
#[test]
fn progress_gives_the_token_whose_deadline_it_resets() {
    let mut remap = IdRemapper::new(8);
    let asks = br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","_meta":{"progressToken":"p"}}}"#;
    let other = br#"{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"y"}}"#;
    let mut forward = |frame: &[u8]| {
        remap
            .forward_request(
                1u32,
                frame,
                &request(frame),
                Some(100),
                &mut BytesMut::new(),
            )
            .unwrap()
    };
    let (token, _) = (forward(asks), forward(other));
    let progress = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#
    );
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(progress.as_bytes()) else {
        panic!()
    };
    let mut out = BytesMut::new();
    let routed = remap
        .route_progress(progress.as_bytes(), &n, &mut out)
        .unwrap();
    assert_eq!((routed.token, *routed.client), (token, 1));
    assert_eq!(
        routed.request.map(|o| o.id.as_id().raw()),
        Some(&b"\"a\""[..])
    );
    let origin = rpcwire::Origin {
        client: 1,
        id: Id::from_token(br#""a""#).unwrap().into(),
        progress_token: Some(Id::from_token(br#""p""#).unwrap().into()),
        value: (),
    };
    let expected = rpcwire::ProgressRoute {
        token,
        client: &1,
        request: Some(&origin),
    };
    assert_eq!(routed, expected);
    assert_ne!(
        routed,
        rpcwire::ProgressRoute {
            request: None,
            ..expected
        }
    );
    let routed = routed.token;
    assert!(remap.set_deadline(routed, Some(300)));
    let expired: Vec<_> = remap
        .expire(200)
        .map(|(_, o)| o.id.as_id().raw().to_vec())
        .collect();
    assert_eq!(expired, [br#""b""#.to_vec()]);
    assert_eq!(remap.expire(299).count(), 0);
    let expired: Vec<_> = remap.expire(300).map(|(t, _)| t).collect();
    assert_eq!(expired, [token]);
}

/// Progress may reset a request's timeout: the new deadline is the one `expire` keeps.
#[test]
fn a_deadline_can_be_moved() {
    let mut remap = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}"#;
    let token = remap
        .forward_request(
            1u32,
            frame,
            &request(frame),
            Some(100),
            &mut BytesMut::new(),
        )
        .unwrap();
    assert!(remap.set_deadline(token, Some(300)));
    assert_eq!(remap.expire(200).count(), 0);
    assert!(remap.set_deadline(token, None));
    assert_eq!(remap.next_wakeup(), None);
    assert!(remap.set_deadline(token, Some(400)));
    let expired: Vec<_> = remap.expire(400).map(|(t, o)| (t, o.client)).collect();
    assert_eq!(expired, [(token, 1)]);
    assert!(!remap.set_deadline(token, Some(500)), "no longer in flight");
}

/// `has_deadline` tells a request in flight forwarded with a deadline (`Some(true)`) from one
/// forwarded without (`Some(false)`: a listen stream, whose progress must not give it one),
/// follows `set_deadline` putting one on or taking it off, and says `None` once the request is
/// answered or expired. A gateway asks it before moving a deadline on progress; only task
/// routes were asked it, so it could say `None` for every plain request.
#[test]
fn has_deadline_tells_requests_with_a_deadline_from_those_without() {
    let mut remap = IdRemapper::new(8);
    let mut forward = |id: u32, deadline: Option<u64>| {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{}}}}"#);
        let frame = frame.as_bytes();
        remap
            .forward_request(1u32, frame, &request(frame), deadline, &mut BytesMut::new())
            .unwrap()
    };
    let (timed, untimed) = (forward(1, Some(100)), forward(2, None));
    assert_eq!(
        (remap.has_deadline(timed), remap.has_deadline(untimed)),
        (Some(true), Some(false))
    );
    assert!(remap.set_deadline(timed, None));
    assert!(remap.set_deadline(untimed, Some(50)));
    assert_eq!(
        (remap.has_deadline(timed), remap.has_deadline(untimed)),
        (Some(false), Some(true))
    );
    let reply = format!(r#"{{"jsonrpc":"2.0","id":{timed},"result":{{}}}}"#);
    assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1));
    assert_eq!(remap.expire(50).count(), 1);
    assert_eq!(
        (remap.has_deadline(timed), remap.has_deadline(untimed)),
        (None, None)
    );
}

/// Each refusal maps to the reply a client must get: a reused id is an invalid request, a
/// progress token the remapper cannot rewrite invalid params, a full table an internal error.
#[test]
fn refusals_carry_their_reply_codes() {
    use rpcwire::ErrorCode;
    let mut remap = IdRemapper::new(1);
    let a = br#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;
    let b = br#"{"jsonrpc":"2.0","id":2,"method":"b"}"#;
    let c = br#"{"jsonrpc":"2.0","id":3,"method":"c","params":{"_meta":{"progressToken":true}}}"#;
    let mut forward = |frame: &[u8]| {
        remap
            .forward_request(1u32, frame, &request(frame), None, &mut BytesMut::new())
            .map_err(|e| e.code())
    };
    assert!(forward(a).is_ok());
    assert_eq!(forward(a), Err(ErrorCode::INVALID_REQUEST));
    assert_eq!(forward(c), Err(ErrorCode::INVALID_PARAMS));
    assert_eq!(forward(b), Err(ErrorCode::INTERNAL_ERROR));
}

/// The bytes kept of clients' ids and progress tokens are bounded, and every way a request
/// leaves (reply, take, cancellation, expiry, a client or the upstream going away) gives its
/// bytes back.
#[test]
fn id_and_progress_token_bytes_are_bounded_and_given_back() {
    // A request with a 100-byte string id (102 with its quotes) and a progress token of 300
    // bytes (302): 404 bytes each.
    let frame = |n: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{n:0>100}","method":"m","params":{{"_meta":{{"progressToken":"{n:0>300}"}}}}}}"#
        )
        .into_bytes()
    };
    let cancel = |n: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"{n:0>100}"}}}}"#
        )
        .into_bytes()
    };
    let mut remap: IdRemapper<u32> = IdRemapper::new(100).max_bytes(2 * 404);
    let mut up: Vec<Vec<u8>> = Vec::new();
    let forward = |remap: &mut IdRemapper<u32>, client: u32, n: u32, deadline| {
        let f = frame(n);
        let mut out = BytesMut::new();
        let r = remap.forward_request(client, &f, &request(&f), deadline, &mut out);
        r.map(|_| out.to_vec())
    };
    up.push(forward(&mut remap, 1, 1, None).unwrap());
    forward(&mut remap, 1, 2, Some(10)).unwrap();
    assert_eq!(remap.bytes(), 2 * 404);
    // A third is refused (the table has room for 100 entries, not for their bytes), and a
    // short id would still fit were there room.
    assert_eq!(
        forward(&mut remap, 1, 3, None),
        Err(RemapError::OverBudget { budget: 2 * 404 })
    );
    assert_eq!(remap.len(), 2);
    // Expiry gives its request's bytes back.
    assert_eq!(remap.expire(10).count(), 1);
    assert_eq!(remap.bytes(), 404);
    // A reply does.
    assert_eq!(route(&mut remap, &upstream_reply(&up[0])).0, Ok(1));
    assert_eq!(remap.bytes(), 0);
    // A cancellation does.
    forward(&mut remap, 2, 4, None).unwrap();
    let c = cancel(4);
    let Ok(Message::Notification(n)) = Decoder::mcp().decode(&c) else {
        panic!("a cancellation")
    };
    let cancelled = remap.forward_cancel(&2, &c, &n, &mut BytesMut::new());
    assert!(cancelled.is_some());
    assert_eq!(remap.bytes(), 0);
    // A client going away does.
    forward(&mut remap, 3, 5, None).unwrap();
    up.push(forward(&mut remap, 4, 6, None).unwrap());
    assert_eq!(remap.drop_client(&3).len(), 1);
    assert_eq!(remap.bytes(), 404);
    // `take` does.
    let reply = upstream_reply(up.last().unwrap());
    let msg = Decoder::mcp_client().decode(&reply).unwrap();
    assert_eq!(remap.take(msg.id().unwrap()).map(|o| o.client), Ok(4));
    assert_eq!(remap.bytes(), 0);
    // The upstream going away does, even with the drain dropped unread.
    forward(&mut remap, 5, 7, None).unwrap();
    drop(remap.drain());
    assert_eq!((remap.bytes(), remap.len()), (0, 0));
    // Or leaked: a reply to a request it held is then stale, not a panic.
    let leaked = forward(&mut remap, 5, 7, None).unwrap();
    core::mem::forget(remap.drain());
    assert_eq!((remap.bytes(), remap.len()), (0, 0));
    let reply = upstream_reply(&leaked);
    let msg = Decoder::mcp_client().decode(&reply).unwrap();
    assert_eq!(remap.take(msg.id().unwrap()).err(), Some(Miss::Stale));
    // After all that, the budget holds two again.
    forward(&mut remap, 6, 8, None).unwrap();
    forward(&mut remap, 6, 9, None).unwrap();
    assert_eq!(
        forward(&mut remap, 6, 10, None),
        Err(RemapError::OverBudget { budget: 2 * 404 })
    );
}

/// A reply or a cancellation passed with another buffer than the one it was decoded from is
/// the caller's mistake, and panics (as documented), but before anything is removed: the
/// request stays in flight, and the right call still routes it.
#[test]
fn a_mistaken_frame_panics_before_the_request_is_forgotten() {
    let mut remap: IdRemapper<u32> = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":"req-1","method":"tools/call"}"#;
    let mut up = BytesMut::new();
    remap
        .forward_request(5, frame, &request(frame), None, &mut up)
        .unwrap();
    let reply = upstream_reply(&up);
    let copy = reply.clone();
    let msg = Decoder::jsonrpc().decode(&reply).unwrap();
    let id = msg.id().unwrap();
    let mistaken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        remap.route_reply(&copy, id, &mut BytesMut::new())
    }));
    assert!(mistaken.is_err());
    assert_eq!(remap.len(), 1);

    let cancel =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"req-1"}}"#;
    let Ok(Message::Notification(n)) = Decoder::mcp().decode(cancel) else {
        panic!()
    };
    let mistaken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        remap.forward_cancel(&5, &cancel.clone(), &n, &mut BytesMut::new())
    }));
    assert!(mistaken.is_err());
    assert_eq!(remap.len(), 1);
    assert_eq!(route(&mut remap, &reply).0, Ok(5));
}

/// A request passed with another buffer than the one it was decoded from panics before the
/// remapper keeps anything: the client may send it again, properly, with the same id.
#[test]
fn a_mistaken_request_frame_panics_before_anything_is_kept() {
    let mut remap: IdRemapper<u32> = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":"req-1","method":"tools/call"}"#;
    let copy = *frame;
    let req = request(frame);
    let mistaken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        remap.forward_request(5, &copy, &req, None, &mut BytesMut::new())
    }));
    assert!(mistaken.is_err());
    assert_eq!((remap.len(), remap.bytes()), (0, 0));
    assert!(
        remap
            .forward_request(5, frame, &req, None, &mut BytesMut::new())
            .is_ok()
    );
}

/// A request whose id and progress token overlap in the frame was not decoded from it (the
/// decoder never hands out such a pair): it panics as documented, and like any other such
/// mistake before anything is kept, not after the request is filed (whose id the client could
/// then never use again).
#[test]
fn overlapping_id_and_progress_token_panic_before_anything_is_kept() {
    let mut remap: IdRemapper<u32> = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{"_meta":{"progressToken":"p"}}}"#;
    let req = request(frame);
    let token = rpcwire::mcp::progress_token(&Message::Request(req)).unwrap();
    let forged = rpcwire::Request { id: token, ..req };
    let mistaken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        remap.forward_request(5, frame, &forged, None, &mut BytesMut::new())
    }));
    assert!(mistaken.is_err());
    assert_eq!((remap.len(), remap.bytes()), (0, 0));
    assert!(remap.get(&5, token).is_none());
    assert!(
        remap
            .forward_request(5, frame, &req, None, &mut BytesMut::new())
            .is_ok()
    );
}

/// A client going away costs its own requests, not every request in flight: a gateway with
/// many requests waiting upstream, whose clients come and go (each a connection a peer can
/// open and close at will), must not scan them all at every disconnection. Here one client
/// keeps 20,000 requests in flight while 20,000 others come, send one, and leave. What it
/// asserts is what each disconnection hands back and leaves behind; the cost shows in its run
/// time: as a scan of the whole table at each disconnection (hundreds of millions of entries
/// visited), 14 s in a debug build; as the client's list (one entry each), a fraction of a
/// second.
#[test]
fn a_client_going_away_costs_its_own_requests_only() {
    const N: u32 = 20_000;
    let mut remap: IdRemapper<u32> = IdRemapper::new(2 * N as usize);
    let mut out = BytesMut::new();
    for i in 0..N {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#);
        let frame = frame.as_bytes();
        remap
            .forward_request(0, frame, &request(frame), None, &mut out)
            .unwrap();
        out.clear();
    }
    let frame = br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#;
    let req = request(frame);
    for client in 1..=N {
        let token = remap
            .forward_request(client, frame, &req, None, &mut out)
            .unwrap();
        out.clear();
        let dropped = remap.drop_client(&client);
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped[0].0, token);
        assert_eq!(
            (dropped[0].1.client, dropped[0].1.id.as_id().raw()),
            (client, &b"\"a\""[..])
        );
        // Nothing of it is left: the same id is new again.
        assert!(remap.get(&client, req.id).is_none());
    }
    assert_eq!(remap.len(), N as usize);
    assert!(remap.drop_client(&(N + 1)).is_empty());
    // The client's own requests, latest first.
    let dropped = remap.drop_client(&0);
    let ids = dropped.iter().map(|(_, o)| o.id.as_id().as_i64().unwrap());
    assert!(ids.eq((0..i64::from(N)).rev()));
    assert_eq!((remap.len(), remap.bytes()), (0, 0));
}

/// The other direction, with a remapper keyed by upstream: two servers behind one client both
/// send it a request with id `0`; the client sees two tokens, and its replies, in either
/// order, go back each to the server that asked, with `0` restored; a second reply to the
/// same token goes nowhere.
#[test]
fn servers_requests_to_one_client() {
    let mut to_client = IdRemapper::new(16);
    let mut tokens = Vec::new();
    for server in [7u32, 9] {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{{"from":{server}}}}}"#
        );
        let mut out = BytesMut::new();
        let token = to_client
            .forward_request(
                server,
                frame.as_bytes(),
                &request(frame.as_bytes()),
                None,
                &mut out,
            )
            .unwrap();
        assert_eq!(
            out.to_vec(),
            format!(
                "{}\n",
                frame.replacen("\"id\":0", &format!("\"id\":{token}"), 1)
            )
            .into_bytes()
        );
        tokens.push(token);
    }
    assert_ne!(tokens[0], tokens[1]);
    for (token, server) in [(tokens[1], 9u32), (tokens[0], 7)] {
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"model":"m"}}}}"#);
        let (origin, out) = route(&mut to_client, reply.as_bytes());
        assert_eq!(origin, Ok(server));
        assert_eq!(
            out,
            b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"model\":\"m\"}}\n"
        );
        let (again, out) = route(&mut to_client, reply.as_bytes());
        assert!(
            again.is_err(),
            "a second reply to {token} went to {again:?}"
        );
        assert!(out.is_empty());
    }
}

// Tasks (MCP 2025-11-25, experimental): a task-augmented request's progress token stays valid
// after its `CreateTaskResult`, until the task reaches a terminal status.

/// A `tools/call` of `client`'s, with id `id`, task-augmented when `task`, asking for progress
/// on `"p1"`: forwarded, its token returned.
fn forward_call(remap: &mut IdRemapper<u32>, client: u32, id: u32, task: bool) -> u64 {
    let task = if task { r#","task":{"ttl":60000}"# } else { "" };
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x","arguments":{{}}{task},"_meta":{{"progressToken":"p1"}}}}}}"#
    );
    let frame = frame.as_bytes();
    remap
        .forward_request(client, frame, &request(frame), None, &mut BytesMut::new())
        .unwrap()
        .get()
}

/// The upstream's `CreateTaskResult` for `token`: task `task_id`, status `working`.
fn created(token: u64, task_id: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"task":{{"taskId":"{task_id}","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":5000}}}}}}"#
    )
    .into_bytes()
}

/// Progress on `token` as the upstream sends it.
fn task_progress(token: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#
    )
}

/// Routes upstream progress: the client and what was written, the token, and whether the
/// request was still in flight.
fn progress_to(remap: &IdRemapper<u32>, frame: &str) -> Option<(u32, String, u64, bool)> {
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else {
        panic!("{frame}")
    };
    let mut out = BytesMut::new();
    let routed = remap.route_progress(frame.as_bytes(), &n, &mut out);
    match routed {
        Some(r) => Some((
            *r.client,
            String::from_utf8(out.to_vec()).unwrap(),
            r.token.get(),
            r.request.is_some(),
        )),
        None => {
            assert!(out.is_empty());
            None
        }
    }
}

/// A task's status notification as the upstream sends it.
fn status(task_id: &str, status: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{{"taskId":"{task_id}","status":"{status}","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttl":60000}}}}"#
    )
    .into_bytes()
}

/// Routes a status notification: its client, and what was written.
fn status_to(remap: &mut IdRemapper<u32>, frame: &[u8]) -> Option<(u32, Vec<u8>)> {
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame) else {
        panic!()
    };
    let mut out = BytesMut::new();
    let routed = remap.route_task_status(frame, &n, &mut out);
    if routed.is_none() {
        assert!(out.is_empty());
    }
    routed.map(|(_, client)| (client, out.to_vec()))
}

/// Two clients each create a task, both asking progress on `"p1"`: after the
/// `CreateTaskResult`s, each task's progress goes to its own client with `"p1"` restored, its
/// status notifications to that client alone; a terminal status ends the route, and later
/// progress on its token is unknown (dropped, as progress after a request's result is), while
/// the task's client is kept (its status still goes there alone). The other task's route lives
/// on.
#[test]
fn a_tasks_progress_goes_to_its_client_until_the_task_ends() {
    let mut remap = IdRemapper::new(8);
    let t1 = forward_call(&mut remap, 1, 1, true);
    let t2 = forward_call(&mut remap, 2, 1, true);
    // Before the reply, progress is the request's.
    let p1 = task_progress(t1);
    let restored =
        task_progress(0).replace("\"progressToken\":0", "\"progressToken\":\"p1\"") + "\n";
    assert_eq!(
        progress_to(&remap, &p1),
        Some((1, restored.clone(), t1, true))
    );

    for (token, task_id, client) in [(t1, "task-1", 1), (t2, "task-2", 2)] {
        let (routed, out) = route(&mut remap, &created(token, task_id));
        assert_eq!(routed, Ok(client));
        // The reply itself goes back with the client's id, the task id unchanged.
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(created(1, task_id)).unwrap() + "\n"
        );
    }
    assert_eq!((remap.len(), remap.task_routes()), (0, 2));
    // Answered: the clients' ids are free again; a second reply is stale.
    assert_eq!(
        route(&mut remap, &created(t1, "task-1")),
        (Err(Miss::Stale), vec![])
    );
    let t3 = forward_call(&mut remap, 1, 1, false);
    assert_ne!(t3, t1);

    // The tasks' progress, each to its client, after the reply.
    assert_eq!(
        progress_to(&remap, &p1),
        Some((1, restored.clone(), t1, false))
    );
    assert_eq!(
        progress_to(&remap, &task_progress(t2)),
        Some((2, restored.clone(), t2, false))
    );
    // Status notifications go to the task's client alone, unchanged; one not terminal keeps
    // the route.
    for (task_id, client) in [("task-1", 1), ("task-2", 2)] {
        let s = status(task_id, "input_required");
        let mut expected = s.clone();
        expected.push(b'\n');
        assert_eq!(status_to(&mut remap, &s), Some((client, expected)));
    }
    assert_eq!(status_to(&mut remap, &status("task-9", "completed")), None);
    assert_eq!(remap.task_routes(), 2);

    // Task 1 completes: its status goes to client 1, then its progress goes nowhere.
    assert_eq!(
        status_to(&mut remap, &status("task-1", "completed")).map(|(c, _)| c),
        Some(1)
    );
    assert_eq!(progress_to(&remap, &p1), None);
    assert_eq!(
        status_to(&mut remap, &status("task-1", "completed")).map(|(c, _)| c),
        Some(1)
    );
    assert_eq!((remap.task_routes(), remap.tasks()), (1, 2));
    // Task 2's route is untouched, until its task fails.
    assert_eq!(
        progress_to(&remap, &task_progress(t2)).map(|r| r.0),
        Some(2)
    );
    assert_eq!(
        status_to(&mut remap, &status("task-2", "failed")).map(|(c, _)| c),
        Some(2)
    );
    assert_eq!(progress_to(&remap, &task_progress(t2)), None);
    // What is left is the plain request in flight, and the two ended tasks' records: their
    // task ids ("task-1", quotes included), not their progress tokens.
    assert_eq!((remap.len(), remap.task_routes(), remap.tasks()), (1, 0, 2));
    assert_eq!(remap.bytes(), 1 + 4 + 2 * 8);
}

/// A request that is not task-augmented loses its progress route at its reply, whatever the
/// reply holds (even a result shaped like a `CreateTaskResult`); a task-augmented request
/// answered by anything but a `CreateTaskResult` of a live task loses it too (one of a task
/// that ended already keeps the task its client's).
#[test]
fn any_other_reply_ends_the_progress_route() {
    let mut remap = IdRemapper::new(8);
    let plain = forward_call(&mut remap, 1, 1, false);
    assert_eq!(route(&mut remap, &created(plain, "task-1")).0, Ok(1));
    assert_eq!(progress_to(&remap, &task_progress(plain)), None);
    assert_eq!(status_to(&mut remap, &status("task-1", "completed")), None);

    let replies: [fn(u64) -> String; 7] = [
        // A plain result: the upstream ran the call without a task.
        |t| format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{"content":[],"isError":false}}}}"#),
        |t| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{t},"error":{{"code":-32601,"message":"Method not found"}}}}"#
            )
        },
        // A task id that is no string, a task that is no object, no task id, an ambiguous
        // task id, a task in the wrong place.
        |t| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{t},"result":{{"task":{{"taskId":7,"status":"working"}}}}}}"#
            )
        },
        |t| format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{"task":"t"}}}}"#),
        |t| format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{"task":{{"status":"working"}}}}}}"#),
        |t| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{t},"result":{{"task":{{"taskId":"a","taskId":"b"}}}}}}"#
            )
        },
        |t| format!(r#"{{"jsonrpc":"2.0","id":{t},"result":{{"taskId":"t","status":"working"}}}}"#),
    ];
    for (case, reply) in replies.into_iter().enumerate() {
        let token = forward_call(&mut remap, 1, 1, true);
        let (routed, out) = route(&mut remap, reply(token).as_bytes());
        assert_eq!(routed, Ok(1), "{case}");
        assert!(!out.is_empty(), "{case}");
        assert_eq!(progress_to(&remap, &task_progress(token)), None, "{case}");
        assert_eq!(
            (remap.len(), remap.task_routes(), remap.bytes()),
            (0, 0, 0),
            "{case}"
        );
    }
    // A task ended already (MCP expects a new task `working`): no route, and its client is
    // kept, as for any task that ended (before, the task was left open to every client).
    let token = forward_call(&mut remap, 1, 1, true);
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"task":{{"taskId":"t","status":"completed","ttl":null}}}}}}"#
    );
    assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1));
    assert_eq!(progress_to(&remap, &task_progress(token)), None);
    assert_eq!((remap.len(), remap.task_routes(), remap.tasks()), (0, 0, 1));
    assert_eq!(
        remap.task_owner(Id::from_token(br#""t""#).unwrap()),
        Some(&1)
    );
    let get = r#"{"jsonrpc":"2.0","id":"g","method":"tasks/result","params":{"taskId":"t"}}"#;
    assert_eq!(
        forward_task_op(&mut remap, 2, get),
        Err(RemapError::ForeignTask)
    );
    assert!(remap.drop_client(&1).is_empty());
    assert_eq!((remap.tasks(), remap.bytes()), (0, 0));

    // An invalid reply the caller takes out leaves no route either.
    let token = forward_call(&mut remap, 1, 1, true);
    let reply = created(token, "task-1");
    let msg = Decoder::mcp_client().decode(&reply).unwrap();
    assert_eq!(remap.take(msg.id().unwrap()).map(|o| o.client), Ok(1));
    assert_eq!((remap.len(), remap.task_routes()), (0, 0));
}

/// A task whose `status` is given twice (which peers may read either way) is still a task:
/// its id names it, so the `CreateTaskResult` keeps its route and its client, and its status
/// notification goes to that client, without ending the task (it may be running). Another
/// client cannot reach it. (Such a task was once read as none: no route, and open to every
/// client.)
#[test]
fn a_task_whose_status_is_given_twice_is_still_its_clients() {
    let mut remap = IdRemapper::new(8);
    let token = forward_call(&mut remap, 1, 1, true);
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"task":{{"taskId":"task-1","status":"working","status":"completed","ttl":60000}}}}}}"#
    );
    assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1));
    assert_eq!((remap.task_routes(), remap.tasks()), (1, 1));
    assert_eq!(
        progress_to(&remap, &task_progress(token)).map(|r| r.0),
        Some(1)
    );

    let twice = br#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"task-1","status":"completed","status":"working"}}"#;
    assert_eq!(status_to(&mut remap, twice).map(|(c, _)| c), Some(1));
    assert_eq!(remap.task_routes(), 1);

    let get = r#"{"jsonrpc":"2.0","id":"q","method":"tasks/get","params":{"taskId":"task-1"}}"#;
    assert_eq!(
        forward_task_op(&mut remap, 2, get),
        Err(RemapError::ForeignTask)
    );
}

/// The results of `tasks/get` and `tasks/cancel` that carry a terminal status, and any
/// result of `tasks/result` (it comes once the task has ended), end the task's route (the
/// record of its client stays); a status not terminal, or another task's, does not.
#[test]
fn task_requests_whose_results_tell_the_task_ended_forget_its_route() {
    let query = |remap: &mut IdRemapper<u32>, client: u32, method: &str, result: &str| {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":"q","method":"{method}","params":{{"taskId":"task-1"}}}}"#
        );
        let mut up = BytesMut::new();
        let token = remap
            .forward_request(
                client,
                frame.as_bytes(),
                &request(frame.as_bytes()),
                None,
                &mut up,
            )
            .unwrap();
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{result}}}"#);
        assert_eq!(route(remap, reply.as_bytes()).0, Ok(client));
    };
    let task = |status: &str| {
        format!(
            r#"{{"taskId":"task-1","status":"{status}","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000}}"#
        )
    };
    let related = r#"{"content":[],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-1"}}}"#;
    let ends: [(&str, String); 3] = [
        ("tasks/get", task("completed")),
        ("tasks/cancel", task("cancelled")),
        ("tasks/result", related.into()),
    ];
    for (method, result) in ends {
        let mut remap = IdRemapper::new(8);
        let token = forward_call(&mut remap, 1, 1, true);
        route(&mut remap, &created(token, "task-1")).0.unwrap();
        // Not ended yet: a status not terminal, another task's, another method's result.
        query(&mut remap, 1, "tasks/get", &task("working"));
        query(
            &mut remap,
            1,
            "tasks/get",
            &task("completed").replace("task-1", "task-2"),
        );
        query(&mut remap, 1, "tools/list", &task("completed"));
        assert!(
            progress_to(&remap, &task_progress(token)).is_some(),
            "{method}"
        );
        // The task's own client learns it ended.
        query(&mut remap, 1, method, &result);
        assert_eq!(progress_to(&remap, &task_progress(token)), None, "{method}");
        assert_eq!(
            (
                remap.len(),
                remap.task_routes(),
                remap.tasks(),
                remap.bytes()
            ),
            (0, 0, 1, 8),
            "{method}"
        );
    }
}

/// A `tasks/result` is answered only once its task has ended ("it **MUST** block the response
/// until the task reaches a terminal status"), and its answer is "exactly what the underlying
/// request would have returned, whether that is a successful result or a JSON-RPC error", or
/// an error for a task the upstream no longer knows: any reply to a client's `tasks/result`
/// for its own task ends that task's route, by the task its `params.taskId` names (the source
/// of truth), also when the reply is an error or a result without `_meta`'s related task. The
/// client's share is free again, and the record of its client stays. (Left live, the route
/// held a place of the client's share until a status or its deadline came, which a client
/// that got its task's result had no reason to ask for.)
#[test]
fn any_reply_to_a_tasks_result_ends_the_route_of_the_task_it_names() {
    let t1 = || Id::from_token(b"\"task-1\"").unwrap();
    let replies = [
        r#"{"error":{"code":-32000,"message":"the tool failed"}}"#,
        r#"{"error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}}"#,
        r#"{"error":{"code":-32603,"message":"internal error"}}"#,
        r#"{"result":{"content":[],"isError":false}}"#,
    ];
    for reply in replies {
        let mut remap = IdRemapper::new(8).max_per_client(2);
        let token = forward_call(&mut remap, 1, 1, true);
        route(&mut remap, &created(token, "task-1")).0.unwrap();
        assert_eq!((remap.task_routes(), remap.client_len(&1)), (1, 1));
        let q = forward_task_op(&mut remap, 1, &task_op("tasks/result", "task-1")).unwrap();
        let frame = format!(r#"{{"jsonrpc":"2.0","id":{q},{}"#, &reply[1..]);
        assert_eq!(route(&mut remap, frame.as_bytes()).0, Ok(1), "{reply}");
        assert_eq!(progress_to(&remap, &task_progress(token)), None, "{reply}");
        assert_eq!(
            (
                remap.len(),
                remap.task_routes(),
                remap.tasks(),
                remap.client_len(&1),
                remap.client_bytes(&1),
                remap.bytes(),
                remap.task_owner(t1()),
            ),
            (0, 0, 1, 0, 0, 8, Some(&1)),
            "{reply}"
        );
        // Its status still goes to its client alone.
        assert_eq!(
            status_to(&mut remap, &status("task-1", "failed")).map(|(c, _)| c),
            Some(1)
        );
    }

    // A reply to a `tasks/result` of another task of the client's ends that task only.
    let mut remap = IdRemapper::new(8);
    for (id, task) in [(1, "task-1"), (2, "task-2")] {
        let token = forward_call(&mut remap, 1, id, true);
        route(&mut remap, &created(token, task)).0.unwrap();
    }
    let q = forward_task_op(&mut remap, 1, &task_op("tasks/result", "task-2")).unwrap();
    let failed = format!(r#"{{"jsonrpc":"2.0","id":{q},"error":{{"code":-32000,"message":"x"}}}}"#);
    assert_eq!(route(&mut remap, failed.as_bytes()).0, Ok(1));
    assert_eq!((remap.task_routes(), remap.tasks()), (1, 2));
    assert_eq!(progress_to(&remap, &task_progress(1)).map(|p| p.0), Some(1));
}

/// The upstream "**MUST** reject cancellation requests for tasks already in a terminal status
/// (`completed`, `failed`, or `cancelled`) with error code `-32602`", which it also answers
/// for a task it does not know: a -32602 answering a client's `tasks/cancel` of its own task
/// ends that task's route (the record of its client stays: the task may be retained, its
/// result retrievable). Another error code leaves the route live.
#[test]
fn a_refused_tasks_cancel_ends_the_route_of_the_task_it_names() {
    let t1 = || Id::from_token(b"\"task-1\"").unwrap();
    let refusal = |q: u64, code: i32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{q},"error":{{"code":{code},"message":"Task already in a terminal status"}}}}"#
        )
    };
    let mut remap = IdRemapper::new(8).max_per_client(2);
    let token = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(token, "task-1")).0.unwrap();
    let q = forward_task_op(&mut remap, 1, &task_op("tasks/cancel", "task-1")).unwrap();
    assert_eq!(route(&mut remap, refusal(q, -32603).as_bytes()).0, Ok(1));
    assert_eq!((remap.task_routes(), remap.client_len(&1)), (1, 1));
    assert!(progress_to(&remap, &task_progress(token)).is_some());
    let q = forward_task_op(&mut remap, 1, &task_op("tasks/cancel", "task-1")).unwrap();
    assert_eq!(route(&mut remap, refusal(q, -32602).as_bytes()).0, Ok(1));
    assert_eq!(progress_to(&remap, &task_progress(token)), None);
    assert_eq!(
        (
            remap.task_routes(),
            remap.tasks(),
            remap.client_len(&1),
            remap.task_owner(t1())
        ),
        (0, 1, 0, Some(&1))
    );
}

/// Task routes hold places and bytes under the remapper's bounds: a `CreateTaskResult` whose
/// route would pass the byte budget (a task id as long as a hostile upstream likes) leaves
/// none (the reply still goes back), one that names a task id routed already takes it over;
/// a client going
/// away, the upstream going away and a route's deadline forget routes, giving their bytes
/// back, and hand out nothing for them.
#[test]
fn task_routes_are_bounded_and_forgotten() {
    // A route holds "p1" (4 bytes) and its task id (quotes included).
    let mut remap = IdRemapper::new(3).max_bytes(100);
    let token = forward_call(&mut remap, 1, 1, true);
    assert_eq!(remap.bytes(), 1 + 4);
    let long = "x".repeat(200);
    assert_eq!(route(&mut remap, &created(token, &long)).0, Ok(1));
    assert_eq!((remap.task_routes(), remap.bytes()), (0, 0));
    assert_eq!(progress_to(&remap, &task_progress(token)), None);
    // One that fits is kept: 4 + 8.
    let token = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(token, "task-1")).0.unwrap();
    assert_eq!((remap.task_routes(), remap.bytes()), (1, 12));
    // The same task id again (from another client's request) names a new task: the old one
    // is gone upstream (ended unseen), and the id is the new task's client's, its route the
    // only one.
    let other = forward_call(&mut remap, 2, 1, true);
    assert_eq!(route(&mut remap, &created(other, "task-1")).0, Ok(2));
    assert_eq!((remap.task_routes(), remap.bytes()), (1, 12));
    assert_eq!(progress_to(&remap, &task_progress(token)), None);
    assert_eq!(
        progress_to(&remap, &task_progress(other)).map(|p| p.0),
        Some(2)
    );
    assert_eq!(
        status_to(&mut remap, &status("task-1", "working")).map(|(c, _)| c),
        Some(2)
    );
    // Routes take places in the table: three routes, and a request is refused as Full.
    for client in [2, 3] {
        let token = forward_call(&mut remap, client, 1, true);
        route(&mut remap, &created(token, &format!("task-{client}")))
            .0
            .unwrap();
    }
    assert_eq!((remap.len(), remap.task_routes()), (0, 3));
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(
        remap.forward_request(4, frame, &request(frame), None, &mut BytesMut::new()),
        Err(RemapError::Full { limit: 3 })
    );
    // A client going away forgets its routes (client 2's: task-1 since it took it over, and
    // task-2), and returns none.
    assert!(remap.drop_client(&2).is_empty());
    assert_eq!((remap.task_routes(), remap.bytes()), (1, 12));
    assert_eq!(status_to(&mut remap, &status("task-2", "working")), None);
    assert_eq!(status_to(&mut remap, &status("task-1", "working")), None);
    // The upstream going away forgets them all.
    assert_eq!(remap.drain().count(), 0);
    assert_eq!((remap.len(), remap.task_routes(), remap.bytes()), (0, 0, 0));
    assert_eq!(status_to(&mut remap, &status("task-1", "working")), None);

    // A route keeps its request's deadline, which progress may move, and ends silently there:
    // its client is kept (routed without the time, the task's ttl cannot be told: until the
    // client goes).
    let mut remap = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"task":{},"_meta":{"progressToken":"p1"}}}"#;
    let token = remap
        .forward_request(1, frame, &request(frame), Some(100), &mut BytesMut::new())
        .unwrap();
    route(&mut remap, &created(token.get(), "task-1"))
        .0
        .unwrap();
    assert_eq!(remap.has_deadline(token), Some(true));
    assert!(remap.next_wakeup().is_some_and(|at| at <= 100));
    let routed = progress_to(&remap, &task_progress(token.get())).unwrap();
    assert_eq!(routed.2, token.get());
    assert!(remap.set_deadline(token, Some(200)));
    assert_eq!(remap.expire(150).count(), 0);
    assert_eq!(remap.task_routes(), 1);
    assert_eq!(remap.expire(200).count(), 0);
    assert_eq!(
        (remap.task_routes(), remap.tasks(), remap.bytes()),
        (0, 1, 8)
    );
    assert_eq!(progress_to(&remap, &task_progress(token.get())), None);
    assert_eq!(remap.has_deadline(token), None);
    assert_eq!(remap.next_wakeup(), None);
    assert_eq!(
        remap.task_owner(Id::from_token(b"\"task-1\"").unwrap()),
        Some(&1)
    );
    assert!(remap.drop_client(&1).is_empty());
    assert_eq!((remap.tasks(), remap.bytes()), (0, 0));
}

/// After its `CreateTaskResult`, the request is answered: its client's cancellation of it
/// names nothing (MCP cancels a task with `tasks/cancel`), and a listen-stream stamp naming
/// its token routes nowhere.
#[test]
fn a_task_route_is_no_request_in_flight() {
    let mut remap = IdRemapper::new(8);
    let token = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(token, "task-1")).0.unwrap();
    let cancel =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    let Ok(Message::Notification(n)) = Decoder::mcp().decode(cancel) else {
        panic!()
    };
    assert!(
        remap
            .forward_cancel(&1, cancel, &n, &mut BytesMut::new())
            .is_none()
    );
    assert_eq!(
        remap.get(&1, request(br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#).id),
        None
    );
    let stamped = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{token}}}}}}}"#
    );
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(stamped.as_bytes()) else {
        panic!()
    };
    assert!(
        remap
            .route_subscription(stamped.as_bytes(), &n, &mut BytesMut::new())
            .is_none()
    );
    assert_eq!(remap.task_routes(), 1);
}

/// `Debug` counts the requests in flight apart from the tasks kept: a request that became a
/// task's route leaves `in_flight` for `task_routes` and `tasks`, and a route that ended stays
/// in `tasks` alone.
#[test]
fn debug_counts_requests_in_flight_apart_from_tasks() {
    let mut remap = IdRemapper::new(8);
    forward_call(&mut remap, 1, 1, false);
    let t2 = forward_call(&mut remap, 1, 2, true);
    let t3 = forward_call(&mut remap, 1, 3, true);
    assert_eq!(route(&mut remap, &created(t2, "task-2")).0, Ok(1));
    assert_eq!(route(&mut remap, &created(t3, "task-3")).0, Ok(1));
    assert!(status_to(&mut remap, &status("task-3", "completed")).is_some());
    assert_eq!((remap.len(), remap.task_routes(), remap.tasks()), (1, 1, 2));
    assert_eq!(
        format!("{remap:?}"),
        "IdRemapper { dialect: Mcp, in_flight: 1, task_routes: 1, tasks: 2, .. }"
    );
}

/// `is_empty` says whether a request is in flight: not while one is, and so once it is
/// answered, even when its reply left a task's route behind.
#[test]
fn is_empty_tells_whether_a_request_is_in_flight() {
    let mut remap = IdRemapper::new(8);
    assert!(remap.is_empty());
    let token = forward_call(&mut remap, 1, 1, true);
    assert!(!remap.is_empty());
    assert_eq!(route(&mut remap, &created(token, "task-1")).0, Ok(1));
    assert_eq!((remap.len(), remap.task_routes()), (0, 1));
    assert!(remap.is_empty());
}

/// `client`'s `ping` with the id `id`, forwarded or refused, as [`forward_task_op`] has it.
fn forward_ping(remap: &mut IdRemapper<u32>, client: u32, id: u32) -> Result<u64, RemapError> {
    let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
    forward_task_op(remap, client, &frame)
}

/// `client`'s request `frame` (its id `"q"`), forwarded or refused: the token, or the error
/// and that nothing was written or kept.
fn forward_task_op(
    remap: &mut IdRemapper<u32>,
    client: u32,
    frame: &str,
) -> Result<u64, RemapError> {
    forward_checked(remap, client, frame, None)
}

/// `client`'s request `frame` with `deadline`, forwarded or refused: the token, or the error
/// and that nothing was written or kept (the table, the bytes, the client's share).
fn forward_checked(
    remap: &mut IdRemapper<u32>,
    client: u32,
    frame: &str,
    deadline: Option<u64>,
) -> Result<u64, RemapError> {
    let before = (remap.len(), remap.bytes(), remap.client_len(&client));
    let mut up = BytesMut::new();
    let sent = remap.forward_request(
        client,
        frame.as_bytes(),
        &request(frame.as_bytes()),
        deadline,
        &mut up,
    );
    match sent {
        Ok(token) => Ok(token.get()),
        Err(e) => {
            assert!(up.is_empty(), "{frame}");
            let after = (remap.len(), remap.bytes(), remap.client_len(&client));
            assert_eq!(after, before, "{frame}");
            Err(e)
        }
    }
}

/// Through a gateway every client shares the upstream's session, so the upstream cannot tell
/// them apart: the remapper refuses a client's `tasks/get`, `tasks/result` or `tasks/cancel`
/// naming a task another client's request created, however the method or the task id is
/// spelled; the task's own client gets through, and so does a task id no route holds. A
/// task id the upstream could read otherwise than the remapper (not a string, named twice,
/// absent) is refused too.
#[test]
fn a_task_is_reachable_by_its_own_client_only() {
    let mut remap = IdRemapper::new(16);
    let token = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(token, "task-1")).0.unwrap();
    assert_eq!(
        remap.task_owner(Id::from_token(b"\"task-1\"").unwrap()),
        Some(&1)
    );
    assert_eq!(
        remap.task_owner(Id::from_token(b"\"task-9\"").unwrap()),
        None
    );
    let op = |method: &str, params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":"q","method":"{method}","params":{params}}}"#)
    };
    let foreign = [
        op("tasks/get", r#"{"taskId":"task-1"}"#),
        op("tasks/result", r#"{"taskId":"task-1"}"#),
        op("tasks/cancel", r#"{"taskId":"task-1"}"#),
        // The same task, spelled otherwise; the method, escaped.
        op("tasks/get", r#"{"taskId":"task\u002d1"}"#),
        op("tasks\\/result", r#"{"taskId":"task-1"}"#),
        // A `task` member does not make it a task-augmented request to let through.
        op("tasks/get", r#"{"taskId":"task-1","task":{}}"#),
        // Related-task metadata does not count (the spec: `taskId` is the source of truth).
        op(
            "tasks/get",
            r#"{"taskId":"task-1","_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-2"}}}"#,
        ),
    ];
    for frame in &foreign {
        assert_eq!(
            forward_task_op(&mut remap, 2, frame),
            Err(RemapError::ForeignTask),
            "{frame}"
        );
        // Its own client gets through.
        let token = forward_task_op(&mut remap, 1, frame).expect(frame);
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
        assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1));
    }
    let unreadable = [
        op("tasks/get", r#"{"taskId":7}"#),
        op("tasks/result", r#"{"taskId":"task-9","taskId":"task-1"}"#),
        op("tasks/cancel", r#"{}"#),
        r#"{"jsonrpc":"2.0","id":"q","method":"tasks/get"}"#.to_string(),
    ];
    for frame in &unreadable {
        for client in [1, 2] {
            assert_eq!(
                forward_task_op(&mut remap, client, frame),
                Err(RemapError::BadTaskId),
                "{frame}"
            );
        }
    }
    // A task no route holds goes upstream (which answers for it), and so does `tasks/list`.
    let unknown = op("tasks/get", r#"{"taskId":"task-9"}"#);
    assert!(forward_task_op(&mut remap, 2, &unknown).is_ok());
    assert!(
        forward_task_op(
            &mut remap,
            2,
            &op("tasks/list", "{}").replace("\"q\"", "\"l\"")
        )
        .is_ok()
    );
    // (Its own client's `tasks/result` was answered: the task has ended, its record stays.)
    assert_eq!((remap.len(), remap.task_routes(), remap.tasks()), (2, 0, 1));

    // The refusal's reply reads as an upstream's for a task it does not know (-32602).
    let mut out = BytesMut::new();
    RemapError::ForeignTask.write_reply(&mut out, Id::from_token(b"\"q\"").unwrap());
    assert_eq!(
        &out[..],
        &br#"{"jsonrpc":"2.0","id":"q","error":{"code":-32602,"message":"Failed to retrieve task: Task not found"}}
"#[..]
    );
    assert_eq!(
        RemapError::BadTaskId.code(),
        rpcwire::ErrorCode::INVALID_PARAMS
    );
    assert_eq!(
        RemapError::ForeignTask.to_string(),
        "the task named is another client's"
    );
}

/// The Tasks extension of MCP 2026-07-28 gives a task's client `tasks/update`, its
/// `inputResponses` to the task's input requests ("Servers **MUST** perform authentication
/// and authorization checks on each task-related request to ensure that the client has
/// permission to access a task"): through a gateway the upstream cannot tell clients apart,
/// so another client's `tasks/update` of the task is refused as a foreign task, one whose
/// `taskId` is not one string as unreadable, and the task's own client gets through, its
/// acknowledgement ending nothing.
#[test]
fn a_tasks_update_is_its_own_clients_only() {
    let mut remap = IdRemapper::new(16);
    let token = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(token, "task-1")).0.unwrap();
    let update = |task_id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"q","method":"tasks/update","params":{{"taskId":{task_id},"inputResponses":{{"name":{{"action":"accept","content":{{"input":"Luca"}}}}}}}}}}"#
        )
    };
    for task_id in [r#""task-1""#, r#""task-1""#] {
        assert_eq!(
            forward_task_op(&mut remap, 2, &update(task_id)),
            Err(RemapError::ForeignTask),
            "{task_id}"
        );
    }
    for task_id in ["7", r#""task-9","taskId":"task-1""#] {
        assert_eq!(
            forward_task_op(&mut remap, 2, &update(task_id)),
            Err(RemapError::BadTaskId),
            "{task_id}"
        );
    }
    let token = forward_task_op(&mut remap, 1, &update(r#""task-1""#)).unwrap();
    let ack = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"resultType":"complete"}}}}"#);
    assert_eq!(route(&mut remap, ack.as_bytes()).0, Ok(1));
    assert_eq!(
        (
            remap.task_routes(),
            remap.task_owner(Id::from_token(b"\"task-1\"").unwrap())
        ),
        (1, Some(&1))
    );
    // A task no route holds goes upstream, which answers for it.
    assert!(forward_task_op(&mut remap, 2, &update(r#""task-9""#)).is_ok());
}

/// A `tools/call` of `client`'s with id `id` under MCP 2026-07-28, asking progress on `"p1"`,
/// its client capabilities `capabilities`: forwarded, its token returned.
fn forward_2026_call(remap: &mut IdRemapper<u32>, client: u32, id: u32, capabilities: &str) -> u64 {
    forward_2026_call_until(remap, client, id, capabilities, None)
}

/// [`forward_2026_call`], the request forwarded with `deadline`.
fn forward_2026_call_until(
    remap: &mut IdRemapper<u32>,
    client: u32,
    id: u32,
    capabilities: &str,
    deadline: Option<u64>,
) -> u64 {
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x","arguments":{{}},"_meta":{{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{capabilities}}}}}}}"#
    );
    forward_checked(remap, client, &frame, deadline).unwrap()
}

/// The client capabilities of a request declaring the Tasks extension of MCP 2026-07-28.
const TASKS_EXTENSION: &str = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;

/// The upstream's `CreateTaskResult` for `token` under the Tasks extension of MCP 2026-07-28:
/// the result is the task (`resultType: "task"`), with a ttl of `ttlMs`.
fn created_2026(token: u64, task_id: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"resultType":"task","taskId":"{task_id}","status":"working","statusMessage":"The operation is now in progress.","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttlMs":60000,"pollIntervalMs":5000}}}}"#
    )
    .into_bytes()
}

/// The Tasks extension of MCP 2026-07-28: a client declaring it on its request ("A server
/// **MUST NOT** return `CreateTaskResult` to a client that did not include the extension
/// capability on its request") may be answered with a `CreateTaskResult`, `resultType:
/// "task"`, the task itself (no `params.task`, no `result.task`). The task is its client's:
/// another client's `tasks/get`, `tasks/update` or `tasks/cancel` of it is refused, its own
/// gets through, until its `ttlMs` has passed since the reply was routed. The running task
/// is kept as a live route, but its progress is not routed ("`notifications/progress` [...]
/// are not supported on tasks in general in this specification").
#[test]
fn an_extension_task_is_its_clients() {
    let extension = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;
    let mut remap = IdRemapper::new(16);
    let token = forward_2026_call(&mut remap, 1, 1, extension);
    assert_eq!(
        route_at(&mut remap, &created_2026(token, "task-1"), 1_000),
        Ok(1)
    );
    assert_eq!(owner_of(&remap, "task-1"), Some(1));
    assert_eq!((remap.len(), remap.task_routes(), remap.tasks()), (0, 1, 1));
    assert_eq!(progress_to(&remap, &task_progress(token)), None);
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        assert_eq!(
            forward_task_op(&mut remap, 2, &task_op(method, "task-1")),
            Err(RemapError::ForeignTask),
            "{method}"
        );
        let token = forward_task_op(&mut remap, 1, &task_op(method, "task-1")).expect(method);
        let ack =
            format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"resultType":"complete"}}}}"#);
        assert_eq!(route(&mut remap, ack.as_bytes()).0, Ok(1));
    }
    // Its ttl passes: the route goes.
    assert_eq!(remap.expire(61_000).count(), 0);
    assert_eq!(
        (owner_of(&remap, "task-1"), remap.tasks(), remap.bytes()),
        (None, 0, 0)
    );

    // A request that declares the extension in another form the upstream may read as a
    // declaration (its capabilities given twice) may be answered with a task too.
    let twice = r#"{},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;
    let token = forward_2026_call(&mut remap, 1, 2, twice);
    assert_eq!(route(&mut remap, &created_2026(token, "task-2")).0, Ok(1));
    assert_eq!(owner_of(&remap, "task-2"), Some(1));
    // A reply with resultType "task" to a client that did not declare the extension (which
    // the upstream must not send) keeps nothing, nor does a plain result to one that did.
    let token = forward_2026_call(&mut remap, 1, 3, "{}");
    assert_eq!(route(&mut remap, &created_2026(token, "task-3")).0, Ok(1));
    let token = forward_2026_call(&mut remap, 1, 4, extension);
    let plain = format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"resultType":"complete","content":[]}}}}"#
    );
    assert_eq!(route(&mut remap, plain.as_bytes()).0, Ok(1));
    assert_eq!(
        (owner_of(&remap, "task-3"), remap.tasks(), remap.len()),
        (None, 1, 0)
    );
}

/// The Tasks extension of MCP 2026-07-28 sends a task's status, with its result, to a
/// client that asks for it on a `subscriptions/listen` stream ("clients send a
/// `subscriptions/listen` request to the server including a list of task IDs the client is
/// interested in"; "Each notification carries a complete `DetailedTask` [...] identical to
/// what `tasks/get` would have returned"): through a gateway the upstream cannot tell clients
/// apart, so a listen request whose `notifications.taskIds` names another client's task is
/// refused as a foreign task, as its `tasks/get` would be; one whose list the upstream could
/// read otherwise (not an array of strings, given twice) as unreadable. Its own client's,
/// and one naming no task kept, get through.
#[test]
fn a_listen_stream_asks_for_its_own_clients_tasks_only() {
    let mut remap = IdRemapper::new(16);
    let token = forward_2026_call(
        &mut remap,
        1,
        1,
        r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
    );
    assert_eq!(route(&mut remap, &created_2026(token, "task-1")).0, Ok(1));
    let listen = |id: &str, notifications: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"subscriptions/listen","params":{{"notifications":{notifications},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}}}}}}}}"#
        )
    };
    for notifications in [
        r#"{"taskIds":["task-1"]}"#,
        r#"{"toolsListChanged":true,"taskIds":["task-9","task\u002d1"]}"#,
    ] {
        assert_eq!(
            forward_task_op(&mut remap, 2, &listen("l", notifications)),
            Err(RemapError::ForeignTask),
            "{notifications}"
        );
    }
    for notifications in [
        r#"{"taskIds":[7]}"#,
        r#"{"taskIds":"task-1"}"#,
        r#"{"taskIds":["task-9"],"taskIds":["task-1"]}"#,
        r#"{"taskIds":[]},"notifications":{"taskIds":["task-1"]}"#,
    ] {
        assert_eq!(
            forward_task_op(&mut remap, 2, &listen("l", notifications)),
            Err(RemapError::BadTaskId),
            "{notifications}"
        );
    }
    assert!(forward_task_op(&mut remap, 1, &listen("l1", r#"{"taskIds":["task-1"]}"#)).is_ok());
    assert!(forward_task_op(&mut remap, 2, &listen("l2", r#"{"taskIds":["task-9"]}"#)).is_ok());
    assert!(forward_task_op(&mut remap, 2, &listen("l3", r#"{"toolsListChanged":true}"#)).is_ok());
}

/// Client 1's call made task `task-1`, and its `subscriptions/listen` (id `"l1"`) a stream
/// for it: the stream's upstream token, and the upstream's terminal `notifications/tasks` for
/// the task on that stream.
fn completed_on_listen_stream(remap: &mut IdRemapper<u32>) -> (u64, String) {
    let token = forward_call(remap, 1, 1, true);
    route(remap, &created(token, "task-1")).0.unwrap();
    let listen = r#"{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"taskIds":["task-1"]}}}"#;
    let stream = forward_task_op(remap, 1, listen).unwrap();
    let frame = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"task-1","status":"completed","result":{{"content":[]}},"_meta":{{"io.modelcontextprotocol/subscriptionId":{stream}}}}}}}"#
    );
    (stream, frame)
}

/// The Tasks extension's `notifications/tasks` (MCP 2026-07-28) comes on a listen stream,
/// stamped with the listen request's token: `route_task_status` leaves it (it would reach the
/// task's client with the upstream's stamp), and `route_subscription` sends it to the
/// stream's client with the client's id for the listen request restored.
#[test]
fn an_extension_task_notification_goes_by_its_stream() {
    let mut remap = IdRemapper::new(16);
    let (stream, frame) = completed_on_listen_stream(&mut remap);
    assert_eq!(status_to(&mut remap, frame.as_bytes()), None);
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else {
        panic!()
    };
    let mut out = BytesMut::new();
    let origin = remap
        .route_subscription(frame.as_bytes(), &n, &mut out)
        .unwrap();
    assert_eq!(origin.client, 1);
    assert_eq!(
        String::from_utf8(out.to_vec()).unwrap(),
        frame.replace(&format!(":{stream}}}"), r#":"l1"}"#) + "\n"
    );
}

/// A listen stream's notification passed with another buffer than the one it was decoded from
/// is the caller's mistake, and panics (as documented), but before anything is changed: a
/// terminal `notifications/tasks` does not end the task's live route first, and the right call
/// still routes it (and ends the route then).
#[test]
fn a_mistaken_subscription_frame_panics_before_a_task_route_ends() {
    let mut remap = IdRemapper::new(16);
    let (_, frame) = completed_on_listen_stream(&mut remap);
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else {
        panic!()
    };
    let before = (remap.task_routes(), remap.len(), remap.bytes());
    assert_eq!(before.0, 1);
    let copy = frame.clone();
    let mut out = BytesMut::new();
    let mistaken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        remap
            .route_subscription(copy.as_bytes(), &n, &mut out)
            .map(|origin| origin.client)
    }));
    assert!(mistaken.is_err());
    assert!(out.is_empty());
    assert_eq!((remap.task_routes(), remap.len(), remap.bytes()), before);
    let origin = remap
        .route_subscription(frame.as_bytes(), &n, &mut out)
        .unwrap();
    assert_eq!(origin.client, 1);
    assert_eq!(remap.task_routes(), 0);
}

/// A stream may ask for a task id the remapper does not keep yet: the task of another
/// client's request whose `CreateTaskResult` is not routed, which the listen request cannot be
/// refused for. Once the task is kept as that other client's, its `notifications/tasks` (its
/// result with it, "identical to what `tasks/get` would have returned") is not routed to the
/// stream; the task's own client's stream still gets it.
#[test]
fn a_foreign_tasks_notification_is_not_routed_to_a_stream() {
    let extension = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;
    let mut remap = IdRemapper::new(16);
    let call = forward_2026_call(&mut remap, 1, 1, extension);
    let listen = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"subscriptions/listen","params":{{"notifications":{{"taskIds":["task-1"]}}}}}}"#
        )
    };
    let early = forward_task_op(&mut remap, 2, &listen("l2")).unwrap();
    assert_eq!(route(&mut remap, &created_2026(call, "task-1")).0, Ok(1));
    let own = forward_task_op(&mut remap, 1, &listen("l1")).unwrap();
    let status = |stream: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"task-1","status":"completed","result":{{"content":[{{"type":"text","text":"secret"}}]}},"_meta":{{"io.modelcontextprotocol/subscriptionId":{stream}}}}}}}"#
        )
    };
    let routed = |remap: &mut IdRemapper<u32>, frame: &str| {
        let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else {
            panic!()
        };
        let mut out = BytesMut::new();
        let client = remap
            .route_subscription(frame.as_bytes(), &n, &mut out)
            .map(|origin| origin.client);
        if client.is_none() {
            assert!(out.is_empty());
        }
        client
    };
    assert_eq!(routed(&mut remap, &status(early)), None);
    assert_eq!(remap.task_routes(), 1);
    assert_eq!(routed(&mut remap, &status(own)), Some(1));
    // Another notification of the stream still reaches it.
    let changed = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{early}}}}}}}"#
    );
    assert_eq!(routed(&mut remap, &changed), Some(2));
}

/// Routes an upstream notification of a listen stream: its client.
fn subscription_to(remap: &mut IdRemapper<u32>, frame: &str) -> Option<u32> {
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else {
        panic!("{frame}")
    };
    remap
        .route_subscription(frame.as_bytes(), &n, &mut BytesMut::new())
        .map(|origin| origin.client)
}

/// The Tasks extension's `notifications/tasks` of task `task_id`, status `status`, on the
/// listen stream whose request went upstream as `stream`.
fn extension_status(stream: u64, task_id: &str, status: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tasks","params":{{"taskId":"{task_id}","status":"{status}","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":60000,"_meta":{{"io.modelcontextprotocol/subscriptionId":{stream}}}}}}}"#
    )
}

/// The Tasks extension's `tasks/get` result for `token` ("`GetTaskResult = Result &
/// DetailedTask`", `resultType` `"complete"`): task `task_id`, status `status`.
fn extension_get_result(token: u64, task_id: &str, status: &str) -> Vec<u8> {
    let result = if status == "completed" {
        r#","result":{"content":[],"isError":false}"#
    } else {
        ""
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"resultType":"complete","taskId":"{task_id}","status":"{status}","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:50:00Z","ttlMs":60000,"pollIntervalMs":5000{result}}}}}"#
    )
    .into_bytes()
}

/// A running task of the Tasks extension of MCP 2026-07-28 is kept as a live route, as a
/// 2025-11-25 task is: it is never given up for another client's requests, which find the
/// table (or the byte budget) full instead, so the task stays refused to other clients and
/// open to its own. (It was kept as a record from its start, and another client's requests
/// filling the table pushed it out: the task was then one the remapper did not keep, and
/// any client knowing its id could get, update, cancel or listen to it.) Its request's
/// deadline does not end it: nothing of the extension tells the caller the route's token to
/// move it by; its ttl does.
#[test]
fn a_running_extension_task_is_not_given_up_for_room() {
    // The table full: client 2's requests take the free places, and find no more.
    let mut remap = IdRemapper::new(3);
    let token = forward_2026_call_until(&mut remap, 1, 1, TASKS_EXTENSION, Some(30_000));
    assert_eq!(
        route_at(&mut remap, &created_2026(token, "task-1"), 1_000),
        Ok(1)
    );
    assert_eq!((remap.task_routes(), remap.tasks()), (1, 1));
    assert!(forward_ping(&mut remap, 2, 1).is_ok());
    assert!(forward_ping(&mut remap, 2, 2).is_ok());
    assert_eq!(
        forward_ping(&mut remap, 2, 3),
        Err(RemapError::Full { limit: 3 })
    );
    assert_eq!(owner_of(&remap, "task-1"), Some(1));
    let listen = r#"{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"taskIds":["task-1"]}}}"#;
    for op in [
        task_op("tasks/get", "task-1"),
        task_op("tasks/update", "task-1"),
        task_op("tasks/cancel", "task-1"),
        listen.to_string(),
    ] {
        assert_eq!(
            forward_task_op(&mut remap, 2, &op),
            Err(RemapError::ForeignTask),
            "{op}"
        );
    }
    // Its request's deadline passes: the route stays, and still gives no request its room.
    assert_eq!(remap.expire(31_000).count(), 0);
    assert_eq!(
        forward_ping(&mut remap, 2, 3),
        Err(RemapError::Full { limit: 3 })
    );
    assert_eq!(
        (remap.task_routes(), owner_of(&remap, "task-1")),
        (1, Some(1))
    );
    assert_eq!(
        forward_task_op(&mut remap, 2, &task_op("tasks/get", "task-1")),
        Err(RemapError::ForeignTask)
    );
    // Its own client's `tasks/get` gets through once a place is free.
    assert_eq!(remap.drop_client(&2).len(), 2);
    assert!(forward_task_op(&mut remap, 1, &task_op("tasks/get", "task-1")).is_ok());
    // Its ttl passes: the route goes, and the task with it.
    assert_eq!(remap.expire(61_000).count(), 0);
    assert_eq!((remap.tasks(), owner_of(&remap, "task-1")), (0, None));

    // The byte budget short: client 2's request would need the room of the running task,
    // and is refused instead (the route holds "task-1", 8 bytes; a ping its id, 1).
    let mut remap = IdRemapper::new(16).max_bytes(10);
    let token = forward_2026_call(&mut remap, 1, 1, TASKS_EXTENSION);
    assert_eq!(route(&mut remap, &created_2026(token, "task-1")).0, Ok(1));
    assert_eq!(remap.bytes(), 8);
    assert!(forward_ping(&mut remap, 2, 1).is_ok());
    assert!(forward_ping(&mut remap, 2, 2).is_ok());
    assert_eq!(
        forward_ping(&mut remap, 2, 3),
        Err(RemapError::OverBudget { budget: 10 })
    );
    assert_eq!(owner_of(&remap, "task-1"), Some(1));
    assert_eq!(
        forward_task_op(&mut remap, 2, &task_op("tasks/cancel", "task-1")),
        Err(RemapError::ForeignTask)
    );
}

/// An extension task becomes a record once it is seen to end, as a 2025-11-25 task does:
/// a terminal status in its `CreateTaskResult`, in its client's `tasks/get` result (the
/// result is the task, `resultType` `"complete"`), or in a `notifications/tasks` on its
/// client's listen stream. The record is refused to other clients while it is kept, and
/// gives its place up to a request that needs room. A status that is not terminal, or
/// another client's stream, ends nothing; its client going forgets it.
#[test]
fn an_extension_task_seen_to_end_becomes_a_record() {
    // By its client's `tasks/get`.
    let mut remap = IdRemapper::new(2);
    let token = forward_2026_call(&mut remap, 1, 1, TASKS_EXTENSION);
    assert_eq!(route(&mut remap, &created_2026(token, "task-1")).0, Ok(1));
    for (status, live) in [("working", 1), ("input_required", 1), ("completed", 0)] {
        let get = forward_task_op(&mut remap, 1, &task_op("tasks/get", "task-1")).unwrap();
        assert_eq!(
            route(&mut remap, &extension_get_result(get, "task-1", status)).0,
            Ok(1)
        );
        assert_eq!((remap.task_routes(), remap.tasks()), (live, 1), "{status}");
    }
    assert_eq!(
        forward_task_op(&mut remap, 2, &task_op("tasks/get", "task-1")),
        Err(RemapError::ForeignTask)
    );
    // The record gives its place up: client 2's second request takes it.
    assert!(forward_ping(&mut remap, 2, 1).is_ok());
    assert_eq!(owner_of(&remap, "task-1"), Some(1));
    assert!(forward_ping(&mut remap, 2, 2).is_ok());
    assert_eq!((owner_of(&remap, "task-1"), remap.tasks()), (None, 0));

    // By a `notifications/tasks` on its client's listen stream.
    let mut remap = IdRemapper::new(3);
    let token = forward_2026_call(&mut remap, 1, 1, TASKS_EXTENSION);
    assert_eq!(route(&mut remap, &created_2026(token, "task-1")).0, Ok(1));
    let listen = r#"{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"taskIds":["task-1"]}}}"#;
    let own = forward_task_op(&mut remap, 1, listen).unwrap();
    let other = forward_task_op(&mut remap, 2, &listen.replace("task-1", "task-9")).unwrap();
    assert_eq!(
        subscription_to(&mut remap, &extension_status(own, "task-1", "working")),
        Some(1)
    );
    // Another client's stream gets none of it, nor ends it.
    assert_eq!(
        subscription_to(&mut remap, &extension_status(other, "task-1", "completed")),
        None
    );
    assert_eq!(remap.task_routes(), 1);
    assert_eq!(
        forward_ping(&mut remap, 2, 1),
        Err(RemapError::Full { limit: 3 })
    );
    assert_eq!(
        subscription_to(&mut remap, &extension_status(own, "task-1", "completed")),
        Some(1)
    );
    assert_eq!((remap.task_routes(), remap.tasks()), (0, 1));
    assert_eq!(
        forward_task_op(&mut remap, 2, &task_op("tasks/update", "task-1")),
        Err(RemapError::ForeignTask)
    );
    assert!(forward_ping(&mut remap, 2, 1).is_ok());
    assert_eq!((owner_of(&remap, "task-1"), remap.tasks()), (None, 0));

    // By its `CreateTaskResult`, terminal already: a record at once.
    let mut remap = IdRemapper::new(4);
    let token = forward_2026_call(&mut remap, 1, 1, TASKS_EXTENSION);
    let done = String::from_utf8(created_2026(token, "task-1"))
        .unwrap()
        .replace(r#""status":"working""#, r#""status":"completed""#);
    assert_eq!(route(&mut remap, done.as_bytes()).0, Ok(1));
    assert_eq!(
        (
            remap.task_routes(),
            remap.tasks(),
            owner_of(&remap, "task-1")
        ),
        (0, 1, Some(1))
    );

    // Its client goes: the running task is forgotten.
    let token = forward_2026_call(&mut remap, 3, 1, TASKS_EXTENSION);
    assert_eq!(route(&mut remap, &created_2026(token, "task-3")).0, Ok(3));
    assert_eq!(remap.task_routes(), 1);
    assert!(remap.drop_client(&3).is_empty());
    assert_eq!(
        (
            remap.task_routes(),
            remap.tasks(),
            owner_of(&remap, "task-3")
        ),
        (0, 1, None)
    );
}

/// A running extension task counts against its client's share ([`IdRemapper::max_per_client`],
/// and its task id against [`IdRemapper::max_bytes_per_client`]), as a 2025-11-25 task's
/// live route does, until it is seen to end.
#[test]
fn a_running_extension_task_counts_against_its_clients_share() {
    let mut remap = IdRemapper::new(16).max_per_client(2);
    let token = forward_2026_call(&mut remap, 1, 1, TASKS_EXTENSION);
    assert_eq!(route(&mut remap, &created_2026(token, "task-1")).0, Ok(1));
    // The task id, as the upstream spelled it (no progress token kept).
    assert_eq!((remap.client_len(&1), remap.client_bytes(&1)), (1, 8));
    let get = forward_task_op(&mut remap, 1, &task_op("tasks/get", "task-1")).unwrap();
    assert_eq!(remap.client_len(&1), 2);
    assert_eq!(
        forward_ping(&mut remap, 1, 1),
        Err(RemapError::ClientFull { limit: 2 })
    );
    assert!(forward_ping(&mut remap, 2, 1).is_ok());
    // Its `tasks/get` tells it ended: its client has its room back.
    assert_eq!(
        route(&mut remap, &extension_get_result(get, "task-1", "failed")).0,
        Ok(1)
    );
    assert_eq!((remap.client_len(&1), remap.client_bytes(&1)), (0, 0));
    assert_eq!(owner_of(&remap, "task-1"), Some(1));
    assert!(forward_ping(&mut remap, 1, 1).is_ok());
    assert!(forward_ping(&mut remap, 1, 2).is_ok());

    // Two running tasks fill a share of two.
    let mut remap = IdRemapper::new(16).max_per_client(2);
    for (id, task_id) in [(1, "task-1"), (2, "task-2")] {
        let token = forward_2026_call(&mut remap, 1, id, TASKS_EXTENSION);
        assert_eq!(route(&mut remap, &created_2026(token, task_id)).0, Ok(1));
    }
    assert_eq!(remap.client_len(&1), 2);
    assert_eq!(
        forward_task_op(&mut remap, 1, &task_op("tasks/get", "task-1")),
        Err(RemapError::ClientFull { limit: 2 })
    );

    // A share of bytes too small for the task id: no route, and the task is not kept.
    let mut remap = IdRemapper::new(16).max_bytes_per_client(6);
    let token = forward_2026_call(&mut remap, 1, 1, TASKS_EXTENSION);
    assert_eq!(route(&mut remap, &created_2026(token, "task-1")).0, Ok(1));
    assert_eq!((remap.tasks(), owner_of(&remap, "task-1")), (0, None));
}

/// `route_reply_at`: routes `reply` at `now`, to the client it names.
fn route_at(remap: &mut IdRemapper<u32>, reply: &[u8], now: u64) -> Result<u32, Miss> {
    let msg = Decoder::jsonrpc().decode(reply).unwrap();
    remap
        .route_reply_at(reply, msg.id().unwrap(), now, &mut BytesMut::new())
        .map(|origin| origin.client)
}

/// A task's result stays retrievable after it ends, for its ttl ("Results retained for ttl
/// period from creation"): its progress route ends with it, but the remapper keeps its client,
/// and refuses the task to other clients, until the ttl (from the `CreateTaskResult`, routed
/// at a time) has passed; then the record goes, its bytes with it. `null` is unlimited: kept
/// until the client goes. A route whose deadline passes before the task ends keeps the
/// record too. A -32602 error answering the owner's `tasks/get` (the upstream no longer knows
/// the task) forgets it; one answering `tasks/result` or `tasks/cancel` does not (the task's
/// own request's error, or a task already ended).
#[test]
fn a_tasks_client_is_kept_within_its_ttl_after_it_ends() {
    let t1 = || Id::from_token(b"\"task-1\"").unwrap();
    let op = |method: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"q","method":"{method}","params":{{"taskId":"task-1"}}}}"#
        )
    };
    // Created at 1,000 with a ttl of 60,000 (the `created` helper's).
    let mut remap = IdRemapper::new(8);
    let token = forward_call(&mut remap, 1, 1, true);
    assert_eq!(
        route_at(&mut remap, &created(token, "task-1"), 1_000),
        Ok(1)
    );
    let token = rpcwire::Token::new(token).unwrap();
    assert_eq!(remap.has_deadline(token), Some(false));
    assert_eq!(
        status_to(&mut remap, &status("task-1", "completed")).map(|(c, _)| c),
        Some(1)
    );
    assert_eq!((remap.task_routes(), remap.tasks(), remap.len()), (0, 1, 0));
    // Its progress token's bytes are given back, its task id's kept; its deadline is no
    // longer the caller's to move.
    assert_eq!(remap.bytes(), 8);
    assert_eq!(progress_to(&remap, &task_progress(token.get())), None);
    assert_eq!(
        (
            remap.has_deadline(token),
            remap.set_deadline(token, Some(5))
        ),
        (None, false)
    );
    assert_eq!(remap.next_wakeup().map(|at| at <= 61_000), Some(true));
    // Another client still cannot fetch its result; its own client can, again and again.
    for _ in 0..2 {
        assert_eq!(
            forward_task_op(&mut remap, 2, &op("tasks/result")),
            Err(RemapError::ForeignTask)
        );
        let q = forward_task_op(&mut remap, 1, &op("tasks/result")).unwrap();
        let result = format!(
            r#"{{"jsonrpc":"2.0","id":{q},"result":{{"content":[],"_meta":{{"io.modelcontextprotocol/related-task":{{"taskId":"task-1"}}}}}}}}"#
        );
        assert_eq!(route_at(&mut remap, result.as_bytes(), 2_000), Ok(1));
    }
    assert_eq!(remap.expire(60_999).count(), 0);
    assert_eq!(remap.task_owner(t1()), Some(&1));
    // The ttl has passed: the upstream may have deleted the task; the record goes.
    assert_eq!(remap.expire(61_000).count(), 0);
    assert_eq!(
        (remap.tasks(), remap.bytes(), remap.task_owner(t1())),
        (0, 0, None)
    );
    assert!(forward_task_op(&mut remap, 2, &op("tasks/result")).is_ok());

    // A null ttl is unlimited: kept past any time, until its client goes.
    let mut remap = IdRemapper::new(8);
    let token = forward_call(&mut remap, 1, 1, true);
    let unlimited = String::from_utf8(created(token, "task-1"))
        .unwrap()
        .replace("\"ttl\":60000", "\"ttl\":null");
    route_at(&mut remap, unlimited.as_bytes(), 1_000).unwrap();
    status_to(&mut remap, &status("task-1", "failed")).unwrap();
    assert_eq!(remap.expire(u64::MAX).count(), 0);
    assert_eq!(remap.task_owner(t1()), Some(&1));
    assert!(remap.drop_client(&1).is_empty());
    assert_eq!((remap.tasks(), remap.bytes()), (0, 0));

    // A route's deadline passes (no progress, no status for a while): the progress route
    // ends, the record of its client stays until the ttl.
    let mut remap = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"task":{"ttl":1000},"_meta":{"progressToken":"p1"}}}"#;
    let token = remap
        .forward_request(1, frame, &request(frame), Some(100), &mut BytesMut::new())
        .unwrap();
    let reply = String::from_utf8(created(token.get(), "task-1"))
        .unwrap()
        .replace("60000", "1000");
    route_at(&mut remap, reply.as_bytes(), 50).unwrap();
    assert_eq!(remap.expire(100).count(), 0);
    assert_eq!(
        (remap.task_routes(), remap.tasks(), remap.bytes()),
        (0, 1, 8)
    );
    assert_eq!(progress_to(&remap, &task_progress(token.get())), None);
    assert_eq!(
        forward_task_op(&mut remap, 2, &op("tasks/get")),
        Err(RemapError::ForeignTask)
    );
    assert_eq!(remap.expire(1_049).count(), 0);
    assert_eq!(remap.tasks(), 1);
    assert_eq!(remap.expire(1_050).count(), 0);
    assert_eq!((remap.tasks(), remap.bytes()), (0, 0));

    // Error replies: -32602 to `tasks/result` and `tasks/cancel` keep the task, to
    // `tasks/get` forget it (live or ended); another code to `tasks/get` keeps it.
    let invalid = |q: u64, code: i32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{q},"error":{{"code":{code},"message":"Failed to retrieve task: Task not found"}}}}"#
        )
    };
    for ended in [false, true] {
        let mut remap = IdRemapper::new(8);
        let token = forward_call(&mut remap, 1, 1, true);
        route_at(&mut remap, &created(token, "task-1"), 0).unwrap();
        if ended {
            status_to(&mut remap, &status("task-1", "completed")).unwrap();
        }
        for (method, code) in [
            ("tasks/result", -32602),
            ("tasks/cancel", -32602),
            ("tasks/get", -32603),
        ] {
            let q = forward_task_op(&mut remap, 1, &op(method)).unwrap();
            assert_eq!(route_at(&mut remap, invalid(q, code).as_bytes(), 10), Ok(1));
            assert_eq!(remap.task_owner(t1()), Some(&1), "{method}");
        }
        let q = forward_task_op(&mut remap, 1, &op("tasks/get")).unwrap();
        assert_eq!(route(&mut remap, invalid(q, -32602).as_bytes()).0, Ok(1));
        assert_eq!(
            (
                remap.task_owner(t1()),
                remap.tasks(),
                remap.task_routes(),
                remap.bytes()
            ),
            (None, 0, 0, 0)
        );
        assert_eq!(progress_to(&remap, &task_progress(token)), None);
        assert_eq!(status_to(&mut remap, &status("task-1", "completed")), None);
    }
}

/// `tasks/list` lists the whole upstream session's tasks, every client's: the remapper writes
/// the result for its client with that client's tasks only (kept, ended or not), in their
/// order, their bytes and the rest of the result (`nextCursor`) unchanged; another client's
/// task and a task the remapper does not keep are left out. An error reply goes as is; a
/// result whose `tasks` cannot be read as one array is not forwarded but answered -32603.
#[test]
fn a_task_list_holds_its_clients_tasks_only() {
    let mut remap = IdRemapper::new(16);
    for (client, task) in [(1, "task-1"), (2, "task-2"), (1, "task-3")] {
        let token = forward_call(&mut remap, client, client, true);
        route_at(&mut remap, &created(token, task), 0).unwrap();
    }
    status_to(&mut remap, &status("task-3", "completed")).unwrap();
    let task = |id: &str| {
        format!(
            r#"{{"taskId":"{id}","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:40:00Z","ttl":30000}}"#
        )
    };
    let listed = [
        task("task-1"),
        task("task-2"),
        task("task-9"),
        task("task\\u002d3"),
    ]
    .join(", ");
    let list = |remap: &mut IdRemapper<u32>, client: u32, result: &str| {
        let frame =
            format!(r#"{{"jsonrpc":"2.0","id":"l{client}","method":"tasks/list","params":{{}}}}"#);
        let q = forward_task_op(remap, client, &frame).unwrap();
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{q},"result":{result}}}"#);
        let msg = Decoder::jsonrpc().decode(reply.as_bytes()).unwrap();
        let mut out = BytesMut::new();
        let to = remap.route_reply(reply.as_bytes(), msg.id().unwrap(), &mut out);
        assert_eq!(to.map(|o| o.client), Ok(client));
        String::from_utf8(out.to_vec()).unwrap()
    };
    let result = format!(r#"{{"tasks":[{listed}],"nextCursor":"c2"}}"#);
    assert_eq!(
        list(&mut remap, 1, &result),
        format!(
            r#"{{"jsonrpc":"2.0","id":"l1","result":{{"tasks":[{},{}],"nextCursor":"c2"}}}}"#,
            task("task-1"),
            task("task\\u002d3")
        ) + "\n"
    );
    assert_eq!(
        list(&mut remap, 2, &result),
        format!(
            r#"{{"jsonrpc":"2.0","id":"l2","result":{{"tasks":[{}],"nextCursor":"c2"}}}}"#,
            task("task-2")
        ) + "\n"
    );
    assert_eq!(
        list(&mut remap, 3, &result),
        "{\"jsonrpc\":\"2.0\",\"id\":\"l3\",\"result\":{\"tasks\":[],\"nextCursor\":\"c2\"}}\n"
    );
    // The id before or after the result, and an empty list: the same.
    assert_eq!(
        list(&mut remap, 2, r#"{"tasks":[]}"#),
        "{\"jsonrpc\":\"2.0\",\"id\":\"l2\",\"result\":{\"tasks\":[]}}\n"
    );
    // An error goes back as is.
    let frame = r#"{"jsonrpc":"2.0","id":"l1","method":"tasks/list"}"#;
    let q = forward_task_op(&mut remap, 1, frame).unwrap();
    let error = format!(
        r#"{{"jsonrpc":"2.0","id":{q},"error":{{"code":-32602,"message":"Invalid cursor"}}}}"#
    );
    assert_eq!(
        route(&mut remap, error.as_bytes()),
        (
            Ok(1),
            br#"{"jsonrpc":"2.0","id":"l1","error":{"code":-32602,"message":"Invalid cursor"}}
"#
            .to_vec()
        )
    );
    // A list that cannot be filtered goes nowhere: its client is answered -32603.
    let unfilterable = [
        r#"{"tasks":{}}"#.to_string(),
        r#"{"nextCursor":"c"}"#.to_string(),
        format!(r#"{{"tasks":[],"tasks":[{}]}}"#, task("task-2")),
        r#"{"tasks":[{"taskId":"task-2"},]}"#.to_string(),
    ];
    for result in &unfilterable {
        let out = list(&mut remap, 1, result);
        assert!(
            out.starts_with(r#"{"jsonrpc":"2.0","id":"l1","error":{"code":-32603,"#),
            "{result}: {out}"
        );
        assert!(!out.contains("task-2"), "{result}");
    }
    assert_eq!((remap.len(), remap.tasks()), (0, 3));
}

/// The records of tasks that ended (kept for their ttl, or until their client goes when the
/// time is not known) never crowd out requests: when the table or the byte budget is full, a
/// new request takes the place of the oldest such record (whose task is then one the remapper
/// does not keep: unknown, as after its ttl). Live routes and requests in flight are never
/// given up for it.
#[test]
fn ended_tasks_give_their_places_to_new_requests() {
    let ping = |remap: &mut IdRemapper<u32>, client: u32, id: u32| {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        remap.forward_request(
            client,
            frame.as_bytes(),
            &request(frame.as_bytes()),
            None,
            &mut BytesMut::new(),
        )
    };
    let mut remap = IdRemapper::new(4);
    // Client 1 creates three tasks, which end; a fourth stays live.
    for n in 1..=4 {
        let token = forward_call(&mut remap, 1, n, true);
        route(&mut remap, &created(token, &format!("task-{n}")))
            .0
            .unwrap();
    }
    for n in 1..=3 {
        assert!(status_to(&mut remap, &status(&format!("task-{n}"), "completed")).is_some());
    }
    assert_eq!((remap.tasks(), remap.task_routes(), remap.len()), (4, 1, 0));
    // Another client's requests take the ended tasks' places, the oldest first.
    assert!(ping(&mut remap, 2, 1).is_ok());
    assert_eq!(
        remap.task_owner(Id::from_token(br#""task-1""#).unwrap()),
        None
    );
    assert_eq!(
        remap.task_owner(Id::from_token(br#""task-2""#).unwrap()),
        Some(&1)
    );
    assert!(ping(&mut remap, 2, 2).is_ok());
    assert!(ping(&mut remap, 2, 3).is_ok());
    assert_eq!((remap.tasks(), remap.task_routes(), remap.len()), (1, 1, 3));
    // The live route and the requests in flight keep theirs.
    assert_eq!(ping(&mut remap, 2, 4), Err(RemapError::Full { limit: 4 }));
    assert_eq!(
        status_to(&mut remap, &status("task-4", "working")).map(|(c, _)| c),
        Some(1)
    );

    // The same for the byte budget: "task-N" records hold 8 bytes each (the id).
    let mut remap = IdRemapper::new(64).max_bytes(28);
    fail_three_tasks(&mut remap);
    assert_eq!((remap.tasks(), remap.bytes()), (3, 24));
    // A request of 8 bytes (its id) needs one record's room.
    assert!(ping(&mut remap, 2, 12345678).is_ok());
    assert_eq!((remap.tasks(), remap.bytes()), (2, 24));
    assert_eq!(
        remap.task_owner(Id::from_token(br#""task-1""#).unwrap()),
        None
    );
}

/// Client 1 creates tasks `"task-1"` to `"task-3"`, which fail: three records of 8 bytes
/// (each its task id).
fn fail_three_tasks(remap: &mut IdRemapper<u32>) {
    for n in 1..=3 {
        let token = forward_call(remap, 1, n, true);
        route(remap, &created(token, &format!("task-{n}")))
            .0
            .unwrap();
        assert!(status_to(remap, &status(&format!("task-{n}"), "failed")).is_some());
    }
}

/// A request the byte budget cannot hold even with every record of an ended task given up is
/// refused without giving any up: the records stay, their tasks still their clients'.
#[test]
fn a_request_over_the_budget_takes_no_ended_tasks_place() {
    let mut remap = IdRemapper::new(64).max_bytes(64);
    fail_three_tasks(&mut remap);
    // Three records of 8 bytes, and a request in flight of 4.
    let frame = r#"{"jsonrpc":"2.0","id":1000,"method":"ping"}"#;
    let ping = request(frame.as_bytes());
    let mut out = BytesMut::new();
    assert!(
        remap
            .forward_request(2, frame.as_bytes(), &ping, None, &mut out)
            .is_ok()
    );
    assert_eq!((remap.tasks(), remap.bytes()), (3, 28));
    // 62 bytes: more than the 60 the budget has without the records.
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#,
        "x".repeat(60)
    );
    let big = request(frame.as_bytes());
    assert_eq!(
        remap.forward_request(3, frame.as_bytes(), &big, None, &mut out),
        Err(RemapError::OverBudget { budget: 64 })
    );
    assert_eq!((remap.tasks(), remap.bytes()), (3, 28));
    for n in 1..=3 {
        let task = format!(r#""task-{n}""#);
        assert_eq!(
            remap.task_owner(Id::from_token(task.as_bytes()).unwrap()),
            Some(&1)
        );
    }
    // One of 56 bytes fits once every record is given up (not with one left): they all go.
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":"{}","method":"ping"}}"#,
        "y".repeat(54)
    );
    let fits = request(frame.as_bytes());
    assert!(
        remap
            .forward_request(3, frame.as_bytes(), &fits, None, &mut out)
            .is_ok()
    );
    assert_eq!((remap.tasks(), remap.bytes()), (0, 60));
}

/// A reply is read as deep as its decoder reads it: a `CreateTaskResult`, a `tasks/result`
/// result or a `tasks/list` result nested to the default limit (128 levels, the envelope
/// counted) still leaves its route, ends it, or is filtered (a value's limit, one level less,
/// applied to the whole frame left the task unkept, open to every client, and the route live).
#[test]
fn replies_as_deep_as_the_decoder_reads_are_read_for_tasks() {
    // The envelope, `result`, and an object holding `deep` arrays: 128 levels in all.
    let deep = "[".repeat(125) + &"]".repeat(125);
    let mut remap = IdRemapper::new(8);
    let token = forward_call(&mut remap, 1, 1, true);
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"task":{{"taskId":"task-1","status":"working"}},"_meta":{{"x":{deep}}}}}}}"#
    );
    assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1));
    let too_deep = reply.replace(&deep, &format!("[{deep}]"));
    assert!(Decoder::jsonrpc().decode(too_deep.as_bytes()).is_err());
    assert_eq!(remap.task_routes(), 1);
    assert_eq!(
        forward_task_op(
            &mut remap,
            2,
            r#"{"jsonrpc":"2.0","id":"q","method":"tasks/get","params":{"taskId":"task-1"}}"#
        ),
        Err(RemapError::ForeignTask)
    );

    // Its owner's `tasks/list`: filtered.
    let list = r#"{"jsonrpc":"2.0","id":"l","method":"tasks/list"}"#;
    let q = forward_task_op(&mut remap, 1, list).unwrap();
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":{q},"result":{{"tasks":[{{"taskId":"task-1"}},{{"taskId":"task-2"}}],"_meta":{{"x":{deep}}}}}}}"#
    );
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":"l","result":{{"tasks":[{{"taskId":"task-1"}}],"_meta":{{"x":{deep}}}}}}}"#
    ) + "\n";
    assert_eq!(
        route(&mut remap, reply.as_bytes()),
        (Ok(1), expected.into_bytes())
    );

    // Its owner's `tasks/result`, answered with a result as deep: the task has ended.
    let fetch =
        r#"{"jsonrpc":"2.0","id":"r","method":"tasks/result","params":{"taskId":"task-1"}}"#;
    let q = forward_task_op(&mut remap, 1, fetch).unwrap();
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":{q},"result":{{"content":[],"_meta":{{"io.modelcontextprotocol/related-task":{{"taskId":"task-1"}},"x":{deep}}}}}}}"#
    );
    assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1));
    assert_eq!((remap.task_routes(), remap.tasks()), (0, 1));
    assert_eq!(progress_to(&remap, &task_progress(token)), None);
}

/// The records of tasks that ended do not crowd a task's route out either: a
/// `CreateTaskResult` the byte budget holds only without some of them takes their room, the
/// oldest first (else the new task went unkept while they stayed: open to every client, the
/// records' own client among them). One that would not fit with every record gone leaves no
/// route, and gives none up.
#[test]
fn ended_tasks_give_their_room_to_a_new_tasks_route() {
    let get = |task: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"q","method":"tasks/result","params":{{"taskId":"{task}"}}}}"#
        )
    };
    let owner = |remap: &IdRemapper<u32>, task: &str| {
        remap
            .task_owner(Id::from_token(format!("\"{task}\"").as_bytes()).unwrap())
            .copied()
    };
    let mut remap = IdRemapper::new(64).max_bytes(29);
    fail_three_tasks(&mut remap);
    // Client 2's call (5 bytes: its id, its progress token) fits beside the records...
    let token = forward_call(&mut remap, 2, 1, true);
    assert_eq!((remap.tasks(), remap.bytes()), (3, 29));
    // ... and its task's route (12 bytes: the progress token and the task id) in the room
    // of the oldest record.
    assert_eq!(route(&mut remap, &created(token, "task-9")).0, Ok(2));
    assert_eq!(
        (remap.tasks(), remap.task_routes(), remap.bytes()),
        (3, 1, 28)
    );
    assert_eq!(owner(&remap, "task-9"), Some(2));
    assert_eq!(owner(&remap, "task-1"), None);
    assert_eq!(owner(&remap, "task-2"), Some(1));
    assert_eq!(
        forward_task_op(&mut remap, 1, &get("task-9")),
        Err(RemapError::ForeignTask)
    );

    // A task id too long for the budget with every record gone: no route, no record given up.
    let mut remap = IdRemapper::new(64).max_bytes(29);
    fail_three_tasks(&mut remap);
    let token = forward_call(&mut remap, 2, 1, true);
    let long = "x".repeat(40);
    assert_eq!(route(&mut remap, &created(token, &long)).0, Ok(2));
    assert_eq!(
        (remap.tasks(), remap.task_routes(), remap.bytes()),
        (3, 0, 24)
    );
    assert_eq!(owner(&remap, "task-1"), Some(1));
}

/// Client `client` creates task `task_id` (a `tools/call` with id `id`), which completes: the
/// record of an ended task, `client`'s.
fn end_a_task(remap: &mut IdRemapper<u32>, client: u32, id: u32, task_id: &str) {
    let token = forward_call(remap, client, id, true);
    assert_eq!(route(remap, &created(token, task_id)).0, Ok(client));
    assert_eq!(
        status_to(remap, &status(task_id, "completed")).map(|(c, _)| c),
        Some(client)
    );
}

/// The client the remapper keeps as task `task_id`'s.
fn owner_of(remap: &IdRemapper<u32>, task_id: &str) -> Option<u32> {
    remap
        .task_owner(Id::from_token(format!("\"{task_id}\"").as_bytes()).unwrap())
        .copied()
}

/// A client cannot push another client's record out of a full table by cycling its own
/// tasks: each of its requests takes its own records' places first. (Any request took the
/// oldest record's place: client 1, holding one entry at a time, created and ended a task
/// twice, and client 2's record went; client 1's `tasks/result` for client 2's task then went
/// upstream, the task being one the remapper no longer kept.)
#[test]
fn a_client_cycling_its_own_tasks_cannot_push_anothers_record_out() {
    let mut remap = IdRemapper::new(2).max_per_client(1);
    end_a_task(&mut remap, 2, 1, "task-b");
    for n in 1..=4 {
        end_a_task(&mut remap, 1, n, &format!("task-a{n}"));
        // Its previous task's record gave its place up, never client 2's.
        assert_eq!(owner_of(&remap, "task-b"), Some(2), "cycle {n}");
        assert_eq!(owner_of(&remap, &format!("task-a{n}")), Some(1));
        assert_eq!(remap.tasks(), 2);
    }
    assert_eq!(owner_of(&remap, "task-a3"), None);
    // Client 1 holds a record still: its request takes that one's place, and is refused
    // client 2's task.
    assert_eq!(
        forward_task_op(&mut remap, 1, &task_op("tasks/result", "task-b")),
        Err(RemapError::ForeignTask)
    );
    assert!(forward_task_op(&mut remap, 1, &task_op("tasks/get", "task-a4")).is_ok());
    assert_eq!(owner_of(&remap, "task-a4"), None);
    assert_eq!(owner_of(&remap, "task-b"), Some(2));
    assert!(forward_task_op(&mut remap, 2, &task_op("tasks/result", "task-b")).is_ok());
}

/// A client holding no records takes the places, and the byte budget's room, of the client
/// holding the most records, its oldest first, not of the oldest record of all: client 2's
/// one record, the oldest, stays while client 3 holds two.
#[test]
fn a_request_takes_the_room_of_the_client_holding_the_most_records() {
    // The table full: a request needs a place.
    let mut remap = IdRemapper::new(4);
    end_a_task(&mut remap, 2, 1, "task-b");
    end_a_task(&mut remap, 3, 1, "task-c1");
    end_a_task(&mut remap, 3, 2, "task-c2");
    assert!(forward_ping(&mut remap, 1, 1).is_ok());
    assert!(forward_ping(&mut remap, 1, 2).is_ok());
    assert_eq!(
        [
            owner_of(&remap, "task-b"),
            owner_of(&remap, "task-c1"),
            owner_of(&remap, "task-c2")
        ],
        [Some(2), None, Some(3)]
    );

    // The byte budget short: "task-N" records hold 8 bytes each (the id), a task's route 12
    // (the id, its progress token), a ping with id 12345 holds 5: the records fit, and the
    // ping needs one's room.
    let mut remap = IdRemapper::new(64).max_bytes(28);
    end_a_task(&mut remap, 2, 1, "task-b");
    end_a_task(&mut remap, 3, 1, "task-c");
    end_a_task(&mut remap, 3, 2, "task-d");
    assert_eq!((remap.tasks(), remap.bytes()), (3, 24));
    assert!(forward_ping(&mut remap, 1, 12345).is_ok());
    assert_eq!(
        [
            owner_of(&remap, "task-b"),
            owner_of(&remap, "task-c"),
            owner_of(&remap, "task-d")
        ],
        [Some(2), None, Some(3)]
    );
    assert_eq!((remap.tasks(), remap.bytes()), (2, 21));
}

/// The upstream going away forgets which clients held records too: after a drain, a request
/// that needs a place takes it from the records kept since (client 2's), not from a client
/// that held the most records before the drain (client 3, gone with them).
#[test]
fn after_a_drain_a_request_takes_the_room_of_the_records_kept_since() {
    let mut remap = IdRemapper::new(4);
    end_a_task(&mut remap, 3, 1, "task-c1");
    end_a_task(&mut remap, 3, 2, "task-c2");
    assert_eq!(remap.drain().count(), 0);
    assert_eq!((remap.tasks(), remap.bytes()), (0, 0));
    assert_eq!(owner_of(&remap, "task-c2"), None);
    end_a_task(&mut remap, 2, 1, "task-b");
    for id in 1..=3 {
        assert!(forward_ping(&mut remap, 1, id).is_ok());
    }
    assert_eq!((remap.len(), remap.tasks()), (3, 1));
    // The table is full: the fourth ping takes the place of client 2's record.
    assert!(forward_ping(&mut remap, 1, 4).is_ok());
    assert_eq!((remap.len(), remap.tasks()), (4, 0));
    assert_eq!(owner_of(&remap, "task-b"), None);
}

/// A task's route that needs room in the byte budget takes it from its own client's records
/// first: client 1's route pushes out client 1's record, not client 2's older one.
#[test]
fn a_tasks_route_takes_room_from_its_own_clients_records_first() {
    // Two records of 8 bytes, then client 1's call of 5 (its id, its progress token): 21
    // bytes. Its route holds 12 (the progress token, the task id): one record must go.
    let mut remap = IdRemapper::new(64).max_bytes(26);
    end_a_task(&mut remap, 2, 1, "task-1");
    end_a_task(&mut remap, 1, 1, "task-2");
    let token = forward_call(&mut remap, 1, 2, true);
    assert_eq!(remap.bytes(), 21);
    assert_eq!(route(&mut remap, &created(token, "task-3")).0, Ok(1));
    assert_eq!(
        [
            owner_of(&remap, "task-1"),
            owner_of(&remap, "task-2"),
            owner_of(&remap, "task-3")
        ],
        [Some(2), None, Some(1)]
    );
    assert_eq!(
        (remap.tasks(), remap.task_routes(), remap.bytes()),
        (2, 1, 20)
    );
}

/// The upstream reuses a task id once the task under it is gone (past its ttl, or ended
/// without the remapper seeing it): the new task, another client's, takes the id over. Left
/// with the old task's client, the new task was open to that client (its `tasks/result`
/// forwarded) and closed to its own (refused as another's).
#[test]
fn a_task_id_the_upstream_reuses_is_the_new_tasks() {
    let op = |task: &str, method: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{method}","method":"{method}","params":{{"taskId":"{task}"}}}}"#
        )
    };
    let owner = |remap: &IdRemapper<u32>| {
        remap
            .task_owner(Id::from_token(br#""task-1""#).unwrap())
            .copied()
    };
    // Client 1's task ended (its record kept), then client 2's task gets its id.
    let mut remap = IdRemapper::new(8);
    let first = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(first, "task-1")).0.unwrap();
    assert!(status_to(&mut remap, &status("task-1", "completed")).is_some());
    assert_eq!(
        (remap.tasks(), remap.task_routes(), owner(&remap)),
        (1, 0, Some(1))
    );
    let second = forward_call(&mut remap, 2, 1, true);
    assert_eq!(route(&mut remap, &created(second, "task-1")).0, Ok(2));
    assert_eq!(
        (remap.tasks(), remap.task_routes(), owner(&remap)),
        (1, 1, Some(2))
    );
    // The bytes are the new route's alone: "p1" and the task id.
    assert_eq!(remap.bytes(), 4 + 8);
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        assert_eq!(
            forward_task_op(&mut remap, 1, &op("task-1", method)),
            Err(RemapError::ForeignTask),
            "{method}"
        );
        assert!(
            forward_task_op(&mut remap, 2, &op("task-1", method)).is_ok(),
            "{method}"
        );
    }
    // Its progress and status go to client 2.
    assert_eq!(
        progress_to(&remap, &task_progress(second)).map(|p| p.0),
        Some(2)
    );
    assert_eq!(
        status_to(&mut remap, &status("task-1", "working")).map(|(c, _)| c),
        Some(2)
    );
}

/// A task's live route never outlasts its task's ttl: the upstream may delete a task once
/// its ttl passes without telling its end, and a route forwarded without a deadline (as a
/// gateway forwards `tasks/result`, say) then held its place and bytes until its client went.
/// Routed with the time, such a route's deadline is its ttl's (and `has_deadline` still says
/// the caller gave none); a deadline the caller sets on a live route is held to it too.
#[test]
fn a_tasks_route_ends_at_its_ttl_at_the_latest() {
    let reply_at = |remap: &mut IdRemapper<u32>, reply: &[u8], now: u64| {
        let msg = Decoder::mcp_client().decode(reply).unwrap();
        remap
            .route_reply_at(reply, msg.id().unwrap(), now, &mut BytesMut::new())
            .map(|o| o.client)
    };
    // Forwarded without a deadline; its ttl is 60,000 (`created`).
    let mut remap = IdRemapper::new(8);
    let token = forward_call(&mut remap, 1, 1, true);
    assert_eq!(remap.next_wakeup(), None);
    assert_eq!(
        reply_at(&mut remap, &created(token, "task-1"), 1_000),
        Ok(1)
    );
    let t = Token::new(token).unwrap();
    assert_eq!(remap.has_deadline(t), Some(false));
    // (The timer wheel may wake earlier than a deadline, never later.)
    assert!(remap.next_wakeup().is_some_and(|at| at <= 61_000));
    assert_eq!(remap.expire(60_999).count(), 0);
    assert_eq!(remap.task_routes(), 1);
    // At its ttl the route ends, and its record (whose ttl has passed too) goes.
    assert_eq!(remap.expire(61_000).count(), 0);
    assert_eq!(
        (remap.tasks(), remap.task_routes(), remap.bytes()),
        (0, 0, 0)
    );
    assert_eq!(progress_to(&remap, &task_progress(token)), None);

    // With a deadline: progress may move it, never past the ttl (60,000 after `now`).
    let with_deadline = |remap: &mut IdRemapper<u32>, task: &str, now: u64| {
        let frame = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"task":{},"_meta":{"progressToken":"p1"}}}"#;
        let t = remap
            .forward_request(
                1,
                frame,
                &request(frame),
                Some(now + 5_000),
                &mut BytesMut::new(),
            )
            .unwrap();
        assert_eq!(reply_at(remap, &created(t.get(), task), now), Ok(1));
        assert_eq!(remap.has_deadline(t), Some(true));
        t
    };
    // Moved past the ttl: held to it.
    let t = with_deadline(&mut remap, "task-2", 100_000);
    assert!(remap.set_deadline(t, Some(1_000_000)));
    remap.expire(159_999).for_each(drop);
    assert_eq!(remap.task_routes(), 1);
    remap.expire(160_000).for_each(drop);
    assert_eq!((remap.task_routes(), remap.tasks()), (0, 0));
    // Moved before it: kept, and the task's record stays until the ttl.
    let t = with_deadline(&mut remap, "task-3", 200_000);
    assert!(remap.set_deadline(t, Some(210_000)));
    remap.expire(210_000).for_each(drop);
    assert_eq!((remap.task_routes(), remap.tasks()), (0, 1));
    remap.expire(260_000).for_each(drop);
    assert_eq!(remap.tasks(), 0);
    // Taken off: the ttl's stays.
    let t = with_deadline(&mut remap, "task-4", 300_000);
    assert!(remap.set_deadline(t, None));
    assert_eq!(remap.has_deadline(t), Some(false));
    remap.expire(359_999).for_each(drop);
    assert_eq!(remap.task_routes(), 1);
    remap.expire(360_000).for_each(drop);
    assert_eq!(
        (remap.task_routes(), remap.tasks(), remap.bytes()),
        (0, 0, 0)
    );
}

/// The request's own deadline, when it is later than the task's ttl, is held to the ttl as
/// the route takes it over: a live route never outlasts its task's ttl, whatever deadline it
/// came with (the request's, not only one set on the route since).
#[test]
fn a_requests_deadline_past_the_ttl_is_held_to_it_by_the_route() {
    let mut remap = IdRemapper::<u32>::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"task":{},"_meta":{"progressToken":"p1"}}}"#;
    let t = remap
        .forward_request(
            1,
            frame,
            &request(frame),
            Some(1_000 + 100_000),
            &mut BytesMut::new(),
        )
        .unwrap();
    // Its ttl is 60,000 (`created`): it passes at 61,000.
    let reply = created(t.get(), "task-1");
    let msg = Decoder::mcp_client().decode(&reply).unwrap();
    remap
        .route_reply_at(&reply, msg.id().unwrap(), 1_000, &mut BytesMut::new())
        .unwrap();
    assert_eq!(remap.has_deadline(t), Some(true));
    assert!(remap.next_wakeup().is_some_and(|at| at <= 61_000));
    remap.expire(60_999).for_each(drop);
    assert_eq!(remap.task_routes(), 1);
    remap.expire(61_000).for_each(drop);
    assert_eq!(
        (remap.task_routes(), remap.tasks(), remap.bytes()),
        (0, 0, 0)
    );
}

/// A -32602 answer to a task's own client's `tasks/get` forgets the task even when the route's
/// deadline passed while the `tasks/get` was in flight (the route ended then, its record
/// kept): the record was kept under a new token, which the request did not know, and stayed
/// until its ttl or its client went.
#[test]
fn a_tasks_get_answered_invalid_forgets_a_task_whose_route_ended_meanwhile() {
    let t1 = || Id::from_token(b"\"task-1\"").unwrap();
    let mut remap = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"task":{},"_meta":{"progressToken":"p1"}}}"#;
    let token = remap
        .forward_request(1, frame, &request(frame), Some(100), &mut BytesMut::new())
        .unwrap();
    // Its ttl is 60,000 (`created`), from 50.
    route_at(&mut remap, &created(token.get(), "task-1"), 50).unwrap();
    let get = r#"{"jsonrpc":"2.0","id":"q","method":"tasks/get","params":{"taskId":"task-1"}}"#;
    let q = forward_task_op(&mut remap, 1, get).unwrap();
    // The route's deadline passes: it ends, its client kept.
    assert_eq!(remap.expire(100).count(), 0);
    assert_eq!(
        (remap.task_routes(), remap.tasks(), remap.task_owner(t1())),
        (0, 1, Some(&1))
    );
    let invalid = format!(
        r#"{{"jsonrpc":"2.0","id":{q},"error":{{"code":-32602,"message":"Failed to retrieve task: Task not found"}}}}"#
    );
    assert_eq!(route_at(&mut remap, invalid.as_bytes(), 200), Ok(1));
    assert_eq!(
        (remap.task_owner(t1()), remap.tasks(), remap.bytes()),
        (None, 0, 0)
    );
}

/// A task id is kept once (in the task's entry; the map by task id holds its token only): it
/// counts once against the byte budget, as spelled, for a live route (beside the progress
/// token) and for an ended task's record. (It was kept twice, its key in the map too, and
/// counted twice: a budget holding the route once kept no route.)
#[test]
fn a_task_id_counts_once_as_spelled() {
    let mut remap = IdRemapper::new(8);
    let token = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(token, "task-1")).0.unwrap();
    // "p1", and "task-1" (quotes included).
    assert_eq!(remap.bytes(), 4 + 8);
    status_to(&mut remap, &status("task-1", "completed")).unwrap();
    assert_eq!((remap.tasks(), remap.bytes()), (1, 8));
    // A budget that holds the route's progress token and its task id once keeps the route;
    // one byte less keeps none.
    for (budget, kept) in [(4 + 8, 1), (4 + 8 - 1, 0)] {
        let mut remap = IdRemapper::new(8).max_bytes(budget);
        let token = forward_call(&mut remap, 1, 1, true);
        route(&mut remap, &created(token, "task-1")).0.unwrap();
        assert_eq!(
            (remap.task_routes(), remap.bytes()),
            (kept, kept * (4 + 8)),
            "{budget}"
        );
    }
    // Spelled with an escape, it counts as spelled (`"task\u002d1"`: 13 bytes), and is
    // found however it is spelled.
    let mut remap = IdRemapper::new(8);
    let token = forward_call(&mut remap, 1, 1, true);
    let escaped = String::from_utf8(created(token, "task-1"))
        .unwrap()
        .replace("task-1", r"task\u002d1");
    route(&mut remap, escaped.as_bytes()).0.unwrap();
    assert_eq!(remap.bytes(), 4 + 13);
    assert_eq!(
        remap.task_owner(Id::from_token(br#""task-1""#).unwrap()),
        Some(&1)
    );
    status_to(&mut remap, &status("task-1", "completed")).unwrap();
    assert_eq!((remap.tasks(), remap.bytes()), (1, 13));
}

/// A `CreateTaskResult` whose task has ended already is kept as the record of an ended task
/// when the record fits the byte budget, whether or not a live route (its progress token
/// too) would: it was built as a route first, and left unkept (open to every client) when
/// the route did not fit.
#[test]
fn a_task_created_ended_is_kept_when_its_record_fits() {
    let t1 = || Id::from_token(b"\"task-1\"").unwrap();
    // The call holds 1 + 4 bytes; a route 4 + 8, over the budget; a record 8.
    let mut remap = IdRemapper::new(8).max_bytes(10);
    let token = forward_call(&mut remap, 1, 1, true);
    let done = String::from_utf8(created(token, "task-1"))
        .unwrap()
        .replace("working", "completed");
    assert_eq!(route(&mut remap, done.as_bytes()).0, Ok(1));
    assert_eq!(
        (
            remap.task_owner(t1()),
            remap.tasks(),
            remap.task_routes(),
            remap.bytes()
        ),
        (Some(&1), 1, 0, 8)
    );
    assert_eq!(progress_to(&remap, &task_progress(token)), None);
    assert_eq!(
        forward_task_op(
            &mut remap,
            2,
            r#"{"jsonrpc":"2.0","id":"q","method":"tasks/result","params":{"taskId":"task-1"}}"#
        ),
        Err(RemapError::ForeignTask)
    );
    // A live one, on the same budget, leaves no route (its call took the record's room).
    let token = forward_call(&mut remap, 1, 2, true);
    assert_eq!(remap.tasks(), 0);
    assert_eq!(route(&mut remap, &created(token, "task-2")).0, Ok(1));
    assert_eq!(
        (remap.tasks(), remap.task_routes(), remap.bytes()),
        (0, 0, 0)
    );
}

/// A task id the upstream gives again takes the old task's room: the old task is gone
/// upstream, so its route or record is forgotten before the new route is measured, and the
/// new route is kept when it fits as any route would (the old one's room free). When it does
/// not fit even so (the id spelled longer, with an escape), neither task is kept: the old
/// task's client must not keep an id that now names another client's task.
#[test]
fn a_reused_task_ids_new_route_takes_the_old_tasks_room() {
    let owner = |remap: &IdRemapper<u32>| {
        remap
            .task_owner(Id::from_token(br#""task-1""#).unwrap())
            .copied()
    };
    // Room for one route ("p1", "task-1") and one call (its id, "p1").
    let tight = || IdRemapper::new(8).max_bytes(12 + 5);
    let mut remap = tight();
    let first = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(first, "task-1")).0.unwrap();
    let second = forward_call(&mut remap, 2, 1, true);
    assert_eq!(remap.bytes(), 17);
    assert_eq!(route(&mut remap, &created(second, "task-1")).0, Ok(2));
    assert_eq!(
        (owner(&remap), remap.task_routes(), remap.bytes()),
        (Some(2), 1, 12)
    );

    // The same id spelled `"\u0074ask\u002d1"`: 4 + 18 bytes do not fit.
    let mut remap = tight();
    let first = forward_call(&mut remap, 1, 1, true);
    route(&mut remap, &created(first, "task-1")).0.unwrap();
    let second = forward_call(&mut remap, 2, 1, true);
    let escaped = String::from_utf8(created(second, "task-1"))
        .unwrap()
        .replace("task-1", r"\u0074ask\u002d1");
    assert_eq!(route(&mut remap, escaped.as_bytes()).0, Ok(2));
    assert_eq!((owner(&remap), remap.tasks(), remap.bytes()), (None, 0, 0));
    assert_eq!(progress_to(&remap, &task_progress(first)), None);
}

/// A result that tells a task ended ends it only when the task is the requesting client's:
/// a reply to client 1's `tasks/get`, `tasks/cancel` or `tasks/result` naming client 2's task
/// (an upstream's mistake, or a task id reused meanwhile) leaves client 2's route live. (The
/// reply to client 1's `tasks/result` for its task 1 ends task 1, whatever it names.)
#[test]
fn a_reply_to_one_client_ends_no_task_of_another() {
    let task2 = r#"{"taskId":"task-2","status":"completed","ttl":30000}"#;
    let related =
        r#"{"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"task-2"}}}"#;
    for (method, result) in [
        ("tasks/get", task2),
        ("tasks/cancel", task2),
        ("tasks/result", related),
    ] {
        let mut remap = IdRemapper::new(8);
        let first = forward_call(&mut remap, 1, 1, true);
        route(&mut remap, &created(first, "task-1")).0.unwrap();
        let second = forward_call(&mut remap, 2, 1, true);
        route(&mut remap, &created(second, "task-2")).0.unwrap();
        let frame = format!(
            r#"{{"jsonrpc":"2.0","id":"q","method":"{method}","params":{{"taskId":"task-1"}}}}"#
        );
        let q = forward_task_op(&mut remap, 1, &frame).unwrap();
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{q},"result":{result}}}"#);
        assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1), "{method}");
        let first_live = method != "tasks/result";
        assert_eq!(remap.task_routes(), 1 + usize::from(first_live), "{method}");
        assert_eq!(
            progress_to(&remap, &task_progress(first)).is_some(),
            first_live,
            "{method}"
        );
        assert_eq!(
            progress_to(&remap, &task_progress(second)).map(|p| p.0),
            Some(2),
            "{method}"
        );
        // Client 2's own reply ends it.
        let frame = frame.replace("task-1", "task-2");
        let q = forward_task_op(&mut remap, 2, &frame).unwrap();
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{q},"result":{result}}}"#);
        assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(2), "{method}");
        assert_eq!(remap.task_routes(), usize::from(first_live), "{method}");
        assert_eq!(progress_to(&remap, &task_progress(second)), None);
    }
}

// Each client's share of the table: `max_per_client` bounds its requests in flight and live
// task routes, `max_bytes_per_client` their bytes; every way an entry goes gives its client
// its room back.

/// Shares of at most `capacity / n` places and `max_bytes / n` bytes guarantee each of `n`
/// clients its share, whatever the others hold: two clients at their shares (requests in
/// flight, a live task route, the record of a task that ended) leave the third room for all
/// of its own; with a larger share, they could take every place.
#[test]
fn shares_of_a_third_leave_each_of_three_clients_its_share() {
    let mut remap = IdRemapper::new(6)
        .max_per_client(2)
        .max_bytes(60)
        .max_bytes_per_client(20);
    // Client 1: two tasks that ended (records, which count against no share), and two
    // requests in flight.
    for (id, task) in [(1, "t1"), (4, "t3")] {
        let token = try_call(&mut remap, 1, id, true, None).unwrap();
        route(&mut remap, &created(token, task)).0.unwrap();
        status_to(&mut remap, &status(task, "completed")).unwrap();
    }
    // Client 2: a task's live route and a request in flight.
    let token = try_call(&mut remap, 2, 1, true, None).unwrap();
    route(&mut remap, &created(token, "t2")).0.unwrap();
    for client in [1, 2] {
        try_call(&mut remap, client, 2, false, None).unwrap();
        if client == 1 {
            try_call(&mut remap, client, 3, false, None).unwrap();
        }
        assert_eq!(
            try_call(&mut remap, client, 5, false, None),
            Err(RemapError::ClientFull { limit: 2 })
        );
    }
    assert_eq!(
        (
            remap.len(),
            remap.tasks(),
            remap.task_routes(),
            remap.capacity_limit()
        ),
        (3, 3, 1, 6)
    );
    // The table is full: client 3 still gets its share, the records giving their places up.
    for id in [1, 2] {
        try_call(&mut remap, 3, id, false, None).unwrap();
    }
    assert_eq!((remap.len(), remap.tasks(), remap.task_routes()), (5, 1, 1));

    let mut remap = IdRemapper::new(6).max_per_client(3);
    for client in [1, 2] {
        for id in 1..=3 {
            try_call(&mut remap, client, id, false, None).unwrap();
        }
    }
    assert_eq!(
        try_call(&mut remap, 3, 1, false, None),
        Err(RemapError::Full { limit: 6 })
    );
}

/// `client`'s `tools/call` with id `id` (task-augmented when `task`, asking for progress on
/// `"p1"`: its id and the token, 5 bytes for a one-digit id), with `deadline`: its token, or the refusal,
/// with nothing written or kept.
fn try_call(
    remap: &mut IdRemapper<u32>,
    client: u32,
    id: u32,
    task: bool,
    deadline: Option<u64>,
) -> Result<u64, RemapError> {
    let task = if task { r#","task":{"ttl":60000}"# } else { "" };
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x"{task},"_meta":{{"progressToken":"p1"}}}}}}"#
    );
    forward_checked(remap, client, &frame, deadline)
}

/// The upstream's reply to `tasks/get`/`tasks/cancel` under `token`: task `task_id` with
/// `status`.
fn task_state(token: u64, task_id: &str, status: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{token},"result":{{"taskId":"{task_id}","status":"{status}"}}}}"#
    )
    .into_bytes()
}

/// `client`'s `method` of task `task_id`, id `"q"`.
fn task_op(method: &str, task_id: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":"q","method":"{method}","params":{{"taskId":"{task_id}"}}}}"#)
}

/// A client at its limit is refused (-32603, telling it it has too many requests in flight)
/// with nothing kept or written; another client's requests still get through, and the first
/// client's count stays what it was.
#[test]
fn a_client_at_its_limit_is_refused_and_the_others_are_not() {
    let mut remap = IdRemapper::new(16).max_per_client(2);
    assert_eq!(remap.client_limits(), (2, usize::MAX));
    try_call(&mut remap, 1, 1, false, None).unwrap();
    try_call(&mut remap, 1, 2, false, None).unwrap();
    assert_eq!(
        try_call(&mut remap, 1, 3, false, None),
        Err(RemapError::ClientFull { limit: 2 })
    );
    assert_eq!(
        try_call(&mut remap, 1, 3, true, None),
        Err(RemapError::ClientFull { limit: 2 })
    );
    for id in 1..=2 {
        try_call(&mut remap, 2, id, false, None).unwrap();
    }
    assert_eq!(
        try_call(&mut remap, 2, 3, false, None),
        Err(RemapError::ClientFull { limit: 2 })
    );
    assert_eq!(
        (remap.client_len(&1), remap.client_len(&2), remap.len()),
        (2, 2, 4)
    );
    assert_eq!((remap.client_bytes(&1), remap.client_bytes(&3)), (10, 0));
    let mut out = BytesMut::new();
    RemapError::ClientFull { limit: 2 }.write_reply(&mut out, Id::from_token(b"3").unwrap());
    assert_eq!(
        &out[..],
        &br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"the client has too many requests in flight"}}
"#[..]
    );
    // A reused id is still a duplicate, whatever the client holds.
    assert_eq!(
        try_call(&mut remap, 1, 1, false, None),
        Err(RemapError::DuplicateId)
    );
}

/// A client at its limit gets room back through every way one of its requests goes: its
/// reply routed or taken, its cancellation, its expiry, its going away, the upstream's.
#[test]
fn each_way_a_request_goes_gives_its_client_room_back() {
    let ways = ["reply", "take", "cancel", "expire", "drop_client", "drain"];
    for way in ways {
        let mut remap = IdRemapper::new(16).max_per_client(2);
        let first = try_call(&mut remap, 1, 1, false, Some(10)).unwrap();
        try_call(&mut remap, 1, 2, false, None).unwrap();
        try_call(&mut remap, 2, 1, false, Some(10)).unwrap();
        assert_eq!(
            try_call(&mut remap, 1, 3, false, None),
            Err(RemapError::ClientFull { limit: 2 }),
            "{way}"
        );
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{first},"result":{{}}}}"#);
        let left = match way {
            "reply" => {
                assert_eq!(route(&mut remap, reply.as_bytes()).0, Ok(1));
                1
            }
            "take" => {
                let msg = Decoder::jsonrpc().decode(reply.as_bytes()).unwrap();
                assert_eq!(remap.take(msg.id().unwrap()).map(|o| o.client), Ok(1));
                1
            }
            "cancel" => {
                let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
                let Ok(Message::Notification(n)) = Decoder::mcp().decode(cancel) else {
                    panic!()
                };
                assert!(
                    remap
                        .forward_cancel(&1, cancel, &n, &mut BytesMut::new())
                        .is_some()
                );
                1
            }
            "expire" => {
                // Client 2's request expires too: its own count, not client 1's.
                assert_eq!(remap.expire(10).count(), 2);
                assert_eq!(remap.client_len(&2), 0);
                1
            }
            "drop_client" => {
                assert_eq!(remap.drop_client(&1).len(), 2);
                0
            }
            _ => {
                assert_eq!(remap.drain().count(), 3);
                assert_eq!(remap.client_len(&2), 0);
                0
            }
        };
        assert_eq!(remap.client_len(&1), left, "{way}");
        assert_eq!(remap.client_bytes(&1), 5 * left, "{way}");
        for id in 3..5 - left as u32 {
            try_call(&mut remap, 1, id, false, None).unwrap();
        }
        assert_eq!(
            try_call(&mut remap, 1, 9, false, None),
            Err(RemapError::ClientFull { limit: 2 }),
            "{way}"
        );
    }
}

/// A task's live route keeps its request's place in its client's count until the task is
/// seen to end (a terminal status, a `tasks/get` or `tasks/result` result telling it), its
/// deadline passes, the upstream says it no longer knows it, a new task takes its id over,
/// or its client or the upstream goes; the records of tasks that ended do not count. A task
/// created ended already never counts.
#[test]
fn a_tasks_route_counts_for_its_client_until_it_ends() {
    let ways = [
        "status",
        "get",
        "result",
        "expire",
        "unknown",
        "taken over",
        "drop_client",
        "drain",
    ];
    for way in ways {
        let mut remap = IdRemapper::new(16).max_per_client(3);
        let token = try_call(&mut remap, 1, 1, true, Some(100)).unwrap();
        assert_eq!(route_at(&mut remap, &created(token, "task-1"), 0), Ok(1));
        // A query of the task's, in flight before the client fills its share.
        let query = match way {
            "get" | "unknown" => {
                Some(forward_task_op(&mut remap, 1, &task_op("tasks/get", "task-1")).unwrap())
            }
            "result" => {
                Some(forward_task_op(&mut remap, 1, &task_op("tasks/result", "task-1")).unwrap())
            }
            _ => None,
        };
        assert_eq!(
            (remap.task_routes(), remap.len()),
            (1, usize::from(query.is_some()))
        );
        while remap.client_len(&1) < 3 {
            let id = 10 + remap.client_len(&1) as u32;
            try_call(&mut remap, 1, id, false, None).unwrap();
        }
        assert_eq!(
            try_call(&mut remap, 1, 20, false, None),
            Err(RemapError::ClientFull { limit: 3 }),
            "{way}"
        );
        // 4 + 8 for the route ("p1", "task-1"), 6 for each plain call (a two-digit id).
        let bytes = remap.client_bytes(&1);
        let routed = |remap: &mut IdRemapper<u32>, reply: &[u8]| {
            assert_eq!(route_at(remap, reply, 0), Ok(1))
        };
        let freed = match way {
            "status" => {
                status_to(&mut remap, &status("task-1", "completed")).unwrap();
                1
            }
            "get" => {
                routed(&mut remap, &task_state(query.unwrap(), "task-1", "failed"));
                2
            }
            "result" => {
                let reply = format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[],"_meta":{{"io.modelcontextprotocol/related-task":{{"taskId":"task-1"}}}}}}}}"#,
                    query.unwrap()
                );
                routed(&mut remap, reply.as_bytes());
                2
            }
            "expire" => {
                assert_eq!(remap.expire(100).count(), 0);
                1
            }
            "unknown" => {
                let reply = format!(
                    r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":-32602,"message":"Task not found"}}}}"#,
                    query.unwrap()
                );
                routed(&mut remap, reply.as_bytes());
                assert_eq!(remap.tasks(), 0);
                2
            }
            "taken over" => {
                // Client 2's new task gets the id: client 1's route is gone, client 2's counts.
                let other = try_call(&mut remap, 2, 1, true, None).unwrap();
                assert_eq!(route_at(&mut remap, &created(other, "task-1"), 0), Ok(2));
                assert_eq!((remap.client_len(&2), remap.client_bytes(&2)), (1, 12));
                1
            }
            "drop_client" => {
                remap.drop_client(&1);
                3
            }
            _ => {
                remap.drain().for_each(drop);
                3
            }
        };
        assert_eq!(remap.client_len(&1), 3 - freed, "{way}");
        let route_bytes = if matches!(way, "get" | "result" | "unknown") {
            12 + 3
        } else {
            12
        };
        let expected = if freed == 3 { 0 } else { bytes - route_bytes };
        assert_eq!(remap.client_bytes(&1), expected, "{way}");
        // The record of an ended task does not count.
        if matches!(way, "status" | "get" | "result" | "expire") {
            assert_eq!((remap.tasks(), remap.task_routes()), (1, 0), "{way}");
        }
        for id in 0..freed as u32 {
            try_call(&mut remap, 1, 30 + id, false, None).unwrap();
        }
        assert_eq!(
            try_call(&mut remap, 1, 40, false, None),
            Err(RemapError::ClientFull { limit: 3 }),
            "{way}"
        );
    }

    // A task created ended already is its record only: its request's place goes back.
    let mut remap = IdRemapper::new(16).max_per_client(1);
    let token = try_call(&mut remap, 1, 1, true, None).unwrap();
    let ended = String::from_utf8(created(token, "task-1"))
        .unwrap()
        .replace("working", "completed");
    assert_eq!(route(&mut remap, ended.as_bytes()).0, Ok(1));
    assert_eq!(
        (remap.tasks(), remap.client_len(&1), remap.client_bytes(&1)),
        (1, 0, 0)
    );
    try_call(&mut remap, 1, 2, false, None).unwrap();
}

/// `max_bytes_per_client` bounds the bytes a client's requests and live routes hold: beyond
/// it the client's request is refused, and a `CreateTaskResult` leaves no route (a task
/// created ended already keeps its record, which does not count); other clients' requests
/// get through, and the client's bytes come back as its entries go. Requests and routes may
/// fill the share exactly.
#[test]
fn a_clients_byte_share_bounds_its_requests_and_routes() {
    let mut remap = IdRemapper::new(16).max_bytes_per_client(17);
    assert_eq!(remap.client_limits(), (usize::MAX, 17));
    let task = try_call(&mut remap, 1, 1, true, None).unwrap();
    try_call(&mut remap, 1, 2, false, None).unwrap();
    // The route holds 12 (its progress token, its task id) for its request's 5.
    assert_eq!(route(&mut remap, &created(task, "task-1")).0, Ok(1));
    assert_eq!((remap.task_routes(), remap.client_bytes(&1)), (1, 17));
    assert_eq!(
        try_call(&mut remap, 1, 3, false, None),
        Err(RemapError::ClientOverBudget { budget: 17 })
    );
    assert_eq!(
        RemapError::ClientOverBudget { budget: 17 }.code(),
        rpcwire::ErrorCode::INTERNAL_ERROR
    );
    for id in 1..=3 {
        try_call(&mut remap, 2, id, false, None).unwrap();
    }
    // The task ends: its route's bytes come back, its record's do not count.
    status_to(&mut remap, &status("task-1", "completed")).unwrap();
    assert_eq!(remap.client_bytes(&1), 5);
    try_call(&mut remap, 1, 3, false, None).unwrap();
    // 10 + 5 for a new task's request; its route would hold 15 - 5 + 12 = 22: none is kept.
    let task = try_call(&mut remap, 1, 4, true, None).unwrap();
    assert_eq!(route(&mut remap, &created(task, "task-2")).0, Ok(1));
    assert_eq!(
        (remap.task_routes(), remap.tasks(), remap.client_bytes(&1)),
        (0, 1, 10)
    );
    // A task created ended already is kept as its record, whatever the client's share.
    let task = try_call(&mut remap, 1, 5, true, None).unwrap();
    let ended = String::from_utf8(created(task, "task-3"))
        .unwrap()
        .replace("working", "failed");
    assert_eq!(route(&mut remap, ended.as_bytes()).0, Ok(1));
    assert_eq!((remap.tasks(), remap.client_bytes(&1)), (2, 10));
    assert_eq!(
        remap.task_owner(Id::from_token(b"\"task-3\"").unwrap()),
        Some(&1)
    );
    assert_eq!(remap.client_bytes(&2), 15);

    // The share is a bound its bytes may reach: a request that fills it exactly is taken,
    // the next is refused.
    let mut remap = IdRemapper::new(16).max_bytes_per_client(10);
    try_call(&mut remap, 1, 1, false, None).unwrap();
    try_call(&mut remap, 1, 2, false, None).unwrap();
    assert_eq!(remap.client_bytes(&1), 10);
    assert_eq!(
        try_call(&mut remap, 1, 3, false, None),
        Err(RemapError::ClientOverBudget { budget: 10 })
    );
}

// Giving back the memory a burst left.

/// A gateway's remapper after a burst: clients 0 to 3 each keep a request in flight (asking
/// progress) and a live task route, both from before the burst; then each sends 250 requests
/// asking progress, 60 clients come and go with a request each, client 0 creates 100 tasks
/// that end and whose records pass their ttl, and every request of the burst is answered.
/// Returns the remapper, the tokens of the requests kept, of the task routes, and of the
/// burst.
fn after_a_burst() -> (IdRemapper<u32>, Vec<u64>, Vec<u64>, Vec<u64>) {
    let mut remap = IdRemapper::new(4096);
    let kept: Vec<u64> = (0..4)
        .map(|client| forward_call(&mut remap, client, 1, false))
        .collect();
    let routes: Vec<u64> = (0..4)
        .map(|client| {
            let token = forward_call(&mut remap, client, 2, true);
            let created = created(token, &format!("t-{client}"));
            assert_eq!(route(&mut remap, &created).0, Ok(client));
            token
        })
        .collect();
    let mut burst = vec![];
    for id in 100..350 {
        for client in 0..4 {
            burst.push(forward_call(&mut remap, client, id, false));
        }
    }
    for client in 100..160 {
        burst.push(forward_call(&mut remap, client, 1, false));
    }
    for id in 1000..1100 {
        let token = forward_call(&mut remap, 0, id, true);
        let created = created(token, &format!("e-{id}"));
        assert_eq!(route_at(&mut remap, &created, 0), Ok(0));
        let ended = status_to(&mut remap, &status(&format!("e-{id}"), "completed"));
        assert_eq!(ended.map(|(client, _)| client), Some(0));
    }
    assert_eq!(remap.tasks(), 104);
    // The ended tasks' ttl (60 s from their `CreateTaskResult`) passes: their records go.
    assert_eq!(remap.expire(60_001).count(), 0);
    assert_eq!((remap.tasks(), remap.task_routes()), (4, 4));
    for &token in &burst {
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
        assert!(route(&mut remap, reply.as_bytes()).0.is_ok());
    }
    assert_eq!(remap.len(), 4);
    (remap, kept, routes, burst)
}

/// What `remap` writes for the upstream frames naming `kept` (requests in flight) and
/// `routes` (task routes): progress on each, a `working` status of each task, a reply to a
/// request of the burst (`stale`), then a reply to each request kept (which ends it).
fn routed_frames(
    remap: &mut IdRemapper<u32>,
    kept: &[u64],
    routes: &[u64],
    stale: u64,
) -> Vec<String> {
    let mut written = vec![];
    for &token in kept.iter().chain(routes) {
        written.push(format!("{:?}", progress_to(remap, &task_progress(token))));
    }
    for client in 0..4 {
        let routed = status_to(remap, &status(&format!("t-{client}"), "working"));
        written.push(format!("{routed:?}"));
    }
    let stale = format!(r#"{{"jsonrpc":"2.0","id":{stale},"result":{{}}}}"#);
    written.push(format!("{:?}", route(remap, stale.as_bytes())));
    for &token in kept {
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"n":{token}}}}}"#);
        written.push(format!("{:?}", route(remap, reply.as_bytes())));
    }
    written
}

/// `shrink_to_fit` after a burst gives back the room of the table, of the maps by id, task id
/// and client, and of the records' queues and files; the requests still in flight, their
/// progress and the task routes route as in a twin remapper that was not shrunk, byte for
/// byte, a reply to the burst is still stale, and a new request gets a token never minted.
#[test]
fn shrink_to_fit_gives_back_a_bursts_room_and_keeps_every_route() {
    let (mut shrunk, kept, routes, burst) = after_a_burst();
    let (mut twin, ..) = after_a_burst();
    let before = shrunk.debug_footprint();
    let capacity = shrunk.capacity();
    shrunk.shrink_to_fit();
    let after = shrunk.debug_footprint();
    assert!(shrunk.capacity() < capacity, "{capacity} -> {after:?}");
    assert_eq!(shrunk.capacity(), after.table);
    assert!(after.table < before.table, "{before:?} -> {after:?}");
    assert!(
        after.by_client < before.by_client,
        "{before:?} -> {after:?}"
    );
    assert!(after.task_ids < before.task_ids, "{before:?} -> {after:?}");
    assert!(after.clients < before.clients, "{before:?} -> {after:?}");
    // (Client 0's queue went with its last record, before the shrink.)
    assert_eq!(
        (before.record_queues, after.record_queues),
        (0, 0),
        "{before:?} -> {after:?}"
    );
    assert!(
        after.record_files < before.record_files,
        "{before:?} -> {after:?}"
    );
    assert_eq!(twin.capacity(), capacity);
    assert_eq!(
        (shrunk.len(), shrunk.task_routes(), shrunk.bytes()),
        (4, 4, twin.bytes())
    );

    let stale = *burst.last().unwrap();
    let written = routed_frames(&mut shrunk, &kept, &routes, stale);
    assert_eq!(written, routed_frames(&mut twin, &kept, &routes, stale));
    // What was written is the routes', not misses: each request's progress and reply reach
    // its client with its own progress token and id, each task's progress its client.
    for (client, line) in written[..4].iter().enumerate() {
        let expected = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}"#;
        assert_eq!(
            line,
            &format!(
                "{:?}",
                Some((client as u32, format!("{expected}\n"), kept[client], true))
            )
        );
    }
    assert!(written[4..12].iter().all(|line| line.starts_with("Some(")));
    assert_eq!(
        written[12],
        format!("{:?}", (Err::<u32, _>(Miss::Stale), Vec::<u8>::new()))
    );
    for (client, line) in written[13..].iter().enumerate() {
        assert!(line.starts_with(&format!("(Ok({client}), ")), "{line}");
    }
    assert!(shrunk.is_empty());

    // No token is minted twice: the next requests' are new, and are routed.
    for client in 0..4 {
        let token = forward_call(&mut shrunk, client, 7, false);
        assert!(!kept.contains(&token) && !routes.contains(&token) && !burst.contains(&token));
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{}}}}"#);
        assert_eq!(route(&mut shrunk, reply.as_bytes()).0, Ok(client));
    }
}

/// A shrink keeps the records of ended tasks it holds queued to give their room up: in a
/// table full after the shrink, a request takes the place of its client's record (kept till
/// the client goes), whose queue had lost only the token of a record gone by its ttl.
#[test]
fn shrink_to_fit_keeps_the_records_that_give_their_room_up() {
    let mut remap = IdRemapper::new(4);
    let token = forward_call(&mut remap, 1, 1, true);
    assert_eq!(route_at(&mut remap, &created(token, "gone"), 0), Ok(1));
    assert!(status_to(&mut remap, &status("gone", "completed")).is_some());
    end_a_task(&mut remap, 1, 2, "kept");
    assert_eq!(remap.expire(60_001).count(), 0);
    assert_eq!(
        (owner_of(&remap, "gone"), owner_of(&remap, "kept")),
        (None, Some(1))
    );
    remap.shrink_to_fit();
    assert_eq!(remap.debug_footprint().record_queues, 1);
    assert_eq!(owner_of(&remap, "kept"), Some(1));
    for id in 3..6 {
        forward_call(&mut remap, 1, id, false);
    }
    assert_eq!((remap.len(), remap.tasks()), (3, 1));
    // The table is full: the fourth request takes the record's place.
    forward_call(&mut remap, 1, 6, false);
    assert_eq!(
        (remap.len(), remap.tasks(), owner_of(&remap, "kept")),
        (4, 0, None)
    );
}

/// The queue of a client's records of ended tasks does not keep the tokens of records gone
/// by their ttl (nor their room) while the client stays: a client that ended many tasks,
/// whose records then expired, holds a queue about the size of the records it still holds,
/// not of its past peak. (Else clients each ending many tasks in turn, and keeping one request
/// in flight, would make the remapper hold memory for every record they ever held at once,
/// far past its table's capacity, until `shrink_to_fit`.)
#[test]
fn records_gone_by_their_ttl_leave_no_queue_behind() {
    let mut remap = IdRemapper::new(4096);
    let clients = 20;
    for client in 0..clients {
        // A request in flight keeps the client in the remapper, and a record kept until it
        // goes (a ttl the remapper does not know) keeps it holding one.
        forward_call(&mut remap, client, 0, false);
        end_a_task(&mut remap, client, 1, &format!("kept-{client}"));
        for id in 2..200 {
            let task_id = format!("t-{client}-{id}");
            let token = forward_call(&mut remap, client, id, true);
            assert_eq!(
                route_at(&mut remap, &created(token, &task_id), 0),
                Ok(client)
            );
            assert!(status_to(&mut remap, &status(&task_id, "completed")).is_some());
        }
        assert_eq!(remap.expire(60_001).count(), 0);
        assert_eq!(
            (remap.len(), remap.tasks()),
            (client as usize + 1, client as usize + 1)
        );
    }
    let footprint = remap.debug_footprint();
    // A queue is compacted, to room for twice its client's records and 16 tokens more, once
    // it holds more than that: its room stays within twice that (4 records' and 48 tokens'
    // room a record), not the room of the 199 records each client once held.
    let bound = 4 * remap.tasks() + 48 * clients as usize;
    assert!(
        footprint.record_queues <= bound,
        "{footprint:?}, {} records kept, bound {bound}",
        remap.tasks()
    );
}

/// The footprint of the records' files counts the room of the file of the clients holding
/// one record (each of the 8 such clients) and the room of the list of files (that file):
/// at least 9, and 9 once shrunk to fit.
#[test]
fn the_records_files_footprint_counts_the_clients_filed_and_their_file() {
    let mut remap = IdRemapper::new(64);
    for client in 0..8 {
        end_a_task(&mut remap, client, 1, &format!("task-{client}"));
    }
    assert_eq!(remap.tasks(), 8);
    let footprint = remap.debug_footprint();
    assert!(footprint.record_files >= 9, "{footprint:?}");
    remap.shrink_to_fit();
    let footprint = remap.debug_footprint();
    assert_eq!(footprint.record_files, 9, "{footprint:?}");
    assert_eq!(owner_of(&remap, "task-7"), Some(7));
}

/// `params` that lazy validation lets through but that are not JSON (`{"name" "x"}`) are
/// refused as `MalformedParams`, whatever member the remapper was reading in them (the
/// progress token, a task request's `taskId`), and answered -32700 under the request's id:
/// the frame is not JSON. Such a request was refused as one whose progress token cannot be
/// rewritten (-32602), though it had none. Valid `params` keep their own refusals, at any
/// depth the decoder lets through; not-JSON the remapper does not read goes upstream, as lazy
/// validation promises.
#[test]
fn params_that_are_not_json_are_refused_as_such() {
    let call = |params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
    };
    let task = |params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{params}}}"#)
    };
    let mut remap = IdRemapper::new(8);
    for frame in [
        call(r#"{"name" "x"}"#),
        call(r#"{"name":"x","_meta":{"progressToken" 1}}"#),
        call(r#"{"_meta":{"progressToken":[1 2]}}"#),
        task(r#"{"taskId" "t"}"#),
        task(r#"{"_meta":{},"taskId":[1 2]}"#),
    ] {
        assert_eq!(
            forward_checked(&mut remap, 1, &frame, None),
            Err(RemapError::MalformedParams),
            "{frame}"
        );
    }
    for (frame, refused) in [
        (
            call(r#"{"_meta":{"progressToken":1,"progressToken":2}}"#),
            RemapError::BadProgressToken,
        ),
        (
            call(r#"{"_meta":{"progressToken":[1,2]}}"#),
            RemapError::BadProgressToken,
        ),
        (
            task(r#"{"taskId":"a","taskId":"b"}"#),
            RemapError::BadTaskId,
        ),
        (task(r#"{"taskId":[1,2]}"#), RemapError::BadTaskId),
    ] {
        assert_eq!(
            forward_checked(&mut remap, 1, &frame, None),
            Err(refused),
            "{frame}"
        );
    }
    assert!(
        forward_checked(
            &mut remap,
            1,
            &call(r#"{"name":"x","arguments":{"a" 1}}"#),
            None
        )
        .is_ok()
    );

    // Valid params deeper than a value's default limit, with a token named twice: not
    // "not JSON" (the decoder that read the frame allows the depth).
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"x","params":{{"_meta":{{"progressToken":1,"progressToken":2}},"d":{}1{}}}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    let mut options = rpcwire::DecodeOptions::new(rpcwire::Dialect::Mcp);
    options.limits.max_depth = 400;
    let Ok(Message::Request(req)) = Decoder::new(options).decode(deep.as_bytes()) else {
        panic!("the deep request decodes")
    };
    let refused = remap.forward_request(1, deep.as_bytes(), &req, None, &mut BytesMut::new());
    assert_eq!(refused, Err(RemapError::BadProgressToken));

    let mut out = BytesMut::new();
    RemapError::MalformedParams.write_reply(&mut out, Id::from_token(b"1").unwrap());
    assert_eq!(
        &out[..],
        &br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"params is not valid JSON"}}
"#[..]
    );
}

/// Under `dialect(Dialect::JsonRpc2)` only the id is rewritten: a plain JSON-RPC service's
/// methods named as MCP's (`tasks/list`, `tasks/get`, `initialize`) and a `_meta.progressToken`
/// in its params go as they came, where MCP's rules (the default) rewrite the token, list the
/// client's own tasks only (none here), refuse a `taskId` that is not a string and keep an
/// `initialize` from being cancelled.
#[test]
fn plain_json_rpc_rewrites_the_id_alone() {
    fn forward(remap: &mut IdRemapper<u32>, frame: &[u8]) -> Result<(Token, Vec<u8>), RemapError> {
        let mut out = BytesMut::new();
        let token = remap.forward_request(7, frame, &request(frame), None, &mut out)?;
        Ok((token, out.to_vec()))
    }
    fn cancel(remap: &mut IdRemapper<u32>, frame: &[u8]) -> Vec<u8> {
        let Ok(Message::Notification(n)) = Decoder::jsonrpc().decode(frame) else {
            panic!()
        };
        let mut out = BytesMut::new();
        remap.forward_cancel(&7, frame, &n, &mut out);
        out.to_vec()
    }
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{"_meta":{"progressToken":"p"}}}"#;
    let get = br#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":5}}"#;
    let init = br#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}"#;
    let cancel_init =
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#;

    let mut plain = IdRemapper::new(16).dialect(rpcwire::Dialect::JsonRpc2);
    let (token, upstream) = forward(&mut plain, list).unwrap();
    let expected = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{token},\"method\":\"tasks/list\",\"params\":{{\"_meta\":{{\"progressToken\":\"p\"}}}}}}\n"
    );
    assert_eq!(String::from_utf8(upstream).unwrap(), expected);
    let reply =
        format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"tasks":[{{"taskId":"t"}}]}}}}"#);
    assert_eq!(
        route(&mut plain, reply.as_bytes()),
        (
            Ok(7),
            br#"{"jsonrpc":"2.0","id":1,"result":{"tasks":[{"taskId":"t"}]}}
"#
            .to_vec()
        )
    );
    assert!(forward(&mut plain, get).is_ok());
    let (token, _) = forward(&mut plain, init).unwrap();
    let cancelled = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{token}}}}}\n"
    );
    assert_eq!(cancel(&mut plain, cancel_init), cancelled.into_bytes());

    // The default: MCP's rules.
    let mut mcp = IdRemapper::new(16);
    let (token, upstream) = forward(&mut mcp, list).unwrap();
    let rewritten = format!("\"progressToken\":{token}}}");
    assert!(String::from_utf8(upstream).unwrap().contains(&rewritten));
    let reply =
        format!(r#"{{"jsonrpc":"2.0","id":{token},"result":{{"tasks":[{{"taskId":"t"}}]}}}}"#);
    assert_eq!(
        route(&mut mcp, reply.as_bytes()).1,
        br#"{"jsonrpc":"2.0","id":1,"result":{"tasks":[]}}
"#
        .to_vec()
    );
    assert_eq!(forward(&mut mcp, get), Err(RemapError::BadTaskId));
    forward(&mut mcp, init).unwrap();
    assert!(cancel(&mut mcp, cancel_init).is_empty());
}

/// Under `Dialect::JsonRpc2` there are no listen streams: an upstream notification whose
/// `_meta` carries MCP's subscription stamp naming a token in flight is plain JSON-RPC
/// payload, not routed (its stamp not rewritten), and the request stays in flight; under
/// MCP's rules the same notification is routed as the stream's.
#[test]
fn plain_json_rpc_routes_no_subscription_stamp() {
    let call = br#"{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{}}"#;
    for (dialect, routed) in [
        (rpcwire::Dialect::JsonRpc2, false),
        (rpcwire::Dialect::Mcp, true),
    ] {
        let mut remap = IdRemapper::new(16).dialect(dialect);
        let token = remap
            .forward_request(7u32, call, &request(call), None, &mut BytesMut::new())
            .unwrap();
        let note = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{token}}}}}}}"#
        );
        let Ok(Message::Notification(n)) = Decoder::jsonrpc_client().decode(note.as_bytes()) else {
            panic!()
        };
        let mut out = BytesMut::new();
        let to = remap
            .route_subscription(note.as_bytes(), &n, &mut out)
            .map(|o| o.client);
        assert_eq!(to.is_some(), routed, "{dialect:?}");
        assert_eq!(out.is_empty(), !routed, "{dialect:?}");
        assert_eq!(remap.len(), 1, "{dialect:?}");
    }
}

/// Under `Dialect::JsonRpc2` the params are not read: what MCP's rules refuse for them
/// (params a lazy decoder let through that are not JSON, a progress token given twice or of
/// another type, a `taskId` that is not one string) goes upstream as it came, its id alone
/// rewritten.
#[test]
fn plain_json_rpc_refuses_nothing_for_its_params() {
    let call = |method: &str, params: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#)
    };
    for frame in [
        call("tools/call", r#"{"name" "x"}"#),
        call("tools/call", r#"{"_meta":{"progressToken":[1 2]}}"#),
        call(
            "tools/call",
            r#"{"_meta":{"progressToken":1,"progressToken":2}}"#,
        ),
        call("tools/call", r#"{"_meta":{"progressToken":true}}"#),
        call("tasks/get", r#"{"taskId" "t"}"#),
        call("tasks/result", r#"{"taskId":"a","taskId":"b"}"#),
        call(
            "subscriptions/listen",
            r#"{"notifications":{"taskIds":[1]}}"#,
        ),
    ] {
        assert!(
            forward_checked(&mut IdRemapper::new(8), 1, &frame, None).is_err(),
            "MCP's rules refuse {frame}"
        );
        let mut remap = IdRemapper::new(8).dialect(rpcwire::Dialect::JsonRpc2);
        let mut up = BytesMut::new();
        let token = remap
            .forward_request(
                1u32,
                frame.as_bytes(),
                &request(frame.as_bytes()),
                None,
                &mut up,
            )
            .unwrap_or_else(|e| panic!("{frame}: {e:?}"));
        let rewritten = frame.replacen(r#""id":1"#, &format!(r#""id":{token}"#), 1);
        assert_eq!(&up[..], format!("{rewritten}\n").as_bytes(), "{frame}");
    }
}

/// Under `Dialect::JsonRpc2` a client's `notifications/cancelled` names a request by a
/// `requestId` that is a string or an integer, compared by value (`"\u0061"` names `"a"`, `2`
/// names `2.0`); a `requestId` that is another number (`1.0`, `1e0`, `0.5`) names none: nothing
/// goes upstream, and the request stays (`get` finds `0.5` by value).
#[test]
fn plain_json_rpc_cancellation_names_strings_and_integers_alone() {
    let mut remap = IdRemapper::new(8).dialect(rpcwire::Dialect::JsonRpc2);
    for id in ["1", "0.5", r#""a""#, "2.0"] {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#);
        let Ok(Message::Request(req)) = Decoder::jsonrpc().decode(frame.as_bytes()) else {
            panic!()
        };
        remap
            .forward_request(7u32, frame.as_bytes(), &req, None, &mut BytesMut::new())
            .unwrap();
    }
    let mut cancel = |request_id: &str| {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{request_id}}}}}"#
        );
        let Ok(Message::Notification(n)) = Decoder::jsonrpc().decode(frame.as_bytes()) else {
            panic!()
        };
        let mut out = BytesMut::new();
        let named = remap.forward_cancel(&7, frame.as_bytes(), &n, &mut out);
        assert_eq!(named.is_some(), !out.is_empty(), "{request_id}");
        named.map(|(token, _)| token.get())
    };
    for request_id in ["1.0", "1e0", "0.5"] {
        assert_eq!(cancel(request_id), None, "{request_id}");
    }
    assert_eq!(cancel(r#""\u0061""#), Some(3));
    assert_eq!(cancel("1"), Some(1));
    assert_eq!(cancel("2"), Some(4));
    assert_eq!(remap.len(), 1);
    let half = Id::from_token(b"5e-1").unwrap();
    assert_eq!(remap.get(&7, half).map(|(token, _)| token.get()), Some(2));
}

/// Each refusal for a limit carries the remapper's configured limit, not the default, and
/// its text names it; the reply's message does not.
#[test]
fn the_refusals_name_the_remappers_limits() {
    let mut remap: IdRemapper<u32> = IdRemapper::new(1);
    forward_ping(&mut remap, 1, 1).unwrap();
    let full = forward_ping(&mut remap, 2, 1).unwrap_err();
    assert_eq!(full, RemapError::Full { limit: 1 });
    assert_eq!(
        full.to_string(),
        "the table of requests in flight is full: its limit is 1"
    );
    let mut remap: IdRemapper<u32> = IdRemapper::new(16).max_bytes(3);
    let over = forward_ping(&mut remap, 1, 1234).unwrap_err();
    assert_eq!(over, RemapError::OverBudget { budget: 3 });
    assert_eq!(
        over.to_string(),
        "the requests in flight would hold more bytes than their budget of 3 bytes"
    );
    let mut remap: IdRemapper<u32> = IdRemapper::new(16).max_per_client(1);
    forward_ping(&mut remap, 1, 1).unwrap();
    let client_full = forward_ping(&mut remap, 1, 2).unwrap_err();
    assert_eq!(client_full, RemapError::ClientFull { limit: 1 });
    assert_eq!(
        client_full.to_string(),
        "the client has too many requests in flight: its limit is 1"
    );
    let mut remap: IdRemapper<u32> = IdRemapper::new(16).max_bytes_per_client(3);
    let client_over = forward_ping(&mut remap, 1, 1234).unwrap_err();
    assert_eq!(client_over, RemapError::ClientOverBudget { budget: 3 });
    assert_eq!(
        client_over.to_string(),
        "the client's requests in flight would hold more bytes than its budget of 3 bytes"
    );
    let mut out = BytesMut::new();
    client_full.write_reply(&mut out, Id::from_token(b"2").unwrap());
    assert!(out.ends_with(b"\"message\":\"the client has too many requests in flight\"}}\n"));
}
