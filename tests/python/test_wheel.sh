#!/usr/bin/env bash
# The pip path of a new user: `pip wheel .` builds the package with scikit-build-core and the project's CMake (the
# library again, in build-wheel/), the wheel installs into an empty folder, and the installed package (its own copy
# of the engine library beside the module, stubs included) classifies images with nothing from the build tree.
# Offline: the virtual environment already holds the build requirements (--no-build-isolation).
#
#   tests/python/test_wheel.sh SOURCE_DIR PYTHON
set -euo pipefail
src=$1
python=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$src"
# CPU only: the CUDA kernels are compiled (and tested) by the main build; here the packaging is what is tested.
"$python" -m pip wheel --quiet --no-build-isolation --no-deps --disable-pip-version-check \
  --config-settings=cmake.define.IE_WITH_CUDA=OFF -w "$work/dist" .
wheel=$(ls "$work"/dist/inferengine-*.whl)
"$python" -m pip install --quiet --no-deps --disable-pip-version-check --target "$work/site" "$wheel"
for f in __init__.py infer.py ray.py py.typed _core.pyi libinferengine.so.0; do
  [[ -e $work/site/inferengine/$f ]] || { echo "the wheel lacks inferengine/$f" >&2; exit 1; }
done
cd "$work"
PYTHONPATH="$work/site" "$python" - "$src" <<'PY'
import pathlib, sys
import numpy as np
import inferengine as ie
src = pathlib.Path(sys.argv[1])
assert pathlib.Path(ie.__file__).parent == pathlib.Path("site/inferengine").resolve(), ie.__file__
libs = [line.split()[-1] for line in open("/proc/self/maps") if "libinferengine" in line]
assert libs and all(l.startswith(str(pathlib.Path("site").resolve())) for l in libs), libs
engine = ie.Engine.load(src / "configs/convnet.yaml", backend="cpu")
images = ie.read_tensor("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz")[:1000]
labels = ie.read_tensor("/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz")[:1000]
accuracy = (engine.session().run({"images": images})["probs"].argmax(1) == labels).mean()
assert accuracy > 0.88, accuracy
print(f"wheel {ie.__version__}: installed package classifies 1000 images, accuracy {accuracy:.3f}")
PY
