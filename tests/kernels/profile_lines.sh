#!/usr/bin/env bash
# Executed instructions and stall samples of one kernel per CUDA source line, on the GPU machine: ncu's SASS-level
# counts of one launch aligned with the line table that `nvdisasm -g` prints for the same binary. The tool that
# showed where the sample-resident kernel's time went (address arithmetic and GELU, not the MMAs).
#
#   tests/kernels/profile_lines.sh LAB.cu KERNEL_SUBSTRING [LAB ARGUMENTS...]
#   tests/kernels/profile_lines.sh tests/kernels/sample_resident_lab.cu sample_resident_kernelI13__nv_bfloat16 one
#
# The lab is built with -lineinfo (plus the sources named in its "// lab-sources:" line; LAB_BIN=PATH: a lab
# binary already built so); ncu profiles the first
# launch of a kernel whose mangled name contains KERNEL_SUBSTRING; the top 60 lines are printed. NCU_ARGS: more ncu
# options (e.g. --warp-sampling-interval 0 for the few samples of a batch-1 launch).
set -euo pipefail
src=${1:?usage: profile_lines.sh LAB.cu KERNEL_SUBSTRING [LAB ARGUMENTS...]}
kernel=${2:?usage: profile_lines.sh LAB.cu KERNEL_SUBSTRING [LAB ARGUMENTS...]}
shift 2
work=$(mktemp -d)
extra=$(sed -n 's|^// lab-sources: ||p' "$src")
if [[ -n ${LAB_BIN:-} ]]; then  # a lab already built from LAB.cu with -lineinfo (saves its build)
  cp "$LAB_BIN" "$work/lab"
else
  nvcc -O3 -lineinfo -std=c++17 -gencode arch=compute_90a,code=sm_90a -I. "$src" $extra -o "$work/lab"
fi
ncu --clock-control none ${NCU_ARGS:-} --kernel-name-base mangled -k "regex:$kernel" -c 1 --section SourceCounters -o "$work/report" "$work/lab" "$@" > /dev/null
ncu --import "$work/report.ncu-rep" --page source --csv --print-source sass > "$work/sass.csv"
(cd "$work" && cuobjdump -xelf all lab > /dev/null && for f in *.cubin; do nvdisasm -g -c "$f"; done > all.sass)
# The standard library only: the project's interpreter (tools/python_env.sh) unless PYTHON=... chooses another.
source "$(dirname "$0")/../../tools/python_env.sh"
REPO=$(pwd) KERNEL=$kernel "${PYTHON:-$IE_PYTHON}" - "$work" <<'PY'
import collections, csv, os, re, sys
work = sys.argv[1]
rows = list(csv.reader(open(os.path.join(work, "sass.csv"))))
head = next(i for i, r in enumerate(rows) if "Instructions Executed" in r)
cols = rows[head]
ie, ws = cols.index("Instructions Executed"), cols.index("Warp Stall Sampling (All Samples)")
sass = [r for r in rows[head + 1:] if len(r) > ie]
lines, fn, line = [], None, None  # the source line of each instruction of the kernel, in address order
for text in open(os.path.join(work, "all.sass")):
    m = re.search(r"\.text\.(\S+?)[:,\"]", text)
    if m:
        fn = m.group(1)
    if not fn or os.environ["KERNEL"] not in fn:
        continue
    m = re.search(r'//## File "([^"]+)", line (\d+)', text)
    if m:
        line = (m.group(1), int(m.group(2)))
    elif re.match(r"\s+/\*[0-9a-f]{4,}\*/", text):
        lines.append(line)
if len(lines) != len(sass):
    sys.exit(f"the disassembly has {len(lines)} instructions, ncu {len(sass)}: not the same kernel")
executed, stalls = collections.Counter(), collections.Counter()
for where, r in zip(lines, sass):
    executed[where] += float(r[ie] or 0)
    stalls[where] += float(r[ws] or 0)
total_e, total_s = sum(executed.values()), sum(stalls.values()) or 1
print(f"{len(sass)} SASS instructions, {total_e:.0f} executed (warp level)")
for where, n in executed.most_common(60):
    text = ""
    if where and os.path.exists(where[0]):
        text = open(where[0]).read().split("\n")[where[1] - 1].strip()
    name = f"{os.path.relpath(where[0], os.environ['REPO'])}:{where[1]}" if where else "?"
    print(f"{100 * n / total_e:5.1f}% executed {100 * stalls[where] / total_s:5.1f}% stalls  {name}  {text[:90]}")
PY
rm -rf "$work"
