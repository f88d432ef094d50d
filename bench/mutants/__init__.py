"""Rewrites that are wrong by construction, and rewrites that are right.

A mutation suite for `cgraph verify`. It starts from a correct pair, ORIGINAL (a module before
the CUDA-graph rewrite) and REWRITTEN (cgraph's rewrite of it, `cudagraph_cli.api.rewrite`,
printed and read back), and makes:

* mutants: modules that compute something else than ORIGINAL, each with its class, its
  position (early / middle / late layer), the function and binding it changes, and why it is
  wrong (`Mutant.proof`);
* controls: modules that compute what ORIGINAL computes (other correct rewrites, and REWRITTEN
  with two independent launches swapped), which verify must find equal.

Every module is printed and read back (`api.loads`: parsed and checked well formed), so a mutant
is a text cgraph accepts, and the suite works on what a user would hand verify.

How a mutant is known to be wrong, without running it: `trace` interprets one public function
abstractly, inlining the graphs it launches, into the list of its kernel launches, each with the
byte ranges it reads and writes (regions of storages, of parameters, of fresh allocations).
From that list follows, for every byte a launch reads, which launch wrote it last (its
reaching definition). A kernel is treated as an unknown function of what it reads, so a mutant
whose reaching definitions differ from REWRITTEN's at a launch whose result flows on computes,
for some kernel bodies and inputs, another value. The kernel-level classes are proved that way
(`first_divergent_launch`); the graph-level classes by what a replay does (it reads the addresses
and the host state of its capture): see each builder. A control that swaps two launches is proved
independent the same way: disjoint regions, no read of what the other writes.

Layers: a launch's layer is N of the first `layers_N_` in the names of the weights it reads
(inside a graph, through the names the launch passes for the capture's parameters: a capture
function shared by several layers is one layer per launch); a launch that reads no weight
belongs to the layer of the launch before it. Early = the first layer, middle = the middle
one, late = the last; a model without `layers_N_` weights (the convnets, the MLP) has its
launches split in three by order instead.

Wherever a mutation would change a capture function that several launches share, the capture
function is copied (`NAME_mutant`) and only the chosen launch calls the copy: the mutant is
wrong at that layer only.

The package, one job a file:

    trace.py     the abstract trace, reaching definitions, layers and positions
    edits.py     edits of a module (each a new module), and reading one back as verify would
    builder.py   Mutant, Control, NotBuildable; Builder: one model's function, its trace, and
                 the helpers every builder shares
    kernel.py    drop, reorder, wrong-arg
    storage.py   overlap-offset, overlap-slot, storage-twice
    graph.py     frozen-input, frozen-object, output-index, graph-owned-return
    guards.py    guard-inverted, graph-unkeyed
    shape.py     slot-short, offset-past, key-clamped, reshape-wrong; slot-larger, guard-raised
    keys.py      key-halved, key-capped, key-dropped, slot-elements; key-shifted,
                 elements-both (issue 44: the graph key, the storage unit)
    buckets.py   bucket-row-mixed, bucket-key-only, bucket-view-offset, bucket-past-storage,
                 bucket-formula-short, bucket-row-count (--capture-buckets), and their
                 controls (the stale-alias one: reread_control)
    controls.py  the rewrite with two independent launches swapped
    suite.py     BUILDERS (class -> builder), every mutant and control of a model

Adding a class of mutant: a function (Builder, position) -> Mutant in the file of its family,
its name in builder.CLASSES and suite.BUILDERS, and a case in tests/test_mutants.py.
"""

from .builder import CLASSES, POSITIONS, Builder, Control, Mutant, NotBuildable
from .suite import (BUILDERS, GUARD_CLASSES, REAL_SIZE, bounded_options, controls_of,
                    mutants_of, real_models, rewrite_text)
from .trace import first_divergent_launch, trace

__all__ = ["BUILDERS", "CLASSES", "GUARD_CLASSES", "POSITIONS", "REAL_SIZE", "Builder",
           "Control", "Mutant", "NotBuildable", "bounded_options", "controls_of",
           "first_divergent_launch", "mutants_of", "real_models", "rewrite_text", "trace"]
