#!/usr/bin/env bash
# Where the instructions go: the per-line profile and the SASS of 512 x 1 at 8192.
source tools/results/h200/row_ffma/common.sh
build_lab /tmp/lab > "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
ROW_FFMA_BATCHES=8192 PYTHON=$TORCH_PYTHON LAB_BIN=/tmp/lab timeout 200 bash tests/kernels/profile_lines.sh \
  tests/kernels/row_ffma_lab.cu row_ffma_kernelILi512 --no-validate --filter 512x1 > "$R/lines_512x1.txt" 2>&1
head -70 "$R/lines_512x1.txt" | cut -c1-150
cuobjdump -sass -fun '_ZN2ie2sr2rf15row_ffma_kernelILi512ELi1ELi3ELi4ELi1EEEvNS1_4ArgsE' /tmp/lab > "$R/sass_512.txt" 2>&1
cd "$OUT" && tar czf r.tgz r && rm -rf r
