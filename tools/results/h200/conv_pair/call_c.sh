#!/usr/bin/env bash
# Third run: the engine with ie.FusedConvPair (rule conv_pair, tuned against the two kernels apart) and infer's
# exit without the context teardown: the GPU tests, the pair's tests under memcheck, racecheck and synccheck, compare
# against the CPU for both exports in bf16 and fp16, the conv net's bench (two rounds; the tuner's records kept),
# PyTorch in the same call, the main job phase by phase, and each kernel module's load time (driver API, eager).
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
L=.device/lab
cp tools/results/h200/conv_pair/mj_parse.py $R/mj_parse.py
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  sr_gpu_checks 'cuda FusedConvPair: every configuration*,cuda FusedConvPair keeps*' pair
  compare_forms convnet "bf16 fp16"
  bench_convnet_16bit 2
  grep -h '"fused_conv' ~/.cache/inferengine/tuning-*.json | grep -o '"shape":"[^"]*","value":{[^}]*}' > $R/tuning_records.txt
  cut -c1-250 $R/tuning_records.txt
  $TORCH_PYTHON tools/torch_bench.py --out-dir $R --batches-convnet 1,128,1000,10000 --batches-ssa 1 > $R/torch_bench.log 2>&1
  echo "torch exit $?"; grep -E "convnet.*samples/s" $R/torch_bench.log
  mj() {  # TAG PRECISION
    /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto \
      --input $D/t10k-images-idx3-ubyte.gz --labels $D/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
      --output $R/probs_$1.npy --top-k 3 --json --precision $2 > $R/mj_$1.log 2>&1
    echo "exit $?: $($TORCH_PYTHON $R/mj_parse.py $R/mj_$1.log $1)"
  }
  for i in 1 2 3; do mj fp16_$i fp16; done
  for i in 1 2 3; do mj auto_$i auto; done
  mkdir -p /tmp/cubins && (cd /tmp/cubins && cuobjdump -xelf all $OLDPWD/.device/build/lib/libinferengine.so > /dev/null)
  CUDA_MODULE_LOADING=EAGER $L/module_probe /tmp/cubins/*.cubin > $R/module_probe.log 2>&1
  echo "module probe exit $?"; sort -k7 -n -r $R/module_probe.log | head -14
}
timeout 590 bash -c "$(declare -f work sr_gpu_checks compare_forms bench_convnet_16bit); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_c.log
cd $OUT && find r -name "*.npy" -delete && tar czf r.tgz r && rm -rf r
