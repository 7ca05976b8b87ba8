"""resize_nearest.torch: equal to F.interpolate where its float map is exact, different exactly where it is not, equal
to the integer formula everywhere; exact adjoint; compile/export; the NKI path through the stand-in of the real nki."""
import math, os, subprocess, sys, numpy as np, pytest, torch, torch.nn.functional as F
from fractions import Fraction
from torch.export import Dim
from pathlib import Path
from resize_nearest.torch import interpolate_nearest, ResizeNearest, audit, patch
from resize_nearest.entry.torch_plumbing import _floor_quotient, exact_indices
import torch.nn as nn
from resize_nearest.maps.index_map import src_index_exact

ROOT = Path(__file__).resolve().parent.parent

def integer_resize(x, out):
    "Independent reference: index_select with index lists computed by Python integers."
    for ax, (i, o) in enumerate(zip(x.shape[2:], out)): x = x.index_select(2 + ax, torch.tensor([d * i // o for d in range(o)]))
    return x

def test_all_pairs_to_64_against_f_interpolate_and_the_formula():
    agree = differ = 0
    for i in range(1, 65):
        x = torch.arange(i * i, dtype=torch.float32).view(1, 1, i, i)
        for o in range(1, 65):
            y, t = interpolate_nearest(x, (o, o)), F.interpolate(x, size=(o, o), mode='nearest')
            assert torch.equal(y, integer_resize(x, (o, o))), (i, o)
            float_exact = np.array_equal(t[0, 0, 0].long().numpy(), src_index_exact(np.arange(o), i, o)) and \
                          np.array_equal(t[0, 0, :, 0].long().numpy() // i, src_index_exact(np.arange(o), i, o))
            assert torch.equal(y, t) == float_exact, (i, o)
            agree += float_exact; differ += not float_exact
    assert agree > 4000 and differ > 0

@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.uint8, torch.int32, torch.int64])
@pytest.mark.parametrize('shape, out', [((2, 3, 26), (22,)), ((1, 2, 26, 224), (22, 192)), ((1, 2, 7, 26, 30), (41, 22, 59))])
def test_dims_and_dtypes(dtype, shape, out):
    x = torch.randint(0, 100, shape).to(dtype)
    assert torch.equal(interpolate_nearest(x, out), integer_resize(x, out))

def test_conventions_and_errors():
    x = torch.rand(2, 3, 26, 26)
    assert interpolate_nearest(x, 22).shape == (2, 3, 22, 22)
    assert torch.equal(interpolate_nearest(x, scale_factor=0.5), interpolate_nearest(x, (13, 13)))
    xc = x.contiguous(memory_format=torch.channels_last)
    y = interpolate_nearest(xc, (22, 22))
    assert y.is_contiguous(memory_format=torch.channels_last) and torch.equal(y, interpolate_nearest(x, (22, 22)))
    # a drop-in raises what F.interpolate raises: PyTorch itself is the oracle of every refusal
    for kw in [dict(size=(22,)), dict(), dict(size=(22, 22), scale_factor=2.0), dict(size=(0, 3)),
               dict(size=(2.5, 3)), dict(scale_factor=-1.0), dict(scale_factor=float('inf')),
               dict(size=9, align_corners=True), dict(size=9, antialias=True)]:
        with pytest.raises(Exception) as theirs: F.interpolate(x, mode='nearest', **kw)
        with pytest.raises(theirs.type) as ours: interpolate_nearest(x, **kw)
        # the same words (the meta kernel words the sizes it quotes its own way)
        assert str(ours.value)[:40] == str(theirs.value)[:40], kw
    for bad in (torch.rand(3, 3), torch.rand(1, 1, 1, 1, 2, 2)):
        with pytest.raises(Exception) as theirs: F.interpolate(bad, size=2, mode='nearest')
        with pytest.raises(theirs.type): interpolate_nearest(bad, 2)
    with pytest.raises(TypeError, match='torch.Tensor'): interpolate_nearest(np.zeros((1, 1, 2, 2)), 2)
    with pytest.raises(ValueError, match='backend must be None or one of'): interpolate_nearest(x, 2, backend='gpu')

def test_gradient_is_the_exact_adjoint():
    x = torch.rand(2, 3, 26, 13, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: interpolate_nearest(t, (22, 41)), (x,))
    g = torch.randn(2, 3, 22, 41, dtype=torch.float64)
    gx, = torch.autograd.grad(interpolate_nearest(x, (22, 41)), x, g)
    ref = torch.zeros(2, 3, 26, 41, dtype=torch.float64).index_add_(2, exact_indices(26, 22), g)
    ref = torch.zeros(2, 3, 26, 13, dtype=torch.float64).index_add_(3, exact_indices(13, 41), ref)
    assert torch.equal(gx, ref)
    up = torch.rand(1, 2, 4, 3, dtype=torch.float64, requires_grad=True)      # integer ratio: the k-block sum
    gu, = torch.autograd.grad(interpolate_nearest(up, (12, 6)).sum(), up)
    assert torch.equal(gu, torch.full_like(up, 6.0))

def test_compile_and_export():
    m, x = ResizeNearest((22, 41)), torch.rand(1, 3, 26, 26)
    assert torch.equal(torch.compile(m, backend='aot_eager')(x), m(x))
    ep = torch.export.export(m, (x,))
    assert torch.equal(ep.module()(x), m(x))


def _exact_2d(x, out, scale=None):
    "Independent reference: the exact map in Python integers (Fraction for a scale factor)."
    maps = []
    for i, o in zip(x.shape[2:], out):
        if scale is None:
            maps.append([d * i // o for d in range(o)])
        else:
            maps.append([min(math.floor(Fraction(d) / Fraction(scale)), i - 1) for d in range(o)])
    return x[:, :, maps[0]][:, :, :, maps[1]]


@pytest.mark.parametrize('size, scale', [((22, 41), None), (None, 0.3), (None, 1 / 3), (None, 2.5)])
def test_fullgraph_compile_and_dynamic_export(size, scale):
    "One graph (fullgraph=True), dynamic H and W, forward and gradient exact at sizes not traced."
    m = ResizeNearest(size, scale_factor=scale)
    spatial = ({2: Dim('h', min=16, max=4096), 3: Dim('w', min=16, max=4096)},)
    ep = torch.export.export(m, (torch.rand(2, 3, 26, 26),), dynamic_shapes=spatial)
    compiled = torch.compile(m, backend='aot_eager', fullgraph=True, dynamic=True)
    for h, w in ((224, 224), (720, 301), (26, 22)):
        x = torch.rand(2, 3, h, w, dtype=torch.float64, requires_grad=True)
        out = size or tuple(math.floor(n * scale) for n in (h, w))
        want = _exact_2d(x.detach(), out, scale)
        assert torch.equal(ep.module()(x), want)
        y = compiled(x)
        assert torch.equal(y, want)
        g = torch.randn_like(y)
        got, = torch.autograd.grad(y, x, g)
        adjoint, = torch.autograd.grad(_exact_2d(x, out, scale), x, g)
        assert torch.equal(got, adjoint)


def test_floor_quotient_is_exact_long_division():
    "floor(n * den / num) against Fraction: 53-bit numerators, and doubled ones (nearest-exact's 2d + 1 over 2 num)."
    for s in (0.1, 1 / 3, 0.3, 1.25, 7.3e-5, 123456.789, 1e20):
        num, den = s.as_integer_ratio()
        d = [v for v in (0, 1, 7, 1000, 123456789, 2**31 - 1) if v / s < 2**31]
        got = _floor_quotient(torch.tensor(d), num, den).tolist()
        assert got == [math.floor(Fraction(v) / Fraction(s)) for v in d], s
        odd = [2 * v + 1 for v in d if (v + 0.5) / s < 2**31]                 # nearest-exact: (2d + 1) / (2 s)
        got = _floor_quotient(torch.tensor(odd), 2 * num, den).tolist()
        assert got == [math.floor(Fraction(v, 2) / Fraction(s)) for v in odd], s

def test_nki_path_with_the_standin():
    code = ('import torch; from resize_nearest.torch import interpolate_nearest\n'
            'x = torch.rand(2, 3, 26, 26, requires_grad=True)\n'
            'for b in ("nki", "nki-sim", "cpu"):\n'
            '    y = interpolate_nearest(x, (22, 41), backend=b)\n'
            '    assert torch.equal(y, interpolate_nearest(x, (22, 41))), b\n'
            'g, = torch.autograd.grad(y.sum(), x); assert torch.equal(g, torch.autograd.grad(interpolate_nearest(x, (22, 41)).sum(), x)[0])\n'
            'print("ok")')
    env = {**os.environ, 'PYTHONPATH': f"{ROOT / 'tests' / 'standin'}:{ROOT}"}
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.strip() == 'ok', r.stderr

def test_audit_finds_nearest_resizes():
    class M(torch.nn.Module):
        def forward(self, x):
            y = F.interpolate(x, size=(192, 192), mode='nearest')
            z = F.interpolate(y, size=(200, 200), mode='bilinear')                  # not nearest: ignored
            return F.interpolate(z[:, :, :26, :26], size=(41, 41), mode='nearest')
    rep = audit(M(), (torch.rand(1, 3, 224, 224),))
    assert [(r['input_size'], r['output_size']) for r in rep] == [((224, 224), (192, 192)), ((26, 26), (41, 41))]
    assert rep[0]['wrong']['PyTorch nearest'] == 3 * 1143 and rep[0]['wrong']['resize_nearest (exact)'] == 0


# --- PyTorch's semantics, PyTorch's own test cases (pytorch/pytorch test/test_nn.py) ------------

def _exact_index(in_size, out_size, scale=None):
    "From the definitions, with Python integers and fractions: independent of the drop-in."
    from fractions import Fraction
    if scale is None:
        return [d * in_size // out_size for d in range(out_size)]
    return [min(int(Fraction(d) / Fraction(float(scale))), in_size - 1) for d in range(out_size)]


@pytest.mark.parametrize('in_size', range(1, 65))
def test_scale_factor_follows_floor_d_over_s_like_onnx(in_size):
    "With recompute_scale_factor None or False the index is floor(d / s), not (d*in)//out."
    x = torch.arange(in_size, dtype=torch.float32).view(1, 1, in_size)
    for s in (0.3, 0.5, 0.7, 1.3, 1.5, 2.0, 2.5, 3.0):
        if int(in_size * s) < 1:  # an empty output: refused by both
            with pytest.raises(RuntimeError) as theirs:
                F.interpolate(x, scale_factor=s, mode='nearest')
            with pytest.raises(RuntimeError, match=str(theirs.value)[:30]):
                interpolate_nearest(x, scale_factor=s)
            continue
        for recompute in (None, False):
            y = interpolate_nearest(x, scale_factor=s, recompute_scale_factor=recompute)
            assert y.shape == F.interpolate(x, scale_factor=s, mode='nearest').shape
            assert y.view(-1).tolist() == _exact_index(in_size, y.shape[-1], s)
        y = interpolate_nearest(x, scale_factor=s, recompute_scale_factor=True)
        assert y.view(-1).tolist() == _exact_index(in_size, y.shape[-1])


@pytest.mark.parametrize('in_hw, out_hw', [((224, 8), (192, 8)), ((26, 26), (22, 22)),
                                           ((720, 4), (224, 4))])
def test_float64_gradcheck_and_gradgradcheck_where_pytorch_is_wrong(in_hw, out_hw):
    x = torch.rand(1, 1, *in_hw, dtype=torch.float64, requires_grad=True)
    resize = lambda t: interpolate_nearest(t, out_hw)
    assert torch.autograd.gradcheck(resize, (x,))
    assert torch.autograd.gradgradcheck(resize, (x,))


@pytest.mark.parametrize('dtype', [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize('spatial', [1, 2, 3])
def test_gradients_are_the_exact_adjoint_in_every_dtype(dtype, spatial):
    "One gradient per output element: each source element receives its count in the exact map."
    ins, outs = (26, 13, 9)[:spatial], (22, 17, 11)[:spatial]
    x = torch.zeros(1, 1, *ins, dtype=dtype, requires_grad=True)
    interpolate_nearest(x, outs).sum().backward()
    expected = np.ones(())
    for i, o in zip(ins, outs):
        expected = np.multiply.outer(expected, np.bincount(_exact_index(i, o), minlength=i))
    assert np.array_equal(x.grad.to(torch.float64).numpy()[0, 0], expected)


# modelled on test/test_nn.py's test_upsamplingNearest1d/2d/3d and their _correctness variants
# (pytorch/pytorch): the same kinds of case, written here from the definitions; the current source
# of test_nn.py could not be read on this machine (the repository is over the mirror's size limit
# and the indexed copy is a 2017 revision), so this is not a line-by-line port
def test_upsamplingNearest1d_from_test_nn():
    m = nn.Upsample(size=4, mode='nearest')
    in_t = torch.ones(1, 1, 2)
    with patch():
        out_t = m(in_t)
    assert torch.equal(out_t, torch.ones(1, 1, 4))
    in_t = torch.arange(8, dtype=torch.float32).view(1, 2, 4)  # _correctness, scale 2 and 0.5
    assert torch.equal(interpolate_nearest(in_t, scale_factor=2.0),
                       in_t.repeat_interleave(2, dim=-1))
    assert torch.equal(interpolate_nearest(in_t, scale_factor=0.5), in_t[..., ::2])


def test_upsamplingNearest2d_from_test_nn():
    in_t = torch.ones(1, 2, 2, 2)
    assert torch.equal(interpolate_nearest(in_t, size=(4, 4)), torch.ones(1, 2, 4, 4))
    in_t = torch.arange(16, dtype=torch.float32).view(1, 1, 4, 4)
    expected = in_t.repeat_interleave(2, -1).repeat_interleave(2, -2)
    assert torch.equal(interpolate_nearest(in_t, scale_factor=2.0), expected)
    # test_upsamplingNearest2d_correctness: isize 20 -> osize 11, index floor(o * 20 / 11)
    x = torch.arange(20 * 20, dtype=torch.float32).view(1, 1, 20, 20)
    expected = x[:, :, [o * 20 // 11 for o in range(11)]][:, :, :, [o * 20 // 11 for o in range(11)]]
    assert torch.equal(interpolate_nearest(x, size=(11, 11)), expected)


def test_upsamplingNearest3d_from_test_nn():
    in_t = torch.ones(1, 2, 2, 2, 2)
    assert torch.equal(interpolate_nearest(in_t, size=(4, 4, 4)), torch.ones(1, 2, 4, 4, 4))
    x = torch.arange(20 * 20 * 20, dtype=torch.float32).view(1, 1, 20, 20, 20)
    idx = [o * 20 // 11 for o in range(11)]
    expected = x[:, :, idx][:, :, :, idx][:, :, :, :, idx]
    assert torch.equal(interpolate_nearest(x, size=(11, 11, 11)), expected)


def test_patch_routes_nearest_and_restores():
    x = torch.arange(26 * 26, dtype=torch.float32).view(1, 1, 26, 26)
    exact = interpolate_nearest(x, (22, 22))
    up = nn.UpsamplingNearest2d(size=(22, 22))
    assert not torch.equal(up(x), exact)  # PyTorch's own is wrong on 26 -> 22
    with patch():
        assert torch.equal(up(x), exact) and torch.equal(F.interpolate(x, size=(22, 22)), exact)
    assert not torch.equal(up(x), exact) and F.interpolate.__module__ == 'torch.nn.functional'
    with patch(up):
        assert torch.equal(up(x), exact)
    assert 'forward' not in up.__dict__


def test_patch_on_a_real_architecture_monai_feature_pyramid_network():
    """MONAI's FeaturePyramidNetwork (a port of torchvision's), built without weights: its top-down
    path calls F.interpolate(mode='nearest'); on 26 -> 44, where PyTorch's own index is wrong,
    patch() makes that call exact and leaves the network as it was afterwards."""
    from collections import OrderedDict
    fpn_module = pytest.importorskip('monai.networks.blocks.feature_pyramid_network')
    torch.manual_seed(0)
    fpn = fpn_module.FeaturePyramidNetwork(2, [3, 5], 4).eval()
    feats = OrderedDict(fine=torch.rand(1, 3, 44, 44), coarse=torch.rand(1, 5, 26, 26))
    idx = torch.tensor([d * 26 // 44 for d in range(44)])
    with torch.no_grad():
        plain = fpn(feats)
        with patch():
            patched = fpn(feats)
        after = fpn(feats)
        coarse = fpn.get_result_from_inner_blocks(feats['coarse'], -1)
        lateral = fpn.get_result_from_inner_blocks(feats['fine'], 0)
        expected = fpn.get_result_from_layer_blocks(lateral + coarse[:, :, idx][:, :, :, idx], 0)
    assert torch.equal(patched['fine'], expected)
    assert not torch.equal(plain['fine'], expected)  # PyTorch's 26 -> 44 copies another row
    assert torch.equal(after['fine'], plain['fine']) and torch.equal(patched['coarse'], plain['coarse'])


def test_patch_of_one_model_keeps_monai_upsample_blocks_and_their_attributes():
    upsample = pytest.importorskip('monai.networks.blocks.upsample')
    # align_corners=None: MONAI's default (True) with interp_mode='nearest' is refused by F.interpolate
    # itself, and a drop-in refuses it too (test_patch_and_resize_nearest_keep_every_nn_upsample_argument)
    block = upsample.UpSample(2, scale_factor=44 / 26, mode='nontrainable', interp_mode='nearest', align_corners=None)
    inner = [m for m in block.modules() if isinstance(m, nn.Upsample)]
    assert len(inner) == 1
    inner[0].tag = 'set by the framework'
    x = torch.arange(26 * 26, dtype=torch.float32).view(1, 1, 26, 26)
    with patch(block):
        y = block(x)
    assert torch.equal(y, interpolate_nearest(x, scale_factor=44 / 26))
    assert inner[0].tag == 'set by the framework' and 'forward' not in inner[0].__dict__


@pytest.mark.parametrize('make, error, says', [
    (lambda: torch.rand(1, 1, 4, 4, dtype=torch.float64), TypeError, 'dtype float64'),
    (lambda: torch.rand(1, 1, 65536, 1), ValueError, 'proven range'),
    (lambda: torch.empty(1, 1, 4, 4, device='meta'), ValueError, 'meta tensor'),
])
def test_the_nki_path_refuses_through_the_host_api(make, error, says):
    "backend= goes through resize_nearest()'s checks: a named refusal before any kernel runs."
    with pytest.raises(error, match=says):
        interpolate_nearest(make(), (2, 2), backend='cpu')


def test_remembered_calls_follow_every_argument_that_matters():
    "The fast path is keyed on shape, dtype, device and F.interpolate's arguments; others go the long way."
    x = torch.rand(1, 2, 26, 26)
    for _ in range(2):
        assert torch.equal(interpolate_nearest(x, (22, 22)), integer_resize(x, (22, 22)))
    xd = x.double()
    assert torch.equal(interpolate_nearest(xd, (22, 22)), integer_resize(xd, (22, 22)))
    cl = x.contiguous(memory_format=torch.channels_last)
    y = interpolate_nearest(cl, (22, 22))
    assert torch.equal(y, integer_resize(x, (22, 22))) and y.is_contiguous(memory_format=torch.channels_last)
    assert torch.equal(interpolate_nearest(x, [22, 22]), integer_resize(x, (22, 22)))       # a list: unhashable
    size = torch.tensor(22)
    assert interpolate_nearest(x, size).shape[2:] == (22, 22)
    size.fill_(11)                                                                           # same object, new value
    assert torch.equal(interpolate_nearest(x, size), integer_resize(x, (11, 11)))
    by_scale = torch.tensor([min(int(Fraction(d) / Fraction(1.25)), 25) for d in range(32)])
    for _ in range(2):
        assert torch.equal(interpolate_nearest(x, scale_factor=1.25), x[:, :, by_scale][:, :, :, by_scale])


@pytest.mark.parametrize('good, bad', [(22, 22.0), ((22, 22), (22.0, 22.0)), (1, True)])
def test_a_remembered_call_does_not_let_an_argument_pytorch_refuses_through(good, bad):
    "22 and 22.0 (True and 1) are equal and hash alike; F.interpolate takes one and refuses the other."
    x = torch.rand(1, 2, 26, 26)
    interpolate_nearest(x, good)
    with pytest.raises(TypeError) as theirs:
        F.interpolate(x, bad, mode='nearest')
    with pytest.raises(TypeError) as ours:
        interpolate_nearest(x, bad)
    assert str(ours.value) == str(theirs.value)


def test_patch_and_resize_nearest_keep_every_nn_upsample_argument():
    up = nn.Upsample(size=(22, 22), mode='nearest', align_corners=True)
    y = torch.rand(1, 2, 26, 26)
    with pytest.raises(ValueError) as theirs:
        up(y)
    with patch(up), pytest.raises(ValueError) as ours:
        up(y)
    assert str(ours.value) == str(theirs.value)
    m = ResizeNearest((22, 41), None, 'nearest-exact')                  # nn.Upsample's positional order
    want = y[:, :, [(2 * d + 1) * 26 // 44 for d in range(22)]][:, :, :, [(2 * d + 1) * 26 // 82 for d in range(41)]]
    assert m.mode == 'nearest-exact' and torch.equal(m(y), want)


def test_the_torch_audit_skips_empty_resizes_and_follows_float64():
    "A model made exact has no PyTorch nearest upsample left; float64 data is indexed as PyTorch does."
    assert audit(ResizeNearest((22, 22)), (torch.rand(1, 3, 26, 26),)) == []

    class M(nn.Module):
        def forward(self, x):
            return F.interpolate(x, size=(224, 224), mode='nearest')

    for dtype in (torch.float32, torch.float64):
        x = torch.rand(1, 1, 720, 720, dtype=dtype)
        row, = audit(M(), (x,))
        probe = torch.arange(720 * 720, dtype=dtype).view(1, 1, 720, 720)
        exact = [d * 720 // 224 for d in range(224)]
        wrong = int((F.interpolate(probe, size=(224, 224)) != probe[:, :, exact][:, :, :, exact]).sum())
        assert row['pytorch_wrong_elements'] == wrong == row['wrong']['PyTorch nearest'], dtype


def test_nearest_exact_on_every_pair_to_64():
    "mode='nearest-exact' is floor((d + 1/2) * in/out): exact everywhere, PyTorch's own where its map is."
    pytorch_wrong = 0
    for i in range(1, 65):
        x = torch.arange(i, dtype=torch.float32).view(1, 1, i)
        for o in range(1, 65):
            want = [min((2 * d + 1) * i // (2 * o), i - 1) for d in range(o)]
            ours = interpolate_nearest(x, o, mode='nearest-exact').reshape(-1).long().tolist()
            theirs = F.interpolate(x, size=o, mode='nearest-exact').reshape(-1).long().tolist()
            assert ours == want, (i, o)
            pytorch_wrong += theirs != want
    assert pytorch_wrong > 0                     # the float map misses some (53 pairs in torch 2.13.0)


def test_nearest_exact_gradient_compile_export_patch_and_the_nki_refusal():
    x = torch.rand(2, 3, 26, 13, dtype=torch.float64, requires_grad=True)
    f = lambda t: interpolate_nearest(t, (22, 41), mode='nearest-exact')
    assert torch.autograd.gradcheck(f, (x,)) and torch.autograd.gradgradcheck(f, (x,))
    m = ResizeNearest(scale_factor=1 / 3, mode='nearest-exact')
    spatial = ({2: Dim('h', min=16, max=4096), 3: Dim('w', min=16, max=4096)},)
    ep = torch.export.export(m, (torch.rand(2, 3, 26, 26),), dynamic_shapes=spatial)
    compiled = torch.compile(m, backend='aot_eager', fullgraph=True, dynamic=True)
    for h, w in ((224, 224), (720, 301)):
        y = torch.rand(2, 3, h, w)
        assert torch.equal(ep.module()(y), m(y)) and torch.equal(compiled(y), m(y))
        exact = lambda n, o: [min(math.floor((d + Fraction(1, 2)) / Fraction(1 / 3)), n - 1) for d in range(o)]
        out = m(y)
        assert torch.equal(out, y[:, :, exact(h, out.shape[2])][:, :, :, exact(w, out.shape[3])])
    up = nn.Upsample(scale_factor=1.5, mode='nearest-exact')
    y = torch.rand(1, 2, 26, 26)
    with patch():
        assert torch.equal(F.interpolate(y, size=(22, 22), mode='nearest-exact'), interpolate_nearest(y, (22, 22), mode='nearest-exact'))
    with patch(up):
        assert torch.equal(up(y), interpolate_nearest(y, scale_factor=1.5, mode='nearest-exact'))
    half = [min(math.floor((d + Fraction(1, 2)) * Fraction(26, 22)), 25) for d in range(22)]
    on_kernels = interpolate_nearest(y, (22, 22), mode='nearest-exact', backend='cpu')  # the NKI path
    assert torch.equal(on_kernels, y[:, :, half][:, :, :, half])
    third = [min(math.floor((d + Fraction(1, 2)) / Fraction(1 / 3)), 25) for d in range(8)]
    on_kernels = interpolate_nearest(y, scale_factor=1 / 3, mode='nearest-exact', backend='cpu')
    assert torch.equal(on_kernels, y[:, :, third][:, :, :, third])
    with pytest.raises(ValueError, match='interpolate_nearest does mode'):
        interpolate_nearest(y, (22, 22), mode='bilinear')


def test_the_torch_audit_reads_nearest_exact_calls():
    "6 -> 37 along one axis: PyTorch's nearest-exact misses one index; the audit counts the tensor."
    class M(nn.Module):
        def forward(self, x):
            return F.interpolate(x, size=(37, 5), mode='nearest-exact')

    x = torch.arange(6, dtype=torch.float32).view(1, 1, 6, 1).expand(1, 2, 6, 5).contiguous()
    row, = audit(M(), (x,))
    theirs = F.interpolate(x, size=(37, 5), mode='nearest-exact')
    want = x[:, :, [min((2 * d + 1) * 6 // 74, 5) for d in range(37)]][:, :, :, [(2 * d + 1) * 5 // 10 for d in range(5)]]
    wrong = int((theirs != want).sum())
    assert wrong > 0 and row['pytorch_wrong_elements'] == wrong == row['wrong']['PyTorch nearest-exact']
