//! The typed writers (`typed::write_request`, `write_notification`, `write_response`) write
//! byte for byte what `typed::to_raw` and the matching `encode` writer write, refuse what
//! `to_raw` refuses with the same error, and append nothing when they do.
#![cfg(feature = "serde")]

mod common;

use std::collections::BTreeMap;

use bytes::BytesMut;
use proptest::prelude::*;
use rpcwire::typed::{self, TypedError};
use rpcwire::{Decoder, ErrorCode, Id, Message, RawJson, encode};
use serde::Serialize;

/// What the output held before each writer ran: the writers append after it.
const EARLIER: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"earlier\"}\n";

/// The three messages the typed writers write, each by `to_raw` and the `encode` writer, and
/// by the typed writer, after `EARLIER`: the two outputs, or the two errors.
fn both_ways<T: Serialize + ?Sized>(
    id: Id<'_>,
    method: &str,
    value: &T,
) -> [(Result<BytesMut, TypedError>, Result<BytesMut, TypedError>); 3] {
    let mut scratch = Vec::new();
    let raw = typed::to_raw(value, &mut scratch);
    let via_to_raw = |write: &dyn Fn(&mut BytesMut, RawJson<'_>)| {
        raw.clone().map(|raw| {
            let mut out = BytesMut::from(EARLIER);
            write(&mut out, raw);
            out
        })
    };
    let typed_way = |write: &dyn Fn(&mut BytesMut) -> Result<(), TypedError>| {
        let mut out = BytesMut::from(EARLIER);
        let written = write(&mut out);
        if written.is_err() {
            assert_eq!(&out[..], EARLIER, "an error appends nothing");
        }
        written.map(|()| out)
    };
    [
        (
            via_to_raw(&|out, raw| encode::write_request(out, id, method, Some(raw))),
            typed_way(&|out| typed::write_request(out, id, method, value)),
        ),
        (
            via_to_raw(&|out, raw| encode::write_notification(out, method, Some(raw))),
            typed_way(&|out| typed::write_notification(out, method, value)),
        ),
        (
            via_to_raw(&|out, raw| encode::write_response(out, id, raw)),
            typed_way(&|out| typed::write_response(out, id, value)),
        ),
    ]
}

/// Asserts that each typed writer writes `value` as `to_raw` and the `encode` writer do, and
/// that they take it; returns the three lines, without `EARLIER`.
fn assert_same_lines<T: Serialize + ?Sized>(id: Id<'_>, method: &str, value: &T) -> [BytesMut; 3] {
    both_ways(id, method, value).map(|(expected, written)| {
        let expected = expected.expect("to_raw takes the value");
        assert_eq!(written.as_ref(), Ok(&expected));
        let mut line = expected;
        assert_eq!(&line[..EARLIER.len()], EARLIER);
        line.split_off(EARLIER.len())
    })
}

/// Asserts that each typed writer refuses `value` with `to_raw`'s error, appending nothing
/// (checked in `both_ways`); returns that error.
fn assert_same_error<T: Serialize + ?Sized>(value: &T) -> TypedError {
    let id = Id::from_token(b"1").unwrap();
    let [first, others @ ..] = both_ways(id, "m", value).map(|(expected, written)| {
        let expected = expected.expect_err("to_raw refuses the value");
        assert_eq!(written.as_ref(), Err(&expected));
        expected
    });
    assert!(others.iter().all(|e| e == &first));
    first
}

/// A `Serialize` impl that emits a serde_json `RawValue` by its struct name, whose text
/// serde_json writes out unchecked.
struct RawText<'a>(&'a str);

impl Serialize for RawText<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut raw = s.serialize_struct("$serde_json::private::RawValue", 1)?;
        raw.serialize_field("$serde_json::private::RawValue", self.0)?;
        raw.end()
    }
}

/// A value `depth` levels deep: `{"a":{"a":…{"a":1}…}}`.
fn nested(depth: usize) -> serde_json::Value {
    (1..depth).fold(
        serde_json::json!({"a": 1}),
        |v, _| serde_json::json!({ "a": v }),
    )
}

/// Ids of each kind, as the typed writers copy them: integers, other numbers, strings with
/// and without escapes, `null`.
const IDS: &[&[u8]] = &[
    b"0",
    b"-7",
    b"123456789012345678901234567890",
    b"1.5",
    b"1e3",
    b"\"\"",
    b"\"call-1\"",
    b"\"a\\\"b\\u00e9\"",
    b"\"\xc3\xa9\xf0\x9f\x98\x80\"",
    b"null",
];

