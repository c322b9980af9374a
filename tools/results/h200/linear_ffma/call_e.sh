#!/usr/bin/env bash
# call_b.sh again on the build whose FFMA Linear took GELU products from 5120 rows (every GPU test, compare in fp32,
# the SSA's fp32 bench against IE_LINEAR_FP32=cublas): the plan was 2% slower at batch 512, so 32768 rows it is.
exec bash tools/results/h200/linear_ffma/call_b.sh
