#!/usr/bin/env bash
# Session call 4: the fused conv's tuning input made on the device: a new batch size's first plan; GPU tests.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
D=.device/data
main_job() {  # name, extra args...
  local name=$1; shift
  /usr/bin/time -f "wall %e s" timeout 60 $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz \
    --labels $D/t10k-labels-idx1-ubyte.gz --output /tmp/probs.npy --top-k 3 --json "$@" > $R/main_$name.log 2>&1
  echo "$name: $(grep -o '"main_s":[0-9.]*' $R/main_$name.log) $(grep -o '"setup_phases_s":{[^}]*}' $R/main_$name.log) $(grep -o '"precision":"[a-z0-9]*"' $R/main_$name.log | head -1) $(grep -o 'accuracy: [0-9.]*' $R/main_$name.log) $(grep wall $R/main_$name.log)"
}
work() {
echo "== first plan at new batch sizes (tuning cache without them)"
grep -c '"10000,' ~/.cache/inferengine/tuning-*.json 2>/dev/null
main_job bs10000_first --precision fp16 --batch-size 10000
main_job bs10000_again --precision fp16 --batch-size 10000
main_job bs5000_first --precision fp16 --batch-size 5000
main_job bs2000_first_bf16 --precision bf16 --batch-size 2000
echo "== main job"
for i in 1 2 3; do main_job auto$i --precision auto; main_job fp16_$i --precision fp16; done
echo "== conv net bench"
$B/bench --model weights/convnet.onnx --paths cuda --precision bf16 --batches 1,16,1000,10000 --duration-ms 300 > $R/bench.txt 2>&1
grep -E "^ +[0-9]+ \|" $R/bench.txt
echo "== GPU tests"
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1; echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B2 -A8 "ERROR" $R/gpu_tests.log | head -40
for tool in memcheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
    -tc='cuda FusedConv times its tile*,cuda FusedConv: every stacked*' > $R/san_$tool.log 2>&1; rc=$?
  echo "$tool exit $rc: $(grep -E 'ERROR SUMMARY' $R/san_$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/san_$tool.log)"
done
}
timeout 560 bash -c "$(declare -f main_job work); B=$B R=$R D=$D; work" 2>&1 | tee $R/call4.log
cp ~/.cache/inferengine/tuning-*.json $R/ 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
