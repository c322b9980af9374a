#!/usr/bin/env bash
# One call on a GPU machine: the GPU tests, the same tests under compute-sanitizer (memcheck; the fused kernels'
# tests also under racecheck, synccheck and initcheck), the ONNX node tests on the CUDA reference path, `bench` on
# both models (with per-op profiles), the same workloads in PyTorch, and the kernel labs (built from the start in
# the background, run last).
# Every figure and log lands in OUT_DIR (a summary.txt plus results.tar.gz with everything).
#
#   bash tools/gpu_run.sh OUT_DIR [BUILD_DIR] [STAGES]
#     BUILD_DIR: default .device/build (tools/stage_device_build.sh)
#     STAGES: "all" (default) or a comma list of: tests, python, nodes, models, labs, bench, stream, torch
#     stream: the README's main job (--precision auto) and fixed modes, with /usr/bin/time; bench with 1-3 batches in
#     flight; on a machine with two GPUs also devices 0 against 0,1, the pipeline tests and the host links' ceiling
#     python: the DLPack GPU test, when BUILD_DIR has the Python package built for the GPU machine's PyTorch
#     interpreter (see the README's Python section) and PYTEST_PATH names a folder with pytest for it
#   BENCH_MODELS="convnet": the bench stage (tables and per-op profiles) for these models only (default both)
#   LABS, LAB_BIN, LAB_TIMEOUT: passed to tests/kernels/run_labs.sh (a subset of the labs; binaries built beforehand;
#     a time limit per lab)
#   LAB_ARGS: arguments for every lab (e.g. --no-validate: the timing tables alone, when a call's time is short)
set -uo pipefail
out=${1:?usage: gpu_run.sh OUT_DIR [BUILD_DIR] [STAGES]}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/.device/build}
stages=${3:-all}
want() { [[ $stages == all || ,$stages, == *,$1,* ]]; }
bench_models=${BENCH_MODELS:-convnet ssa}
benched() { [[ " $bench_models " == *" $1 "* ]]; }
mkdir -p "$out/logs"
cd "$root"
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PYTHONUNBUFFERED=1
# The GPU machine's Python with PyTorch (not the project's tools/python_env.sh, which serves the CPU-side tests).
torch_python=${TORCH_PYTHON:-/opt/torch/.venv/bin/python3}
summary=$out/summary.txt
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
stage() { say "=== [$(date +%H:%M:%S)] $*"; }

stage "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee -a "$summary"
say "git revision: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"

if want labs && [[ -x tests/kernels/run_labs.sh && -z ${LAB_BIN:-} ]]; then
  # Built from the start, in the background (nvcc on a few of the CPU cores; the GPU stages time with CUDA events),
  # and run last.
  LAB_BUILD_ONLY=1 bash tests/kernels/run_labs.sh "$out/labs" > "$out/logs/labs_build.log" 2>&1 &
  lab_build=$!
fi

if want tests; then
stage "GPU tests"
"$build/bin/gpu_tests" --no-version > "$out/logs/gpu_tests.log" 2>&1; rc=$?
say "gpu_tests exit $rc: $(grep -E '^\[doctest\] (test cases|assertions)' "$out/logs/gpu_tests.log" | tr '\n' ' ')"

stage "GPU tests under compute-sanitizer memcheck"
compute-sanitizer --tool memcheck --error-exitcode 9 "$build/bin/gpu_tests" --no-version \
  > "$out/logs/gpu_tests_memcheck.log" 2>&1; rc=$?
say "memcheck exit $rc: $(grep -E 'ERROR SUMMARY' "$out/logs/gpu_tests_memcheck.log" | tail -1)"

stage "fused kernels' GPU tests under compute-sanitizer racecheck, synccheck and initcheck"
for tool in racecheck synccheck initcheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$build/bin/gpu_tests" --no-version \
    -tc='cuda FusedConv (fused set) matches*,cuda FusedConv keeps NaN*,cuda FusedConv declines*,cuda FusedConv: every shared-rows*,cuda LayerNorm*,cuda LayerNormalization*,cuda Linear*,cuda Attention*,GPU: the SSA runs as one sample-resident*,GPU: classifier heads run as one sample-resident*,GPU: in strict fp32*' > "$out/logs/gpu_tests_$tool.log" 2>&1; rc=$?
  say "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/logs/gpu_tests_$tool.log" | tail -1)"
