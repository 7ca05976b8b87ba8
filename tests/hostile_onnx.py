"""Small ONNX models for the audit's tests, built with onnx.helper: one nearest Resize and its
sizes, models whose sizes are known only when they run, tensors stored in external files, and
the audit command run in this process (the CLI's exit status and its JSON)."""
import contextlib
import io
import json

import numpy as np
import pytest
from onnx import TensorProto, helper

ASYM = dict(coordinate_transformation_mode='asymmetric', nearest_mode='floor')


def sizes_tensor(name, sizes):
    return helper.make_tensor(name, TensorProto.INT64, [len(sizes)], sizes)


def resize_node(name, x, sizes_name, **attrs):
    "A nearest Resize (asymmetric/floor unless told) reading its sizes from `sizes_name`."
    attrs = {'mode': 'nearest', **ASYM, **attrs}
    return helper.make_node('Resize', [x, '', '', sizes_name], [name], name=name, **attrs)


def model_of(nodes, inputs, initializers=(), opset=19, outputs=None, functions=()):
    "A model of `nodes`; `inputs` maps float input names to shapes; outputs default to the last."
    outputs = outputs or [nodes[-1].output[0]]
    graph = helper.make_graph(
        nodes, 'g',
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in inputs.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        initializer=list(initializers))
    opsets = [helper.make_opsetid('', opset)] + [helper.make_opsetid('local', 1)] * bool(functions)
    return helper.make_model(graph, opset_imports=opsets, functions=list(functions))


def one_resize(sizes, x_shape=(1, 1, 26, 26), tensor=None, **attrs):
    "A model with one Resize 'y' of input 'x' to `sizes` (or to the given sizes tensor 's')."
    tensor = tensor if tensor is not None else sizes_tensor('s', sizes)
    return model_of([resize_node('y', 'x', 's', **attrs)], {'x': list(x_shape)}, [tensor])


def with_good_node(bad_nodes, bad_initializers=()):
    "The nodes given next to a good Resize 'good' (26 -> 22), all reading input 'x'."
    good = resize_node('good', 'x', 'good_sizes')
    nodes = list(bad_nodes) + [good]
    outputs = [o for n in nodes for o in n.output if o]
    return model_of(nodes, {'x': [1, 1, 26, 26]},
                    [sizes_tensor('good_sizes', [1, 1, 22, 22]), *bad_initializers],
                    outputs=outputs)


def external_sizes(location, length=32):
    "An int64 sizes tensor 's' of 4 values whose data is in the file `location`."
    t = TensorProto(name='s', data_type=TensorProto.INT64, dims=[4])
    t.data_location = TensorProto.EXTERNAL
    for key, value in (('location', location), ('offset', '0'), ('length', str(length))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


def write_sizes(path, sizes):
    path.write_bytes(np.array(sizes, dtype=np.int64).tobytes())


def runtime_sizes(x_shape, tail=(22, 22), before=()):
    """A model whose Resize sizes are (x's first two dims, *tail), computed through a float Cast
    that shape inference cannot follow, so only a run gives them. `before` are nodes that produce
    'x' from the input 'x0' (x0 is x itself when there are none)."""
    first = 'x0' if before else 'x'
    nodes = list(before) + [
        helper.make_node('Shape', ['x'], ['shape'], end=2),
        helper.make_node('Cast', ['shape'], ['shape_f'], to=TensorProto.FLOAT),
        helper.make_node('Cast', ['shape_f'], ['head'], to=TensorProto.INT64),
        helper.make_node('Concat', ['head', 'tail'], ['sizes'], axis=0),
        resize_node('y', 'x', 'sizes'),
    ]
    return model_of(nodes, {first: list(x_shape)}, [sizes_tensor('tail', list(tail))])


def cli_audit(path, capsys):
    "(exit status, parsed JSON, stderr) of `resize-nearest audit PATH --json`, run in-process."
    from resize_nearest import cli

    with pytest.raises(SystemExit) as stop, contextlib.redirect_stdout(io.StringIO()) as out:
        cli.main(['audit', str(path), '--json'])
    err = capsys.readouterr().err
    return stop.value.code, json.loads(out.getvalue()), err
