#!/usr/bin/env bash
# Seventh call: the next tile's loads issued after this tile's wgmmas (call_f: 25% of the two-buffer kernel's stall
# samples sat on the wgmma fence, which waited for those loads) and no zeroing of the loaded words ahead of the
# loads. The lab built here from the working tree (the new header) and from the committed header (carried as .device/old/, built in
# /tmp/old), the wgmma checks on the new one, then both against the shared-rows kernel, alternating, two rounds.
source tools/results/h200/device_env.sh
work() {
  nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90a,code=sm_90a -I. tests/kernels/fused_conv_lab.cu -o /tmp/lab_new &
  mkdir -p /tmp/old/layers/fused_conv && cp -r layers tests /tmp/old/ && cp .device/old/fused_conv_wgmma.cuh /tmp/old/layers/fused_conv/fused_conv_wgmma.cuh
  (cd /tmp/old && nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90a,code=sm_90a -I. tests/kernels/fused_conv_lab.cu -o /tmp/lab_old) &
  wait
  /tmp/lab_new --filter "wg_" --check-only > $R/check.log 2>&1
  echo "lab check exit $?: $(grep -c '^PASS' $R/check.log) PASS, $(grep -c '^FAIL' $R/check.log) FAIL"
  for round in 1 2; do
    for which in old new; do
      for b in 10000 1000 1; do
        /tmp/lab_$which --filter "wg_bf16 wg_m64n64 bf16->bf16|wg_bf16 wg_m64n64_s1 bf16->bf16|shr_bf16 stk_w4_n4_px1024 bf16->bf16" \
          --no-validate --batch $b > $R/time_${which}_${round}_$b.log 2>&1
        grep -E "conv2" $R/time_${which}_${round}_$b.log | sed "s/^/$which /" | cut -c1-100 | sort -u
      done
    done
  done
}
timeout 590 bash -c "$(declare -f work); R=$R; work" 2>&1 | tee $R/call_g.log
cd $OUT && tar czf r.tgz r && rm -rf r
