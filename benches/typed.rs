//! Typed encoding: 1000 `tools/call` results of a `#[derive(Serialize)]` struct written as
//! response lines into a reused `BytesMut`, by `typed::write_response` (serialized straight
//! into the output and checked in place), by `typed::to_raw` then `encode::write_response`
//! (a scratch buffer and a copy), and by serde_json writing a whole envelope struct (the peer:
//! no check that a `RawValue` in it is one value, and no line-break rule).

use bytes::{BufMut, BytesMut};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rpcwire::{Id, encode, typed};
use serde::Serialize;
use serde_json::value::RawValue;
use std::hint::black_box;

#[derive(Serialize)]
struct Content<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResult<'a> {
    content: Vec<Content<'a>>,
    is_error: bool,
}

/// The envelope serde_json writes whole.
#[derive(Serialize)]
struct Response<'a, T> {
    jsonrpc: &'a str,
    id: &'a RawValue,
    result: &'a T,
}

fn bench_typed(c: &mut Criterion) {
    let result = CallToolResult {
        content: vec![
            Content {
                kind: "text",
                text: "The sum of 2 and 3 is 5.",
            },
            Content {
                kind: "text",
                text: "Computed by the \"add\" tool\nin 0.2 ms.",
            },
        ],
        is_error: false,
    };
    let ids: Vec<String> = (0..1000).map(|i| i.to_string()).collect();
    let raw_ids: Vec<Box<RawValue>> = ids
        .iter()
        .map(|id| RawValue::from_string(id.clone()).unwrap())
        .collect();
    let mut out = BytesMut::with_capacity(1 << 20);
    let mut scratch = Vec::with_capacity(1 << 10);

    // The three ways, each writing the 1000 lines into `out` anew.
    let typed_lines = |out: &mut BytesMut| {
        out.clear();
        for id in &ids {
            let id = Id::from_token(id.as_bytes()).unwrap();
            typed::write_response(out, id, &result).unwrap();
        }
    };
    let to_raw_lines = |out: &mut BytesMut, scratch: &mut Vec<u8>| {
        out.clear();
        for id in &ids {
            let raw = typed::to_raw(&result, scratch).unwrap();
            encode::write_response(out, Id::from_token(id.as_bytes()).unwrap(), raw);
        }
    };
    let serde_json_lines = |out: &mut BytesMut| {
        out.clear();
        for id in &raw_ids {
            let response = Response {
                jsonrpc: "2.0",
                id,
                result: &result,
            };
            serde_json::to_writer(out.writer(), &response).unwrap();
            out.put_u8(b'\n');
        }
    };
    // Every way writes the same lines.
    typed_lines(&mut out);
    let expected = out.clone();
    to_raw_lines(&mut out, &mut scratch);
    assert_eq!(out, expected);
    serde_json_lines(&mut out);
    assert_eq!(out, expected);

    let mut g = c.benchmark_group("encode_typed");
    g.throughput(Throughput::Bytes(expected.len() as u64));
    g.bench_function("rpcwire_write_response", |b| {
        b.iter(|| {
            typed_lines(&mut out);
            black_box(out.len())
        })
    });
    g.bench_function("rpcwire_to_raw_then_write_response", |b| {
        b.iter(|| {
            to_raw_lines(&mut out, &mut scratch);
            black_box(out.len())
        })
    });
    g.bench_function("serde_json_envelope", |b| {
        b.iter(|| {
            serde_json_lines(&mut out);
            black_box(out.len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench_typed);
criterion_main!(benches);
