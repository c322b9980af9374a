#!/usr/bin/env bash
# Session call 5: auto precision's reference on its own thread; sessions kept only when the run can repay them.
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
  echo "$name: $(grep -o '"main_s":[0-9.]*' $R/main_$name.log) $(grep -o '"setup_phases_s":{[^}]*}' $R/main_$name.log) $(grep -o '"in_flight":[0-9]*' $R/main_$name.log) $(grep -o '"precision":"[a-z0-9]*"' $R/main_$name.log | head -1) $(grep -o 'accuracy: [0-9.]*' $R/main_$name.log) $(grep wall $R/main_$name.log)"
}
work() {
main_job warm --precision auto > /dev/null
for i in 1 2 3; do main_job auto$i --precision auto; main_job fp16_$i --precision fp16; main_job fp16_inflight2_$i --precision fp16 --in-flight 2; done
main_job bs100_fp16 --precision fp16 --batch-size 100
echo "== GPU tests"
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1; echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B2 -A8 "ERROR" $R/gpu_tests.log | head -40
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
    -tc='pipeline on cuda: prepare keeps*,GPU: auto precision*' > $R/san_$tool.log 2>&1; rc=$?
  echo "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/san_$tool.log)"
done
}
timeout 560 bash -c "$(declare -f main_job work); B=$B R=$R D=$D; work" 2>&1 | tee $R/call5.log
cd $OUT && tar czf r.tgz r && rm -rf r
