#!/usr/bin/env bash
# Issue 13's table in one run on the GPU machine's Xeon (16 cores), the final build beside onnxruntime 1.30:
# tools/ort_compare.sh at 16, 2 and 1 threads, three rounds each.
source tools/results/h200/device_env.sh
work() {
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket" | tee $R/cpu.txt
for round in 1 2 3; do
  ORT_VENV=/opt/torch/.venv BENCH_MS=1500 WORKLOADS="convnet:10000 ssa:512 ssa:65536" bash tools/ort_compare.sh 16 .device/build > $R/ort_16_$round.txt 2>&1
  ORT_VENV=/opt/torch/.venv BENCH_MS=1500 WORKLOADS="convnet:1000 ssa:512" bash tools/ort_compare.sh 2 .device/build > $R/ort_2_$round.txt 2>&1
  ORT_VENV=/opt/torch/.venv BENCH_MS=1500 WORKLOADS="convnet:1 ssa:1" bash tools/ort_compare.sh 1 .device/build > $R/ort_1_$round.txt 2>&1
  echo "round $round"; tail -n +2 $R/ort_16_$round.txt; tail -n +2 $R/ort_2_$round.txt; tail -n +2 $R/ort_1_$round.txt
done
}
timeout 580 bash -c "$(declare -f work); R=$R; work" 2>&1 | tee $R/call.log
cd $OUT && tar czf r.tgz r && rm -rf r
