#!/usr/bin/env bash
# Fourth call (one H200), the staged build with the tile form as the float attention's default: every GPU test, the
# attention and strict-fp32 tests under memcheck, racecheck, synccheck and initcheck, compare against the CPU in
# fp32, the SSA bench in fp32 (one step and per step) and bf16 with PyTorch eager in the same call, each launch of
# the fp32 sequence timed by ncu at 65536. Results in r.tgz.
source tools/results/h200/device_env.sh
timeout 300 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -20
for tool in memcheck racecheck synccheck initcheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
    -tc="GPU: in strict fp32*,cuda Attention*" > $R/gpu_tests_$tool.log 2>&1
  echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/gpu_tests_$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_$tool.log)"
done
for form in legacy dynamo; do
  for batch in 7 128 10001 40000; do
    timeout 60 $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision fp32 --batch $batch \
      --seed 11 > $R/compare_ssa_${form}_fp32_$batch.log 2>&1
    echo "compare $form fp32 $batch exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_fp32_$batch.log | head -1) $(grep -oE 'rel L2 [0-9.e+-]+' $R/compare_ssa_${form}_fp32_$batch.log | tr '\n' ' ')"
  done
done
batches=1,32,128,512,4096,16384,65536
for mode in fp32 bf16; do
  timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision $mode --batches $batches \
    --duration-ms 150 --json $R/bench_ssa_$mode.json > $R/bench_ssa_$mode.log 2>&1
  echo "bench $mode exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_$mode.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
done
IE_DISABLE_FUSIONS=sample_resident timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
  --batches $batches --duration-ms 150 --json $R/bench_ssa_fp32_per_step.json > $R/bench_ssa_fp32_per_step.log 2>&1
echo "bench fp32 per step exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32_per_step.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
timeout 150 "$TORCH_PYTHON" tools/torch_bench.py --out-dir $R --batches-convnet 1 --batches-ssa 1,32,512,4096,65536 \
  > $R/torch_bench.log 2>&1
echo "torch_bench exit $?"; grep -E "ssa +torch-eager-fp32" $R/torch_bench.log | head -6
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 30 --launch-count 70 \
  --print-summary per-kernel $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 \
  --duration-ms 50 > $R/ncu_sequence_65536.txt 2>&1
echo "ncu exit $?"; grep -E "^  [^ ].*\(|gpu__time_duration.sum" $R/ncu_sequence_65536.txt | \
  sed -E 's/^  (void )?([a-z_:]*[a-z_]+)(<[^>]*>)?.*Invocations ([0-9]+).*/\2\3 x\4/; s/ +gpu__time_duration.sum +us//' | paste - - | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
