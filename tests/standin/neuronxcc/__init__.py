"""Test-only stand-in for the `neuronxcc` package: it only reports a version, the compiler of the SDK whose NKI
the stand-in `nki` poses as (NEURONXCC_STANDIN_VERSION overrides it). Nothing here compiles."""
import os as _os

_SDK_COMPILER = {'0.3': '2.24.8799.0', '0.4': '2.25.3371.0', '0.5': '2.26.6360.0', '0.6': '2.27.5334.0'}
__version__ = _os.environ.get(
    'NEURONXCC_STANDIN_VERSION',
    _SDK_COMPILER.get(_os.environ.get('NKI_STANDIN_VERSION', '0.3'), '?') + '+standin')
