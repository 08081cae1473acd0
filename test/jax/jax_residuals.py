"""JAX's saved residuals, and the documented rules that turn them into Cotangent's.

`public_residuals(f, *args)` is JAX's own list (jax.ad_checkpoint's
saved_residuals, what print_saved_residuals prints) as (type, description)
pairs. `residual_nodes(f, *args)` walks the same jaxpr (the forward of
jax.vjp; its last outputs are the residuals) but keeps, for each residual,
the equation that computed it, looking through reduce_precision (JAX's marker
of a saved dot) and into jitted functions and closed_calls.

`apply_rules(nodes)` then applies the differences that docs/policies.md
documents, each a precise rewrite of JAX's residual set into the one
Cotangent is documented to keep:

- **Constants are rebuilt, not saved.** A residual that is a literal, a
  constant, or computed from those alone is dropped.
- **Reshapes are rebuilt, not saved.** The output of reshape, squeeze or
  expand_dims is replaced by its operand.
- **Broadcasts are saved at the size of what they broadcast.** The output of
  broadcast_in_dim, or of a widening float convert_element_type, is replaced
  by its operand.

- **Division saves its divisor and quotient.** JAX keeps y ** -2 of a
  division x / y (with x when y's tangent needs it); the integer_pow is
  replaced by the quotient, and the numerator may be dropped (below).
- **tanh keeps one value**. JAX keeps tanh(x) and 1 - tanh(x),
  Cotangent tanh(x) alone: the 1 - tanh(x) may be dropped (below).
- **JAX's checkpoint keeps the operands of a cond**. Inside a
  checkpoint JAX keeps a cond's operand that a branch's backward needs even
  where the policy would recompute it: it may be dropped (below).

- **Nested checkpoints intersect**. JAX lets the outermost
  policy decide inside nested checkpoints and may keep an inner checkpoint's
  output that Cotangent recomputes: it may be dropped (below).

The first four replace a residual by the value Cotangent keeps instead. The
last four only say that JAX keeps a value Cotangent may not need: such a
value is dropped only while JAX keeps more of its type than Cotangent does.
Replacements repeat until nothing changes and then coincide where they meet
(JAX may save a value twice as two views; Cotangent saves it once). Each rule
that changed the set is reported with the residuals it dropped and added, so
that the suite prints every documented difference it accepted.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax._src import core
from jax._src.ad_checkpoint import saved_residuals

SECTION_CONSTANTS = "Constants are rebuilt, not saved."
SECTION_RESHAPES = "Reshapes are rebuilt, not saved."
SECTION_BROADCASTS = "Broadcasts are saved at the size of what they broadcast."
SECTION_DIVISION = "Division saves its divisor and quotient."
SECTION_COND = "JAX's checkpoint keeps the operands of a cond."
SECTION_TANH = "tanh keeps one value."
SECTION_NESTED = "Nested checkpoints intersect."

#: The paragraph each rule cites: (document, bold opening).
RULES = {
    SECTION_CONSTANTS: "docs/policies.md", SECTION_RESHAPES: "docs/policies.md",
    SECTION_BROADCASTS: "docs/policies.md", SECTION_DIVISION: "docs/policies.md",
    SECTION_COND: "docs/policies.md", SECTION_TANH: "docs/policies.md", SECTION_NESTED: "docs/policies.md",
}

_RESHAPES = {"reshape", "squeeze", "expand_dims"}
_CALLS = {"jit": "jaxpr", "pjit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr"}


def type_text(aval):
    return plain_type(aval.str_short(short_dtypes=True))


def plain_type(t):
    """`f32[4]` from `f32<host>[4]` (an offloaded residual) or `~f32[4]` (a weak type)."""
    t = t.lstrip("~")
    if "<" in t:
        t = t[:t.index("<")] + t[t.index(">") + 1:]
    return t


def is_offloaded(t):
    return "<" in t


def public_residuals(f, *args):
    """JAX's saved_residuals: [(type, description)], types as JAX prints them (f32<host>[4] offloaded)."""
    return [(aval.str_short(short_dtypes=True).lstrip("~"), src) for aval, src in saved_residuals(f, *args)]


