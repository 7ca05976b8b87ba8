#!/usr/bin/env bash
# IREE and ExecuTorch, in venvs of their own (appendix E4e): the child processes that run them use
# the Python these name, so .venv itself needs neither.
#   .venv-iree       onnx, iree-base-compiler (iree-import-onnx, iree-compile for llvm-cpu) and
#                    iree-base-runtime: IREE running an ONNX model on this CPU
#   .venv-executorch torch (settings.ini's torch_requirements: the CPU build this project uses),
#                    then executorch without its dependencies (they pull coremltools, pandas,
#                    scikit-learn and more that exporting and running on CPU do not use), then the
#                    few it imports, torchao for the XNNPACK partitioner, with torch held to the
#                    installed build (pip would otherwise replace it by a CUDA one)
# The package lists are settings.ini's iree_requirements, executorch_requirements and
# executorch_nodeps_requirements where it has them, else the lists below. Safe to run again: a venv
# installed from the current lists is kept. `bash tools/iree_executorch_venv.sh [FOLDER]` puts the
# venvs in FOLDER (default: the repository root). Prints the environment variables the package
# reads; `eval "$(bash tools/iree_executorch_venv.sh)"` sets them (progress goes to stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
root="${1:-$PWD}"
mkdir -p "$root"
root="$(cd "$root" && pwd)"
# setting KEY DEFAULT: settings.ini's value of KEY, else DEFAULT
setting() { python3 - "$1" "$2" <<'EOF'
import sys
from configparser import ConfigParser
cfg = ConfigParser(delimiters=['='])
cfg.read('settings.ini', encoding='utf-8')
print(cfg['DEFAULT'].get(sys.argv[1], sys.argv[2]))
EOF
}
# venv DIR MODULES PIP-ARGS...: DIR made and installed unless its stamp says these lists are in it
# and the modules are found; each PIP-ARGS is one pip install, held to the torch installed before
# it (when there is one)
venv() {
  local dir="$1" probe="$2"; shift 2
  local want; want="$(printf '%s\n' "$@" | sha256sum | cut -d' ' -f1)"
  if [ -f "$dir/.installed" ] && grep -qxF "$want" "$dir/.installed" \
     && "$dir/bin/python" -c "import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in '$probe'.split()))" 2>/dev/null; then
    return 0
  fi
  echo "installing into $dir" >&2
  [ -x "$dir/bin/python" ] || python3 -m venv "$dir"
  "$dir/bin/python" -m pip install -q --upgrade pip >&2
  local args torch
  while [ $# -gt 0 ]; do
    IFS=' ' read -r -a args <<< "$1"; shift
    torch="$("$dir/bin/python" -m pip show torch 2>/dev/null | sed -n 's/^Version: //p' || true)"
    if [ -n "$torch" ]; then
      echo "torch==$torch" > "$dir/torch-pin.txt"
      args+=(-c "$dir/torch-pin.txt")
    fi
    "$dir/bin/python" -m pip install -q "${args[@]}" >&2
  done
  echo "$want" > "$dir/.installed"
}
onnx="$(setting onnx_requirements 'onnx>=1.17' | tr ' ' '\n' | grep '^onnx[<>=]')"
venv "$root/.venv-iree" "iree onnx" \
  "$onnx $(setting iree_requirements 'iree-base-compiler==3.13.0 iree-base-runtime==3.13.0')"
venv "$root/.venv-executorch" "executorch torch torchao flatbuffers" \
  "$(setting torch_requirements 'torch==2.13.0')" \
  "--no-deps $(setting executorch_nodeps_requirements 'executorch==1.5.1')" \
  "--no-warn-conflicts $(setting executorch_requirements \
     'numpy flatbuffers pyyaml ruamel.yaml tabulate packaging sympy torchao>=0.18,<0.19')"
echo "export RESIZE_NEAREST_IREE_PYTHON=$root/.venv-iree/bin/python"
echo "export RESIZE_NEAREST_EXECUTORCH_PYTHON=$root/.venv-executorch/bin/python"
