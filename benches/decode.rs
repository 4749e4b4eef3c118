//! Side-by-side decode benchmarks: rpcwire (lazy, strict) against serde_json with
//! `&RawValue`, simd-json's tape and sonic-rs's lazy object iterator, with the memchr newline
//! scan as the floor. Ids: `decode/<corpus>/<method>` (see `examples/bench_report.rs`).
//!
//! Every method frames the stream itself and looks at each message's envelope; each corpus
//! is checked once up front to be valid for every method.

use std::borrow::Cow;
use std::hint::black_box;

use bytes::BytesMut;
use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, Throughput, criterion_group};
use rpcwire::scan::{self, Validation};
use rpcwire::{
    ContentLengthFramer, DecodeOptions, Decoder, ErrorCode, Id, LineFramer, Message, RawJson,
    ReplyId, SseFramer, encode,
};
use serde::Deserialize;
use serde_json::value::RawValue;

mod corpus;
use corpus::Corpus;

const MAX_FRAME: usize = 16 << 20;

/// The serde_json envelope: every member kept raw or borrowed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// Splits a stream on newlines with memchr (the framing every competitor gets).
fn lines(stream: &[u8]) -> impl Iterator<Item = &[u8]> {
    memchr::memchr_iter(b'\n', stream)
        .scan(0usize, |start, nl| {
            let frame = &stream[*start..nl];
            *start = nl + 1;
            Some(frame)
        })
        .filter(|f| !f.is_empty())
}

fn rpcwire(decoder: &Decoder, stream: &[u8]) -> usize {
    let mut n = 0;
    for line in decoder.decode_lines(stream) {
        match line.unwrap().message {
            Ok(msg) => n += fields(&msg),
            Err(_) => n += 100,
        }
    }
    n
}

/// What a caller reads of a message, as the serde_json envelope is read below: its kind and
/// the lengths of its id, method and payload.
fn fields(msg: &Message<'_>) -> usize {
    let payload = match msg {
        Message::Request(r) => r.params.map_or(0, |p| p.as_bytes().len()),
        Message::Notification(n) => n.params.map_or(0, |p| p.as_bytes().len()),
        Message::Response(r) => r.result.as_bytes().len(),
        Message::ErrorResponse(e) => e.error.message.raw().len(),
        Message::Batch(b) => b.raw.as_bytes().len(),
    };
    msg.kind() as usize
        + msg.id().map_or(0, |id| id.raw().len())
        + msg.method().map_or(0, |m| m.raw().len())
        + payload
}

/// serde_json's fastest path for the job: the whole frame checked as UTF-8 first (with SIMD,
/// as rpcwire checks it), then `from_str`, which checks no byte again (`from_slice` checks
/// the strings' UTF-8 as it reads them: 5–15 % slower on the small frames).
fn serde_envelope(stream: &[u8]) -> usize {
    let mut n = 0;
    for frame in lines(stream) {
        let text = simdutf8::basic::from_utf8(frame).unwrap();
        let env: Envelope<'_> = serde_json::from_str(text).unwrap();
        n += env.jsonrpc.len()
            + env.id.map_or(0, |v| v.get().len())
            + env.method.map_or(0, |m| m.len())
            + env.params.map_or(0, |v| v.get().len())
            + env.result.map_or(0, |v| v.get().len())
            + env.error.map_or(0, |v| v.get().len());
    }
    n
}

/// simd-json's allocation-free path: `fill_tape_padded` into a reused tape. The parse
/// unescapes strings in place, so each pass works on one copy of the stream (the copy is
/// timed); each frame's padding is the bytes after it, as `fill_tape_padded` allows.
/// (`to_tape_with_buffers` allocated and freed a tape per frame, and `fill_tape` copies
/// each frame a second time into its own padded buffer.)
fn simd_json_tape(
    stream: &[u8],
    scratch: &mut Vec<u8>,
    buffers: &mut simd_json::Buffers,
    spare: &mut simd_json::Tape<'static>,
) -> usize {
    scratch.clear();
    scratch.extend_from_slice(stream);
    scratch.resize(stream.len() + simd_json::INPUT_PADDING, b' ');
    let mut n = 0;
    let base = stream.as_ptr() as usize;
    for frame in lines(stream) {
        let start = frame.as_ptr() as usize - base;
        let mut tape = std::mem::replace(spare, simd_json::Tape::null()).reset();
        simd_json::fill_tape_padded(&mut scratch[start..], frame.len(), buffers, &mut tape)
            .unwrap();
        n += tape.0.len();
        *spare = tape.reset();
    }
    n
}

