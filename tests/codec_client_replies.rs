//! `Incoming::reply_to_request`: what a client answers of the items of a server's stream, for
//! every kind of item, against the server's policy `Incoming::reply`.
#![cfg(feature = "tokio")]

use bytes::BytesMut;
use rpcwire::codec::{ContentLengthCodec, Incoming, LineCodec};
use rpcwire::{Decoder, ErrorCode, ReplyId};

/// Every item `codec` reads from `input`.
fn items(
    codec: &mut impl tokio_util::codec::Decoder<Item = Incoming, Error = std::io::Error>,
    input: &[u8],
) -> Vec<Incoming> {
    let mut buf = BytesMut::from(input);
    let mut out = Vec::new();
    while let Some(item) = codec.decode(&mut buf).unwrap() {
        out.push(item);
    }
    out
}

#[test]
fn an_invalid_request_of_the_servers_is_answered_under_its_id() {
    let mut codec = LineCodec::from(Decoder::mcp_client());
    let items = items(
        &mut codec,
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\",\"params\":[]}\n",
    );
    let [item] = &items[..] else {
        panic!("{items:?}")
    };
    let reply = item.reply_to_request().unwrap();
    assert_eq!(reply.code, ErrorCode::INVALID_REQUEST);
    assert!(matches!(reply.id, ReplyId::Id(id) if id.raw() == b"7"));
    assert_eq!(item.reply(), Some(reply));
}

#[test]
fn what_may_have_been_a_reply_or_a_notification_is_not_answered() {
    let mut codec = LineCodec::new(Decoder::mcp_client(), 48);
    let stream = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
        not json\n\
        {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{},\"method\":\"x\"}\n\
        {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":[]}\n\
        {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[\"longer than the limit\"]}}\n";
    let items = items(&mut codec, stream);
    assert_eq!(items.len(), 5, "{items:?}");
    assert!(matches!(items[0], Incoming::Message(_)));
    assert!(matches!(items[4], Incoming::TooLong { .. }));
    for item in &items {
        assert_eq!(item.reply_to_request(), None, "{item:?}");
    }
    // A server's policy answers the line that is not JSON and the over-long one.
    assert_eq!(items[1].reply().unwrap().code, ErrorCode::PARSE_ERROR);
    assert_eq!(items[4].reply().unwrap().code, ErrorCode::PARSE_ERROR);
}

#[test]
fn a_body_in_another_charset_is_not_answered() {
    let mut codec = ContentLengthCodec::from(Decoder::mcp_client());
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut frame = format!(
        "Content-Length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=latin1\r\n\r\n",
        body.len()
    )
    .into_bytes();
    frame.extend_from_slice(body);
    let items = items(&mut codec, &frame);
    let [item] = &items[..] else {
        panic!("{items:?}")
    };
    assert!(
        matches!(item, Incoming::UnsupportedCharset { .. }),
        "{item:?}"
    );
    assert_eq!(item.reply_to_request(), None);
    assert!(item.reply().is_some());
}
