"""The proof: what a module's text guarantees for every value of its symbolic variables,
decided statically, without running a byte (verify's runs are exec/; this is the other half).

ranges.py (the one reader of "which values can VAR take": tir_var_upper_bound,
tir_var_lower_bound, tir_non_negative_var, a guard's bound), bound.py (one inequality decided
for every value within the ranges: proved, failed at the smallest breaking values, or
unproven), sizes.py (sizes, offsets and keys as the text writes them, and their text in a
report), keys.py (a graph key tells apart every value its graph depends on), buckets.py (a
bucket's definition against its declared list), facts.py (the facts of a module: fits, view,
disjoint, returned, key, bucket, unit; what it cannot read is listed
as unproven, never skipped).

It sits on the executor's floor: it evaluates expressions with exec/prim.py and reads a
storage's unit with exec/handlers/memory.py, and exec/verify.py reports its facts.
docs/EXECUTOR.md, "What verify's verdict guarantees", says what each fact proves.
"""
