"""What reading a model costs: memory linear in its Resize nodes, about its file size in all (only
the tensors Resize nodes read are converted), and where sizes are known only at run time, a run
of only the nodes that compute them, bounded in time and memory, that says when it gives up.

Growth is measured honestly but small: tracemalloc peaks of N and 2N nodes in one test, counts of
conversions, the op types handed to onnxruntime; a large model is in the `slow` tier."""
import json
import subprocess
import sys
import tracemalloc

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from resize_nearest.models import onnx_refusals
from resize_nearest.models.onnx_reader import read_resizes
from hostile_onnx import model_of, resize_node, runtime_sizes, sizes_tensor


def chain_of_resizes(n):
    "n Resize nodes one after the other, each with its own sizes initializer."
    nodes = [resize_node(f'x{k + 1}', f'x{k}', f's{k}') for k in range(n)]
    sizes = [sizes_tensor(f's{k}', [1, 1, 4, 4]) for k in range(n)]
    return model_of(nodes, {'x0': [1, 1, 4, 4]}, sizes)


def traced_peak(f):
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reading_memory_grows_linearly_with_the_number_of_resize_nodes():
    small, large = chain_of_resizes(300), chain_of_resizes(600)
    peaks = [traced_peak(lambda m=m: read_resizes(m)) for m in (small, large)]
    assert peaks[1] < 2.5 * peaks[0], peaks  # quadratic growth would be 4x


def with_weights(count, values):
    "One Resize, and `count` float weights of `values` values each that no Resize reads."
    weights = [numpy_helper.from_array(np.zeros(values, np.float32), f'w{k}') for k in range(count)]
    m = model_of([resize_node('y', 'x', 's')], {'x': [1, 1, 26, 26]},
                 [sizes_tensor('s', [1, 1, 22, 22]), *weights])
    return m


def test_only_the_tensors_resize_nodes_read_are_converted(monkeypatch):
    converted = []
    to_array = numpy_helper.to_array
    monkeypatch.setattr(numpy_helper, 'to_array',
                        lambda t, *a, **k: converted.append(t.name) or to_array(t, *a, **k))
    r, = read_resizes(with_weights(50, 4096))
    assert r.sizes == (1, 1, 22, 22) and converted == ['s']


def test_reading_a_model_costs_about_its_file_size(tmp_path):
    "The file is read once (its bytes, then the parsed model); no copy of its weights is made."
    path = tmp_path / 'm.onnx'
    onnx.save(with_weights(4, 2**21), path)  # 32 MiB of weights
    size = path.stat().st_size
    peak = traced_peak(lambda: read_resizes(str(path)))
    assert peak < 1.5 * size, (peak, size)


READ_RSS = """
import sys
from resize_nearest.models.onnx_reader import read_resizes

def peak_kib():  # VmHWM: this process's peak resident memory (ru_maxrss survives exec)
    lines = open('/proc/self/status').read().splitlines()
    return int(next(l for l in lines if l.startswith('VmHWM')).split()[1])

before = peak_kib()
r, = read_resizes(sys.argv[1])
print(peak_kib() - before, r.sizes)
"""


@pytest.mark.slow
def test_a_400_mb_model_is_read_in_about_its_size_of_memory(tmp_path):
    path = tmp_path / 'm.onnx'
    onnx.save(with_weights(25, 2**22), path)  # 400 MiB
    size = path.stat().st_size
    out = subprocess.run([sys.executable, '-c', READ_RSS, str(path)], capture_output=True,
                         text=True, check=True).stdout.split(maxsplit=1)
    # onnx.load holds the file's bytes and the parsed model at once: twice the file at most
    assert int(out[0]) * 1024 < 2.2 * size and out[1].strip() == '(1, 1, 22, 22)', out


def op_types_run(monkeypatch):
    "The op types of every model onnxruntime is given from now on (one set per session)."
    seen, session = [], onnxruntime.InferenceSession

    def recording(model, *args, **kwargs):
        proto = onnx.load_from_string(model) if isinstance(model, bytes) else onnx.load(model)
        seen.append({n.op_type for n in proto.graph.node})
        return session(model, *args, **kwargs)

    monkeypatch.setattr(onnxruntime, 'InferenceSession', recording)
    return seen


