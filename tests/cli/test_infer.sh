#!/usr/bin/env bash
# CLI tests of `infer`: every flag, every error path, exit codes, and no partial output file on failure.
# Usage: test_infer.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
bin=$1/bin/infer
src=$2
data=$src/tests/data/cli
ref=$src/weights/reference
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
# shellcheck source=../../tools/python_env.sh
source "$src/tools/python_env.sh"

# expect CODE NEEDLE -- command...: the exit code must be CODE and stdout+stderr must contain NEEDLE.
expect() {
  local code=$1 needle=$2
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc != "$code" ]] || [[ "$out" != *"$needle"* ]]; then
    echo "FAIL: expected exit $code and '$needle' from: $*"
    echo "  got exit $rc: $(echo "$out" | tail -3)"
    failures=$((failures + 1))
  else
    echo "ok: exit $code '$needle'"
  fi
}

# json_get FILE KEY: value of a top-level key of the JSON object on the last line of FILE.
json_get() { tail -1 "$1" | "$IE_PYTHON" -c "import json,sys; v=json.load(sys.stdin)$2; print(v)"; }

check() {
  if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; failures=$((failures + 1)); fi
}

cd "$src"
# --- successful runs and every flag -------------------------------------------------------------
expect 0 "accuracy: 1.0000" -- "$bin" --config configs/convnet.yaml --input "$ref/convnet_input_raw.npy" \
  --labels "$ref/convnet_labels.npy" --output "$work/probs.npy" --backend cpu --threads 1 --json
"$bin" --config configs/convnet.yaml --input "$ref/convnet_input_raw.npy" --labels "$ref/convnet_labels.npy" \
  --output "$work/probs.npy" --backend cpu --json > "$work/run.json"
check '[[ $(json_get "$work/run.json" "[\"backend\"]") == cpu ]]' "json: backend"
check '[[ $(json_get "$work/run.json" "[\"samples\"]") == 7 ]]' "json: samples"
check '[[ $(json_get "$work/run.json" "[\"outputs\"][0][\"name\"]") == probs ]]' "json: outputs name"
check '[[ $(json_get "$work/run.json" "[\"outputs\"][0][\"shape\"]") == "[7, 10]" ]]' "json: outputs shape"
check '[[ -n $(json_get "$work/run.json" "[\"samples_per_s\"]") && -n $(json_get "$work/run.json" "[\"seconds\"]") ]]' "json: timing"
check '[[ $(json_get "$work/run.json" "[\"batch_size\"]") == 7 ]]' "json: batch_size"
# cuBLAS, cuBLASLt and cuDNN are opened when a kernel first needs them, never by a CPU run (their start-up, in a
# build with CUDA, cost every process tens of milliseconds)
LD_DEBUG=files "$bin" --config configs/convnet.yaml --input "$ref/convnet_input_raw.npy" --backend cpu --threads 1 \
  > /dev/null 2> "$work/loader.txt"
check '! grep -qE "libcublas|libcudnn" "$work/loader.txt"' "a CPU run opens neither cuBLAS nor cuDNN"
# --precision auto: the CPU backend implements fp32 alone, and says so
expect 0 "precision fp32 (auto: the only mode of the cpu backend)" -- "$bin" --config configs/convnet.yaml \
  --input "$ref/convnet_input_raw.npy" --backend cpu --precision auto --json
expect 2 "precision" -- "$bin" --config configs/convnet.yaml --input "$ref/convnet_input_raw.npy" --precision fastest
check '[[ -f "$work/probs.npy" ]]' "probs.npy written"

# the same images from an IDX file and from a raw file with --shape/--dtype, in batches of 3
expect 0 "samples: 7 in 3 batches" -- "$bin" --config configs/convnet.yaml --input "$data/images7-idx3-ubyte" \
  --batch-size 3 --output "$work/probs_batched.npy"
expect 0 "samples: 7 in 1 batch" -- "$bin" --config configs/convnet.yaml --input "$data/images7-idx3-ubyte" \
  --output "$work/probs_idx.npy"
expect 0 "samples: 7" -- "$bin" --config configs/convnet.yaml --input "$data/convnet_raw_7x28x28.u8" \
  --shape 7x28x28 --dtype uint8 --output "$work/probs_raw.npy"
