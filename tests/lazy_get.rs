//! Lazy member lookup (`RawJson::get`) agrees with serde_json's `Value` lookup on random
//! objects, escaped keys included. A duplicated key is ambiguous: `get` refuses it (None),
//! the same rule as the envelope's (a duplicated envelope member is -32600), where serde_json
//! would silently keep the last one.

use proptest::prelude::*;
use rpcwire::RawJson;
use serde_json::Value;

/// Writes `key` as a JSON string, escaping some characters that need no escape.
fn escaped_key(key: &str, escape_mask: u32) -> String {
    let mut s = String::from("\"");
    for (i, c) in key.chars().enumerate() {
        if escape_mask & (1 << (i % 32)) != 0 {
            s += &format!("\\u{:04x}", c as u32);
        } else {
            match c {
                '"' => s += "\\\"",
                '\\' => s += "\\\\",
                c => s.push(c),
            }
        }
    }
    s + "\""
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z\"\\\\é ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn get_agrees_with_serde_json(
        members in prop::collection::vec(("[a-c_\"\\\\é]{0,3}", value(), any::<u32>()), 0..6),
        probe in "[a-c_\"\\\\é]{0,3}",
    ) {
        let body: Vec<String> = members
            .iter()
            .map(|(k, v, mask)| format!("{} : {}", escaped_key(k, *mask), v))
            .collect();
        let text = format!("{{ {} }}", body.join(" , "));
        let raw = RawJson::new(text.as_bytes()).expect("valid JSON");
        let reference: Value = serde_json::from_str(&text).unwrap();
        let occurrences = members.iter().filter(|(k, _, _)| *k == probe).count();
        let got = raw.get(&probe).map(|v| serde_json::from_slice::<Value>(v.as_bytes()).unwrap());
        if occurrences > 1 {
            prop_assert_eq!(got, None, "a duplicated key is ambiguous");
        } else {
            prop_assert_eq!(got.as_ref(), reference.get(&probe), "{}", text);
        }
        // Iteration sees every member, in order, with decoded keys.
        let keys: Vec<String> = raw.members().map(|(k, _)| k.decode().into_owned()).collect();
        let expected: Vec<String> = members.iter().map(|(k, _, _)| k.clone()).collect();
        prop_assert_eq!(keys, expected);
    }
}

