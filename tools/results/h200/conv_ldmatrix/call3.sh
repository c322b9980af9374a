#!/usr/bin/env bash
# Call 3 of the ldmatrix experiment: why the ldsm conv1 kernel's SASS has 65 ENDCOLLECTIVE / 69 WARPSYNC (the
# epilogue's 65 shuffles wrapped in divergence handling; the stacked kernel has none), and two flavors of its MMA
# loop against it and the stacked baseline in one process: flat (every k-step pair one x4, no early exit) and
# flat + __syncwarp() before the epilogue. Validation of the flavors on every case, timings (10000 twice, 1),
# SASS counts and the context of the first ENDCOLLECTIVEs, ncu executed instructions, memcheck of the flavors.
# Run from the repository root on the device machine: bash tools/results/h200/conv_ldmatrix/call3.sh
source tools/results/h200/conv_ldmatrix/common.sh
F="ldsm_bf16 ldsm_w5_n5_px3200|stk_bf16 stk_w5_n5_px3200 bf16->bf16"
timeout 150 "$LAB" --check-only --filter "$F" > "$OUT/validate.log" 2>&1
echo "validate rc=$?"; grep -E "^FAIL|validation:" "$OUT/validate.log" | tail -3; grep -c "^PASS  ldsm" "$OUT/validate.log"
{
  for b in 10000 10000 1; do
    echo "== batch $b =="
    timeout 100 "$LAB" --no-validate --batch $b --filter "$F" | sed -n '/^variant/,$p' | grep -v conv2
  done
} > "$OUT/timing.log" 2>&1
cat "$OUT/timing.log"
lab_sass
"$TORCH_PYTHON" - > "$OUT/sass.txt" 2>&1 <<'EOF'
import sys
sys.path.insert(0, 'tools/results/h200/conv_ldmatrix')
from sass_counts import BF16, find, functions, report
fs = functions()
k0 = find(fs, 'ldsm_kernel', '8LdsmW5N5E', 'Li6ELi1E', BF16)
k1 = find(fs, 'ldsm_kernel', '12LdsmW5N5FlatE', 'Li6ELi1E', BF16)
k2 = find(fs, 'ldsm_kernel', '16LdsmW5N5FlatSyncE', 'Li6ELi1E', BF16)
ks = find(fs, 'stacked_kernel', '11StackedW5N5E', 'Li8ELi1ELi0', BF16)
for tag, f in (('ldsm', k0), ('ldsm flat', k1), ('ldsm flat_sync', k2), ('stk', ks)):
    report(tag, f, top=28, name_chars=120)
if k0:
    lines = k0.split('\n'); n = 0
    for i, l in enumerate(lines):
        if 'ENDCOLLECTIVE' in l or ('WARPSYNC' in l and n < 1):
            print('---- context', i); print('\n'.join(x.strip()[:110] for x in lines[max(0, i - 24):i + 4])); n += 1
            if n >= 3: break
EOF
cat "$OUT/sass.txt" | head -12
for k in "ldsm_bf16 ldsm_w5_n5_px3200 bf16->bf16:fused_conv_ldsm_kernel" "ldsm_bf16 ldsm_w5_n5_px3200_flat bf16:fused_conv_ldsm_kernel" "ldsm_bf16 ldsm_w5_n5_px3200_flat_sync:fused_conv_ldsm_kernel" "stk_bf16 stk_w5_n5_px3200 bf16->bf16:fused_conv_stacked_kernel"; do
  f=${k%%:*}; kn=${k##*:}
  echo "== $f"
  timeout 60 ncu --clock-control none --metrics smsp__inst_executed.sum,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
    -k "regex:$kn" --launch-skip 5 --launch-count 1 "$LAB" --no-validate --batch 10000 --filter "$f" 2>&1 | grep -E "smsp__|gpu__"
done > "$OUT/ncu.txt" 2>&1
cat "$OUT/ncu.txt"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 "$LAB" --check-only --max-batch 7 \
  --filter "ldsm_w5_n5_px3200_flat" > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$?"; tail -2 "$OUT/memcheck.log"
