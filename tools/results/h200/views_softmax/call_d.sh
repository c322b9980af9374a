#!/usr/bin/env bash
# Fourth call (one H200): the seldom activations' GELU out of line in the row-tile kernel (the header's new default),
# A/B in one call: the lab built twice on the GPU machine, `shared` (call_c's kernel) and `ool`; `ool`'s checks (with
# a chain that has GELU after every Linear, the out-of-line path); the two's row-tile timings twice, alternating;
# the engine built with it: its sample-resident GPU tests, also under memcheck, compare in fp16 and bf16 on both
# SSA exports, bench in fp16 and bf16 at batch 1 to 65536, the bf16 per-op profiles at 512 and 65536.
# Needs .device/build.tgz (tools/stage_device_build.sh).
source tools/results/h200/device_env.sh
srcs="tests/kernels/sample_resident_lab.cu layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
build() { nvcc $flags -DIE_RT_GELU_OUT_OF_LINE=$2 -I. $srcs -o $OUT/lab_$1 > $R/build_$1.log 2>&1; }
build shared 0 & build ool 1 &
sr='GPU: the SSA runs as one sample-resident*,GPU: classifier heads run as one sample-resident*'
$B/gpu_tests --no-version -tc="$sr" > $R/gpu_tests_sr.log 2>&1
echo "gpu_tests (sample-resident) exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_sr.log | tr '\n' ' ')"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version -tc="$sr" \
  > $R/gpu_tests_sr_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_sr_memcheck.log | tail -1)"
for form in legacy dynamo; do
  for p in fp16 bf16; do
    $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision $p --batch 64 --seed 7 \
      > $R/compare_ssa_${form}_cuda_$p.log 2>&1
    echo "compare ssa $form cuda $p exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_cuda_$p.log | head -1)"
  done
done
for p in fp16 bf16; do
  $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,32,512,4096,65536 --duration-ms 200 \
    > $R/bench_ssa_$p.log 2>&1
  echo "bench $p exit $?"; grep -E "^ +[0-9]+ \|" $R/bench_ssa_$p.log | cut -c1-60
done
for b in 512 65536; do
  $B/bench --config configs/ssa.yaml --paths cuda --precision bf16 --batches $b --profile > $R/profile_ssa_${b}_cuda_bf16.txt 2>&1
  echo "profile $b exit $?: $(grep -E '^total' $R/profile_ssa_${b}_cuda_bf16.txt)"
done
wait
for v in shared ool; do
  echo "$v: $(grep -A2 "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256E" $R/build_$v.log | grep -E "spill|registers" | tr '\n' ';')"
done
timeout 120 stdbuf -oL $OUT/lab_ool rtcheck > $R/rtcheck_ool.txt 2>&1
echo "rtcheck ool exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck_ool.txt)"
grep -iE "fail|mismatch" $R/rtcheck_ool.txt | head -5
for round in 1 2; do
  for v in shared ool; do
    timeout 40 $OUT/lab_$v rttime > $R/rttime_${v}_$round.txt 2>&1
    echo "rttime $v round $round exit $?"; grep -E "65536|4096| 32 " $R/rttime_${v}_$round.txt | grep -E "cfg  82|cfg 161|cfg  41" | grep -v without | cut -c1-75
  done
done
rm -f $OUT/lab_*
cd $OUT && tar czf r.tgz r && rm -rf r
