"""Cotangent for JAX programs.

`to_jx(fun, *example_args)` writes a traced JAX function as `jx` IR (docs/jax.md);
`print_saved_residuals`, `saved_residuals`, `fwd_bwd` and `grad` run Cotangent's tools on it
(found through $COTANGENT_BIN, else the checkout's build/bin, else PATH).
"""
from .errors import (ExportError, ToolError, UnsupportedPolicyError, UnsupportedPrimitiveError,
                     UnsupportedTypeError)
from .export import SUPPORTED_PRIMITIVES, Module, arg_names, to_jx
from .api import fwd_bwd, grad, print_saved_residuals, saved_residuals
from . import policies

__all__ = ["to_jx", "Module", "arg_names", "SUPPORTED_PRIMITIVES", "policies", "saved_residuals",
           "print_saved_residuals", "fwd_bwd", "grad", "ExportError", "UnsupportedPrimitiveError",
           "UnsupportedPolicyError", "UnsupportedTypeError", "ToolError"]
