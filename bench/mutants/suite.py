"""The suite: every mutant and control of a model, as bench/bench_mutants.py runs them.

Every module is printed and read back (`edits.reparsed`), so a mutant is a text cgraph
accepts, and the suite works on what a user would hand verify.
"""

from __future__ import annotations

from cudagraph_cli import api, ir

from functools import partial

from . import buckets, graph, guards, kernel, keys, shape, storage
from .builder import CLASSES, POSITIONS, Builder, Control, NotBuildable
from .controls import reorder_control
from .edits import reparsed
from .trace import trace

# The builder of each class of mutant: (Builder, position) -> Mutant, or NotBuildable.
BUILDERS = {
    "drop": kernel.drop, "reorder": kernel.reorder, "wrong-arg": kernel.wrong_arg,
    "overlap-offset": storage.overlap_offset, "overlap-slot": storage.overlap_slot,
    "storage-twice": storage.storage_twice, "frozen-input": graph.frozen_input,
    "frozen-object": graph.frozen_object, "output-index": graph.output_index,
    "graph-owned-return": graph.graph_owned_return,
    "guard-inverted": guards.guard_inverted, "graph-unkeyed": guards.graph_unkeyed,
    "slot-elements": keys.slot_elements,
}
GUARD_CLASSES = ("guard-inverted", "graph-unkeyed")
# The shape classes (shape.py): (model, original, rewrite, function, variable, its bound,
# position) -> Mutant; key-clamped on the rewrite with --capture-symbolic VAR.
SHAPE_BUILDERS = {"slot-short": shape.slot_short, "offset-past": shape.offset_past,
                  "key-clamped": shape.key_clamped, "reshape-wrong": shape.reshape_wrong,
                  **{kind: partial(keys.key_mutant, kind) for kind in keys.KEY_CLASSES}}

REAL_SIZE = ("mlc_llama_1b", "mlc_qwen2_0_5b", "mlc_llama_8b")
# The bounded rewrite the guard classes start from, per model family: MLC's prefill is keyed by
# seq_len (docs/REWRITE.md uses seq_len:256); a small model's first symbolic input, bound 2.
MLC_BOUND = ("prefill", "seq_len", 256)


def real_models(root) -> list[tuple[str, str, str]]:
    """(group, name, path of the .before.relax) of the corpus: real-size first."""
    from pathlib import Path

    real = Path(root) / "samples" / "real"
    out = [("real-size", n, str(real / f"{n}.before.relax")) for n in REAL_SIZE]
    for p in sorted(real.glob("*.before.relax")) + sorted(
            (real / "capture_safety").glob("*.before.relax")):
        name = p.name[: -len(".before.relax")]
        if name not in REAL_SIZE:
            out.append(("small", name if p.parent == real else f"capture_safety/{name}",
                        str(p)))
    return out


def rewrite_text(original: ir.Module, name: str, options=None) -> ir.Module:
    return reparsed(api.rewrite(original, options)[0], name)


def mutant_functions(model: str, rewritten: ir.Module) -> list[str]:
    """The public functions mutated: decode for the MLC models (the per-token function; the
    same layers repeat in prefill and batch_decode), every function that runs a kernel in the
    small ones."""
    if model in REAL_SIZE:
        return ["decode"]
    out = []
    for f in rewritten.relax_functions():
        if not f.is_private and trace(rewritten, f.name).events:
            out.append(f.name)
    return out


def bounded_options(model: str, original: ir.Module):
    """(function, RewriteOptions with a --capture-symbolic VAR:MAX) for the guard classes, or
    None when no function has a symbolic input to bound."""
    from cudagraph_cli.passes.options import RewriteOptions

    if model in REAL_SIZE:
        fn, var, bound = MLC_BOUND
        return fn, RewriteOptions(capture_symbolic=(f"{var}:{bound}",))
    for f in original.relax_functions():
        if f.is_private:
            continue
        names = [v.name for p in f.params[: f.num_input] for v in ir.sinfo_prim_vars(p.sinfo)]
        for var in dict.fromkeys(names):
            try:
                rw = api.rewrite(original, RewriteOptions(capture_symbolic=(f"{var}:2",)))[0]
            except Exception:
                continue
            from cudagraph_cli.passes.guards import find_guards

            if any(g.function == f.name for g in find_guards(rw)):
                return f.name, RewriteOptions(capture_symbolic=(f"{var}:2",))
    return None


