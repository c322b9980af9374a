#!/usr/bin/env bash
# Second call, labs alone: the MMA head after call_a (the first product's bias staged in the prologue, the second
# product by half-warps for up to 16 classes with 16-byte loads of the hidden row; head_chain_lab_new) against call_a's
# binary (head_chain_lab_a), two rounds alternating, its checks, the checks of at most 1000 samples under memcheck,
# racecheck and synccheck; the strict fp32 column kernel: HEAD's header (fused_conv_lab_old) against the 8-row
# configurations capped at 64 registers (fused_conv_lab_a: call_a's cap without the hoisted pointers) and the
# same with one base offset and two strides per store (fused_conv_lab_b), two rounds alternating, and b's checks.
source tools/results/h200/device_env.sh
L=.device/lab
mkdir -p $L && tar xf .device/labs.tgz -C $L
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $L/head_chain_lab_new --check-only > $R/head_check.txt 2>&1
  echo "head lab checks exit $?: $(grep -c ' ok$' $R/head_check.txt) ok, $(grep -c 'FAIL' $R/head_check.txt) FAIL"
  grep -E "FAIL|declined" $R/head_check.txt | head
  for tool in memcheck racecheck synccheck; do
    HEAD_LAB_MAX_BATCH=1000 timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $L/head_chain_lab_new \
      --check-only > $R/head_lab_$tool.log 2>&1
    echo "$tool (head lab) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/head_lab_$tool.log | tail -1)"
  done
  for round in 1 2; do
    for v in a new; do
      $L/head_chain_lab_$v --no-validate --filter mma > $R/head_time_${v}_$round.txt 2>&1
      echo "head $v round $round: $(grep -E '^  mma' $R/head_time_${v}_$round.txt | awk '{printf "%s %s %s; ", $1, $2, $3}')"
    done
  done
  for round in 1 2; do
    for v in old a b; do
      for shape in conv1 conv2; do
        $L/fused_conv_lab_$v --filter "cols" --no-validate --batch 10000 --shape $shape > $R/cols_${v}_${shape}_$round.log 2>&1
        echo "cols $v $shape round $round exit $?"; grep -E "^cols" $R/cols_${v}_${shape}_$round.log | sort -u | cut -c1-75
      done
    done
  done
  $L/fused_conv_lab_b --filter "cols" --check-only > $R/cols_b_check.log 2>&1
  echo "cols b checks exit $?: $(grep -c '^PASS' $R/cols_b_check.log) PASS, $(grep -c '^FAIL' $R/cols_b_check.log) FAIL"
}
timeout 590 bash -c "$(declare -f work); R=$R L=$L; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
