"""`cgraph diff` and the other commands' reports: analysis.py gathers the facts of a rewrite,
rewrite_of.py checks that OUT is a rewrite of IN, graph_cost.py counts the graphs keyed by
symbolic values (rewritten.py: what the three read of a rewritten module); views.py and
patch_view.py show them, diff_gates.py decides diff's CI gates; check_view, verify_view,
explain_view and run_view report the other commands."""
