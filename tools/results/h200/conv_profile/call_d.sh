#!/usr/bin/env bash
# Fourth call: the engine with the bulk-staged pool-on-M configurations among the fused conv's tuned candidates
# and the packed 16-bit epilogue: GPU tests, the pool-on-M tests under the three sanitizers, the lab's checks
# (sanitizers at small batches), the conv net's bench in bf16 and fp16 (two rounds; the tuner times every
# candidate on the fresh machine), the kept records, kernel durations at 10000, compare against the CPU, PyTorch
# in the same call, and where the bulk kernel's instructions go.
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
  k4=fused_conv_poolm_kernelINS0_13PoolMW4N5BulkENS0_6Word16I13__nv_bfloat16EEfS4_Li4EEEv
  LAB_BIN=$L/poolm_lab timeout 100 bash tests/kernels/profile_lines.sh tests/kernels/conv_poolm_lab.cu $k4 --no-validate --filter "poolm_w4_n5_bulk f32" > $R/lines_bulk.txt 2>&1; echo "lines bulk exit $?"; head -32 $R/lines_bulk.txt | cut -c1-150
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks compare_forms bench_convnet_16bit); B=$B R=$R; work" 2>&1 | tee $R/call_d.log
cd $OUT && tar czf r.tgz r && rm -rf r