def mutants_of(model: str, original: ir.Module, classes=CLASSES, positions=POSITIONS,
               functions=None):
    """Every mutant of the model's rewrite: yields Mutant, or (kind, position, function,
    NotBuildable) where the class cannot be built there."""
    rewritten = rewrite_text(original, f"{model}.rewritten.relax")
    kernel_classes = [c for c in classes if c not in GUARD_CLASSES and
                      c not in SHAPE_BUILDERS and c not in buckets.BUCKET_BUILDERS]
    for fn in functions or mutant_functions(model, rewritten):
        builder = Builder(model, original, rewritten, fn)
        seen = set()
        for kind in kernel_classes:
            for position in positions:
                yield from made(builder, kind, position, seen)
    yield from shape_mutants_of(model, original, rewritten,
                                [c for c in classes if c in SHAPE_BUILDERS], positions)
    yield from bucket_mutants_of(model, original,
                                 [c for c in classes if c in buckets.BUCKET_BUILDERS], positions)
    guard_classes = [c for c in classes if c in GUARD_CLASSES]
    if guard_classes:
        bounded = bounded_options(model, original)
        if bounded is None:
            for kind in guard_classes:
                for position in positions:
                    yield (kind, position, None, NotBuildable(
                        "no function has a symbolic input to bound"))
            return
        fn, options = bounded
        builder = Builder(model, original, rewrite_text(original, f"{model}.bounded.relax",
                                                         options), fn)
        seen = set()
        for kind in guard_classes:
            for position in positions:
                yield from made(builder, kind, position, seen)


def shape_mutants_of(model: str, original: ir.Module, rewritten: ir.Module, classes,
                     positions=POSITIONS):
    """The shape mutants (shape.py) of each public function of one bounded symbolic input:
    Mutant, or (kind, position, function, NotBuildable)."""
    from cudagraph_cli.passes.options import RewriteOptions

    if not classes:
        return
    found = shape.shape_functions(rewritten)
    if not found:
        yield from none_built(classes, positions)
        return
    for fn, var, top in found:
        keyed = None
        seen = set()
        for kind in classes:
            module = rewritten
            # The key classes on the rewrite with --capture-symbolic VAR where the default
            # one keys no graph of the function by VAR (MLC's batch_decode is keyed already).
            if kind == "key-clamped" or (kind in keys.KEY_CLASSES and not any(
                    shape.key_bindings(rewritten.function(fn), var))):
                if keyed is None:
                    keyed = rewrite_text(original, f"{model}.keyed.relax",
                                         RewriteOptions(capture_symbolic=(var,)))
                module = keyed
            for position in positions:
                try:
                    m = SHAPE_BUILDERS[kind](model, original, module, fn, var, top, position)
                except NotBuildable as e:
                    yield (kind, position, fn, e)
                    continue
                if (kind, m.site) in seen:
                    continue  # the same candidate for two positions: once
                seen.add((kind, m.site))
                yield m


def none_built(classes, positions):
    for kind in classes:
        for position in positions:
            yield (kind, position, None, NotBuildable(
                "no public function of one bounded symbolic input"))


def bucket_functions(model: str, original: ir.Module) -> list:
    """(function, variable, bound) the bucket classes start from: MLC's prefill with seq_len
    for the real-size models, else each public function of one bounded symbolic input."""
    if model in REAL_SIZE:
        fn, var, _ = MLC_BOUND
        top = original.function(fn).upper_bounds().get(var)
        return [(fn, var, top)] if top is not None else []
    return shape.shape_functions(original)


def bucket_mutants_of(model: str, original: ir.Module, classes, positions=POSITIONS):
    """The bucket mutants (buckets.py): Mutant, or (kind, position, function, NotBuildable)."""
    if not classes:
        return
    found = bucket_functions(model, original)
    if not found:
        yield from none_built(classes, positions)
        return
    for fn, var, top in found:
        for kind in classes:
            for position in positions:
                try:
                    yield buckets.BUCKET_BUILDERS[kind](model, original, fn, var, top,
                                                        position)
                except NotBuildable as e:
                    yield (kind, position, fn, e)
                except api.SourceError as e:  # e.g. the bucket list the module refuses
                    yield (kind, position, fn, NotBuildable(e.message))