check 'cmp -s "$work/probs_idx.npy" "$work/probs_raw.npy"' "IDX and raw inputs give identical outputs"

# batches in flight: setup apart from the run, the device split (the host listed twice), bad devices and depths
check '[[ -n $(json_get "$work/run.json" "[\"setup_s\"]") && -n $(json_get "$work/run.json" "[\"run_s\"]") && -n $(json_get "$work/run.json" "[\"main_s\"]") ]]' "json: setup_s, run_s, main_s"
check '[[ $(json_get "$work/run.json" "[\"in_flight\"]") == 1 && $(json_get "$work/run.json" "[\"devices\"]") == 1 ]]' "json: in_flight, devices"
expect 0 "on 2 devices" -- "$bin" --config configs/convnet.yaml --input "$data/images7-idx3-ubyte" --backend cpu \
  --batch-size 2 --devices 0,0 --output "$work/probs_split.npy"
"$bin" --config configs/convnet.yaml --input "$data/images7-idx3-ubyte" --backend cpu --batch-size 2 \
  --output "$work/probs_one_device.npy" > /dev/null
check 'cmp -s "$work/probs_split.npy" "$work/probs_one_device.npy"' "the split across devices gives one device's outputs"
expect 2 "device 1 does not exist" -- "$bin" --config configs/convnet.yaml --input "$data/images7-idx3-ubyte" \
  --backend cpu --devices 1
expect 2 "is not a device number" -- "$bin" --config configs/convnet.yaml --input "$data/images7-idx3-ubyte" \
  --backend cpu --devices 0,x
expect 2 "--in-flight" -- "$bin" --config configs/convnet.yaml --input "$data/images7-idx3-ubyte" --in-flight 0

# the dynamo export, --no-fuse, --top-k with class names, CSV output
expect 0 "accuracy" -- "$bin" --config configs/convnet.yaml --form dynamo --input "$ref/convnet_input_raw.npy" \
  --labels "$ref/convnet_labels.npy" --no-fuse --top-k 3 --output "$work/dyn.csv"
check 'head -1 "$work/dyn_top_k.csv" | grep -q "class_1,score_1,class_2"' "top-k CSV header"
check 'grep -q "Ankle boot\|Trouser\|Pullover\|Shirt\|Sneaker\|Coat\|Sandal\|Bag\|Dress\|T-shirt/top" "$work/dyn_top_k.csv"' "top-k CSV has class names"
check '[[ $(wc -l < "$work/dyn.csv") == 8 ]]' "CSV output has a header and 7 rows"

# --model with several outputs into a folder; --target prints the MSE
"$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --target "$ref/ssa_input.npy" --output "$work/ssa_out" --json > "$work/ssa.json"
check '[[ -f "$work/ssa_out/recon.npy" && -f "$work/ssa_out/latent.npy" ]]' "one .npy per output in the folder"
check '[[ -n $(json_get "$work/ssa.json" "[\"mse\"]") ]]' "json: mse with --target"
check '[[ $(json_get "$work/ssa.json" "[\"outputs\"][1][\"name\"]") == latent ]]' "json: outputs in graph order"
expect 0 "samples: 7" -- "$bin" --model weights/ssa.onnx --input "x=$ref/ssa_input.npy" --output "$work/ssa_named"

# a check that fails: accuracy below --min-accuracy -> exit 1
expect 1 "below --min-accuracy" -- "$bin" --config configs/convnet.yaml --input "$ref/convnet_input_raw.npy" \
  --labels "$data/convnet_wrong_labels.npy" --min-accuracy 0.5

# --- usage errors: exit 2 -----------------------------------------------------------------------
expect 2 "exactly one of --config or --model" -- "$bin" --config configs/convnet.yaml --model weights/ssa.onnx --input "$ref/ssa_input.npy"
expect 2 "--input is required" -- "$bin" --model weights/ssa.onnx
expect 2 "must be a folder" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --output "$work/two.npy"
expect 2 "The following argument was not expected" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --frobnicate
expect 2 "needs both" -- "$bin" --model weights/ssa.onnx --input "$data/convnet_raw_7x28x28.u8"
expect 2 "no such input" -- "$bin" --model weights/ssa.onnx --input "y=$ref/ssa_input.npy"
expect 2 "backend" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --backend tpu
expect 2 "applies to GPU backends" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --backend cpu --precision tf32
expect 2 "--min-accuracy needs --labels" -- "$bin" --model weights/convnet.onnx --input "$ref/convnet_input.npy" --min-accuracy 0.5

