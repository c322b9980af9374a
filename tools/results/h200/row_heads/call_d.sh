#!/usr/bin/env bash
# Fourth call (one H200): the tile's input loaded when the tile starts (IE_RT_X_EARLY, the header's default) against
# the embedding's own loads (=0), one lab source built three ways (and a -DIE_RT_TRACE=1 build): the checks, the
# stage timelines at batch 1, per-source-line counts of the warp-group kernel at batch 1 (ncu at the finest warp
# sampling) and of the 8 x 2 kernel at 65536, the timings alternating.
source tools/results/h200/device_env.sh
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
build() { nvcc $flags $2 -I. tests/kernels/sample_resident_lab.cu $srcs -o $OUT/lab_$1 > $R/build_$1.log 2>&1; }
build early "" & build late -DIE_RT_X_EARLY=0 & build trace -DIE_RT_TRACE=1 &
wait
for v in early late; do
  echo "$v: $(grep -A2 -E "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256E|row_heads_kernelI13__nv" $R/build_$v.log | grep -E "spill|registers" | tr '\n' ';')"
done
for run in "4041 1" "4081 1" "41 1"; do
  timeout 30 $OUT/lab_trace rttrace $run > $R/trace_${run/ /_}.txt 2>&1
  echo "== rttrace $run exit $?"; tail -n +2 $R/trace_${run/ /_}.txt | cut -c1-150
done
NCU_ARGS="--warp-sampling-interval 0" LAB_BIN=$OUT/lab_early timeout 120 bash tests/kernels/profile_lines.sh \
  tests/kernels/sample_resident_lab.cu row_heads_kernelI13__nv_bfloat16 rtone 4041 1 > $R/lines_4041_b1.txt 2>&1
echo "lines 4041 batch 1 exit $?"; head -40 $R/lines_4041_b1.txt | cut -c1-170
LAB_BIN=$OUT/lab_early timeout 150 bash tests/kernels/profile_lines.sh tests/kernels/sample_resident_lab.cu \
  row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256E rtone 82 > $R/lines_82_65536.txt 2>&1
echo "lines 82 65536 exit $?"; head -30 $R/lines_82_65536.txt | cut -c1-170
timeout 200 stdbuf -oL $OUT/lab_early rtcheck > $R/rtcheck_early.txt 2>&1
echo "rtcheck early exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck_early.txt)"
grep -E "FAIL|fail|mismatch|nan" $R/rtcheck_early.txt | head -20
for round in 1 2; do
  for v in early late; do
    timeout 90 $OUT/lab_$v rttime > $R/rttime_${v}_$round.txt 2>&1
    echo "rttime $v round $round exit $?"
    grep -E "batch +(1|32|512|4096|65536) cfg" $R/rttime_${v}_$round.txt | grep -v without | grep -E "cfg +(82|161|41|4041|4081|4161) " | cut -c1-75
  done
done
rm -f $OUT/lab_*
cd $OUT && tar czf r.tgz r && rm -rf r
