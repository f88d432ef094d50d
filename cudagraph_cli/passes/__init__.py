"""The rewrite pipeline, one module a step (and stage.py: which stage of TVM's pipeline a
module looks dumped at).

storage_collector -> region_planner -> explain -> alloc_merger produce plans (data) and never
touch the IR; rewriter applies the plans; pipeline runs them in order, each step handed the
results of the steps before it. options holds RewriteOptions, every option and correction.
See docs/REWRITE.md.
"""
