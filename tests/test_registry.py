"""The registry contract as described for neuronx-cc 2.24: every verbatim message, the lazy build, miss, builder, trace."""
import subprocess, sys, numpy as np, pytest
from pathlib import Path
import resize_nearest.compiler.registry as reg
from resize_nearest.host.api import resize_nearest_reference

ROOT = Path(__file__).resolve().parent.parent

def test_config_fields_and_defaults():
    c = reg.InternalKernelConfig(len)
    assert (c.kernel_func, c.operand_count, c.additional_args_builder, c.requires_multicore_grid, c.output_is_parameter) == (len, None, None, False, False)
    assert type(c).__mro__ == (reg.InternalKernelConfig, object) and not hasattr(c, '__dataclass_fields__')
    import inspect
    assert list(inspect.signature(reg.InternalKernelConfig).parameters) == ['kernel_func', 'operand_count', 'additional_args_builder', 'requires_multicore_grid', 'output_is_parameter']

def test_lazy_build_once_in_fresh_process():
    code = ("import sys, resize_nearest.compiler.registry as r; assert r._INTERNAL_KERNEL_REGISTRY is None; "
            "assert 'resize_nearest.kernels.gather' not in sys.modules; a = r.get_internal_kernel_registry(); "
            "assert 'resize_nearest.kernels.gather' in sys.modules; b = r.get_internal_kernel_registry(); "
            "assert a is b and r.BUILDS == 1; print('ok')")
    assert subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True).stdout.strip() == 'ok'

def test_get_resize_args_reads_only_the_result_access_shape():
    class R: access_shape = (3, 7, 9, 2)
    class I: results = [R()]
    assert reg._get_resize_args(I()) == {'out_shape': (3, 7, 9, 2)}

def test_resize_entry_and_miss_message():
    cfg = reg.get_internal_kernel_registry()['ResizeNearest']
    assert cfg.operand_count == 1 and cfg.additional_args_builder is reg._get_resize_args
    assert cfg.kernel_func.__name__ == 'resize_nearest_fixed_dma_kernel'
    keys = str(reg.get_internal_kernel_registry().keys())
    with pytest.raises(ValueError) as e: reg._resolve_kernel_config(reg.Instruction('Nope', [], []))
    assert str(e.value) == "Internal NKI kernel 'Nope' is not registered. Available kernels: " + keys

def test_resolve_and_trace_end_to_end():
    inst = reg.make_resize_instruction((2, 7, 7, 3), (41, 41))
    cfg, k, extra, call_args = reg._resolve_kernel_config(inst)
    assert extra == {'out_shape': (2, 41, 41, 3)} and len(call_args) == 1 and call_args[0] is inst.operands[0]
    x = np.random.default_rng(0).random((2, 7, 7, 3), dtype=np.float32)
    with pytest.warns(RuntimeWarning, match='15 of 1681 output pixels'): y = reg.trace_internal_kernel(inst, [x])
    np.testing.assert_array_equal(y, resize_nearest_reference(x, (41, 41), 'as_compiled'))
    with pytest.raises(ValueError, match=r'inputs\[0\] has shape \(2, 7, 7, 2\)'): reg.trace_internal_kernel(inst, [x[..., :2]])
    reg.set_registry_kernel('exact')
    try: np.testing.assert_array_equal(reg.trace_internal_kernel(inst, [x]), resize_nearest_reference(x, (41, 41)))
    finally: reg.set_registry_kernel('as_compiled')

def test_validation_messages():
    with pytest.raises(ValueError) as e: reg.validate_resize_nearest({'align_corners': True})
    assert str(e.value) == ("ResizeNearest: align_corners=true is not supported in this implementation.\n"
                            "Set align_corners=false in your ResizeNearest configuration.")
    for bad in ({'coordinate_transformation_mode': 'half_pixel'}, {'nearest_mode': 'ceil'}, {'half_pixel_centers': True}, {'mode': 'x'}):
        with pytest.raises(ValueError, match=list(bad)[0]): reg.validate_resize_nearest(bad)
    with pytest.raises(TypeError, match='attrs must be a dict'): reg.validate_resize_nearest(None)
    assert reg.validate_resize_nearest({}) == {}


@pytest.mark.parametrize('shape, out_hw', [((2, 30, 20, 8), (59, 38)), ((1, 7, 7, 3), (41, 41))])
def test_arguments_builder_equals_the_described_one_liner(shape, out_hw):
    "The exported builder (the decompile's steps) against the description's one-line body."
    def described(inst):
        return {"out_shape": inst.results[0].access_shape}
    inst = reg.make_resize_instruction(shape, out_hw)
    assert reg._get_resize_args(inst) == described(inst) == {'out_shape': (shape[0], *out_hw, shape[3])}
