"""The Trainium path end to end, here: with the test-only stand-in package first on the path, tools/neuron_check.py
and the `#| neuron` cells of chapter 3.3 run through the package's real-NKI code path (nothing in the package knows
about the stand-in). On a Trainium host the same commands run against the real nki; see the README.
The compiled-model step runs against the stand-in torch_neuronx.trace, which applies the described kernel: its rows
must say they come from a stand-in, and its verdicts can only repeat the description.
Each runs with the stand-in posing as NKI 0.3 (its default) and as 0.7 and 0.8, the releases whose compile checks the
LNC degree (the report must carry it) and whose loops are deprecated Python ranges."""
import json, os, subprocess, sys
import pytest
from pathlib import Path
from resize_nearest.host.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, 'PYTHONPATH': f"{ROOT / 'tests' / 'standin'}:{ROOT}"}

RELEASES = ('0.3', '0.7', '0.8')


def _env(release):
    "The stand-in posing as `release`, with no LNC setting of the caller's: the backend must set it."
    env = {k: v for k, v in ENV.items() if k not in ('NEURON_LOGICAL_NC_CONFIG', 'NEURON_CC_FLAGS')}
    return {**env, 'NKI_STANDIN_VERSION': release}


@pytest.mark.slow
@pytest.mark.parametrize('release', RELEASES)
def test_neuron_check_script(tmp_path, release):
    rep = tmp_path / 'report.json'
    r = subprocess.run([sys.executable, 'tools/neuron_check.py', '--report', str(rep), '--warmup', '0', '--iters', '1',
                        '--widths', '40:43'],
                       cwd=ROOT, capture_output=True, text=True, env=_env(release))
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(rep.read_text())
    assert report['nki_version'] == f'{release}.0+standin' and report['NKI_PRECISE_FP'] == '1'
    rows = report['rows']
    # every registered variant runs (the published kernel's too), and `auto`
    assert len(rows) >= 30 and {x['variant'] for x in rows} == {*VARIANTS, 'auto'}
    for x in rows:
        if x['case'] == 'out of bounds' and x['variant'] == 'as_compiled':  # the exact ones pass
            assert x['status'] == 'expected-oob' and 'OutOfBoundsError' in x['interpreter'] and x['device'].startswith('error:')
        else: assert x['status'] == 'pass' and x['simulator'] == x['device'] == 'bit-exact' and x['host_ms_median'] > 0, x
    assert any(x['case'] == 'out of bounds' and x['variant'] == 'as_compiled' for x in rows)
    assert {x['dtype'] for x in rows} >= {'float32', 'bfloat16', 'uint8'}
    modes = {x['convention'].split(' / ')[0] for x in rows}                 # every coordinate mode on the device
    assert modes == {'asymmetric', 'half_pixel', 'half_pixel_symmetric', 'pytorch_half_pixel', 'align_corners', 'tf_half_pixel_for_nn'}
    assert f"{len(rows)} rows passed, 0 failed" in r.stdout
    assert report['cast_rounding']['simulator_as_documented'] is True   # the 0.3 simulator's NumPy casts
    _check_lnc_and_forms(report, release)
    _check_compiled_step(report, r.stdout)


def _check_lnc_and_forms(report, release):
    "The degree the backend set (no caller setting), in the report and in every row; the loop form of the release."
    assert report['lnc'] == dict(degree=1, source='set by the backend',
                                 form='NEURON_LOGICAL_NC_CONFIG=1 (kernel and neuronx-cc)')
    assert {x['lnc'] for x in report['rows']} == {1}
    python_loops = release in ('0.7', '0.8')
    assert report['backend_forms']['loops'].startswith('range') is python_loops
    assert report['backend_forms']['nki'] == release


