#!/usr/bin/env bash
# First call (one H200), the attention lab alone: own rows (a thread per element, position and head, q in its
# registers, k and v in shared memory) against the staged kernel, checked on odd shapes in three types with q, k, v
# apart and packed 3E apart, timed at every CTA size; each form under ncu (the engine's fp32 q | k | v at 65536).
source tools/results/h200/device_env.sh
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. tests/kernels/attention_lab.cu \
  -o $R/attention_lab > $R/attention_lab_build.log 2>&1
echo "build exit $?"
timeout 200 $R/attention_lab --csv $R/attention_lab.csv > $R/attention_lab.log 2>&1
echo "attention lab exit $?"; grep -c PASS $R/attention_lab.log; grep -iE "fail|error" $R/attention_lab.log | head -10
grep -E "^SSA" $R/attention_lab.log
for form in staged own; do
  timeout 120 ncu --clock-control none --set full --launch-skip 60 --launch-count 1 -k regex:attention \
    -o $R/ncu_$form $R/attention_lab --no-validate --filter "SSA qkv 65536 f32 B65536 S10 H4 D16 rope $form" \
    > $R/ncu_$form.log 2>&1
  echo "ncu $form exit $?"
  ncu --import $R/ncu_$form.ncu-rep --page details > $R/ncu_$form.txt 2>&1
  grep -E "Duration|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Issue Slots Busy|No Eligible|Stall" $R/ncu_$form.txt | head -30
done
rm -f $R/attention_lab
cd $OUT && tar czf r.tgz r && rm -rf r
