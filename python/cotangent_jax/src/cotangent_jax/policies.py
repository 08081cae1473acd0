"""Naming JAX's checkpoint policies as `#jx.policy<...>`.

A policy reaches a jaxpr as the `policy` parameter of a `remat2` equation: a
plain function (`everything_saveable`), an object (`DotsSaveable`,
`SaveOnlyTheseNames`) or a closure made by one of the policy factories
(`save_from_both_policies(p, q)`, `offload_dot_with_no_batch_dims(src, dst)`,
...). Each is recognised by identity: the objects by their class and fields,
the closures by their code object, which every call of a factory shares, and
their arguments are read back from the closure's cells by name. Anything else
is a custom policy, which has no jx spelling: `UnsupportedPolicyError`.

JAX 0.10's `save_anything_except_these_names(*names)` returns a function that
saves everything and forgets the names; the names cannot be recovered, so it
is refused. `save_anything_except_these_names` here is a policy that keeps
them, behaves in JAX as its name says, and exports as such.
"""
import dataclasses

import jax
from jax._src import ad_checkpoint as _adc

from .errors import UnsupportedPolicyError

_P = jax.checkpoint_policies


@dataclasses.dataclass(frozen=True)
class SaveAnythingExceptTheseNames:
    """Everything may be saved except values named (checkpoint_name) with one of `names`."""
    names: frozenset

    def __call__(self, prim, *_, **params):
        if prim is _adc.name_p:
            return params["name"] not in self.names
        return True


def save_anything_except_these_names(*names):
    """A JAX policy: save anything except the values with these names (exports by this name)."""
    return SaveAnythingExceptTheseNames(frozenset(names))


def _code(fn):
    return getattr(fn, "__code__", None)


# The code objects of JAX's policy factories' closures, made once.
_FACTORY_CODE = {
    "offload_dot_with_no_batch_dims": _code(_P.offload_dot_with_no_batch_dims("device", "pinned_host")),
    "save_and_offload_only_these_names": _code(_P.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=[],
        offload_src="device", offload_dst="pinned_host")),
    "save_from_both_policies": _code(_P.save_from_both_policies(_P.nothing_saveable, _P.nothing_saveable)),
    "save_anything_except_these_names": _code(_P.save_anything_except_these_names()),
}


def _cells(fn):
    return {name: cell.cell_contents
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())}


def _quote(s):
    if not isinstance(s, str):
        raise UnsupportedPolicyError(f"checkpoint names must be strings, got {s!r}")
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _names(names):
    return ", ".join(_quote(n) for n in sorted(names))


def describe(policy):
    """How a policy is shown in an error: its qualified name or repr."""
    qual = getattr(policy, "__qualname__", None)
    mod = getattr(policy, "__module__", None)
    if qual:
        return f"{mod}.{qual}" if mod else qual
    return repr(policy)


def policy_text(policy):
    """The #jx.policy<...> spelling of a JAX policy (None: JAX's default, nothing_saveable)."""
    return f"#jx.policy<{_body(policy)}>"


def _body(policy):
    if policy is None or policy is _P.nothing_saveable:
        return "nothing_saveable"
    if policy is _P.everything_saveable:
        return "everything_saveable"
    if isinstance(policy, _adc.DotsSaveable):
        return "dots_with_no_batch_dims_saveable" if policy.only_if_no_batch_dims else "dots_saveable"
    if isinstance(policy, _adc.SaveOnlyTheseNames):
        return f"save_only_these_names({_names(policy.saveable_names)})"
    if isinstance(policy, _adc.SaveAnyNamesButThese):
        return f"save_any_names_but_these({_names(policy.names)})"
    if isinstance(policy, SaveAnythingExceptTheseNames):
        return f"save_anything_except_these_names({_names(policy.names)})"
    code = _code(policy)
    if code is not None and code is _FACTORY_CODE["save_from_both_policies"]:
        c = _cells(policy)
        return f"save_from_both_policies({_body(c['policy_1'])}, {_body(c['policy_2'])})"
    if code is not None and code is _FACTORY_CODE["offload_dot_with_no_batch_dims"]:
        c = _cells(policy)
        return f"offload_dot_with_no_batch_dims({_quote(c['offload_src'])}, {_quote(c['offload_dst'])})"
    if code is not None and code is _FACTORY_CODE["save_and_offload_only_these_names"]:
        c = _cells(policy)
        return ("save_and_offload_only_these_names("
                f"[{_names(c['names_which_can_be_saved'])}], [{_names(c['names_which_can_be_offloaded'])}], "
                f"{_quote(c['offload_src'])}, {_quote(c['offload_dst'])})")
    if code is not None and code is _FACTORY_CODE["save_anything_except_these_names"]:
        raise UnsupportedPolicyError(
            "jax.checkpoint_policies.save_anything_except_these_names(...) cannot be exported: in this "
            f"JAX ({jax.__version__}) it returns a function that saves everything and drops the names, "
            "so they cannot be recovered. Use cotangent_jax.policies.save_anything_except_these_names"
            "(*names), which keeps them (and behaves in JAX as its name says), or everything_saveable.")
    raise UnsupportedPolicyError(
        f"custom checkpoint policy {describe(policy)} has no #jx.policy spelling; jx knows JAX's "
        "named policies (jax.checkpoint_policies.*) and their compositions with save_from_both_policies")
