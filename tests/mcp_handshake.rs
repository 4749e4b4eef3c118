//! The `initialize` handshake read (`mcp::Initialize`, `mcp::InitializeResult`) and written
//! (`mcp::write_initialize`, `mcp::write_initialize_result`) on the recorded
//! TypeScript SDK session and on hand-made params and results: every member missing, given
//! twice and of another type; and a request's and a notification's progress token read from
//! the message kind a handler holds.

use bytes::BytesMut;
use rpcwire::mcp::{self, HandshakeError, HandshakeMember, Initialize, InitializeResult};
use rpcwire::scan::Validation;
use rpcwire::{DecodeOptions, Decoder, ErrorCode, Id, JsonStr, Message, RawJson, Request};

const CLIENT_STREAM: &[u8] = include_bytes!("data/capture-c2s.ndjson");
const SERVER_STREAM: &[u8] = include_bytes!("data/capture-s2c.ndjson");

/// An `initialize` request with `params` as given (read lazily: delimited only).
fn initialize(params: &[u8]) -> Request<'_> {
    Request {
        id: Id::from_token(b"0").unwrap(),
        method: JsonStr::from_raw(b"initialize", false),
        params: Some(RawJson::new(params).expect("delimited params")),
    }
}

fn read_params(params: &[u8]) -> Result<Initialize<'_>, HandshakeError> {
    Initialize::from_request(&initialize(params))
}

fn read_result(result: &[u8]) -> Result<InitializeResult<'_>, HandshakeError> {
    InitializeResult::from_result(RawJson::new(result).expect("delimited result"))
}

