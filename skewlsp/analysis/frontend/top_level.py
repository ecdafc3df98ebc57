"""What a module's top level imports and writes, read off its stdlib statements.

The index (:mod:`.source_index`) reads a module's top-level blocks; this module reads
the ones Python runs for their effect on other modules when it imports the module:

- ``from m import NAME`` (:class:`ImportedName`): a constant that may live in another
  file, with the line of its statement, since the value it binds is the one ``m``
  holds when that line runs;
- ``import m`` and ``import m.n as c`` (:class:`ImportedModule`): the module object
  itself, whose attributes the module may read (``config.PREFILL_TOKENS``) or set;
- ``m.NAME = value`` (:class:`AttributeWrite`): a module attribute set while the
  module loads (``config.MOE_TOKENS = config.PREFILL_TOKENS``), which every module
  importing ``NAME`` from ``m`` later sees (:mod:`.import_order`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

PYPTO_LANGUAGE = "pypto.language"
# The header of a top-level block setting a module attribute (``config.TP = TP_SIZE``).
ATTRIBUTE_WRITE = re.compile(r"^[A-Za-z_]\w*\.[A-Za-z_]\w*[ \t]*=(?!=)")


@dataclass(frozen=True)
class ImportedName:
    """``from <module> import <name>``: a constant that may live in another file; ``line``:
    the statement's first line (1-based; 0 where not known)."""

    module: str
    name: str
    level: int
    line: int = 0


@dataclass(frozen=True)
class ImportedModule:
    """``import <module>`` (or ``import <module> as <alias>``) at the top level."""

    module: str
    level: int
    line: int


@dataclass(frozen=True)
class AttributeWrite:
    """``<alias>.<attr> = <value>`` at the top level (``value``: its text; ``line``: 1-based),
    where ``alias`` may name a module the same top level imports."""

    alias: str
    attr: str
    value: str
    line: int


@dataclass
class Imports:
    """What a module's import statements bind: names from sibling modules, whole modules
    (top level only), and how it spells ``pypto.language`` and ``pl.pipeline``."""

    names: dict[str, ImportedName] = field(default_factory=dict)
    modules: dict[str, ImportedModule] = field(default_factory=dict)
    pl_aliases: frozenset[str] = frozenset()
    pipeline_names: frozenset[str] = frozenset()
    imports_pypto: bool = False


def collect_imports(tree: ast.Module) -> Imports:
    """The imports of ``tree`` (a module, or the import statements of its top level)."""
    found = Imports()
    aliases: set[str] = set()
    pipelines: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "pypto" or alias.name.startswith("pypto."):
                    found.imports_pypto = True
                    if alias.name == PYPTO_LANGUAGE and alias.asname:
                        aliases.add(alias.asname)
                elif node.col_offset == 0 and (alias.asname or "." not in alias.name):
                    bound = alias.asname or alias.name
                    found.modules[bound] = ImportedModule(alias.name, 0, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module == "pypto" or module.startswith("pypto."):
                found.imports_pypto = True
            for alias in node.names:
                bound = alias.asname or alias.name
                if module == "pypto" and alias.name == "language":
                    aliases.add(bound)
                elif module == PYPTO_LANGUAGE and alias.name == "pipeline":
                    pipelines.add(bound)
                elif not module.startswith("pypto") and node.col_offset == 0 and alias.name != "*":
                    found.names[bound] = ImportedName(module, alias.name, node.level, node.lineno)
    found.pl_aliases = frozenset(aliases)
    found.pipeline_names = frozenset(pipelines)
    return found


def attribute_writes(body: Sequence[ast.stmt], lines: list[str]) -> tuple[AttributeWrite, ...]:
    """The ``alias.attr = value`` statements among ``body`` (top-level statements), in
    order; a chained ``a.x = b.y = v`` gives one write per target."""
    found: list[AttributeWrite] = []
    for stmt in body:
        if not isinstance(stmt, ast.Assign):
            continue
        for target in stmt.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                text = segment(lines, stmt.value)
                if text is not None:
                    found.append(AttributeWrite(target.value.id, target.attr, text, stmt.lineno))
    return tuple(found)


def segment(lines: list[str], node: ast.expr) -> str | None:
    """Source text of ``node``; ast columns are UTF-8 byte offsets, so slice bytes."""
    if node.end_lineno is None or node.end_col_offset is None:
        return None
    first, last = node.lineno - 1, node.end_lineno - 1
    chunk = [line.encode("utf-8") for line in lines[first : last + 1]]
    if not chunk:
        return None
    if first == last:
        return chunk[0][node.col_offset : node.end_col_offset].decode("utf-8", "replace")
    chunk[0] = chunk[0][node.col_offset :]
    chunk[-1] = chunk[-1][: node.end_col_offset]
    return b"".join(chunk).decode("utf-8", "replace")
