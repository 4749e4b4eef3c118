//! Public API contracts a user's code leans on: every error type is a `std::error::Error`
//! (so `?` into `Box<dyn Error>` works) with a message and a `Debug` form (what `unwrap`
//! shows), and the main types are `Send`, `Sync` and `Debug` (so they fit in shared state and
//! in `#[derive(Debug)]` structs).

use std::error::Error;
use std::fmt::Debug;

fn error<E: Error + Send + Sync + 'static>(e: E) -> Box<dyn Error + Send + Sync> {
    assert!(!e.to_string().is_empty());
    // What `unwrap` and `{:?}` show (`TableFull` writes its own, not needing `T: Debug`).
    assert!(!format!("{e:?}").is_empty());
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
        error(rpcwire::RemapError::Full { limit: 0 }),
        error(rpcwire::RemapError::OverBudget { budget: 0 }),
        error(rpcwire::RemapError::BadProgressToken),
        error(rpcwire::RemapError::ForeignTask),
        error(rpcwire::RemapError::BadTaskId),
        error(rpcwire::RemapError::MalformedParams),
        error(rpcwire::RemapError::ClientFull { limit: 0 }),
        error(rpcwire::RemapError::ClientOverBudget { budget: 0 }),
        error(rpcwire::InFlightError::Duplicate),
        error(rpcwire::InFlightError::Full { limit: 0 }),
        error(rpcwire::InFlightError::OverBudget { budget: 0 }),
        error(ValueError::InvalidCharacter),
        error(ValueError::BadBase64),
        error(ValueError::NotUtf8),
        error(MetaKeyError::BadPrefixLabel),
        error(MetaKeyError::BadName),
        error(rpcwire::Miss::Stale),
        error(rpcwire::FrameError::TooLong {
            offset: 0,
            limit: 0,
        }),
        error(rpcwire::SseWriteError::InvalidId),
        error(rpcwire::SseWriteError::InvalidEventType),
        error(rpcwire::SseWriteError::IdTooLong { limit: 0 }),
        error(rpcwire::DecodeError::Empty),
        error(rpcwire::ScanError::UnexpectedEnd),
        error(SchemaError::NotAToken),
        error(rpcwire::TableFull {
            value: "a request",
            limit: 0,
        }),
        error(rpcwire::batch::CollectorError::AlreadySettled),
        error(rpcwire::batch::CollectorError::UnknownOwed),
        error(rpcwire::batch::CollectorError::AlreadySealed),
        error(rpcwire::batch::CollectorError::AlreadyDone),
        error(rpcwire::batch::CollectorError::TooManyOwed { limit: 0 }),
        error(rpcwire::mcp::ResultError::NotAnObject),
        error(rpcwire::mcp::ResultError::BadResultType),
        error(rpcwire::mcp::ProgressRequestError::BadId),
        error(rpcwire::mcp::ProgressRequestError::BadToken),
        error(rpcwire::mcp::ProgressRequestError::NotAnObject),
        error(rpcwire::mcp::ProgressRequestError::Malformed),
        error(rpcwire::mcp::ProgressRequestError::AlreadyAsked),
        error(rpcwire::mcp::HandshakeError::NotInitialize),
        error(rpcwire::mcp::HandshakeError::Missing(
            rpcwire::mcp::HandshakeMember::ClientInfo,
        )),
        error(rpcwire::mcp::InputRequiredError::NotInputRequired),
        error(rpcwire::mcp::InputRequiredError::Malformed),
        error(rpcwire::mcp::InputRequiredError::NothingAsked),
        error(rpcwire::mcp::InputRequiredError::BadInputRequests),
        error(rpcwire::mcp::InputRequiredError::BadRequestState),
        error(rpcwire::mcp::RetryError::BadId),
        error(rpcwire::mcp::RetryError::NotAnObject),
        error(rpcwire::mcp::RetryError::DuplicateKey),
        error(rpcwire::mcp::RetryReadError::Malformed),
        error(rpcwire::mcp::RetryReadError::BadInputResponses),
        error(rpcwire::mcp::RetryReadError::DuplicateKey),
        error(rpcwire::mcp::RetryReadError::BadRequestState),
        error(rpcwire::mcp::InputRequiredWriteError::NothingAsked),
        error(rpcwire::mcp::InputRequiredWriteError::DuplicateKey),
        error(rpcwire::mcp::InputRequiredWriteError::ParamsNotAnObject),
        error(rpcwire::mcp::RequestMetaError::MissingProtocolVersion),
        error(rpcwire::mcp::RequestMetaError::UnsupportedVersion {
            requested: rpcwire::JsonStr::from_raw(b"1999-01-01", false),
        }),
        error(rpcwire::mcp::RequestMetaError::MissingClientCapabilities),
        error(rpcwire::mcp::MetaRequestError::BadId),
        error(rpcwire::mcp::MetaRequestError::NotAnObject),
        error(rpcwire::mcp::MetaRequestError::Malformed),
        error(rpcwire::mcp::MetaRequestError::BadKey(0)),
        error(rpcwire::mcp::MetaRequestError::Present(0)),
        error(rpcwire::mcp::DiscoverWriteError::CapabilitiesNotAnObject),
        error(rpcwire::mcp::DiscoverWriteError::ServerInfoNotAnObject),
        error(rpcwire::mcp::DiscoverReadError::NotAnObject),
        error(rpcwire::mcp::DiscoverReadError::Malformed),
        error(rpcwire::mcp::DiscoverReadError::Missing(
            rpcwire::mcp::DiscoverMember::Capabilities,
        )),
        error(rpcwire::mcp::UnknownLogLevel),
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
    shared::<rpcwire::batch::Collector>();
    let mut collector = rpcwire::batch::Collector::new();
    let _ = collector.owe().unwrap();
    collector.push(|out| out.extend_from_slice(b"1")).unwrap();
    // Its counts, not its bytes.
    assert_eq!(
        format!("{collector:?}"),
        "Collector { owed: 1, waiting: 1, elements: 1, bytes: 2, sealed: false, done: false, .. }"
    );
    let remapper = rpcwire::IdRemapper::<u32>::new(8);
    assert_eq!(
        format!("{remapper:?}"),
        "IdRemapper { dialect: Mcp, in_flight: 0, task_routes: 0, tasks: 0, .. }"
    );
    // The dialect it reads requests by shows: a plain JSON-RPC gateway's that was left at
    // MCP's rules is told at a glance.
    let remapper = remapper.dialect(rpcwire::Dialect::JsonRpc2);
    assert_eq!(
        format!("{remapper:?}"),
        "IdRemapper { dialect: JsonRpc2, in_flight: 0, task_routes: 0, tasks: 0, .. }"
    );
}

