#!/usr/bin/env bash
# The GPU side of this change (the CPU backend's thread pool is the CPU reference of every GPU test; the stacked conv
# kernel's raw band +15 and its element-wise last chunk): every GPU test, all of them under memcheck, the fused conv
# tests under racecheck and synccheck, compare of both models (both exports) against the CPU in every mode, the
# conv lab's validation (prebuilt here: .device/labs) with memcheck of the stacked runs on exact-size buffers, and
# the conv net's bench at 10000 in bf16.
source tools/results/h200/device_env.sh
L=.device/labs/fused_conv_lab
work() {
nvidia-smi --query-gpu=name --format=csv,noheader
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -30
$L --check-only > $R/lab_validate.log 2>&1
echo "lab validation exit $?: $(grep -c '^PASS' $R/lab_validate.log) PASS, $(grep -c '^FAIL' $R/lab_validate.log) FAIL; $(tail -1 $R/lab_validate.log)"
compute-sanitizer --tool memcheck --error-exitcode 9 $L --check-only --max-batch 7 --filter "stk_|shr_" > $R/lab_memcheck_stacked.log 2>&1
echo "lab memcheck (stacked, shared rows, <= 7 images) exit $?: $(grep 'ERROR SUMMARY' $R/lab_memcheck_stacked.log | tail -1)"
for m in convnet ssa; do
  for form in legacy dynamo; do
    for p in fp32 tf32 fp16 bf16; do
      $B/compare --config configs/$m.yaml --form $form --a cpu --b cuda --precision $p --batch 64 --seed 7 \
        > $R/compare_${m}_${form}_$p.log 2>&1
      echo "compare $m $form $p exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_${m}_${form}_$p.log | head -1)"
    done
  done
done
$B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 10000 --duration-ms 500 > $R/bench_convnet_bf16.log 2>&1
grep -E "^ +10000" $R/bench_convnet_bf16.log | head -2
for tool in racecheck synccheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version -tc="*FusedConv*" > $R/gpu_tests_$tool.log 2>&1
  echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/gpu_tests_$tool.log | tail -1)"
done
timeout 330 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version > $R/gpu_tests_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_memcheck.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_memcheck.log)"
}
timeout 585 bash -c "$(declare -f work); B=$B L=$L R=$R; work" 2>&1 | tee $R/call.log
cd $OUT && tar czf r.tgz r && rm -rf r
