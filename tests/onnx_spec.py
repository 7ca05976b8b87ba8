"""The ONNX Resize specification's nearest formulas in Fraction arithmetic: an oracle written from
the operator's documentation (onnx/docs/Operators.md, Resize-19: coordinate_transformation_mode and
nearest_mode), independent of resize_nearest.maps.nearest_modes and of every kernel."""
import glob
import math
import os
from fractions import Fraction

import numpy as np
import onnx
from onnx import numpy_helper

KERNEL_MODES = ('half_pixel', 'half_pixel_symmetric', 'pytorch_half_pixel', 'align_corners',
                'asymmetric', 'tf_half_pixel_for_nn')
ROUNDINGS = ('round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil')


def spec_map(mode, rounding, n_in, n_out, scale=None):
    "Source index of every output index along one axis, by the specification's formulas."
    s = Fraction(n_out, n_in) if scale is None else Fraction(float(scale))
    half = Fraction(1, 2)
    coordinate = {  # x of output index d, per coordinate_transformation_mode
        'asymmetric': lambda d: d / s,
        'half_pixel': lambda d: (d + half) / s - half,
        'pytorch_half_pixel': lambda d: (d + half) / s - half if n_out > 1 else Fraction(0),
        'half_pixel_symmetric':
            lambda d: Fraction(n_in, 2) * (1 - n_out / (s * n_in)) + (d + half) / s - half,
        'tf_half_pixel_for_nn': lambda d: (d + half) / s,
        'align_corners': lambda d: Fraction(d * (n_in - 1), n_out - 1) if n_out > 1 else Fraction(0),
    }[mode]
    out = []
    for d in range(n_out):
        x = coordinate(d)
        tie = x - math.floor(x) == half
        r = {'floor': math.floor(x), 'ceil': math.ceil(x),
             'round_prefer_floor': math.floor(x) if tie else round(x),
             'round_prefer_ceil': math.ceil(x) if tie else round(x)}[rounding]
        out.append(min(max(r, 0), n_in - 1))
    return out


def spec_resize(x, out_hw, mode, rounding, scales=(None, None)):
    "An NHWC image resized by the specification's maps, one axis after the other."
    rows = spec_map(mode, rounding, x.shape[1], out_hw[0], scales[0])
    cols = spec_map(mode, rounding, x.shape[2], out_hw[1], scales[1])
    return x[:, np.array(rows)][:, :, np.array(cols)]


# --- ONNX's own conformance data (tests/data/onnx_nearest, see SOURCE.md there) ------------------
DATA = os.path.join(os.path.dirname(__file__), 'data', 'onnx_nearest')
CONFORMANCE = sorted(glob.glob(os.path.join(DATA, 'test_*'))
                     + glob.glob(os.path.join(DATA, 'opset10', 'test_*')))


def read_tensor(path):
    "A TensorProto file of ONNX's backend test data as a NumPy array."
    tensor = onnx.TensorProto()
    with open(path, 'rb') as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def conformance_case(folder):
    "(model path, {input name: array}, expected output) of one conformance folder."
    path = os.path.join(folder, 'model.onnx')
    names = [i.name for i in onnx.load(path).graph.input]
    data = os.path.join(folder, 'test_data_set_0')
    inputs = {n: read_tensor(os.path.join(data, f'input_{k}.pb')) for k, n in enumerate(names)}
    return path, inputs, read_tensor(os.path.join(data, 'output_0.pb'))
