"""Test-only stand-in for the `neuronxcc` package: it only reports a version, the compiler of the SDK whose NKI
the stand-in `nki` poses as (NEURONXCC_STANDIN_VERSION overrides it). Nothing here compiles.
0.3 to 0.6: aws-neuron-sdk v2.32.0 src/helperscripts/n2-manifest.json; 0.7: the v2.33.0 release content page
(neuronx-cc-2.28.7631.0). 0.8: Neuron 2.34.0's compiler was not seen; the stand-in poses as 2.29.0.0, the next
minor the `neuron` extra admits (nbs/nki_versions.md), and its version says so."""
import os as _os

_SDK_COMPILER = {'0.3': '2.24.8799.0', '0.4': '2.25.3371.0', '0.5': '2.26.6360.0', '0.6': '2.27.5334.0',
                 '0.7': '2.28.7631.0', '0.8': '2.29.0.0'}
__version__ = _os.environ.get(
    'NEURONXCC_STANDIN_VERSION',
    _SDK_COMPILER.get(_os.environ.get('NKI_STANDIN_VERSION', '0.3'), '?') + '+standin')
