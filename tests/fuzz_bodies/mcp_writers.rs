//! The body of the `mcp_writers` fuzz target: the writers of `rpcwire::mcp`
//! (`write_result`, `write_request_with_progress`, `write_request_with_meta`, `versions::write_unsupported`,
//! `write_cancelled`, `write_progress`, `write_retry` (read back by `Retry`),
//! `write_input_required`) with ids, versions, payloads and numbers from the
//! input. Each output is either the documented refusal, nothing written, or one line that
//! serde_json and both dialects' decoders (strict and lazy) read as the intended message,
//! with the members given kept, in order, and the member each writer adds where it says.
//!
//! A module of its own beside the other bodies in `mod.rs`. It panics (with an assertion
//! message) on a finding and never otherwise.

use bytes::BytesMut;
use rpcwire::mcp::{
    self, InputRequired, InputRequiredWriteError, MetaKey, MetaRequestError, MetaValue,
    ProgressRequestError, RequestMeta, ResultError, RetryError, meta_keys, versions,
};
use rpcwire::scan::Validation;
use rpcwire::{DecodeOptions, Decoder, Dialect, ErrorCode, Id, Message, RawJson, ReplyId, Role};
use serde_json::Value;
use serde_json::value::RawValue;

use super::reference::{self, Members, Unescaped};
use super::{Input, memchr_count, spaced};

/// Runs each writer on what is left of the input.
pub fn mcp_writers(data: &[u8]) {
    let mut input = Input(data);
    check_write_result(&mut input);
    check_request_with_progress(&mut input);
    check_unsupported(&mut input);
    check_cancelled(&mut input);
    check_progress(&mut input);
    check_retry(&mut input);
    check_input_required(&mut input);
    check_request_with_meta(&mut input);
}

/// Id tokens of every kind: integers of any size, other numbers, `null`, strings with
/// escapes and a lone surrogate.
const ID_SAMPLES: [&[u8]; 14] = [
    b"null",
    b"1.5",
    b"-0",
    b"0",
    b"-1",
    b"1e3",
    b"1.0",
    b"9007199254740993",
    b"18446744073709551616",
    b"-9223372036854775809",
    b"\"\"",
    b"\"\\ud800\"",
    b"\"a\\u0000\\\"\\n\"",
    b"\"\xc3\xa9\"",
];

/// Any id token `Id::from_token` takes: one of a valid id's writers, a sample, or the input's
/// bytes when they are a token.
fn any_id(input: &mut Input<'_>) -> Vec<u8> {
    match input.byte() % 4 {
        0 | 1 => input.id_token(),
        2 => ID_SAMPLES[usize::from(input.byte()) % ID_SAMPLES.len()].to_vec(),
        _ => {
            let raw = input.bytes();
            if Id::from_token(raw).is_some() {
                raw.to_vec()
            } else {
                ID_SAMPLES[raw.len() % ID_SAMPLES.len()].to_vec()
            }
        }
    }
}

/// A protocol version: a known one, one near 2026-07-28, or any text.
fn any_version(input: &mut Input<'_>) -> String {
    const NEAR: [&str; 9] = [
        "2026-07-27",
        "2026-07-28x",
        "2026-07-29",
        "2026-07-2",
        "",
        "DRAFT-2026-v1",
        "2099-01-01",
        "1.0",
        "2026-07-28 ",
    ];
    match input.byte() % 4 {
        0 => versions::KNOWN[usize::from(input.byte()) % versions::KNOWN.len()].to_string(),
        1 => NEAR[usize::from(input.byte()) % NEAR.len()].to_string(),
        2 => input.string(),
        _ => versions::LATEST.to_string(),
    }
}

/// A JSON value serde_json accepts: one of `samples`, or the input's (see `Input::json`).
fn payload(input: &mut Input<'_>, samples: &[&[u8]]) -> Vec<u8> {
    let pick = input.byte();
    if pick.is_multiple_of(2) {
        samples[usize::from(pick / 2) % samples.len()].to_vec()
    } else {
        input.json()
    }
}

/// Params made by [`payload`] (JSON serde_json accepts) as the writers take them.
fn raw_params(params: Option<&[u8]>) -> Option<RawJson<'_>> {
    params.map(|p| RawJson::new(p).expect("valid JSON is a RawJson"))
}

/// Whether MCP takes `token` as a request's id (a string or an integer), as the reference
/// classifier says.
fn mcp_id(token: &[u8]) -> bool {
    let probe = [
        &br#"{"jsonrpc":"2.0","id":"#[..],
        token,
        br#","method":"m"}"#,
    ]
    .concat();
    reference::classify(&probe, Dialect::Mcp, Role::Server).kind == "request"
}

/// Whether MCP takes `token` as an error response's id (a string, an integer or `null`), as
/// the reference classifier says.
fn mcp_error_id(token: &[u8]) -> bool {
    let probe = [
        &br#"{"jsonrpc":"2.0","id":"#[..],
        token,
        br#","error":{"code":1,"message":"m"}}"#,
    ]
    .concat();
    reference::classify(&probe, Dialect::Mcp, Role::Client).kind == "error_response"
}

/// The decoders of both dialects, strict and lazy, reading as `role` (MCP's for `version`
/// when given).
fn decoders(role: Role, version: Option<&str>) -> Vec<(Dialect, Decoder)> {
    let mut all = Vec::new();
    for dialect in [Dialect::JsonRpc2, Dialect::Mcp] {
        for validation in [Validation::Strict, Validation::Lazy] {
            let mut options = DecodeOptions::new(dialect);
            options.role = role;
            options.validation = validation;
            if let Some(version) = version {
                options = options.for_protocol_version(version);
            }
            all.push((dialect, Decoder::new(options)));
        }
    }
    all
}

/// What `out` holds past the marker written before the call: nothing, or one line, whose
/// frame (without its line end) is returned.
fn written<'o>(out: &'o BytesMut, what: &str) -> Option<&'o [u8]> {
    let line = out
        .strip_prefix(&b"before\n"[..])
        .unwrap_or_else(|| panic!("what the buffer held is kept, {what}"));
    if line.is_empty() {
        return None;
    }
    let shown = String::from_utf8_lossy(line);
    assert_eq!(memchr_count(line), 1, "one line: {shown:?}, {what}");
    assert_eq!(line.last(), Some(&b'\n'), "{shown:?}, {what}");
    let frame = &line[..line.len() - 1];
    // serde_json reads it as one value; a `Value` too, but for a lone surrogate escape,
    // which only a token or payload given holds.
    assert!(
        reference::is_json(frame),
        "serde_json refuses {shown:?}, {what}"
    );
    Some(frame)
}

