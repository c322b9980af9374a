#!/usr/bin/env bash
# The engine's own thread pool against the OpenMP runtime it replaces, on the GPU machine's Xeon: the same `bench`
# workloads from the build before the change (.device/oldbuild: 14f7b00, CPU only, OpenMP) and after, alternating,
# at 16 threads, 2 threads, 1 thread, and oversubscribed (32 threads on the 16 cores); then onnxruntime 1.30 beside
# the new build (tools/ort_compare.sh).
set -uo pipefail
rm -rf .device/build .device/oldbuild; tar xzf .device/build.tgz -C .device; tar xzf .device/oldbuild.tgz -C .device
R=$OUT/r; mkdir -p $R
p50() { "$@" --json /tmp/b.json > /dev/null 2>&1 && /usr/bin/python3 -c "import json; print(round(json.load(open('/tmp/b.json'))['results'][0]['compute_only']['p50_ms'],3))"; }
work() {
lscpu | grep -E "Model name|^CPU\(s\)" | tee $R/cpu.txt
for w in "convnet 10000 16" "ssa 512 16" "ssa 65536 16" "ssa 1 16" "convnet 1 16" "convnet 1000 2" "ssa 512 2" "ssa 1 2" \
         "ssa 1 1" "convnet 1 1" "convnet 10000 32" "ssa 512 32" "ssa 65536 32"; do
  set -- $w
  for round in 1 2; do
    old=$(p50 .device/oldbuild/bin/bench --config configs/$1.yaml --paths cpu --threads $3 --batches $2 --duration-ms 1000)
    new=$(p50 .device/build/bin/bench --config configs/$1.yaml --paths cpu --threads $3 --batches $2 --duration-ms 1000)
    echo "$1 batch $2 threads $3 round $round: openmp $old ms, pool $new ms"
  done
done | tee $R/ab.txt
ORT_VENV=/opt/torch/.venv BENCH_MS=1500 bash tools/ort_compare.sh 16 .device/build > $R/ort_compare_16.txt 2>&1; cat $R/ort_compare_16.txt
ORT_VENV=/opt/torch/.venv BENCH_MS=1500 WORKLOADS="convnet:1000 ssa:512 ssa:4096" bash tools/ort_compare.sh 2 .device/build > $R/ort_compare_2.txt 2>&1; tail -3 $R/ort_compare_2.txt
ORT_VENV=/opt/torch/.venv BENCH_MS=1500 WORKLOADS="convnet:1 ssa:1" bash tools/ort_compare.sh 1 .device/build > $R/ort_compare_1.txt 2>&1; tail -2 $R/ort_compare_1.txt
}
timeout 580 bash -c "$(declare -f work p50); R=$R; work" 2>&1 | tee $R/call.log
cd $OUT && tar czf r.tgz r && rm -rf r
