//! `RequestMeta::check`: a server's check of the per-request `_meta` of MCP 2026-07-28 (the
//! protocol version and the client capabilities every request carries), the error reply
//! to a request it refuses, and `methods::is_removed`, the methods 2026-07-28 no longer has.

use bytes::BytesMut;
use rpcwire::mcp::{RequestMeta, RequestMetaError, versions};
use rpcwire::{Decoder, ErrorCode, Message};

/// A dual-era server's versions: one of `initialize`, one named per request.
const SUPPORTED: &[&str] = &[versions::V2025_11_25, versions::V2026_07_28];

/// A `tools/list` request (id 1) whose `_meta` holds `meta`'s members.
fn request(meta: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{{meta}}}}}}}"#)
}

/// `check`'s answer for `frame`, and the reply a server writes on an error (empty on success).
fn check(frame: &str) -> (Result<&'static str, String>, String) {
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
        panic!("not a request: {frame}")
    };
    let mut out = BytesMut::new();
    let checked = RequestMeta::from_request(&req).check(SUPPORTED);
    if let Err(e) = &checked {
        e.write_reply(&mut out, req.id, SUPPORTED);
    }
    let checked = checked.map_err(|e| format!("{e:?}"));
    (checked, String::from_utf8(out.to_vec()).unwrap())
}

const V2026: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#;
const CAPS: &str = r#""io.modelcontextprotocol/clientCapabilities":{}"#;

#[test]
fn a_request_naming_a_supported_version_with_capabilities_is_served_by_it() {
    let (checked, reply) = check(&request(&format!("{V2026},{CAPS}")));
    assert_eq!(checked, Ok(versions::V2026_07_28));
    assert_eq!(reply, "");
    // An escape spells the same version.
    let escaped = r#""io.modelcontextprotocol/protocolVersion":"2026\u002d07-28""#;
    let (checked, _) = check(&request(&format!("{escaped},{CAPS}")));
    assert_eq!(checked, Ok(versions::V2026_07_28));
}

#[test]
fn a_request_naming_no_version_is_invalid_params() {
    let invalid = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: _meta must name io.modelcontextprotocol/protocolVersion once, a string"}}
"#;
    let no_params = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_string();
    let no_meta = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#.to_string();
    let twice = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026-07-28""#;
    let cases = [
        no_params,
        no_meta,
        request(CAPS),
        request(&format!(
            r#""io.modelcontextprotocol/protocolVersion":20260728,{CAPS}"#
        )),
        request(&format!(
            r#""io.modelcontextprotocol/protocolVersion":null,{CAPS}"#
        )),
        request(&format!("{twice},{CAPS}")),
    ];
    for frame in cases {
        let (checked, reply) = check(&frame);
        assert_eq!(checked, Err("MissingProtocolVersion".into()), "{frame}");
        assert_eq!(reply, invalid, "{frame}");
    }
}