done
fi

if want python && [[ -d $build/python/inferengine ]]; then
  stage "Python: DLPack device arrays in and out (tests/python/test_dlpack_gpu.py)"
  PYTHONPATH="$build/python:${PYTEST_PATH:-}:$root/tests/python" IE_BUILD_DIR="$build" "$torch_python" -m pytest -q \
    -p no:cacheprovider tests/python/test_dlpack_gpu.py > "$out/logs/python_dlpack_gpu.log" 2>&1
  say "test_dlpack_gpu exit $?: $(tail -1 "$out/logs/python_dlpack_gpu.log")"
fi

if want nodes; then
stage "ONNX node tests on cuda-reference"
nodes=/usr/share/libonnx-testdata/data/node
if [[ ! -d $nodes && -f $root/.device/onnx_node.tar.gz ]]; then
  mkdir -p /tmp/onnx_data && tar -xzf "$root/.device/onnx_node.tar.gz" -C /tmp/onnx_data && nodes=/tmp/onnx_data/node
fi
"$build/bin/onnx_node_tests" --data "$nodes" --backend cuda-reference > "$out/logs/node_tests_cuda.log" 2>&1; rc=$?
say "node tests (cuda-reference) exit $rc: $(tail -1 "$out/logs/node_tests_cuda.log")"
fi

if want models; then
stage "model end-to-end on the GPU (infer)"
data=${FASHION_MNIST_DIR:-$root/.device/data}
"$build/bin/infer" --config configs/convnet.yaml --backend cuda-reference --input "$data/t10k-images-idx3-ubyte.gz" \
  --labels "$data/t10k-labels-idx1-ubyte.gz" --json > "$out/logs/infer_convnet.log" 2>&1; rc=$?
say "infer convnet exit $rc: $(grep -E 'accuracy|throughput' "$out/logs/infer_convnet.log" | tr '\n' ' ')"

stage "plans on the fused path"
for p in fp32 bf16; do
  for f in weights/ssa.onnx weights/ssa_dynamo.onnx; do
    "$build/bin/inspect" "$f" --batch 512 --backend cuda --precision $p > "$out/logs/inspect_$(basename $f .onnx)_cuda_$p.txt" 2>&1
    say "inspect $f cuda $p exit $?: $(grep -E '^graph:' "$out/logs/inspect_$(basename $f .onnx)_cuda_$p.txt")"
  done
done

stage "compare cpu vs cuda-reference (per layer)"
for m in convnet ssa; do
  for form in legacy dynamo; do
    "$build/bin/compare" --config configs/$m.yaml --form $form --a cpu --b cuda-reference --batch 64 --seed 7 --per-layer \
      > "$out/logs/compare_${m}_$form.log" 2>&1
    say "compare $m $form exit $?: $(grep -E 'PASS|FAIL' "$out/logs/compare_${m}_$form.log" | head -3 | tr '\n' ' ')"
  done
  # The fused path in every mode and both export forms against the CPU's fp32, with each mode's default tolerance.
  for form in legacy dynamo; do
    for p in fp32 tf32 fp16 bf16; do
      "$build/bin/compare" --config configs/$m.yaml --form $form --a cpu --b cuda --precision $p --batch 64 --seed 7 \
        > "$out/logs/compare_${m}_${form}_cuda_$p.log" 2>&1
      say "compare $m $form cpu vs cuda $p exit $?: $(grep -E '^(PASS|FAIL)' "$out/logs/compare_${m}_${form}_cuda_$p.log" | head -1)"
    done
  done
done
fi

