"""Syntax tree -> IR (see module.py)."""

from .functions import ModuleBuilder

__all__ = ["ModuleBuilder"]