/// The members of valid params, each as `"name":value`, in the order a client writes them.
const PARAMS: [(&str, &str); 3] = [
    ("protocolVersion", r#""2025-06-18""#),
    ("capabilities", r#"{"roots":{}}"#),
    ("clientInfo", r#"{"name":"host","version":"1"}"#),
];

/// The members of a valid result.
const RESULT: [(&str, &str); 4] = [
    ("protocolVersion", r#""2025-06-18""#),
    ("capabilities", r#"{"tools":{}}"#),
    ("serverInfo", r#"{"name":"srv","version":"2"}"#),
    ("instructions", r#""Be brief.""#),
];

fn object(members: &[(&str, &str)]) -> String {
    let members: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("\"{k}\":{v}"))
        .collect();
    format!("{{{}}}", members.join(","))
}

fn member(name: &str) -> HandshakeMember {
    match name {
        "protocolVersion" => HandshakeMember::ProtocolVersion,
        "capabilities" => HandshakeMember::Capabilities,
        "clientInfo" => HandshakeMember::ClientInfo,
        "serverInfo" => HandshakeMember::ServerInfo,
        "instructions" => HandshakeMember::Instructions,
        other => panic!("no member {other}"),
    }
}

#[test]
fn the_typescript_sdks_handshake_reads() {
    let client = Decoder::mcp();
    let first = CLIENT_STREAM.split(|&b| b == b'\n').next().unwrap();
    let Ok(Message::Request(req)) = client.decode(first) else {
        panic!("the capture opens with a request")
    };
    let init = Initialize::from_request(&req).unwrap();
    assert_eq!(init.protocol_version.decode(), "2025-11-25");
    assert_eq!(
        init.capabilities.as_bytes(),
        br#"{"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true}}"#
    );
    let name = init.client_info.get("name").and_then(|n| n.as_str());
    assert_eq!(name.unwrap().decode(), "peers-ts-client");

    let server = Decoder::mcp_client();
    let first = SERVER_STREAM.split(|&b| b == b'\n').next().unwrap();
    let Ok(Message::Response(resp)) = server.decode(first) else {
        panic!("the capture's server stream opens with the result")
    };
    let result = InitializeResult::from_result(resp.result).unwrap();
    assert_eq!(result.protocol_version.decode(), "2025-11-25");
    assert!(result.capabilities.get("resources").is_some());
    let name = result.server_info.get("name").and_then(|n| n.as_str());
    assert_eq!(name.unwrap().decode(), "memory-server");
    assert_eq!(result.instructions, None);
}

#[test]
fn valid_params_and_results_read_in_any_member_order_with_other_members_ignored() {
    let mut members = PARAMS.to_vec();
    members.insert(1, ("_meta", r#"{"progressToken":1}"#));
    members.push(("protocolVersionX", "7"));
    for _ in 0..members.len() {
        members.rotate_left(1);
        let params = object(&members);
        let init = read_params(params.as_bytes()).unwrap();
        assert_eq!(init.protocol_version.decode(), "2025-06-18", "{params}");
        assert_eq!(init.capabilities.as_bytes(), br#"{"roots":{}}"#);
        assert_eq!(
            init.client_info.as_bytes(),
            br#"{"name":"host","version":"1"}"#
        );
    }
    let mut members = RESULT.to_vec();
    members.push(("_meta", "{}"));
    for _ in 0..members.len() {
        members.rotate_left(1);
        let result = object(&members);
        let read = read_result(result.as_bytes()).unwrap();
        assert_eq!(read.protocol_version.decode(), "2025-06-18", "{result}");
        assert_eq!(read.capabilities.as_bytes(), br#"{"tools":{}}"#);
        assert_eq!(
            read.server_info.as_bytes(),
            br#"{"name":"srv","version":"2"}"#
        );
        assert_eq!(read.instructions.unwrap().decode(), "Be brief.");
    }
}

#[test]
fn a_version_spelled_with_escapes_decodes() {
    let params = object(&[
        ("protocolVersion", r#""2025\u002d06-18""#),
        PARAMS[1],
        PARAMS[2],
    ]);
    let init = read_params(params.as_bytes()).unwrap();
    assert_eq!(init.protocol_version.decode(), "2025-06-18");
    assert_eq!(
        mcp::versions::negotiate(&init.protocol_version.decode(), &["2025-06-18"]),
        Some("2025-06-18")
    );
}

/// A member's name is compared unescaped, as peers read it: `protocol\u0056ersion` is
/// `protocolVersion`, found alone and a duplicate beside the plain spelling (a peer reading
/// either would otherwise see another version than the one checked).
#[test]
fn a_member_named_with_escapes_is_that_member() {
    let escaped = (r"protocol\u0056ersion", r#""2025-06-18""#);
    let params = object(&[escaped, PARAMS[1], PARAMS[2]]);
    let init = read_params(params.as_bytes()).unwrap();
    assert_eq!(init.protocol_version.decode(), "2025-06-18");
    let params = object(&[PARAMS[0], PARAMS[1], PARAMS[2], escaped]);
    assert_eq!(
        read_params(params.as_bytes()),
        Err(HandshakeError::Duplicated(HandshakeMember::ProtocolVersion)),
        "{params}"
    );
    let result = object(&[RESULT[0], RESULT[1], RESULT[2], (r"server\u0049nfo", "{}")]);
    assert_eq!(
        read_result(result.as_bytes()),
        Err(HandshakeError::Duplicated(HandshakeMember::ServerInfo)),
        "{result}"
    );
}

#[test]
fn each_required_member_missing_is_named() {
    for (i, (name, _)) in PARAMS.iter().enumerate() {
        let mut members = PARAMS.to_vec();
        members.remove(i);
        let params = object(&members);
        let expected = HandshakeError::Missing(member(name));
        assert_eq!(read_params(params.as_bytes()), Err(expected), "{params}");
        assert_eq!(expected.member(), Some(member(name)));
    }
    // instructions is optional; the rest are required.
    for (i, (name, _)) in RESULT.iter().enumerate() {
        let mut members = RESULT.to_vec();
        members.remove(i);
        let result = object(&members);
        let read = read_result(result.as_bytes());
        if *name == "instructions" {
            assert_eq!(read.unwrap().instructions, None);
        } else {
            assert_eq!(read, Err(HandshakeError::Missing(member(name))), "{result}");
        }
    }
}

#[test]
fn each_member_given_twice_is_refused_even_with_the_same_value() {
    for (name, value) in PARAMS {
        for again in [value, r#""2024-11-05""#] {
            let mut members = PARAMS.to_vec();
            members.push((name, again));
            let params = object(&members);
            let expected = Err(HandshakeError::Duplicated(member(name)));
            assert_eq!(read_params(params.as_bytes()), expected, "{params}");
        }
    }
    for (name, value) in RESULT {
        let mut members = RESULT.to_vec();
        members.insert(0, (name, value));
        let result = object(&members);
        let expected = Err(HandshakeError::Duplicated(member(name)));
        assert_eq!(read_result(result.as_bytes()), expected, "{result}");
    }
}

#[test]
fn each_member_of_another_type_is_refused() {
    let others = [
        "null",
        "7",
        "true",
        "[]",
        r#"["2025-06-18"]"#,
        "{}",
        r#""x""#,
    ];
    for (i, (name, _)) in PARAMS.iter().enumerate() {
        let is_string = *name == "protocolVersion";
        for other in others {
            if is_string == other.starts_with('"') || (!is_string && other == "{}") {
                continue;
            }
            let mut members = PARAMS.to_vec();
            members[i].1 = other;
            let params = object(&members);
            let expected = Err(HandshakeError::WrongType(member(name)));
            assert_eq!(read_params(params.as_bytes()), expected, "{params}");
        }
    }
    for (i, (name, _)) in RESULT.iter().enumerate() {
        let is_string = matches!(*name, "protocolVersion" | "instructions");
        for other in others {
            if is_string == other.starts_with('"') || (!is_string && other == "{}") {
                continue;
            }
            let mut members = RESULT.to_vec();
            members[i].1 = other;
            let result = object(&members);
            let expected = Err(HandshakeError::WrongType(member(name)));
            assert_eq!(read_result(result.as_bytes()), expected, "{result}");
        }
    }
}

#[test]
fn params_or_results_that_are_not_one_readable_object_are_refused() {
    for not_object in [&b"[]"[..], b"[1]", b"\"x\"", b"null", b"3"] {
        assert_eq!(read_params(not_object), Err(HandshakeError::NotAnObject));
        assert_eq!(read_result(not_object), Err(HandshakeError::NotAnObject));
    }
    let mut no_params = initialize(b"{}");
    no_params.params = None;
    assert_eq!(
        Initialize::from_request(&no_params),
        Err(HandshakeError::NotAnObject)
    );
    // Delimited, not JSON: whether a member is there twice cannot be known.
    let broken = br#"{"protocolVersion":"2025-06-18","capabilities" {},"clientInfo":{}}"#;
    assert_eq!(read_params(broken), Err(HandshakeError::Malformed));
    let broken = br#"{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{},"x" 1}"#;
    assert_eq!(read_result(broken), Err(HandshakeError::Malformed));
    // The frame a lazy decoder lets through reads so too.
    let frame = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion" "2025-06-18"}}"#;
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame) else {
        panic!("a lazy decoder delimits params only")
    };
    assert_eq!(
        Initialize::from_request(&req),
        Err(HandshakeError::Malformed)
    );
}

#[test]
fn another_method_is_not_read_as_initialize() {
    let params = object(&PARAMS);
    for method in [
        &b"initialized"[..],
        b"Initialize",
        b"notifications/initialized",
        b"ping",
    ] {
        let mut req = initialize(params.as_bytes());
        req.method = JsonStr::from_raw(method, false);
        assert_eq!(
            Initialize::from_request(&req),
            Err(HandshakeError::NotInitialize)
        );
    }
    // The method's escapes are decoded.
    let mut req = initialize(params.as_bytes());
    req.method = JsonStr::from_raw(br"init\u0069alize", true);
    assert!(Initialize::from_request(&req).is_ok());
}

#[test]
fn a_refusal_is_answered_with_invalid_params_naming_the_member() {
    let cases = [
        (
            HandshakeError::Missing(HandshakeMember::ClientInfo),
            "clientInfo is required",
        ),
        (
            HandshakeError::Duplicated(HandshakeMember::Capabilities),
            "capabilities is given twice",
        ),
        (
            HandshakeError::WrongType(HandshakeMember::ProtocolVersion),
            "protocolVersion must be a string",
        ),
        (
            HandshakeError::WrongType(HandshakeMember::ServerInfo),
            "serverInfo must be an object",
        ),
        (
            HandshakeError::WrongType(HandshakeMember::Instructions),
            "instructions must be a string",
        ),
        (
            HandshakeError::NotAnObject,
            "the params or the result is missing or not an object",
        ),
        (
            HandshakeError::Malformed,
            "the object cannot be read member by member",
        ),
        (
            HandshakeError::NotInitialize,
            "the request is not initialize",
        ),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
        let mut out = BytesMut::new();
        error.write_reply(&mut out, Id::from_token(br#""init-1""#).unwrap());
        let Ok(Message::ErrorResponse(reply)) =
            Decoder::mcp_client().decode(out.strip_suffix(b"\n").unwrap())
        else {
            panic!("{out:?}")
        };
        assert_eq!(reply.id.unwrap().raw(), br#""init-1""#);
        assert_eq!(reply.error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            reply.error.message.decode(),
            format!("Invalid params: {text}")
        );
        assert_eq!(reply.error.data, None);
    }
}

#[test]
fn a_requests_progress_token_reads_from_the_request() {
    let cases: [(&[u8], Option<&[u8]>); 8] = [
        (br#"{"_meta":{"progressToken":"p"}}"#, Some(br#""p""#)),
        (
            br#"{"name":"x","_meta":{"a":1,"progressToken":-3}}"#,
            Some(b"-3"),
        ),
        (br#"{"_meta":{"progressToken":null}}"#, None),
        (br#"{"_meta":{"progressToken":1.5}}"#, None),
        (br#"{"_meta":{"progressToken":[1]}}"#, None),
        (br#"{"_meta":{"progressToken":1,"progressToken":1}}"#, None),
        (br#"{"_meta":{"progressToken":1},"_meta":{}}"#, None),
        (br#"{"progressToken":"p"}"#, None),
    ];
    for (params, expected) in cases {
        let req = Request {
            id: Id::from_token(b"1").unwrap(),
            method: JsonStr::from_raw(b"tools/call", false),
            params: Some(RawJson::new(params).unwrap()),
        };
        let token = mcp::requested_progress_token(&req);
        assert_eq!(
            token.map(|t| t.raw()),
            expected,
            "{}",
            String::from_utf8_lossy(params)
        );
        assert_eq!(mcp::progress_token(&Message::Request(req)), token);
    }
    let req = Request {
        id: Id::from_token(b"1").unwrap(),
        method: JsonStr::from_raw(b"ping", false),
        params: None,
    };
    assert_eq!(mcp::requested_progress_token(&req), None);
}

#[test]
fn a_notifications_progress_token_reads_from_progress_notifications_only() {
    let decoder = Decoder::mcp_client();
    let frames: [(&[u8], Option<&[u8]>); 4] = [
        (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1}}"#, Some(b"5")),
        (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progressToken":6,"progress":1}}"#, None),
        (br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"progressToken":5}}"#, None),
        (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":true,"progress":1}}"#, None),
    ];
    for (frame, expected) in frames {
        let Ok(Message::Notification(n)) = decoder.decode(frame) else {
            panic!("{}", String::from_utf8_lossy(frame))
        };
        let token = mcp::reported_progress_token(&n);
        assert_eq!(
            token.map(|t| t.raw()),
            expected,
            "{}",
            String::from_utf8_lossy(frame)
        );
        assert_eq!(mcp::progress_token(&Message::Notification(n)), token);
    }
}

/// `versions::choose`: the latest version both a 2026-07-28 client and the server's
/// `server/discover` list speak, whatever order either lists them in, escapes decoded; a
/// list that is not an array of strings offers nothing it does not spell as a string.
#[test]
fn a_discovered_version_is_the_latest_both_speak() {
    use mcp::versions::choose;
    let supported = ["2026-07-28", "2025-06-18", "2025-11-25"];
    let cases: [(&[u8], Option<&str>); 8] = [
        (
            br#"["2025-06-18","2025-11-25","2026-07-28"]"#,
            Some("2026-07-28"),
        ),
        (br#"["2026-07-28","2025-06-18"]"#, Some("2026-07-28")),
        (br#"["2025-06-18","2099-01-01"]"#, Some("2025-06-18")),
        (br#"["2026\u002d07-28"]"#, Some("2026-07-28")),
        (
            br#"[20260728,null,{"v":"2026-07-28"},"2025-11-25"]"#,
            Some("2025-11-25"),
        ),
        (br#"["2024-11-05"]"#, None),
        (b"[]", None),
        (br#""2026-07-28""#, None),
    ];
    for (offered, expected) in cases {
        let offered_json = RawJson::new(offered).unwrap();
        assert_eq!(
            choose(offered_json, &supported),
            expected,
            "{}",
            String::from_utf8_lossy(offered)
        );
    }
    assert_eq!(
        choose(RawJson::new(br#"["2026-07-28"]"#).unwrap(), &[]),
        None
    );
}

/// The writers reproduce the TypeScript SDK's handshake from what the readers read of it: the
/// same JSON value (member order aside), which the readers read back the same.
#[test]
fn the_writers_reproduce_the_typescript_sdks_handshake() {
    let value = |line: &[u8]| serde_json::from_slice::<serde_json::Value>(line).unwrap();

    let first = CLIENT_STREAM.split(|&b| b == b'\n').next().unwrap();
    let Ok(Message::Request(req)) = Decoder::mcp().decode(first) else {
        panic!("the capture opens with a request")
    };
    let init = Initialize::from_request(&req).unwrap();
    let mut out = BytesMut::new();
    let version = init.protocol_version.decode();
    mcp::write_initialize(
        &mut out,
        req.id,
        &version,
        init.capabilities,
        init.client_info,
    )
    .unwrap();
    assert_eq!(value(&out), value(first));
    let Ok(Message::Request(again)) = Decoder::mcp().decode(out.strip_suffix(b"\n").unwrap())
    else {
        panic!("a request")
    };
    assert_eq!(Initialize::from_request(&again), Ok(init));

    let first = SERVER_STREAM.split(|&b| b == b'\n').next().unwrap();
    let Ok(Message::Response(resp)) = Decoder::mcp_client().decode(first) else {
        panic!("the capture's server stream opens with the result")
    };
    let result = InitializeResult::from_result(resp.result).unwrap();
    let mut out = BytesMut::new();
    let version = result.protocol_version.decode();
    let instructions = result.instructions.map(|i| i.decode());
    mcp::write_initialize_result(
        &mut out,
        resp.id,
        &version,
        result.capabilities,
        result.server_info,
        instructions.as_deref(),
    )
    .unwrap();
    assert_eq!(value(&out), value(first));
    let line = out.strip_suffix(b"\n").unwrap();
    let Ok(Message::Response(again)) = Decoder::mcp_client().decode(line) else {
        panic!("a response")
    };
    assert_eq!(InitializeResult::from_result(again.result), Ok(result));
}

/// Capabilities or an identity that is not an object is refused, naming the member, with
/// nothing written.
#[test]
fn the_writers_refuse_members_that_are_not_objects() {
    let object = RawJson::new(br#"{"name":"x","version":"1"}"#).unwrap();
    let id = Id::from_token(b"1").unwrap();
    for bad in [&b"[]"[..], b"\"x\"", b"null", b"1"] {
        let bad = RawJson::new(bad).unwrap();
        let mut out = BytesMut::from(&b"kept"[..]);
        let got = [
            mcp::write_initialize(&mut out, id, "v", bad, object),
            mcp::write_initialize(&mut out, id, "v", object, bad),
            mcp::write_initialize_result(&mut out, id, "v", bad, object, None),
            mcp::write_initialize_result(&mut out, id, "v", object, bad, Some("i")),
        ];
        assert_eq!(
            got,
            [
                Err(HandshakeError::WrongType(HandshakeMember::Capabilities)),
                Err(HandshakeError::WrongType(HandshakeMember::ClientInfo)),
                Err(HandshakeError::WrongType(HandshakeMember::Capabilities)),
                Err(HandshakeError::WrongType(HandshakeMember::ServerInfo)),
            ]
        );
        assert_eq!(&out[..], b"kept");
    }
}

proptest::proptest! {
    /// Any version and instructions text (quotes, backslashes, control characters, line
    /// breaks, any Unicode) and any objects are written on one line that both dialects'
    /// decoders read as the message, and the readers give back each member as given.
    #[test]
    fn written_handshakes_read_back_member_for_member(
        version in "\\PC*|[\"\\\\\n\r\t\u{0}-\u{1f}\u{7f}é😀]{0,12}",
        instructions in proptest::option::of("\\PC*|[\"\\\\\n\r\u{0}-\u{1f}]{0,12}"),
        capabilities in proptest::sample::select(vec![
            "{}", r#"{"roots":{"listChanged":true}}"#, "{ \n\"a\" :\r\n[1,\n2] }", r#"{"\u00e9":"\ud83d\ude00"}"#,
        ]),
        info in proptest::sample::select(vec![
            r#"{"name":"n","version":"1"}"#, "{}", "{\"title\":\"a\\nb\",\n\"name\":\"x\"}",
        ]),
    ) {
        let id = Id::from_token(b"\"h\"").unwrap();
        let capabilities = RawJson::new(capabilities.as_bytes()).unwrap();
        let info = RawJson::new(info.as_bytes()).unwrap();
        let one_line = |raw: RawJson<'_>| String::from_utf8(raw.as_bytes().to_vec()).unwrap().replace(['\n', '\r'], " ");
        let (capabilities_line, info_line) = (one_line(capabilities), one_line(info));

        let mut out = BytesMut::new();
        mcp::write_initialize(&mut out, id, &version, capabilities, info).unwrap();
        let line = out.strip_suffix(b"\n").unwrap();
        proptest::prop_assert!(!line.contains(&b'\n'));
        for decoder in [Decoder::mcp(), Decoder::jsonrpc()] {
            let Ok(Message::Request(req)) = decoder.decode(line) else { panic!("a request") };
            let read = Initialize::from_request(&req).unwrap();
            proptest::prop_assert_eq!(read.protocol_version.decode(), version.as_str());
            proptest::prop_assert_eq!(read.capabilities.as_bytes(), capabilities_line.as_bytes());
            proptest::prop_assert_eq!(read.client_info.as_bytes(), info_line.as_bytes());
        }

        let mut out = BytesMut::new();
        mcp::write_initialize_result(&mut out, id, &version, capabilities, info, instructions.as_deref()).unwrap();
        let line = out.strip_suffix(b"\n").unwrap();
        proptest::prop_assert!(!line.contains(&b'\n'));
        for decoder in [Decoder::mcp_client(), Decoder::jsonrpc_client()] {
            let Ok(Message::Response(resp)) = decoder.decode(line) else { panic!("a response") };
            let read = InitializeResult::from_result(resp.result).unwrap();
            proptest::prop_assert_eq!(read.protocol_version.decode(), version.as_str());
            proptest::prop_assert_eq!(read.capabilities.as_bytes(), capabilities_line.as_bytes());
            proptest::prop_assert_eq!(read.server_info.as_bytes(), info_line.as_bytes());
            proptest::prop_assert_eq!(read.instructions.map(|i| i.decode().into_owned()), instructions.clone());
        }
    }
}

/// An `initialize` whose id MCP's requests cannot have (null, or a number that is not an
/// integer) is refused with nothing written, as `write_retry` refuses one: a server's decoder
/// would refuse the line without its id, and the client would wait for an answer that never
/// comes.
#[test]
fn write_initialize_refuses_an_id_an_mcp_request_cannot_have() {
    let object = RawJson::new(br#"{"name":"x","version":"1"}"#).unwrap();
    for token in [&b"null"[..], b"1.5", b"1.0", b"1e3"] {
        let id = Id::from_token(token).unwrap();
        let mut out = BytesMut::from(&b"kept"[..]);
        let got = mcp::write_initialize(&mut out, id, "2025-11-25", object, object);
        assert_eq!(got, Err(HandshakeError::BadId), "{token:?}");
        assert_eq!(&out[..], b"kept");
        assert!(!HandshakeError::BadId.to_string().is_empty());
        // What would have been written: a line MCP's server decoder refuses, its id unread.
        let mut line = BytesMut::new();
        rpcwire::encode::write_request(&mut line, id, "initialize", Some(object));
        let refused = Decoder::mcp().decode(&line[..line.len() - 1]).unwrap_err();
        assert_eq!(refused.id(), None);
    }
    for token in [&b"0"[..], b"-7", br#""a""#] {
        let mut out = BytesMut::new();
        let id = Id::from_token(token).unwrap();
        mcp::write_initialize(&mut out, id, "2025-11-25", object, object).unwrap();
        let Ok(Message::Request(req)) = Decoder::mcp().decode(&out[..out.len() - 1]) else {
            panic!("a request")
        };
        assert_eq!(req.id.raw(), token);
    }
}

/// What the writers leave to the caller, as their docs say: capabilities that `RawJson::new`
/// only delimited are written as they are (a strict decoder refuses the line, a lazy one
/// reads it), and capabilities of the 127 levels `RawJson::new` takes are one level too deep
/// for the default decoder, 126 are read.
#[test]
fn the_writers_splice_capabilities_as_they_are() {
    let info = RawJson::new(br#"{"name":"x","version":"1"}"#).unwrap();
    let id = Id::from_token(b"1").unwrap();
    let strict = |options: &DecodeOptions| {
        Decoder::new(DecodeOptions {
            validation: Validation::Strict,
            ..*options
        })
    };
    let lazy_only = RawJson::new(br#"{"a" 1}"#).unwrap();
    let mut out = BytesMut::new();
    mcp::write_initialize(&mut out, id, "v", lazy_only, info).unwrap();
    let line = &out[..out.len() - 1];
    assert!(strict(Decoder::mcp().options()).decode(line).is_err());
    let Ok(Message::Request(req)) = Decoder::mcp().decode(line) else {
        panic!("a request")
    };
    assert_eq!(
        Initialize::from_request(&req).unwrap().capabilities,
        lazy_only
    );
    let mut out = BytesMut::new();
    mcp::write_initialize_result(&mut out, id, "v", lazy_only, info, None).unwrap();
    let line = &out[..out.len() - 1];
    assert!(
        strict(Decoder::mcp_client().options())
            .decode(line)
            .is_err()
    );
    assert!(Decoder::mcp_client().decode(line).is_ok());

    for (depth, read) in [(126, true), (127, false)] {
        let nested = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
        let capabilities = RawJson::new(nested.as_bytes()).unwrap();
        let mut out = BytesMut::new();
        mcp::write_initialize(&mut out, id, "v", capabilities, info).unwrap();
        let request = Decoder::mcp().decode(&out[..out.len() - 1]);
        assert_eq!(request.is_ok(), read, "{depth}");
        let mut out = BytesMut::new();
        mcp::write_initialize_result(&mut out, id, "v", capabilities, info, None).unwrap();
        let response = Decoder::mcp_client().decode(&out[..out.len() - 1]);
        assert_eq!(response.is_ok(), read, "{depth}");
    }
}
