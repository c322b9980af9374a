#!/usr/bin/env bash
# First call (one H200): ie.NormLinear, the LayerNorm staged by the strict-fp32 FFMA product. Every GPU test, the
# NormLinear and Linear tests under memcheck, racecheck and synccheck; the linear lab (its checks, the new
# prologue's among them, and its timings: NormLinear against the LayerNorm kernel then the product); the SSA's fp32
# bench with the rule on and off (IE_DISABLE_FUSIONS=norm_linear), two rounds alternating; its per-op profile at
# 65536; its plan at 65536; compare against the CPU at 4000 samples (40000 rows: the rule's kernel takes them).
source tools/results/h200/device_env.sh
L=.device/lab
mkdir -p $L && tar xf .device/labs.tgz -C $L
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A14 "ERROR" $R/gpu_tests.log | head -60
  for tool in memcheck racecheck synccheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
      -tc="cuda NormLinear*,cuda Linear in strict fp32*" > $R/gpu_tests_norm_$tool.log 2>&1
    echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/gpu_tests_norm_$tool.log | tail -1)"
  done
  $L/linear_lab --csv $R/linear_lab.csv > $R/linear_lab.log 2>&1
  echo "linear lab exit $?: $(grep -c '^PASS' $R/linear_lab.log) PASS, $(grep -c '^FAIL' $R/linear_lab.log) FAIL"
  grep -E '^FAIL|norm' $R/linear_lab.log | cut -c1-170
  grep -E 'f32  batch  65536' $R/linear_lab.log | cut -c1-120
  for round in 1 2; do
    for mode in on off; do
      dis=; [[ $mode == off ]] && dis=norm_linear
      IE_DISABLE_FUSIONS=$dis $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
        --batches 1,512,4096,65536 --duration-ms 400 > $R/bench_fp32_${mode}_$round.log 2>&1
      echo "bench fp32 norm_linear $mode round $round exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_fp32_${mode}_$round.log | cut -c1-40
    done
  done
  $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 --profile \
    > $R/profile_ssa_65536_fp32.txt 2>&1
  echo "profile exit $?"; grep -E "^[0-9]+ |^total" $R/profile_ssa_65536_fp32.txt | cut -c1-50,150-175
  $B/inspect weights/ssa.onnx --batch 65536 --backend cuda --precision fp32 > $R/inspect_ssa_65536_fp32.txt 2>&1
  echo "inspect exit $?: $(grep -E '^graph:' $R/inspect_ssa_65536_fp32.txt)"
  for form in legacy dynamo; do
    for p in fp32 tf32; do
      $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision $p --batch 4000 --seed 7 \
        > $R/compare_ssa_${form}_${p}_4000.log 2>&1
      echo "compare ssa $form $p 4000 exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_${p}_4000.log | head -1)"
    done
  done
}
timeout 590 bash -c "$(declare -f work); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_a.log
cd $OUT && tar czf r.tgz r && rm -rf r
