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

if command -v rustup >/dev/null; then
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi

echo "setup: $(verilator --version | head -1); iverilog $(iverilog -V 2>/dev/null | head -1 | awk '{print $4}'); $(yosys -V)"
echo "setup: $(gcc --version | head -1); $(rsvg-convert --version); systemrdl-compiler $(.venv/bin/python -c 'import systemrdl; print(systemrdl.__version__)')"
