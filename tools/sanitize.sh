#!/usr/bin/env bash
# The CPU library and its tests under sanitizers, each kind in a build folder of its own (clang, no CUDA), building
# only what those tests need (the targets cpu_tests and threads_tests, tests/CMakeLists.txt):
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer: unit, ONNX node, model and CLI tests (ctest label cpu) in
#         build-asan/, the folder tools/fuzz.sh builds its harnesses in (the coverage instrumentation they need is
#         on for the tests too: one sanitized build of the library instead of two)
#   tsan  ThreadSanitizer: the tests that run sessions, pipelines and kernels on several threads (label threads) in
#         build-tsan/
#
#   bash tools/sanitize.sh asan|tsan [configure]     configure: only configure the folder
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: tools/sanitize.sh asan|tsan [configure]}
case $kind in
  asan) dir=build-asan; sanitize=address,undefined; extra=(-DIE_FUZZ=ON); target=cpu_tests; label=cpu ;;
  tsan) dir=build-tsan; sanitize=thread; extra=(); target=threads_tests; label=threads ;;
  *) echo "unknown kind '$kind' (asan tsan)" >&2; exit 2 ;;
esac
# Build type None: the compile flags are only those of the IE_SANITIZE block (CMakeLists.txt).
if [[ ! -f $dir/CMakeCache.txt ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=None -DIE_SANITIZE=$sanitize "${extra[@]}" \
    > /dev/null
fi
[[ ${2:-} == configure ]] && exit 0

start=$SECONDS
cmake --build "$dir" --target "$target" -j"$(nproc 2>/dev/null || echo 2)"
echo "$kind: built $target in $((SECONDS - start)) s"
# Findings abort the process (UBSan too: -fno-sanitize-recover); the tests set the sanitizers' options themselves
# (tests/CMakeLists.txt).
start=$SECONDS
ctest --test-dir "$dir" -L "^$label\$" --output-on-failure -j2
echo "$kind: tests ran in $((SECONDS - start)) s"
