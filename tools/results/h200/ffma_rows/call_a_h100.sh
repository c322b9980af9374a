set -uo pipefail
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2; do
  for v in old new; do
    .device/labs/fused_conv_lab_$v --filter ffma --batch 10000 $([[ $round == 2 ]] && echo --no-validate) > $R/ffma_${v}_$round.log 2>&1
    echo "$v round $round exit $?: $(grep -E 'ALL PASSED|FAILED' $R/ffma_${v}_$round.log)"
    grep -E "^ffma" $R/ffma_${v}_$round.log
  done
done
cd $OUT && tar czf r.tgz r && rm -rf r
