#!/usr/bin/env python3
"""Round trip of a fuzz corpus through SystemRDL: for each map `rdmagen check` accepts,
`rdmagen rdl` + `rdmagen json`, then `rdmagen.rdl_import` on the export, `rdmagen check` and
`rdmagen json` on the result, compared as tb/py/tests/test_rdl_import.py compares the committed
exports (an explicit address_width wider than the map needs is counted, not failed: SystemRDL
does not carry it).

Usage (repository root, after `cargo build --release -p rdmagen`, with the rdmagen Python
package importable): tb/fuzz/check-rdl-import.py tb/fuzz/corpus/generate [N]
Prints each failure and a closing count line; exits 1 on any failure (a refused export is one).
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tb" / "py" / "tests"))
from test_rdl_import import compare  # noqa: E402

from rdmagen.rdl_import import RdlImportError, import_rdl, to_yaml  # noqa: E402

RDMAGEN = os.environ.get("RDMAGEN", str(REPO / "target" / "release" / "rdmagen"))


def rdmagen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([RDMAGEN, *args], capture_output=True, text=True)


def main(corpus: str, limit: int) -> int:
    n = ok = bad = wider = 0
    for path in sorted(Path(corpus).iterdir()):
        if n >= limit:
            break
        with tempfile.TemporaryDirectory() as work:
            w = Path(work)
            (w / "map.yaml").write_bytes(path.read_bytes())
            if rdmagen("check", str(w / "map.yaml")).returncode:
                continue
            n += 1
            for kind in ("rdl", "json"):
                if rdmagen(kind, str(w / "map.yaml"), "-o", str(w / "o")).returncode:
                    print(f"FAIL {path}: rdmagen {kind}")
                    bad += 1
                    break
            else:
                try:
                    m = import_rdl(str(next((w / "o").glob("*.rdl"))))
                except RdlImportError as e:
                    print(f"FAIL {path}: import refused: {e.errors[:3]}")
                    bad += 1
                    continue
                (w / "back.yaml").write_text(to_yaml(m))
                p = rdmagen("check", str(w / "back.yaml"))
                if not p.returncode:
                    p = rdmagen("json", str(w / "back.yaml"), "-o", str(w / "b"))
                if p.returncode:
                    print(f"FAIL {path}: the imported map does not validate\n{p.stderr[:800]}")
                    bad += 1
                    continue
                a = json.loads(next((w / "o").glob("*.json")).read_text())
                b = json.loads(next((w / "b").glob("*.json")).read_text())
                if b["address_width"] < a["address_width"]:
                    wider += 1
                    b["address_width"] = a["address_width"]
                try:
                    compare(a, b)
                    ok += 1
                except AssertionError as e:
                    print(f"FAIL {path}: {str(e)[:400]}")
                    bad += 1
    print(f"rdl import: {n} valid maps, {ok} round trips equal ({wider} with an explicit wider "
          f"address_width, not carried), {bad} failed")
    return 1 if bad or not n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30))
