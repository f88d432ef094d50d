"""The executor's handlers, one file a family, each a set of functions registered by name
(exec/registry.py):

* memory.py: storages, tensors in them, their release;
* operators.py: the Relax operators (`R.reshape`, `R.memory.view`, closures, ...), the VM
  builtins they lower to, and any other operator as a kernel;
* packed.py: `R.call_packed`, `R.call_pure_packed`, `R.call_builtin_with_ctx`, `R.call_tir`,
  `R.call_dps_packed`, and any packed function as a synthetic kernel;
* kv_cache.py: the KV-cache builtins, with their contents kept across calls;
* collectives.py: disco's collectives, as a session of one worker;
* cuda_graph.py: `get_cached_alloc` and `run_or_capture`, with CUDA-graph semantics.

Importing this package registers them all; OPERATORS and FUNCTIONS are then complete.
"""

from ..registry import FUNCTIONS, OPERATORS
from . import collectives, cuda_graph, kv_cache, memory, operators, packed

__all__ = ["FUNCTIONS", "OPERATORS", "collectives", "cuda_graph", "kv_cache", "memory",
           "operators", "packed"]
