#!/bin/bash
# Row-tile kernel, per-head attention, 16-column MLP chunks, flat rows over the residual streams, shapes 12 x 2 and
# 16 x 2; GELU A/B: sr_lab_tanh (tanh.approx form in bf16) against sr_lab_fast (gelu_fast everywhere), two rounds.
# Labs built here: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo [-DIE_RT_BF16_GELU_TANH=0]
#   -I. tests/kernels/sample_resident_lab.cu layers/sample_resident/{sample_resident_builder,row_tile_builder}.cpp
R=$OUT/r; mkdir -p $R; cd .device/srlab
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $R/gpu.txt
for round in 1 2; do
  ./sr_lab_tanh rt > $R/rt_tanh_$round.txt 2>&1
  ./sr_lab_fast rt > $R/rt_fast_$round.txt 2>&1
done
cuobjdump -xelf all ./sr_lab_tanh > /dev/null 2>&1
for f in *.cubin; do nvdisasm -g -c "$f" > $R/$(basename $f .cubin).sass 2>&1; done
cd $OUT && tar czf r.tgz r && rm -rf r
