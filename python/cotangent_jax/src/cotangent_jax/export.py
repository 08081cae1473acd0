"""jaxpr -> jx IR text.

`to_jx(fun, *example_args)` traces `fun` with `jax.make_jaxpr` and writes one
`func.func` per function in a module. The translation is one jx op per JAX
equation wherever jx has the primitive (same name, parameters mapped onto the
op's attributes), a short fixed decomposition for a few that it lacks
(`square`, `exp2`, `clamp`, `is_finite`, `split`), and inlining for the call
primitives (`jit`/`pjit`, `closed_call`, `core_call`, `custom_jvp_call`,
`custom_vjp_call`: their primal jaxpr, not the custom rule). Checkpoints become
`jx.remat` regions with the policy named as in JAX (policies.py), `name`
becomes `jx.checkpoint_name`, `scan` / `cond` / `while` their jx forms.
A gather (scatter-add) is a `jx.take` (`jx.scatter_add`) along one axis, or,
when it picks single elements along several indexed or batching dimensions
(`x[i, j]`, `jnp.take_along_axis`), one along axis 0 of the operand with those
dimensions flattened into one, at row indices computed from the clamped
indices; `pow` with an integer exponent converts it to the base's dtype.

What jx cannot express is refused before anything is written, each error
with the user line (or, inside a library function, the line of the call into
it, in the end the line that called to_jx): every
primitive without a translation is listed in one UnsupportedPrimitiveError;
a dtype jx lacks, a parameter value with no jx counterpart (a
non-default `accuracy`, a mixed-dtype `mul`) or a custom policy raises
UnsupportedTypeError / UnsupportedPolicyError. There is no fallback that
writes approximate IR.

JAX broadcasts scalars and size-1 axes implicitly inside elementwise
primitives; jx never does, so each such operand gets an explicit
`jx.broadcast_in_dim`, and every literal a `jx.constant`.
"""
import inspect
import math
import os

import numpy as np
import jax
from jax import tree_util
from jax._src import core
from jax._src import source_info_util

from .errors import ExportError, UnsupportedPrimitiveError, UnsupportedTypeError
from .policies import policy_text

# ---------------------------------------------------------------------------------------------
# Types and literals
# ---------------------------------------------------------------------------------------------

_DTYPES = {
    np.dtype("float32"): "f32", np.dtype("float64"): "f64", np.dtype("float16"): "f16",
    np.dtype("int32"): "i32", np.dtype("int64"): "i64", np.dtype("bool"): "i1",
}
try:
    _DTYPES[np.dtype(jax.numpy.bfloat16)] = "bf16"
except TypeError:  # pragma: no cover
    pass
_FLOAT_BITS = {"f32": (np.float32, np.uint32), "f64": (np.float64, np.uint64),
               "f16": (np.float16, np.uint16)}


def element_type(dtype, where="a value"):
    dtype = np.dtype(dtype)
    try:
        return _DTYPES[dtype]
    except KeyError:
        raise UnsupportedTypeError(
            f"{where} has dtype {dtype}, which jx does not have "
            "(jx has float32, float64, float16, bfloat16, int32, int64 and bool)") from None


def tensor_type(shape, dtype, where="a value"):
    et = element_type(dtype, where)
    for d in shape:
        if not isinstance(d, (int, np.integer)):
            raise UnsupportedTypeError(f"{where} has a dynamic or symbolic shape {tuple(shape)}; jx shapes are static")
    return "tensor<" + "".join(f"{int(d)}x" for d in shape) + et + ">"


def _float_text(v, et):
    v = float(v)
    if math.isfinite(v):
        s = repr(v)
        mant, _, exp = s.partition("e")
        if "." not in mant:
            mant += ".0"
        return mant + ("e" + exp if exp else "")
    # inf and nan: MLIR spells them as the bit pattern.
    if et == "bf16":
        bits = np.array([v], np.float32).view(np.uint32)[0] >> 16
        return f"0x{int(bits):04X}"
    ftype, itype = _FLOAT_BITS[et]
    bits = np.array([v], ftype).view(itype)[0]
    return f"0x{int(bits):0{np.dtype(itype).itemsize * 2}X}"


def _scalar_text(v, et):
    if et == "i1":
        return "true" if bool(v) else "false"
    if et in ("i32", "i64"):
        return str(int(v))
    return _float_text(v, et)


def dense_text(value, et):
    """`dense<...>` of a numpy array: a splat when all elements are equal."""
    arr = np.asarray(value)
    flat = arr.reshape(-1)
    if flat.size == 0:
        return "dense<>" if arr.ndim <= 1 else "dense<" + "[" * arr.ndim + "]" * arr.ndim + ">"
    first = flat[0]
    if flat.size == 1 or np.all(flat == first) and not (et not in ("i1", "i32", "i64") and np.isnan(float(first))):
        return f"dense<{_scalar_text(first, et)}>"

    def rec(a):
        if a.ndim == 0:
            return _scalar_text(a, et)
        return "[" + ", ".join(rec(x) for x in a) + "]"
    return f"dense<{rec(arr)}>"


def _ints(xs):
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


def _dims_text(dn):
    """Gather/ScatterDimensionNumbers with plain ints (vmap leaves numpy ints in them)."""
    try:
        return type(dn).__name__ + "(" + ", ".join(
            f"{f}={tuple(int(v) for v in getattr(dn, f))}" for f in dn._fields) + ")"
    except (AttributeError, TypeError):
        return str(dn)


def _str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------------------------------------
# Values and regions
# ---------------------------------------------------------------------------------------------

class _Value:
    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(int(d) for d in shape), np.dtype(dtype)

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)


def _aval_of(x):
    aval = x.aval
    if not hasattr(aval, "shape"):
        raise UnsupportedTypeError(f"{x} is not an array ({type(aval).__name__}); jx values are tensors")
    return aval


class _Region:
    """The ops of one region (a function body or an op's block), indented."""

    def __init__(self, writer, indent):
        self.writer, self.indent, self.lines, self.consts = writer, indent, [], {}

    def emit(self, text, results=(), loc=""):
        """Writes an op with the given result (shape, dtype)s; returns their values."""
        results = list(results)
        names = []
        if len(results) == 1:
            base = self.writer.fresh()
            names = [base]
            text = f"{base} = {text}"
        elif results:
            base = self.writer.fresh()
            names = [f"{base}#{i}" for i in range(len(results))]
            text = f"{base}:{len(results)} = {text}"
        self.lines.append(" " * self.indent + text + loc)
        return [_Value(n, s, d) for n, (s, d) in zip(names, results)]

    def constant(self, value, dtype):
        arr = np.asarray(value, dtype=dtype)
        et = element_type(arr.dtype, "a constant")
        key = (arr.shape, str(arr.dtype), arr.tobytes())
        if key not in self.consts:
            self.consts[key] = self.emit(f"jx.constant {dense_text(arr, et)} : {tensor_type(arr.shape, arr.dtype)}",
                                         [(arr.shape, arr.dtype)])[0]
        return self.consts[key]


# ---------------------------------------------------------------------------------------------
# Primitive tables
# ---------------------------------------------------------------------------------------------

_UNARY = {"neg", "sin", "cos", "tan", "exp", "log", "log1p", "expm1", "erf", "erfc", "tanh",
          "logistic", "sqrt",
          "rsqrt", "abs", "sign", "floor", "ceil", "not", "stop_gradient"}
