"""cgraph: rewrite TVM Relax modules so that their static kernel launches run as CUDA graphs.

    from cudagraph_cli import load, rewrite, print_module, verify

The public API is cudagraph_cli/api.py (docs/API.md). The pipeline, one package a stage:
`text` reads TVMScript into the IR of `ir` (lexer, grammar driver, builder) and writes it back
(printer); `ir` holds the nodes with their struct info, well-formedness and structural
equality; `passes` rewrites; `exec` runs a module on the NumPy reference executor and
verifies a rewrite; `cuda` runs it on a GPU; `report` shows a rewrite.
"""

__version__ = "0.1.0"

# name -> the module that defines it. Imported on first use (PEP 562): `import cudagraph_cli`,
# and so `cgraph`'s start, loads neither the API's stages nor lark, numpy, click or rich.
EXPORTS = {
    "load": "api", "loads": "api", "read": "api", "rewrite": "api", "print_module": "api",
    "verify": "api", "diff": "api", "check_rewrite": "api", "run_cpu": "api", "Source": "api",
    "UnknownName": "api", "OverBound": "api", "difference": "api", "check_pairs": "api",
    "directory_pairs": "api", "listed_pairs": "api", "PairResult": "api", "check": "api",
    "diff_text": "api", "verify_text": "api",
    "SourceError": "diagnostics", "Loc": "diagnostics",
    "RewriteOptions": "passes.options", "RewriteReport": "passes.pipeline",
    "ModuleFacts": "report.analysis", "NotARewrite": "report.rewrite_of",
    "VerifyReport": "exec.verify", "ModuleFails": "exec.verify",
    "ModuleMismatch": "exec.verify",
}

__all__ = ["__version__", *EXPORTS]


def __getattr__(name: str):
    where = EXPORTS.get(name)
    if where is None:
        # AttributeError (not ImportError): `from cudagraph_cli import ir` then imports the
        # subpackage, as it would without this function.
        raise AttributeError(f"module 'cudagraph_cli' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{where}", __name__), name)
    globals()[name] = value  # the next lookup does not come here
    return value


def __dir__():
    return sorted(set(globals()) | set(EXPORTS))
