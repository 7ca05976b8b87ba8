"""The audit's typed reports: one record (`AuditRow`) for an ONNX node, a PyTorch upsample call and a
size pair, printed by `--json` as `dataclasses.asdict`; the command line deciding with the audit's
own `is_affected`; `audit --fix` reading the model file once; and the runtimes the report adds
(torch.compile run, JAX run, TensorRT modelled from its operator documentation), each row saying
whether it was run or modelled and from what."""
import contextlib
import dataclasses
import io
import json
import math
from fractions import Fraction

import numpy as np
import onnx
import pytest

from hostile_onnx import one_resize
from resize_nearest.models.audit import NEURON
from resize_nearest import cli
from resize_nearest.models import audit as audit_module
from resize_nearest.models.audit import (EXACT, TENSORRT, AuditRow, RuntimeRow, audit_onnx, audit_sizes,
                                  check)
from resize_nearest.studies.mode_peers import JAX, TENSORRT_DOCS, TORCH_COMPILE, tensorrt_axis
from resize_nearest.maps.nearest_modes import source_index

# the keys the reports document (chapter R11, "Typed reports"), in order
AUDIT_KEYS = ['node', 'op', 'where', 'convention', 'status', 'input_shape', 'output_shape',
              'input_size', 'output_size', 'scales', 'resized', 'note', 'wrong', 'unit', 'counts',
              'sources', 'pytorch_wrong_elements']
RUNTIME_KEYS = ['implementation', 'status', 'wrong', 'count', 'first_output', 'source',
                'exact_source', 'kind', 'basis']


def run_cli(*args):
    "(exit status, stdout) of `resize-nearest ARGS` run in this process."
    with pytest.raises(SystemExit) as stop, contextlib.redirect_stdout(io.StringIO()) as out:
        cli.main([*map(str, args)])
    return stop.value.code, out.getvalue()


def test_onnx_audit_rows_are_audit_records_with_the_documented_keys():
    row, = audit_onnx(one_resize([1, 1, 22, 22]))
    assert isinstance(row, AuditRow)
    assert list(dataclasses.asdict(row)) == AUDIT_KEYS
    assert (row.input_size, row.output_size) == ((26, 26), (22, 22))
    assert row['wrong'] is row.wrong and 'resized' in row and 'other' not in row
    with pytest.raises(KeyError):
        row['input_sizes']