/// An object's members in wire order, duplicates kept; `None` when `json` is not an object.
fn members(json: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    if json.first() != Some(&b'{') {
        return None;
    }
    let read: Members<'_> = serde_json::from_slice(json).expect("a valid object");
    Some(
        read.0
            .into_iter()
            .map(|(k, v)| (k, v.get().as_bytes().to_vec()))
            .collect(),
    )
}

/// The same members, their values as the writers write them (line breaks as spaces).
fn spaced_members(m: &[(Vec<u8>, Vec<u8>)]) -> Vec<(Vec<u8>, Vec<u8>)> {
    m.iter().map(|(k, v)| (k.clone(), spaced(v))).collect()
}

/// The value of the member `key` of the object `json` (its only one, by the caller's check).
fn member(json: &[u8], key: &str) -> Vec<u8> {
    let m = members(json).expect("an object");
    let mut found = m.into_iter().filter(|(k, _)| k == key.as_bytes());
    let (_, v) = found.next().unwrap_or_else(|| panic!("no `{key}`"));
    assert!(found.next().is_none(), "`{key}` twice");
    v
}

fn unescaped(string: &[u8]) -> Vec<u8> {
    serde_json::from_slice::<Unescaped>(string)
        .expect("a string")
        .0
}

/// serde_json's value of `json`, when it takes it as a `Value` (no lone surrogate).
fn value(json: &[u8]) -> Option<Value> {
    serde_json::from_slice(json).ok()
}

// ------------------------------------------------------------------------------ write_result

const RESULTS: [&[u8]; 14] = [
    b"{}",
    b"{ \n}",
    b"{\"content\":[]}",
    b"{\"resultType\":\"complete\"}",
    b"{\"resultType\":\"input_required\",\"requestState\":\"s\"}",
    b"{\"resultType\":\"task\",\"taskId\":\"t\"}",
    b"{\"resultType\":\"other\"}",
    b"{\"resultType\":7}",
    b"{\"resultType\":null,\"a\":1}",
    b"{\"a\":1,\"resultType\":\"complete\",\"resultType\":\"complete\"}",
    b"{\"result\\u0054ype\":\"compl\\u0065te\"}",
    b"{\"\\ud800\":1,\"resultType\":\"\\ud800\"}",
    b"{\"a\" :\r\n[1,\n2] , \"b\":{}}",
    b"[{\"resultType\":\"complete\"}]",
];

/// `mcp::write_result`: `NotAnObject` for a result that is not an object; under a version
/// before 2026-07-28 (as text), `write_response`'s line; from it on, `BadResultType` for a
/// `resultType` that is not one string, else the result with `"resultType":"complete"` first
/// when it had none, as it is otherwise.
fn check_write_result(input: &mut Input<'_>) {
    let id_token = any_id(input);
    let id = Id::from_token(&id_token).expect("a token");
    let result = payload(input, &RESULTS);
    let version = any_version(input);
    let what = format!(
        "result {:?}, id {:?}, version {version:?}",
        String::from_utf8_lossy(&result),
        String::from_utf8_lossy(&id_token)
    );
    let raw = RawJson::new(&result).expect("valid JSON is a RawJson");
    let mut out = BytesMut::from(&b"before\n"[..]);
    let got = mcp::write_result(&mut out, id, raw, &version);
    let frame = written(&out, &what);

    let newest = version.as_str() >= versions::V2026_07_28;
    let given = members(&result);
    let types: Vec<Vec<u8>> = given
        .iter()
        .flatten()
        .filter(|(k, _)| k == b"resultType")
        .map(|(_, v)| v.clone())
        .collect();
    let want = match &given {
        None => Err(ResultError::NotAnObject),
        Some(_) if !newest => Ok(false),
        Some(_) => match &types[..] {
            [] => Ok(true),
            [t] if t[0] == b'"' => Ok(false),
            _ => Err(ResultError::BadResultType),
        },
    };
    assert_eq!(got, want.map(|_| ()), "{what}");
    let Ok(added) = want else {
        assert_eq!(frame, None, "nothing written on a refusal, {what}");
        return;
    };
    let frame = frame.unwrap_or_else(|| panic!("nothing written, {what}"));
    let what = format!("{what}: {:?}", String::from_utf8_lossy(frame));
    let written_result = member(frame, "result");
    let mut expected = spaced_members(given.as_ref().unwrap());
    if added {
        expected.insert(0, (b"resultType".to_vec(), b"\"complete\"".to_vec()));
    }
    assert_eq!(members(&written_result).unwrap(), expected, "{what}");
    if !added {
        assert_eq!(written_result, spaced(&result), "written as it is, {what}");
    }
    assert_eq!(member(frame, "id"), id_token, "{what}");
    assert_eq!(member(frame, "jsonrpc"), b"\"2.0\"", "{what}");
    if let (Some(got), Some(given)) = (value(frame), value(&result)) {
        let mut want = given;
        if added {
            want["resultType"] = Value::from("complete");
        }
        assert_eq!(got["result"], want, "{what}");
    }

    // Whether MCP's decoder of the version takes the type a client reads (from 2026-07-28
    // on, where the result holds one string as its type).
    let type_ok = !newest || {
        let read_type = match &types[..] {
            [t] if !added => unescaped(t),
            _ => b"complete".to_vec(),
        };
        DecodeOptions::RESULT_TYPES
            .iter()
            .any(|t| t.as_bytes() == read_type)
    };
    for (dialect, decoder) in decoders(Role::Client, Some(&version)) {
        let decoded = decoder.decode(frame);
        let expect = dialect == Dialect::JsonRpc2 || (mcp_id(&id_token) && type_ok);
        match decoded {
            Ok(Message::Response(r)) if expect => {
                assert_eq!(r.id.raw(), &id_token[..], "{dialect:?}, {what}");
                assert_eq!(
                    r.result.as_bytes(),
                    &written_result[..],
                    "{dialect:?}, {what}"
                );
            }
            Ok(Message::Response(_)) => panic!("a response it must refuse, {dialect:?}, {what}"),
            other if expect => panic!("{other:?}, not a response, {dialect:?}, {what}"),
            _ => {}
        }
    }
}

