//! Public API contracts a user's code leans on: every error type is a `std::error::Error`
//! (so `?` into `Box<dyn Error>` works) with a message, and the main types are `Send`,
//! `Sync` and `Debug` (so they fit in shared state and in `#[derive(Debug)]` structs).

use std::error::Error;
use std::fmt::Debug;

fn error<E: Error + Send + Sync + 'static>(e: E) -> Box<dyn Error + Send + Sync> {
    assert!(!e.to_string().is_empty());
    Box::new(e)
}

#[test]
fn every_error_type_is_an_error_with_a_message() {
    use rpcwire::headers::{HeaderError, InvalidSchema, SchemaError, ValueError};
    use rpcwire::mcp::MetaKeyError;
    let rejection = rpcwire::Decoder::mcp().decode(b"{").unwrap_err();
    let owned =
        rpcwire::OwnedMessage::decode(&rpcwire::Decoder::mcp(), bytes::Bytes::from_static(b"{"))
            .unwrap_err();
    let _errors = [
        error(rejection),
        error(owned),
        error(rpcwire::ContentLengthError::Truncated { offset: 0 }),
        error(HeaderError::UnsupportedVersion {
            requested: "1999-01-01",
        }),
        error(InvalidSchema {
            error: SchemaError::NotAToken,
            header: None,
            property: None,
        }),
        error(rpcwire::RemapError::DuplicateId),
        error(rpcwire::RemapError::Full),
        error(rpcwire::RemapError::OverBudget),
        error(rpcwire::InFlightError::Duplicate),
        error(rpcwire::InFlightError::Full),
        error(rpcwire::InFlightError::OverBudget),
        error(ValueError::InvalidCharacter),
        error(ValueError::BadBase64),
        error(ValueError::NotUtf8),
        error(MetaKeyError::BadPrefixLabel),
        error(MetaKeyError::BadName),
        error(rpcwire::Miss::Stale),
        error(rpcwire::FrameError::TooLong { offset: 0 }),
        error(rpcwire::SseWriteError::InvalidId),
        error(rpcwire::SseWriteError::InvalidEventType),
        error(rpcwire::SseWriteError::IdTooLong { max: 0 }),
        error(rpcwire::DecodeError::Empty),
        error(rpcwire::ScanError::UnexpectedEnd),
    ];
    #[cfg(feature = "serde")]
    {
        let value = rpcwire::RawJson::new(b"\"x\"").unwrap();
        error(rpcwire::typed::deserialize_borrowed::<u32>(value).unwrap_err());
    }
}

fn shared<T: Send + Sync + Debug>() {}

#[test]
fn main_types_are_send_sync_and_debug() {
    shared::<rpcwire::Decoder>();
    shared::<rpcwire::Message<'static>>();
    shared::<rpcwire::OwnedMessage>();
    shared::<rpcwire::PendingTable<String>>();
    shared::<rpcwire::InFlight<String>>();
    shared::<rpcwire::IdRemapper<u32>>();
    shared::<rpcwire::LineFramer>();
    shared::<rpcwire::SseFramer>();
    shared::<rpcwire::ContentLengthFramer>();
    let remapper = rpcwire::IdRemapper::<u32>::new(8);
    assert_eq!(
        format!("{remapper:?}"),
        "IdRemapper { in_flight: 0, task_routes: 0, tasks: 0, .. }"
    );
}

#[test]
fn ids_display_as_their_wire_token() {
    let id = rpcwire::Id::from_token(br#""a\"b""#).unwrap();
    assert_eq!(id.to_string(), r#""a\"b""#);
    assert_eq!(id.to_owned_id().to_string(), r#""a\"b""#);
    assert_eq!(rpcwire::IdBuf::from_i64(-7).to_string(), "-7");
}

/// A value kept with a request in flight can be updated where it is (a count of its progress
/// notifications, a state it moved to), in each table that keeps one.
#[test]
fn values_kept_with_requests_in_flight_can_be_updated_in_place() {
    use bytes::BytesMut;
    use rpcwire::{Decoder, Id, IdRemapper, InFlight, Message};

    let one = Id::from_token(b"1").unwrap();
    let mut peer = InFlight::new(8);
    peer.insert(one, 0u32).unwrap();
    *peer.get_mut(Id::from_token(b"1.0").unwrap()).unwrap() += 1;
    assert_eq!(peer.get(one), Some(&1));
    assert_eq!(peer.get_mut(Id::from_token(b"2").unwrap()), None);

    let mut remap: IdRemapper<u8, u32> = IdRemapper::new(8);
    let frame = br#"{"jsonrpc":"2.0","id":"a","method":"tools/call"}"#;
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else {
        panic!()
    };
    let token = remap
        .forward_request_with(7, 0, frame, &req, None, &mut BytesMut::new())
        .unwrap();
    let (found, progress_seen) = remap.get_mut(&7, req.id).unwrap();
    assert_eq!(found, token);
    *progress_seen += 1;
    assert_eq!(remap.get(&7, req.id), Some((token, &1)));
    assert!(remap.get_mut(&8, req.id).is_none());
}

/// `Decoder::parse_error_reply` is the reply to every frame a framer refuses unread (an
/// over-long line, a `Content-Length` body in another charset), the one a frame that is not
/// JSON gets, in the decoder's `unreadable_id` form; `too_long_reply`, its former name, still
/// gives the same.
#[test]
#[allow(deprecated)]
fn parse_error_reply_answers_every_frame_refused_unread() {
    use rpcwire::{Decoder, ErrorCode, ReplyId};

    for (decoder, id) in [
        (Decoder::mcp(), ReplyId::Absent),
        (Decoder::jsonrpc(), ReplyId::Null),
    ] {
        let reply = decoder.parse_error_reply();
        assert_eq!((reply.code, reply.id), (ErrorCode::PARSE_ERROR, id));
        assert_eq!(decoder.decode(b"{oops").unwrap_err().reply(), Some(reply));
        assert_eq!(decoder.too_long_reply(), reply);

        #[cfg(feature = "tokio")]
        {
            use bytes::BytesMut;
            use rpcwire::codec::{ContentLengthCodec, LineCodec};
            use tokio_util::codec::Decoder as _;

            let mut lines = LineCodec::new(decoder, 8);
            let over_long = lines.decode(&mut BytesMut::from(&b"much too long\n"[..]));
            assert_eq!(over_long.unwrap().unwrap().reply(), Some(reply));
            let mut bodies = ContentLengthCodec::from(decoder);
            let latin1 =
                b"Content-Length: 2\r\nContent-Type: application/json; charset=latin1\r\n\r\n{}";
            let refused = bodies.decode(&mut BytesMut::from(&latin1[..]));
            assert_eq!(refused.unwrap().unwrap().reply(), Some(reply));
        }
    }
}