/// sonic-rs's fastest lazy path for an envelope: iterate the top-level members without
/// validation, matching the envelope keys and keeping each value raw. (sonic-rs builds for
/// x86_64 and aarch64 only; elsewhere the benches leave it out.)
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn sonic_object_iter(stream: &[u8]) -> usize {
    let mut n = 0;
    for frame in lines(stream) {
        // SAFETY (sonic-rs contract): the corpora are valid JSON, checked in `check`.
        for member in unsafe { sonic_rs::to_object_iter_unchecked(frame) } {
            let (key, value) = member.unwrap();
            n += match &*key {
                "jsonrpc" | "id" | "method" | "params" | "result" | "error" => {
                    value.as_raw_str().len()
                }
                _ => 0,
            };
        }
    }
    n
}

/// sonic-rs's lazy iterator that validates what it skips: the like-for-like peer of strict
/// mode.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn sonic_object_iter_checked(stream: &[u8]) -> usize {
    let mut n = 0;
    for frame in lines(stream) {
        for member in sonic_rs::to_object_iter(frame) {
            let (key, value) = member.unwrap();
            n += match &*key {
                "jsonrpc" | "id" | "method" | "params" | "result" | "error" => {
                    value.as_raw_str().len()
                }
                _ => 0,
            };
        }
    }
    n
}

/// Every method must accept every frame of every corpus.
fn check(c: &Corpus) {
    let lazy = Decoder::mcp();
    let strict = Decoder::new(DecodeOptions {
        validation: Validation::Strict,
        ..DecodeOptions::default()
    });
    let mut count = 0;
    let mut tape_nodes = 0;
    for frame in lines(&c.stream) {
        count += 1;
        lazy.decode(frame)
            .unwrap_or_else(|e| panic!("{}: lazy rejects: {e:?}", c.name));
        strict
            .decode(frame)
            .unwrap_or_else(|e| panic!("{}: strict rejects: {e:?}", c.name));
        serde_json::from_slice::<Envelope<'_>>(frame).expect("serde_json");
        let mut copy = frame.to_vec();
        tape_nodes += simd_json::to_tape(&mut copy).expect("simd-json").0.len();
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        for m in sonic_rs::to_object_iter(frame) {
            m.expect("sonic-rs");
        }
    }
    assert_eq!(count, c.messages);
    // The timed rpcwire path is `decode_lines`, which walks a long line on the unsplit stream
    // (not `Lines` + `decode`, checked above), and `rpcwire()` counts a rejection instead of
    // failing: a rejection there would time a fast failure as a decode.
    for decoder in [&lazy, &strict] {
        let mut lines_seen = 0;
        for line in decoder.decode_lines(&c.stream) {
            lines_seen += 1;
            let line = line.unwrap_or_else(|e| panic!("{}: decode_lines: {e:?}", c.name));
            if let Err(e) = line.message {
                panic!("{}: decode_lines rejects: {e:?}", c.name);
            }
        }
        assert_eq!(lines_seen, c.messages);
    }
    // The timed simd-json path builds the same tapes as `to_tape` on each frame alone.
    let mut buffers = simd_json::Buffers::new(c.stream.len());
    let (mut scratch, mut spare) = (Vec::new(), simd_json::Tape::null());
    assert_eq!(
        simd_json_tape(&c.stream, &mut scratch, &mut buffers, &mut spare),
        tape_nodes
    );
}

fn decode(cr: &mut Criterion) {
    eprintln!("scan kernel: {}", scan::simd_kernel());
    for c in corpus::all() {
        check(&c);
        eprintln!(
            "corpus {}: {} bytes, {} messages",
            c.name,
            c.stream.len(),
            c.messages
        );
        let stream = &c.stream[..];
        let mut g = cr.benchmark_group(format!("decode/{}", c.name));
        g.throughput(Throughput::Bytes(stream.len() as u64));
        g.bench_function("memchr_floor", |b| {
            b.iter(|| memchr::memchr_iter(b'\n', black_box(stream)).count())
        });
        let lazy = Decoder::mcp();
        g.bench_function("rpcwire_lazy", |b| {
            b.iter(|| rpcwire(&lazy, black_box(stream)))
        });
        let strict = Decoder::new(DecodeOptions {
            validation: Validation::Strict,
            ..DecodeOptions::default()
        });
        g.bench_function("rpcwire_strict", |b| {
            b.iter(|| rpcwire(&strict, black_box(stream)))
        });
        g.bench_function("serde_json_rawvalue", |b| {
            b.iter(|| serde_envelope(black_box(stream)))
        });
        let mut scratch = Vec::with_capacity(stream.len() + simd_json::INPUT_PADDING);
        let mut buffers = simd_json::Buffers::new(stream.len());
        let mut spare = simd_json::Tape::null();
        g.bench_function("simd_json_tape", |b| {
            b.iter(|| simd_json_tape(black_box(stream), &mut scratch, &mut buffers, &mut spare))
        });
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            g.bench_function("sonic_rs_iter_unchecked", |b| {
                b.iter(|| sonic_object_iter(black_box(stream)))
            });
            g.bench_function("sonic_rs_iter_checked", |b| {
                b.iter(|| sonic_object_iter_checked(black_box(stream)))
            });
        }
        g.finish();
    }
}

