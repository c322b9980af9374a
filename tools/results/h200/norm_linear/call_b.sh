#!/usr/bin/env bash
# Second call (one H200): the prologue's second form (v2: the row's values loaded once into registers, every load in
# flight, A's first k-step and W issued before the statistics, normalization as A is stored; 2 or 3 CTAs per SM)
# against call_a's (v1: two passes over global memory before any load of the product), the lab's NormLinear
# timings, both labs in one call, two rounds; v2's checks; the Linear, NormLinear, attention and SSA GPU tests; the
# SSA's fp32 bench with the rule on and off, two rounds alternating; its per-op profile at 65536.
source tools/results/h200/device_env.sh
L=.device/lab
mkdir -p $L && tar xf .device/labs.tgz -C $L
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version -tc="*Linear*,*Attention*,*SSA*,*attention*" > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A14 "ERROR" $R/gpu_tests.log | head -40
  $L/linear_lab --check-only > $R/linear_lab_checks.log 2>&1
  echo "linear lab checks exit $?: $(grep -c '^PASS' $R/linear_lab_checks.log) PASS, $(grep -c '^FAIL' $R/linear_lab_checks.log) FAIL"
  grep -E '^FAIL|norm' $R/linear_lab_checks.log | cut -c1-170
  for round in 1 2; do
    for v in v1 v2; do
      lab=$L/linear_lab; [[ $v == v1 ]] && lab=$L/linear_lab_v1
      $lab --no-validate --filter "f32 batch 65536" > $R/linear_lab_${v}_$round.log 2>&1
      echo "$v round $round exit $?"; grep -E "NormLinear|LN, then|mlp 64|out 64" $R/linear_lab_${v}_$round.log | cut -c1-110
    done
  done
  for round in 1 2; do
    for mode in on off; do
      dis=; [[ $mode == off ]] && dis=norm_linear
      IE_DISABLE_FUSIONS=$dis $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
        --batches 4096,65536 --duration-ms 400 > $R/bench_fp32_${mode}_$round.log 2>&1
      echo "bench fp32 norm_linear $mode round $round exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_fp32_${mode}_$round.log | cut -c1-40
    done
  done
  $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 --profile \
    > $R/profile_ssa_65536_fp32.txt 2>&1
  echo "profile exit $?"; grep -E "^[0-9]+ |^total" $R/profile_ssa_65536_fp32.txt | grep -E "Norm|fc1|total" | cut -c1-50,150-175
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
