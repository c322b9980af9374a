#!/usr/bin/env bash
# Fourth call (two H200s): infer now lets the driver start device 0 alone when no --devices is given
# (tools/common/cli.h, start_only_the_default_device). The README's main job plain (the default) against
# `--devices 0` (the same GPU, both started), alternating, and the pipeline's GPU tests on both devices.
source tools/results/h200/device_env.sh
cp tools/results/h200/conv_pair/mj_parse.py $OUT/
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mj() {  # TAG ARGS...: the README's main job
  local tag=$1; shift
  /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto \
    --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
    --output $OUT/probs.npy --top-k 3 --json --precision auto "$@" > $OUT/mj_$tag.log 2>&1
  echo "exit $?: $($TORCH_PYTHON $OUT/mj_parse.py $OUT/mj_$tag.log $tag)"
}
for i in 1 2 3 4; do mj default_$i; mj devices0_$i --devices 0; done
rm -f $OUT/probs*
$B/gpu_tests --no-version -tc='*pipeline*' > $OUT/gpu_tests_pipeline.log 2>&1
echo "pipeline GPU tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $OUT/gpu_tests_pipeline.log | tr '\n' ' ')"
