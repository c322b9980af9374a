#!/usr/bin/env bash
# Third call (one H200): one copy of every LayerNorm in the two-tile row-tile kernel (the header's new default),
# A/B in one call, and the SSA's record on the engine built with it.
#  - the lab built three times on the GPU machine (attend's code once, the scale in the exponent's FFMA): `a0`
#    as that, `norm` with one copy of the LayerNorm that starts either half of a block (call_b's winner), `shared`
#    with one copy of every LayerNorm of the chain; `shared`'s checks; the three's row-tile timings twice,
#    alternating;
#  - the engine's sample-resident GPU tests, also under memcheck;
#  - the SSA's record: compare in every mode and form, bench in every mode at batch 1 to 65536 against cuda-reference
#    and PyTorch in the same call, per-op profiles at 512 and 65536, the LayerNorm, attention and linear labs' tables.
# Needs .device/build.tgz (tools/stage_device_build.sh) and .device/data.
source tools/results/h200/device_env.sh
srcs="tests/kernels/sample_resident_lab.cu layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
build() { nvcc $flags -DIE_RT_NORM_ONCE=$2 -DIE_RT_NORM_SHARED=$3 -I. $srcs -o $OUT/lab_$1 > $R/build_$1.log 2>&1; }
build a0 0 0 & build norm 1 0 & build shared 1 1 &
sr='GPU: the SSA runs as one sample-resident*,GPU: classifier heads run as one sample-resident*'
$B/gpu_tests --no-version -tc="$sr" > $R/gpu_tests_sr.log 2>&1
echo "gpu_tests (sample-resident) exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_sr.log | tr '\n' ' ')"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version -tc="$sr" \
  > $R/gpu_tests_sr_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_sr_memcheck.log | tail -1)"
BENCH_MODELS=ssa BENCH_BATCHES_SSA=1,32,512,4096,65536 BENCH_MS=200 LAB_ARGS=--no-validate LAB_TIMEOUT=60 \
  LABS="layer_norm_lab attention_lab linear_lab" \
  timeout 300 bash tools/gpu_run.sh $R/final .device/build models,bench,torch,labs > $R/final.log 2>&1
echo "gpu_run exit $?"
grep -vE "warning" $R/final/summary.txt | grep -E "exit|graph:|^ +[0-9]+ \||== bench" | cut -c1-110
wait
for v in a0 norm shared; do
  echo "$v: $(grep -A2 "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256E" $R/build_$v.log | grep -E "spill|registers" | tr '\n' ';')"
done
timeout 150 stdbuf -oL $OUT/lab_shared rtcheck > $R/rtcheck_shared.txt 2>&1
echo "rtcheck shared exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck_shared.txt)"
grep -iE "fail|mismatch" $R/rtcheck_shared.txt | head -5
for round in 1 2; do
  for v in a0 norm shared; do
    timeout 60 $OUT/lab_$v rttime > $R/rttime_${v}_$round.txt 2>&1
    echo "rttime $v round $round exit $?"; grep -E "65536|4096| 32 " $R/rttime_${v}_$round.txt | grep -E "cfg  82|cfg 161|cfg  41" | grep -v without | cut -c1-75
  done
done
rm -f $OUT/lab_*
cd $OUT && tar czf r.tgz r && rm -rf r
