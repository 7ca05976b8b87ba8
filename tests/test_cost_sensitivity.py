"""Chapter R3's sensitivity of auto's pick to the cost model's least certain constants, held to a case
worked out by hand: a 1x1 image of one float32 channel resized to 2x3 on trn2.

The counts below are derived from the kernels' structure (chapters 2.1-2.3), not read from the cost
model; the times from the model's stated formula (chapter R2): per engine, instructions x cycles plus
elements over 128 partitions x width, at its clock; DMA, the larger of (descriptors paced at >= the
descriptor cap) and (transfers at >= 32 KiB) over 16 x 23 B/ns; the largest part wins."""
import numpy as np
import pytest

from resize_nearest.host.cost_model import predict_time
from resize_nearest.host.variants import perturbed_picks, perturbations, predict_counts

SHAPE, OUT = (1, 1, 1, 1), (2, 3)
# trn2 (trainium2_arch.rst, nki-dma-bandwidth-guide.rst): clocks, Vector width, DMA bytes per second
CLOCK, WIDTH, DMA = dict(vector=0.96e9, gpsimd=1.2e9), dict(vector=2, gpsimd=1), 16 * 23e9

# By hand. Every output pixel copies source pixel 0; one tile of 6 output pixels (or one row tile of 2
# rows, or one column tile of 3 columns).
HAND = {
    # the exact graph, 13 GpSimd + 17 Vector one-element instructions, on one tile of 6 pixels;
    # a gather of 6 four-byte pieces that never follow each other (all start at 0), one 24-byte store
    'exact': dict(instr=dict(gpsimd=13, vector=17), elems=dict(gpsimd=13 * 6, vector=17 * 6),
                  transfers=2, descriptors={4: 6, 24: 1}, swdge=(1, 6)),
    # the column index (4 + 6 instructions on 3 columns); one source row gathered (3 pieces of 4 B),
    # stored to each of the 2 output rows (12 contiguous bytes each)
    'hoisted': dict(instr=dict(gpsimd=4, vector=6), elems=dict(gpsimd=12, vector=18),
                    transfers=3, descriptors={4: 3, 12: 2}, swdge=(1, 3)),
    # width 1 -> 3, ratio 3 up: the source row loaded once, stored 3 times into each of 2 rows
    'strided': dict(instr={}, elems={}, transfers=7, descriptors={4: 7}, swdge=(0, 0)),
    # gcd 1 on both axes: 2 x 3 residues, one HBM-to-HBM copy of one 4-byte pixel each
    'residue': dict(instr={}, elems={}, transfers=6, descriptors={4: 6}, swdge=(0, 0)),
    # a row index on the 2-row tile (4 + 6), one Vector copy per column residue (3) writing 6
    # elements; the 2 rows gathered (2 pieces of 4 B), one 24-byte store
    'rowgather': dict(instr=dict(gpsimd=4, vector=9), elems=dict(gpsimd=8, vector=18),
                      transfers=2, descriptors={4: 2, 24: 1}, swdge=(1, 2)),
}


def hand_seconds(hand, instruction_cycles=264, swdge_descriptor_cycles=100,
                 efficient_descriptor_bytes=2048) -> float:
    "The model's formula, written out again from chapter R2's text."
    parts = []
    for engine in ('vector', 'gpsimd'):
        cycles = hand['instr'].get(engine, 0) * instruction_cycles
        cycles += hand['elems'].get(engine, 0) / (128 * WIDTH[engine])
        if engine == 'gpsimd':
            transfers, descriptors = hand['swdge']
            cycles += transfers * instruction_cycles + descriptors * swdge_descriptor_cycles
        parts.append(cycles / CLOCK[engine])
    paced = sum(max(size, efficient_descriptor_bytes) * n for size, n in hand['descriptors'].items())
    parts.append(max(paced, hand['transfers'] * 32 * 1024) / DMA)
    return max(parts)


@pytest.mark.parametrize('variant', list(HAND))
def test_the_hand_counts_are_the_models(variant):
    c = predict_counts(variant, SHAPE, OUT)
    hand = HAND[variant]
    assert {e: n for e, n in c['per_engine'].items() if e != 'dma'} == hand['instr']
    assert c['elements_per_engine'] == hand['elems']
    assert (c['dma_transfers'], c['descriptor_bytes']) == (hand['transfers'], hand['descriptors'])
    assert (c['swdge_transfers'], c['swdge_descriptors']) == hand['swdge']


def test_the_deciding_times_by_hand():
    "Residue against hoisted, the two the pick moves between, in nanoseconds worked out by hand."
    residue = predict_counts('residue', SHAPE, OUT)
    hoisted = predict_counts('hoisted', SHAPE, OUT)
    ns = lambda counts, **k: predict_time(counts, SHAPE, OUT, constants=k or None)['seconds'] * 1e9
    # residue: 6 transfers at 32 KiB each over 368 B/ns (its 6 descriptors of 4 B pace at 6 x 2 KiB)
    assert ns(residue) == pytest.approx(6 * 32768 / 368)  # 534.26 ns
    assert ns(residue, instruction_cycles=66) == pytest.approx(6 * 32768 / 368)  # no instruction
    # hoisted as modelled: Vector, 6 x 264 cycles + 18 / 256 elements, at 0.96 GHz: 1,650.07 ns
    assert ns(hoisted) == pytest.approx((6 * 264 + 18 / 256) / 0.96)
    # with 66 cycles an instruction, GpSimd bounds it: 4 x 66 + one DGE issue 66 + 3 x 100 + 12 / 128
    # cycles at 1.2 GHz = 525.08 ns, below the residue kernel's 534.26 ns
    assert ns(hoisted, instruction_cycles=66) == pytest.approx((5 * 66 + 300 + 12 / 128) / 1.2)
    assert ns(hoisted, instruction_cycles=66) < ns(residue, instruction_cycles=66) < ns(hoisted)


def test_the_pick_moves_only_where_the_hand_model_says():
    "auto's picks under every perturbation, against the argmin of the hand counts and formula."
    picks = perturbed_picks(SHAPE, OUT)
    for label, constants in perturbations().items():
        hand = min(HAND, key=lambda v: hand_seconds(HAND[v], **constants))
        assert picks[label] == hand, label
    moved = {label: v for label, v in picks.items() if v != picks['as modelled']}
    assert (picks['as modelled'], moved) == ('residue', {'instruction_cycles /4': 'hoisted'})


def test_perturbed_picks_refuse_a_bad_factor():
    with pytest.raises(ValueError, match='factor must be a number above 1'):
        perturbed_picks(SHAPE, OUT, factor=0.25)