#[test]
fn a_request_naming_an_unknown_version_is_refused_with_the_supported_list() {
    let frame = request(&format!(
        r#""io.modelcontextprotocol/protocolVersion":"1900-01-01",{CAPS}"#
    ));
    let (checked, reply) = check(&frame);
    assert!(checked.unwrap_err().starts_with("UnsupportedVersion"));
    // MCP 2026-07-28's example, byte for byte but for its id.
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25","2026-07-28"],"requested":"1900-01-01"}}}
"#
    );
    // A later date, a draft, and one that only differs by its whitespace.
    for version in ["2099-01-01", "DRAFT-2026-v1", " 2026-07-28", "2026-07-28 "] {
        let member = format!(r#""io.modelcontextprotocol/protocolVersion":"{version}""#);
        let (checked, reply) = check(&request(&format!("{member},{CAPS}")));
        assert!(checked.is_err(), "{version}");
        assert!(reply.contains(r#""code":-32022"#), "{version}: {reply}");
        assert!(
            reply.contains(&format!(r#""requested":"{version}""#)),
            "{version}: {reply}"
        );
    }
}

#[test]
fn a_version_of_initialize_named_per_request_is_unsupported_per_request() {
    // 2025-11-25 is negotiated at `initialize`; named in `_meta` it is served by no rules.
    let member = r#""io.modelcontextprotocol/protocolVersion":"2025-11-25""#;
    let (checked, reply) = check(&request(&format!("{member},{CAPS}")));
    assert!(checked.unwrap_err().starts_with("UnsupportedVersion"));
    assert!(reply.contains(r#""code":-32022"#), "{reply}");
}

#[test]
fn a_request_without_client_capabilities_is_invalid_params() {
    let invalid = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: _meta must hold io.modelcontextprotocol/clientCapabilities once, an object"}}
"#;
    for caps in [
        "",
        r#","io.modelcontextprotocol/clientCapabilities":null"#,
        r#","io.modelcontextprotocol/clientCapabilities":"all""#,
        r#","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":{}"#,
    ] {
        let (checked, reply) = check(&request(&format!("{V2026}{caps}")));
        assert_eq!(checked, Err("MissingClientCapabilities".into()), "{caps}");
        assert_eq!(reply, invalid, "{caps}");
    }
}

#[test]
fn the_version_is_checked_before_the_capabilities() {
    // Without capabilities, an unsupported version is still -32022: the client retries with
    // a version it learns of, not with capabilities.
    let member = r#""io.modelcontextprotocol/protocolVersion":"2099-01-01""#;
    let (checked, reply) = check(&request(member));
    assert!(checked.unwrap_err().starts_with("UnsupportedVersion"));
    assert!(reply.contains(r#""code":-32022"#), "{reply}");
}

#[test]
fn errors_name_their_codes() {
    assert_eq!(
        RequestMetaError::MissingProtocolVersion.code(),
        ErrorCode::INVALID_PARAMS
    );
    assert_eq!(
        RequestMetaError::MissingClientCapabilities.code(),
        ErrorCode::INVALID_PARAMS
    );
}

/// The method of a request (id 1) named `method` (as JSON string contents).
fn method_of(method: &str, test: impl FnOnce(rpcwire::JsonStr<'_>)) {
    let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}"}}"#);
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
        panic!("not a request: {frame}")
    };
    test(req.method);
}

#[test]
fn the_methods_2026_07_28_removed_are_removed_from_it_on() {
    use rpcwire::mcp::methods::{self, REMOVED_IN_2026_07_28, is_removed};
    for method in REMOVED_IN_2026_07_28 {
        method_of(method, |m| {
            for version in ["2026-07-28", "2099-01-01", "DRAFT-2026-v1"] {
                assert!(is_removed(m, version), "{method} under {version}");
            }
            for version in versions::KNOWN.iter().filter(|v| **v < "2026-07-28") {
                assert!(!is_removed(m, version), "{method} under {version}");
            }
        });
    }
    // An escape spells the same method.
    method_of(r"p\u0069ng", |m| assert!(is_removed(m, "2026-07-28")));
    // Those 2026-07-28 keeps, has as input requests, or has in its Tasks extension.
    for method in [
        methods::TOOLS_LIST,
        methods::TOOLS_CALL,
        methods::SERVER_DISCOVER,
        methods::SUBSCRIPTIONS_LISTEN,
        methods::SAMPLING_CREATE_MESSAGE,
        methods::ELICITATION_CREATE,
        methods::ROOTS_LIST,
        methods::TASKS_GET,
        methods::TASKS_CANCEL,
        methods::CANCELLED,
        methods::PROGRESS,
    ] {
        method_of(method, |m| {
            assert!(!is_removed(m, "2026-07-28"), "{method}")
        });
    }
}

/// `check` against `supported`: its answer, and the reply on an error (empty on success).
fn check_against(
    frame: &str,
    supported: &[&'static str],
) -> (Result<&'static str, String>, String) {
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
        panic!("not a request: {frame}")
    };
    let mut out = BytesMut::new();
    let checked = RequestMeta::from_request(&req).check(supported);
    if let Err(e) = &checked {
        e.write_reply(&mut out, req.id, supported);
    }
    let checked = checked.map_err(|e| format!("{e:?}"));
    (checked, String::from_utf8(out.to_vec()).unwrap())
}

#[test]
fn a_meta_given_twice_names_no_version() {
    // Peers may read either `_meta`: neither is served, even when both agree.
    let meta = format!(r#"{{{V2026},{CAPS}}}"#);
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{meta},"_meta":{meta}}}}}"#
    );
    let (checked, reply) = check(&frame);
    assert_eq!(checked, Err("MissingProtocolVersion".into()));
    assert!(reply.contains(r#""code":-32602"#), "{reply}");
}

#[test]
fn a_version_given_twice_with_different_spellings_names_none() {
    let twice = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026\u002d07-28""#;
    let (checked, _) = check(&request(&format!("{twice},{CAPS}")));
    assert_eq!(checked, Err("MissingProtocolVersion".into()));
    // A key spelled with an escape is the same key, so the version is given twice too.
    let escaped_key = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol\/protocolVersion":"2026-07-28""#;
    let (checked, _) = check(&request(&format!("{escaped_key},{CAPS}")));
    assert_eq!(checked, Err("MissingProtocolVersion".into()));
}

#[test]
fn a_version_spelled_with_escapes_is_refused_with_its_decoded_spelling() {
    // Unsupported, it is named to the client decoded, as a JSON string of its own.
    let member = r#""io.modelcontextprotocol/protocolVersion":"2099\u002d01-01\"\n""#;
    let (checked, reply) = check(&request(&format!("{member},{CAPS}")));
    assert!(checked.unwrap_err().starts_with("UnsupportedVersion"));
    assert!(reply.contains(r#""requested":"2099-01-01\"\n""#), "{reply}");
    // A lone surrogate cannot be decoded to UTF-8: still refused, never a panic.
    let member = r#""io.modelcontextprotocol/protocolVersion":"\ud800""#;
    let (checked, reply) = check(&request(&format!("{member},{CAPS}")));
    assert!(checked.unwrap_err().starts_with("UnsupportedVersion"));
    assert!(reply.contains(r#""code":-32022"#), "{reply}");
}

#[test]
fn versions_of_other_types_name_none() {
    for version in ["true", "[\"2026-07-28\"]", "{\"v\":\"2026-07-28\"}", "2026"] {
        let member = format!(r#""io.modelcontextprotocol/protocolVersion":{version}"#);
        let (checked, _) = check(&request(&format!("{member},{CAPS}")));
        assert_eq!(checked, Err("MissingProtocolVersion".into()), "{version}");
    }
}

#[test]
fn client_capabilities_of_other_types_are_missing() {
    for caps in ["[]", "[{}]", r#""{}""#, "0", "false"] {
        let member = format!(r#""io.modelcontextprotocol/clientCapabilities":{caps}"#);
        let (checked, reply) = check(&request(&format!("{V2026},{member}")));
        assert_eq!(checked, Err("MissingClientCapabilities".into()), "{caps}");
        assert!(reply.contains(r#""code":-32602"#), "{caps}: {reply}");
    }
}

#[test]
fn a_meta_or_params_of_another_type_names_no_version() {
    let frames = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":null}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":"io.modelcontextprotocol/protocolVersion"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":["io.modelcontextprotocol/protocolVersion","2026-07-28"]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"inner":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}}"#,
    ];
    for frame in frames {
        let (checked, reply) = check(frame);
        assert_eq!(checked, Err("MissingProtocolVersion".into()), "{frame}");
        assert!(reply.contains(r#""code":-32602"#), "{frame}: {reply}");
    }
    // MCP's params are an object: an array never reaches the check.
    let frame = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}]}"#;
    assert!(Decoder::mcp().decode(frame.as_bytes()).is_err());
}

#[test]
fn a_huge_or_deep_meta_is_read_without_a_panic() {
    // Many members before the fields, and deep capabilities as far as the decoder allows.
    let mut members = String::new();
    for i in 0..20_000 {
        members.push_str(&format!(r#""k{i}":[{i},"{i}",{{}}],"#));
    }
    let (checked, _) = check(&request(&format!("{members}{V2026},{CAPS}")));
    assert_eq!(checked, Ok(versions::V2026_07_28));
    // Under a decoder with no depth limit, a _meta nested a million levels deep, before the
    // fields and in the capabilities, is skipped and handed out.
    let mut options = rpcwire::DecodeOptions::new(rpcwire::Dialect::Mcp);
    options.limits.max_depth = u32::MAX;
    let decoder = Decoder::new(options);
    let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
    let caps = format!(r#""io.modelcontextprotocol/clientCapabilities":{{"x":{deep}}}"#);
    let frame = request(&format!(r#""deep":{deep},{V2026},{caps}"#));
    let Ok(Message::Request(req)) = decoder.decode(frame.as_bytes()) else {
        panic!("not a request")
    };
    let meta = RequestMeta::from_request(&req);
    assert_eq!(meta.check(SUPPORTED), Ok(versions::V2026_07_28));
    assert_eq!(
        meta.client_capabilities.unwrap().as_bytes().len(),
        2_000_006
    );
}

#[test]
fn a_server_of_a_later_date_serves_it_by_name() {
    // A version the crate does not know, but the server lists, is served: only `supported`
    // decides, and it is 2026-07-28 or later.
    let member = r#""io.modelcontextprotocol/protocolVersion":"2099-01-01""#;
    let frame = request(&format!("{member},{CAPS}"));
    let (checked, reply) = check_against(&frame, &["2026-07-28", "2099-01-01"]);
    assert_eq!(checked, Ok("2099-01-01"));
    assert_eq!(reply, "");
}

#[test]
fn a_server_of_no_versions_refuses_every_request_with_an_empty_list() {
    let (checked, reply) = check_against(&request(&format!("{V2026},{CAPS}")), &[]);
    assert!(checked.unwrap_err().starts_with("UnsupportedVersion"));
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":[],"requested":"2026-07-28"}}}
"#
    );
}

#[test]
fn a_legacy_version_is_never_served_per_request() {
    // Whether the server lists it alone or beside a modern one.
    let member = r#""io.modelcontextprotocol/protocolVersion":"2025-06-18""#;
    let frame = request(&format!("{member},{CAPS}"));
    for supported in [&["2025-06-18"][..], &["2025-06-18", "2026-07-28"]] {
        let (checked, reply) = check_against(&frame, supported);
        assert!(
            checked.unwrap_err().starts_with("UnsupportedVersion"),
            "{supported:?}"
        );
        assert!(reply.contains(r#""requested":"2025-06-18""#), "{reply}");
    }
}

#[test]
fn unsupported_versions_name_their_code() {
    let frame = request(r#""io.modelcontextprotocol/protocolVersion":"2099-01-01""#);
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
        panic!()
    };
    let err = RequestMeta::from_request(&req)
        .check(SUPPORTED)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION);
    assert_eq!(
        err.to_string(),
        r#"unsupported protocol version "2099-01-01""#
    );
}

#[test]
fn is_removed_reads_escaped_methods_and_orders_versions_as_dates() {
    use rpcwire::mcp::methods::is_removed;
    // Escapes spell the same method, in a notification as in a request.
    let frame = br#"{"jsonrpc":"2.0","method":"notifications\/initialized"}"#;
    let Ok(Message::Notification(n)) = Decoder::mcp().decode(frame) else {
        panic!()
    };
    assert!(is_removed(n.method, "2026-07-28"));
    assert!(!is_removed(n.method, "2025-11-25"));
    method_of(r"logging\/setLevel", |m| {
        // Unknown dates order as dates: on and after 2026-07-28 removed, before kept.
        assert!(is_removed(m, "2026-07-29") && is_removed(m, "2027-01-01"));
        assert!(!is_removed(m, "2026-07-27") && !is_removed(m, "2026-01-01"));
        // Neither a version that is no date, nor an empty one, has the removal.
        assert!(!is_removed(m, "") && !is_removed(m, "1.0"));
    });
    // A prefix or an extension of a removed method is not removed.
    for method in ["pin", "pingx", "ping/", "tasks/lis", "initialize "] {
        method_of(method, |m| {
            assert!(!is_removed(m, "2026-07-28"), "{method}")
        });
    }
}
