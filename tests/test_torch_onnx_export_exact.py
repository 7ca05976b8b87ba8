"""A model made exact with `resize_nearest.torch.patch` keeps its exact resizes through
`torch.onnx.export` (the TorchScript exporter, dynamo=False): the exported graph has no Resize left:
it Gathers constant index vectors (static shapes) or ones computed with integer Range/Mul/Div
(dynamic), and onnxruntime runs it to the exact map (d * in) // out, or floor(d / scale), bit for
bit, for any input size."""
import io
from fractions import Fraction

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from resize_nearest.models.audit import audit_onnx
from resize_nearest.torch import patch

# torch 2.13's TorchScript exporter warns that it is deprecated (DeprecationWarning), and its
# tracer warns where Python values become constants (TracerWarning): both are expected here
pytestmark = [pytest.mark.filterwarnings('ignore::DeprecationWarning'),
              pytest.mark.filterwarnings('ignore::torch.jit.TracerWarning')]


class Head(torch.nn.Module):
    "A mask head: 26x26 features to a 64x64 mask, by nn.Upsample and by F.interpolate."

    def __init__(self):
        super().__init__()
        self.up = torch.nn.Upsample(size=(64, 64), mode='nearest')

    def forward(self, x):
        return self.up(x) + torch.nn.functional.interpolate(x, size=(64, 64), mode='nearest')


def exported(model, x, patched: bool) -> bytes:
    buffer = io.BytesIO()
    if patched:
        with patch(), patch(model):
            torch.onnx.export(model, x, buffer, dynamo=False, input_names=['x'])
    else:
        torch.onnx.export(model, x, buffer, dynamo=False, input_names=['x'])
    return buffer.getvalue()


def run(data: bytes, x) -> np.ndarray:
    session = ort.InferenceSession(data, providers=['CPUExecutionProvider'])
    return session.run(None, {'x': x.numpy()})[0]


def test_a_patched_model_exports_to_an_exact_onnx_graph():
    x = torch.arange(2 * 26 * 26, dtype=torch.float32).reshape(1, 2, 26, 26)
    rows = (np.arange(64) * 26) // 64                       # the exact map, asymmetric/floor
    exact = 2 * x.numpy()[:, :, rows][:, :, :, rows]
    plain, patched = exported(Head().eval(), x, False), exported(Head().eval(), x, True)
    assert (run(plain, x) != exact).sum() > 0              # onnxruntime's Resize: wrong here
    np.testing.assert_array_equal(run(patched, x), exact)
    ops = [n.op_type for n in onnx.load_from_string(patched).graph.node]
    assert 'Gather' in ops and 'Resize' not in ops   # static shapes: constant index vectors
    assert audit_onnx(onnx.load_from_string(patched)) == []       # nothing left to audit


def test_an_exported_scale_factor_is_exact_for_every_input_size():
    "scale 2.46 with dynamic H and W: output floor(in * 2.46) and index floor(d / 2.46), exact."
    model = torch.nn.Upsample(scale_factor=2.46, mode='nearest').eval()
    buffer = io.BytesIO()
    x = torch.zeros(1, 1, 26, 26)
    with patch(model):
        torch.onnx.export(model, x, buffer, dynamo=False, input_names=['x'],
                          dynamic_axes={'x': {2: 'h', 3: 'w'}})
    assert 'Resize' not in [n.op_type for n in onnx.load_from_string(buffer.getvalue()).graph.node]
    for h, w in ((26, 26), (13, 40)):
        x = torch.arange(h * w, dtype=torch.float32).reshape(1, 1, h, w)
        rows = [int(Fraction(d) / Fraction(2.46)) for d in range(int(h * 2.46))]
        cols = [int(Fraction(d) / Fraction(2.46)) for d in range(int(w * 2.46))]
        want = x.numpy()[:, :, rows][:, :, :, cols]
        np.testing.assert_array_equal(run(buffer.getvalue(), x), want)
