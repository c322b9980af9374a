#!/usr/bin/env bash
# Builds a libFuzzer harness (tests/fuzz/fuzz_TARGET.cpp) with clang, ASan and UBSan into build-asan/ (the folder
# of tools/sanitize.sh asan) and runs it for SECONDS on a corpus seeded from the repository's models, configs and
# test data, with the dictionary tests/fuzz/TARGET.dict where there is one. A crash, a hang (> 1 s per
# input) or more than 2 GB stops the run and leaves the input in out/fuzz/TARGET/ (exit status non-zero);
# reproduce with  build-asan/bin/fuzz_TARGET out/fuzz/TARGET/crash-...
#
#   bash tools/fuzz.sh TARGET [SECONDS]     TARGET: onnx_model, npy, idx, raw, model_config, or all (default 60 s)
#   IE_FUZZ_ARGS="-jobs=2 ..."             more libFuzzer flags
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: tools/fuzz.sh TARGET [SECONDS]  (onnx_model npy idx raw model_config all)}
seconds=${2:-60}
all=(onnx_model npy idx raw model_config)
if [[ $target == all ]]; then
  for t in "${all[@]}"; do bash "$0" "$t" "$seconds"; done
  exit 0
fi
[[ " ${all[*]} " == *" $target "* ]] || { echo "unknown target '$target' (${all[*]})" >&2; exit 2; }

bash tools/install_deps.sh > /dev/null
bash tools/sanitize.sh asan configure
cmake --build build-asan --target "fuzz_$target" -j"$(nproc 2>/dev/null || echo 2)"

out=out/fuzz/$target
corpus=$out/corpus
mkdir -p "$corpus"
# Seeds: the inputs the readers exist for (the IDX and raw harnesses read a leading selector byte or five).
seed() { [[ -f $2 ]] && { printf "$1"; cat "$2"; } > "$corpus/seed_${3:-$(basename "$2")}"; true; }
case $target in
  onnx_model)
    # ONNX's node-test models: one node each, nearly every op type, a few hundred bytes (thousands of runs a
    # second); the repository's models for the fusion patterns (10-500 KB, whole planning).
    for f in /usr/share/libonnx-testdata/data/node/*/model.onnx; do seed "" "$f" "$(basename "$(dirname "$f")").onnx"; done
    for f in weights/*.onnx tests/data/foreign/*.onnx; do seed "" "$f"; done ;;
  npy) for f in tests/data/npy/*.npy tests/data/cli/*.npy; do seed "" "$f"; done ;;
  idx)
    for f in tests/data/cli/*ubyte; do seed '\x00' "$f"; done
    for f in tests/data/cli/*.gz /usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz; do seed '\x01' "$f"; done ;;
  raw) for f in tests/data/cli/*.u8; do seed '\x03\x07\x1c\x1c\x00' "$f"; done ;;
  model_config) for f in configs/*.yaml; do seed "" "$f"; done ;;
esac
echo "fuzz_$target: $seconds s, corpus $corpus ($(ls "$corpus" | wc -l) inputs), findings in $out"
# The harnesses read files relative to the repository (model configs name their models).
dict=tests/fuzz/$target.dict
build-asan/bin/"fuzz_$target" "$corpus" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 \
  ${IE_FUZZ_ARGS:-} $([[ -f $dict ]] && echo "-dict=$dict") \
  -artifact_prefix="$out/" -print_final_stats=1 2>&1 | tail -n 25
