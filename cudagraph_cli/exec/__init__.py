"""The executor: runs modules on a backend (CPU reference: NumPy) with CUDA-graph semantics.

kernels.py (what each kernel computes), backend.py (memory, launches, capture/replay),
interpreter.py (a module's functions, the VM builtins), verify.py (original vs rewrite).
"""
