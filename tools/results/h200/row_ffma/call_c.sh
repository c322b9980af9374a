#!/usr/bin/env bash
# Three compiled forms (256 x 2 row groups, 512 x 1, 256 x 1), two-sample encoder items, two-query attention items;
# weight chunks by one bulk copy (the default) against every thread's cp.async (-DIE_RF_BULK=0), alternating, two
# rounds; checks, sanitizers on the small checks, the per-line profile of 256 x 2 at 8192.
# (IE_RF_BULK was removed after this call: the bulk copy is the kernel's only stream now.)
source tools/results/h200/row_ffma/common.sh
build_lab /tmp/lab_bulk > "$R/build_bulk.log" 2>&1 &
build_lab /tmp/lab_cpasync -DIE_RF_BULK=0 > "$R/build_cpasync.log" 2>&1 &
wait
grep -E "registers|spill" "$R/build_bulk.log"
timeout 150 /tmp/lab_bulk --check-only 2>&1 | tee "$R/checks_bulk.log" | tail -3
alternate bulk cpasync
for tool in memcheck racecheck synccheck; do
  ROW_FFMA_QUICK=1 timeout 100 compute-sanitizer --tool $tool /tmp/lab_bulk --check-only > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log" | tail -1)"
done
ROW_FFMA_BATCHES=8192 PYTHON=$TORCH_PYTHON LAB_BIN=/tmp/lab_bulk timeout 150 bash tests/kernels/profile_lines.sh \
  tests/kernels/row_ffma_lab.cu row_ffma_kernelILi256ELi2E --no-validate > "$R/lines_256x2.txt" 2>&1
head -40 "$R/lines_256x2.txt"
cd "$OUT" && tar czf r.tgz r && rm -rf r
