//! `rpcwire::json` read against serde_json: random documents (nested objects and arrays,
//! keys and strings spelled with every kind of escape, duplicate keys, numbers of every form,
//! whitespace between every two tokens, nesting up to the limit) are written as text, and
//! every accessor must read what serde_json reads from the same text: `kind`, `as_str`,
//! `as_i64`, `as_f64`, `members`, `elements`, `get`, `lookup` and `pointer`.
//!
//! A key that occurs more than once is where the two part ways on purpose: serde_json keeps
//! the last value, rpcwire refuses the key (`get` is `None`, `lookup` is `Ambiguous`), which is
//! the decoder's rule for a duplicated envelope member, escaped spellings included. Numbers
//! are the other: `as_f64` rounds correctly (it equals Rust's `f64` parser), where
//! serde_json's default parser is off by a few units in the last place at times.

mod common;

use proptest::prelude::*;
use rpcwire::{DecodeError, Decoder, JsonKind, Lookup, Member, RawJson};
use serde_json::Value;

/// A JSON document as generated: what it says, and how each string is to be spelled.
#[derive(Debug, Clone)]
enum Node {
    Null,
    Bool(bool),
    /// A number token, exactly as written.
    Number(String),
    /// A string: its characters, and one spelling choice per character.
    Str(Spelled),
    Array(Vec<Node>),
    /// Members in order, duplicates allowed.
    Object(Vec<(Spelled, Node)>),
}

/// A string with a spelling choice for each character (see [`write_string`]).
#[derive(Debug, Clone)]
struct Spelled {
    text: String,
    spelling: Vec<u8>,
}

/// Characters that exercise every path of string reading: ones that must be escaped, ones
/// with a short escape, multi-byte ones, one outside the BMP (a surrogate pair when escaped).
const CHARS: &[char] = &[
    'a', 'b', 'i', 'd', '"', '\\', '/', '\u{0}', '\u{8}', '\u{c}', '\n', '\r', '\t', '\u{1f}',
    '\u{7f}', 'é', '€', '\u{2028}', '\u{fffd}', '😀',
];

fn spelled(chars: impl Strategy<Value = Vec<char>>) -> impl Strategy<Value = Spelled> {
    chars.prop_flat_map(|chars| {
        let n = chars.len();
        (Just(chars), prop::collection::vec(0u8..4, n)).prop_map(|(chars, spelling)| Spelled {
            text: chars.into_iter().collect(),
            spelling,
        })
    })
}

/// A string over [`CHARS`].
fn any_string() -> impl Strategy<Value = Spelled> {
    spelled(prop::collection::vec(prop::sample::select(CHARS), 0..6))
}

/// A key from a small set, so that keys repeat (under different spellings too).
fn key() -> impl Strategy<Value = Spelled> {
    let keys = prop::sample::select(&["id", "a", "b", "", "\"", "é", "😀", "a/b", "~"][..]);
    spelled(keys.prop_map(|k| k.chars().collect()))
}

/// A number token of any form RFC 8259 allows: sign, zero or digits, fraction, exponent
/// (at most two exponent digits: a number beyond `f64` makes serde_json refuse the whole
/// document; those are read in `numbers_beyond_f64_are_none`).
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,2})?",
        // Integers around the edges of `i64` and `u64`.
        prop::sample::select(
            &[
                "9223372036854775807",
                "9223372036854775808",
                "-9223372036854775808",
                "-9223372036854775809",
                "18446744073709551615",
                "18446744073709551616",
                "-0",
                "0.0",
                "-0.0e-0",
                "1E+2",
                "4.9e-324",
                "2.2250738585072014e-308",
                "1.7976931348623157e308",
                "0.30000000000000004",
            ][..]
        )
        .prop_map(String::from),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(|x| format!("{x:e}")),
    ]
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        Just(Node::Null),
        any::<bool>().prop_map(Node::Bool),
        number().prop_map(Node::Number),
        any_string().prop_map(Node::Str),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Node::Array),
            prop::collection::vec((key(), inner), 0..5).prop_map(Node::Object),
        ]
    })
}

