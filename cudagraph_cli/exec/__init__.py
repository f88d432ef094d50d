"""The reference executor: runs modules on NumPy with CUDA-graph semantics.

interpreter.py (the core: a module's functions, binding by binding), registry.py and handlers/
(what each operator and builtin does, one file a family), launches.py (kernel launches),
prim.py (symbolic expressions), values.py (runtime values), kernels.py (what each kernel
computes), backend.py (memory, launches, capture/replay), repeating.py and terms.py (what the
reference backend keeps), constants.py (a module's constants as arrays); and verify: inputs.py,
driver.py, compare.py, ownership.py (who may write a captured graph's storage),
guard_check.py, functions.py, verify.py (original vs rewrite). What verify proves without
running (the shape facts) is its sibling package, proof/. docs/EXECUTOR.md has the table. The same executor runs on a GPU through cuda/.
"""
