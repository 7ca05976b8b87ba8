"""Adding a variant is one kernel module, one record and one chapter: the Trainium cases and the
convention sweep read chapter R3's records instead of listing variants by name."""
import dataclasses, importlib.util, sys
from pathlib import Path

import pytest

from resize_nearest.studies import trainium


from resize_nearest.host import variants
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def new_record(monkeypatch):
    "A new exact variant, 'residue2' (the residue kernel under another name), in the records."
    record = dataclasses.replace(variants.VARIANTS['residue'], name='residue2')
    monkeypatch.setitem(variants.VARIANTS, 'residue2', record)
    return record


def test_a_new_record_runs_on_every_trainium_case_it_can_run(new_record):
    for case in trainium.HW_SHAPES:
        names = trainium.case_variants(*case[1:])
        assert ('residue2' in names) == ('residue' in names), case[0]
    assert 'residue2' in trainium.case_variants((2, 16, 24, 8), (40, 72), 'float32')


def test_the_trainium_cases_list_what_the_records_accept():
    for case in trainium.HW_CASES:
        listed = case[4]
        assert listed[-1] == 'auto' and list(listed[:-1]) == [v for v in variants.VARIANTS
                                                               if v in listed], case[0]
    by_name = {c[0]: c[4] for c in trainium.HW_CASES}
    assert 'strided' in by_name['ratio down'] and 'strided' not in by_name['224 -> 192']
    assert 'exact' not in by_name['512 -> 768']  # over the program budget: not sent to the device
    assert 'as_compiled' in by_name['out of bounds']  # shown, though it reads out of bounds


def test_the_convention_sweep_runs_every_exact_record(new_record):
    spec = importlib.util.spec_from_file_location('mode_sweep_under_test', ROOT / 'tools' / 'mode_sweep.py')
    sweep = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    try:
        spec.loader.exec_module(sweep)
    finally:
        sys.path[:] = path  # the tool puts tests/ on the path for its ONNX formulas
    assert sweep.VARIANTS == tuple(n for n, v in variants.VARIANTS.items() if v.exact)
    assert 'residue2' in sweep.VARIANTS and 'as_compiled' not in sweep.VARIANTS
