"""Random post-memory-planning Relax modules, for differential tests against TVM.

`random_module(seed)` writes the text of a module with several functions over shared
PrimFunc and packed kernels: static storages of several sizes and scopes, tensors carved from
them (storages reused), R.builtin allocations, aliases, nested tuples and get-items, kills of
tensors and storages, vm.builtin calls, calls to other Relax functions, null values, string
and dtype arguments, weights past num_input, symbolic shapes with and without capture hints,
dataflow blocks, and return values reached through tuples and get-items. Deterministic for a
seed.
"""

from __future__ import annotations

import random

PRIMS = {"k2": 2, "k3": 3, "k4": 4}


def _prim_funcs() -> list[str]:
    out = []
    for name, n in PRIMS.items():
        params = ", ".join(f"p{i}: T.handle" for i in range(n))
        out.append(f"    @T.prim_func(s_tir=True)\n    def {name}({params}):\n"
                   f"        T.evaluate(0)\n")
    return out


class _Fn:
    def __init__(self, rng: random.Random, index: int, sym: bool, sym_weight: bool,
                 callees: list[str], ret_kind: str):
        self.rng = rng
        self.index = index
        self.sym = sym
        self.sym_weight = sym_weight
        self.callees = callees
        self.ret_kind = ret_kind
        self.lines: list[str] = []
        self.tensors: list[str] = ["x"]  # X-shaped tensors usable as arguments
        # Which buffer each tensor is (views of one storage, aliases and get-items share it),
        # and which buffers hold data: kernels read only written tensors, as real programs
        # do (reading fresh memory is undefined: the executor rejects it).
        self.buffer: dict[str, str] = {"x": "x", "w": "w"}
        self.written: set[str] = {"x", "w"}
        self.storages: list[str] = []
        self.weights: list[str] = ["w"]
        self.counter = 0
        self.block_open = False
        self.block_defs: list[str] = []

    def name(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def shape(self) -> str:
        return "R.shape([n, 16])" if self.sym else "R.shape([16])"

    def emit(self, line: str, defines: str | None = None):
        self.lines.append(("    " if self.block_open else "") + line)
        if defines and self.block_open:
            self.block_defs.append(defines)

    def operand(self) -> str:
        """A tensor to read: one that holds data."""
        readable = [t for t in self.tensors if self.buffer.get(t, t) in self.written]
        return self.rng.choice(readable)

    def destination(self) -> str:
        """A tensor to write (any); it holds data afterwards."""
        t = self.rng.choice(self.tensors)
        self.written.add(self.buffer.get(t, t))
        return t

    def tensor(self, name: str, buffer: str):
        self.tensors.append(name)
        self.buffer[name] = buffer

    def step(self):
        rng = self.rng
        kind = rng.choices(
            ["storage", "tensor", "prim", "packed", "builtin", "vm", "alias", "tuple",
             "null", "call", "kill", "strings"],
            [2, 4, 6, 3, 1, 1, 1, 1, 0.5, 0.7, 1, 0.5])[0]
        if kind == "storage" or (kind == "tensor" and not self.storages):
            s = self.name("storage")
            # Bytes: a tensor is 16 float32 (64 bytes), or n x 16 with n up to 2 (128 bytes).
            size = rng.choice([128, 256, 512, 1024] if self.sym else [64, 128, 256, 512, 1024])
            scope = rng.choices(['"global"', '"ipc_memory"'], [5, 1])[0]
            self.emit(f'{s} = R.memory.alloc_storage(R.shape([{size}]), 0, {scope}, "float32")',
                      s)
            self.storages.append(s)
            # A storage no tensor uses makes TVM 0.27 crash (unordered_map::at); keep it rare.
            if rng.random() < 0.97:
                a = self.name("alloc")
                self.emit(f'{a} = R.memory.alloc_tensor({s}, 0, {self.shape()}, "float32")', a)
                self.tensor(a, s)
        elif kind == "tensor":
            a = self.name("alloc")
            s = rng.choice(self.storages)
            self.emit(f'{a} = R.memory.alloc_tensor({s}, 0, {self.shape()}, "float32")', a)
            self.tensor(a, s)
        elif kind == "builtin":
            a = self.name("alloc")
            self.emit(f'{a} = R.builtin.alloc_tensor({self.shape()}, "float32", 0)', a)
            self.tensor(a, a)
        elif kind == "prim":
            k = rng.choice(list(PRIMS))
            ins = [rng.choice([self.operand()] + self.weights) for _ in range(PRIMS[k] - 1)]
            out = self.destination()
            if rng.random() < 0.5:
                self.emit(f"cls.{k}({', '.join(ins + [out])})")
            else:
                self.emit(f"{self.name('_')} = cls.{k}({', '.join(ins + [out])})")
        elif kind == "packed":
            ins = [rng.choice([self.operand()] + self.weights) for _ in range(rng.randint(1, 2))]
            ins.append(self.destination())
            self.emit(f'R.call_packed("packed_kernel{rng.randint(0, 2)}", {", ".join(ins)}, '
                      f'ty_args=(R.Tuple,))')
        elif kind == "strings":
            a = self.destination()
            self.emit(f'R.call_packed("packed_attr", {a}, R.str("mode"), R.dtype("float16"), 3, '
                      f'ty_args=(R.Tuple,))')
        elif kind == "vm":
            a = self.destination()
            self.emit(f'R.call_packed("vm.builtin.kv_cache_append", {a}, ty_args=(R.Tuple,))')
        elif kind == "alias":
            v, a = self.name("lv"), rng.choice(self.tensors)
            self.emit(f"{v} = {a}", v)
            self.tensor(v, self.buffer.get(a, a))
        elif kind == "tuple":
            t, g, h = self.name("tup"), self.name("gi"), self.name("gi")
            a, b = rng.choice(self.tensors), rng.choice(self.tensors)
            self.emit(f"{t} = ({a}, ({b},))", t)
            self.emit(f"{g} = {t}[1]", g)
            self.emit(f"{h} = {g}[0]", h)
            self.tensor(h, self.buffer.get(b, b))
        elif kind == "null":
            v = self.name("null")
            self.emit(f"{v} = R.null_value()", v)
            self.emit(f'R.call_packed("packed_null", {v}, {self.destination()}, '
                      f'ty_args=(R.Tuple,))')
        elif kind == "call" and self.callees:
            f = rng.choice(self.callees)
            v = self.name("res")
            self.emit(f"{v} = cls.{f}({self.operand()}, w)", v)
            self.tensor(v, v)
            self.written.add(v)
        elif kind == "kill" and len(self.tensors) > 2:
            self.emit(f"R.memory.kill_tensor({self.tensors[-1]})")

    def body(self, n_steps: int) -> list[str]:
        rng = self.rng
        dataflow_at = rng.randrange(n_steps) if rng.random() < 0.2 else -1
        block_start = 0
        for i in range(n_steps):
            if i == dataflow_at:
                self.lines.append("with R.dataflow():")
                self.block_open = True
                block_start = len(self.lines)
                for _ in range(rng.randint(1, 4)):
                    self._dataflow_step()
                self.block_open = False
                self._close_dataflow(block_start)
            else:
                self.step()
        ret = self._ret()
        if self.storages and rng.random() < 0.4:
            self.lines.append(f"R.memory.kill_storage({rng.choice(self.storages)})")
        self.lines.append(f"return {ret}")
        return self.lines

    def _dataflow_step(self):
        # Only pure bindings in dataflow blocks (TVM rejects impure calls there).
        rng = self.rng
        kind = rng.choice(["tensor", "alias", "tuple"])
        if kind == "tensor" and self.storages:
            a = self.name("alloc")
            s = rng.choice(self.storages)
            self.emit(f'{a} = R.memory.alloc_tensor({s}, 0, {self.shape()}, "float32")', a)
            self.tensor(a, s)
        elif kind == "tuple":
            t, g = self.name("tup"), self.name("gi")
            a, b = rng.choice(self.tensors), rng.choice(self.tensors)
            self.emit(f"{t} = ({a}, {b})", t)
            self.emit(f"{g} = {t}[0]", g)
            self.tensor(g, self.buffer.get(a, a))
        else:
            v, a = self.name("lv"), rng.choice(self.tensors)
            self.emit(f"{v} = {a}", v)
            self.tensor(v, self.buffer.get(a, a))

    def _close_dataflow(self, start: int):
        defs = self.block_defs
        self.block_defs = []
        if not defs:
            self.lines.insert(start, "    dummy_df = x")  # a block needs a binding
            defs = []
        # Every binding of the block is an output: later code may use any of them.
        outs = defs or ["dummy_df"]
        if "dummy_df" in outs:
            self.tensor("dummy_df", "x")
        self.lines.append(f"    R.output({', '.join(outs)})")

    def _ret(self) -> str:
        a = self.operand()
        if self.ret_kind == "tensor":
            return a
        t, g = self.name("ret_t"), self.name("ret_g")
        self.lines.append(f"{t} = ({a}, {self.operand()})")
        if self.ret_kind == "getitem":
            self.lines.append(f"{g} = {t}[0]")
            return g
        return t


def random_module(seed: int, dialect: str = "current") -> str:
    rng = random.Random(seed)
    sym = rng.random() < 0.3
    sym_weight = rng.random() < 0.2
    n_funcs = rng.randint(1, 3)
    x_sig = '("n", 16)' if sym else "(16,)"
    w_sig = '("m",)' if sym_weight else "(16,)"
    x_ty = f'R.Tensor({x_sig}, "float32")'
    # One num_input for all functions: a caller passes its `w` to a callee's `w`, and a
    # callee that captures its weight must get a weight (num_input's contract).
    weights = rng.random() < 0.6
    parts = _prim_funcs()
    names = [f"f{i}" for i in range(n_funcs)]
    for i, fname in enumerate(names):
        callees = names[:i] if rng.random() < 0.5 else []
        ret_kind = "tensor" if (i < n_funcs - 1 or rng.random() < 0.5) else \
            rng.choice(["getitem", "tuple"])
        fn = _Fn(rng, i, sym, sym_weight, callees, ret_kind)
        lines = fn.body(rng.randint(3, 18))
        attrs = ['"relax.force_pure": True']
        if weights:
            attrs.append('"num_input": 1')
        if sym and rng.random() < 0.6:
            attrs.append('"relax.rewrite_cuda_graph.capture_symbolic_vars": ["n"]')
        head = []
        if sym:
            head.append("n = T.int64()")
        if sym_weight:
            head.append("m = T.int64()")
        head.append("R.func_attr({" + ", ".join(attrs) + "})")
        head.append("cls = Module")
        body = "\n".join("        " + ln for ln in head + lines)
        ret_ann = f" -> {x_ty}" if ret_kind == "tensor" else ""
        parts.append(f"    @R.function\n    def {fname}(x: {x_ty}, "
                     f"w: R.Tensor({w_sig}, \"float32\")){ret_ann}:\n{body}\n")
    text = "@I.ir_module(s_tir=True)\nclass Module:\n" + "\n".join(parts)
    if dialect == "legacy":
        text = (text.replace("R.Any", "R.Object").replace("ty_args=", "sinfo_args=")
                .replace("@I.ir_module(s_tir=True)", "@I.ir_module")
                .replace("@T.prim_func(s_tir=True)", "@T.prim_func"))
    return text