def _check_compiled_step(report, stdout):
    "The compiled-model step ran on the stand-in, and says so in the report, in every row and in its output."
    c = report['compiled_model']
    assert c['standin'] is True and c['note'].startswith('STAND-IN') and report['versions']['standin'] is True
    assert all(x['compiled_by'] == 'stand-in: nothing compiled' for x in c['rows'])
    assert stdout.splitlines()[0].startswith('found: ') and 'TEST STAND-IN' in stdout.splitlines()[0]
    cases = {(x['mode'], x['case']) for x in c['rows']}
    for mode in ('nearest', 'nearest-exact'):
        assert {(mode, k) for k in ('224 -> 192', '720 -> 224', '26 -> 22', 'width 41', 'compiler example')} <= cases
    assert {('nearest', f'width {w} sweep') for w in (40, 41, 42)} <= cases
    by_case = {(x['mode'], x['case']): x for x in c['rows']}
    # the stand-in applies the described kernel: its 43 wrong pixels of 26 -> 22 (chapter 1.1) are there
    assert by_case[('nearest', '26 -> 22')]['wrong_vs_exact'] == 43
    assert by_case[('nearest', '26 -> 22')]['wrong_vs_described'] == 0
    assert by_case[('nearest', 'width 41 sweep')]['wrong_vs_exact'] > 0
    assert by_case[('backward', '22 -> 26 up')]['refused_as_described'] is True
    assert {m: v['verdict'] for m, v in c['verdicts'].items()} == {
        'nearest': 'the description holds', 'nearest-exact': 'the description holds',
        'backward': 'the description holds'}
    # three maps compared: the described one named, apart from the published one, on the width sweep
    assert c['verdicts']['nearest']['matched'] == c['verdicts']['nearest-exact']['matched'] == 'described'
    assert sum(x['wrong_vs_published'] for x in c['rows'] if x['case'].endswith('sweep')) > 0
    assert 'resize_nearest_fixed_dma_kernel' in c['kernel_names']
    assert 'STAND-IN nearest: the description holds' in stdout

def test_neuron_check_skips_without_nki():
    env = {**os.environ, 'PYTHONPATH': str(ROOT)}         # this package, no stand-in
    r = subprocess.run([sys.executable, 'tools/neuron_check.py'], cwd=ROOT, capture_output=True, text=True, env=env)
    assert r.returncode == 3 and r.stdout.startswith('SKIPPED: no real NKI here')

@pytest.mark.parametrize('warmup, iters, error, says', [
    (3, 0, ValueError, 'iters must be at least 1, got 0'),
    (-1, 1, ValueError, 'warmup must be at least 0, got -1'),
    (3, 2.5, TypeError, 'iters must be an int, got 2.5'),
    (True, 10, TypeError, 'warmup must be an int, got True')])
def test_neuron_check_refuses_a_timing_without_a_median_before_any_work(tmp_path, warmup, iters, error, says):
    "No NKI is needed to be refused (nothing is imported or compiled first), and no report is written."
    from resize_nearest.studies.trainium import neuron_check
    report = tmp_path / 'report.json'
    with pytest.raises(error, match=says):
        neuron_check(report, warmup=warmup, iters=iters)
    assert not report.exists()

# the chapter's cells under the releases whose forms differ from 0.3's (Python range loops, the
# jit's keyword arguments, the LNC check); 0.3 runs the same functions in test_neuron_check_script
NOTEBOOK_RELEASES = ('0.7', '0.8')


@pytest.mark.slow
@pytest.mark.parametrize('release', NOTEBOOK_RELEASES)
def test_neuron_cells_of_chapter_3_3(tmp_path, release):
    rep = tmp_path / 'nb_report.json'
    r = subprocess.run(['nbdev_test', '--flags', 'neuron', '--path', 'nbs/33_trainium.ipynb'], cwd=ROOT, capture_output=True,
                       text=True, env={**_env(release), 'NEURON_REPORT': str(rep), 'NEURON_TIMED_CALLS': '1'})
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(rep.read_text())
    assert (report['warmup'], report['iters']) == (0, 1)      # a stand-in's times mean nothing: one call
    assert all(x['status'] in ('pass', 'expected-oob') for x in report['rows'])
    c = report['compiled_model']      # the compiled-model step ran too, through the stand-in, and says so
    assert c['standin'] is True and all(x['compiled_by'] == 'stand-in: nothing compiled' for x in c['rows'])
    assert {('nearest', f'width {w} sweep') for w in range(36, 100)} <= {(x['mode'], x['case']) for x in c['rows']}
    assert c['verdicts']['nearest']['verdict'] == 'the description holds'
    assert report['nki_version'] == f'{release}.0+standin' and {x['lnc'] for x in report['rows']} == {1}
