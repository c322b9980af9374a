#!/usr/bin/env bash
# Fourth run: the pair's GPU tests after the test's fix; each kernel module's load cost under lazy loading (module,
# first kernel, the rest) and eager; the conv net's fp16 plan at batch 1000 (which modules the main job touches).
source tools/results/h200/device_env.sh
L=.device/lab
work() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  $B/gpu_tests --no-version -tc='cuda FusedConvPair*' > $R/gpu_tests_pair.log 2>&1
  echo "pair tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests_pair.log | tr '\n' ' ')"
  grep -B3 -A8 ERROR $R/gpu_tests_pair.log | head -30
  mkdir -p /tmp/cubins && (cd /tmp/cubins && cuobjdump -xelf all $OLDPWD/.device/build/lib/libinferengine.so > /dev/null)
  CUDA_MODULE_LOADING=LAZY $L/module_probe /tmp/cubins/*.cubin > $R/module_probe_lazy.log 2>&1
  echo "lazy probe exit $?"; sort -k7 -g -r $R/module_probe_lazy.log | head -12
  CUDA_MODULE_LOADING=EAGER $L/module_probe /tmp/cubins/*.cubin > $R/module_probe_eager.log 2>&1
  echo "eager probe exit $?"; sort -k7 -g -r $R/module_probe_eager.log | head -6
  for p in fp16 bf16; do
    $B/inspect weights/convnet.onnx --backend cuda --precision $p -b 1000 > $R/inspect_$p.txt 2>&1
    echo "inspect $p exit $?"; grep -E "^ *[0-9]+ " $R/inspect_$p.txt | head -12
  done
}
timeout 500 bash -c "$(declare -f work); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_d.log
cd $OUT && tar czf r.tgz r && rm -rf r
