# The one place that decides which Python the project's scripts and tests run: Debian's interpreter, whose
# packages (python3-numpy) tools/install_deps.sh installs. The interpreter first on the PATH (a pyenv shim, a
# virtual environment) may lack them, so no script calls it by its bare name. Source this file, then use "$IE_PYTHON".
IE_PYTHON=/usr/bin/python3
export IE_PYTHON
