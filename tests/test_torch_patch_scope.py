"""What `patch()` and `patch(model)` change, for whom and for how long: only the modules whose
forward is nn.Upsample's own, exactly what each block added and no more, and F.interpolate for the
thread (or task) that opened the block only. PyTorch itself is the oracle: outside a block, and in
any module patch() leaves alone, the output is what PyTorch's own code gives."""
import threading

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from resize_nearest.torch import _F_INTERPOLATE, interpolate_nearest, patch, patch_model

X = torch.arange(26 * 26, dtype=torch.float32).view(1, 1, 26, 26)
EXACT = interpolate_nearest(X, (22, 22))
THEIRS = _F_INTERPOLATE(X, size=(22, 22), mode='nearest')  # PyTorch's own, wrong on 26 -> 22


def test_the_probe_tells_exact_from_pytorch():
    "Every check below relies on 26 -> 22 being a size pair where PyTorch's nearest is wrong."
    assert not torch.equal(EXACT, THEIRS)


def test_patch_model_leaves_an_upsample_subclass_with_its_own_forward_alone():
    class Tripled(nn.Upsample):
        def forward(self, x):
            return 3 * super().forward(x)

    up = Tripled(size=(22, 22))
    outside = up(X)
    with patch(up):
        inside = up(X)
    assert torch.equal(inside, outside) and torch.equal(outside, 3 * THEIRS)
    assert 'forward' not in up.__dict__


def test_leaving_an_inner_patch_block_keeps_the_enclosing_one():
    up = nn.Upsample(size=(22, 22))
    with patch(up):
        with patch(up):
            pass
        assert torch.equal(up(X), EXACT)
    assert torch.equal(up(X), THEIRS)


def test_a_patch_block_keeps_the_permanent_patch_of_patch_model():
    up = patch_model(nn.Upsample(size=(22, 22)))
    with patch(up):
        assert torch.equal(up(X), EXACT)
    assert torch.equal(up(X), EXACT)


def test_a_patch_block_keeps_a_forward_the_user_set_on_the_instance():
    up = nn.Upsample(size=(22, 22))

    def forward(x):
        return -_F_INTERPOLATE(x, size=(22, 22))

    up.forward = forward
    with patch(up):
        assert torch.equal(up(X), -THEIRS)  # not nn.Upsample's forward: left as the user set it
    assert up.forward is forward


def test_an_upsample_switched_to_bilinear_inside_patch_model_runs_pytorch_bilinear():
    up = nn.Upsample(size=(22, 22))
    bilinear = nn.Upsample(size=(22, 22), mode='bilinear')
    with patch(up):
        up.mode = 'bilinear'
        assert torch.equal(up(X), bilinear(X))


def test_patch_blocks_left_out_of_order_restore_f_interpolate():
    "Two generators, each inside a patch() block, closed in the order they were opened."
    def inside_patch():
        with patch():
            yield

    first, second = inside_patch(), inside_patch()
    next(first)
    next(second)
    first.close()
    assert torch.equal(F.interpolate(X, size=(22, 22)), EXACT)  # the second block is still open
    second.close()
    assert F.interpolate is _F_INTERPOLATE
    assert torch.equal(F.interpolate(X, size=(22, 22)), THEIRS)


def test_patch_is_local_to_the_thread_that_opened_the_block():
    opened, done = threading.Event(), threading.Event()
    seen = {}

    def other_thread():
        opened.wait(10)
        seen['other'] = F.interpolate(X, size=(22, 22))
        done.set()

    worker = threading.Thread(target=other_thread)
    worker.start()
    with patch():
        opened.set()
        done.wait(10)
        mine = F.interpolate(X, size=(22, 22))
    worker.join()
    assert torch.equal(mine, EXACT) and torch.equal(seen['other'], THEIRS)


def test_patch_is_local_to_the_asyncio_task_that_opened_the_block():
    import asyncio

    async def inside(opened, done):
        with patch():
            opened.set()
            await done.wait()
            return F.interpolate(X, size=(22, 22))

    async def outside(opened, done):
        await opened.wait()
        result = F.interpolate(X, size=(22, 22))
        done.set()
        return result

    async def both():
        opened, done = asyncio.Event(), asyncio.Event()
        return await asyncio.gather(inside(opened, done), outside(opened, done))

    mine, other = asyncio.run(both())
    assert torch.equal(mine, EXACT) and torch.equal(other, THEIRS)


def test_a_forward_the_user_sets_inside_the_block_stays_after_it():
    up = nn.Upsample(size=(22, 22))

    def forward(x):
        return -_F_INTERPOLATE(x, size=(22, 22))

    with patch(up):
        up.forward = forward
    assert up.forward is forward and torch.equal(up(X), -THEIRS)
    assert '__prepare_scriptable__' not in up.__dict__


def _task_created_inside_a_block_calls_after_it():
    "F.interpolate from an asyncio task created inside a patch() block, run after the block."
    import asyncio

    async def later():
        await asyncio.sleep(0)
        return F.interpolate(X, size=(22, 22))

    async def main():
        with patch():
            task = asyncio.create_task(later())
        return await task  # the block has closed before the task runs

    return asyncio.run(main())


def test_a_task_created_inside_a_block_stays_inside_it():
    """The task copied its creator's context, as asyncio documents (create_task runs it in
    contextvars.copy_context()): it is inside the block, exact, after the creator has left it."""
    assert torch.equal(_task_created_inside_a_block_calls_after_it(), EXACT)
    import gc

    gc.collect()  # the finished task and its context gone: no block is held anywhere
    assert F.interpolate is _F_INTERPOLATE


def test_a_task_created_inside_a_block_is_exact_whatever_another_thread_holds():
    "The same, while another thread holds a patch() block of its own from start to end."
    opened, finish = threading.Event(), threading.Event()

    def holder():
        with patch():
            opened.set()
            finish.wait(30)

    worker = threading.Thread(target=holder)
    worker.start()
    opened.wait(30)
    try:
        inside = _task_created_inside_a_block_calls_after_it()
        outside = F.interpolate(X, size=(22, 22))  # this thread holds no block: PyTorch's own
    finally:
        finish.set()
        worker.join()
    assert torch.equal(inside, EXACT) and torch.equal(outside, THEIRS)
