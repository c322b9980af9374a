#!/usr/bin/env bash
# Eighth call (one H200), call_g's build: where the sequence (with the MLP kernel) overtakes the per-step plans in
# fp32 and tf32 (IE_LINEAR_FP32=split forces it at every batch; IE_DISABLE_FUSIONS=sample_resident gives the per-step
# plan), then the strict-fp32 / tf32 SSA test under racecheck with a longer limit.
source tools/results/h200/device_env.sh
batches=16,32,64,96,128,256
for mode in fp32 tf32; do
  IE_LINEAR_FP32=split IE_SPLIT_MLP=32 timeout 40 $B/bench --config configs/ssa.yaml --paths cuda --precision $mode \
    --batches $batches --duration-ms 100 --json $R/bench_ssa_${mode}_sequence.json > $R/bench_ssa_${mode}_sequence.log 2>&1
  echo "bench $mode sequence exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_${mode}_sequence.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
  IE_DISABLE_FUSIONS=sample_resident timeout 40 $B/bench --config configs/ssa.yaml --paths cuda --precision $mode \
    --batches $batches --duration-ms 100 --json $R/bench_ssa_${mode}_per_step.json > $R/bench_ssa_${mode}_per_step.log 2>&1
  echo "bench $mode per step exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_${mode}_per_step.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
done
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_tests --no-version \
  -tc="GPU: in strict fp32*" > $R/gpu_tests_racecheck.log 2>&1
echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY' $R/gpu_tests_racecheck.log | tail -1) $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_racecheck.log | tr '\n' ' ')"
cd $OUT && tar czf r.tgz r && rm -rf r
