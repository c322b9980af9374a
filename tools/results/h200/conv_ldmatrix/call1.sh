#!/usr/bin/env bash
# Call 1 of the ldmatrix experiment (fused_conv_ldsm.cuh): validation, timings old against new in one process per
# batch, sanitizers on small cases, SASS opcode counts and a short ncu stall comparison. Run from the repository
# root on the device machine: bash tools/results/h200/conv_ldmatrix/call1.sh  (writes under $OUT).
# The lab binary comes prebuilt in .ldsm_bin/lab (nvcc 13.0, sm_90a, this tree); if it does not start there it
# is rebuilt with the same command.
source tools/results/h200/conv_ldmatrix/common.sh

OLD="stk_bf16 stk_w5_n5_px3200"
NEW="ldsm_"
# 1. validation: every ldsm run (bf16, f16; bf16/f16/f32 in) and the stacked baseline on every case
timeout 200 "$LAB" --check-only --filter "$NEW|$OLD" > "$OUT/validate.log" 2>&1
echo "validate rc=$?"; grep -E "^FAIL|validation:" "$OUT/validate.log" | tail -5
grep -c "^PASS  ldsm" "$OUT/validate.log"

# 2. timings: old and new in the same process, batch 10000 twice (spread), then 1000 and 1
T="ldsm_bf16|$OLD|shr_bf16 stk_w4_n4_px1024 bf16->bf16"
{
  for b in 10000 10000 1000 1; do
    echo "== batch $b =="
    timeout 120 "$LAB" --no-validate --batch $b --filter "$T" | sed -n '/^variant/,$p'
  done
} > "$OUT/timing.log" 2>&1
cat "$OUT/timing.log"

# 3. SASS opcode counts of conv1's kernels (bf16 -> bf16): ldsm KS=6 mode 1 against stacked KS=8 mode 1
lab_sass
"$TORCH_PYTHON" tools/results/h200/conv_ldmatrix/sass_counts.py \
  'ldsm conv1=fused_conv_ldsm_kernel,8LdsmW5N5E,Li6ELi1E,BF16' \
  'stk conv1=fused_conv_stacked_kernel,11StackedW5N5E,Li8ELi1E,BF16' > "$OUT/sass_counts.txt" 2>&1
cat "$OUT/sass_counts.txt"

# 4. sanitizers on the small validation cases (n <= 7), both element widths, prefetch and global staging paths
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 "$LAB" --check-only --max-batch 7 --filter "$NEW" \
  > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$?"; tail -3 "$OUT/memcheck.log"
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 "$LAB" --check-only --max-batch 7 \
  --filter "ldsm_bf16 ldsm_w5_n5_px3200 bf16->bf16|ldsm_f16 ldsm_w5_n5_px1600 f32->f32" > "$OUT/racecheck.log" 2>&1
echo "racecheck rc=$?"; tail -3 "$OUT/racecheck.log"

# 5. ncu: warp states of both conv1 kernels at batch 10000 (one launch after the warm-ups)
for k in "ldsm_bf16 ldsm_w5_n5_px3200 bf16->bf16:fused_conv_ldsm_kernel" "$OLD bf16->bf16:fused_conv_stacked_kernel"; do
  f=${k%%:*}; kn=${k##*:}
  timeout 90 ncu --clock-control none --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section LaunchStats -k "regex:$kn" --launch-skip 5 --launch-count 1 \
    "$LAB" --no-validate --batch 10000 --filter "$f" 2>&1 | grep -vE "^(ldsm|stk|variant)" 
done > "$OUT/ncu.txt" 2>&1
grep -E "Stall|Issued Warp|Eligible|Active Warps|Achieved Occ|Registers|Shared Memory Config|Block Limit" "$OUT/ncu.txt" | head -60