/// The skip primitive alone over each message, SIMD kernel against the scalar oracle.
fn skip(cr: &mut Criterion) {
    for c in corpus::all() {
        let mut g = cr.benchmark_group(format!("skip/{}", c.name));
        g.throughput(Throughput::Bytes(c.stream.len() as u64));
        let frames: Vec<&[u8]> = c.frames().collect();
        for (name, f) in [
            (
                "simd",
                scan::simd_skip_value as fn(&[u8], usize, u32, u32, Validation) -> _,
            ),
            ("portable", scan::portable::skip_value),
            ("scalar", scan::scalar_skip_value),
        ] {
            g.bench_function(name, |b| {
                b.iter(|| {
                    frames
                        .iter()
                        .map(|fr| f(black_box(fr), 0, 0, 128, Validation::Lazy).unwrap())
                        .sum::<usize>()
                })
            });
        }
        g.finish();
    }
}

/// Framing alone: `LineFramer` cutting every frame out of a `BytesMut`; then the typical
/// frames as Server-Sent Events and behind `Content-Length` headers.
fn framing(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("frame");
    for c in [corpus::tiny(), corpus::typical()] {
        bench_framer(&mut g, c.name, &c.stream, |mut buf| {
            let mut framer = LineFramer::new(MAX_FRAME);
            let mut n = 0;
            while let Some(f) = framer.decode(&mut buf).unwrap() {
                n += f.len();
            }
            n
        });
    }
    let typical = corpus::typical();
    let payload = typical.stream.len() - typical.messages;
    let mut sse = Vec::new();
    let mut content_length = Vec::new();
    for frame in typical.frames() {
        sse.extend_from_slice(b"data: ");
        sse.extend_from_slice(frame);
        sse.extend_from_slice(b"\n\n");
        content_length
            .extend_from_slice(format!("Content-Length: {}\r\n\r\n", frame.len()).as_bytes());
        content_length.extend_from_slice(frame);
    }
    bench_framer(&mut g, "sse_typical", &sse, |mut buf| {
        let mut framer = SseFramer::new(MAX_FRAME);
        let mut n = 0;
        while let Some(event) = framer.decode(&mut buf).unwrap() {
            n += event.as_ref().len();
        }
        assert_eq!(n, payload);
        n
    });
    bench_framer(
        &mut g,
        "content_length_typical",
        &content_length,
        |mut buf| {
            let mut framer = ContentLengthFramer::new(MAX_FRAME);
            let mut n = 0;
            while let Some(body) = framer.decode(&mut buf).unwrap() {
                n += body.len();
            }
            assert_eq!(n, payload);
            n
        },
    );
    g.finish();
}

/// `frame_all` over a fresh `BytesMut` copy of `stream` per iteration (the copy not timed);
/// throughput in bytes of `stream`.
fn bench_framer(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    stream: &[u8],
    frame_all: impl Fn(BytesMut) -> usize,
) {
    g.throughput(Throughput::Bytes(stream.len() as u64));
    g.bench_function(name, |b| {
        b.iter_batched(|| BytesMut::from(stream), &frame_all, BatchSize::LargeInput)
    });
}

/// The encoding benches' inputs: 1000 ids, and the two results a response carries (a short
/// one, and a pretty-printed one whose line breaks become spaces).
struct EncodeInputs {
    ids: Vec<String>,
    short: Vec<u8>,
    pretty: Vec<u8>,
}