# --- bad input: exit 3, and no output file left behind ------------------------------------------
expect 3 "missing.npy: cannot open" -- "$bin" --model weights/ssa.onnx --input "$work/missing.npy" --output "$work/e1"
expect 3 "missing.onnx" -- "$bin" --model "$work/missing.onnx" --input "$ref/ssa_input.npy"
expect 3 "expected dtype float32, got float64" -- "$bin" --model weights/ssa.onnx --input "$data/ssa_input_float64.npy" --output "$work/e2"
expect 3 "dimension 1 must be 320, got 10" -- "$bin" --model weights/ssa.onnx --input "$ref/convnet_probs_fp32.npy" --output "$work/e3"
expect 3 "expected rank 2" -- "$bin" --model weights/ssa.onnx --input "$ref/convnet_input.npy" --output "$work/e4"
expect 3 "expected dtype float32, got uint8" -- "$bin" --model weights/ssa.onnx --input "$data/convnet_raw_7x28x28.u8" \
  --shape 7x784 --dtype uint8 --output "$work/e7"
expect 3 "truncated" -- "$bin" --model weights/ssa.onnx --input "$data/ssa_input_truncated.npy" --output "$work/e5"
expect 3 "truncated" -- "$bin" --config configs/convnet.yaml --input "$data/images7_truncated-idx3-ubyte" --output "$work/e6"
expect 3 "labels" -- "$bin" --config configs/convnet.yaml --input "$ref/convnet_input_raw.npy" --labels "$data/labels_truncated.idx1-ubyte.gz"
expect 3 "bytes" -- "$bin" --config configs/convnet.yaml --input "$data/convnet_raw_7x28x28.u8" --shape 8x28x28 --dtype uint8
check '[[ ! -e "$work/e1" && ! -e "$work/e2" && ! -e "$work/e3" && ! -e "$work/e4" && ! -e "$work/e5" && ! -e "$work/e6" && ! -e "$work/e7" ]]' "no output left behind after errors"

# --- NaN in an output: exit 6, nothing written ---------------------------------------------------
expect 6 "NaN or Inf" -- "$bin" --model weights/ssa.onnx --input "$data/ssa_nan_input.npy" --output "$work/nan_out"
check '[[ ! -e "$work/nan_out" ]]' "no output written when the result holds NaN"

# --- hardening: hostile inputs, limits and destinations ---------------------------------------
# Messages that say what was wrong, in place of CLI11's range text.
expect 2 "--batch-size must be >= 1, got 0" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --batch-size 0
expect 2 "--top-k must be >= 1, got 0" -- "$bin" --model weights/convnet.onnx --input "$ref/convnet_input.npy" --top-k 0
expect 2 "--threads must be from 0 (all cores) to" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --threads 100000
expect 2 "--max-memory: 'lots' is not a size" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --max-memory lots
# The limits: far too little memory is a bad-model error naming the node or tensor and the limit; enough runs.
expect 3 "single-tensor limit of 1.0 KiB" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --max-memory 1K
expect 0 "samples: 7" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --max-memory 64M
# --top-k beyond the class count is refused before the run, and nothing is written.
expect 2 "--top-k 1000 is more than the 10 classes of output 'probs'" -- "$bin" --config configs/convnet.yaml \
  --input "$ref/convnet_input_raw.npy" --top-k 1000 --output "$work/topk_big.npy"
check '[[ ! -e "$work/topk_big.npy" && ! -e "$work/topk_big_top_k.csv" ]]' "no output after a refused --top-k"
"$bin" --config configs/convnet.yaml --input "$ref/convnet_input_raw.npy" --top-k 10 --output "$work/topk10.npy" > /dev/null
check '[[ $(head -1 "$work/topk10_top_k.csv" | tr "," "\n" | wc -l) == $(sed -n 2p "$work/topk10_top_k.csv" | tr "," "\n" | wc -l) ]]' \
  "top-k CSV header and rows have the same number of columns"
