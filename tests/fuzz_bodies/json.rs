//! The body of the `json` fuzz target: `rpcwire::json` (`RawJson`, `JsonStr`, the `Members` and
//! `Elements` iterators) on arbitrary bytes, against serde_json.
//!
//! A module of its own beside the other bodies in `mod.rs`. It panics (with
//! an assertion message) on a finding and never otherwise.
//!
//! What serde_json reads is taken level by level, as the reference classifier does
//! (`tests/reference/mod.rs`): the whole input validated as one `&RawValue` (the full
//! grammar, no number range, lone surrogate escapes allowed), the depth limit applied on the
//! validated text, each object read member by member in wire order with duplicates kept, each
//! string unescaped through serde_json's byte path (WTF-8), each number as a
//! `serde_json::Number`. A `serde_json::Value` would keep one of two duplicated members,
//! refuse `1E400` and `"\ud800"`, and (without `preserve_order`) lose the members' order.

// (The reference's readers: each string unescaped through serde_json's byte path, WTF-8, and
// each object's members in wire order with duplicates kept.)
use super::reference::{self, Members as OrderedMembers, Unescaped};

use rpcwire::{DecodeError, Elements, JsonKind, JsonStr, Lookup, Members, RawJson, ScanError};
use serde_json::value::RawValue;

/// The nesting limit of `RawJson::new` and `new_strict`: one under the default `max_depth`,
/// which counts the envelope.
const MAX_DEPTH: usize = reference::MAX_DEPTH - 1;

/// How many of an object's distinct keys are looked up one by one (each lookup walks the
/// whole object, so all of them would make a wide object quadratic).
const LOOKUPS: usize = 24;

/// Keys looked up in every object and checked absent when serde_json does not hold them:
/// an empty key, an escaped spelling's decoded text, and U+FFFD, which is how a lone
/// surrogate decodes but what it never equals.
const PROBES: [&str; 6] = ["", "a", "id", "\u{fffd}", "a/b", "~"];

/// Strict construction against serde_json, lazy construction against strict, then every
/// accessor: against serde_json on what strict mode takes, for termination and bounds on what
/// lazy mode takes.
pub fn json(data: &[u8]) {
    let strict = RawJson::parse_strict(data);
    let lazy = RawJson::parse(data);
    assert_eq!(RawJson::new_strict(data), strict.ok());
    assert_eq!(RawJson::new(data), lazy.ok());
    assert_eq!(RawJson::with_max_depth(data, MAX_DEPTH as u32), lazy.ok());
    check_refusals(data, strict, lazy);

    let expected = serde_reads(data);
    let within_depth = expected.filter(|raw| reference::depth(raw.as_bytes()) <= MAX_DEPTH);
    assert_eq!(
        strict.ok().map(|v| v.as_bytes()),
        within_depth.map(str::as_bytes),
        "strict construction and serde_json disagree on {:?}",
        lossy(data)
    );
    if expected.is_some() && within_depth.is_none() {
        let too_deep = Err(DecodeError::Syntax(ScanError::TooDeep));
        assert_eq!(strict, too_deep, "{:?}", lossy(data));
        assert_eq!(lazy, too_deep, "{:?}", lossy(data));
    }
    if let Ok(value) = strict {
        assert_eq!(lazy, Ok(value), "lazy refuses what strict takes");
        assert_eq!(
            value.as_bytes(),
            trimmed(data),
            "not the value without whitespace"
        );
        agree(value, within_depth.expect("serde_json reads it"));
    }
    if let Ok(value) = lazy {
        assert_eq!(
            value.as_bytes(),
            trimmed(data),
            "not the value without whitespace"
        );
        let unlimited = RawJson::with_max_depth(data, u32::MAX);
        assert_eq!(unlimited, Some(value), "a higher limit refuses it");
        walk(data, value, 0);
    }
}

