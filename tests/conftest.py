"""pytest options: `--neuron` runs tests that need the real NKI on a Trainium instance (skipped otherwise)."""
import os, tempfile

import pytest

# The front end keeps its verdicts on disk (appendix A5): the tests keep theirs in a folder of their
# own, never in the user's cache, and child processes they start inherit it.
os.environ.setdefault('RESIZE_NEAREST_CACHE', tempfile.mkdtemp(prefix='resize-nearest-test-cache-'))

def pytest_addoption(parser):
    parser.addoption('--neuron', action='store_true', default=False, help='run tests that need the real NKI (Trainium)')

def pytest_collection_modifyitems(config, items):
    if config.getoption('--neuron'): return
    skip = pytest.mark.skip(reason='needs the real NKI on Trainium: run with --neuron')
    for item in items:
        if 'neuron' in item.keywords: item.add_marker(skip)
