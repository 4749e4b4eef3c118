//! A tool's `x-mcp-header` annotations (`ToolHeaders`) and the client side of header mirroring
//! (`mirror_headers`): every constraint of the transport specification (MCP 2026-07-28,
//! Streamable HTTP, "Custom Headers from Tool Parameters") refused with its reason, hostile
//! schemas read without a panic, and, as a property, the headers mirrored from a request
//! being exactly what `HeaderCheck` requires: together they pass, and without any one of them,
//! or with any one of them changed, the request is refused.
//!
//! `tests/headers_python.rs` compares the same readings with the official Python SDK's.

mod common;

use proptest::prelude::*;
use rpcwire::headers::{
    Header, HeaderCheck, HeaderError, ParamType, SchemaError, ToolHeaders, mirror_headers,
};
use rpcwire::{Decoder, Message, RawJson};
use serde_json::{Value, json};
use std::time::Duration;

const VERSION: &str = "2026-07-28";

fn read(schema: &str) -> Result<Vec<(String, Vec<String>, ParamType)>, SchemaError> {
    let raw = RawJson::new(schema.as_bytes()).expect("lazily valid");
    let read = ToolHeaders::from_input_schema(raw);
    // Validation alone gives the same answer, the annotation to blame included.
    assert_eq!(
        ToolHeaders::validate_input_schema(raw),
        read.as_ref().map(drop).map_err(|e| *e),
        "{schema}"
    );
    read.map(|tool| {
        tool.iter()
            .map(|p| {
                let path = p.path().map(String::from).collect();
                (p.name().to_string(), path, p.ty())
            })
            .collect()
    })
    .map_err(|e| e.error)
}

fn param(name: &str, path: &[&str], ty: ParamType) -> (String, Vec<String>, ParamType) {
    (
        name.into(),
        path.iter().map(|s| s.to_string()).collect(),
        ty,
    )
}

#[test]
fn annotations_on_properties_at_any_depth() {
    let schema = r#"{"type":"object","properties":{
        "query":{"type":"string"},
        "region":{"type":"string","x-mcp-header":"Region","description":"x-mcp-header"},
        "opts":{"type":"object","properties":{
            "limit":{"type":"integer","x-mcp-header":"Limit"},
            "deep":{"properties":{"dry":{"x-mcp-header":"Dry-Run","type":"boolean"}}}}},
        "caf\u00e9":{"type":"string","x-mcp-header":"\u0043afe"}}}"#;
    assert_eq!(
        read(schema),
        Ok(vec![
            param("Region", &["region"], ParamType::String),
            param("Limit", &["opts", "limit"], ParamType::Integer),
            param("Dry-Run", &["opts", "deep", "dry"], ParamType::Boolean),
            param("Cafe", &["café"], ParamType::String),
        ])
    );
    // Every tchar.
    let all = r#"{"properties":{"a":{"type":"string","x-mcp-header":"!#$%&'*+-.^_`|~09AZaz"}}}"#;
    assert_eq!(read(all).map(|p| p.len()), Ok(1));
    // No annotation, or no object: nothing to mirror.
    for none in [
        r#"{"type":"object","properties":{"q":{"type":"string"}}}"#,
        "{}",
        "true",
        "[]",
        r#""x-mcp-header""#,
        r#"{"properties":[{"type":"string","x-mcp-header":"A"}]}"#,
        r#"{"properties":{"a":true,"b":false}}"#,
    ] {
        assert_eq!(read(none), Ok(vec![]), "{none}");
    }
}