/// JSON's four whitespace bytes, in runs of up to three (often none).
fn whitespace() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[ \t\n\r]{0,3}", 1..16)
}

/// Writes `node` as JSON text, with whitespace from `ws` (in turn) between every two tokens.
struct Writer<'w> {
    out: String,
    ws: &'w [String],
    next_ws: usize,
}

impl Writer<'_> {
    fn ws(&mut self) {
        let ws = &self.ws[self.next_ws % self.ws.len()];
        self.next_ws += 1;
        self.out += ws;
    }

    fn node(&mut self, node: &Node) {
        self.ws();
        match node {
            Node::Null => self.out += "null",
            Node::Bool(b) => self.out += if *b { "true" } else { "false" },
            Node::Number(n) => self.out += n,
            Node::Str(s) => write_string(&mut self.out, s),
            Node::Array(elements) => {
                self.out.push('[');
                for (i, element) in elements.iter().enumerate() {
                    if i > 0 {
                        self.ws();
                        self.out.push(',');
                    }
                    self.node(element);
                }
                self.ws();
                self.out.push(']');
            }
            Node::Object(members) => {
                self.out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        self.ws();
                        self.out.push(',');
                    }
                    self.ws();
                    write_string(&mut self.out, key);
                    self.ws();
                    self.out.push(':');
                    self.node(value);
                }
                self.ws();
                self.out.push('}');
            }
        }
        self.ws();
    }
}

fn text_of(node: &Node, ws: &[String]) -> String {
    let mut writer = Writer {
        out: String::new(),
        ws,
        next_ws: 0,
    };
    writer.node(node);
    writer.out
}

/// Writes `s` quoted, each character spelled as chosen: 0 as itself where JSON allows, 1 by
/// its short escape where it has one, 2 and 3 as `\u` escapes in lower and upper case (a
/// surrogate pair outside the BMP). A character that cannot stand as itself is escaped.
fn write_string(out: &mut String, s: &Spelled) {
    out.push('"');
    for (c, &how) in s.text.chars().zip(&s.spelling) {
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '/' => Some("\\/"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            _ => None,
        };
        let must_escape = matches!(c, '"' | '\\') || (c as u32) < 0x20;
        match (how, short) {
            (0, _) if !must_escape => out.push(c),
            (0 | 1, Some(short)) => *out += short,
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    *out += &if how == 3 {
                        format!("\\u{unit:04X}")
                    } else {
                        format!("\\u{unit:04x}")
                    };
                }
            }
        }
    }
    out.push('"');
}

