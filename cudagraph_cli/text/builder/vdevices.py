"""Virtual devices: the module's `I.module_global_infos({"vdevice": [I.vdevice(...), ...]})`,
and the names that point at its entries (`R.Tensor(..., vdevice="cuda:0:global")`,
`R.to_vdevice(x, dst_vdevice="llvm:0:global")`).

As TVM 0.27 reads them (tvm/script/ir_builder/ir: LookupVDevice): a name is
`kind[:index[:scope]]`; `index` (0 when absent) counts the entries of that target kind, or,
for the kind `vdevice`, all entries; the scope written is ignored (the entry's own is the
one printed). Where TVM's reader fails cgraph fails with TVM's words; where TVM finds no entry
it only warns, keeps no vdevice, and then cannot print the module (its printer crashes): cgraph
makes that a located error. Reads the module's global infos once, before any function.
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import SourceError
from .. import syntax as S
from .checks import bind_args, check_literal_ints, is_literal, literal


class VDeviceBuilder:
    """The vdevice part of ModuleBuilder; of the shared state, sets and reads `vdevices`
    (the module's entries) and `vdevice_names` (their printed names)."""

    def global_infos(self, stmt: S.ExprStmt) -> tuple:
        """`I.module_global_infos({...})` -> the module's global infos ((key, entries), ...)."""
        call = stmt.value
        (infos,) = bind_args(call, ["global_infos"], {}, 1)
        if not isinstance(infos, S.DictLit):
            raise SourceError("I.module_global_infos takes a dict", infos.loc)
        out = []
        for key, value in infos.items:
            if not isinstance(key, S.Str):
                raise SourceError("a global info's key must be a string", key.loc)
            if key.value != "vdevice":
                raise SourceError(f"global info '{key.value}': cgraph reads only \"vdevice\" "
                                  "(a list of I.vdevice(...))", key.loc)
            if not isinstance(value, (S.ListLit, S.TupleLit)):
                raise SourceError("\"vdevice\" takes a list of I.vdevice(...)", value.loc)
            out.append((key.value, tuple(self._vdevice(x) for x in value.items)))
        return tuple(out)

    def _vdevice(self, node) -> ir.VDevice:
        if not (isinstance(node, S.Call) and S.dotted(node.func) in ("I.vdevice", "ir.vdevice")):
            raise SourceError("expected I.vdevice(target, vdevice_id, memory_scope)", node.loc)
        target, vid, scope = bind_args(node, ["target", "vdevice_id", "memory_scope"], {}, 1)
        if not (is_literal(target) and isinstance(target, (S.Str, S.DictLit))):
            raise SourceError("a vdevice's target must be a string or a dict", target.loc)
        check_literal_ints(target)
        value = _sorted_dicts(literal(target).value)
        device = ir.VDevice(value)
        if not device.kind:
            raise SourceError("cannot tell the target's kind (a dict with \"kind\", or a "
                              "string starting with the kind, such as \"llvm\")", target.loc)
        if vid is not None:
            if not (isinstance(vid, S.Num) and isinstance(vid.value, int)):
                raise SourceError("vdevice_id must be an integer", vid.loc)
            check_literal_ints(vid)
        if scope is not None and not isinstance(scope, S.Str):
            raise SourceError("memory_scope must be a string", scope.loc)
        return ir.VDevice(value, vid.value if vid is not None else 0,
                          scope.value if scope is not None else "global")

    def resolve_vdevice(self, node) -> str:
        """A vdevice name as written -> the name TVM prints for the entry it finds."""
        if not isinstance(node, S.Str):
            raise SourceError("a vdevice is written as a string, \"kind:index:scope\"",
                              node.loc)
        text = node.value
        parts = text.split(":")
        index = 0
        if len(parts) > 1:
            try:
                index = int(parts[1])
            except ValueError:
                raise SourceError(f"invalid literal for int() with base 10: {parts[1]!r}",
                                  node.loc) from None
        kind = parts[0]
        if not self.vdevices:
            raise SourceError("The GlobalInfos in the IRModule is not defined.", node.loc)
        if index < 0 or index >= len(self.vdevices):
            raise SourceError("The target VDevice in the GlobalInfos was not found.", node.loc)
        if kind == "vdevice":
            return self.vdevice_names[index]
        count = 0
        for device, name in zip(self.vdevices, self.vdevice_names):
            if device.kind == kind:
                if count == index:
                    return name
                count += 1
        raise SourceError(f"vdevice {S.quote(text)} names no entry of the module's global "
                          f"infos ({', '.join(self.vdevice_names)}); TVM 0.27 warns, drops it "
                          "and cannot print the module", node.loc)


def _sorted_dicts(v):
    """A target as TVM prints it: every dict's keys in order (lists keep theirs)."""
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "dict":
        return ("dict", tuple(sorted(((k, _sorted_dicts(x)) for k, x in v[1]),
                                     key=lambda kv: str(kv[0]))))
    if isinstance(v, tuple) and len(v) == 2 and v[0] in ("list", "tuple"):
        return (v[0], tuple(_sorted_dicts(x) for x in v[1]))
    return v