/// The rest of the public types, values and views a task hands to another or keeps in shared
/// state: each is `Send + Sync + Debug` too (a compile-time check; the borrowing ones at any
/// lifetime, as `'static` stands for every other here).
#[test]
fn every_other_public_type_is_send_sync_and_debug() {
    use rpcwire::{batch, headers, pending};
    shared::<rpcwire::DecodeOptions>();
    shared::<rpcwire::Limits>();
    shared::<rpcwire::Rejection<'static>>();
    shared::<rpcwire::OwnedRejection>();
    shared::<rpcwire::Reply<'static>>();
    shared::<rpcwire::Id<'static>>();
    shared::<rpcwire::IdBuf>();
    shared::<rpcwire::IdKey>();
    shared::<rpcwire::RawJson<'static>>();
    shared::<rpcwire::JsonStr<'static>>();
    shared::<rpcwire::Members<'static>>();
    shared::<rpcwire::Elements<'static>>();
    shared::<rpcwire::Lines<'static>>();
    shared::<rpcwire::DecodeLines<'static>>();
    shared::<rpcwire::DecodedLine<'static>>();
    shared::<rpcwire::SseEvent>();
    shared::<rpcwire::Token>();
    shared::<rpcwire::Origin<u32, String>>();
    shared::<rpcwire::ProgressRoute<'static, u32, String>>();
    shared::<rpcwire::StreamCancel<u32, String>>();
    shared::<rpcwire::TableFull<String>>();
    shared::<pending::Expired<'static, String>>();
    shared::<pending::Drain<'static, String>>();
    shared::<pending::VacantEntry<'static, String>>();
    shared::<rpcwire::ReservedId<'static, String, std::hash::RandomState>>();
    shared::<batch::BatchElements<'static, 'static>>();
    shared::<batch::Owed>();
    shared::<batch::Status>();
    shared::<rpcwire::encode::BatchReply<'static>>();
    shared::<headers::ToolHeaders>();
    shared::<headers::HeaderCheck<'static>>();
    shared::<headers::ParamHeader<'static>>();
    #[cfg(feature = "tokio")]
    {
        use rpcwire::codec;
        shared::<pending::DeadlineClock>();
        shared::<codec::LineCodec>();
        shared::<codec::LineEncoder>();
        shared::<codec::SseCodec>();
        shared::<codec::SseEncoder>();
        shared::<codec::ContentLengthCodec>();
        shared::<codec::ContentLengthEncoder>();
        shared::<codec::Incoming>();
        shared::<codec::Outgoing<'static>>();
        shared::<codec::SseItem>();
    }
    #[cfg(feature = "serde")]
    shared::<rpcwire::typed::Scratch>();
}

/// A pending table's reserved entry and its iterators say in `Debug` what they stand for (the
/// token the entry files under, the `now` an expiry runs to, the requests a drain has left),
/// without needing `T: Debug`; what a `#[derive(Debug)]` struct holding one shows.
#[test]
fn pending_table_entry_and_iterators_show_their_state_in_debug() {
    struct Opaque;
    let mut table = rpcwire::PendingTable::new();
    let entry = table.vacant_entry().unwrap();
    let token = entry.token();
    assert_eq!(
        format!("{entry:?}"),
        format!("VacantEntry {{ token: {token:?} }}")
    );
    entry.insert_with_deadline(Opaque, 5);
    table.insert(Opaque).unwrap();
    assert_eq!(format!("{:?}", table.expire(4)), "Expired { now: 4 }");
    let mut drain = table.drain();
    assert_eq!(format!("{drain:?}"), "Drain { remaining: 2 }");
    drain.next();
    assert_eq!(format!("{drain:?}"), "Drain { remaining: 1 }");
}

