#!/usr/bin/env bash
# Sourced by call1.sh .. call3.sh on the GPU machine, from the repository root: OUT (default /tmp/ldsm_out) with the
# machine's facts in gpu.txt, LAB (the prebuilt lab in .ldsm_bin/lab, or one built here when that one does not start
# on this machine) and lab_sass, which writes the lab's SASS to /tmp/lab.sass for sass_counts.py (run by the
# machine's PyTorch interpreter, TORCH_PYTHON).
set -u
OUT=${OUT:-/tmp/ldsm_out}
mkdir -p "$OUT"
export TORCH_PYTHON=${TORCH_PYTHON:-/opt/torch/.venv/bin/python3}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
LAB=.ldsm_bin/lab
"$LAB" --bogus > /dev/null 2>&1
if [ $? -ne 2 ]; then
  echo "prebuilt lab does not run here: building"
  mkdir -p /tmp/labbuild
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
    tests/kernels/fused_conv_lab.cu -o /tmp/labbuild/lab > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  LAB=/tmp/labbuild/lab
fi
lab_sass() { cuobjdump -sass "$LAB" > /tmp/lab.sass 2>/dev/null; }
