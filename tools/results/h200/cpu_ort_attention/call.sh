#!/usr/bin/env bash
# The CPU backend beside onnxruntime 1.30 on the GPU machine's Xeon (its PyTorch environment's onnxruntime), after
# the vectorized CPU attention and in-place GELU packets: 16, 2 and 1 threads, two rounds; the main job on the CPU.
set -uo pipefail
rm -rf .device/build; tar xzf .device/build.tgz -C .device
R=$OUT/r; mkdir -p $R
work() {
lscpu | grep -E "Model name|^CPU\(s\)" | tee $R/cpu.txt
for round in 1 2; do
  ORT_VENV=/opt/torch/.venv BENCH_MS=1500 bash tools/ort_compare.sh 16 .device/build > $R/ort_compare_16_$round.txt 2>&1
  cat $R/ort_compare_16_$round.txt
  ORT_VENV=/opt/torch/.venv BENCH_MS=1500 WORKLOADS="convnet:1000 ssa:512 ssa:4096" bash tools/ort_compare.sh 2 .device/build > $R/ort_compare_2_$round.txt 2>&1
  tail -3 $R/ort_compare_2_$round.txt
done
ORT_VENV=/opt/torch/.venv BENCH_MS=1500 WORKLOADS="convnet:1 ssa:1" bash tools/ort_compare.sh 1 .device/build > $R/ort_compare_1.txt 2>&1
tail -2 $R/ort_compare_1.txt
/usr/bin/time -f "wall %e s" .device/build/bin/infer --config configs/convnet.yaml --backend cpu \
  --input .device/data/t10k-images-idx3-ubyte.gz --labels .device/data/t10k-labels-idx1-ubyte.gz --output /tmp/p.npy > $R/main_cpu.log 2>&1
grep -E "throughput|accuracy|wall" $R/main_cpu.log
}
timeout 570 bash -c "$(declare -f work); R=$R; work" 2>&1 | tee $R/call.log
cd $OUT && tar czf r.tgz r && rm -rf r
