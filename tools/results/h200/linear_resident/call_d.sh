#!/usr/bin/env bash
# Fourth call: the row-tile kernel with its weight stages moved by one bulk copy each (cp.async.bulk on an mbarrier
# per slot), the zeroing by 16-byte stores and the sample index by a float product, A/B against the header before
# (HEAD's layers/ from .device/old_rt.tgz, the same lab source): checks, two alternating rounds of rttime and rtlat;
# the new lab's checks under memcheck, racecheck and synccheck; the row-FFMA lab (its slots now the shared helper's)
# checked.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
mkdir -p /tmp/old && tar xzf .device/old_rt.tgz -C /tmp/old
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo"
(cd /tmp/old && nvcc $flags -I. tests/kernels/sample_resident_lab.cu $srcs -o /tmp/sr_old > $R/build_old.log 2>&1) &
nvcc $flags -I. tests/kernels/sample_resident_lab.cu $srcs -o /tmp/sr_new > $R/build_new.log 2>&1 &
nvcc $flags -I. tests/kernels/row_ffma_lab.cu layers/sample_resident/row_tile_builder.cpp layers/sample_resident/row_ffma_builder.cpp \
  layers/sample_resident/sample_resident_builder.cpp -o /tmp/row_ffma_lab > $R/build_row_ffma.log 2>&1 &
wait
ls -la /tmp/sr_old /tmp/sr_new /tmp/row_ffma_lab | awk '{print $5, $9}'
timeout 200 /tmp/sr_new rt > $R/rt_new.log 2>&1; echo "rt new exit $?"; grep -E "FAIL|passed|CHECKS" $R/rt_new.log | head
for round in 1 2; do
  for v in old new; do
    timeout 120 /tmp/sr_$v rttime > $R/rttime_${v}_$round.log 2>&1
    timeout 120 /tmp/sr_$v rtlat > $R/rtlat_${v}_$round.log 2>&1
  done
done
for v in old new; do
  echo "== $v"; for round in 1 2; do grep -E "rowtile bf16" $R/rttime_${v}_$round.log | grep -v without | awk '{print $4, $6, $12}' | tr '\n' ' '; echo; done
  for round in 1 2; do grep -E "empty|^  rowtile" $R/rtlat_${v}_$round.log | awk '{print $NF=="ms"?$0:$0}' | sed 's/ *rowtile bf16 batch *1 cfg/cfg/' | cut -c1-60 | tr '\n' ';'; echo; done
done
ROW_FFMA_QUICK=1 timeout 120 /tmp/row_ffma_lab --check-only > $R/row_ffma_checks.log 2>&1; echo "row_ffma checks exit $?: $(tail -1 $R/row_ffma_checks.log)"
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool /tmp/sr_new rtcheck > $R/sr_new_$tool.log 2>&1
  echo "sr lab under $tool exit $?: $(grep -E 'all checks|CHECKS|ERROR SUMMARY|RACECHECK SUMMARY' $R/sr_new_$tool.log | tr '\n' ' ')"
done
cd $OUT && tar czf r.tgz r && rm -rf r
