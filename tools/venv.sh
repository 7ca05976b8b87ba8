#!/usr/bin/env bash
# Create .venv and install the package: `bash tools/venv.sh` with its runtime dependencies only (the
# demo), `bash tools/venv.sh dev` with everything the tests and notebooks need. Safe to run again:
# nothing is installed when an install of the current settings.ini/setup.py with that extra is there.
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
case "$extra" in
  ''|dev|torch|onnx|peers|jax|runtimes|docs) ;;
  *) echo "usage: bash tools/venv.sh [dev|torch|onnx|peers|jax|runtimes|docs]" >&2; exit 2 ;;
esac
stamp=.venv/.installed
want="$(cat settings.ini setup.py pyproject.toml | sha256sum | cut -d' ' -f1) ${extra:-runtime}"
probe="import resize_nearest"
[ "$extra" = dev ] && probe="import resize_nearest, nbdev, torch"
if [ -f "$stamp" ] && grep -qxF "$want" "$stamp" && .venv/bin/python -c "$probe" 2>/dev/null; then
  exit 0
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
if [ -n "$extra" ]; then
  python -m pip install -q -e ".[$extra]"       # editable: the tests and notebooks use this tree
else
  python -m pip install -q .                    # the package alone, for the demo
fi
echo "$want" >> "$stamp"
echo "venv ready: $(python --version), resize_nearest${extra:+[$extra]} installed in .venv"