#[test]
fn ids_of_each_kind_are_written_as_given() {
    let params = serde_json::json!({"name": "add", "arguments": {"a": 1}});
    for &token in IDS {
        let id = Id::from_token(token).unwrap();
        let [request, notification, response] = assert_same_lines(id, "tools/call", &params);
        let id_member = [&b",\"id\":"[..], token, b","].concat();
        for line in [&request, &response] {
            assert!(
                line.windows(id_member.len()).any(|w| w == id_member),
                "{:?} in {:?}",
                String::from_utf8_lossy(token),
                String::from_utf8_lossy(line)
            );
        }
        assert!(!notification.windows(5).any(|w| w == b"\"id\":"));
        // JSON-RPC 2.0 reads each back with its id (MCP refuses some of these kinds).
        let read = Decoder::jsonrpc()
            .decode(&request[..request.len() - 1])
            .unwrap();
        assert!(matches!(read, Message::Request(_)));
        assert_eq!(read.id(), Some(id));
        let read = Decoder::jsonrpc_client()
            .decode(&response[..response.len() - 1])
            .unwrap();
        assert!(matches!(read, Message::Response(_)));
        assert_eq!(read.id(), Some(id));
    }
}

#[test]
fn the_lines_are_what_the_encode_writers_write() {
    let id = Id::from_token(b"7").unwrap();
    let [request, notification, response] =
        assert_same_lines(id, "tools/\"call\"\n", &serde_json::json!([1, "two", null]));
    assert_eq!(
        &request[..],
        &b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/\\\"call\\\"\\n\",\"params\":[1,\"two\",null]}\n"[..]
    );
    assert_eq!(
        &notification[..],
        &b"{\"jsonrpc\":\"2.0\",\"method\":\"tools/\\\"call\\\"\\n\",\"params\":[1,\"two\",null]}\n"[..]
    );
    assert_eq!(
        &response[..],
        &b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":[1,\"two\",null]}\n"[..]
    );
}

/// Params are written whatever the value, as `encode::write_request` writes any `RawJson`:
/// `()` is `"params":null`, which JSON-RPC 2.0 refuses ("MUST be provided as a Structured
/// value") and the decoder answers with -32600. A result may be any value.
#[test]
fn params_that_are_not_structured_are_written_as_encode_writes_them() {
    let id = Id::from_token(b"3").unwrap();
    for (value, json) in [
        (serde_json::json!(null), &b"null"[..]),
        (serde_json::json!(5), b"5"),
        (serde_json::json!("x"), b"\"x\""),
    ] {
        let [request, notification, response] = assert_same_lines(id, "m", &value);
        let params = [&b",\"params\":"[..], json, b"}\n"].concat();
        assert!(request.ends_with(&params));
        assert!(notification.ends_with(&params));
        let refused = Decoder::jsonrpc()
            .decode(&request[..request.len() - 1])
            .unwrap_err();
        assert_eq!(refused.reply().unwrap().code, ErrorCode::INVALID_REQUEST);
        assert!(
            Decoder::jsonrpc_client()
                .decode(&response[..response.len() - 1])
                .is_ok()
        );
    }
    let [request, ..] = assert_same_lines(id, "m", &());
    assert!(request.ends_with(b",\"params\":null}\n"));
}

/// A `RawValue` may put line breaks between tokens and whitespace around the value: the
/// whitespace around goes, as `to_raw` cuts it, and each line break becomes a space, as the
/// `encode` writers splice a payload, wherever the raw text sits in the value.
#[test]
fn raw_text_is_put_on_one_line_as_the_encode_writers_put_it() {
    let id = Id::from_token(b"1").unwrap();
    let [request, notification, response] =
        assert_same_lines(id, "m", &RawText("\r\n {\"a\":\n[1,\r\n 2]} \n\t"));
    assert!(request.ends_with(b",\"params\":{\"a\": [1,   2]}}\n"));
    assert!(notification.ends_with(b",\"params\":{\"a\": [1,   2]}}\n"));
    assert_eq!(
        &response[..],
        &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\": [1,   2]}}\n"[..]
    );
    #[derive(Serialize)]
    struct Holder<'a> {
        before: u8,
        raw: RawText<'a>,
        after: [RawText<'a>; 2],
    }
    let holder = Holder {
        before: 1,
        raw: RawText("\n[\n]\n"),
        after: [RawText(" \"\\n\" "), RawText("{\r}")],
    };
    let [.., response] = assert_same_lines(id, "m", &holder);
    assert!(
        response.ends_with(b"\"result\":{\"before\":1,\"raw\": [ ] ,\"after\":[ \"\\n\" ,{ }]}}\n"),
        "{:?}",
        String::from_utf8_lossy(&response)
    );
}