#[test]
fn each_constraint_is_refused_with_its_reason() {
    use SchemaError::*;
    let on = |annotation: &str, ty: &str| {
        format!(r#"{{"properties":{{"p":{{"type":{ty},"x-mcp-header":{annotation}}}}}}}"#)
    };
    let cases: Vec<(String, SchemaError)> = vec![
        // Reachable through `properties` alone.
        (r#"{"type":"string","x-mcp-header":"Root"}"#.into(), Unreachable),
        (r#"{"properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}"#.into(), Unreachable),
        (r#"{"properties":{"a":{"anyOf":[{"type":"string","x-mcp-header":"A"}]}}}"#.into(), Unreachable),
        (r#"{"properties":{"a":{"oneOf":[{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}]}}}"#.into(), Unreachable),
        (r##"{"$defs":{"r":{"type":"string","x-mcp-header":"R"}},"properties":{"r":{"$ref":"#/$defs/r"}}}"##.into(), Unreachable),
        (r#"{"additionalProperties":{"type":"string","x-mcp-header":"A"}}"#.into(), Unreachable),
        (r#"{"patternProperties":{"^a":{"type":"string","x-mcp-header":"A"}}}"#.into(), Unreachable),
        (r#"{"if":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}"#.into(), Unreachable),
        (r#"{"properties":{"a":{"not":{"type":"string","x-mcp-header":"A"}}}}"#.into(), Unreachable),
        (r#"{"prefixItems":[{"type":"string","x-mcp-header":"A"}]}"#.into(), Unreachable),
        // The keywords of the dialects a schema may name with `$schema` (MCP: draft-07, say):
        // the tuple form of `items`, `additionalItems`, `dependencies`.
        (r#"{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"type":"array","items":[{"type":"string","x-mcp-header":"A"}]}}}"#.into(), Unreachable),
        (r#"{"properties":{"a":{"type":"array","items":[{"type":"integer"}],"additionalItems":{"type":"string","x-mcp-header":"A"}}}}"#.into(), Unreachable),
        (r#"{"dependencies":{"a":["b"],"b":{"properties":{"c":{"type":"string","x-mcp-header":"C"}}}}}"#.into(), Unreachable),
        // The value: a token.
        (on("5", r#""string""#), NotAString),
        (on("null", r#""string""#), NotAString),
        (on(r#"["A"]"#, r#""string""#), NotAString),
        (on(r#""""#, r#""string""#), NotAToken),
        (on(r#""a b""#, r#""string""#), NotAToken),
        (on(r#""a:b""#, r#""string""#), NotAToken),
        (on(r#""a\nb""#, r#""string""#), NotAToken),
        (on(r#""a\r""#, r#""string""#), NotAToken),
        (on(r#""caf\u00e9""#, r#""string""#), NotAToken),
        (on(r#""a(b)""#, r#""string""#), NotAToken),
        (on(r#""a\"b""#, r#""string""#), NotAToken),
        // The type: string, integer or boolean.
        (on(r#""N""#, r#""number""#), NotPrimitive),
        (on(r#""N""#, r#""object""#), NotPrimitive),
        (on(r#""N""#, r#""array""#), NotPrimitive),
        (on(r#""N""#, r#""null""#), NotPrimitive),
        (on(r#""N""#, r#"["string","null"]"#), NotPrimitive),
        (on(r#""N""#, r#""String""#), NotPrimitive),
        (r#"{"properties":{"p":{"x-mcp-header":"N"}}}"#.into(), NotPrimitive),
        // Unique, case-insensitively, across the whole schema.
        (r#"{"properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"properties":{"c":{"type":"string","x-mcp-header":"REGION"}}}}}"#.into(), DuplicateHeader),
        (r#"{"properties":{"a":{"type":"string","x-mcp-header":"R"},"b":{"type":"string","x-mcp-header":"R"}}}"#.into(), DuplicateHeader),
        // A member deciding an annotation, spelt twice.
        (r#"{"properties":{"r":{"type":"string","x-mcp-header":"A","x-mcp-header":"B"}}}"#.into(), Ambiguous),
        (r#"{"properties":{"r":{"type":"number","type":"string","x-mcp-header":"A"}}}"#.into(), Ambiguous),
        (r#"{"properties":{"r":{"type":"string","x-mcp-header":"A"},"r":{"type":"string"}}}"#.into(), Ambiguous),
        (r#"{"properties":{"r":{"type":"string","x-mcp-header":"A"},"\u0072":{"type":"string"}}}"#.into(), Ambiguous),
        (r#"{"properties":{"r":{"type":"string","x-mcp-header":"A"},"q":{"type":"string"},"r":{"type":"string"}}}"#.into(), Ambiguous),
        (r#"{"properties":{"o":{"properties":{"r":{"type":"string","x-mcp-header":"A"}}},"o":{}}}"#.into(), Ambiguous),
        (r#"{"properties":{"r":{"type":"string","x-mcp-header":"A"}},"properties":{"s":{"type":"string"}}}"#.into(), Ambiguous),
        // A property named with a lone surrogate: decoded, it is U+FFFD, which would read the
        // argument "\uFFFD" in its place; kept, no text can name it.
        (r#"{"properties":{"\ud800":{"type":"string","x-mcp-header":"A"}}}"#.into(), Ambiguous),
        (r#"{"properties":{"o\udc00":{"properties":{"r":{"type":"string","x-mcp-header":"A"}}}}}"#.into(), Ambiguous),
        // Not valid JSON: its annotations are unknown.
        (r#"{"properties":{"r":{"type":"string","x-mcp-header":"A"},"s":tru}}"#.into(), Malformed),
        (r#"{"properties" {"r":{"type":"string","x-mcp-header":"A"}}}"#.into(), Malformed),
    ];
    for (schema, error) in &cases {
        assert_eq!(read(schema), Err(*error), "{schema}");
    }
    // A spelling twice that decides nothing is no ambiguity.
    let harmless = r#"{"properties":{"q":{"type":"string"},"q":{"type":"integer"},"r":{"type":"string","x-mcp-header":"R","description":"a","description":"b"},"s":{"type":"a","type":"b"}}}"#;
    assert_eq!(
        read(harmless),
        Ok(vec![param("R", &["r"], ParamType::String)])
    );
    // Data keywords hold no annotations.
    let data = r#"{"properties":{"a":{"type":"string","default":{"x-mcp-header":"A"},"const":{"x-mcp-header":"B"},"enum":[{"x-mcp-header":"C"}],"examples":[{"x-mcp-header":"D"}]}}}"#;
    assert_eq!(read(data), Ok(vec![]));
    // One that leads to no annotation decides nothing either.
    let beside =
        r#"{"properties":{"\ud800":{"type":"string"},"r":{"type":"string","x-mcp-header":"R"}}}"#;
    assert_eq!(
        read(beside),
        Ok(vec![param("R", &["r"], ParamType::String)])
    );
}

#[test]
fn an_invalid_schema_names_its_annotation() {
    let schema = br#"{"properties":{"opts":{"properties":{"limit":{"type":"number","x-mcp-header":"Limit"}}}}}"#;
    let invalid = ToolHeaders::from_input_schema(RawJson::new(schema).unwrap()).unwrap_err();
    assert_eq!(invalid.error, SchemaError::NotPrimitive);
    assert_eq!(invalid.header.unwrap().decode(), "Limit");
    assert_eq!(invalid.property.unwrap().decode(), "limit");
    assert_eq!(
        invalid.to_string(),
        r#"x-mcp-header is on a parameter whose type is not string, integer or boolean (x-mcp-header "Limit" on property "limit")"#
    );
    // The walk reads the schema in document order: the first annotation at fault is named,
    // and of a repeated header, the repeat.
    let two = br#"{"properties":{"a":{"properties":{"b":{"type":"number","x-mcp-header":"B"}}},"c":{"type":"string","x-mcp-header":""}}}"#;
    let invalid = ToolHeaders::from_input_schema(RawJson::new(two).unwrap()).unwrap_err();
    assert_eq!(
        (invalid.error, invalid.property.unwrap().decode()),
        (SchemaError::NotPrimitive, "b".into())
    );
    let repeated = br#"{"properties":{"first":{"type":"string","x-mcp-header":"X"},"second":{"anyOf":[]},"third":{"type":"integer","x-mcp-header":"x"}}}"#;
    let invalid = ToolHeaders::from_input_schema(RawJson::new(repeated).unwrap()).unwrap_err();
    assert_eq!(invalid.error, SchemaError::DuplicateHeader);
    assert_eq!(invalid.property.unwrap().decode(), "third");
    assert_eq!(invalid.header.unwrap().decode(), "x");
    // An annotation that is not a string has no value to name, but its property still is.
    let five = br#"{"properties":{"limit":{"type":"integer","x-mcp-header":5}}}"#;
    let invalid = ToolHeaders::from_input_schema(RawJson::new(five).unwrap()).unwrap_err();
    assert_eq!(
        (invalid.error, invalid.header),
        (SchemaError::NotAString, None)
    );
    assert_eq!(
        invalid.to_string(),
        r#"x-mcp-header is not a string (on property "limit")"#
    );
    let root = br#"{"type":"string","x-mcp-header":"Root"}"#;
    let invalid = ToolHeaders::from_input_schema(RawJson::new(root).unwrap()).unwrap_err();
    assert_eq!(
        (invalid.error, invalid.property),
        (SchemaError::Unreachable, None)
    );
}

#[test]
fn hostile_schemas_end_with_an_answer() {
    // Deeper than the default nesting limit (a decoder with a higher one let it through):
    // unreadable, so refused.
    let deep = format!(
        "{}{{}}{}",
        r#"{"properties":{"a":"#.repeat(200),
        "}}".repeat(200)
    );
    let raw = RawJson::with_max_depth(deep.as_bytes(), 1_000).unwrap();
    let invalid = ToolHeaders::from_input_schema(raw).unwrap_err();
    assert_eq!(invalid.error, SchemaError::Malformed);
    // Within it, an annotation 60 properties down.
    let nested = format!(
        r#"{}{{"type":"string","x-mcp-header":"Deep"}}{}"#,
        r#"{"properties":{"a":"#.repeat(60),
        "}}".repeat(60)
    );
    let found = read(&nested).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1.len(), 60);
    // Wide: 20,000 annotated properties, then one that repeats the first name in another case.
    let mut wide: Vec<String> = (0..20_000)
        .map(|i| format!(r#""p{i}":{{"type":"integer","x-mcp-header":"H{i}"}}"#))
        .collect();
    assert_eq!(
        read(&format!(r#"{{"properties":{{{}}}}}"#, wide.join(","))).map(|p| p.len()),
        Ok(20_000)
    );
    wide.push(r#""last":{"type":"integer","x-mcp-header":"h0"}"#.into());
    assert_eq!(
        read(&format!(r#"{{"properties":{{{}}}}}"#, wide.join(","))),
        Err(SchemaError::DuplicateHeader)
    );
    // Many applicators, each a position to visit.
    let any_of = format!(
        r#"{{"anyOf":[{}]}}"#,
        vec![r#"{"type":"string"}"#; 50_000].join(",")
    );
    assert_eq!(read(&any_of), Ok(vec![]));
}

/// Parameters are equal, and hash alike, when their names, paths and types are, wherever
/// their tools keep the property names (a tool keeps its own list, so the same path is
/// other positions in another tool's); their `Debug` form shows the three.
#[test]
fn parameters_compare_by_name_path_and_type() {
    use std::hash::{BuildHasher, RandomState};
    let last = |schema: &str| tool(schema).iter().last().unwrap().clone();
    let region = last(r#"{"properties":{"region":{"type":"string","x-mcp-header":"Region"}}}"#);
    // The same parameter behind another, whose property is first in its tool's names.
    let behind = last(
        r#"{"properties":{"zone":{"type":"string","x-mcp-header":"Zone"},"region":{"type":"string","x-mcp-header":"Region"}}}"#,
    );
    let hasher = RandomState::new();
    assert_eq!(region, behind);
    assert_eq!(hasher.hash_one(&region), hasher.hash_one(&behind));
    for other in [
        r#"{"properties":{"region":{"type":"string","x-mcp-header":"Area"}}}"#,
        r#"{"properties":{"region":{"type":"integer","x-mcp-header":"Region"}}}"#,
        r#"{"properties":{"zone":{"type":"string","x-mcp-header":"Region"}}}"#,
        r#"{"properties":{"region":{"properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}}"#,
    ] {
        let other = last(other);
        assert_ne!(region, other);
        assert_ne!(
            hasher.hash_one(&region),
            hasher.hash_one(&other),
            "{other:?}"
        );
    }
    assert_eq!(
        format!("{behind:?}"),
        r#"ToolParam { name: "Region", path: ["region"], ty: String }"#
    );
}

/// `len`, `is_empty` and a `for` loop over `&tool` agree with `iter`: the annotated
/// parameters, in the order of their annotations.
#[test]
fn a_tool_counts_and_lists_its_parameters() {
    let none = tool(r#"{"properties":{"q":{"type":"string"}}}"#);
    assert_eq!((none.len(), none.is_empty()), (0, true));
    assert_eq!((&none).into_iter().count(), 0);
    let two = tool(
        r#"{"properties":{"b":{"type":"string","x-mcp-header":"B"},"a":{"type":"boolean","x-mcp-header":"A"}}}"#,
    );
    assert_eq!((two.len(), two.is_empty()), (2, false));
    let mut names = Vec::new();
    for param in &two {
        names.push(param.name());
    }
    assert_eq!(names, ["B", "A"]);
}

fn call(arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"t","arguments":{arguments},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{VERSION}"}}}}}}"#
    )
}

fn tool(schema: &str) -> ToolHeaders {
    ToolHeaders::from_input_schema(RawJson::new(schema.as_bytes()).unwrap()).unwrap()
}

fn text(headers: &[(Header<'_>, std::borrow::Cow<'_, str>)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(h, v)| (h.to_string(), v.to_string()))
        .collect()
}

#[test]
fn mirrored_arguments_are_rendered_as_the_sdks_render_them() {
    let tool = tool(
        r#"{"properties":{"s":{"type":"string","x-mcp-header":"S"},"i":{"type":"integer","x-mcp-header":"I"},"b":{"type":"boolean","x-mcp-header":"B"},"o":{"properties":{"x":{"type":"string","x-mcp-header":"X"}}}}}"#,
    );
    let mirror = |arguments: &str| -> Vec<(String, String)> {
        let arguments = RawJson::new(arguments.as_bytes()).unwrap();
        tool.mirror(arguments)
            .map(|(h, v)| (h.to_string(), v.into_owned()))
            .collect()
    };
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(h, v)| (h.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(
        mirror(r#"{"s":"us-west1","i":-42,"b":true,"o":{"x":"a b"}}"#),
        pairs(&[
            ("Mcp-Param-S", "us-west1"),
            ("Mcp-Param-I", "-42"),
            ("Mcp-Param-B", "true"),
            ("Mcp-Param-X", "a b"),
        ])
    );
    // Escapes decoded, then the sentinel form where the text is not plain ASCII.
    assert_eq!(
        mirror(r#"{"s":"caf\u00e9","o":{"x":"line\n"}}"#),
        pairs(&[
            ("Mcp-Param-S", "=?base64?Y2Fmw6k=?="),
            ("Mcp-Param-X", "=?base64?bGluZQo=?="),
        ])
    );
    assert_eq!(mirror(r#"{"s":"a\/b"}"#), pairs(&[("Mcp-Param-S", "a/b")]));
    // Absent, null, no rendering, a path through a non-object, a value spelt twice: nothing.
    assert_eq!(
        mirror(r#"{"s":null,"i":{"a":1},"b":[true],"o":"x"}"#),
        pairs(&[])
    );
    assert_eq!(mirror(r#"{"s":"a","s":"b"}"#), pairs(&[]));
    // A lone surrogate has no UTF-8 form, so no Base64 of one: U+FFFD in its place would be
    // another value (one a server refuses as such).
    assert_eq!(mirror(r#"{"s":"a\ud800","o":{"x":"\udc00b"}}"#), pairs(&[]));
    assert_eq!(
        mirror(r#"{"s":"\ud83d\ude00"}"#),
        pairs(&[("Mcp-Param-S", "=?base64?8J+YgA==?=")])
    );
    assert_eq!(mirror("[]"), pairs(&[]));
    // An integer parameter in decimal, as the specification converts it ("42", "-7"), however
    // the body spells it: a server reading only plain decimals (the Python SDK's) takes "1000"
    // for 1.0e3, not "1.0e3".
    for (arguments, header) in [
        (r#"{"i":1.0e3}"#, "1000"),
        (r#"{"i":42.0}"#, "42"),
        (r#"{"i":-4.20E+1}"#, "-42"),
        (r#"{"i":-0}"#, "0"),
        (r#"{"i":0.0e-5}"#, "0"),
        // The safe range's ends, ±(2^53−1), however spelt.
        (r#"{"i":9007199254740991}"#, "9007199254740991"),
        (r#"{"i":-9007199254740991}"#, "-9007199254740991"),
        (r#"{"i":90071992547409.91e2}"#, "9007199254740991"),
        (r#"{"i":-9.007199254740991e15}"#, "-9007199254740991"),
        // A signed exponent's leading zeros, however many.
        (r#"{"i":10e-00000000001}"#, "1"),
        (r#"{"i":1e+00000000001}"#, "10"),
    ] {
        assert_eq!(
            mirror(arguments),
            pairs(&[("Mcp-Param-I", header)]),
            "{arguments}"
        );
    }
    // Not an integer, or not within ±(2^53−1): "Integer values MUST be within the safe
    // range", so no header (and `mirror_headers` refuses the call as malformed).
    for arguments in [
        r#"{"i":4.5}"#,
        r#"{"i":1e-3}"#,
        r#"{"i":9007199254740992}"#,
        r#"{"i":-9007199254740992}"#,
        r#"{"i":9.007199254740992e15}"#,
        r#"{"i":123456789012345678901234567890}"#,
        r#"{"i":1234567890123456789e2}"#,
        r#"{"i":1e400}"#,
        r#"{"i":1e999999999}"#,
        // An exponent too long for an `i64` is no exponent of 0.
        r#"{"i":1e10000000000000000000}"#,
        r#"{"i":1e-10000000000000000000}"#,
    ] {
        assert_eq!(mirror(arguments), pairs(&[]), "{arguments}");
    }
    // A string parameter holding a number (the body breaks the schema): as spelt, as the
    // SDK renders it.
    assert_eq!(mirror(r#"{"s":1.0}"#), pairs(&[("Mcp-Param-S", "1.0")]));
}

/// The headers mirrored, as (name, value) text, or why not.
type Expected = Result<Vec<(&'static str, &'static str)>, HeaderError<'static>>;

#[test]
fn standard_headers_of_each_message() {
    let decoder = Decoder::mcp();
    let cases: Vec<(String, Option<&str>, Expected)> = vec![
        (
            call(r#"{"q":1}"#),
            None,
            Ok(vec![
                ("MCP-Protocol-Version", VERSION),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "t"),
            ]),
        ),
        // The body's version wins over the negotiated one.
        (
            call("{}"),
            Some("2025-11-25"),
            Ok(vec![
                ("MCP-Protocol-Version", VERSION),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "t"),
            ]),
        ),
        // An earlier version: the negotiated one, the body naming none.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"caf\u00e9"}}"#.into(),
            Some("2025-11-25"),
            Ok(vec![
                ("MCP-Protocol-Version", "2025-11-25"),
                ("Mcp-Method", "prompts/get"),
                ("Mcp-Name", "=?base64?Y2Fmw6k=?="),
            ]),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into(),
            None,
            Ok(vec![("Mcp-Method", "tools/list")]),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
            Some("2025-11-25"),
            Ok(vec![
                ("MCP-Protocol-Version", "2025-11-25"),
                ("Mcp-Method", "notifications/initialized"),
            ]),
        ),
        // A request's name that is not a string, or is absent: no header stands for it (a
        // server answers -32020 whatever it is sent with), so the request is refused before it
        // is sent, as a server finds it.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#.into(),
            None,
            Err(HeaderError::Mismatch(Header::Name)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":null}}"#.into(),
            None,
            Err(HeaderError::Mismatch(Header::Name)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"name":"file:///a"}}"#
                .into(),
            None,
            Err(HeaderError::Missing(Header::Name)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#.into(),
            None,
            Err(HeaderError::Missing(Header::Name)),
        ),
        // A notification requires no header: such a name is not mirrored.
        (
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":5}}"#.into(),
            None,
            Ok(vec![("Mcp-Method", "tools/call")]),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"tools/call"}"#.into(),
            None,
            Ok(vec![("Mcp-Method", "tools/call")]),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a","name":"b"}}"#.into(),
            None,
            Ok(vec![("Mcp-Method", "tools/call")]),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"file:///\udfff"}}"#.into(),
            None,
            Ok(vec![("Mcp-Method", "resources/read")]),
        ),
        // A name spelt twice is ambiguous (a gateway routing on one and a server acting on
        // the other): a server refuses it whatever the header, as for the version.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#.into(),
            None,
            Err(HeaderError::Mismatch(Header::Name)),
        ),
        // A lone surrogate has no UTF-8 form, so no Base64 of one.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///\udfff"}}"#.into(),
            None,
            Err(HeaderError::Malformed(Header::Name)),
        ),
        // A response mirrors nothing of its body (it has no method, nor a version of its
        // own), but the HTTP request that carries it is one of the session's, which names the
        // negotiated version on every request after `initialize` (2025-06-18 on): a client's
        // answer to a server's `sampling/createMessage`, say. Without one, nothing.
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into(),
            Some("2025-11-25"),
            Ok(vec![("MCP-Protocol-Version", "2025-11-25")]),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#.into(),
            Some("2025-06-18"),
            Ok(vec![("MCP-Protocol-Version", "2025-06-18")]),
        ),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into(), None, Ok(vec![])),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}"#.into(),
            None,
            Ok(vec![]),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into(),
            Some("2025-11-25 "),
            Err(HeaderError::Malformed(Header::ProtocolVersion)),
        ),
        // What cannot be a header value as it is.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list\r\nX-Injected: 1"}"#.into(),
            None,
            Err(HeaderError::Malformed(Header::Method)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":" tools/list"}"#.into(),
            None,
            Err(HeaderError::Malformed(Header::Method)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"caf\u00e9"}"#.into(),
            None,
            Err(HeaderError::Malformed(Header::Method)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28\n"}}}"#.into(),
            None,
            Err(HeaderError::Malformed(Header::ProtocolVersion)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.into(),
            Some("2026-07-28 "),
            Err(HeaderError::Malformed(Header::ProtocolVersion)),
        ),
        // A version `_meta` names twice is no version (a server refuses it whatever the
        // header), not one to replace with the negotiated one.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(),
            Some("2025-11-25"),
            Err(HeaderError::Mismatch(Header::ProtocolVersion)),
        ),
        // Nor is a version that is not a string (`null` included): a server finds no header
        // equal to it, so the negotiated one in its place would be refused.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}}"#.into(),
            Some("2026-07-28"),
            Err(HeaderError::Mismatch(Header::ProtocolVersion)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}"#.into(),
            Some("2026-07-28"),
            Err(HeaderError::Mismatch(Header::ProtocolVersion)),
        ),
        // A notification's such version gives no header, negotiated or not: a server checks
        // only the headers a notification carries, and would find any version header a
        // mismatch.
        (
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}"#.into(),
            Some("2026-07-28"),
            Ok(vec![("Mcp-Method", "notifications/progress")]),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}}"#.into(),
            None,
            Ok(vec![("Mcp-Method", "notifications/progress")]),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(),
            Some("2026-07-28"),
            Ok(vec![("Mcp-Method", "notifications/progress")]),
        ),
    ];
    for (body, negotiated, expected) in cases {
        let msg = decoder.decode(body.as_bytes()).unwrap();
        let got = mirror_headers(&msg, negotiated, None).map(|h| text(&h));
        let expected = expected.map(|list| {
            list.iter()
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        });
        assert_eq!(got, expected, "{body}");
        // What a notification carries, a server accepts.
        if let (Message::Notification(_), Ok(headers)) = (&msg, &got) {
            let sent = headers.iter().map(|(h, v)| (h.as_str(), v.as_bytes()));
            let check = HeaderCheck::new(&[VERSION, "2025-11-25"]);
            assert_eq!(check.check(sent, &msg), Ok(()), "{body}");
        }
    }
}

/// `mirror_headers` gives a request naming its version only headers a server accepts: a
/// request whose `Mcp-Name` member no header can stand for (absent, or not a string) is
/// refused, with the error the server's check gives it, with or without a `Mcp-Name` header.
#[test]
fn a_request_whose_name_no_header_stands_for_is_refused() {
    let decoder = Decoder::mcp();
    let meta = format!(r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{VERSION}"}}"#);
    for (params, expected) in [
        (
            format!(r#"{{"name":5,{meta}}}"#),
            HeaderError::Mismatch(Header::Name),
        ),
        (
            format!(r#"{{"name":null,{meta}}}"#),
            HeaderError::Mismatch(Header::Name),
        ),
        (
            format!(r#"{{"name":["t"],{meta}}}"#),
            HeaderError::Mismatch(Header::Name),
        ),
        (
            format!(r#"{{"uri":"t",{meta}}}"#),
            HeaderError::Missing(Header::Name),
        ),
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
        let msg = decoder.decode(body.as_bytes()).unwrap();
        assert_eq!(
            mirror_headers(&msg, None, None).map(|h| text(&h)),
            Err(expected),
            "{body}"
        );
        let standard = [
            ("MCP-Protocol-Version", VERSION.as_bytes()),
            ("Mcp-Method", &b"tools/call"[..]),
        ];
        let check = HeaderCheck::new(&[VERSION]);
        assert_eq!(
            check.check(standard, &msg),
            Err(HeaderError::Missing(Header::Name)),
            "{body}"
        );
        let with_name = standard.into_iter().chain([("Mcp-Name", &b"5"[..])]);
        assert_eq!(
            check.check(with_name, &msg),
            Err(HeaderError::Mismatch(Header::Name)),
            "{body}"
        );
    }
}

/// A batch (2025-03-26, whose receivers must accept them) names no method of its own: the HTTP
/// request carrying it has the session's version alone.
#[test]
fn a_batch_carries_the_negotiated_version_alone() {
    let decoder = Decoder::mcp().for_protocol_version("2025-03-26");
    let body = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"result":{}}]"#;
    let msg = decoder.decode(body.as_bytes()).unwrap();
    assert!(matches!(msg, Message::Batch(_)));
    let headers = mirror_headers(&msg, Some("2025-03-26"), None).map(|h| text(&h));
    let expected = vec![("MCP-Protocol-Version".to_string(), "2025-03-26".to_string())];
    assert_eq!(headers, Ok(expected));
    assert_eq!(mirror_headers(&msg, None, None), Ok(vec![]));
}

#[test]
fn the_tool_is_mirrored_on_tools_call_only() {
    let tool = tool(r#"{"properties":{"region":{"type":"string","x-mcp-header":"Region"}}}"#);
    let decoder = Decoder::mcp();
    let body = call(r#"{"region":"eu"}"#);
    let headers = mirror_headers(&decoder.decode(body.as_bytes()).unwrap(), None, Some(&tool));
    assert_eq!(
        text(&headers.unwrap())[3],
        ("Mcp-Param-Region".into(), "eu".into())
    );
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"region":"eu"}}}"#;
    let headers = mirror_headers(&decoder.decode(body).unwrap(), None, Some(&tool));
    assert_eq!(text(&headers.unwrap()).len(), 2);
}

/// A value a server would refuse whatever the headers (one with no header form, one spelt
/// twice) is refused by `mirror_headers` before the call is sent, naming the parameter;
/// `ToolHeaders::mirror` gives no header for it. An absent or `null` value needs none.
#[test]
fn values_a_server_would_refuse_are_refused_before_sending() {
    let tool = tool(r#"{"properties":{"region":{"type":"string","x-mcp-header":"Region"}}}"#);
    let decoder = Decoder::mcp();
    let region = Header::Param("Region");
    for (arguments, expected) in [
        (
            r#"{"region":"\ud800"}"#,
            Err(HeaderError::Malformed(region)),
        ),
        (r#"{"region":{"a":1}}"#, Err(HeaderError::Malformed(region))),
        (r#"{"region":[1]}"#, Err(HeaderError::Malformed(region))),
        (
            r#"{"region":"eu","region":"us"}"#,
            Err(HeaderError::Mismatch(region)),
        ),
        (r#"{"region":null}"#, Ok(3)),
        (r#"{}"#, Ok(3)),
        (r#"{"region":"eu"}"#, Ok(4)),
    ] {
        let body = call(arguments);
        let msg = decoder.decode(body.as_bytes()).unwrap();
        let mirrored = mirror_headers(&msg, None, Some(&tool));
        assert_eq!(
            mirrored.as_ref().map(Vec::len).map_err(|e| *e),
            expected,
            "{arguments}"
        );
        let raw = RawJson::new(arguments.as_bytes()).unwrap();
        let alone = tool.mirror(raw).count();
        assert_eq!(alone, usize::from(expected == Ok(4)), "{arguments}");
    }
    // `arguments` itself spelt twice: every annotated value is, and a server refuses the
    // call whatever its headers.
    for twice in [
        r#"{"region":"eu"},"arguments":{"region":"us"}"#,
        r#"{},"arguments":{}"#,
    ] {
        let body = call(twice);
        let msg = decoder.decode(body.as_bytes()).unwrap();
        assert_eq!(
            mirror_headers(&msg, None, Some(&tool)).map(|h| text(&h)),
            Err(HeaderError::Mismatch(region)),
            "{twice}"
        );
    }
}

/// An integer parameter's value outside ±(2^53−1), or not an integer, is refused before the
/// call is sent ("Integer values MUST be within the safe range"), naming the parameter; one
/// within it is sent in decimal.
#[test]
fn integers_beyond_the_safe_range_are_refused_before_sending() {
    let tool = tool(r#"{"properties":{"limit":{"type":"integer","x-mcp-header":"Limit"}}}"#);
    let decoder = Decoder::mcp();
    let limit = Header::Param("Limit");
    for (arguments, expected) in [
        (r#"{"limit":9007199254740991}"#, Ok("9007199254740991")),
        (r#"{"limit":-9007199254740991.0}"#, Ok("-9007199254740991")),
        (
            r#"{"limit":9007199254740992}"#,
            Err(HeaderError::Malformed(limit)),
        ),
        (r#"{"limit":-1e16}"#, Err(HeaderError::Malformed(limit))),
        (r#"{"limit":0.5}"#, Err(HeaderError::Malformed(limit))),
    ] {
        let body = call(arguments);
        let msg = decoder.decode(body.as_bytes()).unwrap();
        let mirrored = mirror_headers(&msg, None, Some(&tool)).map(|h| text(&h));
        let value = mirrored.as_ref().map(|h| h[3].1.as_str()).map_err(|e| *e);
        assert_eq!(value, expected, "{arguments}");
    }
}

/// An integer parameter of −2^63, the one `i64` without a positive twin, however spelt, is
/// beyond the safe range like its neighbours: refused, not sent (its absolute value
/// overflowed: a panic in a debug build, and a release build, wrapping it to itself, sent it
/// as safe).
#[test]
fn the_most_negative_i64_is_beyond_the_safe_range() {
    let tool = tool(r#"{"properties":{"limit":{"type":"integer","x-mcp-header":"Limit"}}}"#);
    let decoder = Decoder::mcp();
    let limit = Header::Param("Limit");
    for arguments in [
        r#"{"limit":-9223372036854775808}"#,
        r#"{"limit":-9.223372036854775808e18}"#,
        r#"{"limit":-9223372036854775807}"#,
        r#"{"limit":-9223372036854775809}"#,
    ] {
        let mirrored: Vec<_> = tool
            .mirror(RawJson::new(arguments.as_bytes()).unwrap())
            .collect();
        assert!(mirrored.is_empty(), "{arguments}: {}", text(&mirrored)[0].1);
        let body = call(arguments);
        let msg = decoder.decode(body.as_bytes()).unwrap();
        let refused = mirror_headers(&msg, None, Some(&tool)).map(|h| text(&h));
        assert_eq!(refused, Err(HeaderError::Malformed(limit)), "{arguments}");
    }
}

// The property: what a client mirrors is what a server requires.

/// A tool schema with annotations on leaves at any depth, and arguments for it (JSON values).
fn tool_and_arguments() -> impl Strategy<Value = (Value, Value)> {
    let leaf = prop_oneof![
        (".{0,6}").prop_map(Value::from),
        any::<i64>().prop_map(|n| Value::from(n % 9_007_199_254_740_992)),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ];
    let name = "[a-z]{1,3}";
    let node = leaf.prop_recursive(3, 24, 4, move |inner| {
        prop::collection::btree_map(name, inner, 1..4)
            .prop_map(|m| Value::Object(m.into_iter().collect()))
    });
    (prop::collection::btree_map(name, node, 0..4)).prop_map(|arguments| {
        // The schema follows the arguments' shape; every leaf is annotated with a header of
        // its own, typed by its value (a string for the rest).
        fn schema(value: &Value, counter: &mut usize) -> Value {
            match value {
                Value::Object(m) => {
                    let props: serde_json::Map<String, Value> = m
                        .iter()
                        .map(|(k, v)| (k.clone(), schema(v, counter)))
                        .collect();
                    json!({"type": "object", "properties": props})
                }
                leaf => {
                    *counter += 1;
                    let ty = match leaf {
                        Value::Number(_) => "integer",
                        Value::Bool(_) => "boolean",
                        _ => "string",
                    };
                    json!({"type": ty, "x-mcp-header": format!("P{counter}")})
                }
            }
        }
        let arguments = Value::Object(arguments.into_iter().collect());
        (schema(&arguments, &mut 0), arguments)
    })
}

fn names_and_values(headers: &[(String, String)]) -> Vec<(&str, &[u8])> {
    headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_bytes()))
        .collect()
}

proptest! {
    #[test]
    fn mirrored_headers_are_what_the_check_requires(
        (schema, arguments) in tool_and_arguments(),
        method in prop::sample::select(vec!["tools/call", "prompts/get", "resources/read", "tools/list"]),
        name in ".{0,8}",
        change in any::<prop::sample::Index>(),
    ) {
        let member = if method == "resources/read" { "uri" } else { "name" };
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {
            member: name, "arguments": arguments,
            "_meta": {"io.modelcontextprotocol/protocolVersion": VERSION}}}).to_string();
        let schema = schema.to_string();
        let tool = ToolHeaders::from_input_schema(RawJson::new(schema.as_bytes()).unwrap()).unwrap();
        let msg = Decoder::mcp().decode(body.as_bytes()).unwrap();
        let check = HeaderCheck::new(&[VERSION]).with_tool(&tool);
        let headers = text(&mirror_headers(&msg, None, Some(&tool)).unwrap());
        prop_assert_eq!(check.check(names_and_values(&headers), &msg), Ok(()));

        // Each one is needed, and must be right. (`tools/list` mirrors only the version and
        // the method; `Mcp-Name` and the parameters only where the method has them.)
        let i = change.index(headers.len());
        let mut without = headers.clone();
        without.remove(i);
        prop_assert!(check.check(names_and_values(&without), &msg).is_err(), "without {:?}", headers[i]);
        let mut changed = headers.clone();
        let value = rpcwire::headers::decode_header_value(changed[i].1.as_bytes()).unwrap();
        changed[i].1 = rpcwire::headers::encode_header_value(&format!("{value}x")).into_owned();
        prop_assert!(check.check(names_and_values(&changed), &msg).is_err(), "changed {:?}", changed[i]);
    }
}

/// A tool with many annotations and a call with large arguments: the check and the mirror
/// read the arguments once, not once an annotation (1,000 annotations times 1 MB of arguments
/// took three minutes in a debug build, a mirror and two checks).
#[test]
fn many_annotations_read_large_arguments_once() {
    let props: Vec<String> = (0..1_000)
        .map(|i| format!(r#""p{i}":{{"type":"integer","x-mcp-header":"H{i}"}}"#))
        .collect();
    let nested: Vec<String> = (0..1_000)
        .map(|i| format!(r#""n{i}":{{"type":"integer","x-mcp-header":"N{i}"}}"#))
        .collect();
    let schema = format!(
        r#"{{"properties":{{{},"o":{{"properties":{{{}}}}}}}}}"#,
        props.join(","),
        nested.join(",")
    );
    let tool = tool(&schema);
    let mut members: Vec<String> = (0..100_000).map(|i| format!(r#""q{i}":1"#)).collect();
    members.extend((0..1_000).step_by(7).map(|i| format!(r#""p{i}":{i}"#)));
    let inner: Vec<String> = (0..50_000)
        .map(|i| format!(r#""r{i}":1"#))
        .chain((0..1_000).step_by(3).map(|i| format!(r#""n{i}":-{i}"#)))
        .collect();
    members.push(format!(r#""o":{{{}}}"#, inner.join(",")));
    let body = call(&format!("{{{}}}", members.join(",")));
    let msg = Decoder::mcp().decode(body.as_bytes()).unwrap();
    common::within("a mirror and two checks", Duration::from_secs(3), || {
        let headers = text(&mirror_headers(&msg, None, Some(&tool)).unwrap());
        assert_eq!(
            headers.len(),
            3 + 1_000usize.div_ceil(7) + 1_000usize.div_ceil(3)
        );
        assert!(headers.contains(&("Mcp-Param-N999".into(), "-999".into())));
        let check = HeaderCheck::new(&[VERSION]).with_tool(&tool);
        assert_eq!(check.check(names_and_values(&headers), &msg), Ok(()));
        let mut without = headers.clone();
        without.retain(|(n, _)| n != "Mcp-Param-N999");
        assert_eq!(
            check.check(names_and_values(&without), &msg),
            Err(HeaderError::Missing(Header::Param("N999")))
        );
    });
}

/// Past a few annotations the arguments are read in one walk: it finds what a lookup of each
/// path alone finds (the tool of one annotation), members spelt twice, escaped keys, lone
/// surrogates, paths through non-objects and a path that is another's prefix included.
#[test]
fn one_walk_finds_what_each_lookup_finds() {
    let annotations: &[(&[&str], &str)] = &[
        (&["a"], "string"),
        (&["a", "b"], "string"),
        (&["c"], "integer"),
        (&["d", "e"], "boolean"),
        (&["d", "f"], "string"),
        (&["d", "g", "h"], "string"),
        (&["café"], "string"),
        (&["m"], "string"),
        (&["x"], "string"),
        (&["y", "z"], "integer"),
        (&["\\uFFFD"], "string"),
        (&["k"], "string"),
    ];
    fn schema(path: &[&str], ty: &str, name: &str) -> String {
        let mut node = format!(r#"{{"type":"{ty}","x-mcp-header":"{name}"}}"#);
        for key in path.iter().rev() {
            node = format!(r#"{{"type":"object","properties":{{"{key}":{node}}}}}"#);
        }
        node
    }
    let singles: Vec<ToolHeaders> = annotations
        .iter()
        .enumerate()
        .map(|(i, (path, ty))| tool(&schema(path, ty, &format!("H{i}"))))
        .collect();
    // All of them in one schema, in that order.
    let all = [
        r#"{"properties":{"#,
        r#""a":{"type":"string","x-mcp-header":"H0","properties":{"b":{"type":"string","x-mcp-header":"H1"}}},"#,
        r#""c":{"type":"integer","x-mcp-header":"H2"},"#,
        r#""d":{"properties":{"e":{"type":"boolean","x-mcp-header":"H3"},"f":{"type":"string","x-mcp-header":"H4"},"#,
        r#""g":{"properties":{"h":{"type":"string","x-mcp-header":"H5"}}}}},"#,
        r#""caf\u00e9":{"type":"string","x-mcp-header":"H6"},"m":{"type":"string","x-mcp-header":"H7"},"#,
        r#""x":{"type":"string","x-mcp-header":"H8"},"y":{"properties":{"z":{"type":"integer","x-mcp-header":"H9"}}},"#,
        r#""\uFFFD":{"type":"string","x-mcp-header":"H10"},"k":{"type":"string","x-mcp-header":"H11"}}}"#,
    ]
    .concat();
    let all = tool(&all);
    assert_eq!(all.len(), annotations.len());
    for arguments in [
        r#"{"a":"s","c":5,"d":{"e":true,"f":"t","g":{"h":"u"}},"caf\u00e9":"v","\ud800":"w","m":"\ud800","x":"y","y":{"z":1},"\uFFFD":"r","k":"q"}"#,
        r#"{"a":{"b":"inner"},"d":{"e":false,"e":true,"f":"t"},"x":"1","x":"2","y":[{"z":1}]}"#,
        r#"{"d":{"g":{"h":"deep","h":"twice"},"f":"\u0041"},"d":{"e":true},"café":"raw","\uFFFD":"r"}"#,
        r#"{"d":"no object","y":{"z":null},"k":null,"a":"s","a":"s"}"#,
        r#"{"c":1.0e3,"y":{"z":-4.2e1},"d":{"g":{}},"caf\u00e9":"x","caf\u00e9":"y"}"#,
        "{}",
        "[1,2]",
    ] {
        let raw = RawJson::new(arguments.as_bytes()).unwrap();
        let one_walk: Vec<(String, String)> = all
            .mirror(raw)
            .map(|(h, v)| (h.to_string(), v.into_owned()))
            .collect();
        let each: Vec<(String, String)> = singles
            .iter()
            .flat_map(|t| t.mirror(raw).map(|(h, v)| (h.to_string(), v.into_owned())))
            .collect();
        assert_eq!(one_walk, each, "{arguments}");
        // And the check agrees with the mirror on the whole call: the mirrored headers pass
        // it exactly when `mirror_headers` found nothing to refuse.
        let body = call(arguments);
        let msg = Decoder::mcp().decode(body.as_bytes()).unwrap();
        let mut headers = text(&mirror_headers(&msg, None, None).unwrap());
        headers.extend(one_walk);
        let single = |t: &ToolHeaders| {
            HeaderCheck::new(&[VERSION])
                .with_tool(t)
                .check(names_and_values(&headers), &msg)
                .is_ok()
        };
        let alone = singles.iter().all(single);
        assert_eq!(single(&all), alone, "{arguments}");
        let refused = mirror_headers(&msg, None, Some(&all)).err();
        assert_eq!(refused.is_none(), single(&all), "{arguments}: {refused:?}");
    }
}

/// Many annotations and many `Mcp-Param-*` headers: each header is found among the
/// annotations by binary search, not by a scan of them all (20,000 headers against 20,000
/// annotations took 19 s for three checks in a debug build).
#[test]
fn many_headers_against_many_annotations() {
    let props: Vec<String> = (0..20_000)
        .map(|i| format!(r#""p{i}":{{"type":"integer","x-mcp-header":"H{i}"}}"#))
        .collect();
    let tool = tool(&format!(r#"{{"properties":{{{}}}}}"#, props.join(",")));
    let members: Vec<String> = (0..20_000)
        .step_by(1_000)
        .map(|i| format!(r#""p{i}":{i}"#))
        .collect();
    let body = call(&format!("{{{}}}", members.join(",")));
    let msg = Decoder::mcp().decode(body.as_bytes()).unwrap();
    let mut headers = text(&mirror_headers(&msg, None, None).unwrap());
    headers.extend((0..20_000).map(|i| (format!("Mcp-Param-Unknown{i}"), "1".to_string())));
    // Names compared case-insensitively.
    headers.extend(
        (0..20_000)
            .step_by(1_000)
            .map(|i| (format!("MCP-PARAM-h{i}"), i.to_string())),
    );
    let check = HeaderCheck::new(&[VERSION]).with_tool(&tool);
    common::within("three checks", Duration::from_secs(2), || {
        assert_eq!(check.check(names_and_values(&headers), &msg), Ok(()));
        headers.push(("mcp-param-H19000".into(), "19000".into()));
        assert_eq!(
            check.check(names_and_values(&headers), &msg),
            Err(HeaderError::Duplicate(Header::Param("H19000")))
        );
        headers.pop();
        headers.push(("mcp-param-H19001".into(), "1".into()));
        assert_eq!(
            check.check(names_and_values(&headers), &msg),
            Err(HeaderError::Mismatch(Header::Param("H19001")))
        );
    });
}
