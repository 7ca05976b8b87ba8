#!/usr/bin/env bash
# Build the documentation site into _site/html (git-ignored) from the committed, executed notebooks; nothing is re-executed.
# Run it after README command 1 (it installs the docs extra into the active environment when missing).
# Open _site/html/index.html, or serve it: python -m http.server -d _site/html 8000 --bind 127.0.0.1
set -euo pipefail
cd "$(dirname "$0")/.."
python -c "import sphinx, myst_nb, sphinx_book_theme, mathjax" 2>/dev/null || python -m pip install -q -e ".[docs]"
python tools/build_docs.py "$@"
