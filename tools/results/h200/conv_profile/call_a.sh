#!/usr/bin/env bash
# First call of the session (one H200): the GPU tests and the fused conv's tests under memcheck, racecheck and
# synccheck for the commits no GPU had run (the shared forced-configuration checks, pool-on-M's pair alignment, the
# review's shared A-fragment packer and dispatch); the pool-on-M lab's checks and timings; where conv1 and conv2
# spend their time at batch 10000 (ncu sections and per-line counts); the README's main job on a one-GPU machine.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  sr_gpu_checks 'cuda FusedConv*' fusedconv
  L=.device/lab
  $L/poolm_lab --check-only > $R/poolm_check.log 2>&1; echo "poolm lab checks exit $?: $(grep -c '^ok' $R/poolm_check.log) ok, $(grep -c FAIL $R/poolm_check.log) FAIL"
  $L/poolm_lab --no-validate > $R/poolm_time.log 2>&1; echo "poolm lab timings exit $?"; grep -E "^ *(stk|poolm)" $R/poolm_time.log | head -30
  secs="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis"
  for f in "poolm_w4_n5 f32" "stk_w5_n5 f32"; do
    tag=${f%% *}
    timeout 120 ncu --cache-control none --clock-control none $secs -k regex:fused_conv --launch-skip 3 --launch-count 1 \
      $L/poolm_lab --no-validate --filter "$f" > $R/ncu_conv1_$tag.txt 2>&1; echo "ncu conv1 $tag exit $?"
  done
  LAB_BIN=$L/poolm_lab timeout 150 bash tests/kernels/profile_lines.sh tests/kernels/conv_poolm_lab.cu fused_conv_poolm_kernelINS0_9PoolMW4N5 --no-validate --filter "poolm_w4_n5 f32" > $R/lines_poolm.txt 2>&1; echo "lines poolm exit $?"
  $B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 10000 --duration-ms 400 > $R/bench_10000.log 2>&1
  echo "bench 10000 (tunes, fills the cache) exit $?: $(grep -E '^ +[0-9]+ \|' $R/bench_10000.log | cut -c1-60)"
  timeout 150 ncu --cache-control none --clock-control none $secs -k regex:. --launch-skip 40 --launch-count 6 \
    $B/bench --config configs/convnet.yaml --paths cuda --precision bf16 --batches 10000 --warmup 10 --iterations 10 \
    --no-graph > $R/ncu_convnet_10000.txt 2>&1; echo "ncu convnet 10000 exit $?"
  grep -E "^  [a-zA-Z_].*\(|Duration|Issue Slots Busy|Achieved Occupancy|No Eligible|Registers Per" $R/ncu_convnet_10000.txt | cut -c1-120 | head -40
  data=.device/data
  for run in 1 2 3 4; do
    /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto --input $data/t10k-images-idx3-ubyte.gz \
      --labels $data/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 --output /tmp/probs.npy --top-k 3 --json \
      --precision auto > $R/main_job_$run.log 2>&1
    echo "main job $run exit $?: $(grep -E '^(time|accuracy)|^wall' $R/main_job_$run.log | tr '\n' ' ') $(grep -o '"main_s":[0-9.]*' $R/main_job_$run.log)"
  done
  /usr/bin/time -f "wall %e s" $B/infer --help > $R/infer_help.log 2>&1; echo "infer --help: $(tail -1 $R/infer_help.log)"
  compare_forms convnet "bf16"
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks compare_forms); B=$B R=$R; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
