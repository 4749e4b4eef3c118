//! `rpcwire::json` on hostile input: containers cut short, stray commas, keys that are not
//! strings, values after the end, bytes that are not UTF-8, nesting far beyond any limit, and
//! megabyte inputs. Nothing panics, every refusal says why, every iteration that stops at a
//! fault says so (`stopped_early`) and stays stopped, and every walk is linear.

mod common;

use std::time::Duration;

use common::within;
use proptest::prelude::*;
use rpcwire::{DecodeError, JsonKind, Lookup, RawJson, ScanError};

/// Every constructor's answer for `bytes`: lazy and strict, with and without the reason.
fn refusals(bytes: &[u8]) -> [Result<RawJson<'_>, DecodeError>; 2] {
    let lazy = RawJson::parse(bytes);
    let strict = RawJson::parse_strict(bytes);
    assert_eq!(RawJson::new(bytes), lazy.ok(), "{:?}", show(bytes));
    assert_eq!(RawJson::new_strict(bytes), strict.ok(), "{:?}", show(bytes));
    [lazy, strict]
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_container_cut_short_is_refused_as_cut_short() {
    for text in [
        "[",
        "{",
        "[ ",
        "[1,2",
        "[1,2,",
        "{\"a\":",
        "{\"a\":1",
        "{\"a\":1,",
        "{\"a\"",
        "[[[]]",
        "{\"a\":{\"b\":[1]}",
        // Ending inside a string, in an escape, in a `\u` escape.
        "[\"]",
        "[\"a",
        "{\"a",
        "{\"a\":\"x}",
        "[\"\\",
        "[\"\\u00",
        "[\"\\\"]",
    ] {
        for answer in refusals(text.as_bytes()) {
            let want = Err(DecodeError::Syntax(ScanError::UnexpectedEnd));
            assert_eq!(answer, want, "{text}");
        }
    }
}

fn container() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::from),
        "[a\"\\\\\u{1}é😀 ]{0,4}".prop_map(Value::from),
    ];
    let tree = leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-c\"\\\\]{0,2}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    prop_oneof![
        prop::collection::vec(tree.clone(), 0..4).prop_map(Value::Array),
        prop::collection::btree_map("[a-c]{0,2}", tree, 0..4)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
    ]
}

