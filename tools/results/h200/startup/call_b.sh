#!/usr/bin/env bash
set -uo pipefail
cudnn=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
export LD_LIBRARY_PATH="$cudnn:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
[[ -x .device/build/bin/infer ]] || tar xzf .device/build.tgz -C .device
B=.device/build/bin
R=$OUT/r; mkdir -p $R
D=.device/data
main_job() {  # name, extra args...
  local name=$1; shift
  /usr/bin/time -f "wall %e s" timeout 60 $B/infer --config configs/convnet.yaml --input $D/t10k-images-idx3-ubyte.gz \
    --labels $D/t10k-labels-idx1-ubyte.gz --output /tmp/probs.npy --top-k 3 --json "$@" > $R/main_$name.log 2>&1
  echo "$name: $(grep -o '"setup_phases_s":{[^}]*}' $R/main_$name.log) $(grep wall $R/main_$name.log)"
}
main_job bs10000_again --precision fp16 --batch-size 10000
main_job bs5000 --precision fp16 --batch-size 5000
main_job bs2000 --precision fp16 --batch-size 2000
IE_TUNE=off main_job bs4000_tuneoff --precision fp16 --batch-size 4000
IE_DISABLE_FUSIONS=sample_resident main_job bs3000_nosr --precision fp16 --batch-size 3000
main_job bs3000 --precision fp16 --batch-size 3000
main_job bs3000_inflight1 --precision fp16 --batch-size 3000 --in-flight 1
main_job bs3000_nograph --precision fp16 --batch-size 3000 --no-graph
cd $OUT && tar czf r.tgz r && rm -rf r
