#!/usr/bin/env bash
# Sixth call: the engine with the pool-on-M kernel of call_e (row pairs, uniform passes, w8 bulk capped at 80 registers)
# and the packed 16-bit epilogue: GPU tests, the pool-on-M tests under the three sanitizers, the lab's checks
# (sanitizers at small batches), the conv net's bench in bf16 and fp16 (two rounds; the tuner times every
# candidate on the fresh machine), the kept records, kernel durations at 10000, compare against the CPU, PyTorch
# in the same call, and the README's main job twice.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  sr_gpu_checks 'cuda FusedConv: every pool-on-M*,cuda FusedConv keeps NaN*' poolm
  L=.device/lab
  $L/poolm_lab --check-only > $R/poolm_check.log 2>&1; echo "poolm lab checks exit $?: $(grep -c '^PASS' $R/poolm_check.log) PASS, $(grep -c FAIL $R/poolm_check.log) FAIL; $(grep -E 'validation' $R/poolm_check.log)"
  for tool in memcheck racecheck synccheck; do
    POOLM_MAX_BATCH=7 compute-sanitizer --tool $tool --error-exitcode 9 $L/poolm_lab --check-only > $R/poolm_lab_$tool.log 2>&1
    echo "lab $tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/poolm_lab_$tool.log | tail -1)"
  done
  bench_convnet_16bit 2
  grep -h '"fused_conv' ~/.cache/inferengine/tuning-*.json | grep -o '"shape":"[^"]*","value":{"config":"[a-z0-9_]*"' > $R/tuning_records.txt; cat $R/tuning_records.txt
  cp ~/.cache/inferengine/tuning-*.json $R/ 2>/dev/null
  timeout 60 ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum -k regex:. --launch-skip 40 --launch-count 6 \
    $B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 10000 --warmup 10 --iterations 10 --no-graph > $R/ncu_convnet_10000.txt 2>&1
  echo "ncu convnet 10000 exit $?"; grep -E "^  [a-zA-Z_].*\(|gpu__time_duration" $R/ncu_convnet_10000.txt | sed 's/(int, int, int).*//' | cut -c1-110 | head -14
  compare_forms convnet "bf16 fp16"
  $TORCH_PYTHON tools/torch_bench.py --out-dir $R --batches-convnet 1,1000,10000 --batches-ssa 1 > $R/torch_bench.log 2>&1
  echo "torch exit $?"; grep -E "convnet.*samples/s" $R/torch_bench.log
  data=.device/data
  for run in 1 2; do
    /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto --input $data/t10k-images-idx3-ubyte.gz \
      --labels $data/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 --output /tmp/probs.npy --top-k 3 --precision auto > $R/main_job_$run.log 2>&1
    echo "main job $run exit $?: $(grep -E '^(time|accuracy)|^wall' $R/main_job_$run.log | tr '\n' ' ')"
  done
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks compare_forms bench_convnet_16bit); B=$B R=$R; work" 2>&1 | tee $R/call_f.log
cd $OUT && tar czf r.tgz r && rm -rf r
