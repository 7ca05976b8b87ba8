"""The compiled-model step of chapter 3.3 (and tools/neuron_check.py): its maps, its pixel comparison and its
verdict, on constructed outputs. The exact maps are the integer formulas (floor(d*in/out) for nearest; PyTorch's
own CPU nearest-exact as the independent oracle for the half-pixel one); the described map is the float32 map of
the kernel described for neuronx-cc 2.24 (nbs/compiler_contract.md); the backward oracle is PyTorch's own
upsample_nearest2d_backward (the k-block sums)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from resize_nearest.studies import trainium as t

E, D = t.premise_maps((26, 26), (22, 22))


def _row(case, got, exact=E, described=D):
    return dict(case=case, **t.compare_maps(np.asarray(got)[None, :], exact, described))


def test_the_exact_map_is_the_integer_formula():
    rows, cols = np.divmod(np.arange(22 * 22), 22)
    np.testing.assert_array_equal(E, (rows * 26) // 22 * 26 + (cols * 26) // 22)
    assert int((E != D).sum()) == 43     # the described kernel's 43 wrong pixels (chapter 1.1)


@pytest.mark.parametrize('in_hw, out_hw', [((224, 224), (192, 192)), ((7, 7), (41, 41)), ((30, 20), (59, 38))])
def test_nearest_exact_map_is_pytorchs(in_hw, out_hw):
    x = torch.from_numpy(t.index_image(1, 1, in_hw))
    ref = F.interpolate(x, size=out_hw, mode='nearest-exact').reshape(-1).long().numpy()
    np.testing.assert_array_equal(t.premise_maps(in_hw, out_hw, 'nearest-exact')[0], ref)


def test_three_outcomes_on_constructed_outputs():
    assert t.premise_verdict([_row('26 -> 22', D)])['verdict'] == t.HOLDS
    assert t.premise_verdict([_row('26 -> 22', E)])['verdict'] == t.EXACT_NOW
    other = t.premise_verdict([_row('26 -> 22', E[::-1])])
    assert other['verdict'] == t.SOMETHING_ELSE
    p = other['first'][0]['pixel']
    assert other['first'][0]['got'] == [float(E[::-1][p])] and E[p] != E[::-1][p] != D[p]


def test_a_mixture_or_a_failure_is_something_else():
    e41, d41 = t.premise_maps((7, 7), (41, 41))
    mixed = [_row('26 -> 22', E), _row('width 41', d41, e41, d41)]
    v = t.premise_verdict(mixed)
    assert v['verdict'] == t.SOMETHING_ELSE and {x['case'] for x in v['first']} == {'26 -> 22', 'width 41'}
    failed = t.premise_verdict([_row('26 -> 22', D), dict(case='720 -> 224', error='RuntimeError: boom')])
    assert failed == dict(verdict=t.SOMETHING_ELSE, first=[{'720 -> 224': 'RuntimeError: boom'}])


def test_agreeing_maps_decide_nothing():
    e, d = t.premise_maps((30, 20), (59, 38))     # the seed's example: the float32 map is exact there
    assert (e == d).all()
    assert t.premise_verdict([_row('example', e, e, d)])['verdict'] == t.UNDECIDED


def test_a_pixel_counts_once_and_channels_must_agree():
    got = np.stack([D, D, D]).astype(np.float64)
    got[1, 5] = -1                                # one channel of pixel 5 is wrong
    c = t.compare_maps(got, E, D)
    assert c['pixels'] == E.size and c['wrong_vs_described'] == 1 and c['first_other'][0]['pixel'] == 5
    offset = t.compare_maps(got + 676, E, D, batch_offset=676)   # the second image of a batch
    assert offset['wrong_vs_described'] == 1


def test_index_images_name_their_pixels():
    x = t.index_image(2, 3, (4, 5))
    assert x.dtype == np.float32 and x.shape == (2, 3, 4, 5)
    assert x[1, 2, 3, 4] == 1 * 20 + 3 * 5 + 4 and (x[:, 0] == x[:, 2]).all()
    with pytest.raises(ValueError, match='not exact in float32'):
        t.index_image(1, 1, (4097, 4097))


def test_backward_rows_against_pytorch_and_the_described_pool():
    "A fake compiler returning PyTorch's own gradient is 'exact now'; one returning the block mean holds."
    def fake(kind):
        def trace(module, inputs, compiler_workdir=None):
            def run(g):
                ref = torch.ops.aten.upsample_nearest2d_backward(g, *module._args)
                return ref if kind == 'sum' else ref / (g.shape[2] * g.shape[3] // (ref.shape[2] * ref.shape[3]))
            return run
        return trace
    rows = {}
    for kind in ('sum', 'mean'):
        rows[kind] = []
        for case, in_shape, out_hw in t.BACKWARD_SIZES[:3]:
            mod = t._grad_module(out_hw, in_shape)
            mod._args = (list(out_hw), list(in_shape))
            rows[kind].append(t._backward_row(lambda m, i, compiler_workdir=None, _k=kind, _m=mod:
                                              fake(_k)(_m, i), case, in_shape, out_hw, None))
    assert t.premise_verdict(rows['sum'])['verdict'] == t.EXACT_NOW
    assert t.premise_verdict(rows['mean'])['verdict'] == t.HOLDS


def test_a_refusal_where_the_description_refuses_is_the_description():
    def refusing(module, inputs, compiler_workdir=None):
        raise RuntimeError('ResizeNearestGrad: output dim 2 is not an integral multiple of input dim 2, '
                           'which is unsupported')
    case, in_shape, out_hw = t.BACKWARD_SIZES[3]
    row = t._backward_row(refusing, case, in_shape, out_hw, None)
    assert row['refused_as_described'] and row['wrong_vs_described'] == 0
    assert t.premise_verdict([row])['verdict'] == t.HOLDS
    case, in_shape, out_hw = t.BACKWARD_SIZES[0]     # an integer ratio the description lowers
    assert t.premise_verdict([t._backward_row(refusing, case, in_shape, out_hw, None)])['verdict'] == \
        t.SOMETHING_ELSE