/// Checks that `raw` reads as `value` (serde_json's reading of the same text) and as `node`
/// (the generated document: member order, duplicates) says, through every accessor.
fn agree(raw: RawJson<'_>, node: &Node, value: &Value) -> Result<(), TestCaseError> {
    let text = raw.as_text();
    prop_assert_eq!(raw.as_bytes(), text.as_bytes());
    prop_assert!(!text.starts_with([' ', '\t', '\n', '\r']), "{:?}", text);
    prop_assert!(!text.ends_with([' ', '\t', '\n', '\r']), "{:?}", text);
    let kind = match value {
        Value::Null => JsonKind::Null,
        Value::Bool(_) => JsonKind::Bool,
        Value::Number(_) => JsonKind::Number,
        Value::String(_) => JsonKind::String,
        Value::Array(_) => JsonKind::Array,
        Value::Object(_) => JsonKind::Object,
    };
    prop_assert_eq!(raw.kind(), kind, "{}", text);
    prop_assert_eq!(raw.as_str().is_some(), value.is_string(), "{}", text);
    // Only containers have items; no item read means the iteration ended cleanly.
    let mut members = raw.members();
    let mut elements = raw.elements();
    if !value.is_object() {
        prop_assert!(members.next().is_none());
        prop_assert!(!members.stopped_early());
        prop_assert_eq!(raw.lookup("a"), Lookup::Absent);
    }
    if !value.is_array() {
        prop_assert!(elements.next().is_none());
        prop_assert!(!elements.stopped_early());
    }
    match (node, value) {
        (Node::Number(token), Value::Number(n)) => agree_number(raw, token, n)?,
        (Node::Str(_), Value::String(s)) => {
            let got = raw.as_str().unwrap();
            prop_assert_eq!(&got.decode(), s, "{}", text);
            prop_assert!(got.eq_str(s), "{}", text);
            prop_assert_eq!(got.chars().collect::<String>(), s.clone());
            prop_assert_eq!(got.to_string(), s.clone());
            prop_assert_eq!(got.has_escapes(), got.raw().contains(&b'\\'));
            prop_assert!(!got.has_lone_surrogate());
            prop_assert_eq!(got.has_control(), s.chars().any(|c| (c as u32) < 0x20));
        }
        (Node::Array(nodes), Value::Array(values)) => {
            let mut elements = raw.elements();
            let got: Vec<RawJson<'_>> = elements.by_ref().collect();
            prop_assert!(!elements.stopped_early(), "{}", text);
            prop_assert_eq!(got.len(), values.len(), "{}", text);
            for (i, ((element, node), value)) in got.iter().zip(nodes).zip(values).enumerate() {
                agree(*element, node, value)?;
                prop_assert_eq!(raw.pointer(&format!("/{i}")), Some(*element));
            }
            prop_assert_eq!(raw.pointer(&format!("/{}", values.len())), None);
        }
        (Node::Object(nodes), Value::Object(values)) => {
            let mut members = raw.members();
            let got: Vec<_> = members.by_ref().collect();
            prop_assert!(!members.stopped_early(), "{}", text);
            prop_assert_eq!(got.len(), nodes.len(), "{}", text);
            for ((key, member), (spelled, node)) in got.iter().zip(nodes) {
                prop_assert_eq!(&key.decode(), &spelled.text, "{}", text);
                prop_assert!(key.eq_str(&spelled.text));
                let times = nodes.iter().filter(|(k, _)| k.text == spelled.text).count();
                let pointer = format!("/{}", spelled.text.replace('~', "~0").replace('/', "~1"));
                if times == 1 {
                    // Unique: serde_json holds this member's value, and so does rpcwire.
                    agree(*member, node, &values[&spelled.text])?;
                    prop_assert_eq!(raw.get(&spelled.text), Some(*member));
                    prop_assert_eq!(raw.lookup(&spelled.text), Lookup::Found(*member));
                    prop_assert_eq!(raw.pointer(&pointer), Some(*member));
                } else {
                    // Duplicated: serde_json keeps the last, rpcwire refuses the key.
                    let value = serde_json::from_str::<Value>(member.as_text()).unwrap();
                    agree(*member, node, &value)?;
                    prop_assert_eq!(raw.get(&spelled.text), None, "{}", text);
                    prop_assert_eq!(raw.lookup(&spelled.text), Lookup::Ambiguous);
                    prop_assert_eq!(raw.pointer(&pointer), None);
                }
            }
            // A key serde_json does not hold is absent here too.
            for probe in ["id", "a", "b", "", "x", "ID", "a\\/b"] {
                if !values.contains_key(probe) {
                    prop_assert_eq!(raw.lookup(probe), Lookup::Absent, "{} in {}", probe, text);
                }
            }
        }
        (Node::Null, Value::Null) => prop_assert_eq!(text, "null"),
        (Node::Bool(b), Value::Bool(v)) => {
            prop_assert_eq!(b, v);
            prop_assert_eq!(text, if *b { "true" } else { "false" });
        }
        _ => prop_assert!(false, "the oracle read {} as {:?}", text, value),
    }
    Ok(())
}

