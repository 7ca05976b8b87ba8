#!/usr/bin/env bash
# Fail when notebooks are not clean or the package is not what nbdev_export makes of them.
set -euo pipefail
cd "$(dirname "$0")/.."
nbdev_clean
if [ -n "$(git status --porcelain -- nbs)" ]; then
  echo "notebooks are not clean (run nbdev_clean and commit):"; git status --porcelain -- nbs; exit 1
fi
python tools/export.py
if [ -n "$(git status --porcelain -- resize_nearest)" ]; then
  echo "notebooks and package are not in sync (run python tools/export.py and commit):"; git status --porcelain -- resize_nearest; exit 1
fi
python tools/make_readme.py >/dev/null
if [ -n "$(git status --porcelain -- README.md)" ]; then
  echo "README.md is not what nbs/index.ipynb makes (run python tools/make_readme.py and commit)"; exit 1
fi
echo "sync check: notebooks clean, package and README in sync"
