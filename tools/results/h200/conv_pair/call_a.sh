#!/usr/bin/env bash
# The conv pair kernel's first run (one H200): its lab (every check, then conv1 + conv2 fused against the two
# kernels apart, same run), the pool-on-M lab's bulk timings after the refactor that shares its MMA pass, the
# pair lab's small checks under memcheck, racecheck and synccheck, ncu on the pair at batch 10000; then where the
# main job's time goes outside the run (context start and teardown, --help, module loading, graphs, sessions).
source tools/results/h200/device_env.sh
L=.device/lab
cat > $R/mj_parse.py <<'PY'
import json,sys
txt=open(sys.argv[1]).read().splitlines()
j=[json.loads(l) for l in txt if l.startswith('{')]
w=[l for l in txt if l.startswith('wall')]
if not j: print(sys.argv[2],'no json',txt[-3:]); sys.exit()
j=j[0]; p=j['setup_phases_s']
print(f"{sys.argv[2]:>14}: {w[0] if w else ''} main {j['main_s']:.3f} setup {j['setup_s']:.3f} (device {p['device_start']:.3f} load {p['read_and_load']:.3f} plan+warm {p['plan_and_warm_up']:.3f}) run {j['run_s']:.4f} write {j['write_s']:.3f} in_flight {j['in_flight']}")
PY
work() {
  nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader
  echo "== pair lab"; PAIR_MAX_BATCH=1000 $L/conv_pair_lab --csv $R/pair.csv > $R/pair_lab.log 2>&1; echo "exit $?"
  grep -E "FAIL|validation|declines" $R/pair_lab.log | head -20; sed -n '/^timings/,$p' $R/pair_lab.log
  echo "== poolm lab (bulk, timings only)"; $L/conv_poolm_lab --no-validate --filter bulk > $R/poolm_lab.log 2>&1
  sed -n '/^timings/,$p' $R/poolm_lab.log
  for tool in memcheck racecheck synccheck; do
    PAIR_MAX_BATCH=7 timeout 90 compute-sanitizer --tool $tool $L/conv_pair_lab --check-only > $R/san_$tool.log 2>&1
    echo "sanitizer $tool exit $?: $(grep -E 'ERROR SUMMARY|validation' $R/san_$tool.log | tr '\n' ' ')"
  done
  timeout 120 ncu --cache-control none --clock-control none -k regex:pair_kernel -c 1 \
    --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section LaunchStats --section InstructionStats --section MemoryWorkloadAnalysis \
    $L/conv_pair_lab --no-validate --filter "pair_w4 bulk f32" > $R/ncu_pair_w4.txt 2>&1
  echo "ncu exit $?"; grep -E "Duration|Registers Per|Achieved Occupancy|Executed Instructions  |Eligible Warps|No Eligible|Issued Warp" $R/ncu_pair_w4.txt | head -12
  echo "== setup probes"
  for i in 1 2; do /usr/bin/time -f "ctx_probe wall %e s" $L/ctx_probe; done 2>&1
  for i in 1 2; do /usr/bin/time -f "infer --help wall %e s" $B/infer --help > /dev/null; done 2>&1
  data=$D
  mj() {  # TAG ENV... -- ARGS
    local tag=$1; shift
    env "$@" /usr/bin/time -f "wall %e s" $B/infer --config configs/convnet.yaml --backend auto \
      --input $data/t10k-images-idx3-ubyte.gz --labels $data/t10k-labels-idx1-ubyte.gz --min-accuracy 0.89 \
      --output $R/probs_$tag.npy --top-k 3 --json --precision fp16 ${EXTRA:-} > $R/mj_$tag.log 2>&1
    $TORCH_PYTHON $R/mj_parse.py "$R/mj_$tag.log" "$tag"
  }
  mj first X=1
  mj warm1 X=1; mj warm2 X=1
  mj eager CUDA_MODULE_LOADING=EAGER
  EXTRA=--no-graph mj nograph X=1
  EXTRA="--in-flight 1" mj inflight1 X=1
  EXTRA="--batch-size 10000" mj b10000 X=1
  IE_TUNE=off mj tuneoff X=1
}
timeout 560 bash -c "$(declare -f work); B=$B R=$R D=$D L=$L; work" 2>&1 | tee $R/call_a.log
cd $OUT && find r -name "*.npy" -delete && tar czf r.tgz r && rm -rf r