def test_run_time_sizes_run_only_the_nodes_that_compute_them(monkeypatch):
    "A model whose other branch is a MatMul chain: the run that gives the sizes leaves it out."
    weight = numpy_helper.from_array(np.eye(26, dtype=np.float32), 'w')
    chain = [helper.make_node('MatMul', [f'm{k}', 'w'], [f'm{k + 1}']) for k in range(20)]
    m = runtime_sizes([1, 1, 26, 26], before=[helper.make_node('Identity', ['x0'], ['x']),
                                              helper.make_node('Identity', ['x0'], ['m0'])])
    m.graph.node.extend(chain)
    m.graph.initializer.append(weight)
    m.graph.output.append(helper.make_tensor_value_info('m20', TensorProto.FLOAT, None))
    seen = op_types_run(monkeypatch)
    r, = read_resizes(m)
    assert r.problem is None and r.sizes == (1, 1, 22, 22)
    assert len(seen) == 1 and 'MatMul' not in seen[0] and 'Resize' not in seen[0], seen


def data_dependent_sizes(before):
    """Sizes (1, 1, k, k) with k from the data of `before`'s output 'v' (a float tensor): no
    inference can know them, and a run has to compute 'v'."""
    nodes = list(before) + [
        helper.make_node('ReduceMax', ['v'], ['peak'], keepdims=0),
        helper.make_node('Add', ['peak', 'k'], ['k_f']),
        helper.make_node('Cast', ['k_f'], ['k_i'], to=TensorProto.INT64),
        helper.make_node('Reshape', ['k_i', 'one'], ['k_1']),
        helper.make_node('Concat', ['ones', 'k_1', 'k_1'], ['sizes'], axis=0),
        resize_node('y', 'x', 'sizes'),
    ]
    inits = [numpy_helper.from_array(np.array(22, np.float32), 'k'),
             sizes_tensor('one', [1]), sizes_tensor('ones', [1, 1])]
    return nodes, inits


def test_a_run_past_its_time_bound_gives_up_and_says_so(monkeypatch):
    "200 chained 1000 x 1000 MatMuls (200 GFLOP) feed the sizes; the run is stopped at its bound."
    monkeypatch.setattr(onnx_refusals, 'RUN_SECONDS_MAX', 0.1)
    chain = [helper.make_node('MatMul', [f'm{k}', 'w'], [f'm{k + 1}']) for k in range(200)]
    nodes, inits = data_dependent_sizes(chain + [helper.make_node('Identity', ['m200'], ['v'])])
    inits.append(numpy_helper.from_array(np.eye(1000, dtype=np.float32), 'w'))
    m = model_of(nodes, {'x': [1, 1, 26, 26], 'm0': [1000, 1000]}, inits)
    r, = read_resizes(m)
    assert r.problem == ("not analysed: 'sizes' is known only when the model runs (the run that"
                         " computes it was stopped at its time bound of 0.1 s)")


def test_a_run_past_its_memory_bound_gives_up_and_says_so():
    "The sizes need a 20000 x 20000 float tensor (1.6 GB) made from the data: past the bound."
    width = [helper.make_node('ReduceMax', ['x'], ['x_peak'], keepdims=0),
             helper.make_node('Add', ['x_peak', 'wide'], ['wide_f']),
             helper.make_node('Cast', ['wide_f'], ['wide_i'], to=TensorProto.INT64),
             helper.make_node('Reshape', ['wide_i', 'one'], ['wide_1']),
             helper.make_node('Concat', ['wide_1', 'wide_1'], ['big_shape'], axis=0),
             helper.make_node('Expand', ['x_peak', 'big_shape'], ['big']),
             helper.make_node('Neg', ['big'], ['v'])]
    nodes, inits = data_dependent_sizes(width)
    inits.append(numpy_helper.from_array(np.array(20000, np.float32), 'wide'))
    r, = read_resizes(model_of(nodes, {'x': [1, 1, 26, 26]}, inits))
    bound = onnx_refusals.RUN_BYTES_MAX / 2**30
    assert r.problem == ("not analysed: 'sizes' is known only when the model runs (the run that"
                         f" computes it needs more than its memory bound of {bound:g} GiB)")
