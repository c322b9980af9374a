#!/usr/bin/env bash
# Second call (one H200): the row-tile kernel's code made smaller, A/B in one call. The lab built four times on the
# GPU machine, all with attend's code once for both query tiles (call_a's `once`, now the header's default) and the
# score scale in the exponent's FFMA: `a0` as that, `qk` with q's and k's product and RoPE as one copy, `norm` with
# one copy of the LayerNorm that starts either half of a block, `both` with the two (the header's new default).
# `both`'s checks (the lab's row-tile checks; its GPU tests under memcheck and racecheck), then the four's
# row-tile timings twice, alternating; the engine's SSA in fp16 and bf16 at batch 1 to 65536.
# Needs .device/build.tgz (tools/stage_device_build.sh).
source tools/results/h200/device_env.sh
srcs="tests/kernels/sample_resident_lab.cu layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
build() { nvcc $flags -DIE_RT_QK_ONCE=$2 -DIE_RT_NORM_ONCE=$3 -I. $srcs -o $OUT/lab_$1 > $R/build_$1.log 2>&1; }
build a0 0 0 & build qk 1 0 & build norm 0 1 & build both 1 1 &
sr='GPU: the SSA runs as one sample-resident*,GPU: classifier heads run as one sample-resident*'
$B/gpu_tests --no-version -tc="$sr" > $R/gpu_tests_sr.log 2>&1
echo "gpu_tests (sample-resident) exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_sr.log | tr '\n' ' ')"
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version -tc="$sr" \
    > $R/gpu_tests_sr_$tool.log 2>&1
  echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/gpu_tests_sr_$tool.log | tail -1)"
done
for p in fp16 bf16; do
  $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,32,512,4096,65536 --duration-ms 200 \
    > $R/bench_ssa_$p.log 2>&1
  echo "bench $p exit $?"; grep -E "^ +[0-9]+ \|" $R/bench_ssa_$p.log | cut -c1-60
done
wait
for v in a0 qk norm both; do
  echo "$v: $(grep -A2 "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256E" $R/build_$v.log | grep -E "spill|registers" | tr '\n' ';')"
done
timeout 200 stdbuf -oL $OUT/lab_both rtcheck > $R/rtcheck_both.txt 2>&1
echo "rtcheck both exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck_both.txt)"
grep -iE "fail|mismatch" $R/rtcheck_both.txt | head -5
for round in 1 2; do
  for v in a0 qk norm both; do
    timeout 60 $OUT/lab_$v rttime > $R/rttime_${v}_$round.txt 2>&1
    echo "rttime $v round $round exit $?"; grep -E "65536|4096| 32 " $R/rttime_${v}_$round.txt | grep -E "cfg  82|cfg 161|cfg  41" | cut -c1-75
  done
done
rm -f $OUT/lab_*
cd $OUT && tar czf r.tgz r && rm -rf r
