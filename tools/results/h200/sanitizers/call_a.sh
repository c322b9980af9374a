#!/usr/bin/env bash
# Session call 6: the GPU tests under compute-sanitizer (memcheck: all; racecheck, synccheck, initcheck: the fused
# kernels' tests, as tools/gpu_run.sh lists them).
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
fused='cuda FusedConv (fused set) matches*,cuda FusedConv keeps NaN*,cuda FusedConv declines*,cuda FusedConv: every shared-rows*,cuda LayerNorm*,cuda LayerNormalization*,cuda Linear*,cuda Attention*,GPU: the SSA runs as one sample-resident*,GPU: classifier heads run as one sample-resident*,pipeline on cuda: prepare keeps*'
timeout 330 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version > $R/memcheck_all.log 2>&1; rc=$?
echo "memcheck (all GPU tests) exit $rc: $(grep -E 'ERROR SUMMARY' $R/memcheck_all.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/memcheck_all.log)"
for tool in racecheck synccheck initcheck; do
  timeout 70 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version -tc="$fused" > $R/$tool.log 2>&1; rc=$?
  echo "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/$tool.log)"
done
cd $OUT && tar czf r.tgz r && rm -rf r