/// `as_f64` is the correctly rounded value of the token (Rust's `f64` parser), and serde_json's
/// to 15 digits; `as_i64` is serde_json's integer (`-0` aside: 0 here, the float `-0.0` there).
fn agree_number(
    raw: RawJson<'_>,
    token: &str,
    n: &serde_json::Number,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(raw.as_text(), token);
    let exact: f64 = token.parse().unwrap();
    let got = raw.as_f64();
    prop_assert_eq!(got.map(f64::to_bits), Some(exact.to_bits()), "{}", token);
    // (serde_json's own reading strays a few units in the last place at times, as its
    // default `f64` parser is fast rather than exact: it must agree to 15 digits. Below
    // `f64::MIN_POSITIVE` the unit in the last place stops shrinking, so there the bound is
    // that of the smallest normal number: `922337200368547753e-327` strays further.)
    let serde = n.as_f64().unwrap();
    let close = (serde - exact).abs() <= exact.abs().max(f64::MIN_POSITIVE) * 1e-15;
    prop_assert!(close, "{}: serde_json {} exact {}", token, serde, exact);
    if token == "-0" {
        prop_assert_eq!(raw.as_i64(), Some(0));
    } else {
        prop_assert_eq!(raw.as_i64(), n.as_i64(), "{}", token);
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::cases(512))]

    /// Every accessor reads a random document as serde_json does.
    #[test]
    fn accessors_agree_with_serde_json(node in node(), ws in whitespace()) {
        let text = text_of(&node, &ws);
        let value: Value = serde_json::from_str(&text).expect("the generator writes JSON");
        let raw = RawJson::new(text.as_bytes()).expect("RawJson::new takes JSON");
        prop_assert_eq!(RawJson::new_strict(text.as_bytes()), Some(raw));
        prop_assert_eq!(raw.as_text(), text.trim_matches([' ', '\t', '\n', '\r']));
        agree(raw, &node, &value)?;
    }

    /// Nested up to 127 levels a value is taken and read to its bottom; one level more it
    /// is refused, as serde_json refuses it.
    #[test]
    fn nesting_up_to_the_limit(
        path in prop::collection::vec((any::<bool>(), key()), 120..=130),
        leaf in node(),
    ) {
        let mut text = text_of(&leaf, &[String::new()]);
        let depth = path.len() + node_depth(&leaf);
        let mut pointer = String::new();
        for (in_array, key) in path.iter().rev() {
            text = if *in_array {
                format!("[{text}]")
            } else {
                let mut k = String::new();
                write_string(&mut k, key);
                format!("{{{k}:{text}}}")
            };
        }
        for (in_array, key) in &path {
            pointer += "/";
            pointer += &if *in_array { "0".into() } else { key.text.replace('~', "~0").replace('/', "~1") };
        }
        let serde_reads = serde_json::from_str::<Value>(&text).is_ok();
        let raw = RawJson::new(text.as_bytes());
        prop_assert_eq!(raw.is_some(), depth <= 127, "depth {}", depth);
        prop_assert_eq!(serde_reads, depth <= 127, "depth {}", depth);
        if let Some(raw) = raw {
            let bottom = raw.pointer(&pointer).expect("the path leads down");
            prop_assert_eq!(bottom.as_text(), text_of(&leaf, &[String::new()]));
        }
    }

    /// The decoder's rule for a duplicated envelope member is `lookup`'s for any key, however
    /// the key is spelled: `"\u0069d"` is `"id"`.
    #[test]
    fn duplicate_envelope_members_are_refused_as_lookup_refuses_them(
        spellings in prop::collection::vec(prop::collection::vec(0u8..4, 7), 5),
        order in Just([0usize, 1, 2, 3, 4]).prop_shuffle(),
        duplicate in prop::option::of(0usize..4),
    ) {
        let members = [("jsonrpc", "\"2.0\""), ("id", "7"), ("method", "\"m\""), ("params", "{}")];
        let mut parts = Vec::new();
        for (slot, spelling) in order.iter().zip(&spellings) {
            let Some(&(name, value)) = members.get(*slot).or(duplicate.map(|d| &members[d])) else {
                continue;
            };
            let mut key = String::new();
            write_string(&mut key, &Spelled { text: name.into(), spelling: spelling.clone() });
            parts.push(format!("{key}:{value}"));
        }
        let frame = format!("{{{}}}", parts.join(","));
        let object = RawJson::new(frame.as_bytes()).unwrap();
        for (i, (name, _)) in members.iter().enumerate() {
            let want = if duplicate == Some(i) { Lookup::Ambiguous } else {
                Lookup::Found(RawJson::new(members[i].1.as_bytes()).unwrap())
            };
            prop_assert_eq!(object.lookup(name), want, "{}", frame);
        }
        let decoded = Decoder::jsonrpc().decode(frame.as_bytes());
        match duplicate {
            None => prop_assert!(decoded.is_ok(), "{}", frame),
            Some(i) => {
                let member = [Member::JsonRpc, Member::Id, Member::Method, Member::Params][i];
                prop_assert_eq!(decoded.unwrap_err().error(), DecodeError::DuplicateMember(member), "{}", frame);
            }
        }
    }
}

