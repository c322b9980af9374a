#!/usr/bin/env bash
# Session call 1: ie.ScaledResize (the pre-processing's Cast and scaling folded into the resize) and the pairs
# kernel of the resize: lab (validation, planes against pairs, float against uint8 input), the GPU tests and the
# resize tests under the sanitizers, the conv net from uint8 images with and without the rule, the main job.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
D=.device/data
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== resize lab"
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. tests/kernels/resize_lab.cu \
  -o /tmp/resize_lab > $R/resize_lab_build.log 2>&1 || { echo "lab build failed"; tail -20 $R/resize_lab_build.log; }
/tmp/resize_lab --csv $R/resize_lab.csv > $R/resize_lab.log 2>&1; echo "lab exit $?"
grep -c PASS $R/resize_lab.log; grep FAIL $R/resize_lab.log | head; grep "TB/s" $R/resize_lab.log
echo "== GPU tests"
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1; echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -60
for tool in memcheck racecheck synccheck initcheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
    -tc='cuda Resize*,cuda ie.ScaledResize*' > $R/san_$tool.log 2>&1; rc=$?
  echo "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/san_$tool.log)"
done
echo "== compare cpu vs cuda from uint8 images"
for p in fp32 tf32 fp16 bf16; do
  $B/compare --config configs/convnet.yaml --raw --a cpu --b cuda --precision $p --batch 257 --seed 5 > $R/compare_raw_$p.log 2>&1
  echo "compare raw $p exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_raw_$p.log | head -1)"
done
echo "== bench, uint8 28x28 input, with and without the rule (same machine)"
for p in fp16 bf16 fp32; do
  for off in - scaled_resize; do
    env IE_DISABLE_FUSIONS=$([[ $off == - ]] && echo none || echo $off) $B/bench --config configs/convnet.yaml --raw --paths cuda \
      --precision $p --batches 1,1000,10000 --in-flight 2 --duration-ms 600 --json $R/bench_raw_${p}_$off.json \
      > $R/bench_raw_${p}_$off.log 2>&1
    echo "bench raw $p off=$off exit $?"; grep -E "^ +[0-9]+ \|" $R/bench_raw_${p}_$off.log
  done
done
for p in bf16 fp32; do
  $B/bench --config configs/convnet.yaml --raw --paths cuda --precision $p --batches 10000 --profile \
    > $R/profile_raw_${p}.txt 2>&1; echo "profile raw $p exit $?"; grep -E "^[0-9]+ |^total" $R/profile_raw_${p}.txt
done
echo "== the main job"
for i in 1 2 3; do
  for p in auto fp16; do
    /usr/bin/time -f "wall %e s" timeout 60 $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz \
      --labels $D/t10k-labels-idx1-ubyte.gz --output /tmp/probs.npy --top-k 3 --precision $p --json > $R/main_${p}_$i.log 2>&1
    echo "main $p $i: $(grep -o '"run_s":[0-9.e-]*' $R/main_${p}_$i.log) $(grep -o 'accuracy: [0-9.]*' $R/main_${p}_$i.log) $(grep wall $R/main_${p}_$i.log)"
  done
done
}
timeout 570 bash -c "$(declare -f work); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
