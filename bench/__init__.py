"""The benchmarks (docs/BENCHMARKS.md says what each measures) and the tools they share:
the mutation suite (bench/mutants/), the corpus builders (bench/corpus/), report.py.

A package, so that one name reaches them from the tests and from the scripts alike:
`from bench import mutants`. The tests find it because pytest puts the repository root on
sys.path (pyproject.toml, `pythonpath`); a script, run as `python bench/X.py`, puts the root
there itself (its one sys.path line), which also makes it run this checkout's cudagraph_cli.
"""
