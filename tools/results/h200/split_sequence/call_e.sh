#!/usr/bin/env bash
# Fifth call (one H200): the split products' stores by whole rows through shared memory (linear_split.cuh kStage),
# the latent kernels from one full wave of their CTAs: every GPU test, the fp32 tests under memcheck, compare against
# the CPU in fp32 (at 40000 the latent kernels), the fp32 bench as shipped, with the stores from the fragments
# (IE_SPLIT_STAGE=off), with the latent kernels at every batch (IE_SPLIT_LATENT=split) and per step, PyTorch eager in
# the same call, each launch timed by ncu at 65536 with and without the staged stores. Results in r.tgz.
source tools/results/h200/device_env.sh
timeout 300 $B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -E "ERROR|FAILED" $R/gpu_tests.log | head -20
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_tests --no-version \
  -tc="GPU: in strict fp32*" > $R/gpu_tests_memcheck.log 2>&1
echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $R/gpu_tests_memcheck.log | tail -1) $(grep -E '^\[doctest\] test cases' $R/gpu_tests_memcheck.log)"
for form in legacy dynamo; do
  for batch in 7 128 10001 40000; do
    timeout 60 $B/compare --config configs/ssa.yaml --form $form --a cpu --b cuda --precision fp32 --batch $batch \
      --seed 7 > $R/compare_ssa_${form}_fp32_$batch.log 2>&1
    echo "compare $form fp32 $batch exit $?: $(grep -E '^(PASS|FAIL)' $R/compare_ssa_${form}_fp32_$batch.log | head -1) $(grep -oE 'rel L2 [0-9.e+-]+' $R/compare_ssa_${form}_fp32_$batch.log | tr '\n' ' ')"
  done
done
$B/inspect weights/ssa.onnx --batch 4096 --backend cuda --precision fp32 > $R/inspect_ssa_fp32_4096.txt 2>&1
echo "inspect exit $?: $(grep -E 'steps on' $R/inspect_ssa_fp32_4096.txt)"
batches=1,32,128,512,4096,16384,32768,65536
timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches $batches \
  --duration-ms 150 --json $R/bench_ssa_fp32.json > $R/bench_ssa_fp32.log 2>&1
echo "bench fp32 exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
IE_SPLIT_STAGE=off timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
  --batches $batches --duration-ms 150 --json $R/bench_ssa_fp32_fragment_stores.json > $R/bench_ssa_fp32_fragment_stores.log 2>&1
echo "bench fp32 fragment stores exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32_fragment_stores.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
IE_SPLIT_LATENT=split timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
  --batches $batches --duration-ms 150 --json $R/bench_ssa_fp32_split_latent.json > $R/bench_ssa_fp32_split_latent.log 2>&1
echo "bench fp32 split latent exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32_split_latent.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
IE_DISABLE_FUSIONS=sample_resident timeout 100 $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 \
  --batches $batches --duration-ms 150 --json $R/bench_ssa_fp32_per_step.json > $R/bench_ssa_fp32_per_step.log 2>&1
echo "bench fp32 per step exit $?: $(grep -E "^ +[0-9]+ \|" $R/bench_ssa_fp32_per_step.log | cut -c1-24 | tr -s ' ' | tr '\n' ';')"
timeout 150 "$TORCH_PYTHON" tools/torch_bench.py --out-dir $R --batches-convnet 1 --batches-ssa 1,32,512,4096,65536 \
  > $R/torch_bench.log 2>&1
echo "torch_bench exit $?"; grep -E "ssa +torch-eager-fp32" $R/torch_bench.log | head -6
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 30 --launch-count 70 \
  --print-summary per-kernel $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 \
  --duration-ms 50 > $R/ncu_sequence_65536.txt 2>&1
echo "ncu exit $?"; grep -E "^  [^ ].*\(|gpu__time_duration.sum" $R/ncu_sequence_65536.txt | \
  sed -E 's/^  (void )?([a-z_:]*[a-z_]+)(<[^>]*>)?.*Invocations ([0-9]+).*/\2\3 x\4/; s/ +gpu__time_duration.sum +us//' | paste - - | head -20
IE_SPLIT_STAGE=off timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 30 --launch-count 70 \
  --print-summary per-kernel $B/bench --config configs/ssa.yaml --paths cuda --precision fp32 --batches 65536 \
  --duration-ms 50 > $R/ncu_sequence_65536_fragment_stores.txt 2>&1
echo "ncu exit $?"; grep -E "^  [^ ].*\(|gpu__time_duration.sum" $R/ncu_sequence_65536_fragment_stores.txt | \
  sed -E 's/^  (void )?([a-z_:]*[a-z_]+)(<[^>]*>)?.*Invocations ([0-9]+).*/\2\3 x\4/; s/ +gpu__time_duration.sum +us//' | paste - - | head -20
cd $OUT && tar czf r.tgz r && rm -rf r
