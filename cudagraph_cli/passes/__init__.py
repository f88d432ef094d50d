"""The rewrite pipeline, one module a stage.

storage_collector -> region_planner -> alloc_merger produce plans (data) and never touch the
IR; rewriter applies the plans; pipeline runs them in order. See docs/REWRITE.md.
"""
