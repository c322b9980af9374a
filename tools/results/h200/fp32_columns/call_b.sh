#!/usr/bin/env bash
# Second full call (one H200): the column kernel with the next tile copied by cp.async under this one's work
# (raw rows, then turned into columns in shared memory), weights re-laid per kernel column, the 5-warp configuration. The fused conv
# lab's FFMA runs (validation of the column and pixels-on-M FFMA kernels on odd shapes, then conv1 and conv2 at
# batch 10000); the column runs under memcheck, racecheck and synccheck (lab, batches up to 7); every GPU test;
# compare against the CPU in fp32 on both exports; the conv net's fp32 bench (cuda and cuda-reference) and profile
# at 10000; PyTorch's conv net in the same call; the tuner's records.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $L/fused_conv_lab --filter "cols|ffma" --batch 10000 > $R/fcl_fp32.log 2>&1
  echo "fused conv lab (ffma, cols) exit $?: $(grep -c '^PASS' $R/fcl_fp32.log) PASS, $(grep -c '^FAIL' $R/fcl_fp32.log) FAIL"
  grep '^FAIL' $R/fcl_fp32.log | cut -c1-200 | head -8
  grep -E "^(cols|ffma) .*conv[12] " $R/fcl_fp32.log | cut -c1-150
  timeout 100 ncu --clock-control none -k regex:columns --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section InstructionStats $L/fused_conv_lab --filter "cols_r8_w4" \
    --no-validate --batch 10000 > $R/ncu_conv1_r8_w4.txt 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|Achieved Occupancy|Executed Instructions  |Warp Cycles Per Issued" \
    $R/ncu_conv1_r8_w4.txt
  for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $L/fused_conv_lab --filter "cols" --check-only \
      --max-batch 7 > $R/fcl_cols_$tool.log 2>&1
    echo "$tool (lab cols) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/fcl_cols_$tool.log | tail -1)"
  done
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | grep -v MESSAGE | head -40
  compare_forms convnet "fp32"
  grep -h "rel" $R/compare_convnet_*_fp32.log | head -4
  $B/bench --config configs/convnet.yaml --paths cuda-reference,cuda --precision fp32 --batches 1,1000,10000,50000 \
    --duration-ms 400 > $R/bench_convnet_fp32.log 2>&1
  echo "bench fp32 exit $?"; grep -E '^ +[0-9]+ \||^== ' $R/bench_convnet_fp32.log | cut -c1-60
  $B/bench --config configs/convnet.yaml --paths cuda --precision fp32 --batches 10000 --profile \
    > $R/profile_convnet_10000_fp32.txt 2>&1
  echo "profile exit $?"; grep -E "^[0-9] |total" $R/profile_convnet_10000_fp32.txt | cut -c1-30,150-200
  timeout 150 "$TORCH_PYTHON" tools/torch_bench.py --out-dir $R/torch --batches-convnet 1,1000,10000,50000 \
    --batches-ssa 1 > $R/torch_bench.log 2>&1
  echo "torch_bench exit $?"; grep convnet $R/torch_bench.log
  grep -h '"fused_conv' ~/.cache/inferengine/tuning-*.json | grep -o '"shape":"[^"]*","value":{[^}]*}' > $R/tuning_records.txt
  grep "float32" $R/tuning_records.txt | cut -c1-300 | head -8
}
timeout 590 bash -c "$(declare -f work compare_forms); B=$B R=$R D=$D L=$L TORCH_PYTHON=$TORCH_PYTHON; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