_BINARY = {"add": "add", "add_any": "add", "sub": "sub", "mul": "mul", "div": "div", "max": "max",
           "min": "min", "pow": "pow", "atan2": "atan2", "rem": "rem", "and": "and", "or": "or"}
_COMPARE = {"eq", "ne", "lt", "le", "gt", "ge"}
_REDUCE = {"reduce_sum", "reduce_max", "reduce_min", "reduce_prod"}
_INLINE = {"jit": "jaxpr", "pjit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
           "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
           "custom_vjp_call_jaxpr": "fun_jaxpr", "remat_call": "call_jaxpr"}
_OTHER = {"integer_pow", "square", "exp2", "is_finite", "clamp", "select_n", "dot_general",
          "broadcast_in_dim", "reshape", "transpose", "squeeze", "expand_dims", "concatenate", "split", "stack",
          "slice", "dynamic_slice", "dynamic_update_slice", "gather", "scatter-add", "pad", "iota",
          "convert_element_type", "argmax", "cumsum", "copy", "copy_p", "optimization_barrier", "name", "remat2", "checkpoint",
          "scan", "cond", "while"}
# shard_map's collectives over one named mesh axis (jx's collectives); pvary marks a value as
# varying over an axis (check_vma) and changes nothing.
_COLLECTIVE = {"psum", "psum_invariant", "pvary", "all_gather", "reduce_scatter", "ppermute",
               "axis_index"}

#: Every JAX primitive the exporter translates.
SUPPORTED_PRIMITIVES = frozenset(_UNARY | set(_BINARY) | _COMPARE | _REDUCE | set(_INLINE) | _OTHER
                                 | _COLLECTIVE)

# Parameters that only steer XLA (layout, sharding, precision, unrolling) and change no value.
_IGNORED_PARAMS = {"sharding", "out_sharding", "precision", "unroll", "_split_transpose", "linear"}


def _subjaxprs(eqn):
    for k, v in eqn.params.items():
        if isinstance(v, core.ClosedJaxpr):
            yield v.jaxpr
        elif isinstance(v, core.Jaxpr):
            yield v
        elif isinstance(v, (tuple, list)):
            for x in v:
                if isinstance(x, core.ClosedJaxpr):
                    yield x.jaxpr
                elif isinstance(x, core.Jaxpr):
                    yield x


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _own_frame(file_name):
    """Whether a frame is this package's (its make_jaxpr call is no user's line)."""
    return os.path.abspath(file_name).startswith(_PACKAGE_DIR)


def _user_frame(eqn):
    """The innermost frame of user code (not JAX's, not ours) that JAX recorded for `eqn`, or None."""
    try:
        tb = eqn.source_info.traceback
        frame = source_info_util.user_frame(tb)  # cached
        if frame is None or frame.file_name and not _own_frame(frame.file_name):
            return frame
        for frame in source_info_util.user_frames(tb):
            if frame and frame.file_name and not _own_frame(frame.file_name):
                return frame
    except Exception:  # pragma: no cover - best effort
        pass
    return None


def _frame_text(frame):
    return f"{frame.file_name}:{int(frame.start_line)}:{int(frame.start_column)} ({frame.function_name})"


def caller_where():
    """`file:line:col (function)` of the innermost caller outside this package and JAX: the line
    that called to_jx / Module.add, the last resort of `where`."""
    for info in inspect.stack(context=0)[1:]:
        f = info.filename
        if f and not _own_frame(f) and source_info_util.is_user_filename(f):
            return f"{f}:{info.lineno}:0 ({info.function})"
    return "?"


def where(eqn, outer=""):
    """`file:line:col (function)` of the user code that wrote `eqn`. Inside a library function (a
    jitted `jnp.take_along_axis`, say) JAX records no user line: then `outer`, the location of the
    nearest enclosing call that has one (in the end the line that called to_jx)."""
    frame = _user_frame(eqn)
    if frame is not None:
        return _frame_text(frame)
    return outer or caller_where()


def unsupported_primitives(jaxpr, found=None, outer=""):
    """{primitive name: where} for every equation (recursively) the exporter cannot translate.

    Inside a library function (a jitted `jnp.sort`, say) JAX records no user line; the line of
    the call that reached it stands in."""
    found = {} if found is None else found
    outer = outer or caller_where()
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        here = where(eqn, outer)
        if name not in SUPPORTED_PRIMITIVES:
            found.setdefault(name, here)
            continue
        key = _INLINE.get(name)
        subs = [eqn.params[key]] if key else list(_subjaxprs(eqn))
        for sub in subs:
            unsupported_primitives(sub.jaxpr if isinstance(sub, core.ClosedJaxpr) else sub, found, here)
    return found


# ---------------------------------------------------------------------------------------------
# The function writer
# ---------------------------------------------------------------------------------------------

