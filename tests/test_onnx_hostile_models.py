"""Models built to break the audit: each is a read error (exit 2) or a row that says what is wrong
with its node, the other nodes are still analysed, `--json` stays valid, and nothing allocates
what a declared size asks for before the audit checks that it fits."""
import math
import os
import tracemalloc

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from resize_nearest.models import onnx_reader
from resize_nearest.models.audit import audit_onnx
from resize_nearest.maps.nearest_modes import COORDINATE_MODES, NEAREST_MODES, source_index
from resize_nearest.models.onnx_reader import AxisResize, ResizeNode, read_resizes, resize_axes
from resize_nearest.models.onnx_refusals import ModelReadError
from hostile_onnx import (
    cli_audit, model_of, one_resize, resize_node, runtime_sizes, sizes_tensor, with_good_node,
)


def by_node(report):
    return {r['node']: r for r in report}


def _bad_type():
    t = sizes_tensor('s', [1, 1, 22, 22])
    t.data_type = 9999
    return t


def _short_raw():
    t = TensorProto(name='s', data_type=TensorProto.INT64, dims=[4])
    t.raw_data = np.array([1, 1, 22, 22], dtype=np.int64).tobytes()[:20]
    return t


def _huge_dims():
    t = sizes_tensor('s', [1, 1, 22, 22])
    t.dims[0] = 2**40
    return t


@pytest.mark.parametrize('tensor, message', [
    (_bad_type, "invalid: tensor 's' has data type 9999, which ONNX does not define"),
    (_short_raw, "invalid: tensor 's' has 20 bytes of raw data for 4 int64 values"),
    (_huge_dims, "invalid: tensor 's' has dims [1099511627776]"),
])
def test_a_sizes_tensor_that_cannot_be_converted_is_an_invalid_row(tmp_path, capsys, tensor,
                                                                   message):
    path = tmp_path / 'm.onnx'
    onnx.save(with_good_node([resize_node('y', 'x', 's')], [tensor()]), path)
    rows = by_node(audit_onnx(str(path)))
    assert rows['y']['status'].startswith(message), rows['y']
    assert rows['good']['status'] == 'analysed'
    status, report, err = cli_audit(path, capsys)
    assert status == 2 and 'onnxruntime cannot load it' in report['error']  # exit 2, with rows
    assert by_node(report['report'])['y']['status'] == rows['y']['status']
    assert 'Traceback' not in err


def test_tensors_no_resize_reads_are_not_converted():
    "A broken weight elsewhere in the model is not the audit's business: only sizes are read."
    weight = _bad_type()
    weight.name = 'w'
    rows = by_node(audit_onnx(with_good_node([], [weight])))
    assert rows['good']['status'] == 'analysed'


@pytest.mark.parametrize('node, message', [
    (helper.make_node('Resize', [], [], name='bare', mode='nearest'), 'invalid: Resize needs its input X'),
    (helper.make_node('Resize', ['x', '', '', 'good_sizes'], [], name='bare', mode='nearest'),
     'invalid: Resize needs its output Y'),
    (resize_node('bare', 'x', 'good_sizes', axes=['a', 'b']),
     'invalid: attribute axes must be ints, got strings'),
    (resize_node('bare', 'x', 'good_sizes', nearest_mode=3),
     'invalid: attribute nearest_mode must be a string, got int'),
])
def test_a_node_that_breaks_the_operator_is_an_invalid_row(tmp_path, capsys, node, message):
    path = tmp_path / 'm.onnx'
    onnx.save(with_good_node([node]), path)
    rows = by_node(audit_onnx(str(path)))
    assert rows['bare']['status'] == message and rows['good']['status'] == 'analysed'
    status, report, err = cli_audit(path, capsys)
    if status == 2:  # a model onnxruntime refuses to load: exit 2, the rows given with the reason
        assert 'onnxruntime cannot load it' in report['error']
        report = report['report']
    assert status in (0, 1, 2) and 'Traceback' not in err and len(report) == 2


def test_a_model_local_function_that_calls_itself_is_a_read_error(tmp_path, capsys):
    body = [helper.make_node('F', ['a'], ['b'], domain='local')]
    f = helper.make_function('local', 'F', ['a'], ['b'], body,
                             [helper.make_opsetid('', 19), helper.make_opsetid('local', 1)])
    m = model_of([helper.make_node('F', ['x'], ['y'], domain='local')], {'x': [1, 1, 26, 26]},
                 functions=[f])
    with pytest.raises(ModelReadError, match='model-local functions'):
        read_resizes(m)
    onnx.save(m, tmp_path / 'm.onnx')
    status, report, err = cli_audit(tmp_path / 'm.onnx', capsys)
    assert status == 2 and 'model-local functions' in report['error'] and 'Traceback' not in err
    assert str(tmp_path / 'm.onnx') in report['error']              # the error names the file