def test_torch_audit_rows_are_the_same_record_with_the_same_size_keys():
    torch = pytest.importorskip('torch')
    from resize_nearest.torch import audit as torch_audit

    class Up(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.interpolate(x, size=(22, 22), mode='nearest')

    row, = torch_audit(Up(), (torch.rand(1, 2, 26, 26),))
    onnx_row, = audit_onnx(one_resize([1, 2, 22, 22], x_shape=(1, 2, 26, 26)))
    assert type(row) is AuditRow and list(dataclasses.asdict(row)) == AUDIT_KEYS
    assert (row.input_shape, row.output_shape) == (onnx_row.input_shape, onnx_row.output_shape)
    assert (row.input_size, row.output_size) == (onnx_row.input_size, onnx_row.output_size)
    assert row.wrong == onnx_row.wrong and row.counts == onnx_row.counts
    assert row.pytorch_wrong_elements == row.wrong['PyTorch nearest'] == 2 * 43


def test_audit_json_prints_the_record_keys(tmp_path):
    onnx.save(one_resize([1, 1, 22, 22]), tmp_path / 'm.onnx')
    status, out = run_cli('audit', tmp_path / 'm.onnx', '--json')
    row, = json.loads(out)
    assert status == 1 and list(row) == AUDIT_KEYS
    assert row['input_shape'] == [1, 1, 26, 26] and row['wrong']['PyTorch nearest'] == 43


@pytest.mark.parametrize('mode', ['asymmetric', 'half_pixel'])
def test_check_json_prints_runtime_rows_with_the_documented_keys(mode):
    status, out = run_cli('check', '26x26', '22x22', '--coordinate-transformation-mode', mode,
                          '--json')
    rows = json.loads(out)
    assert status in (0, 1) and all(list(r) == RUNTIME_KEYS for r in rows)
    assert all(r['kind'] in ('run', 'modelled') and r['basis'] for r in rows)


def test_check_decides_with_the_audits_is_affected(monkeypatch):
    "4 -> 8 is right everywhere; with the audit's is_affected saying otherwise, check says 1."
    assert run_cli('check', '4x4', '8x8')[0] == 0
    monkeypatch.setattr(cli, 'is_affected', lambda value: True)
    assert run_cli('check', '4x4', '8x8')[0] == 1


def test_check_rows_are_runtime_records():
    rows = check((26, 26), (22, 22))
    assert all(isinstance(r, RuntimeRow) for r in rows)
    assert {r.implementation: r.kind for r in rows}[NEURON] == 'modelled'
    assert {r.implementation: r.kind for r in rows}['PyTorch nearest'] == 'run'


def test_audit_fix_reads_the_model_file_once(tmp_path, monkeypatch):
    model = tmp_path / 'm.onnx'
    onnx.save(one_resize([1, 1, 22, 22]), model)
    real, reads = onnx.load, []

    def counting(f, *args, **kwargs):
        reads.append(str(f))
        return real(f, *args, **kwargs)

    monkeypatch.setattr(onnx, 'load', counting)
    monkeypatch.setattr(onnx, 'load_model', counting)
    status, out = run_cli('audit', model, '--fix', tmp_path / 'exact.onnx')
    assert status == 0 and 'replaced' in out
    assert reads == [str(model)]


def test_every_runtime_row_says_run_or_modelled_and_from_what():
    row = audit_sizes((26, 26), (22, 22), 'half_pixel', 'round_prefer_floor')
    rows = {r.implementation: r for r in row.runtime_rows()}
    assert all(r.kind in ('run', 'modelled') and r.basis for r in rows.values())
    assert rows[TENSORRT].kind == 'modelled' and TENSORRT_DOCS in rows[TENSORRT].basis
    assert rows[JAX].kind == 'run' and rows[TORCH_COMPILE].kind == 'run'
    asymmetric = {r.implementation: r for r in audit_sizes((26, 26), (22, 22)).runtime_rows()}
    assert asymmetric[TORCH_COMPILE].status.startswith('not run: torch.compile runs only on request')


@pytest.mark.parametrize('mode', ['align_corners', 'asymmetric', 'half_pixel'])
@pytest.mark.parametrize('rounding', ['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil'])
@pytest.mark.parametrize('n_in, n_out', [(4, 8), (16, 4), (3, 5), (8, 2)])
def test_tensorrt_model_is_onnx_exact_map_where_float32_is_exact(mode, rounding, n_in, n_out):
    """Where the documented coordinate is exact in float32 (power-of-two ratios, and align_corners
    3 -> 5 with ratio 1/2), TensorRT's documented transformation and rounding (HALF_DOWN for
    round_prefer_floor, HALF_UP for round_prefer_ceil) are ONNX's map (onnx Resize spec)."""
    assert tensorrt_axis(mode, rounding, n_in, n_out).tolist() == source_index(
        mode, rounding, n_in, n_out).tolist()


def test_tensorrt_rounding_at_a_tie_follows_the_documentation():
    "align_corners 3 -> 5: x = 1/2 at d = 1: HALF_UP reads 1, HALF_DOWN reads 0."
    assert tensorrt_axis('align_corners', 'round_prefer_ceil', 3, 5)[1] == 1
    assert tensorrt_axis('align_corners', 'round_prefer_floor', 3, 5)[1] == 0
    with pytest.raises(ValueError, match="mode must be one of .* got 'tf_half_pixel_for_nn'"):
        tensorrt_axis('tf_half_pixel_for_nn', 'floor', 4, 8)


def test_tensorrt_row_counts_its_model_and_says_where_it_does_not_apply():
    row = audit_sizes((26, 26), (22, 22), 'half_pixel', 'floor')
    axis = tensorrt_axis('half_pixel', 'floor', 26, 22)
    exact = [min(25, max(0, math.floor((d + Fraction(1, 2)) * 26 / 22 - Fraction(1, 2))))
             for d in range(22)]
    right = int((axis == np.array(exact)).sum())
    assert row.wrong[TENSORRT] == 22 * 22 - right * right
    other = audit_sizes((26, 26), (22, 22), 'tf_half_pixel_for_nn', 'floor')
    assert other.wrong[TENSORRT].startswith('n/a: TensorRT documents')


def test_jax_row_counts_what_jax_itself_computes_on_an_index_image():
    jax = pytest.importorskip('jax')
    row = audit_sizes((26, 26), (22, 22), 'tf_half_pixel_for_nn', 'floor')
    image = np.arange(26 * 26, dtype=np.float32).reshape(26, 26)
    got = np.asarray(jax.image.resize(image, (22, 22), method='nearest')).astype(np.int64)
    index = [math.floor((d + Fraction(1, 2)) * 26 / 22) for d in range(22)]  # the ONNX spec
    exact = np.add.outer(np.array(index) * 26, index)
    assert row.wrong[JAX] == int((got != exact).sum())
    assert audit_sizes((26, 26), (22, 22)).wrong[JAX] == (
        'n/a: implements tf_half_pixel_for_nn/floor only')


def test_torch_compile_is_not_run_unless_asked(monkeypatch):
    def refuse(*args):
        raise AssertionError('compiled without being asked')

    monkeypatch.setattr(audit_module, 'compiled_torch_axis', refuse)
    row, = audit_onnx(one_resize([1, 1, 22, 22]))
    assert row.wrong[TORCH_COMPILE].startswith('not run')
    assert not row.wrong[TORCH_COMPILE].startswith('n/a')


# slow: a first torch.compile in a process takes about 4 s here. The filter: Inductor's own use
# of a deprecated torch.jit API, raised while compiling in this test
@pytest.mark.slow
@pytest.mark.filterwarnings('ignore:`torch.jit.script_method` is deprecated:DeprecationWarning')
def test_torch_compile_row_is_what_torch_compile_computes_on_a_scale_call():
    """F.interpolate(scale_factor=1.3) on a line of 2 (pytorch#175154's case): the row counts what
    torch.compile itself outputs against floor(d / 1.3), run here independently; eager ATen,
    which copies a line whose length the scale keeps, is counted apart."""
    torch = pytest.importorskip('torch')
    from resize_nearest.torch import audit as torch_audit

    class Up(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.interpolate(x, scale_factor=1.3, mode='nearest')

    x = torch.arange(2, dtype=torch.float32).reshape(1, 1, 2)
    row, = torch_audit(Up(), (x,), torch_compile=True)
    exact = x[:, :, [math.floor(Fraction(d) / Fraction(1.3)) for d in range(2)]]
    compiled = torch.compile(Up(), dynamic=False)(x)
    assert row.wrong[TORCH_COMPILE] == int((compiled != exact).sum())
    assert row.wrong['PyTorch nearest'] == int((Up()(x) != exact).sum())
    assert row.sources[TORCH_COMPILE].startswith('run: torch.compile')


@pytest.mark.slow
def test_check_with_torch_compile_runs_it_and_counts_it():
    status, out = run_cli('check', '224x224', '192x192', '--torch-compile', '--json')
    rows = {r['implementation']: r for r in json.loads(out)}
    assert status == 1 and rows[TORCH_COMPILE]['status'] == 'ran'
    assert rows[TORCH_COMPILE]['wrong'] == rows['PyTorch nearest']['wrong'] == 1143
    assert rows[EXACT]['wrong'] == 0
