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

#[test]
fn nested_paths_and_arrays() {
    let raw = RawJson::new(br#"{"params":{"_meta":{"progressToken":42}},"list":[1,{"a":2},"x"]}"#)
        .unwrap();
    assert_eq!(
        raw.pointer(&["params", "_meta", "progressToken"])
            .unwrap()
            .as_i64(),
        Some(42)
    );
    assert_eq!(raw.pointer(&["params", "missing"]), None);
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
    // A pair is its character.
    let pair = RawJson::new(br#""\ud83d\ude00""#)
        .unwrap()
        .as_str()
        .unwrap();
    assert!(pair.eq_str("\u{1f600}"));
}
