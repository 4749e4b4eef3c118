//! Turns one run of `cargo bench --bench decode` into the tables of `BENCHMARKS.md` and the
//! chart `docs/bench.svg`.
//!
//! ```text
//! cargo bench --bench decode -- --warm-up-time 1 --measurement-time 3
//! cargo run --example bench_report            # rewrites BENCHMARKS.md's table, docs/bench.svg
//! cargo run --example bench_report -- --print # prints the tables only
//! ```
//!
//! It reads criterion's `target/criterion/**/new/benchmark.json` (group, function,
//! throughput in bytes) and `estimates.json` (the median time per iteration), and takes the
//! message counts from the corpora themselves (`benches/corpus.rs`). Std and serde_json only.
//!
//! On a machine whose neighbours come and go (a shared VM), one run can catch a slow spell on
//! some benchmarks and not on others. `--best-of DIR...` reads several runs instead (copies of
//! `target/criterion`, one per run) and keeps each benchmark's lowest median: interference
//! only ever adds time, and every method gets the same treatment.
//!
//! ```text
//! for i in 1 2 3; do
//!     cargo bench --bench decode -- --warm-up-time 1 --measurement-time 3
//!     cp -r target/criterion /tmp/run$i
//! done
//! cargo run --example bench_report -- --best-of /tmp/run1 /tmp/run2 /tmp/run3
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "../benches/corpus.rs"]
mod corpus;

/// The methods of `decode/<corpus>/<method>`, in table order, with their labels.
const METHODS: [(&str, &str); 7] = [
    ("memchr_floor", "memchr newline scan (floor)"),
    ("rpcwire_lazy", "rpcwire lazy"),
    ("rpcwire_strict", "rpcwire strict"),
    ("serde_json_rawvalue", "serde_json + &RawValue"),
    ("simd_json_tape", "simd-json tape (incl. copy)"),
    ("sonic_rs_iter_unchecked", "sonic-rs object iter, unchecked"),
    ("sonic_rs_iter_checked", "sonic-rs object iter, checked"),
];

/// The project's targets (issue #3): lazy ≥ N× serde_json, per corpus.
const LAZY_TARGETS: [(&str, f64); 5] = [
    ("tiny", 3.0),
    ("typical", 3.0),
    ("large", 5.0),
    ("dense", 15.0),
    ("escapes", 6.0),
];

/// One measured benchmark.
struct Measure {
    /// Median nanoseconds per iteration.
    ns: f64,
    /// Bytes per iteration.
    bytes: u64,
}

impl Measure {
    fn mb_s(&self) -> f64 {
        self.bytes as f64 / self.ns * 1e3
    }
}

fn find_benchmarks(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "new") {
                if p.join("benchmark.json").exists() {
                    out.push(p);
                }
            } else {
                find_benchmarks(&p, out);
            }
        }
    }
}

/// `(group, function) → measure` for every benchmark criterion recorded.
fn load(root: &Path) -> BTreeMap<(String, String), Measure> {
    let mut dirs = Vec::new();
    find_benchmarks(root, &mut dirs);
    let mut all = BTreeMap::new();
    for d in dirs {
        let read = |f: &str| -> Option<serde_json::Value> {
            serde_json::from_str(&fs::read_to_string(d.join(f)).ok()?).ok()
        };
        let (Some(b), Some(e)) = (read("benchmark.json"), read("estimates.json")) else {
            continue;
        };
        let group = b["group_id"].as_str().unwrap_or_default().to_string();
        let function = b["function_id"].as_str().unwrap_or_default().to_string();
        let bytes = b["throughput"]["Bytes"].as_u64().unwrap_or(0);
        let ns = e["median"]["point_estimate"].as_f64().unwrap_or(f64::NAN);
        all.insert((group, function), Measure { ns, bytes });
    }
    all
}

fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    let s = format!("{:.0}", x);
    // Thousands separators.
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn tables(all: &BTreeMap<(String, String), Measure>, messages: &[(&str, usize)]) -> String {
    let mut md = String::new();
    let get =
        |corpus: &str, method: &str| all.get(&(format!("decode/{corpus}"), method.to_string()));
    writeln!(
        md,
        "### Decode throughput (MB/s, median; messages/s in parentheses)\n"
    )
    .unwrap();
    write!(md, "| method |").unwrap();
    for (c, _) in messages {
        write!(md, " {c} |").unwrap();
    }
    writeln!(md).unwrap();
    writeln!(md, "|---|{}", "---:|".repeat(messages.len())).unwrap();
    for (method, label) in METHODS {
        write!(md, "| {label} |").unwrap();
        for &(c, n) in messages {
            match get(c, method) {
                Some(m) => {
                    let msgs = n as f64 / m.ns * 1e9;
                    write!(md, " {} ({} msg/s) |", fmt_num(m.mb_s()), human(msgs)).unwrap()
                }
                None => write!(md, " – |").unwrap(),
            }
        }
        writeln!(md).unwrap();
    }
    writeln!(md, "\n### Ratios\n").unwrap();
    writeln!(
        md,
        "| corpus | lazy / serde_json | target | strict / serde_json | target | lazy / memchr floor | lazy / sonic-rs | lazy messages/s |"
    )
    .unwrap();
    writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|").unwrap();
    for &(c, n) in messages {
        let (Some(lazy), Some(serde)) = (get(c, "rpcwire_lazy"), get(c, "serde_json_rawvalue"))
        else {
            continue;
        };
        let strict = get(c, "rpcwire_strict").map_or(f64::NAN, |s| s.mb_s() / serde.mb_s());
        let floor = get(c, "memchr_floor").map_or(f64::NAN, |f| lazy.mb_s() / f.mb_s());
        let sonic = get(c, "sonic_rs_iter_unchecked").map_or(f64::NAN, |s| lazy.mb_s() / s.mb_s());
        let lazy_ratio = lazy.mb_s() / serde.mb_s();
        let target = LAZY_TARGETS
            .iter()
            .find(|t| t.0 == c)
            .map_or(f64::NAN, |t| t.1);
        let mark = |ok: bool| if ok { "met" } else { "**missed**" };
        // Two decimals, or three where two would round a missed target up to it (2.998×).
        let ratio = |r: f64, target: f64| {
            if r < target && format!("{r:.2}") == format!("{target:.2}") {
                format!("{r:.3}×")
            } else {
                format!("{r:.2}×")
            }
        };
        writeln!(
            md,
            "| {c} | {} | ≥ {target}× {} | {} | ≥ 2× {} | {floor:.3}× | {sonic:.2}× | {} |",
            ratio(lazy_ratio, target),
            mark(lazy_ratio >= target),
            ratio(strict, 2.0),
            mark(strict >= 2.0),
            human(n as f64 / lazy.ns * 1e9),
        )
        .unwrap();
    }
    let mut others = String::new();
    for ((group, function), m) in all {
        // Groups without a byte throughput (the pending table) have their own section.
        let per_byte = ["skip/", "frame", "encode", "get/"]
            .iter()
            .any(|p| group.starts_with(p));
        if per_byte {
            writeln!(others, "| {group}/{function} | {} |", fmt_num(m.mb_s())).unwrap();
        }
    }
    if !others.is_empty() {
        writeln!(
            md,
            "\n### Skip kernel, framing, encoding and field access (MB/s, median)\n"
        )
        .unwrap();
        writeln!(md, "| benchmark | MB/s |\n|---|---:|").unwrap();
        md.push_str(&others);
    }
    md
}

