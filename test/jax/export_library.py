"""A stand-in for a library, for test_cotangent_jax.py's location tests.

Like Flax's modules it registers itself with JAX's source-info exclusions, so the equations JAX
traces in it (inside its jitted functions) record no user line at all, as those of a jitted
`jnp` function do. Its gathers take windows larger than one element along an indexed dimension,
which jx cannot express: the exporter refuses them, and must say where the user called it.
"""
import jax
from jax import lax
from jax.extend import source_info_util

source_info_util.register_exclusion(__file__)


@jax.jit
def windows(x, starts):
    """The 2x2 window of `x` [m, n] at each (row, column) of `starts` [k, 2]: a [k, 2, 2] gather
    of partial windows (as lax.dynamic_slice under vmap)."""
    dn = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
    return lax.gather(x, starts, dn, slice_sizes=(2, 2), mode="clip")


@jax.jit
def window_sums(x, starts):
    """The sums of windows(x, starts), through one more jitted call."""
    return windows(x, starts).sum(axis=(1, 2))
