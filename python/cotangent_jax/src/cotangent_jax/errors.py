"""The errors of the exporter: each says what it cannot translate and why."""


class ExportError(Exception):
    """A JAX program that cannot be written as jx IR. Nothing is written."""


class UnsupportedPrimitiveError(ExportError):
    """The jaxpr uses primitives that jx has no op (or exact decomposition) for.

    `primitives` maps each such primitive's name to where it was first seen.
    """

    def __init__(self, primitives):
        self.primitives = dict(primitives)
        lines = [f"  {name}  (first at {where})" for name, where in sorted(self.primitives.items())]
        super().__init__(
            f"cannot export to jx: {len(self.primitives)} unsupported JAX "
            f"primitive{'s' if len(self.primitives) != 1 else ''}:\n" + "\n".join(lines)
            + "\nSee docs/jax.md for the primitives jx has.")


class UnsupportedPolicyError(ExportError):
    """A checkpoint policy that cannot be named as a #jx.policy."""


class UnsupportedTypeError(ExportError):
    """A dtype, a dynamic shape or a parameter value that jx cannot express."""


class ToolError(RuntimeError):
    """A Cotangent tool (cotangent-opt, -interpret, -run) failed or is missing."""
