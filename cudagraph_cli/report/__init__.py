"""`cgraph diff`: analysis.py gathers the facts of a rewrite; views.py shows them."""
