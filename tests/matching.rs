//! Reply matching and id reuse, driven by the `context` of the shared vectors (`matching`,
//! `id_reuse`, and the cancellation case), in both dialects and, where a case has one, the
//! hardened profile; plus the canonical-key rules.

mod common;

use rpcwire::{Id, IdKey, InFlight, InFlightError, Message};

fn ids(v: &serde_json::Value) -> Vec<Vec<u8>> {
    v.as_array().map_or(vec![], |a| {
        a.iter()
            .map(|s| s.as_str().unwrap().as_bytes().to_vec())
            .collect()
    })
}

#[test]
fn matching_and_id_reuse_vectors() {
    let mut ran = 0;
    for case in common::load("envelope.jsonl") {
        let cat = case["cat"].as_str().unwrap();
        let Some(ctx) = case.get("ctx") else { continue };
        let name = case["name"].as_str().unwrap();
        let frame = common::input(&case);
        // The hardened expectation (a hardened decoder, in either dialect, refuses a duplicate
        // in-flight id as MCP does), where the case has one.
        let profiles = ["jsonrpc2", "mcp", "hardened/jsonrpc2", "hardened/mcp"];
        for dialect in profiles
            .into_iter()
            .filter(|p| case.get(exp_key(p)).is_some())
        {
            let exp = &case[exp_key(dialect)];
            let decoder = decoder_for(dialect, case["dir"].as_str().unwrap());
            let mut table = InFlight::new(64);
            for id in ids(&ctx["pending_ids"])
                .iter()
                .chain(&ids(&ctx["in_flight_ids"]))
                .chain(&ids(&ctx["cancelled_ids"]))
            {
                table.insert(Id::from_token(id).unwrap(), ()).unwrap();
            }
            // Cancelled requests are no longer pending; completed ids were removed on reply.
            for id in ids(&ctx["cancelled_ids"]) {
                assert!(table.remove(Id::from_token(&id).unwrap()).is_some());
            }
            match cat {
                "matching" => {
                    let msg = decoder.decode(&frame).unwrap();
                    let got = table.remove(msg.id().unwrap());
                    match exp["c"].as_str().unwrap() {
                        "match" => {
                            let (original, ()) =
                                got.unwrap_or_else(|| panic!("{name}/{dialect}: no match"));
                            assert_eq!(
                                original.as_id().raw(),
                                exp["matches"].as_str().unwrap().as_bytes()
                            );
                        }
                        "no_match" => assert!(got.is_none(), "{name}/{dialect}: unexpected match"),
                        other => panic!("{other}"),
                    }
                }
                "id_reuse" => {
                    let Ok(Message::Request(req)) = decoder.decode(&frame) else {
                        panic!("{name}")
                    };
                    let admitted = table.insert(req.id, ());
                    // JSON-RPC does not forbid a duplicate in-flight id; MCP does.
                    let class = match (admitted, dialect) {
                        (Ok(()), _) | (Err(InFlightError::Duplicate), "jsonrpc2") => "request",
                        (Err(InFlightError::Duplicate), _) => "invalid",
                        (Err(e), _) => panic!("{e:?}"),
                    };
                    assert_eq!(class, exp["c"].as_str().unwrap(), "{name}/{dialect}");
                    if class == "request" {
                        let id = exp["id"].as_str().unwrap();
                        assert_eq!(req.id.raw(), id.as_bytes(), "{name}/{dialect}: id");
                        let method = exp["m"].as_str().unwrap();
                        assert!(req.method.eq_str(method), "{name}/{dialect}: method");
                    }
                    // The refusal's reply: the table's code, under the request's id.
                    if let Some(r) = exp["r"].as_array() {
                        let code = admitted.unwrap_err().code().get();
                        assert_eq!(code, r[0].as_i64().unwrap(), "{name}/{dialect}: code");
                        let id = r[1].as_str().unwrap();
                        assert_eq!(req.id.raw(), id.as_bytes(), "{name}/{dialect}: reply id");
                    }
                }
                _ => {
                    // The cancellation vector: its requestId must not match a string id.
                    let Ok(Message::Notification(n)) = decoder.decode(&frame) else {
                        panic!("{name}")
                    };
                    let c = rpcwire::mcp::Cancelled::from_notification(&n).unwrap();
                    assert!(table.remove(c.request_id).is_none(), "{name}/{dialect}");
                }
            }
            ran += 1;
        }
    }
    assert_eq!(ran, 20);
}