if want bench && [[ -x $build/bin/bench ]]; then
  stage "bench"
  # cuda (the fused path) against cuda-reference where both implement the mode; fp16/bf16 on cuda alone.
  batches_convnet=${BENCH_BATCHES_CONVNET:-1,1000,10000,50000}
  batches_ssa=${BENCH_BATCHES_SSA:-1,512,65536}
  for m in $bench_models; do
    batches=batches_$m
    for p in fp32 tf32 fp16 bf16; do
      paths=cuda-reference,cuda
      [[ $p == fp16 || $p == bf16 ]] && paths=cuda
      "$build/bin/bench" --config configs/$m.yaml --paths $paths --precision $p --batches "${!batches}" \
        --duration-ms "${BENCH_MS:-500}" --json "$out/bench_${m}_$p.json" --csv "$out/logs/bench_${m}_$p.csv" \
        > "$out/logs/bench_${m}_$p.log" 2>&1
      say "bench $m $p exit $?"; grep -E "^== bench|^ +[0-9]+ \|" "$out/logs/bench_${m}_$p.log" | tee -a "$summary"
    done
  done
  stage "per-op profiles"
  for spec in "convnet 10000 cuda-reference fp32" "convnet 10000 cuda fp32" "convnet 10000 cuda tf32" \
              "convnet 10000 cuda bf16" "ssa 512 cuda-reference fp32" "ssa 512 cuda bf16" \
              "ssa 65536 cuda-reference fp32" "ssa 65536 cuda fp32" "ssa 65536 cuda bf16"; do
    set -- $spec
    benched $1 || continue
    "$build/bin/bench" --config configs/$1.yaml --paths $3 --precision $4 --batches $2 --profile \
      --json "$out/logs/profile_$1_$2_$3_$4.json" > "$out/logs/profile_$1_$2_$3_$4.txt" 2>&1
    say "profile $spec exit $?"
  done
fi

if want stream; then
  stage "batches in flight: the main job's wall time, and streamed bench figures"
  data=${FASHION_MNIST_DIR:-$root/.device/data}
  # The README's main job (tools/run_main.sh's command: --precision auto, batches of 1000), then fixed modes and
  # batch sizes; several runs each, as the first start of a process on a fresh machine also loads the driver's caches.
  main_job() {  # TAG ARGS...: one run of infer on the 10,000 test images, /usr/bin/time around the process
    local tag=$1; shift
    /usr/bin/time -f "wall %e s" "$build/bin/infer" --config configs/convnet.yaml --backend auto \
      --input "$data/t10k-images-idx3-ubyte.gz" --labels "$data/t10k-labels-idx1-ubyte.gz" --min-accuracy 0.89 \
      --output "$out/logs/probs_$tag.npy" --top-k 3 --json "$@" > "$out/logs/main_job_$tag.log" 2>&1
    say "main job $tag ($*) exit $?: $(grep -E '^(backend|time|throughput|accuracy)|^wall' "$out/logs/main_job_$tag.log" | tr '\n' ' ')"
    rm -f "$out/logs/probs_$tag.npy" "$out/logs/probs_${tag}_top_k.csv"  # written to be timed, not kept
  }
  for run in 1 2 3 4; do main_job auto_$run --precision auto; done
  for run in 1 2; do main_job fp16_$run --precision fp16; done
  for run in 1 2; do main_job fp32_$run --precision fp32; done
  for run in 1 2; do main_job auto_10000_$run --precision auto --batch-size 10000; done
  for spec in "convnet 10000 fp32 -" "convnet 10000 bf16 -" "convnet 10000 fp32 --raw" "convnet 10000 bf16 --raw" \
              "convnet 10000 fp16 --raw" "ssa 65536 fp32 -" "ssa 65536 bf16 -" "ssa 512 bf16 -"; do
    set -- $spec
    raw=; [[ $4 == --raw ]] && raw=--raw
    for depth in 1 2 3; do
      "$build/bin/bench" --config configs/$1.yaml $raw --paths cuda --precision $3 --batches $2 --in-flight $depth \
        --duration-ms "${STREAM_MS:-1000}" --json "$out/logs/stream_$1_$2_$3${raw}_d$depth.json" \
        > "$out/logs/stream_$1_$2_$3${raw}_d$depth.log" 2>&1
      say "stream $spec in-flight $depth exit $?: $(grep -E '^ +[0-9]+ \|' "$out/logs/stream_$1_$2_$3${raw}_d$depth.log")"
    done
  done
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if (( gpus >= 2 )); then
    stage "two GPUs against one (3 batches in flight per device), and what the host's links carry"
    say "$(nvidia-smi topo -m 2>&1 | head -4)"
    for spec in "convnet 10000 bf16 -" "convnet 10000 fp32 -" "convnet 10000 bf16 --raw" "ssa 65536 bf16 -" \
                "ssa 65536 fp32 -"; do
      set -- $spec
      raw=; [[ $4 == --raw ]] && raw=--raw
      for devs in 0 0,1; do
        tag=$1_$2_$3${raw}_dev${devs/,/_}
        "$build/bin/bench" --config configs/$1.yaml $raw --paths cuda --precision $3 --batches $2 --in-flight 3 \
          --devices $devs --duration-ms "${STREAM_MS:-1500}" --json "$out/logs/stream_$tag.json" \
          > "$out/logs/stream_$tag.log" 2>&1
        say "stream $spec devices $devs exit $?: $(grep -E '^ +[0-9]+ \|' "$out/logs/stream_$tag.log")"
      done
    done
    for run in 1 2; do main_job auto_devices_all_$run --precision auto --devices all; done
    "$build/bin/gpu_tests" --no-version -tc='*pipeline*' > "$out/logs/gpu_tests_pipeline_two_gpus.log" 2>&1
    say "pipeline GPU tests on $gpus GPUs exit $?: $(grep -E '^\[doctest\] (test cases|assertions)' "$out/logs/gpu_tests_pipeline_two_gpus.log" | tr '\n' ' ')"
    if command -v nvcc > /dev/null; then
      nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I. tests/kernels/host_link_lab.cu \
        -o "$out/host_link_lab" > "$out/logs/host_link_build.log" 2>&1 &&
        "$out/host_link_lab" --csv "$out/logs/host_link.csv" > "$out/logs/host_link.log" 2>&1
      say "host_link_lab exit $?"; tee -a "$summary" < "$out/logs/host_link.log"
      rm -f "$out/host_link_lab"
    fi
  fi
