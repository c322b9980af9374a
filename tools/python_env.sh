# The one place that decides which Python the project's scripts and tests run: Debian's interpreter, whose
# packages (python3-numpy) tools/install_deps.sh installs. The interpreter first on the PATH (a pyenv shim, a
# virtual environment) may lack them, so no script calls it by its bare name. Source this file, then use "$IE_PYTHON".
IE_PYTHON=/usr/bin/python3
export IE_PYTHON
# The Python package's build and test environment (tools/python_venv.sh makes it from Debian's interpreter):
# nanobind and scikit-build-core for the module, pytest and ray[data] for its tests.
IE_VENV="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv-py"
export IE_VENV
