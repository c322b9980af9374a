#!/usr/bin/env bash
# Sourced by call_a.sh .. call_f.sh on the GPU machine, from the repository root: the shared prologue
# (device_env.sh) and bench_fp32 MODEL BATCHES ROUNDS FIRST, the model's fp32 bench on cuda with the FFMA Linear
# (FIRST: "default", the engine's choice, or "ffma", IE_LINEAR_FP32=ffma) against IE_LINEAR_FP32=cublas,
# alternating, ROUNDS rounds, into $R/bench_MODEL_fp32_VARIANT_ROUND.log, each round's p50 per batch echoed; and
# compare_fp32 MODEL..., compare cpu against cuda in fp32 for both exports of each model.
source tools/results/h200/device_env.sh
bench_fp32() {
  local model=$1 batches=$2 rounds=$3 first=$4
  for round in $(seq "$rounds"); do
    for v in "$first" cublas; do
      local env_v=""
      [ "$v" != default ] && env_v="IE_LINEAR_FP32=$v"
      local log=$R/bench_${model}_fp32_${v}_$round.log
      env $env_v $B/bench --config configs/$model.yaml --paths cuda --precision fp32 --batches "$batches" \
        --duration-ms 300 > "$log" 2>&1
      echo "$model fp32 $v round $round: $(grep -E '^ +[0-9]+ \|' "$log" | awk '{print $1": "$3}' | tr '\n' ' ')"
    done
  done
}
compare_fp32() {
  for m in "$@"; do
    for form in legacy dynamo; do
      $B/compare --config configs/$m.yaml --form $form --a cpu --b cuda --precision fp32 --batch 64 --seed 7 \
        > $R/compare_${m}_${form}_fp32.log 2>&1
      echo "compare $m $form fp32 exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_${m}_${form}_fp32.log | head -1)"
    done
  done
}
