#!/usr/bin/env bash
# Installs the dependencies, builds, and classifies the 10,000 Fashion-MNIST test images with the conv net on the
# best available backend (the GPU when usable, else the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
bash tools/build.sh
data=/usr/share/datasets/fashion-mnist
mkdir -p out
./build/bin/infer --config configs/convnet.yaml --backend auto --precision auto \
  --input "$data/t10k-images-idx3-ubyte.gz" --labels "$data/t10k-labels-idx1-ubyte.gz" --min-accuracy 0.89 \
  --output out/convnet_probs.npy --top-k 3
