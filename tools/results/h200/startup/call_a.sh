#!/usr/bin/env bash
# Session call 2: lazy cuBLAS/cuDNN build: which libraries each run opens, the main job's wall time and its
# setup variants, the conv net at small batches, GPU tests, sanitizers on the fused conv tests.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
D=.device/data
main_job() {  # name, extra args...
  local name=$1; shift
  /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz \
    --labels $D/t10k-labels-idx1-ubyte.gz --output /tmp/probs.npy --top-k 3 --json "$@" > $R/main_$name.log 2>&1
  echo "$name: $(grep -o '"main_s":[0-9.]*' $R/main_$name.log) $(grep -o '"setup_phases_s":{[^}]*}' $R/main_$name.log) $(grep -o '"read_s":[0-9.]*' $R/main_$name.log) $(grep -o '"precision":"[a-z0-9]*"' $R/main_$name.log | head -1) $(grep wall $R/main_$name.log)"
}
work() {
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
command -v nsys ncu strace perf | tr '\n' ' '; echo
echo "== libraries each run opens"
for p in fp16 bf16 fp32 auto; do
  LD_DEBUG=files $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz --precision $p \
    --backend cuda > /dev/null 2> $R/ld_$p.txt
  echo "$p: $(grep -oE 'file=[^ ]*(cublas|cudnn)[^ ]*' $R/ld_$p.txt | sort -u | tr '\n' ' ')"
done
LD_DEBUG=files $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz --backend cuda-reference > /dev/null 2> $R/ld_ref.txt
echo "cuda-reference: $(grep -oE 'file=[^ ]*(cublas|cudnn)[^ ]*' $R/ld_ref.txt | sort -u | tr '\n' ' ')"
echo "without cuDNN on the search path (the cuda-reference conv needs it; the fused bf16 path does not):"
LD_LIBRARY_PATH=/usr/local/cuda/lib64 $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz --backend cuda-reference 2>&1 | tail -2; echo "exit ${PIPESTATUS[0]}"
LD_LIBRARY_PATH=/usr/local/cuda/lib64 $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz --backend cuda --precision bf16 2>&1 | grep -E "accuracy|throughput|error"; echo "exit ${PIPESTATUS[0]}"
for i in 1 2 3; do /usr/bin/time -f "infer --help wall %e s" $B/infer --help > /dev/null; done 2>&1
echo "== main job"
main_job warm --precision auto > /dev/null
for i in 1 2 3; do main_job auto$i --precision auto; main_job fp16_$i --precision fp16; done
for i in 1 2; do CUDA_MODULE_LOADING=EAGER main_job eager$i --precision fp16; main_job inflight1_$i --precision fp16 --in-flight 1; done
main_job nograph --precision fp16 --no-graph
main_job bs10000 --precision fp16 --batch-size 10000
echo "== conv net, small batches"
$B/bench --model weights/convnet.onnx --paths cuda --precision bf16 --batches 1,16,128 --duration-ms 300 > $R/bench_small.txt 2>&1
grep -E "^ +[0-9]+ \|" $R/bench_small.txt
echo "== GPU tests"
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1; echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B2 -A8 "ERROR" $R/gpu_tests.log | head -40
for tool in memcheck racecheck synccheck initcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
    -tc='cuda FusedConv: every shared-rows*' > $R/san_$tool.log 2>&1; rc=$?
  echo "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san_$tool.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/san_$tool.log)"
done
}
timeout 560 bash -c "$(declare -f main_job work); B=$B R=$R D=$D; work" 2>&1 | tee $R/call2.log
cp ~/.cache/inferengine/tuning-*.json $R/ 2>/dev/null
cd $OUT && tar czf r.tgz r && rm -rf r