// ------------------------------------------------------------------ write_request_with_progress

const PARAMS: [&[u8]; 14] = [
    b"{}",
    b"{ }",
    b"{\"name\":\"add\",\"_meta\":{\"trace\":1}}",
    b"{\"_meta\":{}}",
    b"{\"_meta\":{ \n}}",
    b"{\"_meta\":{\"progressToken\":null,\"trace\":1}}",
    b"{\"_meta\":{\"progressToken\":1}}",
    b"{\"_meta\":{\"progressToken\":null,\"progressToken\":null}}",
    b"{\"_meta\":{\"progress\\u0054oken\":null}}",
    b"{\"_meta\":[],\"a\":1}",
    b"{\"_meta\":{},\"_meta\":{}}",
    b"{\"\\u005fmeta\":{\"a\":\"\\ud800\"}}",
    b"[1,2]",
    b"{\"a\":\r\n1,\"_meta\":{\"b\" : [2,\n3]}}",
];

/// `mcp::write_request_with_progress`: `BadId`, `BadToken` for an id or a token MCP does not
/// take; no params: `{"_meta":{"progressToken":T}}`; `NotAnObject` for params or a `_meta`
/// that is not an object; `Malformed` for `_meta` twice; `AlreadyAsked` for a
/// `progressToken` there but a single `null`; otherwise the token first in `_meta` (the
/// `null`'s place when there was one; a new `_meta` first when there was none), every other
/// member as it was.
fn check_request_with_progress(input: &mut Input<'_>) {
    let id_token = any_id(input);
    let token_token = any_id(input);
    let method = input.string();
    let params = (!input.byte().is_multiple_of(5)).then(|| payload(input, &PARAMS));
    let what = format!(
        "id {:?}, token {:?}, method {method:?}, params {:?}",
        String::from_utf8_lossy(&id_token),
        String::from_utf8_lossy(&token_token),
        params.as_deref().map(String::from_utf8_lossy)
    );
    let id = Id::from_token(&id_token).expect("a token");
    let token = Id::from_token(&token_token).expect("a token");
    let raw = raw_params(params.as_deref());
    let mut out = BytesMut::from(&b"before\n"[..]);
    let got = mcp::write_request_with_progress(&mut out, id, &method, raw, token);
    let frame = written(&out, &what);

    let token_member = (b"progressToken".to_vec(), token_token.clone());
    // The params the line must carry, member by member, with `_meta`'s own.
    let want: Result<Vec<(Vec<u8>, Want)>, ProgressRequestError> = (|| {
        if !mcp_id(&id_token) {
            return Err(ProgressRequestError::BadId);
        }
        if !mcp_id(&token_token) {
            return Err(ProgressRequestError::BadToken);
        }
        let Some(params) = &params else {
            return Ok(vec![(
                b"_meta".to_vec(),
                Want::Meta(vec![token_member.clone()]),
            )]);
        };
        let given = members(params).ok_or(ProgressRequestError::NotAnObject)?;
        let metas: Vec<usize> = (0..given.len())
            .filter(|&i| given[i].0 == b"_meta")
            .collect();
        let mut out: Vec<(Vec<u8>, Want)> = spaced_members(&given)
            .into_iter()
            .map(|(k, v)| (k, Want::Raw(v)))
            .collect();
        match metas[..] {
            [] => out.insert(
                0,
                (b"_meta".to_vec(), Want::Meta(vec![token_member.clone()])),
            ),
            [at] => {
                let meta = members(&given[at].1).ok_or(ProgressRequestError::NotAnObject)?;
                let tokens: Vec<usize> = (0..meta.len())
                    .filter(|&i| meta[i].0 == b"progressToken")
                    .collect();
                let mut meta = spaced_members(&meta);
                match tokens[..] {
                    [] => meta.insert(0, token_member.clone()),
                    [t] if meta[t].1 == b"null" => meta[t] = token_member.clone(),
                    _ => return Err(ProgressRequestError::AlreadyAsked),
                }
                out[at].1 = Want::Meta(meta);
            }
            _ => return Err(ProgressRequestError::Malformed),
        }
        Ok(out)
    })();
    assert_eq!(got, want.as_ref().map(|_| ()).map_err(|e| *e), "{what}");
    let Ok(want) = want else {
        assert_eq!(frame, None, "nothing written on a refusal, {what}");
        return;
    };
    let frame = frame.unwrap_or_else(|| panic!("nothing written, {what}"));
    let what = format!("{what}: {:?}", String::from_utf8_lossy(frame));
    let written_params = member(frame, "params");
    let got_members = members(&written_params).expect("params are an object");
    assert_members(&got_members, &want, &what);
    assert_eq!(member(frame, "id"), id_token, "{what}");
    assert_eq!(
        unescaped(&member(frame, "method")),
        method.as_bytes(),
        "{what}"
    );

    for (dialect, decoder) in decoders(Role::Server, None) {
        let decoded = decoder.decode(frame);
        let Ok(msg @ Message::Request(r)) = &decoded else {
            panic!("{decoded:?}, not a request, {dialect:?}, {what}");
        };
        assert_eq!(r.id.raw(), &id_token[..], "{dialect:?}, {what}");
        assert_eq!(r.method.decode(), method, "{dialect:?}, {what}");
        let p = r.params.expect("params");
        assert_eq!(p.as_bytes(), &written_params[..], "{dialect:?}, {what}");
        let read = mcp::progress_token(msg).map(|t| t.raw());
        assert_eq!(read, Some(&token_token[..]), "{dialect:?}, {what}");
    }
}

/// What a member of the params written must be.
#[derive(Clone)]
enum Want {
    /// These bytes.
    Raw(Vec<u8>),
    /// A string of these bytes, unescaped.
    String(Vec<u8>),
    /// An object of these members, in this order (`_meta`).
    Meta(Vec<(Vec<u8>, Vec<u8>)>),
    /// An object of these members, each as it must be, in this order.
    Members(WantMembers),
}

// --------------------------------------------------------------------- write_request_with_meta

