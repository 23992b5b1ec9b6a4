"""The type stubs cover the whole native module, and the package is marked typed."""

import ast
from pathlib import Path

import rdmagen
from rdmagen import _native

PKG = Path(rdmagen.__file__).parent


def stub_names() -> set[str]:
    tree = ast.parse((PKG / "_native.pyi").read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_every_native_name_has_a_stub():
    public = {n for n in dir(_native) if not n.startswith("_")} | {"__version__"}
    missing = public - stub_names()
    assert not missing, f"_native.pyi lacks {sorted(missing)}"


def test_every_stubbed_class_member_exists():
    tree = ast.parse((PKG / "_native.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and hasattr(_native, node.name):
            cls = getattr(_native, node.name)
            for item in node.body:
                name = getattr(item, "name", None) or getattr(getattr(item, "target", None), "id", None)
                if name and not name.startswith("__"):
                    assert hasattr(cls, name), f"{node.name}.{name} is stubbed but does not exist"


def test_package_is_typed():
    assert (PKG / "py.typed").exists()
    assert set(rdmagen.__all__) >= {n for n in dir(_native) if not n.startswith("_")}
