"""`fix_report(..., every=True)` on ONNX's own conformance models (tests/data/onnx_nearest, with
their fed inputs): every node the fix replaces runs, under onnxruntime, to the test's expected
output and to the specification's maps (tests/onnx_spec.py), bit for bit; a node it leaves says
why (none does: all 19 are replaced)."""
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from onnx_spec import CONFORMANCE, conformance_case
from resize_nearest.models.fix import fix_report


@pytest.mark.parametrize('folder', CONFORMANCE, ids=os.path.basename)
def test_a_fixed_conformance_model_reproduces_the_expected_output(folder):
    path, inputs, expected = conformance_case(folder)
    fixed, (change,) = fix_report(path, inputs, every=True)
    assert change['action'] == 'replaced: computed indices'   # its scales or sizes are fed
    assert change['verified'].startswith('verified: the written nodes, run by onnxruntime, differ from the exact map on 0')
    onnx.checker.check_model(fixed, full_check=True)
    assert [n.op_type for n in fixed.graph.node if n.op_type in ('Resize', 'Upsample')] == []
    session = ort.InferenceSession(fixed.SerializeToString(), providers=['CPUExecutionProvider'])
    got = session.run(None, {i.name: inputs[i.name] for i in fixed.graph.input})[0]
    np.testing.assert_array_equal(got, expected)


def test_the_conformance_set_covers_every_nearest_operator_version():
    "Resize-10 (ceil and floor), Resize-19 with both policies, and Upsample-9 are all fixed above."
    ops = {onnx.load(conformance_case(f)[0]).opset_import[0].version for f in CONFORMANCE}
    assert len(CONFORMANCE) == 19 and ops == {9, 10, 19}
