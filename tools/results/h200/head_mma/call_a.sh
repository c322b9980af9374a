#!/usr/bin/env bash
# First call, the labs alone (the engine's build and three lab binaries do not fit one carry): the MMA head
# (layers/sample_resident/head_mma.cuh) in its lab (checks, timings beside the CUDA-core head and the interpreter,
# the checks of at most 1000 samples under memcheck, racecheck and synccheck); the strict fp32 column kernel, HEAD's
# header (fused_conv_lab_old) against the one with the epilogue's store pointers hoisted (fused_conv_lab_new) and
# the same with the 8-row configurations' registers capped at 64 (fused_conv_lab_cap), two rounds alternating, and
# the new one's column checks.
source tools/results/h200/device_env.sh
L=.device/lab
mkdir -p $L && tar xf .device/labs.tgz -C $L
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $L/head_chain_lab > $R/head_lab.txt 2>&1
  echo "head lab exit $?: $(grep -c ' ok$' $R/head_lab.txt) ok, $(grep -c 'FAIL' $R/head_lab.txt) FAIL"
  grep -E "FAIL|declined" $R/head_lab.txt | head; grep -E "^  (head|mma|interp)" $R/head_lab.txt | grep " b" | cut -c1-70
  for tool in memcheck racecheck synccheck; do
    HEAD_LAB_MAX_BATCH=1000 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $L/head_chain_lab \
      --check-only > $R/head_lab_$tool.log 2>&1
    echo "$tool (head lab) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/head_lab_$tool.log | tail -1)"
  done
  for round in 1 2; do
    for v in old new cap; do
      for shape in conv1 conv2; do
        $L/fused_conv_lab_$v --filter "cols" --no-validate --batch 10000 --shape $shape > $R/cols_${v}_${shape}_$round.log 2>&1
        echo "cols $v $shape round $round exit $?"; grep -E "^cols" $R/cols_${v}_${shape}_$round.log | cut -c1-75
      done
    done
  done
  $L/fused_conv_lab_new --filter "cols" --check-only > $R/cols_new_check.log 2>&1
  echo "cols new checks exit $?: $(grep -c '^PASS' $R/cols_new_check.log) PASS, $(grep -c '^FAIL' $R/cols_new_check.log) FAIL"
}
timeout 590 bash -c "$(declare -f work); R=$R L=$L; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
