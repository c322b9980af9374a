#!/usr/bin/env bash
# Call 3 of the ldmatrix experiment: why the ldsm conv1 kernel's SASS has 65 ENDCOLLECTIVE / 69 WARPSYNC (the
# epilogue's 65 shuffles wrapped in divergence handling; the stacked kernel has none), and two flavors of its MMA
# loop against it and the stacked baseline in one process: flat (every k-step pair one x4, no early exit) and
# flat + __syncwarp() before the epilogue. Validation of the flavors on every case, timings (10000 twice, 1),
# SASS counts and the context of the first ENDCOLLECTIVEs, ncu executed instructions, memcheck of the flavors.
# Run from the repository root on the device machine: bash tools/results/h200/conv_ldmatrix/call3.sh
set -u
OUT=${OUT:-/tmp/ldsm_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
LAB=.ldsm_bin/lab
"$LAB" --bogus > /dev/null 2>&1
if [ $? -ne 2 ]; then
  echo "prebuilt lab does not run here: building"
  mkdir -p /tmp/labbuild
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -Xptxas -v -I. \
    tests/kernels/fused_conv_lab.cu -o /tmp/labbuild/lab > /tmp/labbuild/build.log 2>&1 || exit 1
  LAB=/tmp/labbuild/lab
fi
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
cuobjdump -sass "$LAB" > /tmp/lab.sass 2>/dev/null
python3 - > "$OUT/sass.txt" 2>&1 <<'EOF'
import re, collections
txt = open('/tmp/lab.sass').read()
funcs = re.split(r'\n\s*Function : ', txt)
bf = 'Word16I13__nv_bfloat16EES4_S4_'
def find(pred):
    for f in funcs[1:]:
        if pred(f.split('\n', 1)[0]): return f
def stats(tag, f):
    ops = collections.Counter()
    for m in re.finditer(r'/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)', f): ops[m.group(1)] += 1
    print(tag, f.split('\n', 1)[0][:120]); print('  total', sum(ops.values()), dict(ops.most_common(28)))
k0 = find(lambda n: 'ldsm_kernel' in n and '8LdsmW5N5E' in n and 'Li6ELi1E' in n and bf in n)
k1 = find(lambda n: 'ldsm_kernel' in n and '12LdsmW5N5FlatE' in n and 'Li6ELi1E' in n and bf in n)
k2 = find(lambda n: 'ldsm_kernel' in n and '16LdsmW5N5FlatSyncE' in n and 'Li6ELi1E' in n and bf in n)
ks = find(lambda n: 'stacked_kernel' in n and '11StackedW5N5E' in n and 'Li8ELi1ELi0' in n and bf in n)
for tag, f in (('ldsm', k0), ('ldsm flat', k1), ('ldsm flat_sync', k2), ('stk', ks)):
    if f: stats(tag, f)
    else: print(tag, 'not found')
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