proptest! {
    /// Every proper prefix of a container (pretty-printed, so cut inside whitespace too, or
    /// compact) is refused by both constructors as ending too early, and nothing else.
    #[test]
    fn every_prefix_of_a_container_ends_unexpectedly(value in container(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        prop_assert!(RawJson::new_strict(text.as_bytes()).is_some());
        for cut in (1..text.len()).filter(|&cut| text.is_char_boundary(cut)) {
            let prefix = &text.as_bytes()[..cut];
            for answer in refusals(prefix) {
                prop_assert_eq!(answer, Err(DecodeError::Syntax(ScanError::UnexpectedEnd)), "{}", show(prefix));
            }
        }
    }
}

/// What an array iteration yields (as text), and whether it stopped early, checked to stay
/// so: three more calls yield nothing and keep the answer.
fn read_elements(value: RawJson<'_>) -> (Vec<&str>, bool) {
    let mut elements = value.elements();
    let items: Vec<&str> = elements.by_ref().map(|e| e.as_text()).collect();
    let early = elements.stopped_early();
    for _ in 0..3 {
        assert_eq!(elements.next(), None, "{value}: an element after the end");
        assert_eq!(elements.stopped_early(), early, "{value}");
    }
    (items, early)
}

/// [`read_elements`] for an object's members (`key=value`, the key decoded).
fn read_members(value: RawJson<'_>) -> (Vec<String>, bool) {
    let mut members = value.members();
    let items: Vec<String> = members
        .by_ref()
        .map(|(k, v)| format!("{}={}", k.decode(), v))
        .collect();
    let early = members.stopped_early();
    for _ in 0..3 {
        assert!(members.next().is_none(), "{value}: a member after the end");
        assert_eq!(members.stopped_early(), early, "{value}");
    }
    (items, early)
}

/// Lazy validation lets token order through: each such array is taken by `new` (and refused
/// by `new_strict`), yields the elements before the fault, then stops for good and says so.
#[test]
fn an_array_with_stray_commas_or_tokens_stops_at_the_fault() {
    let cases: &[(&str, &[&str])] = &[
        ("[1,,2]", &["1"]),
        ("[,1]", &[]),
        ("[,]", &[]),
        ("[1,]", &["1"]),
        ("[1 , ]", &["1"]),
        ("[1 2]", &[]),
        ("[1,2 3,4]", &["1"]),
        ("[1:2]", &[]),
        ("[\"a\":1]", &[]),
        ("[01]", &[]),
        ("[1,-]", &["1"]),
        ("[tru]", &[]),
        ("[truefalse]", &[]),
        ("[null,nul]", &["null"]),
        ("[1.]", &[]),
        ("[[1 2],3,,]", &["[1 2]", "3"]),
        ("[{}{}]", &[]),
    ];
    for &(text, want) in cases {
        let [lazy, strict] = refusals(text.as_bytes());
        let array = lazy.unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert!(strict.is_err(), "{text}");
        assert_eq!(read_elements(array), (want.to_vec(), true), "{text}");
        assert_eq!(array.pointer(&format!("/{}", want.len())), None, "{text}");
    }
}

/// The same for objects: stray commas, keys that are not strings, a missing colon or value,
/// a doubled colon. Such an object answers no key (`Malformed`: it may hold more than was
/// read), the keys read before the fault included.
#[test]
fn an_object_with_stray_commas_or_bad_keys_stops_at_the_fault() {
    let cases: &[(&str, &[&str])] = &[
        (r#"{"a":1,}"#, &["a=1"]),
        (r#"{,"a":1}"#, &[]),
        (r#"{,}"#, &[]),
        (r#"{"a":1,,"b":2}"#, &["a=1"]),
        (r#"{1:2}"#, &[]),
        (r#"{null:1}"#, &[]),
        (r#"{true:1}"#, &[]),
        (r#"{[1]:2}"#, &[]),
        (r#"{{}:1}"#, &[]),
        (r#"{"a":1,2:3}"#, &["a=1"]),
        (r#"{"a"}"#, &[]),
        (r#"{"a":}"#, &[]),
        (r#"{"a" 1}"#, &[]),
        (r#"{"a"::1}"#, &[]),
        (r#"{"a":1 "b":2}"#, &[]),
        (r#"{"a":1:2}"#, &[]),
        (r#"{"a":1,"b"}"#, &["a=1"]),
        (r#"{"a":[1 2],"b":3,}"#, &["a=[1 2]", "b=3"]),
    ];
    for &(text, want) in cases {
        let [lazy, strict] = refusals(text.as_bytes());
        let object = lazy.unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert!(strict.is_err(), "{text}");
        let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        assert_eq!(read_members(object), (want, true), "{text}");
        for key in ["a", "b", "1"] {
            assert_eq!(object.lookup(key), Lookup::Malformed, "{key} in {text}");
            assert_eq!(object.get(key), None, "{key} in {text}");
        }
        assert_eq!(object.pointer("/a"), None, "{text}");
    }
}

/// A clean iteration ends cleanly, and stays ended.
#[test]
fn a_whole_container_ends_cleanly_for_good() {
    let array = RawJson::new(b" [ 1 ,\t[ ] ,\n{ } ,\r\"]\" ] ").unwrap();
    assert_eq!(
        read_elements(array),
        (vec!["1", "[ ]", "{ }", "\"]\""], false)
    );
    let object = RawJson::new(br#"{ "a" : 1 , "}" : "," }"#).unwrap();
    assert_eq!(
        read_members(object),
        (vec!["a=1".to_string(), "}=\",\"".to_string()], false)
    );
    for empty in ["[]", "[ \n ]", "{}", "{\t}"] {
        let value = RawJson::new(empty.as_bytes()).unwrap();
        assert_eq!(read_elements(value), (vec![], false), "{empty}");
        assert_eq!(read_members(value), (vec![], false), "{empty}");
    }
    // Not a container: nothing to iterate, nothing malformed.
    for scalar in ["1", "0", "\"[\"", "\"{\"", "null", "true", "-1.5e3"] {
        let value = RawJson::new(scalar.as_bytes()).unwrap();
        assert_eq!(read_elements(value), (vec![], false), "{scalar}");
        assert_eq!(read_members(value), (vec![], false), "{scalar}");
        assert_eq!(value.lookup("a"), Lookup::Absent, "{scalar}");
    }
}

#[test]
fn a_value_after_the_end_is_trailing_data() {
    for text in [
        "[1] 2",
        "{} {}",
        "1 2",
        "\"a\"\"b\"",
        "[1]]",
        "{}}",
        "null x",
        "nullx",
        "true,",
        "[],",
        "0 0",
        "{\"a\":1}\n{\"b\":2}",
    ] {
        for answer in refusals(text.as_bytes()) {
            assert_eq!(answer, Err(DecodeError::TrailingData), "{text}");
        }
    }
    // Whitespace after the value is no data; anything else that is not JSON's whitespace is.
    assert!(RawJson::new(b"[1] \t\r\n").is_some());
    for text in ["[1]\x0c", "[1]\u{a0}", "[1]\0", "[1]\u{feff}"] {
        assert_eq!(
            RawJson::parse(text.as_bytes()),
            Err(DecodeError::TrailingData),
            "{text:?}"
        );
    }
}

#[test]
fn bytes_that_are_not_utf8_are_refused_as_such() {
    let cases: &[&[u8]] = &[
        b"\xff",
        b"[\xff]",
        b"\"\xc3\"",
        b"{\"\xed\xa0\x80\":1}",        // an encoded surrogate
        b"[\"\xc0\x80\"]",              // an overlong NUL
        b"[\"\xf4\x90\x80\x80\"]",      // beyond U+10FFFF
        b"[\"\xf0\x9f\x98\"]",          // cut short
        b"[1] \xff",                    // after the value
        b"[\"\xe2\x82\xac\", 1, \xa0]", // a lone continuation byte outside a string
    ];
    for &case in cases {
        for answer in refusals(case) {
            assert_eq!(answer, Err(DecodeError::InvalidUtf8), "{}", show(case));
        }
    }
}

const MB: usize = 1 << 20;
/// Of CPU time, for each walk ([`within`]): one quadratic in a megabyte takes minutes, a
/// linear one milliseconds, even unoptimised.
const BUDGET: Duration = Duration::from_secs(5);

#[test]
fn nesting_far_beyond_the_limit_neither_overflows_nor_crawls() {
    for open in [&b"["[..], b"{\"a\":", b"[{\"\":"] {
        let deep = open.repeat(MB / open.len());
        let answer = within("refuse a megabyte of openings", BUDGET, || {
            RawJson::parse(&deep)
        });
        assert_eq!(
            answer,
            Err(DecodeError::Syntax(ScanError::TooDeep)),
            "{}",
            show(open)
        );
    }
    // Taken at any depth when asked: delimited without recursion, and read one level down.
    let depth = MB / 2;
    let deep = [vec![b'['; depth], vec![b']'; depth]].concat();
    let value = within("delimit", BUDGET, || {
        RawJson::with_max_depth(&deep, u32::MAX).expect("balanced")
    });
    let inner = within("one level down", BUDGET, || {
        value.elements().next().expect("an element")
    });
    assert_eq!(inner.as_bytes().len(), deep.len() - 2);
    assert_eq!(inner.kind(), JsonKind::Array);
    assert_eq!(
        RawJson::parse(&deep),
        Err(DecodeError::Syntax(ScanError::TooDeep))
    );
}

#[test]
fn a_megabyte_is_read_in_linear_time() {
    // An array of a quarter million elements.
    let array = format!("[{}1]", "1,".repeat(MB / 2 / 2));
    let array = RawJson::new(array.as_bytes()).unwrap();
    let count = within("count elements", BUDGET, || array.elements().count());
    assert_eq!(count, MB / 4 + 1);
    let last = within("index the last", BUDGET, || {
        array.pointer(&format!("/{}", MB / 4))
    });
    assert_eq!(last.map(|v| v.as_bytes()), Some(&b"1"[..]));

    // An object of many members, its key last; then the same key many times.
    let mut object = String::from("{");
    for i in 0..MB / 16 {
        object += &format!("\"k{i}\":{i},");
    }
    object += "\"id\":7}";
    let raw = RawJson::new(object.as_bytes()).unwrap();
    let found = within("find the last key", BUDGET, || raw.get("id"));
    assert_eq!(found.map(|v| v.as_bytes()), Some(&b"7"[..]));
    let repeated = format!("{{{}\"id\":1}}", "\"\\u0069d\":1,".repeat(MB / 12));
    let raw = RawJson::new(repeated.as_bytes()).unwrap();
    assert_eq!(
        within("a key repeated", BUDGET, || raw.lookup("id")),
        Lookup::Ambiguous
    );

    // A string of escapes, and a key of escapes compared.
    let escaped = format!("\"{}\"", "\\u00e9\\n\\ud83d\\ude00".repeat(MB / 24));
    let raw = RawJson::new(escaped.as_bytes()).unwrap();
    let s = raw.as_str().unwrap();
    let decoded = within("decode", BUDGET, || s.decode());
    assert_eq!(decoded.chars().count(), 3 * (MB / 24));
    assert!(within("compare", BUDGET, || s.eq_str(&decoded)));
    assert!(!within("lone surrogates", BUDGET, || s.has_lone_surrogate()));

    // Whitespace, stray commas, an unfinished element: each found at once.
    let spaced = format!("[{}1{}]", " ".repeat(MB / 2), "\n".repeat(MB / 2));
    let raw = RawJson::new(spaced.as_bytes()).unwrap();
    assert_eq!(
        within("whitespace", BUDGET, || read_elements(raw)),
        (vec!["1"], false)
    );
    let commas = format!("[{}]", ",".repeat(MB));
    let raw = RawJson::new(commas.as_bytes()).unwrap();
    assert_eq!(
        within("commas", BUDGET, || read_elements(raw)),
        (vec![], true)
    );
    let missing = format!("[{}1 2]", "1,".repeat(MB / 2));
    let raw = RawJson::new(missing.as_bytes()).unwrap();
    let (items, early) = within("a fault at the end", BUDGET, || read_elements(raw));
    assert_eq!((items.len(), early), (MB / 2, true));
}
