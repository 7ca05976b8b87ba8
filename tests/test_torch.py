"""resize_nearest.torch: equal to F.interpolate where its float map is exact, different exactly where it is not, equal
to the integer formula everywhere; exact adjoint; compile/export; the NKI path through the stand-in of the real nki."""
import os, subprocess, sys, numpy as np, pytest, torch, torch.nn.functional as F
from pathlib import Path
from resize_nearest.torch import interpolate_nearest, ResizeNearest, exact_indices, audit
from resize_nearest.index_map import src_index_exact

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
    for kw, msg in [(dict(size=(22,)), 'size shape must match'), (dict(), 'either size or scale_factor'),
                    (dict(size=(22, 22), scale_factor=2.0), 'either size or scale_factor'), (dict(size=(0, 3)), r'size\[0\]'),
                    (dict(size=(2.5, 3)), r'size\[0\]'), (dict(scale_factor=-1.0), r'scale_factor\[0\]')]:
        with pytest.raises((ValueError, TypeError), match=msg): interpolate_nearest(x, **kw)
    with pytest.raises(ValueError, match='3-D, 4-D or 5-D'): interpolate_nearest(torch.rand(3, 3), 2)
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
    assert rep[0]['wrong_pixels']['PyTorch nearest'] == 1143 and rep[0]['wrong_pixels']['resize_nearest (exact)'] == 0