class _FunctionWriter:
    def __init__(self, locations=True):
        self.counter = 0
        self.locations = locations
        self.outer_loc = ""     # of the call being inlined: for its equations without user code
        self.outer_where = ""   # the same for error messages: where the enclosing equation is

    def fresh(self):
        self.counter += 1
        return f"%{self.counter - 1}"

    # -- locations --------------------------------------------------------------------------
    def where(self, eqn):
        """Where `eqn` is, for error messages: its user line, else the enclosing call's."""
        return where(eqn, self.outer_where)

    def loc(self, eqn):
        if not self.locations:
            return ""
        frame = _user_frame(eqn)
        if frame is None:
            return self.outer_loc
        return f" loc({_str(frame.file_name)}:{int(frame.start_line)}:{int(frame.start_column)})"

    # -- jaxprs ---------------------------------------------------------------------------------
    def jaxpr(self, region, jaxpr, consts, args):
        """Writes `jaxpr`'s equations into `region`; returns its output values."""
        env = {}
        if len(consts) != len(jaxpr.constvars) or len(args) != len(jaxpr.invars):
            raise ExportError("internal: jaxpr arity mismatch")
        for v, c in zip(jaxpr.constvars, consts):
            env[v] = c if isinstance(c, _Value) else region.constant(np.asarray(c), _aval_of(v).dtype)
        for v, a in zip(jaxpr.invars, args):
            env[v] = a
        for eqn in jaxpr.eqns:
            ins = [self.read(region, env, x) for x in eqn.invars]
            outs = self.eqn(region, eqn, ins)
            if len(outs) != len(eqn.outvars):
                raise ExportError(f"internal: {eqn.primitive.name} gave {len(outs)} results for {len(eqn.outvars)}")
            for v, o in zip(eqn.outvars, outs):
                aval = _aval_of(v)
                if tuple(aval.shape) != o.shape or np.dtype(aval.dtype) != o.dtype:
                    raise ExportError(f"internal: {eqn.primitive.name} at {self.where(eqn)} wrote {o.type}, "
                                      f"JAX has {tensor_type(aval.shape, aval.dtype)}")
                env[v] = o
        return [self.read(region, env, x) for x in jaxpr.outvars]

    def read(self, region, env, x):
        if isinstance(x, core.Literal):
            aval = _aval_of(x)
            return region.constant(np.asarray(x.val, dtype=aval.dtype).reshape(aval.shape), aval.dtype)
        return env[x]

    def closed(self, region, closed_jaxpr, args):
        if isinstance(closed_jaxpr, core.ClosedJaxpr):
            return self.jaxpr(region, closed_jaxpr.jaxpr, closed_jaxpr.consts, args)
        return self.jaxpr(region, closed_jaxpr, [], args)

    def block(self, parent, closed_jaxpr, arg_types, extra=None):
        """A region (as text lines) whose block arguments have `arg_types` ((shape, dtype) pairs);
        `extra(region, args)` returns the values to yield, by default the jaxpr's outputs."""
        region = _Region(self, parent.indent + 2)
        args = [_Value(self.fresh(), s, d) for s, d in arg_types]
        outs = extra(region, args) if extra else self.closed(region, closed_jaxpr, args)
        lines = []
        if args:
            lines.append(" " * parent.indent + "^bb0(" + ", ".join(f"{a.name}: {a.type}" for a in args) + "):")
        lines += region.lines
        if outs:
            lines.append(" " * region.indent + "jx.yield " + ", ".join(o.name for o in outs)
                         + " : " + ", ".join(o.type for o in outs))
        else:
            lines.append(" " * region.indent + "jx.yield")
        return lines

    # -- helpers --------------------------------------------------------------------------------
    def broadcast(self, region, x, shape, loc):
        shape = tuple(shape)
        if x.shape == shape:
            return x
        r, R = len(x.shape), len(shape)
        if r > R or any(d != 1 and d != shape[R - r + i] for i, d in enumerate(x.shape)):
            raise ExportError(f"cannot broadcast {x.type} to shape {shape}")
        dims = list(range(R - r, R))
        return region.emit(f"jx.broadcast_in_dim {x.name}, dims = {_ints(dims)} : {x.type} -> "
                           f"{tensor_type(shape, x.dtype)}", [(shape, x.dtype)], loc)[0]

    def convert(self, region, x, dtype, loc):
        dtype = np.dtype(dtype)
        if x.dtype == dtype:
            return x
        return region.emit(f"jx.convert_element_type {x.name} : {x.type} -> {tensor_type(x.shape, dtype)}",
                           [(x.shape, dtype)], loc)[0]

    def elementwise(self, region, op, ins, out_aval, loc, compare=False):
        shape = tuple(out_aval.shape)
        dtype = ins[0].dtype if compare else np.dtype(out_aval.dtype)
        xs = []
        for x in ins:
            if x.dtype != dtype:
                raise UnsupportedTypeError(f"{op} at {self.outer_where or '?'}: jx.{op} needs operands "
                                           f"of one dtype, got {x.dtype} and {dtype}")
            xs.append(self.broadcast(region, x, shape, loc))
        t = tensor_type(shape, dtype)
        rdtype = np.dtype(bool) if compare else dtype
        return region.emit(f"jx.{op} " + ", ".join(x.name for x in xs) + f" : {t}", [(shape, rdtype)], loc)

    @staticmethod
    def unary_to(region, head, x, out, loc):
        """`head : x's type -> out's type`, an op of one operand whose result type is written."""
        return region.emit(f"{head} : {x.type} -> {tensor_type(out.shape, out.dtype)}",
                           [(out.shape, out.dtype)], loc)

    # -- collectives ----------------------------------------------------------------------------
    def collective(self, region, eqn, ins, out, loc, check_params):
        """A collective over one named mesh axis, as shard_map's body holds it."""
        name, p, here = eqn.primitive.name, eqn.params, self.where(eqn)

        def axis(key):
            names = p[key] if isinstance(p[key], (tuple, list)) else (p[key],)
            if len(names) != 1 or not isinstance(names[0], str):
                raise UnsupportedTypeError(f"{name} at {here} over the axes {tuple(names)!r}: jx's "
                                           "collectives take one named axis")
            if p.get("axis_index_groups") is not None:
                raise UnsupportedTypeError(f"{name} at {here}: axis_index_groups has no jx counterpart")
            return _str(names[0])

        if name == "pvary":
            check_params(("axes",))
            return list(ins)
        if name == "axis_index":
            check_params(("axis_name",))
            return region.emit(f"jx.axis_index axis = {axis('axis_name')} : {tensor_type((), out.dtype)}",
                               [((), out.dtype)], loc)
        x = ins[0]
        if name in ("psum", "psum_invariant"):
            check_params(("axes", "axis_index_groups"))
            if len(ins) != 1:
                raise UnsupportedTypeError(f"{name} at {here} of {len(ins)} operands: jx.psum takes one")
            return region.emit(f"jx.psum {x.name}, axis = {axis('axes')} : {x.type}", [(x.shape, x.dtype)],
                               loc)
        if name == "ppermute":
            check_params(("axis_name", "perm"))
            pairs = [int(i) for pair in p["perm"] for i in pair]
            return region.emit(f"jx.ppermute {x.name}, axis = {axis('axis_name')}, perm = {_ints(pairs)} : "
                               f"{x.type}", [(x.shape, x.dtype)], loc)
        dim = "all_gather_dimension" if name == "all_gather" else "scatter_dimension"
        check_params((dim, "axis_index_groups", "axis_name", "axis_size", "tiled"))
        op = "jx.all_gather" if name == "all_gather" else "jx.psum_scatter"
        tiled = " tiled" if p["tiled"] else ""
        return self.unary_to(region, f"{op} {x.name}, axis = {axis('axis_name')}({int(p['axis_size'])}), "
                             f"dimension = {int(p[dim])}{tiled}", x, out, loc)

    # -- one equation ---------------------------------------------------------------------------
    def eqn(self, region, eqn, ins):
        loc = self.loc(eqn)
        here = self.where(eqn)
        # Equations inside this one (an inlined call, a scan's body) without a user line of their
        # own are reported at this one's.
        saved, self.outer_where = self.outer_where, here
        try:
            return self._eqn(region, eqn, ins, loc, here)
        finally:
            self.outer_where = saved

    def _eqn(self, region, eqn, ins, loc, here):
        name = eqn.primitive.name
        p = eqn.params
        outs = [_aval_of(v) for v in eqn.outvars]
        out = outs[0] if outs else None

        def check_params(allowed):
            for k, v in p.items():
                if k in allowed or k in _IGNORED_PARAMS:
                    continue
                if k == "accuracy" and v is None:
                    continue
                raise UnsupportedTypeError(f"{name} at {here}: parameter {k}={v!r} has no jx counterpart")

        if name in _INLINE:
            saved, self.outer_loc = self.outer_loc, loc
            try:
                return self.closed(region, p[_INLINE[name]], ins)
            finally:
                self.outer_loc = saved
        if name in _UNARY:
            check_params(())
            return self.elementwise(region, name, ins, out, loc)
        if name in _BINARY:
            check_params(("out_dtype",) if p.get("out_dtype") is None else ())
            if name == "pow":
                # JAX's pow takes an integer exponent with a float base (`x ** n` for an array n,
                # optax's bias correction `b1 ** count`) and lowers it with the exponent converted to
                # the base's dtype; jx.pow takes one dtype, so the conversion is written out.
                ins = [self.convert(region, v, out.dtype, loc) if v.dtype != np.dtype(out.dtype)
                       and v.dtype.kind in "iub" else v for v in ins]
            return self.elementwise(region, _BINARY[name], ins, out, loc)
        if name in _COMPARE:
            check_params(())
            return self.elementwise(region, name, ins, out, loc, compare=True)
        if name in ("copy", "copy_p"):
            return ins
        if name == "integer_pow":
            check_params(("y",))
            x = ins[0]
            return region.emit(f"jx.integer_pow {x.name}, y = {int(p['y'])} : {x.type}", [(x.shape, x.dtype)], loc)
        if name == "square":
            check_params(())
            x = ins[0]
            return region.emit(f"jx.integer_pow {x.name}, y = 2 : {x.type}", [(x.shape, x.dtype)], loc)
        if name == "exp2":
            check_params(())
            x = ins[0]
            ln2 = region.constant(np.full(x.shape, math.log(2.0)), x.dtype)
            y = region.emit(f"jx.mul {x.name}, {ln2.name} : {x.type}", [(x.shape, x.dtype)], loc)[0]
            return region.emit(f"jx.exp {y.name} : {x.type}", [(x.shape, x.dtype)], loc)
        if name == "is_finite":
            # x - x is 0 exactly when x is finite (inf - inf and nan - nan are nan).
            check_params(())
            x = ins[0]
            d = region.emit(f"jx.sub {x.name}, {x.name} : {x.type}", [(x.shape, x.dtype)], loc)[0]
            z = region.constant(np.zeros(x.shape), x.dtype)
            return region.emit(f"jx.eq {d.name}, {z.name} : {x.type}", [(x.shape, np.dtype(bool))], loc)
        if name == "clamp":
            # clamp(lo, x, hi) = min(max(x, lo), hi)
            check_params(())
            lo, x, hi = ins
            m = self.elementwise(region, "max", [x, lo], out, loc)[0]
            return self.elementwise(region, "min", [m, hi], out, loc)
        if name == "select_n":
            check_params(())
            which, cases = ins[0], ins[1:]
            shape = tuple(out.shape)
            cases = [self.broadcast(region, c, shape, loc) for c in cases]
            if which.dtype not in (np.dtype(bool), np.dtype("int32")):
                which = self.convert(region, which, np.int32, loc)
            return region.emit(f"jx.select_n {which.name}, " + ", ".join(c.name for c in cases)
                               + f" : {which.type}, " + ", ".join(c.type for c in cases),
                               [(shape, out.dtype)], loc)
        if name == "dot_general":
            check_params(("dimension_numbers", "preferred_element_type"))
            (lc, rc), (lb, rb) = p["dimension_numbers"]
            a, b = ins
            if a.dtype != b.dtype:
                raise UnsupportedTypeError(f"dot_general at {here} mixes {a.dtype} and {b.dtype}; "
                                           "jx.dot_general needs one operand dtype")
            attrs = ""
            if np.dtype(out.dtype) != a.dtype:
                attrs = f" {{preferred_element_type = {element_type(out.dtype)}}}"
            return region.emit(
                f"jx.dot_general {a.name}, {b.name}, contracting_dims = {_ints(lc)} x {_ints(rc)}, "
                f"batch_dims = {_ints(lb)} x {_ints(rb)}{attrs} : {a.type}, {b.type} -> "
                f"{tensor_type(out.shape, out.dtype)}", [(out.shape, out.dtype)], loc)
        if name == "broadcast_in_dim":
            check_params(("shape", "broadcast_dimensions"))
            x = ins[0]
            if len(ins) != 1:
                raise UnsupportedTypeError(f"broadcast_in_dim at {here} has dynamic shape operands")
            if x.shape == tuple(out.shape):
                return [x]
            return self.unary_to(region, f"jx.broadcast_in_dim {x.name}, dims = {_ints(p['broadcast_dimensions'])}",
                                 x, out, loc)
        if name == "reshape":
            check_params(("new_sizes", "dimensions") if p.get("dimensions") is None else ("new_sizes",))
            x = ins[0]
            if len(ins) != 1:
                raise UnsupportedTypeError(f"reshape at {here} has dynamic shape operands")
            if x.shape == tuple(out.shape):
                return [x]
            return self.unary_to(region, f"jx.reshape {x.name}", x, out, loc)
        if name == "transpose":
            check_params(("permutation",))
            x = ins[0]
            return self.unary_to(region, f"jx.transpose {x.name}, perm = {_ints(p['permutation'])}", x, out, loc)
        if name in ("squeeze", "expand_dims"):
            check_params(("dimensions",))
            x = ins[0]
            if not p["dimensions"]:
                return [x]
            return self.unary_to(region, f"jx.{name} {x.name}, dims = {_ints(p['dimensions'])}", x, out, loc)
        if name == "concatenate":
            check_params(("dimension",))
            return region.emit(f"jx.concatenate(" + ", ".join(x.name for x in ins) + f") dim = {int(p['dimension'])} : "
                               + ", ".join(x.type for x in ins) + f" -> {tensor_type(out.shape, out.dtype)}",
                               [(out.shape, out.dtype)], loc)
        if name == "stack":
            # stack[axis](xs) = concatenate(expand_dims(x, axis) for x in xs)
            check_params(("axis",))
            axis = int(p["axis"])
            parts = []
            for x in ins:
                shape = x.shape[:axis] + (1,) + x.shape[axis:]
                parts += region.emit(f"jx.expand_dims {x.name}, dims = [{axis}] : {x.type} -> "
                                     f"{tensor_type(shape, x.dtype)}", [(shape, x.dtype)], loc)
            return region.emit("jx.concatenate(" + ", ".join(x.name for x in parts) + f") dim = {axis} : "
                               + ", ".join(x.type for x in parts) + f" -> {tensor_type(out.shape, out.dtype)}",
                               [(out.shape, out.dtype)], loc)
        if name == "split":
            check_params(("sizes", "axis"))
            x = ins[0]
            axis, start, res = int(p["axis"]), 0, []
            for size, o in zip(p["sizes"], outs):
                lo = [0] * len(x.shape)
                hi = list(x.shape)
                lo[axis], hi[axis] = start, start + int(size)
                start += int(size)
                res += self.unary_to(region, f"jx.slice {x.name}, start = {_ints(lo)}, limit = {_ints(hi)}, "
                                             f"strides = {_ints([1] * len(x.shape))}", x, o, loc)
            return res
        if name == "slice":
            check_params(("start_indices", "limit_indices", "strides"))
            x = ins[0]
            strides = p["strides"] or [1] * len(x.shape)
            return self.unary_to(region, f"jx.slice {x.name}, start = {_ints(p['start_indices'])}, limit = "
                                 f"{_ints(p['limit_indices'])}, strides = {_ints(strides)}", x, out, loc)
        if name == "dynamic_slice":
            check_params(("slice_sizes",))
            x, idx = ins[0], ins[1:]
            self._check_indices(eqn, idx)
            types = ", ".join([x.type] + [i.type for i in idx])
            return region.emit(f"jx.dynamic_slice {x.name}[" + ", ".join(i.name for i in idx) + "], sizes = "
                               f"{_ints(p['slice_sizes'])} : {types} -> {tensor_type(out.shape, out.dtype)}",
                               [(out.shape, out.dtype)], loc)
        if name == "dynamic_update_slice":
            check_params(())
            x, u, idx = ins[0], ins[1], ins[2:]
            self._check_indices(eqn, idx)
            types = ", ".join([x.type, u.type] + [i.type for i in idx])
            return region.emit(f"jx.dynamic_update_slice {x.name}, {u.name}[" + ", ".join(i.name for i in idx)
                               + f"] : {types}", [(x.shape, x.dtype)], loc)
        if name == "gather":
            check_params(("dimension_numbers", "slice_sizes", "unique_indices", "indices_are_sorted", "mode",
                          "fill_value"))
            return self.gather(region, eqn, ins, out, loc)
        if name == "scatter-add":
            check_params(("dimension_numbers", "indices_are_sorted", "unique_indices", "mode", "update_jaxpr",
                          "update_consts"))
            if p["update_consts"]:
                raise UnsupportedTypeError(f"scatter-add at {here}: update_consts are not supported")
            return self.scatter_add(region, eqn, ins, out, loc)
        if name == "pad":
            check_params(("padding_config",))
            x, v = ins
            cfg = p["padding_config"]
            return region.emit(f"jx.pad {x.name}, {v.name}, low = {_ints(c[0] for c in cfg)}, high = "
                               f"{_ints(c[1] for c in cfg)}, interior = {_ints(c[2] for c in cfg)} : {x.type}, "
                               f"{v.type} -> {tensor_type(out.shape, out.dtype)}", [(out.shape, out.dtype)], loc)
        if name == "iota":
            check_params(("dtype", "shape", "dimension"))
            return region.emit(f"jx.iota dim = {int(p['dimension'])} : {tensor_type(out.shape, out.dtype)}",
                               [(out.shape, out.dtype)], loc)
        if name == "convert_element_type":
            check_params(("new_dtype", "weak_type"))
            return [self.convert(region, ins[0], out.dtype, loc)]
        if name in _REDUCE:
            check_params(("axes",))
            x = ins[0]
            if not p["axes"]:
                return [x]
            return self.unary_to(region, f"jx.{name} {x.name}, axes = {_ints(p['axes'])}", x, out, loc)
        if name == "argmax":
            check_params(("axes", "index_dtype"))
            x = ins[0]
            if len(p["axes"]) != 1:
                raise UnsupportedTypeError(f"argmax at {here} over {len(p['axes'])} axes; jx.argmax takes one")
            return self.unary_to(region, f"jx.argmax {x.name}, axis = {int(p['axes'][0])}", x, out, loc)
        if name == "cumsum":
            check_params(("axis", "reverse"))
            x = ins[0]
            rev = " reverse" if p["reverse"] else ""
            return region.emit(f"jx.cumsum {x.name}, axis = {int(p['axis'])}{rev} : {x.type}",
                               [(x.shape, x.dtype)], loc)
        if name in _COLLECTIVE:
            return self.collective(region, eqn, ins, out, loc, check_params)
        if name == "optimization_barrier":
            check_params(())
            if not ins:
                return []
            return region.emit("jx.optimization_barrier " + ", ".join(x.name for x in ins) + " : "
                               + ", ".join(x.type for x in ins), [(x.shape, x.dtype) for x in ins], loc)
        if name == "name":
            check_params(("name",))
            x = ins[0]
            return region.emit(f"jx.checkpoint_name {x.name}, {_str(p['name'])} : {x.type}",
                               [(x.shape, x.dtype)], loc)
        if name in ("remat2", "checkpoint"):
            return self.remat(region, eqn, ins, loc)
        if name == "scan":
            return self.scan(region, eqn, ins, loc)
        if name == "cond":
            return self.cond(region, eqn, ins, loc)
        if name == "while":
            return self.while_(region, eqn, ins, loc)
        raise UnsupportedPrimitiveError({name: here})

    # -- gathers and scatter-adds ---------------------------------------------------------------
    # jx has two: jx.take (whole slices at run-time indices along one axis) and its transpose
    # jx.scatter_add. A gather of whole slices along one axis (jnp.take, x[ids], Flax's Embed) is one
    # jx.take along that axis. Any other that picks single elements along its indexed and batching
    # dimensions and takes the whole extent of the others (x[i, j], x[jnp.arange(n), ids],
    # jnp.take_along_axis, whose JAX 0.10 gather has batching dimensions) is, as XLA's gather
    # expanders write it, a jx.take along axis 0 of the operand with those dimensions moved to the
    # front and flattened into one: its row index is the row-major index computed from the clamped
    # indices and, for batching dimensions, the position in the batch (a jx.iota). Scatter-adds the
    # same with jx.scatter_add. Gathers of partial windows (lax.dynamic_slice-like ones) are refused.

    @staticmethod
    def _one_axis(x, idx, batching, collapsed, index_map, window_dims, full_slices=True):
        """The axis of a gather/scatter that moves whole slices along one axis of `x` (the jx.take /
        jx.scatter_add form), the indices' batch shape, and the flattened count; None for any other."""
        rank = len(x.shape)
        ok = (not batching and len(index_map) == 1 and tuple(collapsed) == tuple(index_map)
              and len(idx.shape) >= 1 and idx.shape[-1] == 1 and full_slices)
        if ok:
            a, batch = int(index_map[0]), tuple(idx.shape[:-1])
            ok = tuple(window_dims) == tuple(range(a)) + tuple(range(a + len(batch), rank - 1 + len(batch)))
        if not ok:
            return None
        return a, batch, int(np.prod(batch, dtype=np.int64))

    def _check_index_dtype(self, eqn, idx):
        if idx.dtype not in (np.dtype("int32"), np.dtype("int64")):
            raise UnsupportedTypeError(f"{eqn.primitive.name} at {self.where(eqn)}: indices must be int32/int64, "
                                       f"got {idx.type}")

    def _points(self, eqn, x, idx, window, index_map, batching, idx_batching):
        """The dimensions of `x` where a gather/scatter picks one element per index, ascending: the
        indexed (`index_map`) and the batching ones. Its window must be 1 on those and the whole
        extent on every other dimension; else the located error. An indexed dimension whose window
        is its whole extent (a vmapped x[i] or lax.dynamic_slice) is one of the others: XLA clamps
        its start to 0."""
        rank = len(x.shape)
        ok = window is not None and len(idx.shape) >= 1 and idx.shape[-1] == len(index_map)
        indexed = {int(d) for d in index_map if not ok or window[int(d)] != x.shape[int(d)] or x.shape[int(d)] == 1}
        point = sorted(indexed | {int(d) for d in batching})
        ok = (ok and len({int(d) for d in index_map}) == len(index_map)
              and not indexed & {int(d) for d in batching}
              and len(batching) == len(idx_batching) and all(0 <= int(j) < len(idx.shape) - 1 for j in idx_batching)
              and all(window[d] == (1 if d in point else x.shape[d]) for d in range(rank)))
        if not ok:
            sizes = "" if window is None else f" and window sizes {tuple(window)}"
            raise UnsupportedTypeError(
                f"{eqn.primitive.name} at {self.where(eqn)}: jx.take and jx.scatter_add express gathers and "
                f"scatters that take whole slices along one axis, or single elements along the indexed and "
                f"batching dimensions and the whole extent of the others (jnp.take, x[ids], x[i, j], "
                f"jnp.take_along_axis, x.at[ids].add); this one, of {x.type} at indices {idx.type}, has "
                f"{_dims_text(eqn.params['dimension_numbers'])}{sizes}")
        return point

    @staticmethod
    def _transpose(region, x, perm, loc):
        perm = [int(i) for i in perm]
        if perm == list(range(len(perm))):
            return x
        shape = tuple(x.shape[i] for i in perm)
        return region.emit(f"jx.transpose {x.name}, perm = {_ints(perm)} : {x.type} -> {tensor_type(shape, x.dtype)}",
                           [(shape, x.dtype)], loc)[0]

    def _flat_rows(self, region, x, idx, point, index_map, batching, idx_batching, in_range, loc):
        """(rows, ok): for each index (the indices' batch dimensions flattened), the row-major position
        of the element it picks among `x`'s `point` dimensions: the indexed dimensions' indices
        clamped to [0, n - 1] as XLA's gather clamps them, the batching dimensions' the position in
        the batch. With `in_range` ok says whether every index lay in [0, n - 1] (0 for an indexed
        dimension taken whole), else None."""
        batch = tuple(idx.shape[:-1])
        count = int(np.prod(batch, dtype=np.int64))
        extent = int(np.prod([x.shape[d] for d in point], dtype=np.int64))
        if extent - 1 > np.iinfo(idx.dtype).max:
            idx = self.convert(region, idx, np.int64, loc)
        dt = idx.dtype
        t, b1 = tensor_type(batch, dt), np.dtype(bool)
        tb = tensor_type(batch, b1)

        def op(text, dtype=dt):
            return region.emit(text, [(batch, dtype)], loc)[0]
        comps, ok = {}, None
        for k, d in enumerate(index_map):
            d = int(d)
            one = batch + (1,)
            c = region.emit(f"jx.slice {idx.name}, start = {_ints([0] * len(batch) + [k])}, limit = "
                            f"{_ints(list(batch) + [k + 1])}, strides = {_ints([1] * len(idx.shape))} : "
                            f"{idx.type} -> {tensor_type(one, dt)}", [(one, dt)], loc)[0]
            c = self._reshape(region, c, batch, loc)
            lo = region.constant(np.zeros(batch), dt)
            hi = region.constant(np.full(batch, x.shape[d] - 1 if d in point else 0), dt)
            if in_range:
                ge = op(f"jx.ge {c.name}, {lo.name} : {t}", b1)
                le = op(f"jx.le {c.name}, {hi.name} : {t}", b1)
                inside = op(f"jx.and {ge.name}, {le.name} : {tb}", b1)
                ok = inside if ok is None else op(f"jx.and {ok.name}, {inside.name} : {tb}", b1)
            if d not in point:
                continue
            c = op(f"jx.max {c.name}, {lo.name} : {t}")
            comps[d] = op(f"jx.min {c.name}, {hi.name} : {t}")
        for d, j in zip(batching, idx_batching):
            comps[int(d)] = op(f"jx.iota dim = {int(j)} : {t}")
        rows, stride = None, 1
        for d in reversed(point):
            c = comps[d]
            if stride != 1:
                c = op(f"jx.mul {c.name}, {region.constant(np.full(batch, stride), dt).name} : {t}")
            rows = c if rows is None else op(f"jx.add {rows.name}, {c.name} : {t}")
            stride *= x.shape[d]
        if rows is None:
            rows = region.constant(np.zeros(batch), dt)
        rows = self._reshape(region, rows, (count,), loc)
        return rows, (None if ok is None else self._reshape(region, ok, (count,), loc))

    def _table(self, region, x, point, loc):
        """`x` with its `point` dimensions moved to the front and flattened into one (row-major)."""
        rest = [d for d in range(len(x.shape)) if d not in point]
        xt = self._transpose(region, x, point + rest, loc)
        extent = int(np.prod([x.shape[d] for d in point], dtype=np.int64))
        return xt, self._reshape(region, xt, (extent,) + tuple(x.shape[d] for d in rest), loc)

    @staticmethod
    def _select_rows(region, ok, value, other, loc):
        """select_n(ok, value, other) with `ok` (1-D) broadcast along the rows (axis 0) of `other`."""
        b1 = np.dtype(bool)
        if other.shape != ok.shape:
            ok = region.emit(f"jx.broadcast_in_dim {ok.name}, dims = [0] : {ok.type} -> "
                             f"{tensor_type(other.shape, b1)}", [(other.shape, b1)], loc)[0]
        return region.emit(f"jx.select_n {ok.name}, {value.name}, {other.name} : {ok.type}, {other.type}, "
                           f"{other.type}", [(other.shape, other.dtype)], loc)[0]

    @staticmethod
    def _in_range(region, flat, n, a, shape, loc):
        """Booleans of `shape`: whether the index of each slice along `a` lies in [0, n)."""
        count = flat.shape[0]
        lo = region.constant(np.zeros(count), flat.dtype)
        hi = region.constant(np.full(count, n), flat.dtype)
        b1 = np.dtype(bool)
        t1 = tensor_type((count,), b1)
        ge = region.emit(f"jx.ge {flat.name}, {lo.name} : {flat.type}", [((count,), b1)], loc)[0]
        lt = region.emit(f"jx.lt {flat.name}, {hi.name} : {flat.type}", [((count,), b1)], loc)[0]
        ok = region.emit(f"jx.and {ge.name}, {lt.name} : {t1}", [((count,), b1)], loc)[0]
        return region.emit(f"jx.broadcast_in_dim {ok.name}, dims = [{a}] : {t1} -> {tensor_type(shape, b1)}",
                           [(shape, b1)], loc)[0]

    @staticmethod
    def _reshape(region, x, shape, loc):
        shape = tuple(int(d) for d in shape)
        if tuple(x.shape) == shape:
            return x
        return region.emit(f"jx.reshape {x.name} : {x.type} -> {tensor_type(shape, x.dtype)}",
                           [(shape, x.dtype)], loc)[0]

    @staticmethod
    def _fill_value(p, dtype):
        fill = p["fill_value"]
        if fill is None:  # jnp.take's defaults
            fill = (np.nan if np.issubdtype(dtype, np.inexact) else True if dtype == np.dtype(bool)
                    else np.iinfo(dtype).min)
        return fill

    def gather(self, region, eqn, ins, out, loc):
        """A gather as jx.take (see above).

        jx.take clamps indices (XLA's CLIP, and what PROMISE_IN_BOUNDS does); FILL_OR_DROP, jnp.take's
        default, gives the fill value where an index is outside [0, n): those rows are selected after.
        """
        x, idx = ins
        p = eqn.params
        dn, sizes = p["dimension_numbers"], tuple(int(s) for s in p["slice_sizes"])
        self._check_index_dtype(eqn, idx)
        fill_mode = getattr(p["mode"], "name", str(p["mode"])) == "FILL_OR_DROP"
        a = int(dn.start_index_map[0]) if len(dn.start_index_map) == 1 else 0
        full = sizes == tuple(1 if d == a else int(x.shape[d]) for d in range(len(x.shape)))
        one = self._one_axis(x, idx, dn.operand_batching_dims, dn.collapsed_slice_dims,
                             dn.start_index_map, dn.offset_dims, full)
        if one is None:
            return self._gather_points(region, eqn, x, idx, out, loc, fill_mode)
        a, _, count = one
        flat = self._reshape(region, idx, (count,), loc)
        shape = tuple(x.shape[:a]) + (count,) + tuple(x.shape[a + 1:])
        t = tensor_type(shape, x.dtype)
        taken = region.emit(f"jx.take {x.name}[{flat.name}], axis = {a} : {x.type}, {flat.type} -> {t}",
                            [(shape, x.dtype)], loc)[0]
        if fill_mode:
            ok = self._in_range(region, flat, x.shape[a], a, shape, loc)
            filler = region.constant(np.full(shape, self._fill_value(p, x.dtype)), x.dtype)
            taken = region.emit(f"jx.select_n {ok.name}, {filler.name}, {taken.name} : {ok.type}, {t}, {t}",
                                [(shape, x.dtype)], loc)[0]
        return [self._reshape(region, taken, out.shape, loc)]

    def _gather_points(self, region, eqn, x, idx, out, loc, fill_mode):
        p = eqn.params
        dn, sizes = p["dimension_numbers"], tuple(int(s) for s in p["slice_sizes"])
        point = self._points(eqn, x, idx, sizes, dn.start_index_map, dn.operand_batching_dims,
                             dn.start_indices_batching_dims)
        rest = [d for d in range(len(x.shape)) if d not in point]
        _, table = self._table(region, x, point, loc)
        rows, ok = self._flat_rows(region, x, idx, point, dn.start_index_map, dn.operand_batching_dims,
                                   dn.start_indices_batching_dims, fill_mode, loc)
        shape = (rows.shape[0],) + tuple(x.shape[d] for d in rest)
        taken = region.emit(f"jx.take {table.name}[{rows.name}], axis = 0 : {table.type}, {rows.type} -> "
                            f"{tensor_type(shape, x.dtype)}", [(shape, x.dtype)], loc)[0]
        if ok is not None:
            filler = region.constant(np.full(shape, self._fill_value(p, x.dtype)), x.dtype)
            taken = self._select_rows(region, ok, filler, taken, loc)
        # The result: the indices' batch dimensions, with the slice's (the operand's dimensions
        # neither collapsed nor batching, in order) at offset_dims.
        batch = tuple(idx.shape[:-1])
        offset = [d for d in range(len(x.shape))
                  if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]
        taken = self._reshape(region, taken, batch + tuple(sizes[d] for d in offset), loc)
        offset_dims, perm, b = [int(j) for j in dn.offset_dims], [], 0
        for j in range(len(out.shape)):
            if j in offset_dims:
                perm.append(len(batch) + offset_dims.index(j))
            else:
                perm.append(b)
                b += 1
        return [self._transpose(region, taken, perm, loc)]

    def scatter_add(self, region, eqn, ins, out, loc):
        """`x.at[ids].add(u)` as jx.scatter_add (see above); FILL_OR_DROP (the default) drops the
        updates whose index is outside [0, n), so they are zeroed first (jx clamps)."""
        x, idx, u = ins
        p = eqn.params
        dn = p["dimension_numbers"]
        self._check_index_dtype(eqn, idx)
        if u.dtype != x.dtype:
            raise UnsupportedTypeError(f"scatter-add at {self.where(eqn)}: updates {u.type} for {x.type}")
        drop = getattr(p["mode"], "name", str(p["mode"])) == "FILL_OR_DROP"
        one = self._one_axis(x, idx, dn.operand_batching_dims, dn.inserted_window_dims,
                             dn.scatter_dims_to_operand_dims, dn.update_window_dims)
        if one is not None:
            a, _, count = one
            shape = tuple(x.shape[:a]) + (count,) + tuple(x.shape[a + 1:])
            if int(np.prod(u.shape, dtype=np.int64)) != int(np.prod(shape, dtype=np.int64)):
                one = None  # partial windows
        if one is None:
            return self._scatter_points(region, eqn, x, idx, u, loc, drop)
        flat = self._reshape(region, idx, (count,), loc)
        rows = self._reshape(region, u, shape, loc)
        if drop:
            ok = self._in_range(region, flat, x.shape[a], a, shape, loc)
            zeros = region.constant(np.zeros(shape), x.dtype)
            t = tensor_type(shape, x.dtype)
            rows = region.emit(f"jx.select_n {ok.name}, {zeros.name}, {rows.name} : {ok.type}, {t}, {t}",
                               [(shape, x.dtype)], loc)[0]
        return region.emit(f"jx.scatter_add {x.name}[{flat.name}], {rows.name}, axis = {a} : {x.type}, "
                           f"{flat.type}, {rows.type}", [(tuple(x.shape), x.dtype)], loc)

    def _scatter_points(self, region, eqn, x, idx, u, loc, drop):
        dn = eqn.params["dimension_numbers"]
        rank = len(x.shape)
        uwd = [int(j) for j in dn.update_window_dims]
        # The window: the updates' sizes at update_window_dims for the operand's dimensions neither
        # inserted nor batching (in order), 1 on those.
        offset = [d for d in range(rank) if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
        window = None
        if len(offset) == len(uwd) and len(u.shape) == len(idx.shape) - 1 + len(uwd):
            window = [1] * rank
            for d, j in zip(offset, uwd):
                window[d] = u.shape[j]
        point = self._points(eqn, x, idx, window, dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                             dn.scatter_indices_batching_dims)
        rest = [d for d in range(rank) if d not in point]
        xt, table = self._table(region, x, point, loc)
        rows, ok = self._flat_rows(region, x, idx, point, dn.scatter_dims_to_operand_dims,
                                   dn.operand_batching_dims, dn.scatter_indices_batching_dims, drop, loc)
        # The updates: their scatter dimensions (the indices' batch ones, in order) first, then the window.
        shape = (rows.shape[0],) + tuple(x.shape[d] for d in rest)
        ut = self._transpose(region, u, [j for j in range(len(u.shape)) if j not in uwd] + uwd, loc)
        upd = self._reshape(region, ut, shape, loc)
        if ok is not None:
            upd = self._select_rows(region, ok, region.constant(np.zeros(shape), x.dtype), upd, loc)
        res = region.emit(f"jx.scatter_add {table.name}[{rows.name}], {upd.name}, axis = 0 : {table.type}, "
                          f"{rows.type}, {upd.type}", [(table.shape, x.dtype)], loc)[0]
        res = self._reshape(region, res, xt.shape, loc)
        perm = point + rest
        inverse = [perm.index(d) for d in range(rank)]
        return [self._transpose(region, res, inverse, loc)]

    def _check_indices(self, eqn, idx):
        for i in idx:
            if i.shape != () or i.dtype not in (np.dtype("int32"), np.dtype("int64")):
                raise UnsupportedTypeError(f"{eqn.primitive.name} at {self.where(eqn)}: start indices must be "
                                           f"0-d int32/int64, got {i.type}")

    def _functional(self, ins, outs):
        return "(" + ", ".join(x.type for x in ins) + ") -> " + self._results_type(outs)

    @staticmethod
    def _results_type(outs):
        ts = [tensor_type(o.shape, o.dtype) for o in outs]
        return ts[0] if len(ts) == 1 else "(" + ", ".join(ts) + ")"

    def remat(self, region, eqn, ins, loc):
        p = eqn.params
        body = p["jaxpr"]
        policy = policy_text(p.get("policy"))
        outs = [_aval_of(v) for v in eqn.outvars]
        prevent = p.get("prevent_cse", True)
        if not isinstance(prevent, bool):
            prevent = any(prevent)
        lines = self.block(region, body, [(x.shape, x.dtype) for x in ins])
        text = (f"jx.remat({', '.join(x.name for x in ins)}) : {self._functional(ins, outs)} policy = {policy} {{\n"
                + "\n".join(lines) + "\n" + " " * region.indent + "}"
                + ("" if prevent else " attributes {prevent_cse = false}"))
        return region.emit(text, [(o.shape, o.dtype) for o in outs], loc)

    def scan(self, region, eqn, ins, loc):
        p = eqn.params
        nc, nk, length = int(p["num_consts"]), int(p["num_carry"]), int(p["length"])
        outs = [_aval_of(v) for v in eqn.outvars]
        arg_types = [(x.shape, x.dtype) for x in ins[:nc + nk]] + [(x.shape[1:], x.dtype) for x in ins[nc + nk:]]
        lines = self.block(region, p["jaxpr"], arg_types)
        rev = " reverse" if p["reverse"] else ""
        text = (f"jx.scan ({', '.join(x.name for x in ins)}) length = {length}, consts = {nc}, carry = {nk}{rev} : "
                f"{self._functional(ins, outs)} {{\n" + "\n".join(lines) + "\n" + " " * region.indent + "}")
        return region.emit(text, [(o.shape, o.dtype) for o in outs], loc)

    def cond(self, region, eqn, ins, loc):
        p = eqn.params
        index, ops = ins[0], ins[1:]
        outs = [_aval_of(v) for v in eqn.outvars]
        if index.shape != () or index.dtype not in (np.dtype(bool), np.dtype("int32")):
            raise UnsupportedTypeError(f"cond at {self.where(eqn)}: index must be 0-d int32 or bool, got {index.type}")
        blocks = []
        for br in p["branches"]:
            lines = self.block(region, br, [(x.shape, x.dtype) for x in ops])
            blocks.append("{\n" + "\n".join(lines) + "\n" + " " * region.indent + "}")
        text = (f"jx.cond {index.name} ({', '.join(x.name for x in ops)}) : {index.type}, "
                f"{self._functional(ops, outs)} " + ", ".join(blocks))
        return region.emit(text, [(o.shape, o.dtype) for o in outs], loc)

    def while_(self, region, eqn, ins, loc):
        # jx.while threads only a carry: the consts of cond and body ride along, unchanged.
        p = eqn.params
        cn, bn = int(p["cond_nconsts"]), int(p["body_nconsts"])
        cconsts, bconsts, carry = ins[:cn], ins[cn:cn + bn], ins[cn + bn:]
        types = [(x.shape, x.dtype) for x in ins]

        def cond_body(r, args):
            return self.closed(r, p["cond_jaxpr"], args[:cn] + args[cn + bn:])

        def body_body(r, args):
            new = self.closed(r, p["body_jaxpr"], args[cn:])
            return args[:cn + bn] + new

        cl = self.block(region, None, types, cond_body)
        bl = self.block(region, None, types, body_body)
        allouts = [_Value("", x.shape, x.dtype) for x in ins]
        text = (f"jx.while ({', '.join(x.name for x in ins)}) : {self._functional(ins, allouts)} cond {{\n"
                + "\n".join(cl) + "\n" + " " * region.indent + "} do {\n" + "\n".join(bl) + "\n"
                + " " * region.indent + "}")
        res = region.emit(text, types, loc)
        return res[cn + bn:]


# ---------------------------------------------------------------------------------------------
# Arguments and the public entry points
# ---------------------------------------------------------------------------------------------

def _key_text(k):
    if isinstance(k, tree_util.DictKey):
        return f".{k.key}"
    if isinstance(k, tree_util.GetAttrKey):
        return f".{k.name}"
    if isinstance(k, (tree_util.SequenceKey,)):
        return f"[{k.idx}]"
    if isinstance(k, tree_util.FlattenedIndexKey):
        return f"[{k.key}]"
    return f".{k}"


def _top_names(fun, n):
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY, params[i].POSITIONAL_OR_KEYWORD):
            names.append(params[i].name)
        elif params and params[-1].kind == params[-1].VAR_POSITIONAL:
            names.append(f"{params[-1].name}[{i - sum(1 for q in params if q.kind != q.VAR_POSITIONAL)}]")
        else:
            names.append(f"arg{i}")
    return names


