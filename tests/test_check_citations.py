"""What a lesson cites, read from its text: narrow on purpose, so what is flagged is real."""

from __future__ import annotations

from gotchas.check.anchors import parse_blame
from gotchas.check.citations import cite
from gotchas.check.findings import PathIndex, declared, duplicates


def cited(text: str) -> list[tuple[str, str, str | None]]:
    return [(c.kind, c.value, c.runner) for c in cite(text, 1)]


def test_paths_with_and_without_lines_in_and_out_of_backticks() -> None:
    text = "See server/gotchas/cli.py:42 and `src/app.ts:10:3`, also docs/ and README.md."
    assert cited(text) == [
        ("path", "server/gotchas/cli.py", None),
        ("path", "src/app.ts", None),
    ]
    assert cited("`README.md` and `Makefile`") == [("path", "README.md", None), ("path", "Makefile", None)]


def test_commands_name_what_declares_them() -> None:
    text = (
        "`npm run lint`, `pnpm build`, `yarn test`, `make deploy`, `just fmt`, "
        "`./scripts/z.sh --x`, `uv run tools/gen.py`"
    )
    assert cited(text) == [
        ("command", "lint", "npm"),
        ("command", "build", "npm"),
        ("command", "test", "npm"),
        ("command", "deploy", "make"),
        ("command", "fmt", "just"),
        ("command", "scripts/z.sh", "script"),
        ("command", "tools/gen.py", "script"),
    ]
    assert cited("`npm install`, `make -j4`, `npx vitest`, `uv run pytest -q`") == []


def test_symbols_and_keys_read_as_code_only() -> None:
    text = "`load_settings()`, `CacheStore.warmUp`, `Foo::bar_baz`, `DATABASE_URL`, `true`, `main`, `ok`"
    assert cited(text) == [
        ("symbol", "load_settings", None),
        ("symbol", "warmUp", None),
        ("symbol", "bar_baz", None),
        ("key", "DATABASE_URL", None),
    ]


def test_prose_urls_and_foreign_paths_are_not_citations() -> None:
    text = (
        "Use and/or TCP/IP, read https://example.com/src/a.py, /etc/hosts, ~/x/y.py, "
        "../other/z.py, `@scope/pkg`, `$HOME/a.py`, `some words here`."
    )
    assert cited(text) == []


def test_lines_and_columns_point_at_the_citation() -> None:
    found = cite("title\n\nx `src/a.py` y", 10)
    assert [(c.line, c.column) for c in found] == [(12, 4)]


def test_blame_porcelain_is_read_by_headers_only() -> None:
    sha = "a" * 40
    porcelain = (
        f"{sha} 1 1 2\nauthor X\nfilename r.md\n\t# T\n{sha} 2 2\n\t{'b' * 40} 9 9 1\n"
        f"{'0' * 40} 3 3 1\nauthor Not Committed Yet\n\tnew line\n"
    )
    assert parse_blame(porcelain) == {1: sha, 2: sha}


def test_path_index_resolves_files_tails_and_directories() -> None:
    index = PathIndex(["server/gotchas/cli.py", "README.md"])
    assert index.resolve("gotchas/cli.py") == "server/gotchas/cli.py"
    assert index.resolve("server/gotchas") == "server/gotchas/cli.py"
    assert index.resolve("cli.py") == "server/gotchas/cli.py"
    assert index.resolve("other/cli.py") is None


def test_declared_scripts_targets_and_recipes() -> None:
    found = declared(
        {
            "package.json": b'{"scripts": {"lint": "x", "test:unit": "y"}}',
            "Makefile": b"VAR := 1\nbuild test: deps\n\tcc\n.PHONY: build\n",
            "justfile": b"fmt:\n  x\n@release version:\n  y\n",
        }
    )
    assert found.npm == frozenset({"lint", "test:unit"})
    assert found.make is not None and {"build", "test", ".PHONY"} <= found.make and "VAR" not in found.make
    assert found.just == frozenset({"fmt", "release"})
    assert declared({"package.json": b"not json"}).npm is None


def test_duplicates_need_enough_shared_words() -> None:
    words = "one two three four five six seven eight nine ten"
    found = duplicates(
        [("a", 1, "A", f"A\n{words}"), ("b", 5, "B", f"B\n{words} eleven"), ("c", 9, "C", "C\nx y")]
    )
    assert [(f.entry, f.evidence["same_as"]) for f in found] == [("b", "a")]
    assert duplicates([("a", 1, "A", "A\nshort text"), ("b", 5, "B", "B\nshort text")]) == []