def test_an_input_too_large_to_feed_is_not_run_and_says_why():
    "40000 x 40000 float32 is 6 GB of zeros: the run that would compute the sizes gives up first."
    tracemalloc.start()
    r, = read_resizes(runtime_sizes([1, 1, 40000, 40000]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert r.problem.startswith("not analysed: 'sizes' is known only when the model runs")
    assert "model input 'x' of shape (1, 1, 40000, 40000) float32" in r.problem
    assert peak < 2**27


@pytest.mark.parametrize('dims', [[1, 1, 2**40, 26], [1, 1, -3, 26]])
def test_an_input_shape_outside_what_an_axis_can_be_is_an_invalid_row(dims):
    row, = audit_onnx(one_resize([1, 1, 22, 22], x_shape=dims))
    assert row['status'].startswith('invalid: the input shape'), row


def _physical_memory(monkeypatch, gib):
    "This machine, as the audit's memory check sees it, with `gib` GiB."
    real = os.sysconf
    pages = gib * 2**30 // real('SC_PAGE_SIZE')
    monkeypatch.setattr(os, 'sysconf', lambda n: pages if n == 'SC_PHYS_PAGES' else real(n))


def test_declared_sizes_the_memory_cannot_hold_are_refused_before_any_work(monkeypatch):
    "A 1 x 1 image resized to 2^31 - 1 rows: an index array per map would be 16 GiB each."
    _physical_memory(monkeypatch, 16)
    m = one_resize([1, 1, 2**31 - 1, 1], x_shape=(1, 1, 1, 1))
    assert len(m.SerializeToString()) < 300
    tracemalloc.start()
    row, = audit_onnx(m)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert row['status'].startswith('not analysed: auditing') and 'GiB of memory' in row['status']
    assert row['resized'] == 'axis 2: 1->2147483647' and peak < 2**27


def test_an_untouched_axis_of_any_length_costs_no_index_array():
    "2^31 - 1 channels copied unchanged: only the image axes are resized, and only they cost."
    tracemalloc.start()
    row, = audit_onnx(one_resize([1, 2**31 - 1, 22, 22], x_shape=(1, 2**31 - 1, 26, 26)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert row['status'] == 'analysed' and row['resized'] == 'axis 2: 26->22, axis 3: 26->22'
    assert peak < 2**27


SCALES = [None, 1.0, 1.0000001, 0.999, 2.0, 0.5, 1.25]


@pytest.mark.parametrize('mode', COORDINATE_MODES)
def test_an_axis_is_listed_exactly_when_its_map_is_not_the_identity(mode):
    "resize_axes decides an unchanged length without an index array: checked against one."
    roi = (0.0, 1.0) if mode != 'tf_crop_and_resize' else (0.1, 0.9)
    for rounding in NEAREST_MODES:
        for n in (1, 2, 3, 7, 64):
            for scale in SCALES if mode != 'tf_crop_and_resize' else [None]:
                if scale is not None and math.floor(n * scale) != n:
                    continue
                r = ResizeNode('n', 'graph', 'Resize', 19, 'nearest', mode, rounding,
                               input_shape=(n,), axes=(0,), roi=(roi,),
                               sizes=None if scale else (n,), scales=(scale,) if scale else None)
                listed = bool(resize_axes(r))
                index = source_index(mode, rounding, n, n, scale, roi)
                assert listed == (not np.array_equal(index, np.arange(n))), (mode, rounding, n)


def test_onnxruntime_not_run_names_the_input_when_the_input_is_the_reason():
    "4096 x 4096 reduced to 1 x 1: the input, not the output, is past the bound."
    row, = audit_onnx(one_resize([1, 1, 1, 1], x_shape=(1, 1, 4096, 4096)))
    assert row['wrong']['onnxruntime'].startswith('not run: 16777216 input elements')


def test_an_opset_1_upsample_is_named_as_itself():
    up = helper.make_node('Upsample', ['x'], ['y'], name='up', mode='nearest',
                          height_scale=2.0, width_scale=2.0)
    row, = audit_onnx(model_of([up], {'x': [1, 1, 6, 6]}, opset=1))
    assert row['status'].startswith('not analysed: Upsample-1 '), row


def test_check_of_sizes_the_memory_cannot_hold_is_refused_before_any_work(monkeypatch):
    "check's engine for any convention: 1 -> 2^31 - 1 columns, refused as the audit refuses it."
    from resize_nearest.models.audit import convention_wrong_pixels

    _physical_memory(monkeypatch, 16)
    with pytest.raises(ValueError, match=r'checking \(1, 1\) -> \(1, 2147483647\) needs .* GiB'):
        convention_wrong_pixels((1, 1), (1, 2**31 - 1), 'half_pixel', 'floor')


def test_a_node_whose_analysis_fails_keeps_the_columns_the_text_report_prints(
        tmp_path, monkeypatch, capsys):
    "A failure inside one node's analysis: its row still has every column, and the text prints."
    from resize_nearest import cli

    from resize_nearest.models import audit
    def broken(r, axes, **options):  # the engines= of chapter R13 too
        raise RuntimeError('an engine broke')

    monkeypatch.setattr(audit, 'node_wrong_elements', broken)
    row, = audit.audit_onnx(one_resize([1, 1, 22, 22]))
    assert row['status'] == 'failed: RuntimeError: an engine broke'
    assert row['convention'] == 'asymmetric/floor' and row['input_shape'] == (1, 1, 26, 26)
    onnx.save(one_resize([1, 1, 22, 22]), tmp_path / 'm.onnx')
    assert cli.audit_command(str(tmp_path / 'm.onnx')) == 3  # not analysed (resize-nearest audit --help)
    assert 'failed: RuntimeError: an engine broke' in capsys.readouterr().out