/// serde_json refuses a map key that is not a string: the writers append nothing and give
/// `to_raw`'s error.
#[test]
fn a_map_key_that_is_not_a_string_appends_nothing() {
    let keys = BTreeMap::from([((1, 2), "a"), ((3, 4), "b")]);
    let error = assert_same_error(&keys);
    assert_eq!(error.message(), "key must be a string");
    // Past a member already written.
    let mut fields = BTreeMap::new();
    fields.insert("a", BTreeMap::from([(String::from("ok"), 1)]));
    #[derive(Serialize)]
    struct Later<'a> {
        first: &'a BTreeMap<&'a str, BTreeMap<String, i32>>,
        second: BTreeMap<[u8; 2], i32>,
    }
    let later = Later {
        first: &fields,
        second: BTreeMap::from([([1, 2], 3)]),
    };
    assert_eq!(assert_same_error(&later).message(), "key must be a string");
}

/// A `Serialize` impl that writes a member, then fails.
struct FailsAfterAMember;

impl Serialize for FailsAfterAMember {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeStruct};
        let mut fields = s.serialize_struct("FailsAfterAMember", 2)?;
        fields.serialize_field("written", "first")?;
        Err(S::Error::custom("the clock is not set"))
    }
}

#[test]
fn a_serialize_impl_that_fails_appends_nothing() {
    let error = assert_same_error(&FailsAfterAMember);
    assert_eq!(error.message(), "the clock is not set");
    assert!(!error.is_syntax());
    // Deeper in, after other elements.
    let error = assert_same_error(&(1, "two", [FailsAfterAMember]));
    assert_eq!(error.message(), "the clock is not set");
}

/// A `Serialize` impl that writes a member, then panics.
struct PanicsAfterAMember;

impl Serialize for PanicsAfterAMember {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut fields = s.serialize_struct("PanicsAfterAMember", 2)?;
        fields.serialize_field("written", "first")?;
        panic!("the clock is not set");
    }
}

/// A `Serialize` impl that panics after writing part of the value leaves nothing of the line
/// behind: a server that catches the panic (a task runtime does) and goes on writing to the
/// same buffer sends no half line.
#[test]
fn a_serialize_impl_that_panics_appends_nothing() {
    let id = Id::from_token(b"1").unwrap();
    let writers: [&dyn Fn(&mut BytesMut); 3] = [
        &|out| drop(typed::write_request(out, id, "m", &PanicsAfterAMember)),
        &|out| drop(typed::write_notification(out, "m", &[PanicsAfterAMember])),
        &|out| drop(typed::write_response(out, id, &(1, PanicsAfterAMember))),
    ];
    for write in writers {
        let mut out = BytesMut::from(EARLIER);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| write(&mut out)));
        let message = unwound.unwrap_err();
        assert_eq!(
            message.downcast_ref::<&str>(),
            Some(&"the clock is not set")
        );
        assert_eq!(&out[..], EARLIER);
        // The buffer takes the next line as if nothing had been tried.
        typed::write_response(&mut out, id, &1).unwrap();
        assert_eq!(
            &out[EARLIER.len()..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n"
        );
    }
}

/// Raw text that ends the value early and goes on (`1,"id":2`) would add a second `id` to the
/// envelope: refused, as by `to_raw`, with nothing appended; so is any raw text that is not
/// one JSON value.
#[test]
fn raw_text_that_is_not_one_value_appends_nothing() {
    for text in [r#"1,"id":2"#, r#"{},"id":2"#, "[1 2]", "", " ", "1\n}{"] {
        let error = assert_same_error(&RawText(text));
        assert!(
            error
                .message()
                .starts_with("serialized value is not one JSON value: "),
            "{text:?}: {error:?}"
        );
    }
}