/// The reasons both constructors give that are decided before the grammar: bytes that are
/// not UTF-8, nothing but whitespace.
fn check_refusals(
    data: &[u8],
    strict: Result<RawJson<'_>, DecodeError>,
    lazy: Result<RawJson<'_>, DecodeError>,
) {
    let utf8 = std::str::from_utf8(data).is_ok();
    for answer in [strict, lazy] {
        assert_eq!(
            answer == Err(DecodeError::InvalidUtf8),
            !utf8,
            "InvalidUtf8 said wrongly of {:?}",
            lossy(data)
        );
        let blank = utf8 && trimmed(data).is_empty();
        assert_eq!(
            answer == Err(DecodeError::Empty),
            blank,
            "Empty said wrongly"
        );
    }
}

/// The value serde_json reads from `data` (exactly one, whitespace around it allowed), as
/// its text without the whitespace; `None` when it refuses. Depth is not limited here.
fn serde_reads(data: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(data).ok()?;
    serde_json::from_str::<&RawValue>(text)
        .ok()
        .map(RawValue::get)
}

/// `data` without JSON's whitespace around it.
fn trimmed(data: &[u8]) -> &[u8] {
    let is_ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let start = data.iter().position(|b| !is_ws(b)).unwrap_or(data.len());
    let end = data
        .iter()
        .rposition(|b| !is_ws(b))
        .map_or(start, |i| i + 1);
    &data[start..end]
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ------------------------------------------------------------------ against serde_json

/// Checks that `value` reads, through every accessor, as serde_json reads `text` (the same
/// value's text, validated), and recursively each member and element.
fn agree(value: RawJson<'_>, text: &str) {
    assert_eq!(value.as_bytes(), text.as_bytes());
    assert_eq!(value.as_text(), text);
    assert_eq!(value.to_string(), text);
    assert_eq!(format!("{value:?}"), text);
    // Every part of a strictly valid value is one on its own.
    assert_eq!(RawJson::new_strict(value.as_bytes()), Some(value));
    let first = text.as_bytes()[0];
    assert_eq!(Some(value.kind()), JsonKind::of_first_byte(first), "{text}");
    assert_eq!(value.as_str().is_some(), first == b'"', "{text}");
    if first != b'{' {
        assert_not_an_object(value);
    }
    if first != b'[' {
        assert_not_an_array(value);
    }
    match first {
        b'{' => agree_object(value, text),
        b'[' => agree_array(value, text),
        b'"' => agree_string(value.as_str().unwrap(), text),
        b't' | b'f' | b'n' => {
            let want = serde_json::from_str::<serde_json::Value>(text).unwrap();
            assert!(want.is_boolean() || want.is_null(), "{text}");
            assert_eq!(value.as_i64(), None);
            assert_eq!(value.as_f64(), None);
        }
        _ => agree_number(value, text),
    }
}

/// A value that is no object: no members (and none missing), no key.
fn assert_not_an_object(value: RawJson<'_>) {
    let mut members = value.members();
    assert!(members.next().is_none(), "members of {value}");
    assert!(!members.stopped_early(), "{value}");
    assert_eq!(value.lookup("a"), Lookup::Absent, "{value}");
    assert_eq!(value.pointer("/a"), None, "{value}");
}

/// A value that is no array: no elements (and none missing).
fn assert_not_an_array(value: RawJson<'_>) {
    let mut elements = value.elements();
    assert!(elements.next().is_none(), "elements of {value}");
    assert!(!elements.stopped_early(), "{value}");
    // (`/0` names an object's member `0`.)
    if value.kind() != JsonKind::Object {
        assert_eq!(value.pointer("/0"), None, "{value}");
    }
}

fn agree_object(value: RawJson<'_>, text: &str) {
    let want = serde_json::from_str::<OrderedMembers<'_>>(text)
        .expect("a validated object")
        .0;
    let mut members = value.members();
    let got: Vec<_> = members.by_ref().collect();
    assert!(!members.stopped_early(), "{text}");
    assert_eq!(got.len(), want.len(), "member count of {text}");
    for ((key, member), (want_key, want_value)) in got.iter().zip(&want) {
        agree_key(*key, want_key, text);
        agree(*member, want_value.get());
    }
    // Lookups: a key serde_json holds once is found, one it holds twice or more is
    // ambiguous (`get` refuses it), one it does not hold is absent. Only keys a `&str` can
    // spell: one with a lone surrogate equals none.
    let mut keys: Vec<&str> = Vec::new();
    for (k, _) in &want {
        if let Ok(k) = std::str::from_utf8(k)
            && !keys.contains(&k)
            && keys.len() < LOOKUPS
        {
            keys.push(k);
        }
    }
    for key in keys.iter().copied().chain(PROBES) {
        let mut found = got
            .iter()
            .zip(&want)
            .filter(|(_, (k, _))| k == key.as_bytes())
            .map(|((_, member), _)| *member);
        let lookup = match (found.next(), found.next()) {
            (None, _) => Lookup::Absent,
            (Some(member), None) => Lookup::Found(member),
            (Some(_), Some(_)) => Lookup::Ambiguous,
        };
        assert_eq!(value.lookup(key), lookup, "{key:?} in {text}");
        let single = match lookup {
            Lookup::Found(member) => Some(member),
            _ => None,
        };
        assert_eq!(value.get(key), single, "{key:?} in {text}");
        assert_eq!(value.lookup_path(&[key]), lookup, "{key:?} in {text}");
        assert_eq!(value.get_path(&[key]), single, "{key:?} in {text}");
        let pointer = format!("/{}", key.replace('~', "~0").replace('/', "~1"));
        assert_eq!(value.pointer(&pointer), single, "{pointer:?} in {text}");
    }
}

/// A member's key reads as serde_json's (WTF-8 bytes, a lone surrogate as its three-byte
/// form).
fn agree_key(key: JsonStr<'_>, want: &[u8], text: &str) {
    assert_eq!(key.decode(), wtf8_lossy(want), "a key of {text}");
    assert_eq!(key.has_lone_surrogate(), std::str::from_utf8(want).is_err());
    if let Ok(want) = std::str::from_utf8(want) {
        assert!(key.eq_str(want), "{want:?} in {text}");
    }
}

fn agree_array(value: RawJson<'_>, text: &str) {
    let want: Vec<&RawValue> = serde_json::from_str(text).expect("a validated array");
    let mut elements = value.elements();
    let got: Vec<RawJson<'_>> = elements.by_ref().collect();
    assert!(!elements.stopped_early(), "{text}");
    assert_eq!(got.len(), want.len(), "element count of {text}");
    for (element, want) in got.iter().zip(&want) {
        agree(*element, want.get());
    }
    // (Each pointer step walks the array: the ends only.)
    if let (Some(first), Some(last)) = (got.first(), got.last()) {
        assert_eq!(value.pointer("/0"), Some(*first), "{text}");
        assert_eq!(value.pointer(&format!("/{}", got.len() - 1)), Some(*last));
    }
    assert_eq!(value.pointer(&format!("/{}", got.len())), None, "{text}");
}

fn agree_string(s: JsonStr<'_>, text: &str) {
    let want = serde_json::from_str::<Unescaped>(text)
        .expect("a validated string")
        .0;
    let lone_surrogate = std::str::from_utf8(&want).is_err();
    let decoded = s.decode();
    assert_eq!(decoded, wtf8_lossy(&want), "{text}");
    assert_eq!(s.raw(), &text.as_bytes()[1..text.len() - 1]);
    assert_eq!(s.has_escapes(), s.raw().contains(&b'\\'), "{text}");
    assert_eq!(s.chars().collect::<String>(), decoded, "{text}");
    assert_eq!(s.to_string(), decoded, "{text}");
    assert_eq!(s.has_lone_surrogate(), lone_surrogate, "{text}");
    let control = decoded.chars().any(|c| (c as u32) < 0x20);
    assert_eq!(s.has_control(), control, "{text}");
    // A lone surrogate equals no `&str`, its U+FFFD reading included.
    assert_eq!(s.eq_str(&decoded), !lone_surrogate, "{text}");
    assert!(!s.eq_str(&format!("{decoded}a")), "{text}");
}

/// Integers exactly as serde_json reads them (`-0` aside: `0` here, the float `-0.0`
/// there); floats correctly rounded (Rust's `f64` parser), and within 1e-15 of serde_json's
/// reading where it has one (its default parser is fast rather than exact), as
/// `tests/json_oracle.rs` holds them.
fn agree_number(value: RawJson<'_>, text: &str) {
    let serde = serde_json::from_str::<serde_json::Number>(text).ok();
    if text == "-0" {
        assert_eq!(value.as_i64(), Some(0));
    } else {
        assert_eq!(
            value.as_i64(),
            serde.as_ref().and_then(|n| n.as_i64()),
            "{text}"
        );
    }
    let exact: f64 = text.parse().expect("a JSON number is a Rust float");
    let got = value.as_f64();
    let want = exact.is_finite().then_some(exact);
    assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "{text}");
    if let (Some(exact), Some(serde)) = (want, serde.as_ref().and_then(|n| n.as_f64())) {
        // (Below `f64::MIN_POSITIVE` the unit in the last place stops shrinking: there the
        // tolerance is as many units as at the smallest normal number, about four.)
        let close = (serde - exact).abs() <= exact.abs().max(f64::MIN_POSITIVE) * 1e-15;
        assert!(close, "{text}: serde_json {serde:e}, exact {exact:e}");
    }
}

