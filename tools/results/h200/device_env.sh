#!/usr/bin/env bash
# Sourced by the call scripts under tools/results/h200/ on the GPU machine, from the repository root: the machine's
# cuDNN and CUDA libraries on the library path, NVLink multicast off (several GPUs), its PyTorch interpreter as
# TORCH_PYTHON, the staged build (.device/build.tgz from tools/stage_device_build.sh) unpacked when it was carried,
# and B (its binaries), D (the Fashion-MNIST files) and R ($OUT/r, where results go).
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export TORCH_PYTHON=${TORCH_PYTHON:-/opt/torch/.venv/bin/python3}
if [[ -f .device/build.tgz ]]; then
  rm -rf .device/build
  tar xf .device/build.tgz -C .device  # gzip or xz
fi
B=.device/build/bin
D=.device/data
R=$OUT/r
mkdir -p "$R"
