"""ExecuTorch in the PyTorch audit (`resize_nearest.torch.audit(..., executorch=True)`, chapter R14,
appendix E4e). The fast tests run the plumbing: a stand-in child that runs the exported probe with
PyTorch eager (its counts are then PyTorch's, written out here in integers), and the row a missing
ExecuTorch gives. The slow tests run ExecuTorch for real (each skips, naming what to install, where
it is missing; under CI a missing one fails): its counts at 224 -> 192 and at scale 2 against a
direct run through ExecuTorch's pybindings, and the drop-in's exact path exported and run there."""
import importlib.util, os, textwrap

import numpy as np
import pytest

torch = pytest.importorskip('torch')
import torch.nn.functional as F

import resize_nearest.torch as rt_torch
from resize_nearest.models import runtime_iree_executorch as ie
from resize_nearest.models.runtime_children import Runtime, run_cases
from tests.test_runtime_iree_executorch import STAND_IN, Upsample, executorch_direct, needs

NAMES = [rt.name for rt in (ie.EXECUTORCH, ie.EXECUTORCH_XNNPACK)]


def wrong_224_192() -> int:
    "PyTorch eager's wrong elements of one 224 x 224 -> 192 x 192 image against (224 d) // 192."
    x = torch.arange(224 * 224, dtype=torch.float32).reshape(1, 1, 224, 224)
    y = F.interpolate(x, size=(192, 192), mode='nearest')[0, 0].numpy().astype(np.int64)
    rows = np.arange(192) * 224 // 192
    return int((y != np.add.outer(rows * 224, rows)).sum())


@pytest.fixture
def eager_stand_in(tmp_path, monkeypatch):
    "The audit's ExecuTorch runtimes replaced by one stand-in child that runs the probe in eager."
    (tmp_path / 'eager_audit_stand_in.py').write_text(textwrap.dedent(STAND_IN))
    monkeypatch.setenv('PYTHONPATH', os.pathsep.join([str(tmp_path),
                                                      os.environ.get('PYTHONPATH', '')]))
    stand_in = Runtime('eager', ('torch',), 'nothing', 'eager_audit_stand_in:run',
                       'eager_audit_stand_in:versions', python_env='RESIZE_NEAREST_NO_SUCH_PYTHON')
    monkeypatch.setattr(rt_torch, 'EXECUTORCH_RUNTIMES', (stand_in,))
    return stand_in


def test_audit_without_executorch_runs_none():
    (row,) = rt_torch.audit(Upsample(size=(192, 192)), torch.zeros(1, 3, 224, 224))
    assert not set(NAMES) & set(row.wrong)


def test_each_row_gains_the_stand_in_count_and_its_source(eager_stand_in):
    class Two(torch.nn.Module):
        def forward(self, x):
            y = F.interpolate(x, size=(192, 192), mode='nearest')
            return F.interpolate(y, scale_factor=2, mode='nearest')

    rows = rt_torch.audit(Two(), torch.zeros(1, 3, 224, 224), executorch=True)
    assert [r.wrong['eager'] for r in rows] == [3 * wrong_224_192(), 0]
    # the stand-in is PyTorch itself: it counts what the audit's own PyTorch row counts
    assert [r.wrong['eager'] for r in rows] == [r.wrong['PyTorch nearest'] for r in rows]
    n = wrong_224_192()
    assert rows[0].counts['eager'] == (f'{n:,} of {192 * 192:,} output pixels per image;'
                                       f' {3 * n:,} of {3 * 192 * 192:,} elements')
    assert rows[0].sources['eager'] == (
        f'run: eager (torch {torch.__version__}) on CPU in a child process, the call alone on an'
        ' index image (appendix E4e)')
    assert [r.runtime_rows()[-1].implementation for r in rows] == ['eager', 'eager']


@pytest.mark.skipif(importlib.util.find_spec('executorch') is not None,
                    reason='ExecuTorch is installed in this Python: nothing is missing')
def test_a_missing_executorch_is_a_row_with_its_install_command(monkeypatch):
    monkeypatch.delenv(ie.EXECUTORCH_PYTHON, raising=False)
    (row,) = rt_torch.audit(Upsample(size=(192, 192)), torch.zeros(1, 3, 224, 224),
                            executorch=True)
    want = f'not installed ({ie.EXECUTORCH.install})'
    assert {n: row.wrong[n] for n in NAMES} == {n: want for n in NAMES}
    assert not set(NAMES) & set(row.counts)
    assert all(row.sources[n].startswith(f'run: {n} (versions not reported)') for n in NAMES)
    assert 'tools/iree_executorch_venv.sh' in want


# ---- slow: ExecuTorch for real -----------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize('how,out', [(dict(size=(192, 192)), 192), (dict(scale_factor=2), 448)],
                         ids=['224-192', 'scale-2'])
def test_audit_counts_agree_with_a_direct_executorch_run(how, out, tmp_path):
    python = needs(ie.EXECUTORCH)
    index = torch.arange(224 * 224, dtype=torch.float32).reshape(1, 1, 224, 224)
    rows = np.arange(out) * 224 // out  # asymmetric/floor: floor(d * in / out), d // 2 at scale 2
    exact = np.add.outer(rows * 224, rows)
    direct = int((executorch_direct(python, tmp_path, Upsample(**how), index)[0, 0] != exact).sum())
    (row,) = rt_torch.audit(Upsample(**how), torch.rand(1, 3, 224, 224), executorch=True)
    assert {n: row.wrong[n] for n in NAMES} == {n: 3 * direct for n in NAMES}
    assert all(row.sources[n].startswith(f'run: {n} (executorch ') for n in NAMES), row.sources
    if out == 448:
        assert direct == 0
    else:  # ExecuTorch's kernel indexes as PyTorch eager does (appendix E4e)
        assert direct == wrong_224_192() > 0


@pytest.mark.slow
def test_the_drop_in_exact_path_runs_exactly_on_the_audits_runtimes():
    needs(ie.EXECUTORCH)
    from resize_nearest.torch import interpolate_nearest

    class Exact(torch.nn.Module):
        def forward(self, x):
            return interpolate_nearest(x, size=(192, 192))

    index = torch.arange(224 * 224, dtype=torch.float32).reshape(1, 1, 224, 224)
    # the exact path leaves no nearest upsample that copies anything: nothing for the audit to list
    assert rt_torch.audit(Exact(), index, executorch=True) == []
    rows = np.arange(192) * 224 // 192
    for runtime in rt_torch.EXECUTORCH_RUNTIMES:
        _, (result,) = run_cases(runtime, [ie.exported_case(Exact(), index)])
        assert 'outputs' in result, (runtime.name, result)
        wrong = int((result['outputs'][0][0, 0] != np.add.outer(rows * 224, rows)).sum())
        assert wrong == 0, (runtime.name, wrong)
