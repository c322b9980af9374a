#!/usr/bin/env bash
# infer --profile, compare, bench and soak end to end on the CPU backend.
#   test_perf_tools.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
BIN="$BUILD/bin"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="$WORK/cache"   # device peaks are measured into a private cache
failures=0
# shellcheck source=../../tools/python_env.sh
source "$SRC/tools/python_env.sh"

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect CODE DESCRIPTION COMMAND...: runs the command, checks its exit code, keeps its output in $WORK/out.txt.
expect() {
  local want=$1 what=$2
  shift 2
  "$@" >"$WORK/out.txt" 2>&1
  local got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$what: exit $got, expected $want"
    sed 's/^/    /' "$WORK/out.txt" | tail -20
  else
    echo "ok: $what"
  fi
}
json_check() {  # json_check FILE PYTHON-EXPRESSION-ON-d
  "$IE_PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1" || fail "$1: $2"
}

SSA="$SRC/configs/ssa.yaml"
CONV="$SRC/configs/convnet.yaml"
X="$SRC/weights/reference/ssa_input.npy"

# --- infer --profile: a table, JSON and CSV of the first batch ---
expect 0 "infer --profile" "$BIN/infer" --config "$SSA" --input "$X" --backend cpu --batch-size 4 --profile \
  --profile-iterations 3 --profile-json "$WORK/prof.json" --profile-csv "$WORK/prof.csv"
grep -q "per-op profile" "$WORK/out.txt" || fail "infer --profile printed no table"
json_check "$WORK/prof.json" "len(d['steps']) > 0 and all(s['median_ms'] > 0 for s in d['steps'])"
json_check "$WORK/prof.json" "d['peaks']['copy_gbps'] > 0 and d['steps'][0]['input_shapes'][0][0] == 4"
json_check "$WORK/prof.json" "any(s['flops'] > 0 and s['achieved_tflops'] > 0 for s in d['steps'])"
[ "$(wc -l <"$WORK/prof.csv")" -eq "$("$IE_PYTHON" -c "import json; print(len(json.load(open('$WORK/prof.json'))['steps']) + 1)")" ] ||
  fail "profile CSV does not have one line per step plus a header"
ls "$XDG_CACHE_HOME"/inferengine/peaks-*.json >/dev/null 2>&1 || fail "device peaks were not cached"

# --- compare ---
expect 0 "compare cpu vs cpu (ssa, random)" "$BIN/compare" --config "$SSA" --seed 3 --batch 5 --a cpu --b cpu \
  --runs 2 --per-layer --json "$WORK/cmp.json"
grep -q "^PASS" "$WORK/out.txt" || fail "compare cpu vs cpu did not print PASS"
json_check "$WORK/cmp.json" "d['pass'] and len(d['outputs']) == 2 and 'mse_a' in d['task']"
json_check "$WORK/cmp.json" "d['per_layer']['compared'] > 0 and d['per_layer']['first_failure'] is None"
expect 0 "compare cpu vs cpu (convnet, raw uint8 through pre-processing)" "$BIN/compare" --config "$CONV" --raw \
  --seed 1 --batch 3 --a cpu --b cpu --runs 1
grep -q "top-1 agreement 100" "$WORK/out.txt" || fail "convnet compare has no top-1 agreement line"

# A golden folder written by infer passes; perturbed, it fails with exit 1.
expect 0 "infer writes golden outputs" "$BIN/infer" --config "$SSA" --input "$X" --backend cpu --output "$WORK/golden"
expect 0 "compare golden vs cpu" "$BIN/compare" --config "$SSA" --input "$X" --a "$WORK/golden" --b cpu
"$IE_PYTHON" - "$WORK/golden" <<'PY'
import sys, numpy as np
p = sys.argv[1] + "/recon.npy"
a = np.load(p)
a[0, 5] += 0.05
np.save(p, a)
PY
expect 1 "compare perturbed golden vs cpu fails" "$BIN/compare" --config "$SSA" --input "$X" --a "$WORK/golden" \
  --b cpu --json "$WORK/cmp_bad.json"
json_check "$WORK/cmp_bad.json" "not d['pass'] and [o for o in d['outputs'] if o['name'] == 'recon'][0]['max_abs_position'] == [0, 5]"
json_check "$WORK/cmp_bad.json" "[o for o in d['outputs'] if o['name'] == 'latent'][0]['pass']"
expect 0 "a loose per-output tolerance passes it" "$BIN/compare" --config "$SSA" --input "$X" --a "$WORK/golden" \
  --b cpu --atol recon=0.1
expect 2 "compare without --b is a usage error" "$BIN/compare" --config "$SSA"

# --- bench on the CPU: two small batches, JSON and CSV; a much faster fake baseline exits 5 ---
expect 0 "bench cpu" "$BIN/bench" --config "$SSA" --paths cpu --batches 1,8 --warmup 1 --iterations 3 \
  --json "$WORK/bench.json" --csv "$WORK/bench.csv" --plot "$WORK/bench.svg"