/// WTF-8 to a `String`, each lone surrogate (three bytes) as U+FFFD, as `JsonStr::decode`
/// gives it.
fn wtf8_lossy(mut b: &[u8]) -> String {
    let mut out = String::new();
    loop {
        match std::str::from_utf8(b) {
            Ok(s) => return out + s,
            Err(e) => {
                let ok = e.valid_up_to();
                out.push_str(std::str::from_utf8(&b[..ok]).unwrap());
                out.push(char::REPLACEMENT_CHARACTER);
                b = &b[(ok + 3).min(b.len())..];
            }
        }
    }
}

// --------------------------------------------------------------- what lazy mode takes

/// Walks a lazily accepted `value` (a part of `input`) through every accessor: nothing
/// panics, every iteration ends within as many steps as the value has bytes, yields parts of
/// the value in order, each one lazily valid value, and once ended stays ended with
/// `stopped_early` as it was; lookups answer as the iteration read the members.
fn walk(input: &[u8], value: RawJson<'_>, depth: usize) {
    assert!(depth <= MAX_DEPTH, "a walk deeper than the limit");
    let bytes = value.as_bytes();
    assert!(is_part(input, bytes), "a value outside the input");
    assert_eq!(value.as_text().as_bytes(), bytes);
    if let Some(s) = value.as_str() {
        assert!(is_part(bytes, s.raw()), "a string's body outside it");
        let decoded = s.decode();
        assert_eq!(s.chars().collect::<String>(), decoded);
        let _ = (s.eq_str(&decoded), s.has_lone_surrogate(), s.has_control());
    }
    if let Some(n) = value.as_i64() {
        assert!(
            n.to_string().as_bytes() == bytes || bytes == b"-0",
            "{value}"
        );
        assert!(
            value.as_f64().is_some(),
            "{value}: an integer but no number"
        );
    }
    let elements = walk_elements(input, value, depth);
    let members = walk_members(input, value, depth);
    if value.kind() != JsonKind::Array {
        assert_eq!(elements, (0, false), "{value}: elements of no array");
    }
    if value.kind() != JsonKind::Object {
        assert_eq!(members, (0, false), "{value}: members of no object");
    }
}

