"""Where the interpreter's settings reach: `cast_rounding`, `target_chip` and `counting()` are
context variables, so a worker thread started with `contextvars.copy_context().run` inside the
block sees them and counts into the block, and a plain new thread starts from the defaults."""
import contextvars
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from resize_nearest import nki_cpu
from resize_nearest.host.api import resize_nearest
from resize_nearest.nki_cpu import isa, memory
from resize_nearest.host.replay import fresh_runs

SMALL = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
# rows of 2048x4 float32: one run keeps over half of trn1's SBUF partition live at its peak
WIDE = np.ones((1, 256, 2048, 4), np.float32)


def settings_seen(x=SMALL, out_hw=(2, 2)):
    "One fresh interpreter run, and the rounding and chip this thread's context holds."
    with fresh_runs():
        resize_nearest(x, out_hw, backend='cpu')
    return isa.current_rounding(), memory.current_chip()


def test_a_thread_started_with_the_context_sees_the_settings_and_counts_into_the_block():
    with isa.cast_rounding('trunc'), memory.target_chip('trn3'), nki_cpu.counting() as c:
        with ThreadPoolExecutor(1) as pool:
            seen = pool.submit(contextvars.copy_context().run, settings_seen).result()
    assert seen == ('trunc', 'trn3') and c.summary()['dma_transfers'] > 0


def test_a_plain_new_thread_starts_from_the_defaults_and_counts_apart():
    with isa.cast_rounding('floor'), memory.target_chip('trn3'), nki_cpu.counting() as c:
        with ThreadPoolExecutor(1) as pool:
            seen = pool.submit(settings_seen).result()
    assert seen == ('rne', 'trn2') and c.summary()['dma_transfers'] == 0


def test_runs_at_once_in_one_block_neither_share_live_bytes_nor_lose_counts():
    """Four threads with copies of one context run at once into one counting block: each run's
    on-chip bytes are its own (no refusal for the sum of four), and the block adds all four."""
    with nki_cpu.counting() as one:
        settings_seen(WIDE, (300, 2500))
    with nki_cpu.counting() as c, ThreadPoolExecutor(4) as pool:
        runs = [pool.submit(contextvars.copy_context().run, settings_seen, WIDE, (300, 2500))
                for _ in range(4)]
        for r in runs:
            r.result()
    once, together = one.summary(), c.summary()
    assert together['dma_transfers'] == 4 * once['dma_transfers']
    assert together['traced_instructions'] == 4 * once['traced_instructions']
    assert together['sbuf_peak_bytes'] == once['sbuf_peak_bytes']


@pytest.mark.parametrize('setting', [isa.cast_rounding, memory.target_chip, nki_cpu.counting])
def test_each_setting_says_which_threads_it_reaches(setting):
    doc = ' '.join(setting.__doc__.split())
    assert 'copy_context().run' in doc and 'plain new thread' in doc, doc
