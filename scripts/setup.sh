#!/usr/bin/env bash
# Installs what `make test` needs when it is missing: Verilator, Icarus Verilog and Yosys from
# Debian's packages, and the Rust components rustfmt and clippy. Safe to run repeatedly.
set -euo pipefail

need=()
command -v verilator >/dev/null || need+=(verilator)
command -v iverilog >/dev/null || need+=(iverilog)
command -v yosys >/dev/null || need+=(yosys)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if command -v rustup >/dev/null; then
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi

echo "setup: $(verilator --version | head -1); iverilog $(iverilog -V 2>/dev/null | head -1 | awk '{print $4}'); $(yosys -V)"
