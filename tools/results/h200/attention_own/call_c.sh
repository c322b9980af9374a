#!/usr/bin/env bash
# Third call (one H200), the attention lab alone: the tile form with its copies in order (one run per tensor, no
# index arithmetic per chunk; swizzled chunks; k and v per head as the staged form keeps them) against the staged kernel, checked on
# odd shapes and timed at every CTA size; the tile kernel under a cap of 64 registers (2 CTAs of 512; a lab-only macro since removed) timed too;
# both forms under ncu at the engine's fp32 q | k | v at 65536.
source tools/results/h200/device_env.sh
flags="-O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I."
nvcc $flags tests/kernels/attention_lab.cu -o $R/attention_lab > $R/attention_lab_build.log 2>&1 &
nvcc $flags -DIE_ATT_TILE_MIN_BLOCKS=2 tests/kernels/attention_lab.cu -o $R/attention_lab2 > $R/attention_lab2_build.log 2>&1 &
wait
timeout 200 $R/attention_lab --csv $R/attention_lab.csv > $R/attention_lab.log 2>&1
echo "attention lab exit $?"; grep -c PASS $R/attention_lab.log; grep -iE "fail|error" $R/attention_lab.log | head -10
grep -E "^SSA" $R/attention_lab.log
timeout 100 $R/attention_lab2 --no-validate --filter "SSA qkv" > $R/attention_lab2.log 2>&1
echo "64-register tile kernel:"; grep -E "^SSA" $R/attention_lab2.log
for form in staged:60 tile:60; do
  name=${form%:*}; skip=${form#*:}
  timeout 120 ncu --clock-control none --set full --launch-skip $skip --launch-count 1 -k regex:attention \
    -o $R/ncu_$name $R/attention_lab --no-validate --filter "SSA qkv 65536 f32 B65536 S10 H4 D16 rope $name" \
    > $R/ncu_$name.log 2>&1
  echo "ncu $name exit $?"
  ncu --import $R/ncu_$name.ncu-rep --page details > $R/ncu_$name.txt 2>&1
  grep -E "attention.*\(|Duration|Memory Throughput|DRAM Throughput|L1/TEX Cache|Registers Per|Achieved Occupancy|Block Limit (Sh|Reg)|Issue Slots Busy" $R/ncu_$name.txt | head -14
done
rm -f $R/attention_lab $R/attention_lab2
cd $OUT && tar czf r.tgz r && rm -rf r