def made(builder: Builder, kind: str, position: str, seen: set):
    try:
        m = BUILDERS[kind](builder, position)
    except NotBuildable as e:
        yield (kind, position, builder.function, e)
        return
    except api.SourceError as e:  # the generator's bug: said, not hidden
        yield (kind, position, builder.function, NotBuildable(
            f"GENERATOR BUG: the mutant does not read back: {e.message}"))
        return
    key = (kind, m.site)
    if key in seen:  # a small model: the same site for two positions
        yield (kind, position, builder.function, NotBuildable(f"same site as another "
                                                              f"position ({m.site})"))
        return
    seen.add(key)
    yield m


def controls_of(model: str, original: ir.Module, after_path: str | None,
                positions=POSITIONS, functions=None):
    """The correct modules of a model: cgraph's rewrites with each option, TVM's output, and
    REWRITTEN with two independent launches swapped. Yields Control, or (name, NotBuildable)."""
    from pathlib import Path

    from cudagraph_cli.passes.options import RewriteOptions

    variants = [("cgraph default", RewriteOptions()),
                ("--compat tvm", RewriteOptions.tvm_compat()),
                ("--min-kernels 2", RewriteOptions(min_kernels=2))]
    bounded = bounded_options(model, original)
    if bounded is not None:
        var_bound = bounded[1].capture_symbolic[0]
        var = var_bound[0] if isinstance(var_bound, tuple) else str(var_bound).split(":")[0]
        bound = var_bound[1] if isinstance(var_bound, tuple) else None
        variants.append((f"--capture-symbolic {var}:{bound}", bounded[1]))
        variants.append((f"--capture-symbolic {var}", RewriteOptions(capture_symbolic=(var,))))
    # capture_safety/: TVM's own captures of calls that a graph cannot replay (the
    # capture-safety table of docs/REWRITE.md): its outputs there are wrong on purpose.
    tvm_correct = not model.startswith("capture_safety/")
    if not tvm_correct:
        variants = [v for v in variants if v[0] != "--compat tvm"]
    if not tvm_correct:
        yield ("--compat tvm", NotBuildable("TVM's capture of an unsafe call: wrong"))
        yield ("TVM after.relax", NotBuildable("TVM's capture of an unsafe call: wrong"))
    for name, options in variants:
        try:
            module = rewrite_text(original, f"{model}.{name}.relax", options)
        except Exception as e:  # an option this model cannot take (a located error)
            yield (name, NotBuildable(f"the rewrite refuses: {str(e).splitlines()[0]}"))
            continue
        yield Control(model, None, name, "cgraph's own rewrite", module)
        if bounded is not None and options is bounded[1]:
            try:
                yield shape.guard_raised(model, module, bounded[0])
            except NotBuildable as e:
                yield (f"guard-raised {bounded[0]}", e)
    if after_path and Path(after_path).exists() and tvm_correct:
        yield Control(model, None, "TVM after.relax", "TVM 0.27's RewriteCUDAGraph",
                      api.load(after_path))
    rewritten = rewrite_text(original, f"{model}.rewritten.relax")
    for fn, var, _ in shape.shape_functions(rewritten):
        try:
            yield shape.slot_larger(model, rewritten, fn)
        except NotBuildable as e:
            yield (f"slot-larger {fn}", e)
        try:
            yield keys.key_shifted(model, rewritten, fn, var)
        except NotBuildable as e:
            yield (f"key-shifted {fn}", e)
    try:
        yield keys.elements_both(model, original, rewritten)
    except NotBuildable as e:
        yield ("elements-both", e)
    for fn, var, top in bucket_functions(model, original):
        try:
            yield from buckets.bucket_controls(model, original, fn, var, top)
        except api.SourceError as e:
            yield (f"--capture-buckets {fn}", NotBuildable(e.message))
    for fn in functions or mutant_functions(model, rewritten):
        builder = Builder(model, original, rewritten, fn)
        seen = set()
        for position in positions:
            try:
                c = reorder_control(builder, position)
            except NotBuildable as e:
                yield (f"reorder-independent.{position}", e)
                continue
            if c.proof in seen:
                continue
            seen.add(c.proof)
            yield c
