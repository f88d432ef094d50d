"""The rewrite pipeline, one module a stage.

storage_collector -> region_planner -> explain -> alloc_merger produce plans (data) and never
touch the IR; rewriter applies the plans; pipeline runs them in order, each stage handed the
results of the stages before it. options holds RewriteOptions, every option and correction.
See docs/REWRITE.md.
"""
