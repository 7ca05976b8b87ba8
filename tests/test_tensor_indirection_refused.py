"""NKI 0.5's tensor indirection for compute instructions (`tensor.indirect(index)`, NeuronCore-v4
only: aws-neuron-sdk v2.32.0 nki/api/nki/isa/__init__.py:405-409) is outside the interpreter: a
kernel that uses it is refused with that page, not with a bare AttributeError."""
import numpy as np
import pytest
from resize_nearest.nki_cpu.memory import NkiError, allocate, sbuf


def test_indirect_view_is_refused_naming_release_chip_and_page():
    t = allocate((2, 2), np.float32, sbuf, 'tile')
    index = allocate((2, 1), np.int32, sbuf, 'index')
    with pytest.raises(NkiError) as e:
        t.indirect(index)
    message = str(e.value)
    assert 'tile.indirect' in message and 'NKI 0.5' in message and 'NeuronCore-v4' in message
    assert 'nki/api/nki/isa/__init__.py:405-409' in message
