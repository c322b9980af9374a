#!/usr/bin/env bash
# Session call: the FFMA kernel's unrolled-row configurations: the lab (plain vs unrolled, old header vs new, batch
# 10000 and 1000), the fused conv GPU tests and the new strict-fp32 test under memcheck and racecheck, and the conv
# net in fp32 and tf32 on cuda against cuda-reference, with PyTorch in the same call.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
work() {
nvidia-smi --query-gpu=name --format=csv,noheader
for v in old new; do
  .device/labs/fused_conv_lab_$v --filter ffma --batch 10000 > $R/lab_ffma_${v}_10000.log 2>&1
  echo "lab $v exit $?: $(grep -E 'ALL PASSED|FAILED' $R/lab_ffma_${v}_10000.log)"; grep -E "^ffma .*f32->f32" $R/lab_ffma_${v}_10000.log | sort -u
done
.device/labs/fused_conv_lab_new --filter ffma --batch 1000 --no-validate > $R/lab_ffma_new_1000.log 2>&1
grep -E "^ffma .*f32->f32" $R/lab_ffma_new_1000.log | sort -u
$B/gpu_tests --no-version -tc='cuda FusedConv*' > $R/gpu_tests_fused_conv.log 2>&1
echo "gpu_tests fused conv exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_fused_conv.log | tr '\n' ' ')"
grep -B3 -A10 "ERROR" $R/gpu_tests_fused_conv.log | head -30
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
    -tc='cuda FusedConv: every strict-fp32*' > $R/san_$tool.log 2>&1; rc=$?
  echo "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/san_$tool.log)"
done
for p in fp32 tf32; do
  $B/bench --config configs/convnet.yaml --paths cuda-reference,cuda --precision $p --batches 1,1000,10000 \
    --duration-ms 400 --json $R/bench_convnet_$p.json > $R/bench_convnet_$p.log 2>&1
  echo "bench $p exit $?"; grep -E "^== bench|^ +[0-9]+ \|" $R/bench_convnet_$p.log
done
$B/bench --config configs/convnet.yaml --paths cuda --precision fp32 --batches 10000 --profile > $R/profile_fp32_10000.txt 2>&1
grep -E "^[0-9]+ |^total" $R/profile_fp32_10000.txt
grep -h "fused_conv" ~/.cache/inferengine/tuning-*.json | head -5 > $R/tuning_records.txt
/opt/torch/.venv/bin/python3 tools/torch_bench.py --out-dir $R --batches-convnet 1,1000,10000 --batches-ssa 1 > $R/torch_bench.log 2>&1
echo "torch exit $?"; grep -E "convnet.*samples/s" $R/torch_bench.log
}
timeout 570 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call.log
cp ~/.cache/inferengine/tuning-*.json $R/ 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
