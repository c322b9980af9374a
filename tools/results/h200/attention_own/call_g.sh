#!/usr/bin/env bash
# Seventh call (one H200): the split sequence's MLP in one kernel (linear_split_mlp.cuh: fc1 + GELU and fc2 +
# residual, the hidden rows in registers): every GPU test, the strict-fp32 / tf32 SSA test under memcheck, racecheck,
# synccheck and initcheck, compare against the CPU in fp32, the SSA bench in fp32 with the MLP kernel (16 and 32
# hidden columns at a time) and apart, and in tf32, each launch timed by ncu at 65536. Results in r.tgz.
source tools/results/h200/device_env.sh
timeout 200 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -20
for tool in memcheck racecheck synccheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
    -tc="GPU: in strict fp32*" > $R/gpu_tests_$tool.log 2>&1
  echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/gpu_tests_$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_$tool.log)"
done
for form in legacy dynamo; do
  for batch in 7 128 10001 40000; do
    timeout 60 $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision fp32 --batch $batch \
      --seed 17 > $R/compare_ssa_${form}_fp32_$batch.log 2>&1
    echo "compare $form fp32 $batch exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_fp32_$batch.log | head -1) $(grep -oE 'rel L2 [0-9.e+-]+' $R/compare_ssa_${form}_fp32_$batch.log | tr '\n' ' ')"
  done
done
batches=128,512,4096,16384,65536
for v in default apart 32; do
  IE_SPLIT_MLP=$([[ $v == default ]] || echo $v) timeout 60 $B/bench --config configs/ssa.yaml --paths cuda \
    --precision fp32 --batches $batches --duration-ms 150 --json $R/bench_ssa_fp32_mlp_$v.json > $R/bench_ssa_fp32_mlp_$v.log 2>&1
  echo "bench fp32 mlp $v exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32_mlp_$v.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
done
timeout 60 $B/bench --config configs/ssa.yaml --paths cuda --precision tf32 --batches 1,256,512,4096,65536 \
  --duration-ms 150 --json $R/bench_ssa_tf32.json > $R/bench_ssa_tf32.log 2>&1
echo "bench tf32 exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_tf32.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 30 --launch-count 60 \
  --print-summary per-kernel $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 \
  --duration-ms 50 > $R/ncu_sequence_65536.txt 2>&1
echo "ncu exit $?"; grep -E "^  [^ ].*\(|gpu__time_duration.sum" $R/ncu_sequence_65536.txt | \
  sed -E 's/^  (void )?([a-z_:]*[a-z_]+)(<[^>]*>)?.*Invocations ([0-9]+).*/\2\3 x\4/; s/ +gpu__time_duration.sum +us//' | paste - - | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
