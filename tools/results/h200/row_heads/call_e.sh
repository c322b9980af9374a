#!/usr/bin/env bash
# Fifth call (one H200): the engine with the warp-group shapes (the row-tile CTA estimate picks 8 x 1 or 4 x 1 in
# groups of four up to about one wave) and the tile's input loaded at its start (kept as loaded floats): the
# engine's sample-resident GPU tests (batches 1 and 7 now on the warp-group kernel), under memcheck too; compare in
# fp16 and bf16 on both SSA exports at batch 7; bench in bf16 and fp16 at 1 to 65536; the lab (this tree against
# HEAD's, .device/head): the row-tile checks, the stage timelines at batch 1, the timings.
# Needs .device/build.tgz (tools/stage_device_build.sh).
source tools/results/h200/device_env.sh
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
nvcc $flags -I. tests/kernels/sample_resident_lab.cu $srcs -o $OUT/lab_new > $R/build_new.log 2>&1 &
nvcc $flags -I.device/head -I. .device/head/tests/kernels/sample_resident_lab.cu $(for s in $srcs; do echo .device/head/$s; done) \
  -o $OUT/lab_head > $R/build_head.log 2>&1 &
nvcc $flags -DIE_RT_TRACE=1 -I. tests/kernels/sample_resident_lab.cu $srcs -o $OUT/lab_trace > $R/build_trace.log 2>&1 &
sr='GPU: the SSA runs as one sample-resident*,GPU: classifier heads run as one sample-resident*'
timeout 150 $B/gpu_tests --no-version -tc="$sr" > $R/gpu_tests_sr.log 2>&1
echo "gpu_tests (sample-resident) exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_sr.log | tr '\n' ' ')"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version -tc="$sr" \
  > $R/gpu_tests_sr_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_sr_memcheck.log | tail -1)"
for form in legacy dynamo; do
  for p in fp16 bf16; do
    $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision $p --batch 7 --seed 7 \
      > $R/compare_ssa_${form}_cuda_$p.log 2>&1
    echo "compare ssa $form cuda $p exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_cuda_$p.log | head -1)"
  done
done
for p in bf16 fp16; do
  timeout 90 $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,7,32,128,256,512,4096,65536 \
    --duration-ms 200 > $R/bench_ssa_$p.log 2>&1
  echo "bench $p exit $?"; grep -E "^ +[0-9]+ \|" $R/bench_ssa_$p.log | cut -c1-60
done
$B/inspect weights/ssa_dynamo.onnx --batch 1 --backend cuda --precision bf16 > $R/inspect_ssa_bf16_1.txt 2>&1; echo "inspect exit $?"
wait
for v in new head; do
  echo "$v: $(grep -A2 -E "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi(2ELi256|1ELi384|1ELi512)E|row_heads_kernelI13__nv" $R/build_$v.log | grep -E "spill" | tr '\n' ';')"
done
timeout 150 stdbuf -oL $OUT/lab_new rtcheck > $R/rtcheck_new.txt 2>&1
echo "rtcheck new exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck_new.txt)"
grep -E "FAIL|fail|mismatch|nan" $R/rtcheck_new.txt | head -20
for run in "4041 1" "4081 1" "41 1"; do
  timeout 30 $OUT/lab_trace rttrace $run > $R/trace_${run/ /_}.txt 2>&1
  echo "== rttrace $run exit $?"; tail -n +2 $R/trace_${run/ /_}.txt | cut -c1-150
done
for v in new head; do
  timeout 60 $OUT/lab_$v rttime > $R/rttime_$v.txt 2>&1
  echo "rttime $v exit $?"
  grep -E "batch +(1|32|512|4096|65536) cfg" $R/rttime_$v.txt | grep -v without | grep -E "cfg +(82|161|121|41|4041|4081) " | cut -c1-75
done
rm -f $OUT/lab_*
cd $OUT && tar czf r.tgz r && rm -rf r
