#!/usr/bin/env bash
# Second call (one H200): the weight stages through a ring of up to 4 slots (up to 3 stages in flight, as many as
# fit; LAB_SLOTS=2 builds the same layout with two) beside HEAD's header (.device/head, carried): the row-tile
# checks with the ring (every shape, the warp groups too), batch-1 latency with each stage's work left out and
# with all of it left out (rtlat: what the weight stream and the barriers cost alone), the timings alternating.
source tools/results/h200/device_env.sh
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
nvcc $flags -I. tests/kernels/sample_resident_lab.cu $srcs -o $OUT/lab_new > $R/build_new.log 2>&1 &
nvcc $flags -I.device/head -I. .device/head/tests/kernels/sample_resident_lab.cu $(for s in $srcs; do echo .device/head/$s; done) \
  -o $OUT/lab_head > $R/build_head.log 2>&1 &
wait
echo "new: $(grep -A2 -E "row_tile_kernelI13__nv_bfloat16Li64ELi16ELi2ELi256E|row_heads_kernelI13__nv" $R/build_new.log | grep -E "spill|registers" | tr '\n' ';')"
timeout 200 stdbuf -oL $OUT/lab_new rtcheck > $R/rtcheck_new.txt 2>&1
echo "rtcheck new exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $R/rtcheck_new.txt)"
grep -E "FAIL|fail|mismatch|nan" $R/rtcheck_new.txt | head -20
timeout 60 $OUT/lab_new rtlat > $R/rtlat_new.txt 2>&1; echo "rtlat new exit $?"
LAB_SLOTS=2 timeout 60 $OUT/lab_new rtlat > $R/rtlat_new2.txt 2>&1; echo "rtlat new2 exit $?"
timeout 60 $OUT/lab_head rtlat > $R/rtlat_head.txt 2>&1; echo "rtlat head exit $?"
for v in new new2 head; do
  echo "== rtlat $v"; grep -E "empty|batch +1 cfg" $R/rtlat_$v.txt | grep -E "empty|without everything|^  (rowtile|heads)" | cut -c1-80
done
for round in 1 2; do
  for v in new new2 head; do
    bin=$v; [[ $v == new2 ]] && bin=new
    LAB_SLOTS=$([[ $v == new2 ]] && echo 2 || echo 4) timeout 90 $OUT/lab_$bin rttime > $R/rttime_${v}_$round.txt 2>&1
    echo "rttime $v round $round exit $?"
    grep -E "batch +(1|32|512|4096|65536) cfg" $R/rttime_${v}_$round.txt | grep -v without | grep -E "cfg +(82|161|41|4041|4161) " | cut -c1-75
  done
done
rm -f $OUT/lab_*
cd $OUT && tar czf r.tgz r && rm -rf r
