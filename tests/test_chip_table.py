"""The chip table (appendix E1a) and what it drives: the interpreter's usable SBUF, the cost model's
chips and `auto` per chip. Citations: aws-neuron-sdk v2.29.1 unless named."""
import numpy as np
import pytest
from resize_nearest.maps.plan import CHIP_TABLE, CHIP_SOURCES, chip_limits
from resize_nearest.host.variants import VARIANTS, choose_variant, exact_options, predict_counts
from resize_nearest.host.cost_model import predict_time
from resize_nearest.nki_cpu.memory import MachineRuleError, allocate, sbuf, target_chip

# the kernels with a vector_offset DMA
INDIRECT = {'exact', 'as_compiled', 'hoisted', 'rowgather', 'published'}


def test_every_chip_entry_has_a_source():
    for chip in CHIP_TABLE:
        assert set(chip_limits(chip)) <= set(CHIP_SOURCES), chip
    assert all('rst' in s or '.py' in s for s in CHIP_SOURCES.values())


def test_generations_and_indirect_dma():
    "trainium.rst:7, inferentia2.rst:6, trainium2.rst:22, trainium3.rst:10; nki-dge.rst:169-173."
    cores = {c: chip_limits(c)['core'] for c in CHIP_TABLE}
    assert cores == {'trn1': 'NeuronCore-v2', 'inf2': 'NeuronCore-v2', 'trn2': 'NeuronCore-v3',
                     'trn3': 'NeuronCore-v4'}
    assert [c for c in CHIP_TABLE if chip_limits(c)['indirect_dma']] == ['trn2', 'trn3']
    assert [c for c in CHIP_TABLE if 'hwdge' in chip_limits(c)['dge']] == ['trn2', 'trn3']


def test_usable_sbuf_is_capacity_less_the_reserve():
    "language/__init__.py:35-36; nki-library mlp_cte_constants.py:46-47 (224 KiB - 16,392 on trn2)."
    assert chip_limits('trn2')['usable_sbuf'] == 224 * 1024 - 16384 - 8
    assert chip_limits('trn1')['usable_sbuf'] == 192 * 1024 - 16392


def test_interpreter_refuses_a_tile_in_the_reserve():
    "A 185,000-byte partition fits trn1's 192 KiB but not its usable 180,216 bytes."
    with target_chip('trn1'), pytest.raises(MachineRuleError, match="'tensor-bytes'"):
        allocate((2, 185000), np.uint8, sbuf, 'in_reserve')
    with target_chip('trn1'):
        allocate((2, 180000), np.uint8, sbuf, 'usable')
    with target_chip('trn2'):
        allocate((2, 185000), np.uint8, sbuf, 'fits_trn2')


def test_bad_chip_named():
    allowed = "chip must be one of \\('trn1', 'inf2', 'trn2', 'trn3'\\), got 'trn4'"
    with pytest.raises(ValueError, match=allowed):
        chip_limits('trn4')
    with pytest.raises(ValueError, match='chip must be one of'):
        choose_variant((1, 8, 8, 1), (4, 4), np.float32, 'v3')


@pytest.mark.parametrize('chip', ['trn1', 'inf2'])
def test_auto_on_neuroncore_v2_never_picks_an_indirect_gather(chip):
    for shape, out in [((1, 1080, 1920, 3), (720, 1280)), ((1, 26, 26, 3), (22, 22)),
                       ((1, 64, 64, 4), (128, 128))]:
        assert not set(exact_options(shape, out, np.uint8, chip=chip)) & INDIRECT
        assert choose_variant(shape, out, np.uint8, chip) in ('residue', 'strided')


@pytest.mark.parametrize('chip', ['trn2', 'trn3'])
def test_auto_on_neuroncore_v3_and_v4_may_gather(chip):
    assert choose_variant((1, 1080, 1920, 3), (720, 1280), np.uint8, chip) == 'rowgather'


def test_auto_refuses_with_the_chip_reason_when_nothing_runs():
    "997x991 -> 1000x1000: residue is over the program budget; the gathers need indirect DMA."
    with pytest.raises(ValueError, match='on trn1.*hoisted.*nki-dge.rst:169-173'):
        choose_variant((1, 997, 991, 3), (1000, 1000), np.uint8, 'trn1')
    assert choose_variant((1, 997, 991, 3), (1000, 1000), np.uint8, 'trn2') == 'rowgather'


def test_variant_problems_name_the_chip():
    reasons = VARIANTS['hoisted'].problems((1, 8, 8, 1), (4, 4), 4, (), 'inf2')
    assert 'inf2 (NeuronCore-v2)' in reasons[0]
    assert VARIANTS['residue'].problems((1, 8, 8, 1), (4, 4), 4, (), 'inf2') == []


@pytest.mark.parametrize('chip', ['inf2', 'trn3'])
def test_cost_model_has_every_chip(chip):
    "inferentia2.rst:21-24; trainium3.rst:35; nki-dma-bandwidth-guide.rst:61-63."
    counts = predict_counts('residue', (1, 8, 8, 1), (4, 4))
    assert predict_time(counts, (1, 8, 8, 1), (4, 4), chip=chip)['seconds'] > 0


def test_neuron_check_runs_only_what_the_chip_runs():
    "The Trainium report lists, per chip, the pairs not run and why (nki-dge.rst:169-173)."
    from resize_nearest.studies.trainium import HW_CASES, _on_chip
    todo, skipped = _on_chip(HW_CASES, 'trn1')
    assert {v for _, v in todo} <= {'strided', 'residue', 'auto'}
    assert {s['variant'] for s in skipped} == INDIRECT and all('NeuronCore-v2' in s['reason'] for s in skipped)
    todo, skipped = _on_chip(HW_CASES, 'trn2')
    assert skipped == [] and {v for _, v in todo} >= INDIRECT
