#!/usr/bin/env bash
# Session call 5, two GPUs: the pipeline's GPU tests (the two-device split among them), and streamed figures on
# device 0 against devices 0,1 (3 batches in flight per device) for the conv net (fp32 and uint8 input, bf16) and
# the SSA at 65536 (bf16, fp32), and the main job on one and on all devices.
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
rm -rf .device/build; tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
D=.device/data
work() {
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader
$B/gpu_tests --no-version -tc='*pipeline*' > $R/gpu_tests_pipeline.log 2>&1
echo "gpu_tests pipeline exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_pipeline.log | tr '\n' ' ')"
grep -B3 -A10 "ERROR" $R/gpu_tests_pipeline.log | head -30
for spec in "convnet 10000 bf16 -" "convnet 10000 bf16 --raw" "ssa 65536 bf16 -" "ssa 65536 fp32 -"; do
  set -- $spec
  raw=; [[ $4 == --raw ]] && raw=--raw
  for devs in 0 0,1; do
    $B/bench --config configs/$1.yaml $raw --paths cuda --precision $3 --batches $2 --in-flight 3 --devices $devs \
      --duration-ms 1500 --json $R/stream_$1_$3${raw}_dev${devs/,/_}.json > $R/stream_$1_$3${raw}_dev${devs/,/_}.log 2>&1
    echo "stream $spec devices $devs exit $?: $(grep -E '^ +[0-9]+ \|' $R/stream_$1_$3${raw}_dev${devs/,/_}.log)"
  done
done
for devs in 0 all; do
  /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz \
    --labels $D/t10k-labels-idx1-ubyte.gz --output /tmp/probs.npy --devices $devs --batch-size 10000 > $R/main_$devs.log 2>&1
  echo "main devices $devs exit $?: $(grep -E '^(throughput|time|accuracy)|wall' $R/main_$devs.log | tr '\n' ' ')"
done
}
timeout 570 bash -c "$(declare -f work); B=$B R=$R D=$D; work" 2>&1 | tee $R/call_e.log
cd $OUT && tar czf r.tgz r && rm -rf r
