#!/usr/bin/env bash
# First call (the classifier head at batch 1, and the batches-in-flight table in one run): the head kernel's lab
# built from three trees, HEAD's header (old), the empty rows' reductions skipped with the biases loaded first (v1),
# and v1 with the second product and softmax as a warp per sample (new, the working tree), timed in three
# alternating rounds and by ncu's device duration at batch 1; the new lab's checks; the engine's GPU tests, the
# head's tests under memcheck, racecheck and synccheck; the conv net's bench in bf16 and fp16 (two rounds), its
# kernels' device durations inside the batch-1 graph replays, compare against the CPU; gpu_run.sh's stream stage;
# PyTorch's conv net at batch 1 in the same call.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  for v in old v1; do mkdir -p /tmp/$v && tar xzf .device/${v}_rt.tgz -C /tmp/$v; done
  mkdir -p /tmp/new && cp -r layers tests /tmp/new/
  for v in old v1 new; do
    (cd /tmp/$v && nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
      tests/kernels/head_chain_lab.cu layers/sample_resident/sample_resident_builder.cpp \
      layers/sample_resident/head_builder.cpp -o /tmp/head_lab_$v > $R/build_$v.log 2>&1; echo "build $v exit $?") &
  done
  wait
  grep -A1 "head_kernel" $R/build_new.log | grep -E "registers" | head -4
  timeout 120 /tmp/head_lab_new --check-only > $R/check_new.log 2>&1; echo "checks new exit $?: $(tail -2 $R/check_new.log | tr '\n' ' ')"
  for round in 1 2 3; do
    for v in old v1 new; do
      timeout 60 /tmp/head_lab_$v --no-validate --filter head8 > $R/time_${v}_$round.log 2>&1
      echo "round $round $v: $(grep -E 'head8 b' $R/time_${v}_$round.log | awk '{printf "%s=%s ", $2, $3}')"
    done
  done
  for v in old v1 new; do
    timeout 90 ncu --cache-control none --clock-control none -k regex:head_kernel -s 20 -c 5 \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum /tmp/head_lab_$v --no-validate --filter "head8 b1 " \
      > $R/ncu_$v.txt 2>&1
    echo "ncu $v: $(grep -E 'gpu__time_duration|inst_executed' $R/ncu_$v.txt | awk '{print $NF}' | tr '\n' ' ')"
  done
  sr_gpu_checks 'GPU: classifier heads run as one sample-resident*' head
  bench_convnet_16bit 2
  timeout 90 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum -k regex:. --launch-skip 60 \
    --launch-count 9 $B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 1 --warmup 30 \
    --iterations 30 > $R/ncu_convnet_b1.txt 2>&1
  echo "ncu convnet b1 exit $?"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $R/ncu_convnet_b1.txt | sed 's/(int, int, int).*//' | cut -c1-110 | head -20
  compare_forms convnet "bf16 fp16"
  mkdir -p $R/torch
  "$TORCH_PYTHON" tools/torch_bench.py --out-dir $R/torch --batches-convnet 1,16,128,1000 --batches-ssa 1 \
    > $R/torch_bench.log 2>&1
  echo "torch_bench exit $?"; grep -E "^convnet" $R/torch_bench.log
  bash tools/gpu_run.sh $R/stream .device/build stream > $R/stream.log 2>&1; echo "stream stage exit $?"
  grep -E "^(main job|stream)" $R/stream/summary.txt | cut -c1-200
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks compare_forms bench_convnet_16bit); B=$B R=$R; work" 2>&1 | tee $R/call_a.log
cd $OUT && rm -f r/stream/results.tar.gz && tar czf r.tgz r && rm -rf r
