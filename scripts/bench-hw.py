#!/usr/bin/env python3
"""`make bench-hw`: hardware quality of every generated block at two parameter sets.

For each row of DESIGNS, Yosys maps the committed RTL (rtl/) for a Xilinx UltraScale+ part
(`synth_xilinx -family xcup -flatten -noiopad`) and reports LUTs, flip-flops, LUT RAM, block RAM
(RAMB36 equivalents) and the longest register-to-register path; generic `synth` gives the
technology-independent cell count. Writes docs/BENCHMARKS.hw.md and docs/BENCHMARKS.hw.json.

Deepest path: computed here from the mapped netlist (`write_json`): the path between
flip-flops, block RAMs and ports with the most LUT levels (LUT1-6 and LUT-RAM reads count 1;
MUXF7/8/9 and CARRY4/CARRY8 stages on the same path are reported apart: a MUXF widens a LUT
level and a carry stage is a dedicated fast chain). Yosys's `ltp` counts every cell alike, so
a long carry chain would hide a deeper LUT path. Target of issue 9: at most 6 LUT levels.
A path's ends are named after what they are: a register by its output net (`x_q`; at an input pin `x_q (D)`, `x_q (CE)`),
a block RAM by its cell and pin (`wqe_mem.0.5:RAMB36E2 (WEA)`), a register Yosys moved into a
LUT RAM's read port by that RAM (`pend_mem.1.0 address`), never by a net name Yosys made up.

Both flows run in one Yosys process per row; rows run in parallel
(--jobs, default the CPU count), longest first by the last run's time.

Yosys: by default the YosysHQ `pyosys` wheel from PyPI (PYOSYS_VERSION, installed into .venv by
this script), driven from Python; `--yosys system` runs the `yosys` on PATH instead (Debian
bookworm's is 0.23). On the 64-bit RX parser row 0.70 needed 188 CPU s where 0.23 needed 294,
and it maps the block to fewer LUTs. Each row records the Yosys that measured it.

Usage: scripts/bench-hw.py [--all] [--only SUBSTRING] [--jobs N] [--yosys pyosys|system] [--trace]
(default: every row but EXTRA; --all: every row; --only: the rows whose label contains SUBSTRING;
--trace: print each row's deepest path cell by cell, write no report)
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
PYOSYS_VERSION = "0.70"
# Runs one Yosys script (argv[1]) in libyosys; Yosys' log goes to stdout, an error raises.
PYOSYS_DRIVER = "import sys; from pyosys import libyosys as ys; ys.run_pass(sys.argv[1], ys.Design())"

# (label, top module, files, parameters). Files are under rtl/ (the committed RTL) unless they
# name one of the GENERATED directories below, which this script writes first.
DESIGNS = [
    ("example_csr, 1 port", "example_csr", ["example_csr.v"], {"NUM_PORTS": 1}),
    ("example_csr, 8 ports", "example_csr", ["example_csr.v"], {"NUM_PORTS": 8}),
    ("qpc_csr", "qpc_csr", ["qpc_csr.v"], {}),
    ("rx_parser_csr", "rx_parser_csr", ["rx_parser_csr.v"], {}),
    ("dcqcn_csr", "dcqcn_csr", ["dcqcn_csr.v"], {}),
    ("uar_csr, 8 VFs", "uar_csr", ["uar_csr.v"], {"NUM_VF": 8}),
    ("uar_csr, 64 VFs", "uar_csr", ["uar_csr.v"], {"NUM_VF": 64}),
    ("uar_mlx5_csr", "uar_mlx5_csr", ["uar_mlx5_csr.v"], {}),
    ("uar, 8 VFs x 1 page", "uar", ["uar.v", "uar_csr.v"], {"NUM_VF": 8, "PAGES_PER_VF": 1}),
    ("uar, 64 VFs x 4 pages", "uar", ["uar.v", "uar_csr.v"], {"NUM_VF": 64, "PAGES_PER_VF": 4}),
    (
        "uar_mlx5, 8 VFs x 1 page",
        "uar_mlx5",
        ["uar_mlx5.v", "uar_mlx5_csr.v"],
        {"NUM_VF": 8, "PAGES_PER_VF": 1},
    ),
    (
        "uar_mlx5, 64 VFs x 4 pages",
        "uar_mlx5",
        ["uar_mlx5.v", "uar_mlx5_csr.v"],
        {"NUM_VF": 64, "PAGES_PER_VF": 4},
    ),
    (
        "qpc, 4 VFs x 16 QPs, 16 keys",
        "qpc",
        ["qpc.v", "qpc_csr.v"],
        {"NUM_VF": 4, "QPS_PER_VF": 16, "NUM_MKEYS": 16},
    ),
    (
        "qpc, 256 VFs x 64 QPs, 4096 keys",
        "qpc",
        ["qpc.v", "qpc_csr.v"],
        {"NUM_VF": 256, "QPS_PER_VF": 64, "NUM_MKEYS": 4096},
    ),
    ("rx_parser, 64 bits", "rx_parser", ["w64/rx_parser.v", "w64/rx_parser_csr.v"], {}),
    ("rx_parser, 512 bits", "rx_parser", ["rx_parser.v", "rx_parser_csr.v"], {}),
    ("rx_parser, 1024 bits", "rx_parser", ["w1024/rx_parser.v", "w1024/rx_parser_csr.v"], {}),
    ("dcqcn_rp, 1024 flows", "dcqcn_rp", ["dcqcn_rp.v", "dcqcn_csr.v"], {"FLOW_BITS": 10}),
    ("dcqcn_rp, 65536 flows", "dcqcn_rp", ["dcqcn_rp.v", "dcqcn_csr.v"], {"FLOW_BITS": 16}),
    (
        "dcqcn_top, 1024 flows",
        "dcqcn_top",
        ["dcqcn_top.v", "dcqcn_rp.v", "dcqcn_csr.v"],
        {"FLOW_BITS": 10},
    ),
    (
        "dcqcn_top, 65536 flows",
        "dcqcn_top",
        ["dcqcn_top.v", "dcqcn_rp.v", "dcqcn_csr.v"],
        {"FLOW_BITS": 16},
    ),
]

# The CSR block next to its peers: bench maps (`scripts/gen-bench-map.py VFS STYLE`) through
# rdmagen, PeakRDL-regblock (SystemVerilog, read by the slang frontend of the pyosys wheel:
# Yosys's own parser takes no unpacked structs) and Corsair (Verilog), each from the input
# scripts/bench-peers.py gives it, all mapped like the rows above. The `flat` map has counters,
# read-set, write-0-clear and interrupt pairs, which Corsair lacks (scripts/corsair-from-json.py
# would turn them into other modes), so Corsair maps only the `common` map, whose fields all three
# implement alike. write_md puts each tool's ratios to rdmagen's in a table below the rows.
PEER_MAPS = (("flat", 16, ("rdmagen", "PeakRDL-regblock")), ("common", 16, ("rdmagen", "PeakRDL-regblock", "Corsair")))


def peer_label(style, vfs, tool):
    return f"CSR, {style} map, {vfs * 16 + 1} registers: {tool}"


def peer_dir(style, vfs):
    """The directory under GEN_DIR that generate_peers writes for one map."""
    return f"peers-{style}{vfs}"


PEER_DIRS = {peer_dir(style, vfs): (style, vfs) for style, vfs, _ in PEER_MAPS}


def peer_designs(style, vfs, tools):
    name = f"bench_{style}_{vfs}"
    sub = peer_dir(style, vfs)
    files = {
        "rdmagen": (f"{name}_csr", [f"{sub}/rdmagen/{name}_csr.v"]),
        "PeakRDL-regblock": (name, [f"{sub}/peakrdl/{name}_pkg.sv", f"{sub}/peakrdl/{name}.sv"]),
        "Corsair": ("regs", [f"{sub}/corsair/hw/regs.v"]),
    }
    return [(peer_label(style, vfs, tool), *files[tool], {}) for tool in tools]


DESIGNS += [d for m in PEER_MAPS for d in peer_designs(*m)]

# Rows that `make bench` leaves out to keep within its time budget (issue 9: 20 minutes on 2
# CPUs; the table took 2390 CPU seconds of Yosys). Each block keeps two parameter sets and the RX
# parser its three widths; these rows repeat logic that other rows already map: the CSR blocks
# of the block maps (each block row includes its CSR), the mlx5-layout UAR (the UAR generator on
# another map) and the DCQCN engine without its CSR (inside dcqcn_top). `--all` measures them
# too; a run without them keeps their last figures, each marked with the run that measured it.
EXTRA = {
    "qpc_csr",
    "rx_parser_csr",
    "dcqcn_csr",
    "uar_csr, 8 VFs",
    "uar_csr, 64 VFs",
    "uar_mlx5_csr",
    "uar_mlx5, 8 VFs x 1 page",
    "uar_mlx5, 64 VFs x 4 pages",
    "dcqcn_rp, 1024 flows",
    "dcqcn_rp, 65536 flows",
}

# RTL the committed rtl/ does not hold: the RX parser's data width is chosen at generation.
GEN_DIR = os.path.join(ROOT, "target", "bench-hw-rtl")
GENERATED = {
    f"w{w}": [
        ["csr", "register-maps/rx_parser.yaml", "register-maps/qpc.yaml"],
        ["rx-parser", "register-maps/rx_parser.yaml", "--qpc", "register-maps/qpc.yaml", "--width", str(w)],
    ]
    for w in (64, 1024)
}


def rtl_path(f):
    """A DESIGNS file: rtl/F, or a generated variant `wN/F` under target/bench-hw-rtl."""
    return os.path.join(GEN_DIR if "/" in f else os.path.join(ROOT, "rtl"), f)


def generate_variants(rdmagen, subs):
    """Writes the GENERATED directories and the peer RTL (`peer_dir`) named in `subs`."""
    if any(sub in PEER_DIRS for sub in subs):
        # Pinned versions, installed into .venv as `make bench-peers` does (quick when present).
        subprocess.run([os.path.join(ROOT, "scripts", "bench-peers.py"), "--install-only"], check=True)
    for sub in sorted(subs):
        out = os.path.join(GEN_DIR, sub)
        if sub in GENERATED:
            for cmd in GENERATED[sub]:
                subprocess.run([rdmagen] + cmd + ["-o", out], cwd=ROOT, check=True, capture_output=True)
        else:
            generate_peers(rdmagen, *PEER_DIRS[sub], out)


def generate_peers(rdmagen, style, vfs, out):
    """The three CSR blocks of one peer map, as scripts/bench-peers.py makes them (its `rtl`
    commands): PeakRDL reads the SystemRDL export, Corsair a regmap written from the JSON export."""
    venv = os.path.dirname(VENV_PYTHON)
    run = lambda cmd, cwd=ROOT: subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)
    subprocess.run(["rm", "-rf", out], check=True)
    os.makedirs(out)
    name = f"bench_{style}_{vfs}"
    yaml = os.path.join(out, f"{name}.yaml")
    with open(yaml, "w") as f:
        f.write(run([os.path.join(ROOT, "scripts", "gen-bench-map.py"), str(vfs), style]).stdout)
    inputs = os.path.join(out, "export")
    run([rdmagen, "rdl", yaml, "-o", inputs])
    run([rdmagen, "json", yaml, "-o", inputs])
    run([rdmagen, "csr", yaml, "-o", os.path.join(out, "rdmagen")])
    rdl = os.path.join(inputs, f"{name}.rdl")
    run([os.path.join(venv, "peakrdl"), "regblock", rdl, "-o", os.path.join(out, "peakrdl"), "--cpuif", "axi4-lite-flat"])
    corsair = os.path.join(out, "corsair")
    js = os.path.join(inputs, f"{name}.json")
    run([sys.executable, os.path.join(ROOT, "scripts", "corsair-from-json.py"), js, corsair, "--outputs", "rtl"])
    run([os.path.join(venv, "corsair"), "-c", "csrconfig"], cwd=corsair)


def row_command(label):
    return f"scripts/bench-hw.py --only '{label}'"


NETLIST_MAX_MB = 150
# The run that measured a row (date, machine load, jobs, Yosys): set by main().
RUN = ""
# The command that runs a Yosys script given as its last argument: set by main().
YOSYS = []
# --trace: print each row's deepest path cell by cell and write no report.
TRACE = False

LUT_TYPES = ("LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6")
MUXF_TYPES = ("MUXF7", "MUXF8", "MUXF9")
CARRY_TYPES = ("CARRY4", "CARRY8")
FF_TYPES = ("FDRE", "FDSE", "FDCE", "FDPE")


def stat_counts(text):
    """Cell type -> count from a Yosys `stat` report: `TYPE COUNT` rows (Yosys 0.23) or, from
    0.4x on, `COUNT TYPE` rows under the `N cells` total (above it, `N wires` and the like have
    the same shape, so only the rows after the total count). `$scopeinfo` marks hierarchy
    kept for debugging and is no logic."""
    counts = {}
    cells = re.search(r"^\s*\d+ cells\n((?:\s+\d+\s+\S+\n?)*)", text, re.M)
    rows = (
        [(t, n) for n, t in re.findall(r"^\s+(\d+)\s+(\S+)\s*$", cells.group(1), re.M)]
        if cells
        else re.findall(r"^\s+(\S+)\s+(\d+)\s*$", text, re.M)
    )
    for t, n in rows:
        if t != "$scopeinfo":
            counts[t] = counts.get(t, 0) + int(n)
    return counts


def bram36(counts):
    """Block RAM in RAMB36 equivalents (a RAMB18 is half of one)."""
    full = sum(v for k, v in counts.items() if k.startswith("RAMB36"))
    half = sum(v for k, v in counts.items() if k.startswith("RAMB18"))
    return full + half / 2


def lut_depth(netlist, top, trace=None):
    """Deepest path in LUT levels between sequential elements and ports, from a Yosys JSON
    netlist: LUT1-6 and LUT RAM reads count 1, MUXF7/8/9 and carry stages 0 (they are counted
    apart along the same path). Returns (LUT levels, MUXF, carry stages, driving signal).
    With a list as `trace`, appends the path's cells to it from start to end, each as
    (cell, type, the named net it drives, the named nets among its inputs)."""
    mod = netlist["modules"][top]
    _SEQ_NAMES.clear()
    names = {}
    for name, net in mod["netnames"].items():
        for b in net["bits"]:
            if isinstance(b, int) and (b not in names or name[0] != "$"):
                names[b] = name
    driver, inputs = {}, {}
    for cname, c in mod["cells"].items():
        t = c["type"]
        seq = t.startswith(("FD", "RAMB"))
        # LUT RAM and SRL cells read combinationally from their address pins only; what they
        # store (data, write enable, clock) ends a path, as at a flip-flop. Counting the write
        # side would also close loops (read data -> logic -> write data).
        lutram = t.startswith(("RAM", "SRL")) and not t.startswith("RAMB")
        if lutram:
            # Each output reads through its own address pins only: RAM32M's ADDRD (the write
            # address) reaches DOD but not DOA-DOC, a dual-port RAM's A reaches SPO but not
            # DPO. So each output is a cell of its own here (`cell:port`); one cell for all of
            # them would join every write address to every read port, paths that do not exist.
            conns = c["connections"]
            for port, bits in conns.items():
                if c["port_directions"].get(port) != "output":
                    continue
                pseudo = f"{cname}:{port}"
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = pseudo
                ins = [b for p in lutram_read_ports(port, conns) for b in conns[p] if isinstance(b, int)]
                inputs[pseudo] = (t, False, ins)
            continue
        ins = []
        for port, bits in c["connections"].items():
            d = c["port_directions"].get(port)
            if d == "output":
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = cname
            elif not seq and d == "input":
                ins.extend(b for b in bits if isinstance(b, int))
        inputs[cname] = (t, seq, ins)
    memo, expanded = {}, set()

    def start_name(bit, cell):
        """The name of a path's start: its net's, unless Yosys made that one up (as 0.70 does
        for block RAM outputs and some register outputs); then the register's other named
        output bits, or the RAM cell (`mem.0.5:RAMB36E2`, named after the memory)."""
        name = names.get(bit, str(bit))
        if not name.startswith("$") or cell is None:
            return name
        c = mod["cells"][cell]
        return seq_name(cell, c, names, "Q", mod)


    def weight(t):
        if t.startswith("LUT") or (t.startswith("RAM") and not t.startswith("RAMB")):
            return (1, 0, 0)
        if t.startswith("MUXF"):
            return (0, 1, 0)
        if t.startswith("CARRY"):
            return (0, 0, 1)
        return (0, 0, 0)

    def cell_depth(root):
        # Iterative post-order walk: carry chains are thousands of cells long.
        stack = [(root, False)]
        while stack:
            cname, done = stack.pop()
            if cname in memo:
                continue
            t, seq, ins = inputs[cname]
            if seq:
                memo[cname] = (0, 0, 0, cname)
                continue
            preds = [driver[b] for b in ins if b in driver]
            if not done:
                if cname in expanded:
                    # Reached again below itself: a combinational loop. Start the path here
                    # rather than walk it forever.
                    memo[cname] = (0, 0, 0, f"loop at {cname}")
                    continue
                expanded.add(cname)
                stack.append((cname, True))
                stack.extend((p, False) for p in preds if p not in memo)
                continue
            best = None
            for b in ins:
                p = driver.get(b)
                if p is None or inputs[p][1]:
                    cand = (0, 0, 0, start_name(b, p), None)
                else:
                    cand = memo.get(p, (0, 0, 0, None, None))[:4] + (p,)
                if best is None or cand[:3] > best[:3]:
                    best = cand
            best = best or (0, 0, 0, "constant", None)
            w = weight(t)
            # The last element is the cell the path comes from (None: it starts here).
            memo[cname] = (best[0] + w[0], best[1] + w[1], best[2] + w[2], best[3], best[4])
        return memo[root]

    deepest, end, last = (0, 0, 0, ""), "", None
    for cname, (t, seq, ins) in inputs.items():
        if seq:
            # A path ends at a sequential cell's inputs.
            for b in inputs_of_seq(mod["cells"][cname]):
                p = driver.get(b)
                if p is not None and not inputs[p][1]:
                    d = cell_depth(p)
                    if d[:3] > deepest[:3]:
                        deepest, end, last = d, end_name(cname, mod["cells"][cname], names, b, mod), p
    for cname, c in mod["cells"].items():
        t = c["type"]
        if not t.startswith(("RAM", "SRL")) or t.startswith("RAMB"):
            continue
        # What a LUT RAM or SRL stores (data, write enable, write address) ends a path, as at a
        # flip-flop; the read side goes on through its output's node (above).
        for port, bits in c["connections"].items():
            if c["port_directions"].get(port) != "input" or port in ("WCLK", "CLK"):
                continue
            for b in bits:
                p = driver.get(b) if isinstance(b, int) else None
                if p is not None and not inputs[p][1]:
                    d = cell_depth(p)
                    if d[:3] > deepest[:3]:
                        deepest, end, last = d, f"{cname}:{t} ({port})", p
    for name, port in mod["ports"].items():
        if port["direction"] == "output":
            for b in port["bits"]:
                p = driver.get(b) if isinstance(b, int) else None
                if p is not None and not inputs[p][1]:
                    d = cell_depth(p)
                    if d[:3] > deepest[:3]:
                        deepest, end, last = d, name, p
    if trace is not None:
        out_names = {}
        for b, n in names.items():
            if b in driver and not n.startswith("$"):
                out_names.setdefault(driver[b], n)
        cells = []
        while last is not None:
            cells.append(last)
            last = memo[last][4]
        for i, c in enumerate(reversed(cells)):
            named = sorted({names[b] for b in inputs[c][2] if not names.get(b, "$").startswith("$")})
            if i == 0:
                # Where the path starts: the first cell's inputs driven by sequential cells.
                named += sorted(
                    {start_name(b, driver[b]) for b in inputs[c][2] if b in driver and inputs[driver[b]][1]}
                )
            trace.append((c, inputs[c][0], out_names.get(c, ""), named))
    return deepest[0], deepest[1], deepest[2], f"{deepest[3]} -> {end}"


def lutram_read_ports(out, ports):
    """The input ports a LUT RAM or SRL cell's output `out` reads combinationally (what it
    stores, the data, write enable and clock, ends a path as at a flip-flop; counting it would
    also close loops, read data -> logic -> write data)."""
    if out.startswith("DO") and len(out) == 3:
        # RAM32M, RAM64M, RAM32M16, RAM64M8: DOx reads ADDRx.
        return [p for p in ports if p == "ADDR" + out[2]]
    if out == "DPO":
        return [p for p in ports if p.startswith("DPRA")]
    if out in ("SPO", "O", "Q"):
        # RAMxX1D's SPO, RAMxX1S's O, an SRL's Q: the address A (or A0, A1, ...).
        return [p for p in ports if p == "A" or (p[0] == "A" and p[1:].isdigit())]
    if out in ("Q15", "Q31", "MC31"):
        # An SRL's cascade output: its last stage, a register.
        return []
    # A cell not listed above: every address pin.
    return [p for p in ports if p.startswith(("ADDR", "A", "DPRA"))]


def end_name(cname, cell, names, bit, mod):
    """The name of a path's end at a sequential cell's input `bit`: its net's, unless Yosys
    made that one up (`$abc$...`, as 0.70 leaves the D nets), then the register's output, or
    for a block RAM its cell and the port (`wqe_mem.0.5:RAMB36E2 (ADDRARDADDR)`)."""
    name = names.get(bit, str(bit))
    if not name.startswith("$"):
        return name
    port = next((p for p, bits in cell["connections"].items() if bit in bits), "?")
    got = seq_name(cname, cell, names, port, mod)
    # Named with its pin already (`x_q (CE)`, `x (registered, D)`) unless a cell name.
    return got if got.endswith(f"{port})") else f"{got} ({port})"


_SEQ_NAMES = {}


def seq_name(cname, cell, names, port, mod):
    # Keyed by the netlist's id: `lut_depth` empties the cache first, so a later netlist that
    # Python puts at a freed one's address never sees the freed one's names.
    # (Rows run on threads: another row may empty it between two lookups here.)
    key = (id(mod), cname, port)
    name = _SEQ_NAMES.get(key)
    if name is None:
        name = _seq_name(cname, cell, names, port, mod)
        _SEQ_NAMES[key] = name
    return name


def _seq_name(cname, cell, names, port, mod):
    """A sequential cell by what it holds: a register by the named nets on its outputs (`x_q`;
    at an input, with the pin: `x_q (D)`, `x_q (CE)`), a RAM by its cell name (Yosys names RAM cells after the
    memory), a register Yosys made for a LUT RAM's read address by that RAM
    (`pend_mem.1.0 address`), else the cell name with its type."""
    if not cell["type"].startswith("RAMB"):
        for p, bits in cell["connections"].items():
            if cell["port_directions"].get(p) == "output":
                q = next((names[b] for b in bits if isinstance(b, int) and not names.get(b, "$").startswith("$")), None)
                if q:
                    return q if port == "Q" else f"{q} ({port})"
        # A register Yosys moved into a LUT RAM's read port (a registered address), and back
        # out when mapping the RAM: named after the RAM it addresses.
        q = set(b for b in cell["connections"].get("Q", []) if isinstance(b, int))
        rams = sorted(
            {
                n
                for n, c in mod["cells"].items()
                if c["type"].startswith(("RAM", "SRL")) and not c["type"].startswith("RAMB")
                and any(q & set(bs) for p, bs in c["connections"].items() if p.startswith(("ADDR", "A", "DPRA")))
            }
        )
        if rams:
            what = f"{rams[0]} address" + (f" (+{len(rams) - 1} RAMs)" if len(rams) > 1 else "")
            return what if port == "Q" else f"{what} ({port})"
        # A register Yosys made (e.g. a block RAM's registered address bit for its output
        # mux): the named net it samples.
        d = next((names[b] for b in cell["connections"].get("D", []) if not names.get(b, "$").startswith("$")), None)
        if d:
            return f"{d} (registered)" if port == "Q" else f"{d} (registered, {port})"
        # The same register when the address it samples is an unnamed net (ABC duplicated the
        # logic in front of it): named after the block RAMs whose outputs it selects between,
        # the LUTs it feeds also reading their data pins (`mem output select (registered)`).
        q = set(b for b in cell["connections"].get("Q", []) if isinstance(b, int))
        ram_out = _ram_outputs(mod)
        brams = set()
        for c in mod["cells"].values():
            ins = c["connections"].values()
            if c["type"].startswith("LUT") and any(q & set(bs) for bs in ins):
                brams.update(ram_out[b] for bs in ins for b in bs if b in ram_out)
        if brams:
            what = f"{sorted(brams)[0]} output select" + (
                f" (+{len(brams) - 1} memories)" if len(brams) > 1 else ""
            )
            return f"{what} (registered)" if port == "Q" else f"{what} (registered, {port})"
    return f"{cname}:{cell['type']}"


def _ram_outputs(mod):
    """Net -> memory of every block RAM output pin (the cell's name without its `.row.column`;
    flattened names keep their dots: `u_rp.state_mem`)."""
    table = {}
    for n, c in mod["cells"].items():
        if c["type"].startswith("RAMB"):
            parts = n.rsplit(".", 2)
            name = parts[0] if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit() else n
            for p, bs in c["connections"].items():
                if c["port_directions"].get(p) == "output":
                    for b in bs:
                        if isinstance(b, int):
                            table[b] = name
    return table


def inputs_of_seq(cell):
    return [
        b
        for port, bits in cell["connections"].items()
        if cell["port_directions"].get(port) == "input"
        for b in bits
        if isinstance(b, int)
    ]


def generic_flow(top, files):
    """Generic synthesis; blocks with RAM arrays keep them as memory cells (as
    scripts/check-rtl.sh does): mapping a 16384-word context RAM to flip-flops measures
    nothing and takes hours."""
    has_ram = any(
        re.search(r"\]\s+\w+\s*\[0:", open(rtl_path(f)).read()) for f in files
    )
    if has_ram:
        return f"synth -top {top} -flatten -run begin:fine; opt -fast -full; techmap; opt -fast; abc; opt -fast; clean"
    return f"synth -top {top} -flatten"


def row_script(top, files, params, stat_xc, netlist, stat_gen):
    """One Yosys script doing both flows. The generic flow reads the sources again after
    `design -reset`: keeping the parsed design with `design -save`/`design -load` instead
    changes the internal names Yosys numbers its cells with, hence the order ABC sees them in,
    and moved the counts by a few cells (dcqcn_csr: 1018 -> 1015 LUTs, 2891 -> 2898 generic
    cells) for no time worth having (parsing takes well under a second)."""
    paths = " ".join(rtl_path(f) for f in files)
    # SystemVerilog (PeakRDL-regblock's peer rows) through the slang frontend.
    read = "read_slang" if any(f.endswith(".sv") for f in files) else "read_verilog"
    chparam = ""
    if params:
        sets = " ".join(f"-set {k} {v}" for k, v in params.items())
        chparam = f"chparam {sets} {top}; "
    return (
        f"{read} {paths}; {chparam}"
        f"synth_xilinx -family xcup -top {top} -flatten -noiopad; "
        f"tee -q -o {stat_xc} stat; "
        f"write_json {netlist}; "
        "design -reset; "
        f"{read} {paths}; {chparam}"
        f"{generic_flow(top, files)}; "
        f"tee -q -o {stat_gen} stat"
    )


def run_one(label, top, files, params):
    with tempfile.TemporaryDirectory() as tmp:
        out = {k: os.path.join(tmp, k + ".txt") for k in ("stat", "gen", "time")}
        netlist_path = os.path.join(tmp, "netlist.json")
        script = row_script(top, files, params, out["stat"], netlist_path, out["gen"])
        t0 = time.time()
        # CPU time (user + system) from /usr/bin/time: steadier than wall time on a shared machine.
        proc = subprocess.run(
            ["/usr/bin/time", "-f", "%U %S", "-o", out["time"], *YOSYS, script],
            capture_output=True,
            text=True,
        )
        secs = time.time() - t0
        if proc.returncode != 0:
            return {"label": label, "error": (proc.stderr or proc.stdout).strip()[-400:]}
        read = lambda k: open(out[k]).read()
        # ABC9's delay target for the mapping (its `Del =` lines, in ps, in the synth_xilinx part
        # of the log; area recovery keeps it): the critical path in ABC's UltraScale+ model.
        xc_log = proc.stdout.split("Executing SYNTH_XILINX pass", 1)[-1].split("Executing SYNTH pass", 1)[0]
        delays = [float(d) for d in re.findall(r"Del =\s*([0-9]+(?:\.[0-9]+)?)", xc_log)]
        xc = stat_counts(read("stat"))
        gen = stat_counts(read("gen"))
        # The path search holds the whole netlist in Python objects (about 50x its JSON size):
        # past NETLIST_MAX_MB the row says so instead of exhausting the machine's memory.
        mb = os.path.getsize(netlist_path) / 2**20
        if mb > NETLIST_MAX_MB:
            lut_levels = muxf_levels = carry_stages = None
            path = f"not searched: netlist {mb:.0f} MB > {NETLIST_MAX_MB} MB"
        else:
            trace = [] if TRACE else None
            with open(netlist_path) as f:
                lut_levels, muxf_levels, carry_stages, path = lut_depth(json.load(f), top, trace)
            if trace is not None:
                lines = [f"{label}: {lut_levels} LUT levels, {path}"]
                lines += [f"  {t:6} {n or '-':24} <- {' '.join(i)}  [{c}]" for c, t, n, i in trace]
                print("\n".join(lines), flush=True)
        return {
            "label": label,
            "top": top,
            "params": params,
            "luts": sum(xc.get(t, 0) for t in LUT_TYPES),
            "ffs": sum(xc.get(t, 0) for t in FF_TYPES),
            "lutram": sum(v for k, v in xc.items() if k.startswith("RAM") and not k.startswith("RAMB")),
            "bram36": bram36(xc),
            "carry": sum(xc.get(t, 0) for t in CARRY_TYPES),
            "lut_levels": lut_levels,
            "muxf_levels": muxf_levels,
            "carry_stages": carry_stages,
            "path": path,
            "abc_delay_ps": round(max(delays)) if delays else None,
            "generic_cells": gen.get("Number of cells:", None) or sum(
                v for k, v in gen.items() if k.startswith("$")
            ),
            "yosys_s": round(secs, 1),
            "yosys_cpu_s": round(sum(float(v) for v in read("time").split()[-2:]), 1),
            "run": RUN,
        }


def write_md(version, rows, last_run):
    cpu = ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    md = [
        "# Hardware benchmarks",
        "",
        "Written by `make bench-hw` (`scripts/bench-hw.py`); rerun it to refresh. Every row maps the",
        "committed RTL of `rtl/` (the RX parser at 64 and 1024 bits: generated by the script into",
        "`target/bench-hw-rtl/`) with the parameters shown, both flows in one Yosys process (the",
        f"YosysHQ `pyosys` {PYOSYS_VERSION} wheel from PyPI, which the script installs into `.venv`, runs the script",
        "through libyosys; `--yosys system` runs the `yosys` on PATH the same way):",
        "",
        "```sh",
        "yosys -p 'read_verilog FILES; chparam -set P V TOP; synth_xilinx -family xcup -top TOP -flatten -noiopad; stat; write_json N.json;",
        "          design -reset; read_verilog FILES; chparam -set P V TOP; synth -top TOP -flatten; stat'   # RAM blocks: memories kept, as scripts/check-rtl.sh",
        "```",
        "",
        "*yosys s*: wall / CPU (user + system) seconds of that process; rows run in parallel, longest",
        "first. *measured*: the run that produced the row (`--only` reruns some rows and keeps the",
        "others). `make bench` leaves out the rows that repeat logic other rows map (EXTRA in the",
        "script: the block maps' CSR blocks, the mlx5-layout UAR, `dcqcn_rp` without its CSR) and",
        f"keeps their last figures; `scripts/bench-hw.py --all` measures every row. {last_run}",
        "",
        f"This run: {version}; each row's *measured* names the Yosys that mapped it. Machine:",
        f"{os.cpu_count()} CPUs, {cpu}. *LUT levels*: LUTs on the deepest",
        "combinational path between flip-flops, block RAMs and ports (computed from the mapped",
        "netlist by the script); MUXF7/8/9 and CARRY4/8 stages on that path are listed apart.",
        "BRAM counts RAMB36 equivalents. Target (issue 9): at most 6 LUT levels on every path.",
        "*ABC delay*: the delay ABC9 mapped the block for (its `Del` in the log, which area recovery",
        "keeps): the slowest path in ABC's UltraScale+ model (each LUT input pin 127-642 ps plus 300 ps",
        "of wire, carry and MUXF cells by their specify delays; DSP and block RAM ports start and end",
        "paths). Area recovery may lay shallow logic out as a longer chain of LUTs on fast pins while it",
        "stays under that delay, so LUT levels follow the slowest paths (docs/BENCHMARKS.notes.md,",
        "branch s32-dcqcn); `–`: a row measured before the column existed.",
        "",
        "| block | LUTs | FFs | LUT RAM | BRAM36 | carry cells | deepest path: LUT levels (+ MUXF, carry on it) | ABC delay ps | from -> to | generic `synth` cells | yosys s | measured | command |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            md.append(f"| {r['label']} | failed | | | | | | | | | | {RUN} | `{row_command(r['label'])}` |")
            continue
        if r["lut_levels"] is None:
            depth = "–"
        else:
            flag = "" if r["lut_levels"] + r["muxf_levels"] <= 6 else " **over 6**"
            depth = f"{r['lut_levels']} + {r['muxf_levels']} MUXF + {r['carry_stages']} carry{flag}"
        secs = f"{r['yosys_s']:g} / {r['yosys_cpu_s']:g}" if "yosys_cpu_s" in r else f"{r['yosys_s']:g} / –"
        run = r.get("run", "an earlier run (not recorded)")
        if "Yosys" not in run:
            # Runs before 30181af recorded no version: they all ran Debian's yosys.
            run += ", Yosys 0.23 (Debian)"
        md.append(
            f"| {r['label']} | {r['luts']} | {r['ffs']} | {r['lutram']} | {r['bram36']:g} | {r['carry']} "
            f"| {depth} | {r.get('abc_delay_ps') or '–'} "
            f"| `{r['path']}` | {r['generic_cells']} | {secs} | {run} "
            f"| `{row_command(r['label'])}` |"
        )
    md += peer_table(rows)
    with open(os.path.join(ROOT, "docs", "BENCHMARKS.hw.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return md


def peer_table(rows):
    """The peer rows side by side, each as a ratio to rdmagen's block for the same map."""
    by_label = {r["label"]: r for r in rows if "error" not in r}
    md = [
        "",
        "## The CSR block next to PeakRDL-regblock and Corsair",
        "",
        "The rows `CSR, ... map` above, side by side. Each tool's CSR block for the same map, from the",
        "input `make bench-peers` gives it (PeakRDL-regblock 1.3.1 reads our SystemRDL export,",
        "`--cpuif axi4-lite-flat`; Corsair 1.0.4 a regmap written from our JSON export by",
        "`scripts/corsair-from-json.py`, `interface = axil`), all three with an AXI4-Lite slave port,",
        "mapped by the same Yosys script as every row (PeakRDL's SystemVerilog read with `read_slang`",
        "instead of `read_verilog`). Maps: `scripts/gen-bench-map.py 16 flat` (every access type,",
        "hardware counters, read-set, write-0-clear, interrupt pairs; Corsair has no counters, read-set or",
        "write-0-clear fields, so it is not run on it) and `scripts/gen-bench-map.py 16 common` (the",
        "fields all three implement alike: the counters' values come from hardware, no read-set,",
        "write-0-clear or interrupt pairs). Ratios: the tool's figure over rdmagen's (below 1: smaller",
        "than rdmagen's).",
        "",
        "| map | tool | LUTs | FFs | carry cells | LUT levels | ABC delay ps | generic cells | LUTs / rdmagen | FFs / rdmagen | generic cells / rdmagen |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for style, vfs, tools in PEER_MAPS:
        ours = by_label.get(peer_label(style, vfs, "rdmagen"))
        for tool in tools:
            r = by_label.get(peer_label(style, vfs, tool))
            if r is None:
                md.append(f"| `{style}`, {vfs * 16 + 1} registers | {tool} | not measured | | | | | | | | |")
                continue
            ratio = lambda k: f"{r[k] / ours[k]:.2f}" if ours and ours[k] else "–"
            levels = "–" if r["lut_levels"] is None else f"{r['lut_levels']} + {r['muxf_levels']} MUXF"
            md.append(
                f"| `{style}`, {vfs * 16 + 1} registers | {tool} | {r['luts']} | {r['ffs']} | {r['carry']} | {levels} "
                f"| {r.get('abc_delay_ps') or '–'} | {r['generic_cells']} | {ratio('luts')} | {ratio('ffs')} | {ratio('generic_cells')} |"
            )
    return md


def render_only():
    """Rewrites the Markdown table from the JSON, e.g. after rows measured on two branches were
    merged; every row keeps the run that measured it."""
    json_path = os.path.join(ROOT, "docs", "BENCHMARKS.hw.json")
    with open(json_path) as f:
        report = json.load(f)
    write_md(report["yosys"], report["rows"], "Rows merged from several runs; each row's *measured* column names its run.")


def pyosys_version():
    """The pyosys wheel's Yosys version, installing PYOSYS_VERSION into .venv first if needed."""
    if not os.path.exists(VENV_PYTHON):
        sys.exit("bench-hw: no .venv; run scripts/setup.sh (or pass --yosys system)")
    ask = [VENV_PYTHON, "-c", "from pyosys import libyosys as ys; print(ys.yosys_maybe_version())"]
    got = subprocess.run(ask, capture_output=True, text=True)
    if got.returncode != 0 or not got.stdout.startswith(f"Yosys {PYOSYS_VERSION} "):
        pip = [VENV_PYTHON, "-m", "pip", "install", "-q", f"pyosys=={PYOSYS_VERSION}"]
        subprocess.run(pip, check=True)
        got = subprocess.run(ask, capture_output=True, text=True, check=True)
    return got.stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="rows whose label contains this text")
    ap.add_argument("--all", action="store_true", help="also the rows of EXTRA")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--yosys", choices=("pyosys", "system"), default="pyosys",
                    help="the pyosys wheel in .venv (default) or the yosys on PATH")
    ap.add_argument("--trace", action="store_true",
                    help="print each row's deepest path cell by cell; write no report")
    ap.add_argument("--render", action="store_true",
                    help="only rewrite BENCHMARKS.hw.md from BENCHMARKS.hw.json (rows merged by hand)")
    args = ap.parse_args()
    if args.render:
        render_only()
        return
    exact = [d for d in DESIGNS if d[0] == args.only]
    designs = exact or [
        d for d in DESIGNS if args.only in d[0] and (args.all or args.only or d[0] not in EXTRA)
    ]
    rdmagen = os.path.join(ROOT, "target", "release", "rdmagen")
    subs = {f.split("/")[0] for d in designs for f in d[2] if "/" in f}
    if subs:
        # Built here so the variants come from the checked-out generator, not an older binary.
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "rdmagen"], cwd=ROOT, check=True)
        generate_variants(rdmagen, subs)
    missing = [f for d in designs for f in d[2] if not os.path.exists(rtl_path(f))]
    if missing:
        sys.exit(f"bench-hw: missing RTL {missing}; run `make rtl`")
    global YOSYS, TRACE
    TRACE = args.trace
    if args.yosys == "system":
        YOSYS = ["yosys", "-q", "-p"]
        version = subprocess.run(["yosys", "-V"], capture_output=True, text=True).stdout.strip()
    else:
        version = pyosys_version()
        YOSYS = [VENV_PYTHON, "-c", PYOSYS_DRIVER]
    json_path = os.path.join(ROOT, "docs", "BENCHMARKS.hw.json")
    last = {}
    if os.path.exists(json_path):
        with open(json_path) as f:
            last = {r["label"]: r for r in json.load(f)["rows"] if "error" not in r}
    # Longest rows first (by the last run's Yosys time), so that the jobs finish together
    # instead of the biggest row starting last and running alone.
    cost = lambda d: last.get(d[0], {}).get("yosys_cpu_s") or last.get(d[0], {}).get("yosys_s") or 1e9
    global RUN
    RUN = (
        f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load "
        f"{' '.join(open('/proc/loadavg').read().split()[:3])}, {args.jobs} jobs, {' '.join(version.split()[:2])}"
    )
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        fresh = {r["label"]: r for r in pool.map(lambda d: run_one(*d), sorted(designs, key=cost, reverse=True))}
    wall = time.time() - t0
    failed = [r for r in fresh.values() if "error" in r]
    if TRACE:
        for r in fresh.values():
            if "error" in r:
                print(f"FAIL {r['label']}: {r['error']}", file=sys.stderr)
            else:
                print(f"{r['label']}: {r['luts']} LUTs, {r['ffs']} FFs, {r['lut_levels']} levels")
        sys.exit(1 if failed else 0)
    # A partial run (--only) replaces its rows in the last report and keeps the others, each
    # with the run (date, load) that measured it.
    kept = last if len(designs) < len(DESIGNS) else {}
    rows = [fresh.get(d[0]) or kept.get(d[0]) for d in DESIGNS]
    rows = [r for r in rows if r is not None]
    for r in failed:
        print(f"FAIL {r['label']}: {r['error']}", file=sys.stderr)
    # A partial run keeps other runs' rows: the header says so (their runs are in the rows).
    run_line = f"Last run: {len(fresh)} rows in {wall:.0f} s wall ({RUN})."
    if any(r["label"] not in fresh for r in rows):
        run_line = ("Rows merged from several runs; each row's *measured* column names its run. "
                    + run_line)
    md = write_md(version, rows, run_line)
    with open(json_path, "w") as f:
        json.dump({"yosys": version, "rows": rows}, f, indent=1)
        f.write("\n")
    print("\n".join(md))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
