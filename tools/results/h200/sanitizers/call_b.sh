#!/usr/bin/env bash
# Session call 7: racecheck on the fused kernels' tests that call 6's 70 s did not reach.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
[[ -x .device/build/bin/gpu_tests ]] || tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
rest='cuda LayerNorm*,cuda LayerNormalization*,cuda Linear*,cuda Attention*,GPU: the SSA runs as one sample-resident*,GPU: classifier heads run as one sample-resident*,pipeline on cuda: prepare keeps*'
timeout 480 compute-sanitizer --tool racecheck --error-exitcode 9 $B/gpu_tests --no-version -tc="$rest" --duration=true > $R/racecheck_rest.log 2>&1; rc=$?
echo "racecheck exit $rc: $(grep -E 'RACECHECK SUMMARY' $R/racecheck_rest.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/racecheck_rest.log)"
grep -E " s: |CRASHED" $R/racecheck_rest.log | head -30
cd $OUT && tar czf r.tgz r && rm -rf r