/// Every JSON Pointer to a value of `value`, with the value (RFC 6901 §4's escapes).
fn pointers(value: &Value, at: String, out: &mut Vec<(String, Value)>) {
    out.push((at.clone(), value.clone()));
    match value {
        Value::Object(members) => {
            for (k, v) in members {
                let token = k.replace('~', "~0").replace('/', "~1");
                pointers(v, format!("{at}/{token}"), out);
            }
        }
        Value::Array(elements) => {
            for (i, v) in elements.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

proptest! {
    /// `RawJson::pointer` finds every value serde_json's `Value::pointer` finds, at every
    /// pointer into random documents whose keys hold `/` and `~`, and nothing at pointers
    /// that miss (an index past the end, `-`, a leading zero, a missing key, a token on a
    /// scalar).
    #[test]
    fn pointer_agrees_with_serde_json(
        doc in value(),
        keys in prop::collection::vec("[a~/]{0,3}", 0..4),
    ) {
        // Keys with `~` and `/` on the top level, each holding the random document.
        let doc = Value::Object(keys.iter().map(|k| (k.clone(), doc.clone())).collect());
        let text = serde_json::to_string(&doc).unwrap();
        let raw = RawJson::new(text.as_bytes()).expect("valid JSON");
        let mut all = Vec::new();
        pointers(&doc, String::new(), &mut all);
        for (pointer, expected) in &all {
            let got = raw.pointer(pointer).map(|v| serde_json::from_slice::<Value>(v.as_bytes()).unwrap());
            prop_assert_eq!(got.as_ref(), Some(expected), "{} in {}", pointer, text);
            for miss in ["/99", "/-", "/01", "/+1", "/zz", "/~2", "~1"] {
                let probe = format!("{pointer}{miss}");
                let got = raw.pointer(&probe);
                // serde_json reads an unknown escape (`~2`) as itself; RFC 6901 makes it an
                // error, and so does `pointer`: no key here holds `~2` anyway.
                prop_assert_eq!(got.is_some(), doc.pointer(&probe).is_some(), "{} in {}", probe, text);
            }
        }
    }
}

#[test]
fn nested_paths_and_arrays() {
    let raw = RawJson::new(br#"{"params":{"_meta":{"progressToken":42}},"list":[1,{"a":2},"x"]}"#)
        .unwrap();
    assert_eq!(
        raw.get_path(&["params", "_meta", "progressToken"])
            .unwrap()
            .as_i64(),
        Some(42)
    );
    assert_eq!(raw.get_path(&["params", "missing"]), None);
    let list: Vec<&[u8]> = raw
        .get("list")
        .unwrap()
        .elements()
        .map(|e| e.as_bytes())
        .collect();
    assert_eq!(list, [&b"1"[..], br#"{"a":2}"#, br#""x""#]);
    assert_eq!(
        raw.get("list").unwrap().get("a"),
        None,
        "get on an array is None"
    );
}

/// Keys compare code unit by code unit (RFC 8259 §8.3): a lone surrogate escape is no
/// character, so it equals no `&str`, U+FFFD included (which `decode` shows it as).
#[test]
fn a_lone_surrogate_key_is_not_u_fffd() {
    let v = RawJson::new(br#"{"\ud800":1}"#).unwrap();
    assert_eq!(v.get("\u{fffd}"), None);
    // Exactly one member named U+FFFD: found, not taken for a duplicate.
    let v = RawJson::new(br#"{"\ufffd":1,"\udfff":2}"#).unwrap();
    assert_eq!(v.get("\u{fffd}").map(|x| x.as_bytes()), Some(&b"1"[..]));
    let lone = RawJson::new(br#""\ud800""#).unwrap().as_str().unwrap();
    assert!(!lone.eq_str("\u{fffd}"));
    assert_eq!(lone.decode(), "\u{fffd}");
    // A high surrogate whose next escape is no low surrogate is lone, and that escape is read
    // on its own: a character, or a surrogate of its own.
    for (text, decoded) in [
        (&br#""\ud800\u0041""#[..], "\u{fffd}A"),
        (br#""\ud800\ud800""#, "\u{fffd}\u{fffd}"),
        (br#""\udbff\ue000""#, "\u{fffd}\u{e000}"),
    ] {
        let s = RawJson::new(text).unwrap().as_str().unwrap();
        let shown = String::from_utf8_lossy(text);
        assert_eq!(s.decode(), decoded, "{shown}");
        assert!(s.has_lone_surrogate(), "{shown}");
        assert!(!s.eq_str(decoded), "{shown}");
    }
    // A pair is its character.
    let pair = RawJson::new(br#""\ud83d\ude00""#)
        .unwrap()
        .as_str()
        .unwrap();
    assert!(pair.eq_str("\u{1f600}"));
}

#[test]
fn as_f64_reads_only_finite_json_numbers() {
    // Numbers beyond `f64` are refused (serde_json's rule: `1e400` is an error there, not
    // infinity); so is what is not a JSON number, however the value was reached.
    let cases: [(&str, Option<f64>); 10] = [
        ("50", Some(50.0)),
        ("-0.5e1", Some(-5.0)),
        ("1E+2", Some(100.0)),
        ("1e-400", Some(0.0)),
        ("1e400", None),
        ("-1e400", None),
        ("-nan", None),
        ("01", None),
        ("1.", None),
        ("\"1\"", None),
    ];
    for (text, want) in cases {
        let object = format!(r#"{{"n":{text}}}"#);
        let object = RawJson::new(object.as_bytes()).unwrap();
        assert_eq!(object.get("n").and_then(|n| n.as_f64()), want, "{text}");
    }
}

#[test]
fn members_and_elements_yield_only_separated_values() {
    // Lazy validation checks brackets, strings and the alphabet, not token order: such an
    // object is accepted, and its members must not be misread (`01` as `0`, a member behind a
    // missing comma as a member).
    for text in [
        r#"{"n":01}"#,
        r#"{"n":1 "m":2}"#,
        r#"{"n":1:2}"#,
        r#"{,"n":1}"#,
    ] {
        let object = RawJson::new(text.as_bytes()).expect(text);
        assert_eq!(object.members().count(), 0, "{text}");
        assert_eq!(object.get("n"), None, "{text}");
    }
    for text in ["[01]", "[1 2]", "[,1]", "[1:2]"] {
        let array = RawJson::new(text.as_bytes()).expect(text);
        assert_eq!(array.elements().count(), 0, "{text}");
    }
    let object = RawJson::new(br#"{ "a" : 1 , "b":[2] }"#).unwrap();
    let keys: Vec<String> = object
        .members()
        .map(|(k, _)| k.decode().into_owned())
        .collect();
    assert_eq!(keys, ["a", "b"]);
    let array = RawJson::new(b"[ 1 , {} ,\"x\" ]").unwrap();
    let texts: Vec<&str> = array.elements().map(|e| e.as_text()).collect();
    assert_eq!(texts, ["1", "{}", "\"x\""]);
}

#[test]
fn a_key_repeated_where_iteration_stops_is_still_ambiguous() {
    // README: "A duplicated key is ambiguous and `get` returns `None` for it"; past a
    // malformed spot the key may occur again, so such an object answers no key.
    for text in [
        r#"{"a":1,"a":01}"#,
        r#"{"a":1,"a":2 "b":3}"#,
        r#"{"a":1,"b":2 "a":3}"#,
        r#"{"b":2 "a":3}"#,
    ] {
        let object = RawJson::new(text.as_bytes()).expect(text);
        assert_eq!(object.get("a"), None, "{text}");
        let mut members = object.members();
        members.by_ref().for_each(drop);
        assert!(members.stopped_early(), "{text}");
    }
    let clean = RawJson::new(br#"{ "a" : 1 }"#).unwrap();
    let mut members = clean.members();
    members.by_ref().for_each(drop);
    assert!(!members.stopped_early());
    // The envelope's rule (MCP, lazy by default): a resultType that may be duplicated is
    // refused.
    for result in [
        r#"{"resultType":"complete","resultType":"bogus" "x":1}"#,
        r#"{"x":1 "resultType":"complete","resultType":"bogus"}"#,
    ] {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{result}}}"#);
        let rej = rpcwire::Decoder::mcp()
            .decode(frame.as_bytes())
            .unwrap_err();
        assert_eq!(rej.error(), rpcwire::DecodeError::BadResultType, "{result}");
    }
}

/// Whether serde_json reads `bytes` as exactly one JSON value.
fn serde_reads(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

/// `RawJson::new_strict` takes exactly what serde_json reads, where `new` (lazy) only
/// delimits: the payloads a strict peer would refuse are refused before they are written.
#[test]
fn new_strict_takes_what_serde_json_reads() {
    let cases: &[&[u8]] = &[
        b"[tr]",
        b"[-]",
        b"[1 2]",
        br#"{"a"::1}"#,
        br#"{"a":1,}"#,
        b"[01]",
        b"1.",
        b"-",
        br#""\x""#,
        b"nul",
        b"[1,2]",
        b"{}",
        br#" {"a":[true,false,null,-0.5e+3]} "#,
        br#""\ud83d\ude00""#,
        b"\"\x01\"",
    ];
    for &case in cases {
        assert_eq!(
            RawJson::new_strict(case).is_some(),
            serde_reads(case),
            "{}",
            String::from_utf8_lossy(case)
        );
    }
    // The lazy constructor delimits the first four without reading their tokens.
    for case in [&b"[tr]"[..], b"[-]", b"[1 2]", br#"{"a"::1}"#] {
        assert!(RawJson::new(case).is_some());
    }
}

/// The deepest value `RawJson::new` takes is one a peer can read: serde_json reads it (its
/// recursion limit lets 127 levels through), `new_strict` takes it too, and spliced into a
/// response as its result (one level deeper) it makes a frame a JSON-RPC client's decoder
/// with the default limits reads (not an MCP one: MCP's results are objects). One level more
/// is refused by both constructors, as serde_json refuses it.
#[test]
fn the_deepest_value_new_takes_can_be_sent() {
    use bytes::BytesMut;
    use rpcwire::{Decoder, Id, encode};
    let nested = |depth: usize| [vec![b'['; depth], vec![b']'; depth]].concat();
    let deepest = (1..200)
        .take_while(|&depth| RawJson::new(&nested(depth)).is_some())
        .last()
        .unwrap();
    // (`IgnoredAny` skips without a recursion limit: a `Value` is what a server reads.)
    let serde_reads = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).is_ok();
    let value = nested(deepest);
    assert!(serde_reads(&value), "depth {deepest}");
    let raw = RawJson::new_strict(&value).expect("strict");
    let mut out = BytesMut::new();
    encode::write_response(&mut out, Id::from_token(b"1").unwrap(), raw);
    let line = out.strip_suffix(b"\n").unwrap();
    assert!(
        Decoder::jsonrpc_client().decode(line).is_ok(),
        "depth {deepest}"
    );
    let deeper = nested(deepest + 1);
    assert!(!serde_reads(&deeper));
    assert!(RawJson::new_strict(&deeper).is_none());
}

proptest! {
    /// On random short texts over JSON's structural alphabet, `new_strict` and serde_json
    /// agree.
    #[test]
    fn new_strict_agrees_with_serde_json(text in r#"[ \[\]{}:,"a0-9.eE+\-tfnrul\\]{0,24}"#) {
        prop_assert_eq!(RawJson::new_strict(text.as_bytes()).is_some(), serde_reads(text.as_bytes()));
    }
}
