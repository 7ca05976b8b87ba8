"""Indirect DMA by NeuronCore generation. The DGE reference lists the software DGE, the only mode
that takes a `vector_offset`, for "Any (indirect: v3+)" (aws-neuron-sdk v2.29.1 and v2.32.0,
nki/deep-dives/nki-dge.rst:171), and a `scalar_offset` for "Any mode" (:202-204): the interpreter
refuses a vector_offset DMA on trn1 (NeuronCore-v2), as the plan's chip table does, and its default
chip, trn2, runs every kernel."""
import numpy as np
import pytest
import resize_nearest.nki_cpu.isa as nisa
from resize_nearest import resize_nearest, resize_nearest_exact_kernel
from resize_nearest.kernels.backend import run_kernel
from resize_nearest.maps.index_map import load_indices
from resize_nearest.nki_cpu.memory import (
    CHIP_MEMORY, MachineRuleError, allocate, current_chip, from_numpy, read, sbuf, target_chip, write,
)
from resize_nearest.maps.plan import chip_limits

TABLE = np.arange(8, dtype=np.float32).reshape(4, 2)


def _gather(rows=(3, 0)):
    "Rows `rows` of TABLE gathered by one vector_offset DMA into an SBUF tile."
    idx = allocate((len(rows), 1), np.int32, sbuf, 'rows')
    write(idx, np.int32(rows).reshape(-1, 1))
    dst = allocate((len(rows), 2), np.float32, sbuf, 'dst')
    src = from_numpy(TABLE).ap([[2, len(rows)], [1, 2]], vector_offset=idx, indirect_dim=0)
    nisa.dma_copy(dst=dst, src=src)
    return read(dst)


def test_a_vector_offset_dma_is_refused_on_trn1_naming_chip_and_document():
    with target_chip('trn1'), pytest.raises(MachineRuleError) as e:
        _gather()
    assert "'indirect-v3'" in str(e.value) and 'trn1' in str(e.value)
    assert 'nki-dge.rst:169-173' in str(e.value)


@pytest.mark.parametrize('chip', ['trn2', 'trn3'])
def test_a_vector_offset_dma_runs_on_neuroncore_v3_and_v4(chip):
    with target_chip(chip):
        assert _gather().tolist() == [[6, 7], [0, 1]]


def test_a_scalar_offset_dma_runs_on_trn1():
    "nki-dge.rst:202-204: .ap() with scalar_offset takes any DGE mode, so it is no indirect gather."
    with target_chip('trn1'):
        which = allocate((1, 1), np.int32, sbuf, 'which')
        write(which, np.int32([[2]]))
        dst = allocate((1, 2), np.float32, sbuf, 'dst')
        src = from_numpy(TABLE).ap([[2, 1], [1, 2]], scalar_offset=which, indirect_dim=0)
        nisa.dma_copy(dst=dst, src=src)
        assert read(dst).tolist() == [[4, 5]]


def test_the_interpreter_and_the_plan_agree_on_every_chip():
    "plan.CHIP_TABLE's indirect_dma entry (appendix E1a) is what the interpreter accepts."
    for chip in CHIP_MEMORY:
        with target_chip(chip):
            try:
                _gather()
                runs = True
            except MachineRuleError:
                runs = False
        assert runs == chip_limits(chip)['indirect_dma'], chip


def test_the_default_chip_runs_the_gather_kernel_and_trn1_refuses_it():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(1, 2, 3, 4)
    assert current_chip() == 'trn2'
    out = resize_nearest(x, (3, 5), variant='exact', backend='cpu')
    src = load_indices((2, 3), (3, 5)).reshape(-1)
    assert np.array_equal(out.reshape(-1, 4), x.reshape(-1, 4)[src])
    # the host refuses the variant for trn1 before any work, naming variant, chip and reason
    with target_chip('trn1'), pytest.raises(ValueError, match="indirect DMA, which trn1"):
        resize_nearest(x, (3, 5), variant='exact', backend='cpu')
    # past the host's check, the kernel run straight on the interpreter is refused by the machine
    with target_chip('trn1'), pytest.raises(MachineRuleError, match="'indirect-v3'"):
        run_kernel(resize_nearest_exact_kernel, x, (1, 3, 5, 4), backend='cpu')
