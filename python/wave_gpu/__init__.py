"""wave_gpu: Python functions as GPU kernels, on the WAVE emulator and on Vulkan GPUs."""

from wave_gpu import _native
from wave_gpu._array import WaveArray, array, ones, zeros
from wave_gpu._device import DeviceInfo, device, devices, set_device
from wave_gpu._errors import CompileError, KernelError
from wave_gpu._intrinsics import (atomic_add, atomic_and, atomic_cas, atomic_exchange, atomic_max, atomic_min,
                                  atomic_or, atomic_sub, atomic_xor, barrier, ceil, cos, exp, exp2, floor, fma,
                                  lane_id, local_id, log, log2, num_workgroups, shared, sin, sqrt, tan, thread_id,
                                  wave_all, wave_any, wave_ballot, wave_broadcast, wave_max, wave_min,
                                  wave_prefix_sum, wave_shuffle, wave_sum, wave_width, workgroup_id, workgroup_size)
from wave_gpu._kernel import Kernel, kernel
from wave_gpu._func import Func, func  # noqa: I001 - after _kernel, which loads the frontend they extend
from wave_gpu._language import local
from wave_gpu._math import (acos, asin, atan, atan2, copysign, cosh, erf, erfc, expm1, fabs, fmod, hypot, isfinite,
                            isinf, isnan, log1p, log10, sinh, tanh, trunc)
from wave_gpu._random import rand_init, randf, randi, randn
from wave_gpu._types import DType, f16, f32, f64, i32, i64, u32, u64

__version__: str = _native.__version__

__all__ = [
    "__version__", "WaveArray", "array", "zeros", "ones", "DeviceInfo", "device", "devices", "set_device", "CompileError",
    "KernelError", "Kernel", "kernel", "Func", "func", "local", "DType", "f16", "f32", "f64", "i32", "u32", "i64", "u64",
    "thread_id", "local_id", "workgroup_id", "workgroup_size", "num_workgroups", "lane_id", "wave_width", "barrier",
    "shared", "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_exchange", "atomic_cas", "wave_broadcast", "wave_shuffle", "wave_sum", "wave_min", "wave_max",
    "wave_prefix_sum", "wave_any", "wave_all", "wave_ballot", "sqrt", "sin", "cos", "tan", "exp", "exp2", "log",
    "log2", "floor", "ceil", "fma", "rand_init", "randf", "randi", "randn",
    # _math.py
    "tanh", "sinh", "cosh", "asin", "acos", "atan", "atan2", "hypot", "erf", "erfc", "log10", "log1p", "expm1", "fmod",
    "copysign", "fabs", "trunc", "isnan", "isinf", "isfinite",
]
