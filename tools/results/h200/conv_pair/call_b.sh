#!/usr/bin/env bash
# Second run: where the main job's setup and exit go, phase by phase (infer's JSON now times the sessions, the
# plans, the first and second runs, the staging, the results, the engine's teardown), on an empty tuning cache
# and warm, and with modules loaded eagerly; then the pair kernel's and the shared-rows kernel's instructions per
# source line at batch 10000 (ncu, tests/kernels/profile_lines.sh).
source tools/results/h200/device_env.sh
L=.device/lab
cp tools/results/h200/conv_pair/mj_parse.py $R/mj_parse.py
work() {
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader
  mj() {  # TAG PRECISION [ENV...]
    local tag=$1 prec=$2; shift 2
    env "$@" /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto \
      --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
      --output $R/probs_$tag.npy --top-k 3 --json --precision $prec ${EXTRA:-} > $R/mj_$tag.log 2>&1
    $TORCH_PYTHON $R/mj_parse.py "$R/mj_$tag.log" "$tag"
  }
  rm -rf ~/.cache/inferengine
  mj fp16_first fp16 X=1
  for i in 1 2 3; do mj fp16_w$i fp16 X=1; done
  mj auto_1 auto X=1; mj auto_2 auto X=1
  mj eager fp16 CUDA_MODULE_LOADING=EAGER
  for i in 1 2; do /usr/bin/time -f "ctx_probe wall %e s" $L/ctx_probe; done 2>&1
  LAB_BIN=$L/conv_pair_lab timeout 150 bash tests/kernels/profile_lines.sh tests/kernels/conv_pair_lab.cu \
    6PairW4ENS0_6Word16I13__nv_bfloat16EEfS4_Li4ELi4ELi5E --no-validate --filter "pair_w4 bulk f32" > $R/lines_pair.txt 2>&1
  echo "lines pair exit $?"; head -45 $R/lines_pair.txt
  LAB_BIN=$L/conv_pair_lab timeout 150 bash tests/kernels/profile_lines.sh tests/kernels/conv_pair_lab.cu \
    fused_conv_stacked_kernelINS0_11StackedW4N4E --no-validate --filter "separate" > $R/lines_shr.txt 2>&1
  echo "lines shr exit $?"; head -45 $R/lines_shr.txt
}
timeout 560 bash -c "$(declare -f work); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_b.log
cd $OUT && find r -name "*.npy" -delete && tar czf r.tgz r && rm -rf r
