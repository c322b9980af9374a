#!/usr/bin/env bash
# First call (one H200): the row-tile kernel with warp groups sharing a 16-row tile, one attention head a warp
# (layers/sample_resident/row_heads.cuh, lab configs 4041 / 4081 / 4161), checks and timings beside the existing
# shapes; the row-tile kernel's persistent loop now shared (run_tiles): HEAD's header (.device/head, carried) against
# the new one in the same call, two rounds alternating.
source tools/results/h200/device_env.sh
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
nvcc $flags -I. tests/kernels/sample_resident_lab.cu $srcs -o $OUT/lab_new > $R/build_new.log 2>&1 &
nvcc $flags -I.device/head -I. .device/head/tests/kernels/sample_resident_lab.cu $(for s in $srcs; do echo .device/head/$s; done) -o $OUT/lab_head > $R/build_head.log 2>&1 &
wait
ls -la $OUT/lab_new $OUT/lab_head | awk '{print $5, $9}'
for v in new head; do
  echo "$v: $(grep -A2 -E "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256E|row_heads_kernelI13__nv" $R/build_$v.log | grep -E "spill|registers" | tr '\n' ';')"
done
timeout 200 stdbuf -oL $OUT/lab_new rtcheck > $R/rtcheck_new.txt 2>&1
echo "rtcheck new exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck_new.txt)"
grep -E "heads|FAIL|fail|mismatch|nan" $R/rtcheck_new.txt | head -40
for round in 1 2; do
  for v in new head; do
    timeout 90 $OUT/lab_$v rttime > $R/rttime_${v}_$round.txt 2>&1
    echo "rttime $v round $round exit $?"
    grep -E "batch +(1|32|512|4096|65536) cfg" $R/rttime_${v}_$round.txt | grep -v without | grep -E "cfg +(82|161|41|4041|4081|4161) " | cut -c1-75
  done
done
rm -f $OUT/lab_*
cd $OUT && tar czf r.tgz r && rm -rf r