json_check "$WORK/bench.json" "[r['batch'] for r in d['results']] == [1, 8] and all(r['status'] == 'ok' for r in d['results'])"
json_check "$WORK/bench.json" "all(r['compute_only']['p50_ms'] > 0 and r['throughput_samples_per_s'] > 0 for r in d['results'])"
json_check "$WORK/bench.json" "all(r['end_to_end']['runs'] == 3 and r['compute_only']['runs'] == 3 for r in d['results'])"
json_check "$WORK/bench.json" "d['git_revision'] != '' and 'cpu' in d['devices']"
json_check "$WORK/bench.json" "d['devices']['cpu']['cpu kernels'] in ('avx512', 'avx2', 'generic')"
# IE_CPU_ISA=avx2 forces the baseline kernels, and the report says so.
expect 0 "bench with IE_CPU_ISA=avx2" env IE_CPU_ISA=avx2 "$BIN/bench" --config "$CONV" --paths cpu --batches 2 \
  --warmup 1 --iterations 2 --json "$WORK/bench_avx2.json"
json_check "$WORK/bench_avx2.json" "d['devices']['cpu']['cpu kernels'] in ('avx2', 'generic')"
json_check "$WORK/bench.json" "all(r['streamed']['ms_per_batch'] > 0 and r['streamed']['in_flight'] == 1 and r['streamed']['devices'] == 1 for r in d['results'])"
head -1 "$WORK/bench.csv" | grep -q "streamed_ms_per_batch,streamed_samples_per_s,in_flight,reason" ||
  fail "bench CSV lacks the streamed columns"
[ "$(wc -l <"$WORK/bench.csv")" -eq 3 ] || fail "bench CSV should have a header and 2 rows"
if command -v gnuplot >/dev/null; then
  [ -s "$WORK/bench.svg" ] || fail "bench --plot wrote no SVG although gnuplot is installed"
else
  grep -q "gnuplot is not installed" "$WORK/out.txt" || fail "bench --plot without gnuplot gave no warning"
fi
"$IE_PYTHON" - "$WORK/bench.json" "$WORK/fast.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["throughput_samples_per_s"] = 1e12  # far beyond any machine
json.dump(d, open(sys.argv[2], "w"))
PY
expect 5 "bench against a much faster baseline exits 5" "$BIN/bench" --config "$SSA" --paths cpu --batches 1,8 \
  --warmup 1 --iterations 3 --baseline "$WORK/fast.json"
grep -q "REGRESSION" "$WORK/out.txt" || fail "bench did not name the regression"
expect 0 "bench against itself passes" "$BIN/bench" --config "$SSA" --paths cpu --batches 8 --warmup 1 \
  --iterations 3 --baseline "$WORK/bench.json" --threshold 100
expect 0 "bench --profile" "$BIN/bench" --config "$SSA" --paths cpu --batches 2 --warmup 1 --iterations 2 --profile \
  --json "$WORK/bench_prof.json"
json_check "$WORK/bench_prof.json" "len(d['results'][0]['profile']['steps']) > 0"
expect 2 "bench --sets 2 is a usage error" "$BIN/bench" --config "$SSA" --paths cpu --batches 1 --sets 2

# --- hardening: the shared --threads bound and --max-memory limit in every tool ---
expect 2 "bench --threads beyond the machine is a usage error" "$BIN/bench" --config "$SSA" --paths cpu --batches 1 \
  --threads 100000
grep -q -- "--threads must be from 0" "$WORK/out.txt" || fail "bench --threads gave no clear message"
expect 3 "compare --max-memory 1K names the limit" "$BIN/compare" --config "$SSA" --batch 2 --a cpu --b cpu --max-memory 1K
grep -q "single-tensor limit of 1.0 KiB" "$WORK/out.txt" || fail "compare --max-memory gave no clear message"
expect 3 "inspect --max-memory 1K names the limit" "$BIN/inspect" "$SRC/weights/convnet.onnx" --batch 65536 --max-memory 1K
expect 0 "inspect plans the conv net at batch 65536 within the default limits" "$BIN/inspect" \
  "$SRC/weights/convnet.onnx" --batch 65536 --no-fuse
expect 0 "inspect plans the SSA at batch 65536 within the default limits" "$BIN/inspect" "$SRC/weights/ssa.onnx" \
  --batch 65536
expect 2 "inspect --batch 0 says what was wrong" "$BIN/inspect" "$SRC/weights/ssa.onnx" --batch 0
grep -q -- "--batch must be >= 1, got 0" "$WORK/out.txt" || fail "inspect --batch 0 gave no clear message"

# --- soak: sessions on threads, outputs bitwise equal to a single-threaded run, memory flat (a short run here) ---
expect 0 "soak: 3 sessions for 3 s" "$BIN/soak" --config "$SSA" --sessions 3 --batch 2 --duration-s 3 --sample-s 0.2 \
  --max-growth-mb 64 --json "$WORK/soak.json"
json_check "$WORK/soak.json" "d['outputs_equal'] and d['runs'] > 0 and len(d['samples']) > 5"
grep -q "all bitwise equal" "$WORK/out.txt" || fail "soak did not report its output check"
expect 2 "soak --sessions 0 is a usage error" "$BIN/soak" --config "$SSA" --sessions 0

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all perf tool checks passed"