def arg_names(fun, args):
    """One name per flattened argument leaf: the parameter's name, then the pytree path
    (`params.Dense_0.kernel`, `xs[1]`)."""
    top = _top_names(fun, len(args))
    names = []
    for i, a in enumerate(args):
        for path, _ in tree_util.tree_flatten_with_path(a)[0]:
            names.append(top[i] + "".join(_key_text(k) for k in path))
    return names


class Module:
    """Several exported functions in one module (one cotangent-opt run covers them all)."""

    def __init__(self, locations=True):
        self.functions = []
        self.names = set()
        self.locations = locations

    def add(self, fun, *example_args, name=None, arg_names_=None):
        """Traces `fun(*example_args)` and adds it as `@name`; returns the name."""
        name = name or getattr(fun, "__name__", "f")
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "f"
        if name[0].isdigit():
            name = "f_" + name
        if name in self.names:
            raise ExportError(f"the module already has a function @{name}")
        closed = _per_rank(jax.make_jaxpr(fun)(*example_args))
        missing = unsupported_primitives(closed.jaxpr)
        if missing:
            raise UnsupportedPrimitiveError(missing)
        names = arg_names_ or arg_names(fun, example_args)
        if len(names) != len(closed.jaxpr.invars):
            raise ExportError(f"{len(names)} argument names for {len(closed.jaxpr.invars)} arguments")
        self.functions.append(self._function(name, closed, names))
        self.names.add(name)
        return name

    def _function(self, name, closed, names):
        w = _FunctionWriter(self.locations)
        w.outer_where = caller_where()
        region = _Region(w, 4)
        args = []
        for v, n in zip(closed.jaxpr.invars, names):
            aval = _aval_of(v)
            args.append(_Value(w.fresh(), aval.shape, aval.dtype))
            tensor_type(aval.shape, aval.dtype, f"argument {n}")
        outs = w.jaxpr(region, closed.jaxpr, closed.consts, args)
        sig = ", ".join(f"{a.name}: {a.type} {{jx.arg_name = {_str(n)}}}" for a, n in zip(args, names))
        res = ", ".join(o.type for o in outs)
        head = f"  func.func @{name}({sig})" + (f" -> ({res})" if outs else "") + " {"
        ret = "    return" + (" " + ", ".join(o.name for o in outs) + " : " + res if outs else "")
        return "\n".join([head] + region.lines + [ret, "  }"])

    def text(self):
        return "module {\n" + "\n\n".join(self.functions) + "\n}\n"