class _Scope:
    """A jaxpr with its producers map, reached through a chain of call equations."""

    def __init__(self, jaxpr, ctx, parent=None, call_eqn=None):
        self.jaxpr, self.ctx, self.parent, self.call_eqn = jaxpr, ctx, parent, call_eqn
        self.producers = {}
        for eqn in jaxpr.eqns:
            for i, v in enumerate(eqn.outvars):
                self.producers[v] = (eqn, i)
        self.constvars = set(jaxpr.constvars)


def _resolve(scope, var):
    """(scope, var, producing eqn or kind) of a value, looking through reduce_precision and calls."""
    while True:
        if isinstance(var, core.Literal):
            return scope, var, "literal"
        if var in scope.constvars:
            return scope, var, "constant"
        if var in scope.producers:
            eqn, i = scope.producers[var]
            name = eqn.primitive.name
            if name == "reduce_precision":
                var = eqn.invars[0]
                continue
            if name in _CALLS:
                inner = eqn.params[_CALLS[name]]
                inner_jaxpr = inner.jaxpr if isinstance(inner, core.ClosedJaxpr) else inner
                scope = _Scope(inner_jaxpr, scope.ctx + (id(eqn),), scope, eqn)
                var = inner_jaxpr.outvars[i]
                continue
            return scope, var, eqn
        if scope.parent is not None and var in scope.jaxpr.invars:
            k = scope.jaxpr.invars.index(var)
            var = scope.call_eqn.invars[k]
            scope = scope.parent
            continue
        return scope, var, "argument"


def _is_constant(scope, var, memo):
    """Whether a value is computed from literals and constants alone."""
    s, v, what = _resolve(scope, var)
    key = (s.ctx, id(v))
    if key in memo:
        return memo[key]
    memo[key] = False  # cycles cannot occur in a jaxpr; this only guards recursion
    if what in ("literal", "constant"):
        memo[key] = True
    elif what == "argument":
        memo[key] = False
    else:
        eqn = what
        if getattr(eqn, "effects", None):
            memo[key] = False
        else:
            memo[key] = all(_is_constant(s, x, memo) for x in eqn.invars)
    return memo[key]


def residual_nodes(f, *args):
    """JAX's residuals as (scope, var) pairs, in JAX's order, with their types."""
    closed, shapes = jax.make_jaxpr(lambda *a: jax.vjp(f, *a), return_shape=True)(*args)
    jaxpr = closed.jaxpr
    num_res = len(jax.tree_util.tree_leaves(shapes[1]))
    top = _Scope(jaxpr, ())
    return [(top, v) for v in jaxpr.outvars[len(jaxpr.outvars) - num_res:]]


def _widening(eqn):
    a, b = eqn.invars[0].aval.dtype, eqn.outvars[0].aval.dtype
    return (jnp.issubdtype(a, jnp.floating) and jnp.issubdtype(b, jnp.floating)
            and np.dtype(b).itemsize > np.dtype(a).itemsize)


def _cond_operands(scope):
    out = set()
    for eqn in scope.jaxpr.eqns:
        if eqn.primitive.name == "cond":
            out.update(id(v) for v in eqn.invars[1:] if not isinstance(v, core.Literal))
    return out


def _eqns_by(scope, name):
    return [e for e in scope.jaxpr.eqns if e.primitive.name == name]


