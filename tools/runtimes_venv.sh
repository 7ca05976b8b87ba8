#!/usr/bin/env bash
# The deployment runtimes of chapter R13, in venvs of their own: the slow tier's real-runtime tests
# and tools/runtime_sweep.py run each runtime in a child process of the Python these name, so .venv
# itself needs none of them.
#   .venv-runtimes  onnx and the "runtimes" extra's list (OpenVINO, tract, Apache TVM, MNN, ncnn,
#                   tinygrad), then pnnx (ncnn's converter) without its dependencies: it asks for a
#                   CUDA build of torch, which converting an ONNX model does not use
#   .venv-litert    onnx2tf and ai-edge-litert (LiteRT): onnx2tf pins numpy, onnx and protobuf below
#                   this project's
#   clang           (Debian, when root) tinygrad's CPU device compiles with it; without it only
#                   tinygrad's Python device runs, far slower
# The package lists are settings.ini's runtimes_requirements, runtimes_nodeps_requirements and
# litert_requirements. Safe to run again: a venv installed from the current lists is kept.
# Prints the environment variables the package reads; `eval "$(bash tools/runtimes_venv.sh)"` sets
# them (progress goes to stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
setting() { python3 - "$1" <<'EOF'
import sys
from configparser import ConfigParser
cfg = ConfigParser(delimiters=['='])
cfg.read('settings.ini', encoding='utf-8')
print(cfg['DEFAULT'][sys.argv[1]])
EOF
}
# venv DIR MODULES PIP-ARGS...: DIR made and installed unless its stamp says these lists are in it
# and the modules are found (found, not imported: importing TensorFlow alone takes seconds)
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
  local args
  while [ $# -gt 0 ]; do
    IFS=' ' read -r -a args <<< "$1"; shift
    "$dir/bin/python" -m pip install -q "${args[@]}" >&2
  done
  echo "$want" > "$dir/.installed"
}
runtimes="$(setting runtimes_requirements)"
onnx="$(setting onnx_requirements | tr ' ' '\n' | grep '^onnx[<>=]')"  # TVM's importer reads ONNX
venv .venv-runtimes "openvino tract tvm MNN ncnn pnnx tinygrad onnx" \
  "$onnx $runtimes" "--no-deps $(setting runtimes_nodeps_requirements)"
venv .venv-litert "onnx2tf ai_edge_litert" "$(setting litert_requirements)"
if ! command -v clang >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
  else
    echo "clang is missing (tinygrad then runs only its slow Python device):" \
      "apt-get install clang" >&2
  fi
fi
echo "export RESIZE_NEAREST_RUNTIMES_PYTHON=$root/.venv-runtimes/bin/python"
echo "export RESIZE_NEAREST_LITERT_PYTHON=$root/.venv-litert/bin/python"