/// The expectation object of a profile: a dialect's, or the case's `hardened` one.
fn exp_key(profile: &str) -> &str {
    if profile.starts_with("hardened/") {
        "hardened"
    } else {
        profile
    }
}

/// The decoder of a profile: a dialect's (see `common::decoder_for`), or a hardened one.
fn decoder_for(profile: &str, dir: &str) -> rpcwire::Decoder {
    let Some(dialect) = profile.strip_prefix("hardened/") else {
        return common::decoder_for(profile, dir);
    };
    let mut options = *common::decoder_for(dialect, dir).options();
    options.hardened = true;
    options.limits = rpcwire::Limits::HARDENED;
    rpcwire::Decoder::new(options)
}

fn key(token: &[u8]) -> IdKey {
    IdKey::of(Id::from_token(token).unwrap())
}

#[test]
fn canonical_keys() {
    let same = [
        (&b"1"[..], &b"1.0"[..]),
        (b"1", b"10e-1"),
        (b"0", b"-0"),
        (b"0", b"0.000e5"),
        (b"150", b"1.5E2"),
        // An exponent's sign may be spelt out.
        (b"150", b"1.5e+2"),
        (b"-0.05", b"-5E-2"),
        (b"-0.05", b"-5e-2"),
        (br#""a""#, br#""\u0061""#),
        (br#""\/""#, br#""/""#),
        (b"1E400", b"10E399"),
        // Exponents of any length, summed exactly.
        (&b"1e1000000000000000000"[..], &b"10e999999999999999999"[..]),
        (b"1e1000000000000000000", b"0.1e1000000000000000001"),
        (b"123e0000000000000000000000004", b"1.23e6"),
        (
            b"-5e-99999999999999999999",
            b"-0.0005e-99999999999999999995",
        ),
        (
            b"1e10000000000000000000000",
            b"100000e09999999999999999999995",
        ),
        (b"0e99999999999999999999999", b"0"),
    ];
    for (a, b) in same {
        assert_eq!(
            key(a),
            key(b),
            "{} = {}",
            String::from_utf8_lossy(a),
            String::from_utf8_lossy(b)
        );
    }
    let different = [
        (&b"1"[..], &br#""1""#[..]),
        (b"9007199254740992", b"9007199254740993"),
        (b"1", b"-1"),
        (b"0.1", b"1"),
        (b"null", br#""null""#),
        (b"15", b"1.5"),
        // No saturation merges two long exponents.
        (
            &b"1e9223372036854775807"[..],
            &b"1e99999999999999999999"[..],
        ),
        (b"1e-9223372036854775807", b"1e-99999999999999999999"),
        (b"1e1000000000000000000", b"1e999999999999999999"),
        (b"1e-1000000000000000000", b"1e-999999999999999999"),
        (b"1e100000000000000000000", b"1e100000000000000000001"),
        // UUID strings, which key packed: the case of their letters, and a pair of bytes
        // that are no hex digits, whichever way the bytes of a pair combine.
        (
            br#""AB000000-0000-0000-0000-0000000000CD""#,
            br#""ab000000-0000-0000-0000-0000000000cd""#,
        ),
        (
            br#""gg000000-0000-0000-0000-000000000000""#,
            br#""00000000-0000-0000-0000-000000000000""#,
        ),
        (
            br#""GG000000-0000-0000-0000-000000000000""#,
            br#""gg000000-0000-0000-0000-000000000000""#,
        ),
        // A pair's high digit, even or odd, beside a letter.
        (
            br#""0a000000-0000-0000-0000-000000000000""#,
            br#""1a000000-0000-0000-0000-000000000000""#,
        ),
        // Thirty-six hex digits, no hyphen: a string of a UUID's length whose bytes where the
        // hyphens go differ (packed without those bytes, each pair would share a key).
        (
            br#""000000001000000000000000000000000000""#,
            br#""000000000000000000000000000000000000""#,
        ),
        (
            br#""ffffffffffffffffffffffffffffffffffff""#,
            br#""fffffffffffffffffffffffaffffffffffff""#,
        ),
    ];
    for (a, b) in different {
        assert_ne!(
            key(a),
            key(b),
            "{} != {}",
            String::from_utf8_lossy(a),
            String::from_utf8_lossy(b)
        );
    }
    // Strings compare code unit by code unit (RFC 8259 §8.3): two different lone
    // surrogates are two different ids (one a last bit apart too), and none is U+FFFD, nor
    // U+0800 (its UTF-8, `e0 a0 80`, is the WTF-8 of `\ud800`, `ed a0 80`, without the code
    // unit's top four bits); a pair is its character.
    let lone = [
        &br#""\ud800""#[..],
        br#""\ud801""#,
        br#""\u0800""#,
        br#""\udbff""#,
        br#""\udc00""#,
        br#""\ufffd""#,
        "\"\u{fffd}\"".as_bytes(),
        br#""a\ud800""#,
    ];
    for (i, a) in lone.iter().enumerate() {
        for b in &lone[i + 1..] {
            let is_fffd = |t: &[u8]| t == br#""\ufffd""# || t == "\"\u{fffd}\"".as_bytes();
            let same = is_fffd(a) && is_fffd(b);
            assert_eq!(
                key(a) == key(b),
                same,
                "{} vs {}",
                String::from_utf8_lossy(a),
                String::from_utf8_lossy(b)
            );
        }
    }
    assert_eq!(key(br#""\ud800""#), key(br#""\uD800""#));
    assert_eq!(key(br#""\ud83d\ude00""#), key("\"\u{1f600}\"".as_bytes()));
    let lenient = |t: &[u8]| IdKey::with(Id::from_token(t).unwrap(), true);
    assert_eq!(lenient(br#""123""#), lenient(b"123"));
    assert_ne!(lenient(br#""12a""#), lenient(b"12"));
}

/// Every printable ASCII byte (but `"` and `\`) in every place of a UUID string, lowercase,
/// uppercase and digits only: the key packs into 16 bytes (17 with its tag) exactly when the
/// string is hex digits of one case with its four hyphens, and no two different strings
/// share a key, so no byte around the hex digits (`:` past `9`, `g` past `f`, `` ` `` before
/// `a`) is read as one, and each digit keeps its own value.
#[test]
fn uuid_keys_pack_exactly_the_hex_digits() {
    let is_uuid = |s: &[u8]| {
        let hyphens = [8, 13, 18, 23];
        let digits = || {
            s.iter()
                .enumerate()
                .filter(|(at, _)| !hyphens.contains(at))
                .map(|(_, &c)| c)
        };
        s.len() == 36
            && hyphens.iter().all(|&at| s[at] == b'-')
            && digits().all(|c| c.is_ascii_hexdigit())
            && !(digits().any(|c| c.is_ascii_lowercase())
                && digits().any(|c| c.is_ascii_uppercase()))
    };
    let mut keys = std::collections::HashMap::new();
    for base in [
        "0f8fad5b-d9cb-469f-a165-70867728950e",
        "0F8FAD5B-D9CB-469F-A165-70867728950E",
        "01234567-8901-2345-6789-012345678901",
    ] {
        for at in 0..base.len() {
            for c in (b' '..=b'~').filter(|&c| c != b'"' && c != b'\\') {
                let mut s = base.as_bytes().to_vec();
                s[at] = c;
                let token = [&b"\""[..], &s, b"\""].concat();
                let key = key(&token);
                let len = if is_uuid(&s) { 17 } else { 37 };
                let shown = String::from_utf8(token).unwrap();
                assert_eq!(key.encoded_len(), len, "{shown}");
                if let Some(other) = keys.insert(key, shown.clone()) {
                    assert_eq!(other, shown, "two strings, one key");
                }
            }
        }
    }
}

#[test]
fn capacity_and_drain() {
    let mut t = InFlight::new(2);
    t.insert(Id::from_token(b"1").unwrap(), 'a').unwrap();
    t.insert(Id::from_token(b"2").unwrap(), 'b').unwrap();
    assert_eq!(
        t.insert(Id::from_token(b"3").unwrap(), 'c'),
        Err(InFlightError::Full { limit: 2 })
    );
    assert_eq!((t.len(), t.is_empty()), (2, false));
    assert!(t.contains(Id::from_token(b"2.0").unwrap()));
    assert!(!t.contains(Id::from_token(b"3").unwrap()));
    let mut left: Vec<_> = t
        .drain()
        .map(|(id, v)| (id.as_id().raw().to_vec(), v))
        .collect();
    left.sort();
    assert_eq!(left, [(b"1".to_vec(), 'a'), (b"2".to_vec(), 'b')]);
    assert!(t.is_empty());
    // A reused id is a duplicate, however full the table (MCP answers it -32600).
    let mut t = InFlight::new(1);
    t.insert(Id::from_token(b"7").unwrap(), ()).unwrap();
    assert_eq!(
        t.insert(Id::from_token(b"7.0").unwrap(), ()),
        Err(InFlightError::Duplicate)
    );
    assert_eq!(
        t.insert(Id::from_token(b"8").unwrap(), ()),
        Err(InFlightError::Full { limit: 1 })
    );
}

/// `iter`, `iter_mut` and `retain` visit every request once, with its id as it was spelled;
/// `retain` gives back the bytes of what it removes, so the budget admits new requests, and
/// the requests it keeps are still found by any spelling of their ids.
#[test]
fn iterating_and_retaining_the_requests_in_flight() {
    let mut t = InFlight::new(8).max_bytes(20);
    for (token, steps) in [(&b"1.0"[..], 1_u32), (br#""\u0061""#, 2), (b"300", 3)] {
        t.insert_with_extra(Id::from_token(token).unwrap(), 1, steps)
            .unwrap();
    }
    assert_eq!(t.bytes(), 4 + 9 + 4);
    let mut seen: Vec<_> = t.iter().map(|(id, &v)| (id.raw().to_vec(), v)).collect();
    seen.sort();
    let spelled = [
        (br#""\u0061""#.to_vec(), 2),
        (b"1.0".to_vec(), 1),
        (b"300".to_vec(), 3),
    ];
    assert_eq!(seen, spelled);
    for (_, steps) in t.iter_mut() {
        *steps *= 10;
    }
    assert_eq!(t.get(Id::from_token(b"1").unwrap()), Some(&10));
    assert_eq!(t.bytes(), 17, "iter_mut changes no count");
    // The finished call (10 steps) is answered and let go.
    let mut answered = Vec::new();
    t.retain(|id, steps| {
        if *steps == 10 {
            answered.push(id.raw().to_vec());
        }
        *steps != 10
    });
    assert_eq!(answered, [b"1.0".to_vec()]);
    assert_eq!((t.len(), t.bytes()), (2, 17 - 4));
    assert!(!t.contains(Id::from_token(b"1").unwrap()));
    assert_eq!(t.get(Id::from_token(br#""a""#).unwrap()), Some(&20));
    // The bytes given back make room for a request the budget refused before.
    let four = Id::from_token(b"4").unwrap();
    assert_eq!(
        t.insert_with_extra(four, 7, 0),
        Err(InFlightError::OverBudget { budget: 20 })
    );
    t.retain(|_, steps| *steps != 20);
    assert_eq!(t.bytes(), 4);
    t.insert_with_extra(four, 7, 0).unwrap();
    t.retain(|_, _| false);
    assert_eq!((t.len(), t.bytes()), (0, 0));
}

/// After a burst is answered, `shrink_to_fit` gives the table's room back; every request
/// still in flight is found by any spelling of its id, with its value, spelling and bytes.
#[test]
fn shrink_to_fit_gives_back_what_a_burst_left_and_keeps_the_requests_in_flight() {
    let mut t = InFlight::new(100_000);
    let spell = |n: usize| match n % 3 {
        0 => n.to_string(),
        1 => format!("\"s{n}\""),
        _ => format!("{n}.0"),
    };
    for n in 0..10_000 {
        t.insert(Id::from_token(spell(n).as_bytes()).unwrap(), n)
            .unwrap();
    }
    let kept: Vec<usize> = (0..10_000).filter(|n| n % 1000 == 7).collect();
    for n in (0..10_000).filter(|n| !kept.contains(n)) {
        assert_eq!(
            t.remove(Id::from_token(spell(n).as_bytes()).unwrap())
                .unwrap()
                .1,
            n
        );
    }
    let (peak, bytes) = (t.capacity(), t.bytes());
    t.shrink_to_fit();
    assert!(
        t.capacity() >= kept.len() && t.capacity() < peak / 100,
        "{} of {peak}",
        t.capacity()
    );
    assert_eq!((t.len(), t.bytes()), (kept.len(), bytes));
    for &n in &kept {
        let spelled = spell(n);
        // `7.0` is found as `7` and `70e-1` as well.
        let other = if n % 3 == 2 {
            format!("{n}0e-1")
        } else {
            spelled.clone()
        };
        assert_eq!(t.get(Id::from_token(other.as_bytes()).unwrap()), Some(&n));
        let (id, value) = t
            .remove(Id::from_token(spelled.as_bytes()).unwrap())
            .unwrap();
        assert_eq!((id.as_id().raw(), value), (spelled.as_bytes(), n));
    }
    assert_eq!(t.bytes(), 0);
    // `shrink_to` keeps the room asked for, when the table had it.
    for n in 0..1000 {
        t.insert(Id::from_token(spell(n).as_bytes()).unwrap(), n)
            .unwrap();
    }
    t.drain().for_each(drop);
    t.shrink_to(500);
    assert!((500..1000).contains(&t.capacity()), "{}", t.capacity());
}

/// `reserve` claims an id as `insert` would check it; the reservation keeps the id as the
/// request spelled it, and dropping it leaves the table unchanged.
#[test]
fn reserving_an_id_before_its_value() {
    let mut t = InFlight::new(1);
    let reserved = t.reserve(Id::from_token(b"1.0").unwrap()).unwrap();
    assert_eq!(reserved.id().raw(), b"1.0");
    drop(reserved);
    assert!(t.is_empty());
    t.reserve(Id::from_token(b"1.0").unwrap())
        .unwrap()
        .insert('a');
    assert_eq!(t.get(Id::from_token(b"1").unwrap()), Some(&'a'));
    assert_eq!(
        t.reserve(Id::from_token(b"1").unwrap()).unwrap_err(),
        InFlightError::Duplicate
    );
    assert_eq!(
        t.reserve(Id::from_token(b"2").unwrap()).unwrap_err(),
        InFlightError::Full { limit: 1 }
    );
    let (id, value) = t.remove(Id::from_token(b"1").unwrap()).unwrap();
    assert_eq!((id.as_id().raw(), value), (&b"1.0"[..], 'a'));
}

proptest::proptest! {
    /// Exponents too long for a machine integer: a number keys the same as the same value
    /// spelled with its mantissa shifted (the exponent then differs by a carry or a borrow
    /// through its digits), and differently from its neighbours.
    #[test]
    fn long_exponents_are_exact(
        mantissa in 1u32..1_000_000,
        high in "[1-9][0-9]{0,6}",
        low in proptest::prop_oneof![proptest::strategy::Just(0u64), proptest::strategy::Just(999_999_999_999_999_999), 0u64..1_000_000_000_000_000_000],
        shift in 0u32..12,
        negative in proptest::bool::ANY,
    ) {
        let sign = if negative { "-" } else { "" };
        let exponent = |delta: i128| {
            // high ++ low (18 digits) + delta, as decimal digits.
            let value: i128 = high.parse::<i128>().unwrap() * 1_000_000_000_000_000_000 + low as i128;
            (value + delta).to_string()
        };
        let a = format!("{mantissa}e{sign}{}", exponent(0));
        // mantissa × 10^shift with the exponent moved the other way.
        let delta = if negative { -(shift as i128) } else { shift as i128 };
        let b = format!("{mantissa}{}e{sign}{}", "0".repeat(shift as usize), exponent(-delta));
        // 0.000mantissa, the exponent moved by the zeros and the mantissa's digits.
        let digits = mantissa.to_string().len() as i128;
        let moved = if negative { -(shift as i128 + digits) } else { shift as i128 + digits };
        let c = format!("0.{}{mantissa}e{sign}{}", "0".repeat(shift as usize), exponent(moved));
        proptest::prop_assert_eq!(key(a.as_bytes()), key(b.as_bytes()), "{} = {}", a, b);
        proptest::prop_assert_eq!(key(a.as_bytes()), key(c.as_bytes()), "{} = {}", a, c);
        let next = format!("{mantissa}e{sign}{}", exponent(1));
        proptest::prop_assert_ne!(key(a.as_bytes()), key(next.as_bytes()), "{} != {}", a, next);
    }

    /// UUID strings key in 16 packed bytes when their letters are all of one case: two
    /// string ids near that form (letters of either case, a hyphen moved or missing, a
    /// character escaped, a non-hex letter) have equal keys exactly when serde_json reads the
    /// same string from both, lenient or not.
    #[test]
    fn uuid_shaped_string_keys_match_exactly_the_equal_strings(
        base in "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
        lower in proptest::bool::ANY,
        edits in proptest::collection::vec((0usize..36, 0u8..6), 0..3),
    ) {
        let base = if lower { base.to_lowercase() } else { base };
        let mut other: Vec<char> = base.chars().collect();
        let mut escaped = vec![false; other.len()];
        for (at, op) in edits {
            let at = at % other.len();
            match op {
                0 if other[at].is_ascii_lowercase() => other[at] = other[at].to_ascii_uppercase(),
                0 => other[at] = other[at].to_ascii_lowercase(),
                1 => escaped[at] = true,
                2 => other[at] = if other[at] == 'f' { '0' } else { 'f' },
                3 => other[at] = 'g',
                4 => { other.remove(at); escaped.remove(at); }
                _ => { other.insert(at, '-'); escaped.insert(at, false); }
            }
        }
        let spelled: String = other
            .iter()
            .zip(&escaped)
            .map(|(&c, &e)| if e { format!("\\u{:04X}", c as u32) } else { c.to_string() })
            .collect();
        let a = format!("\"{base}\"");
        let b = format!("\"{spelled}\"");
        let read = |t: &str| serde_json::from_str::<String>(t).unwrap();
        let equal = read(&a) == read(&b);
        proptest::prop_assert_eq!(key(a.as_bytes()) == key(b.as_bytes()), equal, "{} vs {}", a, b);
        let lenient = |t: &[u8]| IdKey::with(Id::from_token(t).unwrap(), true);
        proptest::prop_assert_eq!(lenient(a.as_bytes()) == lenient(b.as_bytes()), equal, "{} vs {}", a, b);
        // A string id never keys as a number or as null.
        proptest::prop_assert_ne!(key(a.as_bytes()), key(b"0"));
    }

    /// Plain integers take a shortcut to their key; spelled with a fraction or an exponent
    /// they take the general path. Both must give the same key.
    #[test]
    fn integer_keys_agree_with_the_general_path(
        n in proptest::prop_oneof![proptest::num::i64::ANY, -100i64..100],
        zeros in 0usize..4,
    ) {
        let zeros = if n == 0 { 0 } else { zeros }; // `00` is not a number
        let plain = format!("{n}{}", "0".repeat(zeros));
        let general = [format!("{plain}.0"), format!("{plain}e0"), format!("{n}e{zeros}")];
        for spelling in &general {
            proptest::prop_assert_eq!(key(plain.as_bytes()), key(spelling.as_bytes()), "{} = {}", plain, spelling);
        }
        let next = format!("{}{}", n.wrapping_add(1), "0".repeat(zeros));
        if n.wrapping_add(1) != 0 {
            proptest::prop_assert_ne!(key(plain.as_bytes()), key(next.as_bytes()));
        }
    }
}

#[test]
fn id_bytes_are_bounded_and_given_back() {
    let token = |n: usize, c: char| format!("\"{}\"", c.to_string().repeat(n));
    // Each 40-byte id counts its spelling: 42 bytes, quotes included.
    let mut t = InFlight::new(1000).max_bytes(130);
    for c in ['a', 'b', 'c'] {
        let id = token(40, c);
        t.insert(Id::from_token(id.as_bytes()).unwrap(), c).unwrap();
    }
    assert_eq!(t.bytes(), 3 * 42);
    let d = token(40, 'd');
    let d = Id::from_token(d.as_bytes()).unwrap();
    assert_eq!(
        t.insert(d, 'd'),
        Err(InFlightError::OverBudget { budget: 130 })
    );
    // A reused id is still a duplicate, not over the budget.
    let a = token(40, 'a');
    let a = Id::from_token(a.as_bytes()).unwrap();
    assert_eq!(t.insert(a, 'x'), Err(InFlightError::Duplicate));
    // A short id still fits: the bound is on bytes, not entries.
    t.insert(Id::from_token(b"1").unwrap(), '1').unwrap();
    assert_eq!(t.bytes(), 3 * 42 + 1);
    assert_eq!(t.len(), 4);
    // Removing gives the bytes back; a dropped reservation takes none.
    assert_eq!(t.remove(a).map(|(_, v)| v), Some('a'));
    assert_eq!(t.bytes(), 2 * 42 + 1);
    drop(t.reserve(d).unwrap());
    assert_eq!(t.bytes(), 2 * 42 + 1);
    assert!(!t.contains(d));
    t.reserve(d).unwrap().insert('d');
    assert_eq!(t.bytes(), 3 * 42 + 1);
    assert_eq!(t.drain().count(), 4);
    assert_eq!(t.bytes(), 0);
    // The default bounds a table of long ids too: ids of 64 KiB stop well before its 100,000
    // entries, at the 1,023 that fit 64 MiB.
    let mut t = InFlight::new(100_000);
    let mut inserted = 0;
    while inserted < 100_000 {
        let id = format!("\"{}{inserted:08}\"", "0".repeat(65_528));
        match t.insert(Id::from_token(id.as_bytes()).unwrap(), ()) {
            Ok(()) => inserted += 1,
            Err(e) => {
                assert_eq!(e, InFlightError::OverBudget { budget: 64 << 20 });
                break;
            }
        }
    }
    assert_eq!(inserted, (64 << 20) / (65_528 + 8 + 2), "ids of 64 KiB");
    assert!(t.bytes() <= 64 << 20);
}

/// The budget counts each entry's id and the extra bytes it was registered with, to the
/// byte: an entry that brings the total exactly to the budget fits, one byte more does not
/// (whatever way it comes in), and every way out gives its bytes back.
#[test]
fn extra_bytes_count_against_the_budget() {
    let id = |t: &'static str| Id::from_token(t.as_bytes()).unwrap();
    // `1` counts the 1 byte of its spelling, and so does each digit.
    let mut t = InFlight::new(10).max_bytes(100);
    t.insert_with_extra(id("1"), 49, "a").unwrap();
    assert_eq!(t.bytes(), 50);
    // 50 + 1 + 50 is one byte over: refused by both ways in, the table untouched.
    assert_eq!(
        t.insert_with_extra(id("2"), 50, "b"),
        Err(InFlightError::OverBudget { budget: 100 })
    );
    assert_eq!(
        t.reserve_with_extra(id("2"), 50).unwrap_err(),
        InFlightError::OverBudget { budget: 100 }
    );
    assert_eq!((t.bytes(), t.len()), (50, 1));
    // 50 + 1 + 49 is the budget exactly.
    t.reserve_with_extra(id("2"), 49).unwrap().insert("b");
    assert_eq!(t.bytes(), 100);
    // Full to the byte: not even an id alone fits, but a reused id is still a duplicate.
    assert_eq!(
        t.insert(id("3"), "c"),
        Err(InFlightError::OverBudget { budget: 100 })
    );
    assert_eq!(
        t.insert_with_extra(id("1"), 0, "x"),
        Err(InFlightError::Duplicate)
    );
    // A removal gives back the id and its extra bytes.
    assert_eq!(t.remove(id("1")).map(|(_, v)| v), Some("a"));
    assert_eq!(t.bytes(), 50);
    // An extra count that would overflow is over any budget, not wrapped around.
    assert_eq!(
        t.insert_with_extra(id("3"), usize::MAX, "c"),
        Err(InFlightError::OverBudget { budget: 100 })
    );
    t.insert_with_extra(id("3"), 49, "c").unwrap();
    assert_eq!(t.bytes(), 100);
    // With no budget to speak of (`usize::MAX`), the count still cannot wrap: an entry that
    // would take it past `usize::MAX` is over the budget.
    let mut unbounded = InFlight::new(10).max_bytes(usize::MAX);
    unbounded
        .insert_with_extra(id("1"), usize::MAX - 1, "a")
        .unwrap();
    assert_eq!(unbounded.bytes(), usize::MAX);
    assert_eq!(
        unbounded.insert_with_extra(id("2"), 1, "b"),
        Err(InFlightError::OverBudget { budget: usize::MAX })
    );
    assert_eq!((unbounded.bytes(), unbounded.len()), (usize::MAX, 1));
    // Draining gives back everything, even if the iterator is dropped unread.
    drop(t.drain());
    assert_eq!((t.bytes(), t.len()), (0, 0));
    // The count of entries is checked first: a table at capacity is full, whatever the
    // budget.
    let mut t = InFlight::new(1).max_bytes(6);
    t.insert(id("1"), ()).unwrap();
    assert_eq!(t.insert(id("2"), ()), Err(InFlightError::Full { limit: 1 }));
}

/// The refusals carry the table's configured limits, not the defaults, and their texts name
/// them; the reply's message does not.
#[test]
fn the_refusals_name_the_tables_limits() {
    use bytes::BytesMut;
    let id = |token: &'static str| Id::from_token(token.as_bytes()).unwrap();
    let mut t = InFlight::new(1).max_bytes(1000);
    t.insert(id("1"), ()).unwrap();
    let full = t.insert(id("2"), ()).unwrap_err();
    assert_eq!(full, InFlightError::Full { limit: 1 });
    assert_eq!(
        full.to_string(),
        "the table of requests in flight is full: its limit is 1"
    );
    let mut t = InFlight::new(10).max_bytes(5);
    let over = t.insert(id("123456"), ()).unwrap_err();
    assert_eq!(over, InFlightError::OverBudget { budget: 5 });
    assert_eq!(
        over.to_string(),
        "the requests in flight would hold more bytes than their budget of 5 bytes"
    );
    let mut out = BytesMut::new();
    full.write_reply(&mut out, id("2"));
    assert!(out.ends_with(b"\"message\":\"the table of requests in flight is full\"}}\n"));
}

/// `lenient` is a builder setting: on an empty table it takes effect, on one that holds
/// requests (keyed the old way, which could no longer be found) it panics instead of losing
/// them.
#[test]
fn lenient_is_set_before_the_table_is_used() {
    fn id(token: &[u8]) -> Id<'_> {
        Id::from_token(token).unwrap()
    }
    let mut t = InFlight::new(4).lenient(true);
    t.insert(id(br#""1""#), 'a').unwrap();
    assert_eq!(t.remove(id(b"1")).map(|(_, v)| v), Some('a'));
    t.insert(id(br#""1""#), 'a').unwrap();
    let used = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.lenient(false)));
    assert!(used.is_err());
}

/// Spellings of the number `digits` × 10^`shift`, and of it as a string id (plain, and with
/// its first character escaped): the forms `InFlight` borrows from a token (a canonical
/// integer of up to 40 digits, a string without escapes) and the ones it builds.
fn number_spellings(negative: bool, digits: &str, shift: i32) -> Vec<String> {
    let sign = if negative { "-" } else { "" };
    let len = digits.len() as i32;
    let (first, rest) = digits.split_at(1);
    let mut numbers = vec![
        format!("{sign}{digits}e{shift}"),
        format!("{sign}{first}.{rest}0e{}", len - 1 + shift),
        format!("{sign}0.{digits}E{:+}", len + shift),
        format!("{sign}{digits}0e{}", shift - 1),
    ];
    if shift >= 0 {
        numbers.push(format!("{sign}{digits}{}", "0".repeat(shift as usize)));
        numbers.push(format!("{sign}{digits}{}.000", "0".repeat(shift as usize)));
    } else if -shift < len {
        let (int, frac) = digits.split_at((len + shift) as usize);
        numbers.push(format!("{sign}{int}.{frac}"));
    }
    let mut all = Vec::new();
    for n in numbers {
        all.push(format!("\"{n}\""));
        all.push(format!("\"\\u{:04x}{}\"", n.as_bytes()[0], &n[1..]));
        all.push(n);
    }
    all
}

proptest::proptest! {
    // Each case checks some 10,000 pairs.
    #![proptest_config(crate::common::cases(32))]

    /// `InFlight` hashes and compares ids by a form of its own, borrowed from the token where
    /// it can be: it finds an id under any spelling exactly when their keys are equal,
    /// strict or lenient, for numbers around the 40 digits it writes out in full, their
    /// neighbours, and the same numbers held in strings.
    #[test]
    fn inflight_finds_an_id_exactly_when_the_keys_are_equal(
        digits in proptest::prop_oneof!["[1-9][0-9]{0,4}", "[1-9][0-9]{36,42}", "[1-9]0{36,42}"],
        shift in -3i32..4,
        negative in proptest::bool::ANY,
    ) {
        let mut pool = number_spellings(negative, &digits, shift);
        // The value one digit longer, or one digit further: neighbours that must stay apart.
        pool.extend(number_spellings(negative, &format!("{digits}1"), shift - 1));
        pool.extend(number_spellings(negative, &digits, shift + 1));
        pool.extend(number_spellings(!negative, &digits, shift));
        pool.push("0".into());
        pool.push("-0".into());
        for lenient in [false, true] {
            let key = |t: &str| IdKey::with(Id::from_token(t.as_bytes()).unwrap(), lenient);
            for a in &pool {
                let mut table = InFlight::new(4).lenient(lenient);
                table.insert(Id::from_token(a.as_bytes()).unwrap(), ()).unwrap();
                for b in &pool {
                    let found = table.contains(Id::from_token(b.as_bytes()).unwrap());
                    proptest::prop_assert_eq!(found, key(a) == key(b), "{} finds {} (lenient: {})", a, b, lenient);
                }
            }
        }
    }
}
