#!/usr/bin/env bash
# Sourced by the sample-resident call scripts on the GPU machine (after device_env.sh, from the repository root):
# bench_ssa_16bit ROUNDS [TAG] (the SSA's bench on cuda in bf16 and fp16, ROUNDS rounds, into
# $R/bench_TAGP_ROUND.log),
# sr_gpu_checks [TEST_CASES [TAG]] (the GPU tests, then the sample-resident tests, or TEST_CASES, under memcheck,
# racecheck and synccheck),
# bench_convnet_16bit ROUNDS (the conv net's bench on cuda in bf16 and fp16 at batches 1 to 10000, ROUNDS rounds,
# into $R/bench_convnet_P_ROUND.log),
# compare_forms MODEL "PRECISIONS" (compare cpu against cuda for both exports, seed 7, into
# $R/compare_MODEL_FORM_P.log) and
# compare_ssa_16bit (compare cpu against cuda for both exports in bf16 and fp16, seeds 7 and 8).
bench_ssa_16bit() {
  for round in $(seq "$1"); do
    for p in bf16 fp16; do
      $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,7,16,32,128,512,1000,4096,65536 \
        --duration-ms 400 > $R/bench_${2:-}${p}_$round.log 2>&1
      echo "bench ${2:-}$p round $round exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_${2:-}${p}_$round.log | cut -c1-40
    done
  done
}
sr_gpu_checks() {  # [TEST_CASES [TAG]]: the tests the sanitizers run (default the SSA's sample-resident ones)
  local cases=${1:-GPU: the SSA runs as one sample-resident*} tag=${2:-sr}
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version \
      -tc="$cases" > $R/gpu_tests_${tag}_$tool.log 2>&1
    echo "$tool ($tag tests) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $R/gpu_tests_${tag}_$tool.log | tail -1)"
  done
}
compare_ssa_16bit() {
  for form in legacy dynamo; do
    for p in bf16 fp16; do
      for seed in 7 8; do
        $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision $p --seed $seed \
          > $R/compare_ssa_${form}_${p}_$seed.log 2>&1
        echo "compare ssa $form $p seed $seed exit $?: $(grep -E 'PASS|FAIL|max abs|smallest passing atol' $R/compare_ssa_${form}_${p}_$seed.log | tr -s ' ' | tr '\n' ' ' | cut -c1-300)"
      done
    done
  done
}
compare_forms() {
  for form in legacy dynamo; do
    for p in $2; do
      $B/compare --config configs/$1.yaml --form $form --a cpu --b cuda --precision $p --seed 7 \
        > $R/compare_$1_${form}_$p.log 2>&1
      echo "compare $1 $form $p exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_$1_${form}_$p.log | head -1)"
    done
  done
}
bench_convnet_16bit() {
  for round in $(seq "$1"); do
    for p in bf16 fp16; do
      $B/bench --config configs/convnet.yaml --paths cuda --precision $p --batches 1,16,128,1000,10000 \
        --duration-ms 400 > $R/bench_convnet_${p}_$round.log 2>&1
      echo "bench convnet $p round $round exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_convnet_${p}_$round.log | cut -c1-40
    done
  done
}