def apply_rules(residuals, ours_types=None, in_checkpoint=False):
    """Rewrites JAX's residuals by the documented rules.

    Returns (types, applied): the multiset of types Cotangent is documented to keep (a list), and
    {section: (dropped JAX types, added types)} for each rule that changed something.

    The rewrites that name what Cotangent keeps instead run first, until nothing changes. The
    rules that only say JAX keeps a value Cotangent may not need (a division's numerator, a tanh's
    1 - tanh(x), a cond's operand in a checkpoint) need Cotangent's types: such a residual is dropped,
    one at a time, only while JAX keeps more of its type than Cotangent does.
    """
    memo = {}
    applied = {}
    current = {}
    order = []

    def note(section, dropped, added):
        d, a = applied.setdefault(section, ([], []))
        d.extend(dropped)
        a.extend(added)

    def add(scope, var):
        s, v, what = _resolve(scope, var)
        key = (s.ctx, id(v))
        if key not in current:
            current[key] = (s, v, what)
            order.append(key)
            return True
        return False

    def remove(key):
        del current[key]
        order.remove(key)

    for scope, var in residuals:
        add(scope, var)
    numerators = set()      # keys of the numerators of divisions whose y ** -2 JAX keeps
    changed = True
    while changed:
        changed = False
        for key in list(order):
            if key not in current:
                continue
            s, v, what = current[key]
            t = type_text(v.aval)
            if _is_constant(s, v, memo):
                remove(key)
                note(SECTION_CONSTANTS, [t], [])
                changed = True
                continue
            if not isinstance(what, core.JaxprEqn):
                continue
            name = what.primitive.name
            section, replacement = None, None
            if name in _RESHAPES:
                section, replacement = SECTION_RESHAPES, what.invars[0]
            elif name == "broadcast_in_dim" or (name == "convert_element_type" and _widening(what)):
                section, replacement = SECTION_BROADCASTS, what.invars[0]
            elif name == "integer_pow" and what.params.get("y") == -2:
                divs = [e for e in _eqns_by(s, "div") if e.invars[1] is what.invars[0]]
                if divs:
                    section, replacement = SECTION_DIVISION, divs[0].outvars[0]
                    for e in divs:
                        if not isinstance(e.invars[0], core.Literal):
                            ns, nv, _ = _resolve(s, e.invars[0])
                            numerators.add((ns.ctx, id(nv)))
            if section:
                remove(key)
                added = add(s, replacement)
                note(section, [t], [type_text(replacement.aval)] if added else [])
                changed = True
    if ours_types is not None:
        want, have = {}, {}
        for t in ours_types:
            want[t] = want.get(t, 0) + 1
        for k in order:
            t = type_text(current[k][1].aval)
            have[t] = have.get(t, 0) + 1
        tanh_pairs = set()  # JAX's 1 - tanh(x), which Cotangent forms in the backward
        for k in order:
            s, v, what = current[k]
            if isinstance(what, core.JaxprEqn) and what.primitive.name == "sub":
                for x in what.invars:
                    if not isinstance(x, core.Literal):
                        xs, xv, xw = _resolve(s, x)
                        if isinstance(xw, core.JaxprEqn) and xw.primitive.name == "tanh":
                            tanh_pairs.add(k)
        for key in list(order):
            s, v, what = current[key]
            section = None
            if key in numerators:
                section = SECTION_DIVISION
            elif key in tanh_pairs:
                section = SECTION_TANH
            elif in_checkpoint and id(v) in _cond_operands(s):
                section = SECTION_COND
            elif isinstance(what, core.JaxprEqn) and what.primitive.name in ("remat2", "checkpoint"):
                section = SECTION_NESTED
            t = type_text(v.aval)
            if section and have.get(t, 0) > want.get(t, 0):
                remove(key)
                have[t] -= 1
                note(section, [t], [])
    types = [type_text(current[k][1].aval) for k in order]
    # Report each rule's net effect as multisets (a view of a view nets out).
    out = {}
    for section, (dropped, added) in applied.items():
        d, a = list(dropped), list(added)
        for t in list(a):
            if t in d:
                d.remove(t)
                a.remove(t)
        if d or a:
            out[section] = (sorted(d), sorted(a))
    return types, out
