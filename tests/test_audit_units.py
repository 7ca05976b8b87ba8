"""Counts say what they count, the same way in `check` and `audit`, text and JSON: wrong output
pixels per image of how many, and for a tensor of several images, its elements. The numbers are
PyTorch's 224 -> 192 (asymmetric/floor) count, which chapter R11 measures by running PyTorch."""
import contextlib
import io
import json

import numpy as np
import onnx
import pytest

from hostile_onnx import one_resize
from resize_nearest import cli
from resize_nearest.models.audit import audit_onnx, check, count_text
from resize_nearest.maps.index_map import src_index_exact, src_index_fp32

PER_IMAGE = '1,143 of 36,864 output pixels per image'


def pytorch_wrong_pixels():
    "PyTorch's float32 map on 224 -> 192, per image, from the map itself (rows x columns)."
    d = np.arange(192)
    right = int((src_index_fp32(d, 224, 192) == src_index_exact(d, 224, 192)).sum())
    return 192 * 192 - right * right


def test_count_text_states_the_unit():
    assert pytorch_wrong_pixels() == 1143
    assert count_text(1143, 36864) == PER_IMAGE
    assert count_text(3429, 36864, 3) == PER_IMAGE + '; 3,429 of 110,592 elements'
    assert count_text(7, 64, 1, 1) == '7 of 64 output positions per line'


def test_check_json_rows_carry_the_count_with_its_unit():
    rows = {r['implementation']: r for r in check((224, 224), (192, 192))}
    assert rows['PyTorch nearest']['wrong'] == 1143
    assert rows['PyTorch nearest']['count'] == PER_IMAGE


def test_audit_of_the_same_resize_in_nhwc_counts_per_image_and_per_tensor():
    row, = audit_onnx(one_resize([1, 192, 192, 3], x_shape=(1, 224, 224, 3)))
    assert row['wrong']['PyTorch nearest'] == 3429                   # elements of the tensor
    assert row['counts']['PyTorch nearest'] == PER_IMAGE + '; 3,429 of 110,592 elements'
    assert row['unit'].startswith('wrong: output elements of the whole output tensor')


def test_check_and_audit_text_say_the_same_count(tmp_path, capsys):
    for argv in (['check', '224x224', '192x192'], ['audit', str(tmp_path / 'm.onnx')]):
        onnx.save(one_resize([1, 192, 192, 3], x_shape=(1, 224, 224, 3)), tmp_path / 'm.onnx')
        with pytest.raises(SystemExit), contextlib.redirect_stdout(io.StringIO()) as out:
            cli.main(argv)
        assert PER_IMAGE in out.getvalue(), out.getvalue()
