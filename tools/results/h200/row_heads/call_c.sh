#!/usr/bin/env bash
# Third call (one H200): where a small batch's time goes, stage by stage: the lab built with -DIE_RT_TRACE=1
# (clock64 at each stage's edges in CTA 0, tests/kernels/sample_resident_lab.cu rttrace) on the row-tile shapes
# and the warp-group shapes at batch 1 and 32, and on 8 x 2 at 512 and 65536 (CTA 0's first tile).
source tools/results/h200/device_env.sh
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -DIE_RT_TRACE=1 -I. tests/kernels/sample_resident_lab.cu \
  $srcs -o $OUT/lab_trace > $R/build_trace.log 2>&1 || { cat $R/build_trace.log; exit 1; }
for run in "41 1" "121 1" "4041 1" "4081 1" "4161 1" "41 32" "4041 32" "4161 512" "41 512" "82 512" "82 65536"; do
  timeout 30 $OUT/lab_trace rttrace $run > $R/trace_${run/ /_}.txt 2>&1
  echo "== rttrace $run exit $?"; tail -n +2 $R/trace_${run/ /_}.txt | cut -c1-160
done
rm -f $OUT/lab_*
cd $OUT && tar czf r.tgz r && rm -rf r
