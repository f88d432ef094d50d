"""Modules TVM reads and builds and cgraph cannot read (no T.popcount of a symbolic value, in
memory or as text): what the TVM pass's fallback is tested on (test_tvm_fallback.py,
test_use_in_tvm.py). Two, each of another function, so that their messages differ."""

UNREADABLE = ['''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32"), s: R.Shape(["n"])):
        n = T.int64()
        y = R.add(x, x)
        z = R.multiply(y, y)
        p = R.prim_value(T.popcount(n))
        return (z, p)
''', '''
@I.ir_module
class Module:
    @R.function
    def forward(a: R.Tensor((4,), "float32"), s: R.Shape(["m"])):
        m = T.int64()
        b = R.subtract(a, a)
        q = R.prim_value(T.popcount(m) + 1)
        return (b, q)
''']