impl EncodeInputs {
    fn new() -> EncodeInputs {
        let lines: String = (0..100)
            .map(|i| format!("  \"k{i}\": [1, 2, 3],\n"))
            .collect();
        EncodeInputs {
            ids: (0..1000).map(|i| i.to_string()).collect(),
            short: br#"{"content":[{"type":"text","text":"ok"}],"isError":false}"#.to_vec(),
            pretty: format!("{{\n{lines}  \"z\": 1\n}}").into_bytes(),
        }
    }

    /// Each encode bench's name and its pass: a reply for each id written into the buffer,
    /// cleared first (a response carrying the short or the pretty result, or a -32601 error
    /// reply), which returns the bytes written.
    fn passes(&self) -> [(&'static str, EncodePass<'_>); 3] {
        let errors: EncodePass<'_> = Box::new(|out: &mut BytesMut| {
            out.clear();
            for id in &self.ids {
                let id = ReplyId::Id(Id::from_token(id.as_bytes()).unwrap());
                encode::write_error(
                    out,
                    id,
                    ErrorCode::METHOD_NOT_FOUND,
                    "Method not found",
                    None,
                );
            }
            out.len()
        });
        [
            ("write_response", self.responses(&self.short)),
            ("write_response_pretty", self.responses(&self.pretty)),
            ("write_error", errors),
        ]
    }

    /// A pass writing a response carrying `result` for each id.
    fn responses<'a>(&'a self, result: &'a [u8]) -> EncodePass<'a> {
        let result = RawJson::new(result).unwrap();
        Box::new(move |out: &mut BytesMut| {
            out.clear();
            for id in &self.ids {
                encode::write_response(out, Id::from_token(id.as_bytes()).unwrap(), result);
            }
            out.len()
        })
    }
}

/// One encode bench's pass (see [`EncodeInputs::passes`]).
type EncodePass<'a> = Box<dyn Fn(&mut BytesMut) -> usize + 'a>;

/// Encoding: 1000 responses (a short result, then a pretty-printed one) and 1000 error
/// replies into a reused buffer.
fn encoding(cr: &mut Criterion) {
    let mut g = cr.benchmark_group("encode");
    let inputs = EncodeInputs::new();
    let mut out = BytesMut::with_capacity(1 << 20);
    for (name, pass) in inputs.passes() {
        g.throughput(Throughput::Bytes(pass(&mut out) as u64));
        g.bench_function(name, |b| b.iter(|| pass(&mut out)));
    }
    g.finish();
}

criterion_group!(benches, decode, skip, framing, encoding);

