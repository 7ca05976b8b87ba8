"""`fix_report(..., every=True)` on ONNX's own conformance models (tests/data/onnx_nearest, with
their fed inputs): every node the fix replaces runs, under onnxruntime, to the test's expected
output and to the specification's maps (tests/onnx_spec.py), bit for bit; a node it leaves says
why."""
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from onnx_spec import CONFORMANCE, conformance_case
from resize_nearest.fix import fix_report


@pytest.mark.parametrize('folder', CONFORMANCE, ids=os.path.basename)
def test_a_fixed_conformance_model_reproduces_the_expected_output(folder):
    path, inputs, expected = conformance_case(folder)
    fixed, (change,) = fix_report(path, inputs, every=True)
    if not change['action'].startswith('replaced'):
        assert change['action'].startswith('refuse: ') and len(change['action']) > 20
        return
    assert change['verified'].startswith('verified: onnxruntime differs from the exact map on 0')
    onnx.checker.check_model(fixed, full_check=True)
    assert [n.op_type for n in fixed.graph.node if n.op_type in ('Resize', 'Upsample')] == []
    session = ort.InferenceSession(fixed.SerializeToString(), providers=['CPUExecutionProvider'])
    got = session.run(None, {i.name: inputs[i.name] for i in fixed.graph.input})[0]
    np.testing.assert_array_equal(got, expected)


def test_most_conformance_models_are_replaced():
    "The count the report states: replaced nodes among the 19 models (the rest refused)."
    actions = [fix_report(*conformance_case(f)[:2], every=True)[1][0]['action'] for f in CONFORMANCE]
    replaced = sum(a.startswith('replaced') for a in actions)
    assert replaced >= 12, actions
