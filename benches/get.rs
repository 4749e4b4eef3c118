//! Lazy field access: `params._meta.progressToken` out of a typical `tools/call` request, by
//! rpcwire's `RawJson::get_path`, serde_json's `Value` (parse then index), and sonic-rs's `get`
//! (its lazy path lookup, with and without validation).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const FRAME: &str = r#"{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"Ada Lovelace","entityType":"person","observations":["wrote the first program","worked with Babbage on the Analytical Engine"]},{"name":"Analytical Engine","entityType":"machine","observations":["general-purpose","never completed"]}]},"_meta":{"progressToken":"tok-17"}}}"#;

fn bench_get(c: &mut Criterion) {
    let mut group = c.benchmark_group("get/progress_token");
    group.throughput(Throughput::Bytes(FRAME.len() as u64));
    let decoder = rpcwire::Decoder::mcp();
    group.bench_function("rpcwire_decode_and_pointer", |b| {
        b.iter(|| {
            let msg = decoder.decode(black_box(FRAME.as_bytes())).unwrap();
            let token = msg
                .params()
                .unwrap()
                .get_path(&["_meta", "progressToken"])
                .unwrap();
            black_box(token.as_bytes().len())
        })
    });
    let params = match decoder.decode(FRAME.as_bytes()).unwrap() {
        rpcwire::Message::Request(r) => r.params.unwrap(),
        _ => unreachable!(),
    };
    group.bench_function("rpcwire_pointer", |b| {
        b.iter(|| {
            black_box(
                black_box(params)
                    .get_path(&["_meta", "progressToken"])
                    .unwrap()
                    .as_bytes()
                    .len(),
            )
        })
    });
    group.bench_function("serde_json_value", |b| {
        b.iter(|| {
            let v: serde_json::Value = serde_json::from_str(black_box(FRAME)).unwrap();
            black_box(
                v["params"]["_meta"]["progressToken"]
                    .as_str()
                    .unwrap()
                    .len(),
            )
        })
    });
    // (sonic-rs builds for x86_64 and aarch64 only.)
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    sonic_rs_get(&mut group);
    group.finish();
}

/// sonic-rs's `get`, validating and not.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn sonic_rs_get(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group.bench_function("sonic_rs_get", |b| {
        b.iter(|| {
            let v = sonic_rs::get(black_box(FRAME), &["params", "_meta", "progressToken"]).unwrap();
            black_box(v.as_raw_str().len())
        })
    });
    group.bench_function("sonic_rs_get_unchecked", |b| {
        b.iter(|| {
            // SAFETY: FRAME is valid JSON; sonic-rs skips validation on that promise.
            let v = unsafe {
                sonic_rs::get_unchecked(black_box(FRAME), &["params", "_meta", "progressToken"])
            }
            .unwrap();
            black_box(v.as_raw_str().len())
        })
    });
}

criterion_group!(benches, bench_get);
criterion_main!(benches);
