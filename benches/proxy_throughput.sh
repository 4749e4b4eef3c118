#!/usr/bin/env bash
# Throughput and added latency of `rpcwire proxy`, side by side with plain `cat`:
#
#   bash benches/proxy_throughput.sh [MB]      # MB of generated MCP traffic, 200 by default
#
# 1. examples/gen_stream.rs writes a realistic MCP stream (requests, notifications, replies with
#    text, escapes, non-ASCII and base64 blobs; every message valid and matched when echoed).
# 2. The stream goes through `cat | cat` and through `cat | rpcwire proxy --quiet -- cat`
#    (the server echoes it back), best of 3 runs each, alternating; the proxy's output must be
#    byte-identical to its input and its session free of violations.
# 3. examples/latency_probe.rs times request -> reply round trips against `cat` directly and
#    through the proxy, one message in flight.
set -euo pipefail
cd "$(dirname "$0")/.."

MB=${1:-200}
OUT=target/proxy-bench
mkdir -p "$OUT"
cargo build --release --features cli --bin rpcwire --example gen_stream --example latency_probe >&2
BIN=target/release/rpcwire
STREAM=$OUT/stream.ndjson
target/release/examples/gen_stream "$MB" > "$STREAM"
BYTES=$(stat -c %s "$STREAM")
LINES=$(wc -l < "$STREAM")
echo "stream: $BYTES bytes, $LINES messages (avg $((BYTES / LINES)) B)"

# Correctness first: byte-identical output, no violation.
cat "$STREAM" | "$BIN" proxy --quiet --log "$OUT/proxy.log" -- cat > "$OUT/out.ndjson" 2> "$OUT/proxy.err"
cmp "$STREAM" "$OUT/out.ndjson"
tail -n 1 "$OUT/proxy.log" | grep -q '"total_violations":0' || { echo "violations:" >&2; tail -n 1 "$OUT/proxy.log" >&2; exit 1; }
rm -f "$OUT/out.ndjson"

now() { date +%s%N; }
best() { # best wall time in ns of 3 runs of "$@"
  local best=0 t0 t1 d
  for _ in 1 2 3; do
    t0=$(now); "$@"; t1=$(now); d=$((t1 - t0))
    if [ "$best" -eq 0 ] || [ "$d" -lt "$best" ]; then best=$d; fi
  done
  echo "$best"
}
run_cat() { cat "$STREAM" | cat > /dev/null; }
run_proxy() { cat "$STREAM" | "$BIN" proxy --quiet -- cat > /dev/null 2> /dev/null; }
run_proxy_lazy() { cat "$STREAM" | "$BIN" proxy --quiet --validate lazy -- cat > /dev/null 2> /dev/null; }
run_proxy_log() { cat "$STREAM" | "$BIN" proxy --quiet --log "$OUT/bench.log" -- cat > /dev/null 2> /dev/null; }
run_check() { "$BIN" check --validate strict "$STREAM" > /dev/null; }

cat "$STREAM" > /dev/null # warm the page cache
T_CAT=$(best run_cat)
T_PROXY=$(best run_proxy)
T_LAZY=$(best run_proxy_lazy)
T_LOG=$(best run_proxy_log)
T_CHECK=$(best run_check)
mbs() { awk -v b="$BYTES" -v ns="$1" 'BEGIN { printf "%.0f", b / 1048576 / (ns / 1e9) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b / a }'; }
echo
printf '%-52s %8s MB/s\n' "cat | cat" "$(mbs "$T_CAT")"
printf '%-52s %8s MB/s  (%s x cat)\n' "cat | rpcwire proxy -- cat (strict, the default)" "$(mbs "$T_PROXY")" "$(ratio "$T_PROXY" "$T_CAT")"
printf '%-52s %8s MB/s  (%s x cat)\n' "cat | rpcwire proxy --validate lazy -- cat" "$(mbs "$T_LAZY")" "$(ratio "$T_LAZY" "$T_CAT")"
printf '%-52s %8s MB/s  (%s x cat)\n' "cat | rpcwire proxy --log FILE -- cat" "$(mbs "$T_LOG")" "$(ratio "$T_LOG" "$T_CAT")"
printf '%-52s %8s MB/s  (one direction, one thread)\n' "rpcwire check --validate strict FILE" "$(mbs "$T_CHECK")"
rm -f "$OUT/bench.log"
echo
target/release/examples/latency_probe "$BIN" 10000
