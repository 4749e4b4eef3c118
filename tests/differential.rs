//! Differential tests: rpcwire's decoder against the serde_json-based reference classifier
//! (`tests/reference/mod.rs`), on generated and mutated envelopes and on every shared vector.
//!
//! * `Validation::Strict` must agree with the reference on every input.
//! * `Validation::Lazy` must agree on every input serde_json accepts as JSON (lazy mode does
//!   not check token order inside payloads, so on other inputs it may accept what is not JSON).
//!
//! Both dialects and both roles every time.

mod common;
mod reference;

use proptest::prelude::*;
use rpcwire::{DecodeOptions, Decoder, Dialect, Role, Validation};

fn decoder(dialect: Dialect, role: Role, validation: Validation) -> Decoder {
    let mut opts = DecodeOptions::new(dialect);
    opts.role = role;
    opts.validation = validation;
    Decoder::new(opts)
}

/// Checks one frame in every configuration; returns the number of comparisons made.
fn check_frame(frame: &[u8]) -> Result<usize, TestCaseError> {
    let json = reference::is_json(frame);
    let mut compared = 0;
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for role in [Role::Server, Role::Client] {
            let expected = reference::classify(frame, dialect, role);
            for validation in [Validation::Strict, Validation::Lazy] {
                if validation == Validation::Lazy && !json {
                    continue;
                }
                let got = reference::observe(&decoder(dialect, role, validation), frame);
                prop_assert_eq!(
                    &got,
                    &expected,
                    "{:?}/{:?}/{:?} on {:?}",
                    dialect,
                    role,
                    validation,
                    String::from_utf8_lossy(frame)
                );
                compared += 1;
            }
        }
    }
    Ok(compared)
}

// ---------------------------------------------------------------- generators

/// Inter-token whitespace, mostly none.
fn ws() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => Just(""), 2 => Just(" "), 1 => Just("\t"), 1 => Just("\r"), 1 => Just(" \n ")]
}

