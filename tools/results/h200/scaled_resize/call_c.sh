#!/usr/bin/env bash
# Session call 3: the resize kernels' planes spread over 4 waves of CTAs (runs of consecutive planes per CTA)
# instead of one persistent grid: lab (waves 1, 4, 16), the resize tests and sanitizers, and the conv net from uint8
# images streamed with 1-3 batches in flight, scaled_resize on and off, alternating.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. tests/kernels/resize_lab.cu \
  -o /tmp/resize_lab > $R/resize_lab_build.log 2>&1 || { echo "lab build failed"; tail -20 $R/resize_lab_build.log; }
/tmp/resize_lab --csv $R/resize_lab.csv > $R/resize_lab.log 2>&1; echo "lab exit $?: $(grep -c PASS $R/resize_lab.log) PASS, $(grep -c FAIL $R/resize_lab.log) FAIL"
grep "TB/s" $R/resize_lab.log | grep -v "64x64"
$B/gpu_tests --no-version -tc='cuda Resize*,cuda ie.ScaledResize*,GPU: the conv net*,*pipeline*' > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
    -tc='cuda Resize*,cuda ie.ScaledResize*' > $R/san_$tool.log 2>&1; rc=$?
  echo "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/san_$tool.log)"
done
for round in 1 2; do
  for off in none scaled_resize; do
    for depth in 1 2 3; do
      IE_DISABLE_FUSIONS=$off $B/bench --config configs/convnet.yaml --raw --paths cuda --precision bf16 --batches 10000 \
        --in-flight $depth --duration-ms 1000 --json $R/raw_bf16_${off}_d${depth}_$round.json > $R/raw_bf16_${off}_d${depth}_$round.log 2>&1
      echo "raw bf16 off=$off in-flight $depth round $round: $(grep -E '^ +[0-9]+ \|' $R/raw_bf16_${off}_d${depth}_$round.log)"
    done
  done
done
$B/bench --config configs/convnet.yaml --raw --paths cuda --precision bf16 --batches 10000 --profile > $R/profile_raw_bf16.txt 2>&1
grep -E "^[0-9]+ |^total" $R/profile_raw_bf16.txt
}
timeout 570 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_c.log
cd $OUT && tar czf r.tgz r && rm -rf r
