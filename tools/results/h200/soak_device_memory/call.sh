#!/usr/bin/env bash
# Session call 3: the soak on every backend, device memory sampled on the GPU ones (run alone on the GPU).
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
[[ -x .device/build/bin/soak ]] || tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
soak() { local name=$1 secs=$2; shift 2; timeout $((secs + 30)) $B/soak "$@" --duration-s $secs --json $R/soak_$name.json > $R/soak_$name.txt 2>&1; echo "soak $name exit $?: $(tail -4 $R/soak_$name.txt | tr '\n' ' ')"; }
work() {
soak ssa_cuda_bf16 60 --config configs/ssa.yaml --backend cuda --precision bf16 --sessions 4 --batch 8
soak convnet_cuda_bf16 60 --config configs/convnet.yaml --backend cuda --precision bf16 --sessions 4 --batch 8
soak ssa_cuda_fp32 50 --config configs/ssa.yaml --backend cuda --precision fp32 --sessions 4 --batch 8
soak convnet_ref_fp32 70 --config configs/convnet.yaml --backend cuda-reference --precision fp32 --sessions 4 --batch 8
soak ssa_ref_fp32 70 --config configs/ssa.yaml --backend cuda-reference --precision fp32 --sessions 4 --batch 8
soak convnet_cpu 50 --config configs/convnet.yaml --backend cpu --sessions 16 --threads 1 --batch 1
soak ssa_cpu 50 --config configs/ssa.yaml --backend cpu --sessions 16 --threads 1 --batch 1
}
timeout 570 bash -c "$(declare -f soak work); B=$B R=$R; work" 2>&1 | tee $R/call3.log
cd $OUT && tar czf r.tgz r && rm -rf r
