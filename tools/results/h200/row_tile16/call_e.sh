#!/usr/bin/env bash
# Session call 5 (one GPU): what the SSA's batch-1 latency is made of. The plan at batch 1 (inspect), the kernels'
# own durations under ncu while bench replays the graph, bench's compute p50 beside them, and the lab's row-tile
# shapes at batch 1 and 32, a 4-warp CTA (41) among them.
source tools/results/h200/device_env.sh
work() {
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$B/inspect --config configs/ssa.yaml --backend cuda --precision bf16 --batch 1 > $R/inspect_ssa_bf16_1.txt 2>&1
echo "inspect exit $?"; grep -E "steps on|^ *[0-9]+ " $R/inspect_ssa_bf16_1.txt | head -12
$B/bench --config configs/ssa.yaml --paths cuda --precision bf16 --batches 1,32 --duration-ms 800 > $R/bench_1_32.log 2>&1
echo "bench exit $?"; grep -E '^ +[0-9]+ \|' $R/bench_1_32.log
$B/bench --config configs/ssa.yaml --paths cuda --precision bf16 --batches 1 --profile > $R/profile_1.txt 2>&1
echo "profile exit $?"; grep -E "^[0-9]+ |total" $R/profile_1.txt | head
ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip 200 --launch-count 20 \
  $B/bench --config configs/ssa.yaml --paths cuda --precision bf16 --batches 1 --duration-ms 300 > $R/ncu_1.txt 2>&1
echo "ncu exit $?"; grep -E "row_tile|sample_resident|gpu__time_duration|  [a-z_]+.*\(" $R/ncu_1.txt | head -24
.device/srlab/sr_lab_gelu1 rttime > $R/lab_rttime.log 2>&1
echo "lab exit $?"; grep -E "rowtile bf16 batch +(1|32|512) " $R/lab_rttime.log
}
timeout 400 bash -c "$(declare -f work); B=$B R=$R; work" 2>&1 | tee $R/call_e.log
cd $OUT && tar czf r.tgz r && rm -rf r
# What came of it: inspect takes --model, not --config (exit 2, no plan printed); ncu's default --cache-control all
# empties L2 before each profiled launch, so the 37 us it gives per kernel include the weights' reads from HBM and
# are not the replay's time. The lab's shapes at batch 1, 32 and 512 (41 among them) are the figures used.
