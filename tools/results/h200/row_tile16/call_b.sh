#!/usr/bin/env bash
# Session call 2 (two GPUs): the GPU tests and the sample-resident tests under memcheck and racecheck; the row-tile
# kernel's GELU A/B in the lab (sr_lab_gelu1: tanh form in bf16, the shipped default; sr_lab_gelu0: gelu_fast),
# alternating, two rounds; bench of the SSA (bf16 1 .. 65536, fp16 65536) with PyTorch in the same call; compare
# cpu against cuda in bf16/fp16 for both exports; the host links' ceiling (host_link_lab) beside the streamed
# SSA at 65536 on device 0 and on devices 0,1.
source tools/results/h200/device_env.sh
source tools/results/h200/sr_checks.sh
L=.device/srlab
work() {
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,clocks.max.sm --format=csv,noheader
$L/host_link_lab --csv $R/host_link.csv > $R/host_link.log 2>&1; echo "host_link exit $?"; cat $R/host_link.log
$L/host_link_lab --out 46 > $R/host_link_out16.log 2>&1; echo "host_link 16-bit out exit $?"; grep -A3 "at once" $R/host_link_out16.log
for spec in "ssa 65536 bf16" "ssa 65536 fp32"; do
  set -- $spec
  for devs in 0 0,1; do
    $B/bench --config configs/$1.yaml --paths cuda --precision $3 --batches $2 --in-flight 3 --devices $devs \
      --duration-ms 1500 --json $R/stream_$1_$3_dev${devs/,/_}.json > $R/stream_$1_$3_dev${devs/,/_}.log 2>&1
    echo "stream $spec devices $devs exit $?: $(grep -E '^ +[0-9]+ \|' $R/stream_$1_$3_dev${devs/,/_}.log)"
  done
done
$B/gpu_tests --no-version > $R/gpu_tests.log 2>&1
echo "gpu_tests exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' $R/gpu_tests.log | tr '\n' ' ')"
grep -B3 -A12 "ERROR" $R/gpu_tests.log | head -40
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 $B/gpu_tests --no-version -tc='GPU: the SSA runs as one sample-resident*' \
    > $R/gpu_tests_sr_$tool.log 2>&1
  echo "$tool (sample-resident tests) exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/gpu_tests_sr_$tool.log | tail -1)"
done
for round in 1 2; do
  for v in 1 0; do
    $L/sr_lab_gelu$v rttime > $R/lab_rttime_gelu${v}_$round.log 2>&1
    echo "lab gelu$v round $round exit $?: $(grep -E 'rowtile (bf16|fp16) batch +(1|32|4096|65536) cfg +(82|121|161) ' $R/lab_rttime_gelu${v}_$round.log | sed 's/ smem.*: */ /;s/ms.*/ms/' | tr -s ' ' | tr '\n' ';')"
  done
done
$L/sr_lab_gelu1 rt > $R/lab_rt_gelu1_checks.log 2>&1; echo "lab checks (gelu1) exit $?: $(grep -E 'checks passed|FAILED' $R/lab_rt_gelu1_checks.log)"
for p in bf16 fp16; do
  $B/bench --config configs/ssa.yaml --paths cuda --precision $p --batches 1,32,512,4096,65536 --duration-ms 600 \
    --json $R/bench_ssa_$p.json > $R/bench_ssa_$p.log 2>&1
  echo "bench ssa $p exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_ssa_$p.log
done
"$TORCH_PYTHON" tools/torch_bench.py --out-dir $R --batches-convnet 1 --batches-ssa 1,32,512,4096,65536 \
  > $R/torch_bench.log 2>&1; echo "torch_bench exit $?"; grep -E "ssa" $R/torch_bench.log | head -20
compare_ssa_16bit
}
timeout 580 bash -c "$(declare -f work compare_ssa_16bit); B=$B R=$R L=$L; work" 2>&1 | tee $R/call_b.log
cd $OUT && tar czf r.tgz r && rm -rf r