/// A value nested more than 127 levels deep is refused, as by `to_raw` (the default decoder
/// would refuse the line without its id); 127 levels are written.
#[test]
fn a_value_nested_too_deep_appends_nothing() {
    for depth in [128, 200] {
        let error = assert_same_error(&nested(depth));
        assert_eq!(error.message(), "value nested more than 127 levels deep");
    }
    let id = Id::from_token(b"9").unwrap();
    let [request, notification, response] = assert_same_lines(id, "m", &nested(127));
    for line in [&request, &notification] {
        assert!(Decoder::mcp().decode(&line[..line.len() - 1]).is_ok());
    }
    assert!(
        Decoder::mcp_client()
            .decode(&response[..response.len() - 1])
            .is_ok()
    );
}

/// Generated `serde_json::Value`s: numbers of each kind, strings with any characters (line
/// breaks, quotes, control characters, astral ones), arrays and objects.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        any::<String>().prop_map(Value::String),
        "[\"\\\\\n\r\t\u{1}a-z]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A derived struct of the kind an SDK sends: optional and renamed members, an internally
/// tagged enum, bytes, and a `Value`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Generated {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    progress_token: Option<i64>,
    /// A NaN or an infinity serde_json writes as `null`.
    total: Option<f64>,
    tags: Vec<String>,
    kind: Kind,
    #[serde(rename = "_meta")]
    meta: serde_json::Value,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Kind {
    Text { text: String },
    Image { data: Vec<u8>, mime_type: String },
    Empty,
}

fn generated() -> impl Strategy<Value = Generated> {
    let kind = prop_oneof![
        any::<String>().prop_map(|text| Kind::Text { text }),
        (prop::collection::vec(any::<u8>(), 0..8), "[a-z/]{0,12}")
            .prop_map(|(data, mime_type)| Kind::Image { data, mime_type }),
        Just(Kind::Empty),
    ];
    (
        any::<String>(),
        any::<Option<i64>>(),
        any::<Option<f64>>(),
        prop::collection::vec(any::<String>(), 0..4),
        kind,
        json_value(),
    )
        .prop_map(
            |(name, progress_token, total, tags, kind, meta)| Generated {
                name,
                progress_token,
                total,
                tags,
                kind,
                meta,
            },
        )
}

fn id_token() -> impl Strategy<Value = &'static [u8]> {
    prop::sample::select(IDS)
}

proptest! {
    #![proptest_config(crate::common::cases(400))]

    /// Generated values and structs are written as `to_raw` and the `encode` writers write
    /// them, with any id and any method name.
    #[test]
    fn generated_values_are_written_as_to_raw_writes_them(
        value in json_value(),
        token in id_token(),
        method in any::<String>(),
    ) {
        let id = Id::from_token(token).unwrap();
        for (expected, written) in both_ways(id, &method, &value) {
            prop_assert!(expected.is_ok());
            prop_assert_eq!(written, expected);
        }
    }

    #[test]
    fn generated_structs_are_written_as_to_raw_writes_them(
        value in generated(),
        token in id_token(),
    ) {
        let id = Id::from_token(token).unwrap();
        for (expected, written) in both_ways(id, "tools/call", &value) {
            prop_assert!(expected.is_ok());
            prop_assert_eq!(written, expected);
        }
    }

    /// Generated values written pretty-printed as raw text, with whitespace around (line
    /// breaks between every token): the same lines as by `to_raw`, which read back as the
    /// value.
    #[test]
    fn generated_raw_text_is_written_as_to_raw_writes_it(
        value in json_value(),
        pad in "[ \t\r\n]{0,3}",
    ) {
        let text = format!("{pad}{}{pad}", serde_json::to_string_pretty(&value).unwrap());
        let id = Id::from_token(b"1").unwrap();
        for (expected, written) in both_ways(id, "m", &RawText(&text)) {
            prop_assert!(expected.is_ok());
            prop_assert_eq!(&written, &expected);
            let line = written.unwrap();
            prop_assert_eq!(line.iter().filter(|&&b| b == b'\n' || b == b'\r').count(), 2);
        }
        let [.., (_, response)] = both_ways(id, "m", &RawText(&text));
        let response = response.unwrap();
        let read: serde_json::Value = serde_json::from_slice(&response[EARLIER.len()..]).unwrap();
        // Read as the text reads (serde_json may round a decimal it wrote a unit off).
        let text_read: serde_json::Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&read["result"], &text_read);
    }
}
