#!/usr/bin/env bash
# Sixth call: the row-tile kernel's GELU on packed bf16 pairs (dev::gelu_tanh_bf16x2) against the float form, the
# same tree built with -DIE_RT_BF16_GELU_PACKED=1 and =0: the row-tile checks of both (errors against the float
# reference side by side), then rttime alternating, two rounds.
source tools/results/h200/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
srcs="layers/sample_resident/sample_resident_builder.cpp layers/sample_resident/row_tile_builder.cpp"
for v in 0 1; do
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -DIE_RT_BF16_GELU_PACKED=$v -I. \
    tests/kernels/sample_resident_lab.cu $srcs -o /tmp/sr_gelu$v > $R/build_gelu$v.log 2>&1 &
done
wait
for v in 0 1; do timeout 120 /tmp/sr_gelu$v rtcheck > $R/rtcheck_gelu$v.log 2>&1; echo "rtcheck gelu$v exit $?: $(tail -1 $R/rtcheck_gelu$v.log)"; done
paste <(grep -E "^  rowtile" $R/rtcheck_gelu0.log | sed 's/ smem.*: recon/ recon/;s/(tol.*//' | cut -c3-) \
  <(grep -E "^  rowtile" $R/rtcheck_gelu1.log | sed 's/.*: recon/recon/;s/(tol.*//') | sed 's/seq 10 slice 32 width  64 heads 4 hidden 128 latent 32 //'
for round in 1 2; do
  for v in 0 1; do
    timeout 120 /tmp/sr_gelu$v rttime > $R/rttime_gelu${v}_$round.log 2>&1
    echo "gelu$v round $round: $(grep -E 'rowtile (bf16|fp16) batch +(1|32|4096|65536) cfg +(82|121|161|41) ' $R/rttime_gelu${v}_$round.log | grep -v without | sed 's/ smem.*: */ /;s/ms.*/ms/;s/rowtile //' | tr -s ' ' | tr '\n' ';')"
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