fn string_token() -> BoxedStrategy<String> {
    prop_oneof![
        Just(r#""""#.to_string()),
        "[a-z/_]{1,12}".prop_map(|s| format!("\"{s}\"")),
        Just(r#""a\"b\\c\u00e9\/""#.to_string()),
        Just(r#""\ud83d\ude00""#.to_string()),
        Just(r#""lone\ud800""#.to_string()),
        Just(r#""\udc00x""#.to_string()),
        Just(r#""a\u0000b""#.to_string()),
        Just("\"caf\u{e9} \u{1F600}\"".to_string()),
        Just(r#""tab\there\n""#.to_string()),
    ]
    .boxed()
}

fn number_token() -> BoxedStrategy<String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        (0u32..100).prop_map(|n| n.to_string()),
        Just("-0".to_string()),
        Just("1.5".to_string()),
        Just("1.0".to_string()),
        Just("1e3".to_string()),
        Just("1E400".to_string()),
        Just("-0.0e-0".to_string()),
        Just("9007199254740993".to_string()),
        Just("123456789012345678901234567890".to_string()),
    ]
    .boxed()
}

/// Any JSON value, nested a few levels, written with random whitespace.
///
/// The strategies of this file are boxed, each level of this one too: unboxed, the value tree
/// of a frame is hundreds of kilobytes by value, and the `new_tree` frames of a debug build
/// hold several copies of it (one seed overflowed a test thread's 2 MiB of stack).
fn json_value() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        number_token(),
        string_token(),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            (prop::collection::vec(inner.clone(), 0..5), ws())
                .prop_map(|(v, w)| format!("[{w}{}{w}]", v.join(&format!("{w},{w}"))))
                .boxed(),
            (prop::collection::vec((key_token(), inner), 0..5), ws())
                .prop_map(|(v, w)| {
                    let members: Vec<String> = v
                        .into_iter()
                        .map(|(k, v)| format!("{k}{w}:{w}{v}"))
                        .collect();
                    format!("{{{w}{}{w}}}", members.join(&format!("{w},{w}")))
                })
                .boxed(),
        ]
    })
    .boxed()
}

/// A key: an envelope name, spelt plainly, with an escape, or case-folded; or another name.
fn key_token() -> BoxedStrategy<String> {
    let names = prop_oneof![
        Just("jsonrpc"),
        Just("id"),
        Just("method"),
        Just("params"),
        Just("result"),
        Just("error"),
        Just("code"),
        Just("message"),
        Just("data"),
        Just("resultType"),
        Just("ID"),
        Just("Method"),
        Just("foo"),
    ];
    (names, 0usize..8, any::<bool>())
        .prop_map(|(name, at, escape)| {
            if escape && at < name.len() {
                let (a, b) = name.split_at(at);
                let c = b.as_bytes()[0];
                format!("\"{a}\\u{:04x}{}\"", c, &b[1..])
            } else {
                format!("\"{name}\"")
            }
        })
        .boxed()
}

fn version_value() -> BoxedStrategy<String> {
    prop_oneof![
        12 => Just(r#""2.0""#.to_string()),
        1 => Just(r#""2\u002e0""#.to_string()),
        1 => Just(r#""1.0""#.to_string()),
        1 => Just("2.0".to_string()),
        1 => Just("null".to_string()),
        1 => Just(r#""2.0 ""#.to_string()),
    ]
    .boxed()
}

fn id_value() -> BoxedStrategy<String> {
    prop_oneof![
        4 => number_token(),
        3 => string_token(),
        1 => Just("null".to_string()),
        1 => Just("{}".to_string()),
        1 => Just("[1]".to_string()),
        1 => Just("true".to_string()),
    ]
    .boxed()
}

fn method_value() -> BoxedStrategy<String> {
    prop_oneof![
        6 => string_token(),
        1 => Just(r#""tools\/call""#.to_string()),
        1 => Just(r#""\u0074ools/call""#.to_string()),
        1 => Just("5".to_string()),
        1 => Just(r#"["ping"]"#.to_string()),
    ]
    .boxed()
}

fn error_value() -> BoxedStrategy<String> {
    let code = prop_oneof![
        any::<i32>().prop_map(|n| n.to_string()),
        Just("-32600".to_string()),
        Just("-32600.5".to_string()),
        Just("1e3".to_string()),
        Just("-0".to_string()),
        Just("99999999999999999999".to_string()),
        Just(r#""-32600""#.to_string()),
    ];
    let member = prop_oneof![
        code.prop_map(|c| format!(r#""code":{c}"#)),
        string_token().prop_map(|m| format!(r#""message":{m}"#)),
        Just(r#""message":7"#.to_string()),
        json_value().prop_map(|d| format!(r#""data":{d}"#)),
        Just(r#""c\u006fde":1"#.to_string()),
    ];
    prop_oneof![
        6 => prop::collection::vec(member, 0..5).prop_map(|m| format!("{{{}}}", m.join(","))),
        1 => json_value(),
    ]
    .boxed()
}

fn result_value() -> BoxedStrategy<String> {
    prop_oneof![
        4 => json_value(),
        1 => Just(r#"{"resultType":"complete","x":1}"#.to_string()),
        1 => Just(r#"{"resultType":"partial"}"#.to_string()),
        1 => Just(r#"{"inputRequests":{},"resultType":"input_required"}"#.to_string()),
        1 => Just(r#"{"resultType":"complete","resultType":"bogus"}"#.to_string()),
        1 => Just(r#"{"result\u0054ype":5}"#.to_string()),
    ]
    .boxed()
}

/// One top-level member: (key, value).
fn member() -> BoxedStrategy<(String, String)> {
    prop_oneof![
        3 => version_value().prop_map(|v| ("\"jsonrpc\"".to_string(), v)),
        3 => id_value().prop_map(|v| ("\"id\"".to_string(), v)),
        3 => method_value().prop_map(|v| ("\"method\"".to_string(), v)),
        2 => json_value().prop_map(|v| ("\"params\"".to_string(), v)),
        2 => result_value().prop_map(|v| ("\"result\"".to_string(), v)),
        2 => error_value().prop_map(|v| ("\"error\"".to_string(), v)),
        2 => (key_token(), json_value()),
    ]
    .boxed()
}

/// A plausible envelope: a version, then a random shape, members in random order, sometimes
/// duplicated, with random whitespace.
fn envelope() -> BoxedStrategy<String> {
    (
        version_value(),
        prop::collection::vec(member(), 0..6),
        any::<prop::sample::Index>(),
        ws(),
        ws(),
    )
        .prop_map(|(version, mut members, at, w1, w2)| {
            let pos = at.index(members.len() + 1);
            members.insert(pos, ("\"jsonrpc\"".to_string(), version));
            let body: Vec<String> = members
                .into_iter()
                .map(|(k, v)| format!("{k}{w2}:{w1}{v}"))
                .collect();
            format!("{w1}{{{w2}{}{w1}}}{w2}", body.join(&format!("{w1},{w2}")))
        })
        .boxed()
}

/// A message of each kind with the members its kind calls for, in random order with random
/// whitespace: most are valid, which a random envelope seldom is (of 3,000, about ten
/// requests and hardly an error response), so that what the decoder reads out of a message it
/// accepts (id, method, payload and `error.data` spans, error code) is compared on many.
fn message() -> BoxedStrategy<String> {
    let member = |key: &str| {
        let key = format!("\"{key}\"");
        move |value: String| (key.clone(), value)
    };
    let version = || Just(member("jsonrpc")(r#""2.0""#.to_string()));
    let id = || prop_oneof![number_token(), string_token()].prop_map(member("id"));
    let method = || string_token().prop_map(member("method"));
    // Params are an object or an array (MCP takes objects only), or left out.
    let structured =
        || json_value().prop_filter("an object or an array", |v| v.starts_with(['{', '[']));
    let params = || prop::option::of(structured().prop_map(member("params")));
    let result = result_value().prop_map(member("result"));
    let error = (any::<i32>(), string_token(), prop::option::of(json_value())).prop_map(
        move |(code, message, data)| {
            let data = data.map_or(String::new(), |d| format!(r#","data":{d}"#));
            member("error")(format!(r#"{{"code":{code},"message":{message}{data}}}"#))
        },
    );
    let error_id = prop_oneof![3 => id(), 1 => Just(member("id")("null".to_string()))];
    let members = prop_oneof![
        (version(), id(), method(), params())
            .prop_map(|(v, i, m, p)| [v, i, m].into_iter().chain(p).collect::<Vec<_>>())
            .boxed(),
        (version(), method(), params())
            .prop_map(|(v, m, p)| [v, m].into_iter().chain(p).collect())
            .boxed(),
        (version(), id(), result)
            .prop_map(|(v, i, r)| vec![v, i, r])
            .boxed(),
        (version(), error_id, error)
            .prop_map(|(v, i, e)| vec![v, i, e])
            .boxed(),
    ];
    (members.prop_shuffle(), ws(), ws())
        .prop_map(|(members, w1, w2)| {
            let body: Vec<String> = members
                .into_iter()
                .map(|(k, v)| format!("{k}{w2}:{w1}{v}"))
                .collect();
            format!("{w1}{{{w2}{}{w1}}}{w2}", body.join(&format!("{w1},{w2}")))
        })
        .boxed()
}

/// A frame: mostly an envelope or a message of each kind, sometimes a batch of them or any
/// JSON value.
fn frame() -> BoxedStrategy<Vec<u8>> {
    let element = || prop_oneof![envelope().boxed(), message()];
    prop_oneof![
        10 => envelope(),
        6 => message(),
        2 => prop::collection::vec(element(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
        1 => json_value(),
    ]
    .prop_map(String::into_bytes)
    .boxed()
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(prop::sample::Index, u8),
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, u8),
    Remove(prop::sample::Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let special = prop_oneof![
        Just(b'"'),
        Just(b'\\'),
        Just(b'{'),
        Just(b'}'),
        Just(b'['),
        Just(b']'),
        Just(b','),
        Just(b':'),
        Just(0u8),
        Just(0x1f),
        Just(b'\n'),
        Just(0xff),
        Just(0xc3),
        Just(b'0'),
        Just(b'-'),
    ];
    prop_oneof![
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        (any::<prop::sample::Index>(), special).prop_map(|(i, b)| Mutation::Insert(i, b)),
        any::<prop::sample::Index>().prop_map(Mutation::Remove),
    ]
}

fn mutate(mut frame: Vec<u8>, mutations: &[Mutation]) -> Vec<u8> {
    for m in mutations {
        if frame.is_empty() {
            break;
        }
        match m {
            Mutation::Flip(i, b) => {
                let i = i.index(frame.len());
                frame[i] = *b;
            }
            Mutation::Truncate(i) => frame.truncate(i.index(frame.len())),
            Mutation::Insert(i, b) => frame.insert(i.index(frame.len() + 1), *b),
            Mutation::Remove(i) => {
                frame.remove(i.index(frame.len()));
            }
        }
    }
    frame
}

/// Runs `test` on 3,000 cases of what `strategy` makes, in a thread of 1 MiB of stack, half
/// a test thread's: the generators stay boxed (see [`json_value`]), and this keeps them so,
/// with room to spare, instead of a rare seed overflowing a test thread's stack.
fn run_cases<S: Strategy + 'static>(
    strategy: fn() -> S,
    test: fn(S::Value) -> Result<(), TestCaseError>,
) {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let strategy = strategy();
            let config = ProptestConfig {
                failure_persistence: None,
                ..common::cases(3000)
            };
            let result = proptest::test_runner::TestRunner::new(config).run(&strategy, test);
            if let Err(e) = result {
                panic!("{e}");
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
#[cfg_attr(miri, ignore)]
fn generated_frames_agree() {
    run_cases(frame, |frame| check_frame(&frame).map(drop));
}

#[test]
#[cfg_attr(miri, ignore)]
fn mutated_frames_agree() {
    let frames = || (frame(), prop::collection::vec(mutation(), 1..4));
    run_cases(frames, |(frame, mutations)| {
        check_frame(&mutate(frame, &mutations)).map(drop)
    });
}

/// The captured sessions: the official TypeScript SDK client with a reference server, and the
/// official Python SDK on both sides in MCP 2026-07-28 (`server/discover`, per-request
/// versions, an `input_required` result, a `subscriptions/listen` stream).
const CAPTURES: [&str; 4] = [
    "capture-c2s.ndjson",
    "capture-s2c.ndjson",
    "capture-2026-c2s.ndjson",
    "capture-2026-s2c.ndjson",
];

/// Every vector of `tests/data/envelope.jsonl` that is a single line (framing `line`), plus the
/// JSON-RPC specification examples and the captured sessions, line by line.
#[test]
#[cfg_attr(miri, ignore)]
fn vectors_and_captures_agree() {
    let mut compared = 0;
    for case in common::load("envelope.jsonl") {
        if case["framing"] == "line" {
            compared += check_frame(&common::input(&case)).unwrap();
        }
    }
    for case in common::load("jsonrpc-spec.jsonl") {
        compared += check_frame(&common::hex(case["hex"].as_str().unwrap())).unwrap();
    }
    for capture in CAPTURES {
        let path = format!("{}/tests/data/{capture}", env!("CARGO_MANIFEST_DIR"));
        for line in std::fs::read(path).unwrap().split(|&b| b == b'\n') {
            compared += check_frame(line).unwrap();
        }
    }
    assert!(compared > 500, "only {compared} comparisons");
}

/// Hand-picked frames where serde_json's `Value` and rpcwire could plausibly part ways.
#[test]
fn edge_cases_agree() {
    let frames: &[&[u8]] = &[
        br#"{"jsonrpc":"2.0","id":1E400,"method":"ping"}"#,
        br#"{"jsonrpc":"2.0","id":"\ud800","method":"a\udc00b"}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\ud800\ud800\udc00"}}"#,
        br#"{"jsonrpc":"2.0","\u0069d":1,"id":2,"method":"x"}"#,
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","resultType":"bogus"}}"#,
        br#"[{"jsonrpc":"2.0","method":"a","method":"b","result":1}]"#,
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
        br#"{"jsonrpc":"2.0","error":{"code":-0,"message":"x","data":null}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x","c\u006fde":2}}"#,
        b" \t{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r ",
        b"",
        b"   ",
        b"[]",
        b"[1]",
        b"{\"jsonrpc\":\"2.0\",\"id\":1}",
    ];
    for frame in frames {
        check_frame(frame).unwrap();
    }
}

/// Depth at the limit and one past it, for objects and batches.
#[test]
#[cfg_attr(miri, ignore)]
fn depth_boundary_agrees() {
    for extra in [125usize, 126, 127] {
        let mut f = br#"{"jsonrpc":"2.0","id":1,"method":"e","params":{"a":"#.to_vec();
        f.extend(std::iter::repeat_n(b'[', extra));
        f.extend(std::iter::repeat_n(b']', extra));
        f.extend_from_slice(b"}}");
        check_frame(&f).unwrap();
        let mut b = vec![b'['; extra + 2];
        b.extend(std::iter::repeat_n(b']', extra + 2));
        check_frame(&b).unwrap();
    }
}
