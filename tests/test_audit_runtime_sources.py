"""Each implementation in an audit row says whether its count was run or modelled, and from what;
TFLite's RESIZE_NEAREST_NEIGHBOR is modelled from its 16.16 fixed-point kernel (TFLite's own test,
tensorflow/lite/kernels/internal/resize_nearest_neighbor_test.cc, is_valid_scale, computes
height_scale_int = (input_height << 16) / output_height + 1 and in_y = (y * scale) >> 16)."""
from hostile_onnx import one_resize
from resize_nearest.models.audit import TFLITE, audit_onnx


def tflite_rows(in_size, out_size):
    "The source row of every output row, as is_valid_scale writes it, in Python integers."
    scale = (in_size << 16) // out_size + 1
    return [min((y * scale) >> 16, in_size - 1) for y in range(out_size)]


def test_every_count_names_its_source():
    row, = audit_onnx(one_resize([1, 1, 22, 22]))
    assert set(row['sources']) == set(row['wrong'])
    assert all(s.startswith(('run: ', 'modelled: ')) for s in row['sources'].values())
    assert row['sources'][TFLITE].startswith('modelled: 16.16 fixed point')


def test_tflite_fixed_point_copies_wrong_rows_on_a_large_upsample():
    "8 -> 381 to sizes, asymmetric/floor: the fixed-point rows differ from (d * 8) // 381."
    wrong_rows = sum(t != d * 8 // 381 for d, t in enumerate(tflite_rows(8, 381)))
    assert wrong_rows > 0
    row, = audit_onnx(one_resize([1, 1, 381, 381], x_shape=(1, 1, 8, 8)))
    assert row['wrong'][TFLITE] == 381 * 381 - (381 - wrong_rows) ** 2
    assert row['wrong']['onnxruntime'] == 0


def test_tflite_is_not_modelled_for_other_conventions():
    row, = audit_onnx(one_resize([1, 1, 22, 22], coordinate_transformation_mode='half_pixel'))
    assert row['wrong'][TFLITE].startswith('n/a: modelled for asymmetric/floor')
