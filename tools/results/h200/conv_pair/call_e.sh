#!/usr/bin/env bash
# Fifth run: the fused convolution's kernel families split into modules of their own (fused_conv_poolm_cuda.cu,
# fused_conv_shared_rows_cuda.cu, fused_conv_stacked_cuda.cu beside fused_conv_cuda.cu): the GPU tests, compare
# against the CPU, each module's lazy load cost, the main job phase by phase (fixed fp16 and auto), and the conv
# net's bench with PyTorch in the same call.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
L=.device/lab
cp tools/results/h200/conv_pair/mj_parse.py $R/mj_parse.py
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  mj() {  # TAG PRECISION
    /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto \
      --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
      --output $R/probs_$1.npy --top-k 3 --json --precision $2 > $R/mj_$1.log 2>&1
    echo "exit $?: $($TORCH_PYTHON $R/mj_parse.py $R/mj_$1.log $1)"
  }
  mj fp16_first fp16
  for i in 1 2 3; do mj fp16_$i fp16; done
  for i in 1 2 3; do mj auto_$i auto; done
  mkdir -p /tmp/cubins && (cd /tmp/cubins && cuobjdump -xelf all $OLDPWD/.device/build/lib/libinferengine.so > /dev/null)
  CUDA_MODULE_LOADING=LAZY $L/module_probe /tmp/cubins/*.cubin > $R/module_probe_lazy.log 2>&1
  echo "lazy probe exit $?"; sort -k7 -g -r $R/module_probe_lazy.log | head -8
  $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
  echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
  grep -B3 -A12 "ERROR" $R/gpu_tests.log | grep -v "MESSAGE" | head -30
  compare_forms convnet "bf16 fp16"
  bench_convnet_16bit 1
  $TORCH_PYTHON tools/torch_bench.py --out-dir $R --batches-convnet 1,128,1000,10000 --batches-ssa 1 > $R/torch_bench.log 2>&1
  echo "torch exit $?"; grep -E "convnet.*samples/s" $R/torch_bench.log
  for i in 4 5; do mj fp16_$i fp16; done
}
timeout 590 bash -c "$(declare -f work compare_forms bench_convnet_16bit); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_e.log
cd $OUT && find r -name "*.npy" -delete && tar czf r.tgz r && rm -rf r
