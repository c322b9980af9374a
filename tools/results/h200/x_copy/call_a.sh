#!/usr/bin/env bash
# First call (one H200): the next tile's input copied by thread 0 (cp.async.bulk) into the warps' residual streams
# while the decoder and the output Linear run (shapes without the early input load: 8 x 2, 16 x 1). The engine's
# sample-resident GPU tests, under memcheck too; compare in fp16 and bf16 on both SSA exports at batch 5000 (16 x 1);
# bench in bf16 and fp16 at 1 to 65536; the lab: the row-tile checks, the A/B in one binary (RT_X_COPY=0: the input
# from global memory as before) two rounds alternating, the stage timelines of a later tile (-DIE_RT_TRACE_TILE=3)
# with and without the copy. Needs .device/build.tgz (tools/stage_device_build.sh).
source tools/results/h200/device_env.sh
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
nvcc $flags -I. tests/kernels/sample_resident_lab.cu $srcs -o $OUT/lab > $R/build.log 2>&1 &
nvcc $flags -DIE_RT_TRACE=1 -DIE_RT_TRACE_TILE=3 -I. tests/kernels/sample_resident_lab.cu $srcs -o $OUT/lab_trace \
  > $R/build_trace.log 2>&1 &
sr='GPU: the SSA runs as one sample-resident*,GPU: classifier heads run as one sample-resident*'
timeout 150 $B/gpu_tests --no-version -tc="$sr" > $R/gpu_tests_sr.log 2>&1
echo "gpu_tests (sample-resident) exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_sr.log | tr '\n' ' ')"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version -tc="$sr" \
  > $R/gpu_tests_sr_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_sr_memcheck.log | tail -1)"
for form in legacy dynamo; do
  for p in fp16 bf16; do
    timeout 60 $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision $p --batch 5000 --seed 7 \
      > $R/compare_ssa_${form}_cuda_$p.log 2>&1
    echo "compare ssa $form cuda $p exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_cuda_$p.log | head -1)"
  done
done
for p in bf16 fp16; do
  timeout 80 $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,32,512,4096,65536 \
    --duration-ms 150 --json $R/bench_ssa_$p.json > $R/bench_ssa_$p.log 2>&1
  echo "bench $p exit $?"; grep -E "^ +[0-9]+ \|" $R/bench_ssa_$p.log | cut -c1-60
done
wait
echo "spills: $(grep -A2 -E "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi(2ELi256|1ELi384|1ELi512)E" $R/build.log | grep -E "spill" | tr '\n' ';')"
timeout 150 stdbuf -oL $OUT/lab rtcheck > $R/rtcheck.txt 2>&1
echo "rtcheck exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck.txt)"
grep -E "FAIL|mismatch|nan" $R/rtcheck.txt | head -20
for run in "82 65536" "161 4096"; do
  for c in 1 0; do
    RT_X_COPY=$c timeout 30 $OUT/lab_trace rttrace $run > $R/trace_${run/ /_}_copy$c.txt 2>&1
    echo "== rttrace $run copy $c exit $?"; tail -n +2 $R/trace_${run/ /_}_copy$c.txt | cut -c1-150
  done
done
for round in 1 2; do
  for c in 1 0; do
    RT_X_COPY=$c timeout 60 $OUT/lab rttime > $R/rttime_copy${c}_$round.txt 2>&1
    echo "rttime copy $c round $round exit $?"
    grep -E "batch +(1|32|512|4096|65536) cfg" $R/rttime_copy${c}_$round.txt | grep -v without | grep -E "cfg +(82|161|121|41) " | cut -c1-75
    grep -E "without" $R/rttime_copy${c}_$round.txt | cut -c1-75
  done
done
rm -f $OUT/lab $OUT/lab_trace
cd $OUT && tar czf r.tgz r && rm -rf r
