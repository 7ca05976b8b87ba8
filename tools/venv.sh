#!/usr/bin/env bash
# Create .venv and install the package with its dev extra, unless an install of the current
# settings.ini/setup.py is already there. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=.venv/.installed
want=$(cat settings.ini setup.py pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && .venv/bin/python -c "import resize_nearest, nbdev, torch" 2>/dev/null; then
  exit 0
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e ".[dev]"
echo "$want" > "$stamp"
echo "venv ready: $(python --version), resize_nearest installed in .venv"
