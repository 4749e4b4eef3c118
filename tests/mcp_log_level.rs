//! The log level a request of MCP 2026-07-28 names (`io.modelcontextprotocol/logLevel`), and
//! whether a `notifications/message` of a given level may be sent for it; and the level of a
//! `notifications/message` a server sends.

use rpcwire::mcp::{LogLevel, UnknownLogLevel, log_message_level, may_log, requested_log_level};
use rpcwire::{Decoder, Message, Request};

/// Runs `test` on a `tools/call` request (id 1) whose `_meta` holds `meta`'s members.
fn with_meta(meta: &str, test: impl FnOnce(&Request<'_>)) {
    let frame = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","_meta":{{{meta}}}}}}}"#
    );
    let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
        panic!("not a request: {frame}")
    };
    test(&req);
}

const NAMES: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

#[test]
fn levels_parse_print_and_order_as_rfc_5424_severities() {
    assert_eq!(LogLevel::ALL.len(), NAMES.len());
    for (i, (level, name)) in LogLevel::ALL.into_iter().zip(NAMES).enumerate() {
        assert_eq!(name.parse::<LogLevel>(), Ok(level));
        assert_eq!(level.as_str(), name);
        assert_eq!(level.to_string(), name);
        for (j, other) in LogLevel::ALL.into_iter().enumerate() {
            assert_eq!(level.cmp(&other), i.cmp(&j), "{level} against {other}");
        }
    }
    assert!(LogLevel::Debug < LogLevel::Emergency);
}

#[test]
fn other_names_are_no_levels() {
    for name in [
        "", "Debug", "INFO", "warn", "fatal", "trace", " info", "info ", "err",
    ] {
        assert_eq!(name.parse::<LogLevel>(), Err(UnknownLogLevel), "{name:?}");
    }
    assert_eq!(UnknownLogLevel.to_string(), "not an MCP log level");
}

#[test]
fn a_request_names_its_level_escapes_decoded() {
    for (level, name) in LogLevel::ALL.into_iter().zip(NAMES) {
        with_meta(
            &format!(r#""io.modelcontextprotocol/logLevel":"{name}""#),
            |req| assert_eq!(requested_log_level(req), Some(level)),
        );
    }
    with_meta(
        r#""io.modelcontextprotocol/logLevel":"w\u0061rning""#,
        |req| assert_eq!(requested_log_level(req), Some(LogLevel::Warning)),
    );
    with_meta(r#""io.modelcontextprotocol\/logLevel":"error""#, |req| {
        assert_eq!(requested_log_level(req), Some(LogLevel::Error))
    });
}

#[test]
fn a_request_without_a_readable_level_names_none_and_gets_no_log_message() {
    let cases = [
        "",
        r#""io.modelcontextprotocol/logLevel":null"#,
        r#""io.modelcontextprotocol/logLevel":7"#,
        r#""io.modelcontextprotocol/logLevel":["debug"]"#,
        r#""io.modelcontextprotocol/logLevel":"verbose""#,
        r#""io.modelcontextprotocol/logLevel":"Debug""#,
        r#""io.modelcontextprotocol/logLevel":"\ud800""#,
        r#""logLevel":"debug""#,
        r#""io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/logLevel":"debug""#,
    ];
    for meta in cases {
        with_meta(meta, |req| {
            assert_eq!(requested_log_level(req), None, "{meta}");
            for level in LogLevel::ALL {
                assert!(!may_log(req, level), "{meta}: {level}");
            }
        });
    }
    // No params, no `_meta`, a `_meta` of another type, a `_meta` given twice, and a level
    // outside `_meta`.
    for frame in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":"debug"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/logLevel":"debug"},"_meta":{"io.modelcontextprotocol/logLevel":"debug"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"io.modelcontextprotocol/logLevel":"debug"}}"#,
    ] {
        let Ok(Message::Request(req)) = Decoder::mcp().decode(frame.as_bytes()) else {
            panic!("not a request: {frame}")
        };
        assert_eq!(requested_log_level(&req), None, "{frame}");
        assert!(!may_log(&req, LogLevel::Emergency), "{frame}");
    }
}

#[test]
fn a_level_admits_itself_and_the_more_severe_ones_only() {
    for (i, min) in NAMES.into_iter().enumerate() {
        with_meta(
            &format!(r#""io.modelcontextprotocol/logLevel":"{min}""#),
            |req| {
                for (j, level) in LogLevel::ALL.into_iter().enumerate() {
                    assert_eq!(may_log(req, level), j >= i, "{level} under {min}");
                }
            },
        );
    }
}

/// The level `log_message_level` reads from the notification `frame`, as a client decodes it.
fn message_level(frame: &str) -> Option<LogLevel> {
    let Ok(Message::Notification(n)) = Decoder::mcp_client().decode(frame.as_bytes()) else {
        panic!("not a notification: {frame}")
    };
    log_message_level(&n)
}

#[test]
fn a_log_message_names_its_level_escapes_decoded() {
    for (level, name) in LogLevel::ALL.into_iter().zip(NAMES) {
        let frame = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"{name}","data":"x"}}}}"#
        );
        assert_eq!(message_level(&frame), Some(level), "{frame}");
    }
    // Escaped, after `data` and `logger`, and with a `_meta`.
    let frame = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"level":"debug"},"logger":"db","_meta":{},"level":"n\u006ftice"}}"#;
    assert_eq!(message_level(frame), Some(LogLevel::Notice));
    let frame = r#"{"jsonrpc":"2.0","method":"notifications\/message","params":{"level":"alert","data":1}}"#;
    assert_eq!(message_level(frame), Some(LogLevel::Alert));
}

#[test]
fn a_log_message_without_a_readable_level_has_none() {
    for params in [
        "{}",
        r#"{"data":"x"}"#,
        r#"{"level":null,"data":"x"}"#,
        r#"{"level":3,"data":"x"}"#,
        r#"{"level":"warn","data":"x"}"#,
        r#"{"level":"Error","data":"x"}"#,
        r#"{"level":"error","level":"error","data":"x"}"#,
        r#"{"data":{"level":"error"}}"#,
        r#"{"_meta":{"level":"error"},"data":"x"}"#,
        r#"{"level":"error","data" "x"}"#,
    ] {
        let frame =
            format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{params}}}"#);
        assert_eq!(message_level(&frame), None, "{frame}");
    }
    // No params, and another notification with a `level`.
    for frame in [
        r#"{"jsonrpc":"2.0","method":"notifications/message"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"level":"error","progressToken":1,"progress":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/messages","params":{"level":"error","data":"x"}}"#,
    ] {
        assert_eq!(message_level(frame), None, "{frame}");
    }
}
