#!/usr/bin/env bash
# First call (one H200): the plan without its aliasing view steps, and two row-tile kernel changes, A/B in one call.
#  - GPU tests (every one: replay with fewer steps, profiles, the sample-resident chain's views), the models stage
#    (infer, inspect of both SSA exports in fp32 and bf16, compare per layer and in every mode), the SSA's bench in
#    every mode at 1, 512 and 65536 with its per-op profiles;
#  - the sample-resident lab built three times on the GPU machine: `base` (the score scale by a multiply per score,
#    attend's code per query tile), `ffma` (the scale inside the exponent's FFMA: the header's new default), `once`
#    (and attend's code once for all query tiles); `ffma`'s and `once`'s checks, then the three's row-tile timings
#    twice, alternating.
# Needs .device/build.tgz (tools/stage_device_build.sh) and .device/data.
source tools/results/h200/device_env.sh
srcs="tests/kernels/sample_resident_lab.cu layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
nvcc $flags -DIE_RT_SOFTMAX_FFMA=0 -DIE_RT_ATTEND_ONCE=0 -I. $srcs -o $OUT/lab_base > $R/build_base.log 2>&1 &
nvcc $flags -DIE_RT_SOFTMAX_FFMA=1 -DIE_RT_ATTEND_ONCE=0 -I. $srcs -o $OUT/lab_ffma > $R/build_ffma.log 2>&1 &
nvcc $flags -DIE_RT_SOFTMAX_FFMA=1 -DIE_RT_ATTEND_ONCE=1 -I. $srcs -o $OUT/lab_once > $R/build_once.log 2>&1 &
BENCH_MODELS=ssa BENCH_BATCHES_SSA=1,512,65536 BENCH_MS=200 \
  timeout 300 bash tools/gpu_run.sh $R/final .device/build models,bench > $R/final.log 2>&1
echo "gpu_run exit $?"
grep -vE "warning" $R/final/summary.txt | grep -vE "^ +[0-9]+ \|" | cut -c1-200
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
wait
for v in base ffma once; do
  echo "$v: $(grep -A2 "row_tile_kernel" $R/build_$v.log | grep -E "spill|registers" | sort | uniq -c | head -6 | tr '\n' ';')"
done
for v in ffma once; do
  timeout 60 $OUT/lab_$v rtcheck > $R/rtcheck_$v.txt 2>&1
  echo "rtcheck $v exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck_$v.txt)"
  grep -iE "fail|mismatch" $R/rtcheck_$v.txt | head -5
done
for round in 1 2; do
  for v in base ffma once; do
    timeout 60 $OUT/lab_$v rttime > $R/rttime_${v}_$round.txt 2>&1
    echo "rttime $v round $round exit $?"; grep -E "65536|4096| 32 " $R/rttime_${v}_$round.txt | grep rowtile | head -12
  done
done
rm -f $OUT/lab_base $OUT/lab_ffma $OUT/lab_once
cd $OUT && tar czf r.tgz r && rm -rf r
