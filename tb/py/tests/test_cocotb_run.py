"""sim/cocotb/run.py on a user's mistakes: a message and exit 1, no Python traceback.

The runner is what docs/cocotb.md tells a user to call with their own `--rtl` directory and
`--map`/`--params`; these cases stop before any simulator is started.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("cocotb_tools", reason="cocotb is not installed")

REPO = Path(__file__).resolve().parents[3]
RUN = REPO / "sim" / "cocotb" / "run.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(RUN), "--sim", "icarus", *args], cwd=REPO,
                          capture_output=True, text=True, env=dict(os.environ), timeout=600)


def test_a_missing_rtl_directory_is_named(tmp_path: Path) -> None:
    rtl = tmp_path / "no_rtl"
    done = run("--bench", "qpc_csr", "--rtl", str(rtl))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert f"cocotb icarus qpc_csr: no {rtl}/qpc_csr.v" in done.stderr, done.stderr


def test_bad_params_are_named(tmp_path: Path) -> None:
    for params in ["NUM_PORTS", "NUM_PORTS=x", "=3"]:
        # Refused before the block is generated: no rdmagen binary is needed.
        done = run("--map", str(REPO / "register-maps" / "example.yaml"), "--params", params)
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert "is not NAME=VALUE" in done.stderr, done.stderr