/// Iterates `value`'s elements to the end, checking each and walking into it; returns how
/// many there were and whether the iteration stopped early.
fn walk_elements(input: &[u8], value: RawJson<'_>, depth: usize) -> (usize, bool) {
    let bytes = value.as_bytes();
    let mut elements = value.elements();
    let mut items: Vec<RawJson<'_>> = Vec::new();
    loop {
        assert!(
            items.len() <= bytes.len(),
            "{value}: more elements than bytes"
        );
        assert!(
            !elements.stopped_early(),
            "{value}: stopped early before the end"
        );
        let Some(element) = elements.next() else {
            break;
        };
        check_item(
            bytes,
            element.as_bytes(),
            items.last().map(|e| e.as_bytes()),
            true,
        );
        items.push(element);
    }
    let early = elements.stopped_early();
    assert_stays_ended(&mut elements, early, Elements::stopped_early, value);
    for (i, item) in items.iter().enumerate().take(2) {
        assert_eq!(value.pointer(&format!("/{i}")), Some(*item), "{value}");
    }
    if value.kind() == JsonKind::Array {
        assert_eq!(value.pointer(&format!("/{}", items.len())), None, "{value}");
    }
    for item in &items {
        walk(input, *item, depth + 1);
    }
    (items.len(), early)
}