def _per_rank(closed):
    """A function that is one shard_map (under jit) as what each rank runs: its body, on one
    shard's shapes (jx is the per-rank program; its collectives combine the ranks). Anything
    else as it is."""
    jaxpr = closed.jaxpr
    while len(jaxpr.eqns) == 1:
        eqn = jaxpr.eqns[0]
        whole = list(eqn.invars) == list(jaxpr.invars) and list(eqn.outvars) == list(jaxpr.outvars)
        if not whole or eqn.primitive.name not in ("jit", "pjit", "shard_map"):
            break
        inner = eqn.params["jaxpr"]
        if eqn.primitive.name == "shard_map":
            return inner if isinstance(inner, core.ClosedJaxpr) else core.ClosedJaxpr(inner, ())
        closed, jaxpr = inner, inner.jaxpr
    return closed


def to_jx(fun, *example_args, name=None, locations=True):
    """The jx IR text of `fun` traced on `example_args` (arrays, ShapeDtypeStructs or pytrees of them).

    The function is `@name` (default: `fun.__name__`); each argument carries its pytree path as
    `jx.arg_name`. Raises UnsupportedPrimitiveError (listing every primitive jx lacks),
    UnsupportedPolicyError or UnsupportedTypeError instead of writing IR it cannot stand behind.
    """
    m = Module(locations=locations)
    m.add(fun, *example_args, name=name)
    return m.text()
