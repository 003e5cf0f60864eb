"""The package's shape: no import cycle among its modules nor among its packages (lazy imports
included), the records layer importing no later stage, click only under ``pmparse.cli``, no module
(nor test file) longer than a screenful of names allows (600 lines), and no module reaching into
another's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import pmparse

PACKAGE = Path(pmparse.__file__).resolve().parent
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The pmparse modules ``name`` imports anywhere in its body (a lazy import is still a cycle)."""
    is_package = path.name == "__init__.py"
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([node.module] if node.module else []))
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    # an import of pmparse.a.b also runs pmparse.a and pmparse; only the named module counts here
    return {t for t in targets if t in modules and t != name and t != "pmparse"}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _cycle(graph) is None


def test_click_only_under_cli():
    offenders = []
    for name, path in _modules().items():
        if name == "pmparse.cli" or name.startswith("pmparse.cli."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n == "click" or n.startswith("click.") for n in names):
                offenders.append(name)
    assert offenders == []


def test_the_cli_is_only_at_the_edge():
    """No stage imports the command line (lazy imports included; ``python -m pmparse`` and the console script's
    ``pmparse._entry`` are the edge too): the batch's worker processes, the API and the library would otherwise load click and
    every command with it."""
    modules = _modules()
    offenders = {name: sorted(t for t in _imports(name, path, modules) if t == "pmparse.cli" or t.startswith("pmparse.cli."))
                 for name, path in modules.items()
                 if not (name in ("pmparse.cli", "pmparse.__main__", "pmparse._entry") or name.startswith("pmparse.cli."))}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_no_module_over_600_lines():
    long = {name: n for name, path in _modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_test_file_over_600_lines():
    """The tests too (their helpers and conftest files included): a test file of 1,045 lines held
    tests of four subjects, found by scrolling."""
    tests = Path(__file__).resolve().parent
    long = {path.relative_to(tests).as_posix(): n for path in sorted(tests.rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


#: What comes after the records in the data flow (``ingest -> nlp -> card -> library -> review``,
#: then ``merge``; ``batch`` orchestrates, ``site``, ``evaluation`` and ``training`` read records,
#: ``cli`` is the edge).
NOT_FOR_THE_RECORDS_LAYER = ("nlp", "ingest", "review", "merge", "batch", "site", "cli", "evaluation", "training")


def test_records_layer_knows_records_only():
    """``pmparse.library`` stores, reads, splices, validates and merges records: it never runs the
    pipeline, reviews or settles a git merge, so it imports nothing from the stages before or after
    it (lazy imports included)."""
    modules = _modules()
    forbidden = tuple(f"pmparse.{package}" for package in NOT_FOR_THE_RECORDS_LAYER)
    offenders = {name: sorted(t for t in _imports(name, path, modules)
                              if t in forbidden or t.startswith(tuple(f"{p}." for p in forbidden)))
                 for name, path in modules.items() if name.startswith("pmparse.library")}
    assert {name: found for name, found in offenders.items() if found} == {}


#: The stages a document goes through before it is a record, and what comes after them.
BEFORE_THE_RECORDS = ("ingest", "nlp", "rules")
AFTER_THE_RECORDS = ("library", "review", "merge", "batch", "site", "cli", "evaluation", "training", "api")


def test_the_stages_before_the_records_import_nothing_after_them():
    """Reading and analysing a document knows no library (lazy imports included): a library's own
    model folder is a path convention (``pmparse.paths``), the alias count a YAML check
    (``pmparse.yaml_problems``), both below every stage."""
    modules = _modules()
    later = tuple(f"pmparse.{package}" for package in AFTER_THE_RECORDS)
    before = {f"pmparse.{package}" for package in BEFORE_THE_RECORDS}
    offenders = {name: sorted(t for t in _imports(name, path, modules) if t in later or t.startswith(
                     tuple(f"{p}." for p in later)))
                 for name, path in modules.items() if _package(name) in before}
    assert {name: found for name, found in offenders.items() if found} == {}


#: Module imports that make a package cycle, each kept knowingly (the why beside it).
KNOWN_PACKAGE_CYCLE_IMPORTS = {
    # card holds both the record schema that nlp, rules and library name fields by (card.schema)
    # and the stage after nlp that reads its analysed Doc (card.build): the cycle is card.schema's
    # users against card.build, until the schema is a package of its own
    ("pmparse.card.build", "pmparse.nlp.lines"),
    # the held-out organisation score runs training's rule choice on each fold (lazy imports);
    # training, which reads evaluation's corpus and metrics, is another helper's to move it into
    ("pmparse.evaluation.facts_held_out", "pmparse.training.organisation"),
    # ``python -m pmparse.cli`` starts as the console script does (_entry holds Ctrl-C, then
    # imports cli): both are the process's entry, not a layer
    ("pmparse.cli.__main__", "pmparse._entry"),
}


def _package(module: str) -> str:
    """``pmparse.<subpackage or top-level module>`` of a module."""
    return ".".join(module.split(".")[:2])


def _package_graph(module_graph: dict[str, set[str]], known=frozenset()) -> dict[str, set[str]]:
    """Which packages import which (an import inside one package is left out; so are ``known``
    module imports)."""
    graph: dict[str, set[str]] = {}
    for name, targets in module_graph.items():
        edges = graph.setdefault(_package(name), set())
        edges.update(_package(t) for t in targets if _package(t) != _package(name) and (name, t) not in known)
        for target in targets:
            graph.setdefault(_package(target), set())
    return graph


def _module_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_no_package_import_cycle():
    """The packages follow the data flow (lazy imports included): a cycle between two packages
    (library importing review, which imports library) hides no module cycle, so
    :func:`test_no_import_cycle` cannot see it."""
    assert _cycle(_package_graph(_module_graph(), KNOWN_PACKAGE_CYCLE_IMPORTS)) is None


def test_known_package_cycle_imports_are_still_there():
    """An exception that no longer exists is taken off the list, so it cannot excuse a new one."""
    graph = _module_graph()
    assert {(a, b) for a, b in KNOWN_PACKAGE_CYCLE_IMPORTS if b not in graph.get(a, ())} == set()


def test_package_cycle_check_sees_a_cycle_through_a_lazy_import(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("def f():\n    from pmparse.review.compare import merge\n", encoding="utf-8")
    graph = {"pmparse.library.mod": _imports("pmparse.library.mod", path, _modules()),
             "pmparse.review.compare": {"pmparse.library.records"}, "pmparse.library.records": set()}
    assert _cycle(_package_graph(graph)) == ["pmparse.library", "pmparse.review", "pmparse.library"]
    assert _cycle(_package_graph(graph, {("pmparse.library.mod", "pmparse.review.compare")})) is None


def _token_joins(path: Path) -> list[int]:
    """Lines of ``path`` that read ``doc.text``, which spaCy rebuilds from every token each time."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Attribute) and node.attr == "text"
            and isinstance(node.value, ast.Name) and node.value.id == "doc"]


def test_pipeline_stages_read_the_kept_text():
    """A stage reads the document's text through ``nlp.lines.doc_text`` (kept once per Doc):
    ``Doc.text`` joins every token again (the field labeler reading it cost 0.2-0.3 s of the
    pipeline's 13 s over the bench files)."""
    readers = {name: lines for name, path in _modules().items()
               if name.startswith("pmparse.nlp") and name != "pmparse.nlp.lines"
               and (lines := _token_joins(path))}
    assert readers == {}


def test_text_check_sees_doc_text(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("def f(doc):\n    return doc.text\n", encoding="utf-8")
    assert _token_joins(path) == [2]


def test_layout_check_sees_a_forbidden_import(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("def f():\n    from pmparse.nlp.pipeline import get\n", encoding="utf-8")
    assert "pmparse.nlp.pipeline" in _imports("pmparse.library.mod", path, _modules())


def _private_uses(name: str, path: Path, modules: dict[str, Path]) -> list[str]:
    """``module.name`` of each underscore name ``name`` takes from another pmparse module: imported
    (``from pmparse.x import _y``) or read off an imported module (``x._y``)."""
    found = []
    aliases: dict[str, str] = {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pmparse"):
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules:  # a module imported by name
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif alias.name.startswith("_") and not alias.name.startswith("__") and node.module != name:
                    found.append(f"{node.module}.{alias.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"{aliases[node.value.id]}.{node.attr}")
    return found



def test_no_module_uses_another_modules_private_names():
    """A name one module needs from another is that module's public interface (named without an
    underscore, with a docstring): private helpers reached across modules hide who depends on them."""
    modules = _modules()
    offenders = {name: uses for name, path in modules.items()
                 if (uses := _private_uses(name, path, modules))}
    assert offenders == {}


def test_private_use_check_sees_both_forms(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("from pmparse.nlp.extractors import organisation as rules\n"
                    "from pmparse.util import _hidden\n"
                    "rules._secret\n", encoding="utf-8")
    assert sorted(_private_uses("pmparse.other", path, _modules())) == [
        "pmparse.nlp.extractors.organisation._secret", "pmparse.util._hidden"]
