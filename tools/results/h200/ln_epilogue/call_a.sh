#!/usr/bin/env bash
# First call (one H200): ie.LinearNorm, the LayerNorm in the strict-fp32 FFMA product's epilogue (N <= 64). Every
# GPU test, the LinearNorm and strict-fp32 Linear tests under memcheck, racecheck and synccheck; the linear lab
# (checks, the epilogue's among them; fp32 timings at 65536: the epilogue against the product then the LayerNorm
# kernel); the SSA's fp32 bench with the rule on and off (IE_DISABLE_FUSIONS=linear_norm), two rounds
# alternating; its per-op profile and plan at 65536; compare against the CPU at 4000 samples in fp32 (40000 rows:
# the rule's kernel takes them). Needs .device/build.tgz (tools/stage_device_build.sh) and .device/labs.tgz with
# linear_lab (run_labs.sh's flags).
# Also, on the side: the tf32 element-wise misses at 4000 samples (compare cpu against cuda and against
# cuda-reference's cuBLAS TF32, both forms), and the pair lab alone with line-buffered output and time limits (its
# timing table printed nothing in issue8_record/call_b), then its checks at <= 7 images. Needs resize_lab in
# .device/labs.tgz too; the pair lab builds here in the background (its binary is too large to carry beside the
# engine).
source tools/results/h200/device_env.sh
L=.device/lab
mkdir -p $L && tar xf .device/labs.tgz -C $L
(/usr/local/cuda/bin/nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -I. \
  tests/kernels/conv_pair_lab.cu -o $L/conv_pair_lab > $R/conv_pair_lab.build.log 2>&1; echo "pair lab build exit $?" >> $R/conv_pair_lab.build.log) &
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A14 "ERROR" $R/gpu_tests.log | head -60
  for tool in memcheck racecheck synccheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
      -tc="cuda LinearNorm*,cuda Linear in strict fp32*" > $R/gpu_tests_norm_$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/gpu_tests_norm_$tool.log | tail -1)"
  done
  $L/linear_lab --check-only > $R/linear_lab_checks.log 2>&1
  echo "linear lab checks exit $?: $(grep -c '^PASS' $R/linear_lab_checks.log) PASS, $(grep -c '^FAIL' $R/linear_lab_checks.log) FAIL"
  grep -E '^FAIL|epilogue' $R/linear_lab_checks.log | cut -c1-170
  for round in 1 2; do
    $L/linear_lab --no-validate --filter "f32 batch 65536" > $R/linear_lab_$round.log 2>&1
    echo "lab round $round exit $?"; grep -E "epilogue|then LN|64->64|128->64|32->64" $R/linear_lab_$round.log | cut -c1-120
  done
  for round in 1 2; do
    for mode in on off; do
      dis=; [[ $mode == off ]] && dis=linear_norm
      IE_DISABLE_FUSIONS=$dis $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
        --batches 1,512,4096,65536 --duration-ms 400 > $R/bench_fp32_${mode}_$round.log 2>&1
      echo "bench fp32 linear_norm $mode round $round exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_fp32_${mode}_$round.log | cut -c1-40
    done
  done
  $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 --profile \
    > $R/profile_ssa_65536_fp32.txt 2>&1
  echo "profile exit $?"; grep -E "^[0-9]+ |^total" $R/profile_ssa_65536_fp32.txt | cut -c1-50,150-175
  $B/inspect weights/ssa.onnx --batch 65536 --backend cuda --precision fp32 > $R/inspect_ssa_65536_fp32.txt 2>&1
  echo "inspect exit $?: $(grep -E '^graph:' $R/inspect_ssa_65536_fp32.txt)"
  for form in legacy dynamo; do
    $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision fp32 --batch 4000 --seed 7 \
      > $R/compare_ssa_${form}_fp32_4000.log 2>&1
    echo "compare ssa $form fp32 4000 exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_fp32_4000.log | head -1)"
  done
  for form in legacy; do  # one form: the side-by-side of the two paths
    for b in cuda cuda-reference; do
      $B/compare --config configs/ssa.yaml --form $form --a cpu --b $b --precision tf32 --batch 4000 --seed 7 \
        > $R/compare_ssa_${form}_${b}_tf32_4000.log 2>&1
      echo "compare ssa $form $b tf32 4000 exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_${b}_tf32_4000.log | head -1)"
      grep -A3 "latent:" $R/compare_ssa_${form}_${b}_tf32_4000.log | cut -c1-150
    done
  done
  while ! grep -q "pair lab build exit" $R/conv_pair_lab.build.log; do sleep 2; done; tail -1 $R/conv_pair_lab.build.log
  timeout 45 stdbuf -oL $L/conv_pair_lab --no-validate > $R/conv_pair_lab_timing.log 2>&1
  echo "pair lab timing exit $?"; cat $R/conv_pair_lab_timing.log | cut -c1-120
  PAIR_MAX_BATCH=7 timeout 45 stdbuf -oL $L/conv_pair_lab --check-only > $R/conv_pair_lab_checks.log 2>&1
  echo "pair lab checks exit $?: $(grep -c '^PASS' $R/conv_pair_lab_checks.log) PASS, $(grep -c '^FAIL' $R/conv_pair_lab_checks.log) FAIL"
  grep -E '^FAIL' $R/conv_pair_lab_checks.log | head; tail -2 $R/conv_pair_lab_checks.log | cut -c1-150
  timeout 20 stdbuf -oL $L/resize_lab --no-validate > $R/resize_lab_timing.log 2>&1
  echo "resize lab timing exit $?"; tail -8 $R/resize_lab_timing.log | cut -c1-120
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
