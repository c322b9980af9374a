#!/usr/bin/env bash
# Sixth run, the session's final build (the labs' shared helpers, the pool-on-M weight packing by variant, the
# NaN tests' helper): the GPU tests, both labs' checks (and the pair lab's under memcheck), compare against the
# CPU, and the main job (fixed fp16 and auto).
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
L=.device/lab
cp tools/results/h200/conv_pair/mj_parse.py $R/mj_parse.py
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | grep -v MESSAGE | head -30
  PAIR_MAX_BATCH=1000 $L/conv_pair_lab --check-only > $R/pair_check.log 2>&1
  echo "pair lab checks exit $?: $(grep -c '^PASS' $R/pair_check.log) PASS, $(grep -c FAIL $R/pair_check.log) FAIL"
  POOLM_MAX_BATCH=1000 $L/conv_poolm_lab --check-only > $R/poolm_check.log 2>&1
  echo "poolm lab checks exit $?: $(grep -c '^PASS' $R/poolm_check.log) PASS, $(grep -c FAIL $R/poolm_check.log) FAIL"
  PAIR_MAX_BATCH=7 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $L/conv_pair_lab --check-only > $R/pair_memcheck.log 2>&1
  echo "pair lab memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/pair_memcheck.log | tail -1)"
  compare_forms convnet "bf16 fp16"
  mj() {  # TAG PRECISION
    /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto \
      --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
      --output $R/probs_$1.npy --top-k 3 --json --precision $2 > $R/mj_$1.log 2>&1
    echo "exit $?: $($TORCH_PYTHON $R/mj_parse.py $R/mj_$1.log $1)"
  }
  for i in 1 2 3; do mj auto_$i auto; done
  for i in 1 2; do mj fp16_$i fp16; done
}
timeout 590 bash -c "$(declare -f work compare_forms); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_f.log
cd $OUT && find r -name "*.npy" -delete && find r -name "*top_k.csv" -delete && tar czf r.tgz r && rm -rf r
