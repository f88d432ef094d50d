"""The reference executor: runs modules on NumPy with CUDA-graph semantics.

kernels.py (what each kernel computes), backend.py (memory, launches, capture/replay),
constants.py (a module's constants as arrays), interpreter.py (a module's functions, the VM
builtins), ownership.py (who may write a captured graph's storage), verify.py (original vs
rewrite). The same executor runs on a GPU through cuda/.
"""
