#!/usr/bin/env bash
# The session's closing GPU call on the final build: every GPU test, every GPU test under memcheck, and compare of
# both models (both export forms) against the CPU in every precision mode, from float and from raw uint8 input.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
work() {
nvidia-smi --query-gpu=name --format=csv,noheader
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
for m in convnet ssa; do
  for form in legacy dynamo; do
    for p in fp32 tf32 fp16 bf16; do
      $B/compare --config configs/$m.yaml --form $form --a cpu --b cuda --precision $p --batch 64 --seed 7 \
        > $R/compare_${m}_${form}_$p.log 2>&1
      echo "compare $m $form $p exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_${m}_${form}_$p.log | head -1)"
    done
  done
done
timeout 420 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version > $R/gpu_tests_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_memcheck.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_memcheck.log)"
}
timeout 580 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call.log
cd $OUT && tar czf r.tgz r && rm -rf r