/// `cargo bench --bench decode -- --min-of-passes [ROUNDS]`: a second measure of the decode
/// methods, for a host whose load comes in spells (see BENCHMARKS.md). Each round runs every
/// method in turn, each for a fixed time, and keeps the fastest single pass over the stream;
/// over the rounds the fastest pass of each method is kept. Interference only adds time, so
/// the fastest pass is the one a spell of load did not touch, and the methods alternate, so a
/// long spell cannot fall on one method alone. Prints a Markdown table.
fn min_of_passes(rounds: u32) {
    use std::time::Duration;
    let lazy = Decoder::mcp();
    let strict = Decoder::new(DecodeOptions {
        validation: Validation::Strict,
        ..DecodeOptions::default()
    });
    println!(
        "scan kernel: {}, {rounds} rounds of {PASS_TIME:?} a method\n",
        scan::simd_kernel()
    );
    println!(
        "| corpus | lazy | strict | serde_json + &RawValue | sonic-rs | lazy / serde_json | strict / serde_json | lazy / sonic-rs | lazy messages/s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let variants = [
        corpus::sdk_order(&corpus::tiny(), "tiny, TS SDK order"),
        corpus::sdk_order(&corpus::typical(), "typical, TS SDK order"),
        corpus::java_order(&corpus::tiny(), "tiny, Java SDK order"),
        corpus::kotlin_order(&corpus::tiny(), "tiny, Kotlin SDK order"),
        corpus::csharp_order(&corpus::tiny(), "tiny, C# SDK order"),
        corpus::spaced(&corpus::tiny(), "tiny, spaced"),
        corpus::spaced(&corpus::typical(), "typical, spaced"),
        corpus::error_responses(),
        corpus::sdk_order(&corpus::error_responses(), "error responses, TS SDK order"),
        corpus::csharp_order(&corpus::error_responses(), "error responses, C# SDK order"),
    ];
    for c in corpus::all().into_iter().chain(variants) {
        check(&c);
        let stream = &c.stream[..];
        let mut passes: Vec<Pass<'_>> = vec![
            Box::new(|| rpcwire(&lazy, black_box(stream))),
            Box::new(|| rpcwire(&strict, black_box(stream))),
            Box::new(|| serde_envelope(black_box(stream))),
        ];
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        passes.push(Box::new(|| sonic_object_iter(black_box(stream))));
        let best = fastest_passes(&mut passes, rounds);
        let mb_s = |d: Duration| stream.len() as f64 / d.as_secs_f64() / 1e6;
        let ratio = |a: Duration, b: Duration| b.as_secs_f64() / a.as_secs_f64();
        let per_second = c.messages as f64 / best[0].as_secs_f64();
        let messages = if per_second >= 1e6 {
            format!("{:.1} M", per_second / 1e6)
        } else {
            format!("{:.0} k", per_second / 1e3)
        };
        let (lazy_t, strict_t, serde_t) = (best[0], best[1], best[2]);
        // (No sonic-rs column figures on a target it does not build for.)
        let sonic = best.get(3).map_or(["–".into(), "–".into()], |&sonic_t| {
            [
                format!("{:.0} MB/s", mb_s(sonic_t)),
                format!("{:.2}×", ratio(lazy_t, sonic_t)),
            ]
        });
        println!(
            "| {} | {:.0} MB/s | {:.0} MB/s | {:.0} MB/s | {} | {:.2}× | {:.2}× | {} | {messages} |",
            c.name,
            mb_s(lazy_t),
            mb_s(strict_t),
            mb_s(serde_t),
            sonic[0],
            ratio(lazy_t, serde_t),
            ratio(strict_t, serde_t),
            sonic[1],
        );
    }

    // The encode benches, measured the same way: on a host whose criterion medians swing by
    // tens of percent on these short benches, two builds' fastest passes still compare.
    println!("\n| encode (1000 replies) | fastest pass | GB/s | ns a reply |");
    println!("|---|---:|---:|---:|");
    let inputs = EncodeInputs::new();
    let passes = inputs.passes();
    let bytes = passes
        .each_ref()
        .map(|(_, pass)| pass(&mut BytesMut::with_capacity(1 << 20)));
    let best = fastest_passes(
        &mut passes.each_ref().map(|(_, pass)| -> Pass<'_> {
            let mut out = BytesMut::with_capacity(1 << 20);
            Box::new(move || pass(black_box(&mut out)))
        }),
        rounds,
    );
    for (((name, _), bytes), best) in passes.iter().zip(bytes).zip(best) {
        println!(
            "| {name} | {:.2} µs | {:.2} GB/s | {:.1} |",
            best.as_secs_f64() * 1e6,
            bytes as f64 / best.as_secs_f64() / 1e9,
            best.as_secs_f64() * 1e9 / inputs.ids.len() as f64,
        );
    }
}

/// One pass of a method over its whole input, returning something to keep it from being
/// optimized away.
type Pass<'a> = Box<dyn FnMut() -> usize + 'a>;

/// How long each method runs in each round of `--min-of-passes`.
const PASS_TIME: std::time::Duration = std::time::Duration::from_millis(300);

/// `rounds` rounds of every pass in turn, each for [`PASS_TIME`]; returns each one's fastest
/// single pass over all the rounds.
fn fastest_passes(passes: &mut [Pass<'_>], rounds: u32) -> Vec<std::time::Duration> {
    use std::time::{Duration, Instant};
    let mut best = vec![Duration::MAX; passes.len()];
    for _ in 0..rounds {
        for (pass, best) in passes.iter_mut().zip(&mut best) {
            let start = Instant::now();
            while start.elapsed() < PASS_TIME {
                let t = Instant::now();
                black_box(pass());
                *best = (*best).min(t.elapsed());
            }
        }
    }
    best
}

fn main() {
    // `RPCWIRE_BENCH_AVX2=1`: the lazy kernel's AVX2 instance on a CPU with AVX-512BW, to
    // compare the two in one build.
    if std::env::var_os("RPCWIRE_BENCH_AVX2").is_some() {
        scan::force_avx2(true);
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--min-of-passes") {
        // (cargo adds `--bench` after the arguments it passes on.)
        let next = args.get(at + 1).filter(|a| !a.starts_with("--"));
        let rounds = match next.map(|r| r.parse::<u32>()) {
            None => 7,
            Some(Ok(r)) if r > 0 => r,
            Some(_) => {
                eprintln!("--min-of-passes takes a number of rounds (at least 1)");
                std::process::exit(2);
            }
        };
        min_of_passes(rounds);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