/// `12.3 M`, `456 k`.
fn human(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.1} M", x / 1e6)
    } else if x >= 1e3 {
        format!("{:.0} k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// Text safe inside an XML element.
fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A horizontal grouped bar chart, one group per corpus, log-scale MB/s.
fn svg(all: &BTreeMap<(String, String), Measure>, corpora: &[&str]) -> String {
    // One a method, in `METHODS`' order.
    const COLORS: [&str; METHODS.len()] = [
        "#9e9e9e", "#1565c0", "#64b5f6", "#ef6c00", "#8e24aa", "#2e7d32", "#a5d6a7",
    ];
    let (left, bar_h, gap, width) = (150.0, 14.0, 18.0, 900.0);
    let plot_w = width - left - 80.0;
    let (lo, hi) = (10f64.log10(), 1e5f64.log10()); // 10 MB/s .. 100 GB/s
    let x_of = |v: f64| left + (v.max(10.0).log10() - lo) / (hi - lo) * plot_w;
    let group_h = METHODS.len() as f64 * bar_h + gap;
    let height = 60.0 + corpora.len() as f64 * group_h + 30.0 + METHODS.len() as f64 * 16.0;
    let mut s = String::new();
    writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">"#
    )
    .unwrap();
    writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#).unwrap();
    writeln!(
        s,
        r#"<text x="{left}" y="20" font-size="14" font-weight="bold">rpcwire decode throughput, MB/s (log scale)</text>"#
    )
    .unwrap();
    // Grid lines at each power of ten.
    let top = 40.0;
    let bottom = top + corpora.len() as f64 * group_h;
    for p in 1..=5 {
        let x = x_of(10f64.powi(p));
        writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{bottom}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle" fill="#555">{}</text>"##,
            top - 4.0,
            fmt_num(10f64.powi(p))
        )
        .unwrap();
    }
    for (ci, corpus) in corpora.iter().enumerate() {
        let y0 = top + ci as f64 * group_h;
        writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end" font-weight="bold">{corpus}</text>"#,
            left - 8.0,
            y0 + METHODS.len() as f64 * bar_h / 2.0 + 4.0
        )
        .unwrap();
        for (mi, (method, _)) in METHODS.iter().enumerate() {
            let Some(m) = all.get(&(format!("decode/{corpus}"), method.to_string())) else {
                continue;
            };
            let y = y0 + mi as f64 * bar_h;
            let x1 = x_of(m.mb_s());
            writeln!(
                s,
                r#"<rect x="{left}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                (x1 - left).max(1.0),
                bar_h - 2.0,
                COLORS[mi],
                x1 + 4.0,
                y + bar_h - 4.0,
                fmt_num(m.mb_s())
            )
            .unwrap();
        }
    }
    for (mi, (_, label)) in METHODS.iter().enumerate() {
        let y = bottom + 20.0 + mi as f64 * 16.0;
        writeln!(
            s,
            r#"<rect x="{left}" y="{:.1}" width="12" height="12" fill="{}"/><text x="{}" y="{:.1}">{}</text>"#,
            y - 10.0,
            COLORS[mi],
            left + 18.0,
            y,
            xml_escape(label)
        )
        .unwrap();
    }
    s.push_str("</svg>\n");
    s
}

/// Each benchmark's lowest median over the runs in `roots`.
fn load_best_of(roots: &[PathBuf]) -> BTreeMap<(String, String), Measure> {
    let mut best: BTreeMap<(String, String), Measure> = BTreeMap::new();
    for root in roots {
        for (key, m) in load(root) {
            match best.get(&key) {
                Some(b) if b.ns <= m.ns => {}
                _ => {
                    best.insert(key, m);
                }
            }
        }
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Anything else (`--help` included) is a usage error, not a request to rewrite the files.
    let best_of_at = args.iter().position(|a| a == "--best-of");
    for (i, a) in args.iter().enumerate() {
        let is_run_dir = best_of_at.is_some_and(|at| i > at) && !a.starts_with("--");
        if a != "--print" && a != "--best-of" && !is_run_dir {
            eprintln!(
                "usage: bench_report [--print] [--best-of CRITERION_DIR...]\n\
                 (reads criterion's results, rewrites BENCHMARKS.md's tables and docs/bench.svg; \
                 --print prints the tables only)"
            );
            std::process::exit(2);
        }
    }
    let print_only = args.iter().any(|a| a == "--print");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let runs: Vec<PathBuf> = match args.iter().position(|a| a == "--best-of") {
        Some(at) => args[at + 1..]
            .iter()
            .take_while(|a| !a.starts_with("--"))
            .map(PathBuf::from)
            .collect(),
        None => vec![root.join("target/criterion")],
    };
    let all = load_best_of(&runs);
    if all.is_empty() {
        eprintln!(
            "no criterion results under {}: run `cargo bench --bench decode` first",
            runs.iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        std::process::exit(2);
    }
    let corpora = corpus::all();
    let names: Vec<&str> = corpora.iter().map(|c| c.name).collect();
    let messages: Vec<(&str, usize)> = corpora.iter().map(|c| (c.name, c.messages)).collect();
    let md = tables(&all, &messages);
    if print_only {
        print!("{md}");
        return;
    }
    let path = root.join("BENCHMARKS.md");
    let (start, end) = ("<!-- bench-table:start -->", "<!-- bench-table:end -->");
    let doc =
        fs::read_to_string(&path).unwrap_or_else(|_| format!("# Benchmarks\n\n{start}\n{end}\n"));
    let (Some(a), Some(b)) = (doc.find(start), doc.find(end)) else {
        eprintln!("BENCHMARKS.md lacks the {start} / {end} markers");
        std::process::exit(2);
    };
    let new_doc = format!("{}{start}\n{md}{}", &doc[..a], &doc[b..]);
    fs::write(&path, new_doc).expect("write BENCHMARKS.md");
    fs::create_dir_all(root.join("docs")).expect("mkdir docs");
    fs::write(root.join("docs/bench.svg"), svg(&all, &names)).expect("write docs/bench.svg");
    eprintln!("wrote BENCHMARKS.md and docs/bench.svg");
}
