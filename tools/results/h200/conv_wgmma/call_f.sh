#!/usr/bin/env bash
# Sixth call: where the wgmma kernel's time goes, for the next step: executed instructions and stall samples per
# source line (tests/kernels/profile_lines.sh, the lab built here from the committed sources) of one launch of each
# configuration at batch 10000 (conv2, bf16).
source tools/results/h200/device_env.sh
work() {
  nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90a,code=sm_90a -I. tests/kernels/fused_conv_lab.cu -o /tmp/lab_bin
  echo "lab build exit $?"
  for cfg in WgmmaTile1 WgmmaTile2; do
    name=$([[ $cfg == WgmmaTile1 ]] && echo "wg_m64n64_s1" || echo "wg_m64n64")
    LAB_BIN=/tmp/lab_bin PYTHON="$TORCH_PYTHON" bash tests/kernels/profile_lines.sh tests/kernels/fused_conv_lab.cu \
      "fused_conv_wgmma_kernelINS0_10${cfg}E13__nv_bfloat16S3_Li20ELi4" \
      --filter "wg_bf16 $name bf16->bf16" --no-validate --batch 10000 > $R/lines_$name.txt 2>&1
    echo "profile_lines $name exit $?"; head -45 $R/lines_$name.txt | cut -c1-180
  done
}
timeout 590 bash -c "$(declare -f work); R=$R; work" 2>&1 | tee $R/call_f.log
cd $OUT && tar czf r.tgz r && rm -rf r
