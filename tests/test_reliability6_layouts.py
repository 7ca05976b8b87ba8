"""Layouts (chapter R5, appendix E2a): every shape error names the layout x was read in, and an
array whose shape looks channels-first gets a UserWarning naming what was assumed, silenced by
`layout=` or by a shape that is not ambiguous; `layout='NCHW'` takes channels first. The oracle of
each result is the exact map (dst * in) // out per axis in NumPy."""
import warnings
import numpy as np
import pytest
from resize_nearest import resize_nearest


def _exact_nchw(x, out_hw):
    rows = np.arange(out_hw[0]) * x.shape[2] // out_hw[0]
    cols = np.arange(out_hw[1]) * x.shape[3] // out_hw[1]
    return x[:, :, rows][:, :, :, cols]


def test_an_hwc_image_without_its_batch_axis_is_told_the_image_form():
    with pytest.raises(ValueError) as refused:
        resize_nearest(np.zeros((480, 640, 3), np.float32), (224, 224))
    said = str(refused.value)
    assert 'read as a sequence, NLC (N, L, C)' in said
    assert 'x[None] of shape (1, 480, 640, 3)' in said
    # the twin: the image form it names is accepted, exact
    x = np.random.default_rng(0).random((480, 640, 3), np.float32)
    got = resize_nearest(x[None], (224, 224))
    rows, cols = np.arange(224) * 480 // 224, np.arange(224) * 640 // 224
    np.testing.assert_array_equal(got[0], x[rows][:, cols])


def test_an_image_shape_error_names_its_layout():
    with pytest.raises(ValueError, match=r'read as an image, NHWC \(N, H, W, C\)'):
        resize_nearest(np.zeros((1, 8, 8, 3), np.float32), (4,))


def test_an_nchw_array_warns_what_was_assumed():
    x = np.arange(1 * 3 * 224 * 224, dtype=np.float32).reshape(1, 3, 224, 224)
    with pytest.warns(UserWarning, match=r"read as NHWC .*224 channels.*layout='NCHW'"):
        assert resize_nearest(x, (192, 192)).shape == (1, 192, 192, 224)
    # silenced by saying the layout, either one
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert resize_nearest(x, (192, 192), layout='NHWC').shape == (1, 192, 192, 224)
        got = resize_nearest(x, (192, 192), layout='NCHW')
    np.testing.assert_array_equal(got, _exact_nchw(x, (192, 192)))


@pytest.mark.parametrize('shape', [(1, 224, 224, 3), (2, 5, 40, 3), (1, 64, 56, 56), (8, 2, 2, 256)])
def test_an_unambiguous_shape_gives_no_warning(shape):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        resize_nearest(np.zeros(shape, np.uint8), (3, 3))


def test_a_wrong_layout_is_refused_naming_what_the_rank_allows():
    with pytest.raises(ValueError, match=r"layout must name .*'NHWC' or 'NCHW', got 'NCL'"):
        resize_nearest(np.zeros((1, 3, 8, 8), np.float32), (4, 4), layout='NCL')
    with pytest.raises(TypeError, match='layout must be a string'):
        resize_nearest(np.zeros((1, 3, 8, 8), np.float32), (4, 4), layout=4)