/// How many containers `node` nests.
fn node_depth(node: &Node) -> usize {
    match node {
        Node::Array(items) => 1 + items.iter().map(node_depth).max().unwrap_or(0),
        Node::Object(members) => {
            1 + members
                .iter()
                .map(|(_, v)| node_depth(v))
                .max()
                .unwrap_or(0)
        }
        _ => 0,
    }
}

/// A number beyond `f64` is `None` (serde_json refuses such a document), one below the
/// smallest subnormal is zero, as serde_json reads it: three-digit exponents of both signs.
/// At the very top of the range rpcwire rounds correctly where serde_json's default parser
/// does not: `1.7976931348623158e308` is `f64::MAX` (it lies below the halfway point to the
/// next power of two), which serde_json refuses as out of range.
#[test]
fn numbers_beyond_f64_are_none() {
    for token in [
        "1e400",
        "-1e400",
        "1e309",
        "1.8e308",
        "1e-400",
        "-1e-400",
        "1e-324",
        "2.5e-324",
        "123e-330",
        "0e999",
        "-0e-999",
        "1.7976931348623157e308",
        "1.7976931348623159e308",
    ] {
        let raw = RawJson::new(token.as_bytes()).unwrap();
        let serde = serde_json::from_str::<Value>(token).ok();
        let want = serde.as_ref().and_then(Value::as_f64);
        assert_eq!(
            raw.as_f64().map(f64::to_bits),
            want.map(f64::to_bits),
            "{token}"
        );
        let exact: f64 = token.parse().unwrap();
        assert_eq!(raw.as_f64(), exact.is_finite().then_some(exact), "{token}");
    }
    let edge = RawJson::new(b"1.7976931348623158e308").unwrap();
    assert_eq!(edge.as_f64(), Some(f64::MAX));
    assert!(serde_json::from_str::<Value>("1.7976931348623158e308").is_err());
}

/// Every ASCII character spelled as a `\u` escape reads as serde_json reads it, and is a
/// control character (`has_control`) exactly when serde_json's reading is below U+0020. The
/// generated strings hold no character just past that range, so an escaped space was never
/// asked about.
#[test]
fn escaped_ascii_is_a_control_character_below_a_space() {
    for unit in 0..0x80u32 {
        let text = format!("\"\\u{unit:04x}\"");
        let raw = RawJson::new(text.as_bytes()).unwrap();
        let got = raw.as_str().unwrap();
        let Ok(Value::String(want)) = serde_json::from_str::<Value>(&text) else {
            panic!("{text}");
        };
        assert_eq!(got.decode(), want, "{text}");
        assert!(got.eq_str(&want), "{text}");
        assert_eq!(got.has_control(), want.chars().any(|c| c < ' '), "{text}");
    }
}