# Only regular files are opened: a FIFO fails at once instead of blocking.
mkfifo "$work/fifo.npy" "$work/fifo.onnx"
expect 3 "not a regular file (a FIFO)" -- timeout 30 "$bin" --model weights/ssa.onnx --input "$work/fifo.npy"
expect 3 "not a regular file (a FIFO)" -- timeout 30 "$bin" --model "$work/fifo.onnx" --input "$ref/ssa_input.npy"
# NaN in the conv net's input: the fused default path exits 6 exactly as --no-fuse does.
"$IE_PYTHON" -c "import numpy as np, sys; a = np.load(sys.argv[1]); a[0, 0, 40, 40] = np.nan; np.save(sys.argv[2], a)" \
  "$ref/convnet_input.npy" "$work/convnet_nan.npy"
expect 6 "NaN or Inf" -- "$bin" --model weights/convnet.onnx --input "$work/convnet_nan.npy" --backend cpu --output "$work/nan_fused.npy"
expect 6 "NaN or Inf" -- "$bin" --model weights/convnet.onnx --input "$work/convnet_nan.npy" --backend cpu --no-fuse \
  --output "$work/nan_unfused.npy"
check '[[ ! -e "$work/nan_fused.npy" && ! -e "$work/nan_unfused.npy" ]]' "no output written for NaN, fused or not"
# A blocked output (latent.npy is a folder; the top-k CSV is a folder) fails before the run and leaves nothing.
mkdir -p "$work/blocked/latent.npy" "$work/tk/probs_top_k.csv"
expect 2 "latent.npy: cannot write the output there: it is a folder" -- "$bin" --model weights/ssa.onnx \
  --input "$ref/ssa_input.npy" --output "$work/blocked"
check '[[ $(ls -A "$work/blocked") == latent.npy ]]' "a blocked output folder gets no partial or temporary file"
expect 2 "probs_top_k.csv: cannot write the output there: it is a folder" -- "$bin" --config configs/convnet.yaml \
  --input "$ref/convnet_input_raw.npy" --top-k 3 --output "$work/tk/probs.npy"
check '[[ $(ls -A "$work/tk") == probs_top_k.csv ]]' "a blocked top-k CSV leaves no probs.npy behind"
# An unwritable destination is found before the run, with the same exit code for a folder and a .npy path.
touch "$work/afile"
for out in "$work/afile/outdir" "$work/afile/probs.npy"; do
  expect 2 "is not a folder" -- "$bin" --model weights/convnet.onnx --input "$ref/convnet_input.npy" --output "$out"
  check '[[ $("$bin" --model weights/convnet.onnx --input "$ref/convnet_input.npy" --output "$out" 2>&1) != *throughput* ]]' \
    "destination $out checked before the run"
done
if [[ $(id -u) != 0 ]]; then  # root writes anywhere
  mkdir -p "$work/readonly" && chmod 555 "$work/readonly"
  expect 2 "is not writable" -- "$bin" --model weights/convnet.onnx --input "$ref/convnet_input.npy" --output "$work/readonly/out"
  expect 2 "is not writable" -- "$bin" --model weights/convnet.onnx --input "$ref/convnet_input.npy" --output "$work/readonly/p.npy"
fi

# --- a CUDA backend on a machine without a usable GPU: exit 4 (skipped where a GPU exists) --------
# (and skipped in a build configured with -DIE_WITH_CUDA=OFF, which has no CUDA backend to refuse)
if ! command -v nvidia-smi > /dev/null || ! nvidia-smi > /dev/null 2>&1; then
  if [[ $("$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --backend cuda-reference 2>&1) == *"this build has"* ]]; then
    echo "skip: this build has no CUDA backend"
  else
    expect 4 "cannot run here" -- "$bin" --model weights/ssa.onnx --input "$ref/ssa_input.npy" --backend cuda-reference
  fi
fi

echo "infer CLI tests: $failures failed"
[[ $failures == 0 ]]
