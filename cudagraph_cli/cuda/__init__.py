"""The CUDA stack behind `cgraph run --device N` and `cgraph kernels`.

cuda_driver.py (the driver API through cuda-python, or a host stand-in), nvrtc.py (compiles
kernels.cu, cgraph's kernel library), cuda_backend.py (the executor's backend on a GPU: memory,
launches, stream capture), tvm_kernels.py and launch_manifest.py (a module's own PrimFuncs
lowered by TVM, and how to launch them), gpu_run.py (eager vs CUDA graphs, checked against the
reference executor of exec/, and timed).
"""
