#!/usr/bin/env bash
# Session call 7 (one GPU): the row-tile kernel's start with the floats and the first weights in flight together
# (sr_lab_new) against the floats first, then the weights (sr_lab_old); lab timings alternating, three rounds; the
# new kernel's checks.
set -uo pipefail
R=$OUT/r; mkdir -p $R
L=.device/srlab
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for round in 1 2 3; do
  for v in old new; do
    $L/sr_lab_$v rttime > $R/lab_${v}_$round.log 2>&1
    echo "lab $v round $round exit $?: $(grep -E 'rowtile bf16 batch +(1|32|512|4096|65536) cfg +(121|41|161|82) ' $R/lab_${v}_$round.log | sed 's/ smem.*: */ /;s/ms.*/ms/;s/rowtile bf16 batch *//' | tr -s ' ' | tr '\n' ';')"
  done
done
$L/sr_lab_new rt > $R/lab_new_checks.log 2>&1; echo "lab new checks exit $?: $(grep -E 'checks passed|FAILED' $R/lab_new_checks.log)"
}
timeout 400 bash -c "$(declare -f work); R=$R L=$L; work" 2>&1 | tee $R/call_g.log
cd $OUT && tar czf r.tgz r && rm -rf r
