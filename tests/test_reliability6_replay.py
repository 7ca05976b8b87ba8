"""The recording path and the host API (appendix E2b, chapter R5): a one-channel recording whose
wider probes the kernel refuses falls back instead of crashing; the replay cache bounds its number
of recordings, not only its maps' bytes; a sequence's range problem names out_size. Oracles: the
exact map (dst * in) // out per axis, and a fresh interpreter run (`fresh_runs`)."""
import numpy as np
import pytest
from resize_nearest.host import replay
from resize_nearest.host.api import resize_nearest, resize_nearest_nd
from resize_nearest.host.replay import clear_cache, fresh_runs


def _exact(x, out_hw):
    "The asymmetric/floor resize in NumPy: (dst * in) // out on each axis."
    rows = np.arange(out_hw[0]) * x.shape[1] // out_hw[0]
    cols = np.arange(out_hw[1]) * x.shape[2] // out_hw[1]
    return x[:, rows][:, :, cols]


@pytest.mark.parametrize('width', [40000, 1000], ids=['float32-probe-refused', 'float32-probe-fits'])
def test_a_one_byte_image_of_two_channels_with_wide_coprime_rows(width):
    """At 40,000 columns (coprime with 39,999) one column period of a one-channel float32 probe
    (4 B a pixel) does not fit an SBUF partition, where the image's own 2 B a pixel do; at 1,000
    columns, the twin, both fit."""
    x = np.random.default_rng(0).integers(0, 256, (1, 8, width, 2), dtype=np.uint8)
    out_hw = (5, width - 1)
    clear_cache()
    got = resize_nearest(x, out_hw, variant='rowgather')
    np.testing.assert_array_equal(got, _exact(x, out_hw))
    with fresh_runs():
        np.testing.assert_array_equal(resize_nearest(x, out_hw, variant='rowgather'), got)


def test_the_replay_cache_bounds_its_number_of_recordings(monkeypatch):
    "Recordings of 1x1 outputs hold 8 B of map each: the bytes bound alone would keep them all."
    monkeypatch.setattr(replay, 'CACHE_ENTRIES', 12, raising=False)
    clear_cache()
    outputs = [resize_nearest(np.full((1, h, 3, 1), h, np.uint8), (1, 1)) for h in range(2, 22)]
    assert len(replay._CACHE) == 12
    assert sum(r.nbytes for r in replay._CACHE.values()) < replay.CACHE_BYTES
    assert [int(y[0, 0, 0, 0]) for y in outputs] == list(range(2, 22))  # (0 * h) // 1 = pixel 0
    # the twin: a recording still kept is replayed, not made again
    kept = next(reversed(replay._CACHE))
    again = resize_nearest(np.full((1, 21, 3, 1), 7, np.uint8), (1, 1))
    assert next(reversed(replay._CACHE)) is kept and int(again.ravel()[0]) == 7
    clear_cache()


def test_a_sequence_out_of_range_names_out_size():
    x = np.zeros((1, 5, 2), np.float32)
    with pytest.raises(ValueError, match=r'out_size\[0\] = 65536 > 65535') as refused:
        resize_nearest_nd(x, (65536,))
    assert 'out_w' not in str(refused.value)
    with pytest.raises(ValueError, match=r'L = 70000 > 65535'):
        resize_nearest_nd(np.zeros((1, 70000, 2), np.float32), (3,))
    # the twins: the image keeps its own name, and the largest length is accepted, exact
    with pytest.raises(ValueError, match=r'out_w = 65536 > 65535'):
        resize_nearest_nd(np.zeros((1, 1, 5, 2), np.float32), (1, 65536))
    seq = np.arange(10, dtype=np.float32).reshape(1, 5, 2)
    got = resize_nearest_nd(seq, (65535,))
    np.testing.assert_array_equal(got[0, :, 0], seq[0, np.arange(65535) * 5 // 65535, 0])