/// An in-flight table shows in `Debug` its requests, each id as it was spelled with its
/// value; a reservation shows the id it claims, without needing `T: Debug`.
#[test]
fn inflight_table_and_reservation_show_their_ids_in_debug() {
    use rpcwire::{Id, InFlight};
    struct Opaque;
    let mut opaque = InFlight::new(4);
    let reserved = opaque.reserve(Id::from_token(b"1.0").unwrap()).unwrap();
    assert_eq!(format!("{reserved:?}"), "ReservedId { id: 1.0 }");
    reserved.insert(Opaque);
    let mut table = InFlight::new(4);
    assert_eq!(format!("{table:?}"), "{}");
    table.insert(Id::from_token(br#""a""#).unwrap(), 7).unwrap();
    assert_eq!(format!("{table:?}"), r#"{"a": 7}"#);
}

#[test]
fn ids_display_as_their_wire_token() {
    let id = rpcwire::Id::from_token(br#""a\"b""#).unwrap();
    assert_eq!(id.to_string(), r#""a\"b""#);
    assert_eq!(id.to_owned_id().to_string(), r#""a\"b""#);
    assert_eq!(rpcwire::IdBuf::from_i64(-7).to_string(), "-7");
    // Their `Debug` form is the token too, an owned id's as a borrowed one's.
    assert_eq!(format!("{id:?}"), r#""a\"b""#);
    assert_eq!(format!("{:?}", id.to_owned_id()), r#""a\"b""#);
    assert_eq!(format!("{:?}", rpcwire::IdBuf::from_i64(-7)), "-7");
}

/// `Id::from_token` takes one whole JSON string, number or `null` token and nothing else
/// (`None`, as its docs say): not a prefix of one followed by more bytes, not a word that
/// merely starts like `null`, not a closed string holding bytes that are not UTF-8.
#[test]
fn id_from_token_takes_exactly_one_valid_token() {
    use rpcwire::{Id, IdKind};
    assert_eq!(Id::from_token(b"null"), Some(Id::NULL));
    assert_eq!(
        Id::from_token(br#""a""#).map(|id| id.kind()),
        Some(IdKind::String { has_escapes: false })
    );
    for bad in [
        &b"nul"[..],
        b"nulls",
        b"none",
        b"n",
        br#""a"x"#,
        br#""a""b""#,
        br#""a" "#,
        b"\"\xff\"",
        b"\"a\xc3\"",
        b"1x",
        b"1 ",
        b"",
        b"true",
        b"[1]",
    ] {
        assert_eq!(Id::from_token(bad), None, "{}", bad.escape_ascii());
    }
}

/// The `null` id kept as an `IdBuf` reads back as `null`, not as a number: its kind,
/// `is_null`, and equality with the borrowed `Id::NULL`.
#[test]
fn a_null_id_kept_owned_is_still_null() {
    use rpcwire::{Id, IdBuf, IdKind};
    let kept = IdBuf::from(Id::NULL);
    assert_eq!(kept.as_id().kind(), IdKind::Null);
    assert!(kept.as_id().is_null());
    assert_eq!(kept.as_id(), Id::NULL);
    assert_eq!(kept, Id::NULL);
    assert!(!Id::from_token(b"0").unwrap().is_null());
    assert!(!IdBuf::from_i64(0).as_id().is_null());
}

/// `Id::as_i64` reads a canonical integer token that fits `i64`, owned or borrowed, and
/// nothing else: not one spelled as another number (`1.0`, `1e3`), not one out of range,
/// not a string holding digits, not `null`.
#[test]
fn an_id_reads_as_i64_only_when_it_is_an_integer_that_fits() {
    use rpcwire::{Id, IdBuf};
    let int = |t: &[u8]| Id::from_token(t).unwrap().as_i64();
    assert_eq!(int(b"42"), Some(42));
    assert_eq!(int(b"-7"), Some(-7));
    assert_eq!(int(b"9223372036854775807"), Some(i64::MAX));
    assert_eq!(int(b"-9223372036854775808"), Some(i64::MIN));
    assert_eq!(IdBuf::from_i64(1234).as_id().as_i64(), Some(1234));
    for other in [
        &b"1.0"[..],
        b"1e3",
        b"9223372036854775808",
        br#""1""#,
        b"null",
    ] {
        assert_eq!(int(other), None, "{}", other.escape_ascii());
    }
}

/// An owned id and a borrowed one compare as two borrowed ids do, by their tokens' bytes,
/// either way round: the id kept in a request's `Origin` against one read from a frame.
#[test]
fn owned_and_borrowed_ids_compare_by_their_tokens() {
    use rpcwire::{Id, IdBuf};
    let seven = Id::from_token(b"7").unwrap();
    let kept = IdBuf::from_i64(7);
    assert_eq!(kept, seven);
    assert_eq!(seven, kept);
    let spelled = Id::from_token(b"7.0").unwrap();
    assert_ne!(kept, spelled);
    assert_ne!(spelled, kept);
    let string = Id::from_token(br#""7""#).unwrap();
    assert_ne!(kept, string);
    assert_ne!(string, kept);
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

/// The owned forms answer as their borrowed views, with no view to make first:
/// `OwnedMessage::id` as `Message::id`, `OwnedRejection::error` and `reply` as
/// `Rejection`'s.
#[test]
fn owned_messages_and_rejections_answer_as_their_borrowed_views() {
    use bytes::Bytes;
    use rpcwire::{DecodeError, Decoder, ErrorCode, OwnedMessage, ReplyId};

    let owned = |decoder: &Decoder, frame: &'static [u8]| {
        OwnedMessage::decode(decoder, Bytes::from_static(frame))
    };
    fn id(raw: &[u8]) -> Option<rpcwire::Id<'_>> {
        Some(rpcwire::Id::from_token(raw).unwrap())
    }
    let (server, client) = (Decoder::mcp(), Decoder::mcp_client());
    let request = owned(&server, br#"{"jsonrpc":"2.0","id":"r","method":"ping"}"#).unwrap();
    assert_eq!(request.id(), id(br#""r""#));
    let response = owned(&client, br#"{"jsonrpc":"2.0","id":7,"result":{}}"#).unwrap();
    assert_eq!(response.id(), id(b"7"));
    let error = br#"{"jsonrpc":"2.0","id":8,"error":{"code":-1,"message":"no"}}"#;
    assert_eq!(owned(&client, error).unwrap().id(), id(b"8"));
    let unread = br#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}"#;
    assert_eq!(owned(&client, unread).unwrap().id(), None);
    let notification = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(owned(&server, notification).unwrap().id(), None);
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    assert_eq!(owned(&Decoder::jsonrpc(), batch).unwrap().id(), None);

    // A request with an id: -32600 under it.
    let refused = owned(&server, br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#).unwrap_err();
    assert_eq!(refused.error(), DecodeError::BadVersion);
    let reply = refused.reply().unwrap();
    assert_eq!(
        (reply.code, reply.id),
        (ErrorCode::INVALID_REQUEST, ReplyId::Id(id(b"3").unwrap()))
    );
    // Not JSON: -32700, in the decoder's form for an id it cannot read.
    let not_json = owned(&Decoder::jsonrpc(), b"{oops").unwrap_err();
    assert!(matches!(not_json.error(), DecodeError::Syntax(_)));
    let reply = not_json.reply().unwrap();
    assert_eq!(
        (reply.code, reply.id),
        (ErrorCode::PARSE_ERROR, ReplyId::Null)
    );
    // A malformed response: no reply.
    let bad_response = owned(&client, br#"{"jsonrpc":"2.0","id":4,"result":1}"#).unwrap_err();
    assert_eq!(bad_response.error(), DecodeError::ResultNotObject);
    assert_eq!(bad_response.reply(), None);
    for rejection in [refused, not_json, bad_response] {
        assert_eq!(rejection.error(), rejection.rejection().error());
        assert_eq!(rejection.reply(), rejection.rejection().reply());
    }
}

/// `error` followed by every error of its `source` chain, each after a `": "`: what a report
/// of the chain prints (anyhow's `{:#}`, say).
fn chain_report(error: &dyn std::error::Error) -> String {
    let mut report = error.to_string();
    let mut next = error.source();
    while let Some(source) = next {
        report = format!("{report}: {source}");
        next = source.source();
    }
    report
}

/// An error whose text already holds the text of the error it wraps does not give that error
/// again as its `source`, so a report of the chain prints each text once; the wrapped error
/// is read from the wrapper (`error()`, a field, a variant). (Both, before: "not JSON: unexpected byte: unexpected byte: unexpected byte".)
#[test]
fn a_report_of_the_error_chain_prints_each_text_once() {
    use bytes::Bytes;
    use rpcwire::headers::{InvalidSchema, SchemaError};
    use rpcwire::{DecodeError, Decoder, OwnedMessage, ScanError};

    let rejection = Decoder::mcp().decode(b"{oops").unwrap_err();
    assert_eq!(chain_report(&rejection), "not JSON: unexpected byte");
    assert_eq!(
        rejection.error(),
        DecodeError::Syntax(ScanError::UnexpectedByte)
    );
    let owned = OwnedMessage::decode(&Decoder::mcp(), Bytes::from_static(b"{oops")).unwrap_err();
    assert_eq!(chain_report(&owned), "not JSON: unexpected byte");
    let syntax = DecodeError::Syntax(ScanError::UnexpectedByte);
    assert_eq!(chain_report(&syntax), "unexpected byte");
    let invalid = Decoder::mcp()
        .decode(br#"{"jsonrpc":"2.0","id":3}"#)
        .unwrap_err();
    assert_eq!(
        chain_report(&invalid),
        "invalid message (id 3): none of method, result, error"
    );

    let invalid = InvalidSchema {
        error: SchemaError::NotAToken,
        header: None,
        property: None,
    };
    assert_eq!(
        chain_report(&invalid),
        "x-mcp-header is not an HTTP field-name token"
    );
}

/// What a client answers of a server's frames, and which replies it matches, over every
/// single-frame conformance vector in both dialects and both roles:
/// `Rejection::reply_to_request` is the -32600 (or other) reply exactly for a refused request
/// whose id was read (never a malformed response, a line that is not JSON, a frame with a
/// method beside a result or an error, or a frame without an id), and `ErrorResponse::request_id` names a request exactly when the id is neither
/// absent nor `null`. The owned forms answer the same.
#[test]
fn client_answers_refused_requests_by_their_read_id_only() {
    use bytes::Bytes;
    use rpcwire::{DecodeOptions, Decoder, Dialect, Message, OwnedMessage, ReplyId, Role};

    let (mut answered, mut unanswered, mut named, mut unnamed) = (0, 0, 0, 0);
    let mut maybe_replies = 0;
    for (name, frame) in vector_frames() {
        let frame = &frame[..];
        for dialect in [Dialect::Mcp, Dialect::JsonRpc2] {
            for role in [Role::Server, Role::Client] {
                let decoder = Decoder::new(DecodeOptions {
                    role,
                    ..DecodeOptions::new(dialect)
                });
                let owned = OwnedMessage::decode(&decoder, Bytes::copy_from_slice(frame));
                match decoder.decode(frame) {
                    Err(refused) => {
                        let expected = (!refused.is_response()
                            && !refused.error().is_parse_error()
                            && refused.error() != rpcwire::DecodeError::MethodInResponse)
                            .then_some(refused.id())
                            .flatten()
                            .map(|id| (refused.error().code(), ReplyId::Id(id)));
                        let got = refused.reply_to_request().map(|r| (r.code, r.id));
                        assert_eq!(got, expected, "{}", name);
                        if got.is_some() {
                            answered += 1;
                            assert_eq!(refused.reply_to_request(), refused.reply());
                        } else if refused.error() == rpcwire::DecodeError::MethodInResponse {
                            maybe_replies += 1;
                        } else {
                            unanswered += 1;
                        }
                        let owned = owned.unwrap_err();
                        assert_eq!(owned.reply_to_request(), refused.reply_to_request());
                    }
                    Ok(Message::ErrorResponse(e)) => {
                        let id = e.request_id();
                        assert_eq!(id.is_some(), e.id.is_some_and(|id| id.raw() != b"null"));
                        if let Some(id) = id {
                            named += 1;
                            assert_eq!(Some(id), e.id);
                        } else {
                            unnamed += 1;
                        }
                    }
                    Ok(_) => {}
                }
            }
        }
    }
    // The vectors hold each kind, so the assertions above saw every branch.
    assert!(answered > 0 && unanswered > 0 && named > 0 && unnamed > 0 && maybe_replies > 0);
}

/// A frame with `method` beside `result` or `error` may be a reply that echoes a method, and a
/// reply is never answered: a client's -32600 under its id would reach the server as the
/// answer to the server's own request of that id. `reply_to_request` sends nothing for it (a
/// server still answers it, by `reply`), as for a line that is not JSON.
#[test]
fn a_client_does_not_answer_a_frame_with_a_method_and_a_result() {
    use rpcwire::{DecodeError, Decoder, ReplyId};
    for decoder in [Decoder::mcp_client(), Decoder::jsonrpc_client()] {
        for frame in [
            &br#"{"jsonrpc":"2.0","id":1,"result":{},"method":"tools/call"}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"x"}}"#,
        ] {
            let refused = decoder.decode(frame).unwrap_err();
            assert_eq!(refused.error(), DecodeError::MethodInResponse);
            assert_eq!(refused.reply_to_request(), None);
            assert!(matches!(refused.reply().unwrap().id, ReplyId::Id(id) if id.raw() == b"1"));
        }
        // A request refused for another reason is still answered by its id.
        let refused = decoder
            .decode(br#"{"jsonrpc":"2.0","id":1,"method":5}"#)
            .unwrap_err();
        assert!(refused.reply_to_request().is_some());
    }
}

#[test]
fn strict_changes_the_validation_alone() {
    use rpcwire::{DecodeOptions, Decoder, Dialect, ReplyId, Role, Validation};
    let mut options = DecodeOptions::new(Dialect::JsonRpc2)
        .hardened_profile()
        .for_protocol_version("2025-03-26");
    options.role = Role::Client;
    options.unreadable_id = ReplyId::Absent;
    options.reject_unknown_members = true;
    options.limits.max_frame = 1 << 12;
    let strict = Decoder::new(options).strict();
    assert_eq!(
        *strict.options(),
        DecodeOptions {
            validation: Validation::Strict,
            ..options
        }
    );
    // Strict already: the same decoder.
    assert_eq!(strict.strict(), strict);
    // What the options decide, the decoder does: `[1 2]` in a result is refused (-32700).
    let reply = br#"{"jsonrpc":"2.0","id":1,"result":[1 2]}"#;
    assert!(Decoder::new(options).decode(reply).is_ok());
    assert!(strict.decode(reply).unwrap_err().error().is_parse_error());
}

/// A client's request refused because a table is full gets the same -32603 whichever table
/// refused it: the proxy's `PendingTable` of upstream tokens, an `InFlight`, an `IdRemapper`.
#[test]
fn every_full_table_answers_a_refused_request_alike() {
    use bytes::BytesMut;
    use rpcwire::{ErrorCode, Id, InFlightError, PendingTable, RemapError};

    let mut table = PendingTable::with_capacity_limit(1);
    table.insert(1u8).unwrap();
    let full = table.insert(2u8).unwrap_err();
    assert_eq!(full.code(), ErrorCode::INTERNAL_ERROR);
    assert_eq!(full.code(), InFlightError::Full { limit: 0 }.code());
    assert_eq!(full.code(), RemapError::Full { limit: 0 }.code());
    let id = Id::from_token(b"9").unwrap();
    let mut out = BytesMut::new();
    full.write_reply(&mut out, id);
    let reply: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(reply["id"], 9);
    assert_eq!(reply["error"]["code"], -32603);
    // The message leaves out the limit, which the text names, as the other tables' replies do.
    assert_eq!(reply["error"]["message"], "pending table is full");
    assert_eq!(full.to_string(), "pending table is full: its limit is 1");
    let mut out = BytesMut::new();
    InFlightError::Full { limit: 1 }.write_reply(&mut out, id);
    let reply: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(
        reply["error"]["message"],
        "the table of requests in flight is full"
    );
    assert_eq!(full.into_inner(), 2);
}

/// Asserts at compile time that `I` is fused, and checks it at run time: `None` once, `None`
/// after.
fn ends_for_good<I: std::iter::FusedIterator>(mut iter: I) {
    for _ in iter.by_ref() {}
    assert!(iter.next().is_none());
    assert!(iter.next().is_none());
}

/// The crate's named iterators are `FusedIterator`, so a caller's `.fuse()` is free and an
/// adaptor that needs one (`Peekable` reused past its end, a `zip` of two) takes them.
#[test]
fn named_iterators_are_fused() {
    use rpcwire::{Decoder, Lines, Message, PendingTable, RawJson};

    ends_for_good(Lines::new(b"{}\n\n[]", 1024));
    ends_for_good(Decoder::mcp().decode_lines(b"{}\n"));
    let raw = RawJson::new(br#"{"a":[1,2]}"#).unwrap();
    ends_for_good(raw.members());
    ends_for_good(raw.get("a").unwrap().elements());
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},[]]"#;
    let Ok(Message::Batch(batch)) = Decoder::jsonrpc().decode(batch) else {
        panic!()
    };
    ends_for_good(batch.decode(&Decoder::jsonrpc()));

    let mut table = PendingTable::new();
    table.insert_with_deadline("due", 5).unwrap();
    table.insert_with_deadline("later", 50).unwrap();
    ends_for_good(table.expire(10));
    ends_for_good(table.drain());
}

/// The hash of `value`, by the std hasher with fixed keys.
fn hash_of<T: std::hash::Hash>(value: &T) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(value)
}

/// The message views, their reply, and the decoder's configuration are `Hash` as their parts
/// are (ids, raw JSON, methods): keys of a set of replies already sent, of a cache per
/// decoder. Values equal by `Eq`, read from two buffers, hash alike.
#[test]
fn views_and_configuration_hash_as_they_compare() {
    use rpcwire::{DecodeOptions, Decoder, Dialect, Limits, Message, RawJson};
    use std::collections::HashSet;

    let frames = [
        &br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#[..],
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        br#"{"jsonrpc":"2.0","id":"r","result":{"a":1}}"#,
        br#"{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no","data":[1]}}"#,
    ];
    let decoder = Decoder::mcp_client();
    let copies: Vec<Vec<u8>> = frames.iter().map(|f| f.to_vec()).collect();
    let mut seen = HashSet::new();
    for (frame, copy) in frames.iter().zip(&copies) {
        let (one, other) = (
            decoder.decode(frame).unwrap(),
            decoder.decode(copy).unwrap(),
        );
        assert_eq!(one, other);
        assert_eq!(hash_of(&one), hash_of(&other));
        assert!(seen.insert(one));
        assert!(!seen.insert(other));
        if let (Message::ErrorResponse(a), Message::ErrorResponse(b)) = (one, other) {
            assert_eq!(hash_of(&a.error), hash_of(&b.error));
        }
    }
    let reply = Decoder::mcp()
        .decode(b"{oops")
        .unwrap_err()
        .reply()
        .unwrap();
    assert_eq!(
        hash_of(&reply),
        hash_of(&Decoder::mcp().parse_error_reply())
    );
    let raw = RawJson::new(br#"{"a":1}"#).unwrap();
    assert_eq!(hash_of(&raw.lookup("a")), hash_of(&raw.lookup("a")));

    let mut decoders = HashSet::new();
    assert!(decoders.insert(Decoder::mcp()));
    assert!(!decoders.insert(Decoder::default()));
    assert!(decoders.insert(Decoder::mcp().strict()));
    let options = DecodeOptions::new(Dialect::JsonRpc2);
    assert_eq!(
        hash_of(&options),
        hash_of(&DecodeOptions::new(Dialect::JsonRpc2))
    );
    assert_eq!(hash_of(&Limits::default()), hash_of(&Limits::DEFAULT));

    let event = |data: &'static [u8]| {
        let mut buf = bytes::BytesMut::from(data);
        rpcwire::SseFramer::new(64)
            .decode(&mut buf)
            .unwrap()
            .unwrap()
    };
    assert_eq!(
        hash_of(&event(b"id: 1\ndata: {}\n\n")),
        hash_of(&event(b"id: 1\ndata: {}\n\n"))
    );
    fn keyed<K: std::hash::Hash + Eq>() {}
    keyed::<rpcwire::Origin<u32, String>>();
}

/// The conversions a caller reaches for: an error code to and from its integer, a kept id
/// (`Origin::id`) to the borrowed id and to the reply id the writers take.
#[test]
fn codes_and_kept_ids_convert_both_ways() {
    use bytes::BytesMut;
    use rpcwire::{ErrorCode, Id, IdBuf, InFlightError, ReplyId};

    assert_eq!(ErrorCode::from(-32602), ErrorCode::INVALID_PARAMS);
    assert_eq!(i64::from(ErrorCode::INVALID_PARAMS), -32602);
    let kept = IdBuf::from(Id::from_token(br#""a-1""#).unwrap());
    assert_eq!(Id::from(&kept).raw(), br#""a-1""#);
    assert_eq!(ReplyId::from(&kept), ReplyId::Id(kept.as_id()));
    let (mut by_ref, mut by_view) = (BytesMut::new(), BytesMut::new());
    InFlightError::Full { limit: 0 }.write_reply(&mut by_ref, &kept);
    InFlightError::Full { limit: 0 }.write_reply(&mut by_view, kept.as_id());
    assert_eq!(by_ref, by_view);
    assert!(by_ref.starts_with(br#"{"jsonrpc":"2.0","id":"a-1","error""#));
}

/// A pending table lists its requests as the other tables do (`for … in &table`, and
/// `&mut table` to update the values in place), each with its token: by named iterators that
/// know their length, are fused, and are `Send + Sync + Debug` without needing `T: Debug`.
#[test]
fn a_pending_table_lists_its_requests_by_reference() {
    use rpcwire::PendingTable;
    struct Opaque(u32);
    let mut table = PendingTable::new();
    let tokens: Vec<_> = (0..4).map(|n| table.insert(Opaque(n)).unwrap()).collect();
    table.cancel(tokens[1]).unwrap();
    for (_, value) in &mut table {
        value.0 += 10;
    }
    let mut listed: Vec<_> = (&table).into_iter().map(|(t, v)| (t, v.0)).collect();
    listed.sort_unstable();
    assert_eq!(listed, [(tokens[0], 10), (tokens[2], 12), (tokens[3], 13)]);
    let mut iter = table.iter();
    assert_eq!(iter.len(), 3);
    iter.next();
    assert_eq!(format!("{iter:?}"), "Iter { remaining: 2 }");
    assert_eq!(iter.clone().count(), 2);
    ends_for_good(iter);
    ends_for_good(table.iter_mut());
    shared::<rpcwire::pending::Iter<'static, String>>();
    shared::<rpcwire::pending::IterMut<'static, String>>();
}

/// The outcomes a caller may count or dedup are `Hash` too, agreeing with their `Eq`: a
/// rejection (read from two buffers), a line of `decode_lines`, a full table's error, a
/// collector's status; and the remapper's outcomes and a schema error, by type.
#[test]
fn outcomes_hash_as_they_compare() {
    use rpcwire::batch::{Collector, Status};
    use rpcwire::{Decoder, PendingTable};

    let frame = br#"{"jsonrpc":"2.0","id":3,"method":7}"#;
    let copy = frame.to_vec();
    let (one, other) = (
        Decoder::mcp().decode(frame).unwrap_err(),
        Decoder::mcp().decode(&copy).unwrap_err(),
    );
    assert_eq!(one, other);
    assert_eq!(hash_of(&one), hash_of(&other));
    let line = |input: &[u8]| hash_of(&Decoder::mcp().decode_lines(input).next().unwrap());
    assert_eq!(line(frame), line(&copy));

    let mut table = PendingTable::with_capacity_limit(0);
    let full = table.insert("x").unwrap_err();
    assert_eq!(hash_of(&full), hash_of(&table.insert("x").unwrap_err()));

    let mut collector = Collector::new();
    let status = collector.seal().unwrap();
    assert_eq!(status, Status::Done(None));
    assert_eq!(hash_of(&status), hash_of(&Status::Done(None)));

    fn keyed<K: std::hash::Hash + Eq>() {}
    keyed::<rpcwire::StreamCancel<u32, String>>();
    keyed::<rpcwire::ProgressRoute<'static, u32, String>>();
    keyed::<rpcwire::headers::InvalidSchema<'static>>();
}

/// `OwnedMessage::params_bytes` and `result_bytes` are the borrowed view's params and result,
/// as `Bytes` that share the frame, over every single-frame conformance vector the server
/// and client decoders take; `slice` shares any part of the frame (the id's token, the
/// error's data, the whole frame, an empty slice at its end) and refuses equal bytes from
/// elsewhere or a range that runs past the frame's end.
#[test]
fn owned_payloads_share_the_frame_and_foreign_slices_are_refused() {
    use bytes::Bytes;
    use rpcwire::{Decoder, Message, OwnedMessage};

    let inside = |frame: &Bytes, part: &Bytes| {
        let start = part.as_ptr() as usize - frame.as_ptr() as usize;
        start + part.len() <= frame.len()
    };
    let (mut params_seen, mut results_seen, mut data_seen) = (0, 0, 0);
    for (name, frame) in vector_frames() {
        let frame = &frame[..];
        for decoder in [Decoder::mcp(), Decoder::mcp_client(), Decoder::jsonrpc()] {
            let frame = Bytes::copy_from_slice(frame);
            let Ok(owned) = OwnedMessage::decode(&decoder, frame.clone()) else {
                continue;
            };
            let msg = owned.message();
            let params = owned.params_bytes();
            assert_eq!(
                params.as_deref(),
                msg.params().map(|p| p.as_bytes()),
                "{}",
                name
            );
            let result = owned.result_bytes();
            let want_result = match msg {
                Message::Response(r) => Some(r.result.as_bytes()),
                _ => None,
            };
            assert_eq!(result.as_deref(), want_result, "{}", name);
            for part in params.iter().chain(result.iter()) {
                assert!(inside(owned.frame(), part), "{}", name);
            }
            params_seen += usize::from(params.is_some());
            results_seen += usize::from(result.is_some());
            if let Some(id) = msg.id() {
                let token = owned.slice(id.raw()).unwrap();
                assert_eq!(&token[..], id.raw());
                assert!(inside(owned.frame(), &token));
                let copy = id.raw().to_vec();
                assert_eq!(owned.slice(&copy), None, "a copy is refused");
            }
            if let Message::ErrorResponse(e) = msg
                && let Some(data) = e.error.data
            {
                assert_eq!(&owned.slice(data.as_bytes()).unwrap()[..], data.as_bytes());
                data_seen += 1;
            }
            let whole = owned.frame();
            assert_eq!(owned.slice(whole).as_ref(), Some(whole));
            assert_eq!(
                owned.slice(&whole[whole.len()..]).as_deref(),
                Some(&b""[..])
            );
            // The frame's bytes, copied elsewhere.
            let wider = [b" ".as_slice(), whole].concat();
            assert_eq!(owned.slice(&wider[1..]), None);
        }
    }
    println!("{params_seen} params, {results_seen} results, {data_seen} error data");
    assert!(params_seen > 20 && results_seen > 20 && data_seen > 0);
}

/// `slice` refuses a range of the buffer the frame was cut from that runs past either end of
/// the frame, and an empty slice just before it; an empty slice at its end lies inside it.
#[test]
fn owned_slice_refuses_a_range_past_the_frame_end() {
    use bytes::Bytes;
    use rpcwire::{Decoder, OwnedMessage};

    let buffer = Bytes::from_static(br#" {"jsonrpc":"2.0","method":"a"} trailing"#);
    let frame = buffer.slice(1..31);
    let owned = OwnedMessage::decode(&Decoder::mcp(), frame).unwrap();
    assert_eq!(
        owned.slice(&buffer[21..31]).as_deref(),
        Some(&buffer[21..31])
    );
    assert_eq!(owned.slice(&buffer[21..32]), None);
    assert_eq!(owned.slice(&buffer[31..36]), None);
    assert_eq!(owned.slice(&buffer[0..31]), None);
    assert_eq!(owned.slice(&buffer[0..0]), None);
    assert_eq!(owned.slice(&buffer[31..31]).as_deref(), Some(&b""[..]));
}

/// Each non-empty line of every conformance vector that has bytes (`tests/data/envelope.jsonl`),
/// with the vector's name.
fn vector_frames() -> Vec<(String, Vec<u8>)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/envelope.jsonl"
    ))
    .unwrap();
    let mut frames = Vec::new();
    for case in text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
    {
        let Some(hex) = case["hex"].as_str() else {
            continue;
        };
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let name = case["name"].as_str().unwrap().to_string();
        for frame in bytes.split(|&b| b == b'\n').filter(|f| !f.is_empty()) {
            frames.push((name.clone(), frame.to_vec()));
        }
    }
    frames
}
