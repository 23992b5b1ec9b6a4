#!/usr/bin/env python3
"""X/Z after reset on Icarus (4-state): resets each top, then samples every output while idle.

    scripts/check-x.py [--rtl DIR] [--cycles N] [TOP ...]      (default: every module in DIR)

Each top is elaborated with its default parameters (Yosys gives the port widths), driven with
every input at 0 (so every valid is low), held in reset (`rst` high, or `rst_n` low) for 4
cycles, and then sampled at each falling clock edge for N idle cycles. Prints one line per top:
"ok" or the outputs that carried an X or Z bit, with the first cycle after reset it was seen;
exit status 1 if any did. Needs yosys and iverilog (as scripts/check-rtl.sh).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ports(sources: list[Path]) -> dict[str, dict[str, tuple[str, int]]]:
    """Module -> port name -> (direction, width) at default parameters, in port order (one
    Yosys run for all modules, processes dropped: only the ports are wanted)."""
    files = " ".join(str(s) for s in sources)
    out = subprocess.run(["yosys", "-q", "-p", f"read_verilog {files}; delete */p:*; write_json -"],
                         check=True, capture_output=True, text=True).stdout
    mods = json.loads(out[out.index("{"):])["modules"]
    return {m: {n: (p["direction"], len(p["bits"])) for n, p in v["ports"].items()} for m, v in mods.items()}


def bench(top: str, pts: dict[str, tuple[str, int]], cycles: int) -> str:
    """A plain Verilog-2005 bench: inputs at 0, reset, then one $display per X output."""
    rst_n = "rst_n" in pts
    lines = ["`timescale 1ns/1ps", "module check_x_tb;"]
    for n, (d, w) in pts.items():
        kind = "reg " if d == "input" else "wire"
        init = " = 0" if d == "input" else ""
        lines.append(f"  {kind} [{w - 1}:0] {n}{init};")
    lines.append(f"  {top} dut ({', '.join(f'.{n}({n})' for n in pts)});")
    lines.append("  always #5 clk = !clk;")
    lines.append("  integer cyc;")
    lines.append("  initial begin")
    lines.append(f"    {'rst_n = 0' if rst_n else 'rst = 1'};")
    lines.append("    repeat (4) @(posedge clk);")
    lines.append(f"    {'rst_n <= 1' if rst_n else 'rst <= 0'};")
    lines.append(f"    for (cyc = 1; cyc <= {cycles}; cyc = cyc + 1) begin")
    lines.append("      @(negedge clk);")
    for n, (d, _) in pts.items():
        if d == "output":
            lines.append(f"      if (^{n} === 1'bx) $display(\"X {n} %0d %b\", cyc, {n});")
    lines.append("    end")
    lines.append("    $finish;")
    lines.append("  end")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rtl", type=Path, default=ROOT / "rtl")
    ap.add_argument("--cycles", type=int, default=16)
    ap.add_argument("tops", nargs="*")
    a = ap.parse_args()
    sources = sorted(a.rtl.glob("*.v"))
    tops = a.tops or [m for s in sources for m in re.findall(r"^module\s+(\w+)", s.read_text(), re.M)]
    bad = 0
    all_ports = ports(sources)
    with tempfile.TemporaryDirectory() as tmp:
        for top in tops:
            pts = all_ports[top]
            tb = Path(tmp) / "tb.v"
            tb.write_text(bench(top, pts, a.cycles))
            vvp = Path(tmp) / "tb.vvp"
            subprocess.run(["iverilog", "-g2005", "-o", str(vvp), "-s", "check_x_tb", str(tb),
                            *map(str, sources)], check=True)
            sim = subprocess.run(["vvp", "-n", str(vvp)], check=True, capture_output=True, text=True).stdout
            first: dict[str, int] = {}
            for line in sim.splitlines():
                if line.startswith("X "):
                    _, name, cyc, _ = line.split()
                    first.setdefault(name, int(cyc))
            if first:
                bad += 1
                seen = ", ".join(f"{n} (from cycle {c})" for n, c in first.items())
                print(f"FAIL {top}: X/Z after reset on {len(first)} of "
                      f"{sum(d == 'output' for d, _ in pts.values())} outputs: {seen}")
            else:
                print(f"ok   {top} ({sum(d == 'output' for d, _ in pts.values())} outputs known for "
                      f"{a.cycles} idle cycles after reset)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