fi

if want torch; then
stage "PyTorch on the same GPU"
"$torch_python" tools/torch_bench.py --out-dir "$out" --batches-convnet "${BENCH_BATCHES_CONVNET:-1,16,128,1000,10000,50000}" \
  --batches-ssa "${BENCH_BATCHES_SSA:-1,32,512,4096,65536}" > "$out/logs/torch_bench.log" 2>&1
say "torch_bench exit $?"; grep -E "samples/s" "$out/logs/torch_bench.log" | tee -a "$summary"
fi

if want labs && [[ -x tests/kernels/run_labs.sh ]]; then
  stage "kernel labs"
  if [[ -n ${lab_build:-} ]]; then
    wait $lab_build
    say "labs built: exit $?"; grep "BUILD FAILED" "$out/logs/labs_build.log" | tee -a "$summary"
  fi
  LAB_BIN=${LAB_BIN:-build/labs} bash tests/kernels/run_labs.sh "$out/labs" ${LAB_ARGS:-} > "$out/logs/labs.log" 2>&1
  say "labs exit $?"; grep -E "PASS|FAIL|TFLOP|TIMED OUT|^== .* ran [0-9]+ s" "$out/logs/labs.log" | tail -60 | tee -a "$summary"
fi

# Plots are drawn where gnuplot is (here or later, elsewhere): bench --replot bench_M.json torch_M.json --plot M.svg
for m in convnet ssa; do
  for p in fp32 bf16; do
    [[ -f $out/bench_${m}_$p.json ]] && "$build/bin/bench" --replot "$out/bench_${m}_$p.json" "$out/torch_$m.json" \
      --plot "$out/logs/bench_${m}_$p.svg" 2>> "$out/logs/plot.log"
  done
done
tar -czf "$out/results.tar.gz" -C "$out" logs $(cd "$out" && ls -d bench_*.json torch_*.json labs 2>/dev/null)
stage "done"
