"""The memory constructs of a module after memory planning, in every spelling: the one reader.

A construct is written several ways. TVM's memory planning writes `R.memory.alloc_storage` and
`R.memory.alloc_tensor`, its lowering `R.vm.alloc_storage` (another order of parameters) and
`R.vm.alloc_tensor`; a view is `R.memory.view`, `R.reshape`, `R.memory.ensure_zero_offset`, or
the VM builtin they lower to (`vm.builtin.reshape`, `vm.builtin.ensure_zero_offset`) called
directly (`R.call_packed`), through `R.call_pure_packed` or through `R.call_builtin_with_ctx`
(its arguments as one tuple); a release is `R.memory.kill_tensor`, `R.memory.kill_storage` or
`R.vm.kill_object`.

`memory_call` reads any of them into one `MemoryCall`: what it is (`kind`), its arguments by
name, and what it aliases (`aliased`: the argument whose bytes the result shares) or releases
(`released`). passes/storage_collector.py (what flows to the return value),
proof/facts.py (what a view is, which calls use no bytes), report/graph_cost.py (which
shared storage a value lives in) and the executor's handlers (exec/handlers/memory.py,
operators.py: the names they run and the parameter layouts) all read memory through it.
"""

from __future__ import annotations

from .nodes import Call, ExternFunc, Op, Tuple

# The kinds of memory construct.
ALLOC_STORAGE = "alloc_storage"  # bytes: a storage
ALLOC_TENSOR = "alloc_tensor"  # a tensor in a storage, at a byte offset: aliases the storage
VIEW = "view"  # R.memory.view: a tensor's bytes with a shape, dtype and byte offset
RESHAPE = "reshape"  # a tensor's bytes with another shape
ZERO_OFFSET = "ensure_zero_offset"  # the tensor itself (TVM copies only a non-zero offset)
KILL = "kill"  # releases its argument

# Spelling -> (kind, its parameters in order). The names with `relax.` are operators, the
# others VM builtins (packed functions).
SPELLINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "relax.memory.alloc_storage": (ALLOC_STORAGE, ("size", "device", "scope", "dtype")),
    "relax.vm.alloc_storage": (ALLOC_STORAGE, ("size", "device", "dtype", "scope")),
    "relax.memory.alloc_tensor": (ALLOC_TENSOR, ("storage", "offset", "shape", "dtype")),
    "relax.vm.alloc_tensor": (ALLOC_TENSOR, ("storage", "offset", "shape", "dtype")),
    "relax.memory.view": (VIEW, ("data", "shape", "dtype", "relative_byte_offset")),
    "relax.reshape": (RESHAPE, ("data", "shape")),
    "vm.builtin.reshape": (RESHAPE, ("data", "shape")),
    "relax.memory.ensure_zero_offset": (ZERO_OFFSET, ("data",)),
    "vm.builtin.ensure_zero_offset": (ZERO_OFFSET, ("data",)),
    "relax.memory.kill_tensor": (KILL, ("tensor",)),
    "relax.memory.kill_storage": (KILL, ("storage",)),
    "relax.vm.kill_object": (KILL, ("obj",)),
}

# The kinds whose result is the bytes of a tensor argument (the same tensor, seen anew).
VIEW_KINDS = frozenset({VIEW, RESHAPE, ZERO_OFFSET})
# The kinds whose result shares the bytes of an argument: the views, and a tensor placed in a
# storage.
ALIASING_KINDS = VIEW_KINDS | {ALLOC_TENSOR}

# The ops that call a packed function given as their first argument.
_PACKED_CALLERS = ("relax.call_pure_packed", "relax.call_builtin_with_ctx")


def spellings(kind: str, packed: bool = False) -> tuple[str, ...]:
    """The operators a construct of `kind` is called by (`packed`: the VM builtins, called as
    packed functions): the names an executor's handler registers."""
    return tuple(name for name, (k, _) in SPELLINGS.items()
                 if k == kind and name.startswith("relax.") != packed)


class MemoryCall:
    """One memory construct as a call writes it: `kind`, `name` (the spelling called), `args`
    (its own arguments: for a builtin through `call_pure_packed`/`call_builtin_with_ctx`,
    those the builtin gets), `attrs` (arguments given by name), `call` (the IR call)."""

    __slots__ = ("kind", "name", "args", "attrs", "call")

    def __init__(self, name: str, args: tuple, attrs: tuple, call: Call):
        self.kind = SPELLINGS[name][0]
        self.name, self.args, self.attrs, self.call = name, args, attrs, call

    def arg(self, param: str):
        """The argument given for parameter `param` (by position or by name), or None."""
        params = SPELLINGS[self.name][1]
        i = params.index(param)
        if i < len(self.args):
            return self.args[i]
        return next((v for k, v in self.attrs if k == param), None)

    @property
    def aliased(self):
        """The argument whose bytes the result shares (the storage of a tensor placed in one,
        the tensor of a view), or None: a storage is new bytes, a release gives nothing."""
        return self.args[0] if self.kind in ALIASING_KINDS and self.args else None

    @property
    def released(self):
        """The argument a release frees, or None."""
        return self.args[0] if self.kind == KILL and self.args else None

    @property
    def is_view(self) -> bool:
        """Is the result a view of a tensor argument (`aliased`)?"""
        return self.kind in VIEW_KINDS and bool(self.args)


def memory_call(value) -> MemoryCall | None:
    """The memory construct `value` calls, in any spelling (module docstring), or None."""
    if type(value) is not Call:
        return None
    op, args = value.op, value.args
    if type(op) is Op:
        name = op.name
        if name in _PACKED_CALLERS and args and type(args[0]) is ExternFunc:
            name, args = args[0].name, args[1:]
            if value.op.name == "relax.call_builtin_with_ctx":  # its arguments as one tuple
                if not args or type(args[0]) is not Tuple:
                    return None
                args = args[0].fields
            if name not in SPELLINGS or name.startswith("relax."):
                return None
            return MemoryCall(name, args, (), value)
    elif type(op) is ExternFunc:
        name = op.name
    else:
        return None
    if name not in SPELLINGS or (type(op) is ExternFunc) == name.startswith("relax."):
        return None  # an operator's name called as a packed function, or the reverse
    return MemoryCall(name, args, value.attrs, value)


def aliased(value):
    """The argument whose bytes `value`'s result shares (MemoryCall.aliased), or None when
    `value` is no memory construct or its result is bytes of its own."""
    m = memory_call(value)
    return m.aliased if m is not None else None


def viewed(value):
    """The tensor argument whose bytes `value`'s result views (a view, reshape or
    ensure_zero_offset in any spelling), or None."""
    m = memory_call(value)
    return m.args[0] if m is not None and m.is_view else None
