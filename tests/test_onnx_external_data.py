"""Sizes stored in external data files: found in the model's folder as `onnx.load(path)` finds
them, whatever the current folder holds; locations ONNX refuses are refused, before any reading,
as read errors of the audit command (exit 2, JSON kept)."""
import os

import numpy as np
import onnx
import pytest

from resize_nearest.models.audit import audit_onnx
from resize_nearest.models.onnx_reader import read_resizes
from resize_nearest.models.onnx_refusals import ModelReadError, load_model
from hostile_onnx import cli_audit, external_sizes, one_resize, runtime_sizes, write_sizes


def test_external_sizes_are_read_from_the_models_folder_not_the_current_one(
        tmp_path, monkeypatch, capsys):
    (tmp_path / 'model').mkdir()
    (tmp_path / 'elsewhere').mkdir()
    write_sizes(tmp_path / 'model' / 'sizes.bin', [1, 1, 22, 22])
    write_sizes(tmp_path / 'elsewhere' / 'sizes.bin', [1, 1, 7, 41])
    path = tmp_path / 'model' / 'm.onnx'
    onnx.save(one_resize(None, tensor=external_sizes('sizes.bin')), path)
    onnx.load(path)  # ONNX itself accepts the model from here
    monkeypatch.chdir(tmp_path / 'elsewhere')
    row, = audit_onnx(str(path))
    assert row['resized'] == 'axis 2: 26->22, axis 3: 26->22'
    # onnxruntime 1.32 cannot load it ("Cannot parse data from external tensors" in Resize's shape
    # inference), and the command asks onnxruntime of every model first: exit 2, as --help says,
    # with the rows read from the model's own folder kept in the JSON
    status, out, _ = cli_audit(path, capsys)
    assert status == 2 and 'onnxruntime cannot load it' in out['error'], out
    assert out['report'][0]['resized'] == 'axis 2: 26->22, axis 3: 26->22'


def test_a_model_found_by_a_relative_path_reads_its_own_folder(tmp_path, monkeypatch):
    (tmp_path / 'model').mkdir()
    write_sizes(tmp_path / 'model' / 'sizes.bin', [1, 1, 13, 13])
    onnx.save(one_resize(None, tensor=external_sizes('sizes.bin')), tmp_path / 'model' / 'm.onnx')
    monkeypatch.chdir(tmp_path)
    r, = read_resizes(os.path.join('model', 'm.onnx'))
    assert r.sizes == (1, 1, 13, 13)


def _outside(tmp_path):
    "An absolute location of a file that holds valid sizes, outside the model's folder."
    write_sizes(tmp_path / 'outside.bin', [1, 1, 22, 22])
    return str(tmp_path / 'outside.bin')


@pytest.mark.parametrize('location, message', [
    (_outside, 'an absolute location'),
    (lambda tmp: '../outside.bin', "outside the model's folder"),
    (lambda tmp: 'sub/../../outside.bin', "outside the model's folder"),
    (lambda tmp: 'missing.bin', "which is not a file in the model's folder"),
    (lambda tmp: 'link.bin', 'a symbolic link'),
])
def test_external_data_onnx_refuses_is_a_read_error(tmp_path, capsys, location, message):
    (tmp_path / 'model').mkdir()
    write_sizes(tmp_path / 'outside.bin', [1, 1, 22, 22])
    os.symlink(tmp_path / 'outside.bin', tmp_path / 'model' / 'link.bin')
    path = tmp_path / 'model' / 'm.onnx'
    onnx.save(one_resize(None, tensor=external_sizes(location(tmp_path))), path)
    with pytest.raises(Exception):  # ONNX's own loader refuses each of these
        onnx.load(path)
    with pytest.raises(ModelReadError, match=message):
        load_model(str(path))
    status, report, err = cli_audit(path, capsys)
    assert status == 2 and message in report['error'] and 'Traceback' not in err


def test_external_data_past_the_end_of_its_file_is_a_read_error(tmp_path):
    write_sizes(tmp_path / 'sizes.bin', [1, 1, 22])  # 24 bytes for 32
    onnx.save(one_resize(None, tensor=external_sizes('sizes.bin')), tmp_path / 'm.onnx')
    with pytest.raises(ModelReadError, match='past its end'):
        load_model(str(tmp_path / 'm.onnx'))


def test_external_sizes_of_a_model_proto_say_the_path_is_needed(tmp_path):
    "A ModelProto has no folder: its external sizes make an invalid row, not a guess at one."
    row, = audit_onnx(one_resize(None, tensor=external_sizes('sizes.bin')))
    assert row['status'].startswith("invalid: tensor 's' keeps its data in 'sizes.bin'")
    assert 'the model\'s path' in row['status']


def test_the_sizes_run_reads_external_constants_from_the_models_folder(tmp_path, monkeypatch):
    "Sizes computed at run time from an external constant: the run reads the model's own file."
    m = runtime_sizes([1, 1, 26, 26])
    tail = m.graph.initializer[0]
    tail.ClearField('int64_data')
    tail.raw_data = np.array([22, 22], dtype=np.int64).tobytes()
    (tmp_path / 'model').mkdir()
    (tmp_path / 'elsewhere').mkdir()
    onnx.save(m, tmp_path / 'model' / 'm.onnx', save_as_external_data=True, location='w.bin',
              size_threshold=0)
    write_sizes(tmp_path / 'elsewhere' / 'w.bin', [7, 41])
    monkeypatch.chdir(tmp_path / 'elsewhere')
    r, = read_resizes(str(tmp_path / 'model' / 'm.onnx'))
    assert r.problem is None and r.sizes == (1, 1, 22, 22), r