/// `mcp::write_request_with_meta`: `BadId` for an id MCP does not take; `BadKey(i)` for the
/// first key of `meta` that MCP's naming rules refuse; `Present(i)` for a key of `meta` that
/// an earlier one repeats; `NotAnObject` for params or a `_meta` that is not an object,
/// `Malformed` for `_meta` twice, with members or without; with no members,
/// `encode::write_request`'s line; else `Present(i)` for the first key of `meta` that `_meta`
/// holds; otherwise the members first in `_meta` (a new `_meta` first when there was none),
/// every other member as it was.
fn check_request_with_meta(input: &mut Input<'_>) {
    // 2026-07-28's keys, others MCP's naming rules allow, and two they refuse.
    const KEYS: [&str; 6] = [
        meta_keys::PROTOCOL_VERSION,
        meta_keys::CLIENT_CAPABILITIES,
        "progressToken",
        "example.com/x_y-z.1",
        "x-",
        "1.example/x",
    ];
    let id_token = any_id(input);
    let method = input.string();
    let params = (!input.byte().is_multiple_of(5)).then(|| payload(input, &PARAMS));
    let mut keys = Vec::new();
    let mut strings = Vec::new();
    let mut jsons = Vec::new();
    for _ in 0..input.byte() % 4 {
        let pick = input.byte();
        keys.push(match KEYS.get(usize::from(pick % 8)) {
            Some(key) => key.to_string(),
            None => input.string(),
        });
        if pick & 0x80 == 0 {
            strings.push(Some(any_version(input)));
            jsons.push(None);
        } else {
            strings.push(None);
            jsons.push(Some(payload(input, &PARAMS)));
        }
    }
    let meta: Vec<(&str, MetaValue<'_>)> = (0..keys.len())
        .map(|i| {
            let value = match (&strings[i], &jsons[i]) {
                (Some(s), _) => MetaValue::Str(s),
                (None, Some(j)) => MetaValue::Json(RawJson::new(j).expect("valid JSON")),
                (None, None) => unreachable!("one of the two is set"),
            };
            (keys[i].as_str(), value)
        })
        .collect();
    let what = format!(
        "id {:?}, method {method:?}, params {:?}, meta {meta:?}",
        String::from_utf8_lossy(&id_token),
        params.as_deref().map(String::from_utf8_lossy)
    );
    let id = Id::from_token(&id_token).expect("a token");
    let raw = raw_params(params.as_deref());
    let mut out = BytesMut::from(&b"before\n"[..]);
    let got = mcp::write_request_with_meta(&mut out, id, &method, raw, &meta);
    let frame = written(&out, &what);

    // The members added, as they must read: the key, and the value's bytes (a string's
    // unescaped) with whether it is a string.
    let added: WantMembers = meta
        .iter()
        .map(|(k, v)| {
            let want = match v {
                MetaValue::Str(s) => Want::String(s.as_bytes().to_vec()),
                MetaValue::Json(j) => Want::Raw(spaced(j.as_bytes())),
                _ => unreachable!("the two kinds the test makes"),
            };
            (k.as_bytes().to_vec(), want)
        })
        .collect();
    // The params the line must carry, member by member (`None`: no params).
    let want: Result<Option<WantMembers>, MetaRequestError> = (|| {
        if !mcp_id(&id_token) {
            return Err(MetaRequestError::BadId);
        }
        if let Some(i) = keys.iter().position(|k| MetaKey::parse(k).is_err()) {
            return Err(MetaRequestError::BadKey(i));
        }
        if let Some(i) = (1..keys.len()).find(|&i| keys[..i].contains(&keys[i])) {
            return Err(MetaRequestError::Present(i));
        }
        let given = match &params {
            None if added.is_empty() => return Ok(None),
            None => Vec::new(),
            Some(params) => members(params).ok_or(MetaRequestError::NotAnObject)?,
        };
        let mut out: WantMembers = spaced_members(&given)
            .into_iter()
            .map(|(k, v)| (k, Want::Raw(v)))
            .collect();
        let metas: Vec<usize> = (0..given.len())
            .filter(|&i| given[i].0 == b"_meta")
            .collect();
        // With no members to add, params are checked as with some, then written as they are.
        match metas[..] {
            [] if added.is_empty() => {}
            [] => out.insert(0, (b"_meta".to_vec(), Want::Members(added.clone()))),
            [at] => {
                let existing = members(&given[at].1).ok_or(MetaRequestError::NotAnObject)?;
                if added.is_empty() {
                    return Ok(Some(out));
                }
                if let Some(i) = added
                    .iter()
                    .position(|(k, _)| existing.iter().any(|(e, _)| e == k))
                {
                    return Err(MetaRequestError::Present(i));
                }
                let mut all = added.clone();
                all.extend(
                    spaced_members(&existing)
                        .into_iter()
                        .map(|(k, v)| (k, Want::Raw(v))),
                );
                out[at].1 = Want::Members(all);
            }
            _ => return Err(MetaRequestError::Malformed),
        }
        Ok(Some(out))
    })();
    assert_eq!(got, want.as_ref().map(|_| ()).map_err(|e| *e), "{what}");
    let Ok(want) = want else {
        assert_eq!(frame, None, "nothing written on a refusal, {what}");
        return;
    };
    let frame = frame.unwrap_or_else(|| panic!("nothing written, {what}"));
    let what = format!("{what}: {:?}", String::from_utf8_lossy(frame));
    let envelope = members(frame).expect("an object");
    let written_params = envelope
        .iter()
        .find(|(k, _)| k == b"params")
        .map(|(_, v)| v.clone());
    assert_eq!(written_params.is_some(), want.is_some(), "params, {what}");
    if let (Some(written_params), Some(want)) = (&written_params, &want) {
        let got_members = members(written_params).expect("params are an object");
        assert_members(&got_members, want, &what);
    }
    assert_eq!(member(frame, "id"), id_token, "{what}");
    assert_eq!(
        unescaped(&member(frame, "method")),
        method.as_bytes(),
        "{what}"
    );

    let version = meta.iter().find_map(|(k, v)| match v {
        MetaValue::Str(s) if *k == meta_keys::PROTOCOL_VERSION => Some(*s),
        _ => None,
    });
    for (dialect, decoder) in decoders(Role::Server, None) {
        let decoded = decoder.decode(frame);
        let Ok(Message::Request(r)) = &decoded else {
            panic!("{decoded:?}, not a request, {dialect:?}, {what}");
        };
        assert_eq!(r.id.raw(), &id_token[..], "{dialect:?}, {what}");
        assert_eq!(r.method.decode(), method, "{dialect:?}, {what}");
        let read = r.params.map(|p| p.as_bytes().to_vec());
        assert_eq!(read, written_params, "{dialect:?}, {what}");
        if let Some(version) = version {
            let read = RequestMeta::from_request(r).protocol_version;
            assert_eq!(
                read.map(|v| v.decode()),
                Some(version.into()),
                "{dialect:?}, {what}"
            );
        }
    }
}

/// An object's members, each as it must be, in order.
type WantMembers = Vec<(Vec<u8>, Want)>;

/// `got`, an object's members, are `want`'s, in order.
fn assert_members(got: &[(Vec<u8>, Vec<u8>)], want: &[(Vec<u8>, Want)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for ((gk, gv), (wk, wv)) in got.iter().zip(want) {
        assert_eq!(gk, wk, "{what}");
        match wv {
            Want::Raw(wv) => assert_eq!(gv, wv, "{what}"),
            Want::String(ws) => assert_eq!(&unescaped(gv), ws, "{what}"),
            Want::Meta(want_meta) => {
                let got_meta = members(gv).expect("`_meta` is an object");
                assert_eq!(&got_meta, want_meta, "`_meta`, {what}");
            }
            Want::Members(want_members) => {
                let got_members = members(gv).expect("an object");
                assert_members(&got_members, want_members, what);
            }
        }
    }
}

// ------------------------------------------------------------------------ write_unsupported

/// `versions::write_unsupported`: always one line, an error response to the id with the code,
/// "Unsupported protocol version", and `data` `{"supported":[...],"requested":"..."}`;
/// decoded as such wherever the id form is allowed (JSON-RPC: an id, `null` among them; MCP:
/// a string, an integer, `null` or none).
fn check_unsupported(input: &mut Input<'_>) {
    let id_token = any_id(input);
    let reply_id = match input.byte() % 4 {
        0 => ReplyId::Null,
        1 => ReplyId::Absent,
        _ => ReplyId::Id(Id::from_token(&id_token).expect("a token")),
    };
    let code = match input.byte() % 3 {
        0 => ErrorCode::MCP_UNSUPPORTED_PROTOCOL_VERSION,
        1 => ErrorCode::INVALID_PARAMS,
        _ => ErrorCode(input.i64()),
    };
    let requested = any_version(input);
    let supported: Vec<String> = (0..input.byte() % 5).map(|_| any_version(input)).collect();
    let supported_refs: Vec<&str> = supported.iter().map(String::as_str).collect();
    let what =
        format!("id {reply_id:?}, code {code:?}, requested {requested:?}, supported {supported:?}");
    let mut out = BytesMut::from(&b"before\n"[..]);
    versions::write_unsupported(&mut out, reply_id, code, &requested, &supported_refs);
    let frame = written(&out, &what).unwrap_or_else(|| panic!("nothing written, {what}"));
    let what = format!("{what}: {:?}", String::from_utf8_lossy(frame));
    let read = value(frame).unwrap_or_else(|| {
        // Only an id given holds a lone surrogate escape.
        assert!(matches!(reply_id, ReplyId::Id(_)), "{what}");
        let mut probe = frame.to_vec();
        let at = probe
            .windows(id_token.len())
            .position(|w| w == id_token)
            .unwrap();
        probe.splice(at..at + id_token.len(), *b"0");
        value(&probe).unwrap_or_else(|| panic!("serde_json refuses it, {what}"))
    });
    assert_eq!(read["jsonrpc"], "2.0", "{what}");
    assert_eq!(read["error"]["code"], code.get(), "{what}");
    assert_eq!(
        read["error"]["message"], "Unsupported protocol version",
        "{what}"
    );
    let data = serde_json::json!({"supported": supported, "requested": requested});
    assert_eq!(read["error"]["data"], data, "{what}");
    let data_raw = member(&member(frame, "error"), "data");
    let keys: Vec<Vec<u8>> = members(&data_raw)
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, [&b"supported"[..], b"requested"], "{what}");
    match reply_id {
        ReplyId::Absent => assert!(read.get("id").is_none(), "{what}"),
        ReplyId::Null => assert_eq!(member(frame, "id"), b"null", "{what}"),
        ReplyId::Id(_) => assert_eq!(member(frame, "id"), id_token, "{what}"),
    }

    for (dialect, decoder) in decoders(Role::Client, None) {
        let expect = match (dialect, reply_id) {
            (Dialect::JsonRpc2, ReplyId::Absent) => false,
            (Dialect::JsonRpc2, _) | (Dialect::Mcp, ReplyId::Absent | ReplyId::Null) => true,
            (Dialect::Mcp, ReplyId::Id(_)) => mcp_error_id(&id_token),
            (other, _) => panic!("a dialect this check does not know: {other:?}"),
        };
        match decoder.decode(frame) {
            Ok(Message::ErrorResponse(e)) if expect => {
                assert_eq!(
                    e.id.map(|i| i.raw()),
                    reply_id.token(),
                    "{dialect:?}, {what}"
                );
                assert_eq!(e.error.code, code, "{dialect:?}, {what}");
                let data = e.error.data.expect("data");
                assert_eq!(data.as_bytes(), &data_raw[..], "{dialect:?}, {what}");
            }
            Ok(Message::ErrorResponse(_)) => {
                panic!("an id form it must refuse, {dialect:?}, {what}")
            }
            other if expect => panic!("{other:?}, not an error response, {dialect:?}, {what}"),
            _ => {}
        }
    }
}

// --------------------------------------------------------------------------- write_cancelled

/// `mcp::write_cancelled`: `false` and nothing written for an id MCP does not take, else a
/// `notifications/cancelled` whose params are `requestId` (the token as it is) and the reason
/// when given, which both dialects decode and `Cancelled` reads back.
fn check_cancelled(input: &mut Input<'_>) {
    let id_token = any_id(input);
    let reason = (!input.byte().is_multiple_of(3)).then(|| input.string());
    let what = format!(
        "id {:?}, reason {reason:?}",
        String::from_utf8_lossy(&id_token)
    );
    let id = Id::from_token(&id_token).expect("a token");
    let mut out = BytesMut::from(&b"before\n"[..]);
    let got = mcp::write_cancelled(&mut out, id, reason.as_deref());
    let frame = written(&out, &what);
    let want = mcp_id(&id_token);
    assert_eq!(got, want, "{what}");
    assert_eq!(
        frame.is_some(),
        want,
        "something written exactly when true, {what}"
    );
    let Some(frame) = frame else { return };
    let what = format!("{what}: {:?}", String::from_utf8_lossy(frame));
    let params = member(frame, "params");
    let mut expected = vec![(b"requestId".to_vec(), id_token.clone())];
    if let Some(reason) = &reason {
        let mut s = BytesMut::new();
        rpcwire::encode::write_json_string(&mut s, reason);
        expected.push((b"reason".to_vec(), s.to_vec()));
        let read = members(&params).unwrap();
        assert_eq!(unescaped(&read[1].1), reason.as_bytes(), "{what}");
    }
    assert_eq!(members(&params).unwrap(), expected, "{what}");
    assert_eq!(
        unescaped(&member(frame, "method")),
        b"notifications/cancelled"
    );
    for (dialect, decoder) in decoders(Role::Server, None) {
        let decoded = decoder.decode(frame);
        let Ok(Message::Notification(n)) = &decoded else {
            panic!("{decoded:?}, not a notification, {dialect:?}, {what}");
        };
        let c =
            mcp::Cancelled::from_notification(n).unwrap_or_else(|| panic!("{dialect:?}, {what}"));
        assert_eq!(c.request_id.raw(), &id_token[..], "{dialect:?}, {what}");
        let read = c.reason.map(|r| r.decode().into_owned());
        assert_eq!(read, reason, "{dialect:?}, {what}");
    }
}

// ---------------------------------------------------------------------------- write_progress

/// A number: any `f64` from the input's bits, or one at an edge of `Debug`'s forms.
fn any_f64(input: &mut Input<'_>) -> f64 {
    const EDGES: [f64; 14] = [
        0.0,
        -0.0,
        0.5,
        1e16,
        9999999999999998.0,
        1e-4,
        9.999e-5,
        5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    match input.byte() % 3 {
        0 => f64::from_bits(input.i64() as u64),
        1 => EDGES[usize::from(input.byte()) % EDGES.len()],
        _ => f64::from(input.byte()) - 100.0,
    }
}

/// The number a JSON number token reads as, correctly rounded.
fn number(token: &[u8]) -> f64 {
    std::str::from_utf8(token)
        .unwrap()
        .parse()
        .expect("a number")
}

/// `mcp::write_progress`: `false` and nothing written for a number that is not finite or a
/// token MCP does not take, else a `notifications/progress` whose params are the token as it
/// is, `progress`, `total` and `message` when given, each number a JSON number that reads back
/// as the same `f64` (its sign of zero too).
fn check_progress(input: &mut Input<'_>) {
    let token_token = any_id(input);
    let progress = any_f64(input);
    let total = (!input.byte().is_multiple_of(3)).then(|| any_f64(input));
    let message = (!input.byte().is_multiple_of(3)).then(|| input.string());
    let what = format!(
        "token {:?}, progress {progress:?}, total {total:?}, message {message:?}",
        String::from_utf8_lossy(&token_token)
    );
    let token = Id::from_token(&token_token).expect("a token");
    let mut out = BytesMut::from(&b"before\n"[..]);
    let got = mcp::write_progress(&mut out, token, progress, total, message.as_deref());
    let frame = written(&out, &what);
    let want = mcp_id(&token_token) && progress.is_finite() && total.is_none_or(f64::is_finite);
    assert_eq!(got, want, "{what}");
    assert_eq!(
        frame.is_some(),
        want,
        "something written exactly when true, {what}"
    );
    let Some(frame) = frame else { return };
    let what = format!("{what}: {:?}", String::from_utf8_lossy(frame));
    let params = members(&member(frame, "params")).unwrap();
    let keys: Vec<&[u8]> = params.iter().map(|(k, _)| &k[..]).collect();
    let mut want_keys: Vec<&[u8]> = vec![b"progressToken", b"progress"];
    if total.is_some() {
        want_keys.push(b"total");
    }
    if message.is_some() {
        want_keys.push(b"message");
    }
    assert_eq!(keys, want_keys, "{what}");
    assert_eq!(params[0].1, token_token, "{what}");
    assert_eq!(number(&params[1].1).to_bits(), progress.to_bits(), "{what}");
    if let Some(total) = total {
        assert_eq!(number(&params[2].1).to_bits(), total.to_bits(), "{what}");
    }
    if let Some(message) = &message {
        assert_eq!(
            unescaped(&params.last().unwrap().1),
            message.as_bytes(),
            "{what}"
        );
    }
    let read: &RawValue = serde_json::from_slice(frame).unwrap();
    assert!(!read.get().is_empty());
    for (dialect, decoder) in decoders(Role::Server, None) {
        let decoded = decoder.decode(frame);
        let Ok(Message::Notification(n)) = &decoded else {
            panic!("{decoded:?}, not a notification, {dialect:?}, {what}");
        };
        let p =
            mcp::Progress::from_notification(n).unwrap_or_else(|| panic!("{dialect:?}, {what}"));
        assert_eq!(p.token.raw(), &token_token[..], "{dialect:?}, {what}");
        assert_eq!(
            p.progress.to_bits(),
            progress.to_bits(),
            "{dialect:?}, {what}"
        );
        assert_eq!(
            p.total.map(f64::to_bits),
            total.map(f64::to_bits),
            "{dialect:?}, {what}"
        );
        let read = p.message.map(|m| m.decode().into_owned());
        assert_eq!(read, message, "{dialect:?}, {what}");
    }
}

// -------------------------------------------------------------------------------- write_retry

/// A member of an object: its key, unescaped, and its value's bytes.
type Member = (Vec<u8>, Vec<u8>);

const RETRY_PARAMS: [&[u8]; 10] = [
    b"{}",
    b"{\"name\":\"greet\",\"arguments\":{\"x\":[1,\n2]}}",
    b"{\"inputResponses\":{\"a\":1},\"requestState\":\"s\",\"name\":\"t\"}",
    b"{\"input\\u0052esponses\":1,\"request\\u0053tate\":2}",
    b"{\"name\":1,\"name\":2}",
    b"{\"requestState\":\"a\",\"requestState\":\"b\"}",
    b"{\"\\ud800\":\"\\ud800\"}",
    b"{ \r\n }",
    b"[1]",
    b"\"x\"",
];

/// `mcp::write_retry`: `BadId` for an id MCP refuses, `NotAnObject` for params that are not
/// an object, `DuplicateKey` for two answers under one key, nothing written; else one request
/// whose params are the given ones member by member (duplicates kept, line breaks as spaces)
/// without those named `inputResponses` or `requestState` (escapes decoded), then
/// `inputResponses` with each answer under its key when there is any, then `requestState`
/// as given.
fn check_retry(input: &mut Input<'_>) {
    let id_token = any_id(input);
    let method = input.string();
    let params = (!input.byte().is_multiple_of(4)).then(|| payload(input, &RETRY_PARAMS));
    let answers: Vec<(String, Vec<u8>)> = (0..input.byte() % 4)
        .map(|_| {
            let key = match input.byte() % 3 {
                0 => "k".to_string(),
                _ => input.string(),
            };
            (key, payload(input, &RESULTS))
        })
        .collect();
    let state =
        (input.byte().is_multiple_of(2)).then(|| serde_json::to_string(&input.string()).unwrap());
    let what = format!(
        "id {:?}, method {method:?}, params {:?}, answers {answers:?}, state {state:?}",
        String::from_utf8_lossy(&id_token),
        params.as_deref().map(String::from_utf8_lossy)
    );
    let id = Id::from_token(&id_token).expect("a token");
    let raw = raw_params(params.as_deref());
    let raw_answers: Vec<(&str, RawJson<'_>)> = answers
        .iter()
        .map(|(k, v)| (k.as_str(), RawJson::new(v).expect("valid JSON")))
        .collect();
    let state_str = state
        .as_deref()
        .map(|s| RawJson::new(s.as_bytes()).unwrap().as_str().unwrap());
    let mut out = BytesMut::from(&b"before\n"[..]);
    let got = mcp::write_retry(&mut out, id, &method, raw, &raw_answers, state_str);
    let frame = written(&out, &what);

    let want: Result<Vec<Member>, RetryError> = (|| {
        if !mcp_id(&id_token) {
            return Err(RetryError::BadId);
        }
        let given = match &params {
            None => Vec::new(),
            Some(params) => members(params).ok_or(RetryError::NotAnObject)?,
        };
        let keys: Vec<&str> = answers.iter().map(|(k, _)| k.as_str()).collect();
        if (1..keys.len()).any(|i| keys[..i].contains(&keys[i])) {
            return Err(RetryError::DuplicateKey);
        }
        let mut out: Vec<Member> = spaced_members(&given)
            .into_iter()
            .filter(|(k, _)| k != b"inputResponses" && k != b"requestState")
            .collect();
        if !answers.is_empty() {
            let mut object = b"{".to_vec();
            for (i, (k, v)) in answers.iter().enumerate() {
                if i > 0 {
                    object.push(b',');
                }
                object.extend_from_slice(serde_json::to_string(k).unwrap().as_bytes());
                object.push(b':');
                object.extend_from_slice(&spaced(v));
            }
            object.push(b'}');
            out.push((b"inputResponses".to_vec(), object));
        }
        if let Some(state) = &state {
            out.push((b"requestState".to_vec(), state.as_bytes().to_vec()));
        }
        Ok(out)
    })();
    assert_eq!(got, want.as_ref().map(|_| ()).map_err(|e| *e), "{what}");
    let Ok(want) = want else {
        assert_eq!(frame, None, "nothing written on a refusal, {what}");
        return;
    };
    let frame = frame.unwrap_or_else(|| panic!("nothing written, {what}"));
    let what = format!("{what}: {:?}", String::from_utf8_lossy(frame));
    let written_params = member(frame, "params");
    let got_members = members(&written_params).expect("params are an object");
    assert_eq!(got_members.len(), want.len(), "{what}");
    for ((gk, gv), (wk, wv)) in got_members.iter().zip(&want) {
        assert_eq!(gk, wk, "{what}");
        if gk == b"inputResponses" {
            // (The keys as serde_json escapes them, the writer as it does: compare them read.)
            assert_eq!(members(gv), members(wv), "{what}");
        } else {
            assert_eq!(gv, wv, "{what}");
        }
    }
    assert_eq!(member(frame, "id"), id_token, "{what}");
    assert_eq!(
        unescaped(&member(frame, "method")),
        method.as_bytes(),
        "{what}"
    );
    for (dialect, decoder) in decoders(Role::Server, None) {
        let decoded = decoder.decode(frame);
        let Ok(Message::Request(r)) = &decoded else {
            panic!("{decoded:?}, not a request, {dialect:?}, {what}");
        };
        assert_eq!(r.id.raw(), &id_token[..], "{dialect:?}, {what}");
        assert_eq!(
            r.params.map(|p| p.as_bytes()),
            Some(&written_params[..]),
            "{dialect:?}, {what}"
        );
        // What the server reads of it: every answer, in order, when each is an object (a
        // result), and the state.
        let read = mcp::Retry::from_request(r);
        if answers.iter().any(|(_, v)| members(v).is_none()) {
            assert_eq!(
                read,
                Err(mcp::RetryReadError::BadInputResponses),
                "{dialect:?}, {what}"
            );
            continue;
        }
        let read = read.unwrap_or_else(|e| panic!("{e:?}, {dialect:?}, {what}"));
        assert_eq!(
            read.is_retry(),
            !answers.is_empty() || state.is_some(),
            "{dialect:?}, {what}"
        );
        let read_answers: Vec<(String, Vec<u8>)> = read
            .responses()
            .map(|(k, v)| (k.decode().into_owned(), v.as_bytes().to_vec()))
            .collect();
        let want_answers: Vec<(String, Vec<u8>)> = answers
            .iter()
            .map(|(k, v)| (k.clone(), spaced(v)))
            .collect();
        assert_eq!(read_answers, want_answers, "{dialect:?}, {what}");
        for (key, answer) in &want_answers {
            let found = read.response(key).map(|v| v.as_bytes().to_vec());
            assert_eq!(found.as_ref(), Some(answer), "{dialect:?}, {what}");
        }
        // (The state as given, quotes and escapes included; read, between its quotes.)
        let given_state = state.as_deref().map(|s| &s.as_bytes()[1..s.len() - 1]);
        let read_state = read.request_state.map(|s| s.raw());
        assert_eq!(read_state, given_state, "{dialect:?}, {what}");
    }
}

// --------------------------------------------------------------------- write_input_required

/// `mcp::write_input_required`: `NothingAsked` with neither a request nor a state,
/// `DuplicateKey` for two requests under one key, `ParamsNotAnObject` for params that are not
/// an object, nothing written; else one success response under the id as it is, whose result
/// is `"resultType":"input_required"`, then `inputRequests` (each request under its key:
/// `method`, then `params` when given, line breaks as spaces) when there is any, then
/// `requestState`. JSON-RPC's decoders read it as a response, MCP's 2026-07-28 ones when MCP
/// takes the id, and `InputRequired::from_result` gives back every request in order and the
/// state.
fn check_input_required(input: &mut Input<'_>) {
    let id_token = any_id(input);
    let requests: Vec<(String, String, Option<Vec<u8>>)> = (0..input.byte() % 4)
        .map(|_| {
            let key = match input.byte() % 3 {
                0 => "k".to_string(),
                _ => input.string(),
            };
            let method = input.string();
            let params = (!input.byte().is_multiple_of(4)).then(|| payload(input, &RETRY_PARAMS));
            (key, method, params)
        })
        .collect();
    let state = (input.byte().is_multiple_of(2)).then(|| input.string());
    let what = format!(
        "id {:?}, requests {requests:?}, state {state:?}",
        String::from_utf8_lossy(&id_token),
    );
    let id = Id::from_token(&id_token).expect("a token");
    let raw_requests: Vec<(&str, &str, Option<RawJson<'_>>)> = requests
        .iter()
        .map(|(k, m, p)| {
            let params = p.as_deref().map(|p| RawJson::new(p).expect("valid JSON"));
            (k.as_str(), m.as_str(), params)
        })
        .collect();
    let mut out = BytesMut::from(&b"before\n"[..]);
    let got = mcp::write_input_required(&mut out, id, &raw_requests, state.as_deref());
    let frame = written(&out, &what);

    let keys: Vec<&str> = requests.iter().map(|(k, _, _)| k.as_str()).collect();
    let want = if requests.is_empty() && state.is_none() {
        Err(InputRequiredWriteError::NothingAsked)
    } else if (1..keys.len()).any(|i| keys[..i].contains(&keys[i])) {
        Err(InputRequiredWriteError::DuplicateKey)
    } else if requests
        .iter()
        .any(|(_, _, p)| p.as_ref().is_some_and(|p| members(p).is_none()))
    {
        Err(InputRequiredWriteError::ParamsNotAnObject)
    } else {
        Ok(())
    };
    assert_eq!(got, want, "{what}");
    if want.is_err() {
        assert_eq!(frame, None, "nothing written on a refusal, {what}");
        return;
    }
    let frame = frame.unwrap_or_else(|| panic!("nothing written, {what}"));
    let what = format!("{what}: {:?}", String::from_utf8_lossy(frame));
    assert_eq!(member(frame, "id"), id_token, "{what}");
    let result = member(frame, "result");
    let got_members = members(&result).expect("the result is an object");
    let mut want_keys: Vec<&[u8]> = vec![b"resultType"];
    if !requests.is_empty() {
        want_keys.push(b"inputRequests");
    }
    if state.is_some() {
        want_keys.push(b"requestState");
    }
    let got_keys: Vec<&[u8]> = got_members.iter().map(|(k, _)| &k[..]).collect();
    assert_eq!(got_keys, want_keys, "{what}");
    assert_eq!(got_members[0].1, b"\"input_required\"", "{what}");
    if let Some(state) = &state {
        let written_state = &got_members.last().unwrap().1;
        assert_eq!(unescaped(written_state), state.as_bytes(), "{what}");
    }
    if !requests.is_empty() {
        let asked = members(&got_members[1].1).expect("inputRequests is an object");
        assert_eq!(asked.len(), requests.len(), "{what}");
        for ((key, request), (want_key, method, params)) in asked.iter().zip(&requests) {
            assert_eq!(key, want_key.as_bytes(), "{what}");
            let mut want_request = vec![(b"method".to_vec(), Vec::new())];
            if let Some(params) = params {
                want_request.push((b"params".to_vec(), spaced(params)));
            }
            let got_request = members(request).expect("a request is an object");
            assert_eq!(got_request.len(), want_request.len(), "{what}");
            assert_eq!(unescaped(&got_request[0].1), method.as_bytes(), "{what}");
            assert_eq!(got_request[1..], want_request[1..], "{what}");
        }
    }

    for (dialect, decoder) in decoders(Role::Client, Some(versions::V2026_07_28)) {
        let decoded = decoder.decode(frame);
        let expect = dialect == Dialect::JsonRpc2 || mcp_id(&id_token);
        let r = match decoded {
            Ok(Message::Response(r)) if expect => r,
            Ok(Message::Response(_)) => panic!("a response it must refuse, {dialect:?}, {what}"),
            other if expect => panic!("{other:?}, not a response, {dialect:?}, {what}"),
            _ => continue,
        };
        assert_eq!(r.id.raw(), &id_token[..], "{dialect:?}, {what}");
        let read = InputRequired::from_result(r.result)
            .unwrap_or_else(|e| panic!("{e:?}, {dialect:?}, {what}"));
        let read_state = read.request_state.map(|s| s.decode().into_owned());
        assert_eq!(read_state, state, "{dialect:?}, {what}");
        let read_requests: Vec<(String, String, Option<Vec<u8>>)> = read
            .requests()
            .map(|q| {
                let params = q.params.map(|p| p.as_bytes().to_vec());
                (
                    q.key.decode().into_owned(),
                    q.method.decode().into_owned(),
                    params,
                )
            })
            .collect();
        let want_requests: Vec<(String, String, Option<Vec<u8>>)> = requests
            .iter()
            .map(|(k, m, p)| (k.clone(), m.clone(), p.as_deref().map(spaced)))
            .collect();
        assert_eq!(read_requests, want_requests, "{dialect:?}, {what}");
    }
}