/// Iterates `value`'s members to the end, checking each and walking into it, then checks the
/// lookups against what was read; returns how many members there were and whether the
/// iteration stopped early.
fn walk_members(input: &[u8], value: RawJson<'_>, depth: usize) -> (usize, bool) {
    let bytes = value.as_bytes();
    let mut members = value.members();
    let mut items: Vec<(JsonStr<'_>, RawJson<'_>)> = Vec::new();
    loop {
        assert!(
            items.len() <= bytes.len(),
            "{value}: more members than bytes"
        );
        assert!(
            !members.stopped_early(),
            "{value}: stopped early before the end"
        );
        let Some((key, member)) = members.next() else {
            break;
        };
        let previous = items.last().map(|(_, v)| v.as_bytes());
        check_item(bytes, key.raw(), previous, false);
        check_item(bytes, member.as_bytes(), Some(key.raw()), true);
        let _ = key.decode();
        items.push((key, member));
    }
    let early = members.stopped_early();
    assert_stays_ended(&mut members, early, Members::stopped_early, value);
    if value.kind() == JsonKind::Object {
        check_lookups(value, &items, early);
    }
    for (_, member) in &items {
        walk(input, *member, depth + 1);
    }
    (items.len(), early)
}

/// Lookups against the members read: in an object whose iteration stopped early every key is
/// malformed; else a key read once is found, one read more often ambiguous, others absent.
fn check_lookups(object: RawJson<'_>, items: &[(JsonStr<'_>, RawJson<'_>)], early: bool) {
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in items {
        if !k.has_lone_surrogate() && keys.len() < LOOKUPS {
            keys.push(k.decode().into_owned());
        }
    }
    for key in keys.iter().map(String::as_str).chain(PROBES) {
        let mut found = items.iter().filter(|(k, _)| k.eq_str(key)).map(|(_, v)| *v);
        let want = match (early, found.next(), found.next()) {
            (true, _, _) => Lookup::Malformed,
            (false, None, _) => Lookup::Absent,
            (false, Some(member), None) => Lookup::Found(member),
            (false, Some(_), Some(_)) => Lookup::Ambiguous,
        };
        assert_eq!(object.lookup(key), want, "{key:?} in {object}");
    }
}

/// An item an iteration yielded (`item`, a part of the container `within`): inside it, past
/// its opening bracket and before its closing one, after the `previous` item, and, when it is
/// a value (not a key's body), exactly one lazily valid value, without whitespace around it.
fn check_item(within: &[u8], item: &[u8], previous: Option<&[u8]>, is_value: bool) {
    assert!(is_part(within, item), "an item outside its container");
    let offset = item.as_ptr() as usize - within.as_ptr() as usize;
    assert!(
        offset >= 1 && offset + item.len() < within.len(),
        "an item over a bracket"
    );
    if let Some(previous) = previous {
        let previous_end = previous.as_ptr() as usize + previous.len();
        assert!(item.as_ptr() as usize >= previous_end, "items out of order");
    }
    if is_value {
        let again = RawJson::with_max_depth(item, u32::MAX);
        assert_eq!(
            again.map(|v| v.as_bytes()),
            Some(item),
            "an item that is not one value: {:?}",
            lossy(item)
        );
    }
}

/// After the end: three more calls yield nothing, and `stopped_early` keeps its answer.
fn assert_stays_ended<I: Iterator>(
    iteration: &mut I,
    early: bool,
    stopped_early: fn(&I) -> bool,
    value: RawJson<'_>,
) {
    for _ in 0..3 {
        assert!(iteration.next().is_none(), "{value}: an item after the end");
        assert_eq!(
            stopped_early(iteration),
            early,
            "{value}: stopped_early changed"
        );
    }
}

/// Whether `part` lies within `whole` (the same memory, not equal bytes elsewhere).
fn is_part(whole: &[u8], part: &[u8]) -> bool {
    let (start, end) = (
        whole.as_ptr() as usize,
        whole.as_ptr() as usize + whole.len(),
    );
    let p = part.as_ptr() as usize;
    start <= p && p + part.len() <= end
}
