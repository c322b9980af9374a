#!/usr/bin/env bash
# Sixth call (one H200): the row-tile kernel's attention skipping the 8-key blocks a query tile cannot see, A/B in
# one call: the lab built twice on the GPU machine, with HEAD's layers/sample_resident/row_tile.cuh (carried as
# .device/oldrt/) and with the working tree's; the new one's checks (compute-sanitizer memcheck on the small
# batches too), then each one's timings twice, alternating.
source tools/results/h200/device_env.sh
srcs="tests/kernels/sample_resident_lab.cu layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v"
nvcc $flags -I. $srcs -o $OUT/lab_new > $OUT/build_new.log 2>&1 &
nvcc $flags -I.device/oldrt -I. $srcs -o $OUT/lab_old > $OUT/build_old.log 2>&1 &
wait
ls -la $OUT/lab_new $OUT/lab_old | awk '{print $5, $9}'
for v in new old; do
  echo "$v: $(grep -A2 "row_tile_kernel" $OUT/build_$v.log | grep -E "spill|registers" | sort | uniq -c | head -6 | tr '\n' ';')"
done
$OUT/lab_new rtcheck > $OUT/rtcheck_new.txt 2>&1
echo "rtcheck new exit $?: $(grep -E 'all checks passed|CHECKS FAILED' $OUT/rtcheck_new.txt)"
grep -iE "fail|mismatch" $OUT/rtcheck_new.txt | head
for round in 1 2; do
  for v in new old; do
    $OUT/lab_$v rttime > $OUT/rttime_${v}_$round.txt 2>&1
    echo "rttime $v round $round exit $?"; grep -E "65536|4096| 32 " $OUT/rttime_${v}_$round.txt | head -12
  done
done
rm -f $OUT/lab_new $OUT/lab_old
cd $OUT && tar czf f.tgz *.txt *.log && rm -f *.txt *.log
