"""Syntax tree -> IR: names resolved, literal sugar normalized, struct info deduced.

This is where TVMScript's meaning lives, following what TVM 0.27's parser and normalizer do:

* literal sugar: a bare `0` argument of `R.memory.alloc_storage` is `R.prim_value(0)`, its
  `"global"` an `R.str`, its `"float32"` an `R.dtype`; `R.memory.alloc_tensor` gets its default
  `runtime_device_index` 0 and `R.builtin.alloc_tensor` its default scope "global";
  `R.call_packed` arguments convert as TVM's `convert_to_expr` does (ints -- bools too -- to
  int64, floats to float64, strings to `R.str`);
* a use of a variable whose struct info is the empty tuple is the empty tuple `R.tuple()`;
* symbolic shape arithmetic folds constants (`2 * 4` is 8, `m * 1` is `m`);
* a binding without annotation gets the struct info TVM would deduce, where cgraph can.

Errors are `SourceError`s located at the offending node.

One `ModuleBuilder`, made of one part a job, each in its own file (each says what it may touch):

    module.py           the module: its class, its functions in order, what holds for all of them
    prim_signatures.py  PrimFuncs: parameters as Relax sees them, the body kept as text
    functions.py        Relax functions: header, body, bindings, if/else, dataflow, closures
    scopes.py           what a name means inside a function; its symbolic variables
    expressions.py      Relax expressions: names, literals, tuples, calls to functions
    relax_calls.py      the R.* calls: parameters, defaults, literal sugar; other operators
                        against their signatures recorded from TVM (../relax_ops.py)
    struct_info.py      struct info annotations, shapes, symbolic integer expressions
    vdevices.py         the module's virtual devices (I.module_global_infos) and the names
                        struct info and R.to_vdevice give them
    dialect.py          the evidence of which TVMScript dialect the text is written in
    checks.py           literals and the checks of TVM's reader that need no scope
"""

from .module import ModuleBuilder

__all__ = ["ModuleBuilder"]
