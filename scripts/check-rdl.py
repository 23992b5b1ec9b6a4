#!/usr/bin/env python3
"""Compiles and elaborates every SystemRDL export with systemrdl-compiler and compares it with
the JSON export of the same map: register paths, absolute addresses (every array element up to
the maximum count), field bit ranges, reset values, software access and read/write side
effects, pulses (1-bit `wp` singlepulse; wider `wp` swmod plus the `rdmagen_pulse` property),
read strobes (PeakRDL's `rd_swacc` property),
precedence (hw when both software and hardware change the field), interrupt fields (sticky
unless hardware loads them with `hw_write`), hwset/hwclr (per bit on a wider field: the
`rdmagen_bitwise` property). A wrong export fails.

Usage: scripts/check-rdl.py export/*.rdl   (export/<block>.json must sit beside each .rdl)
Prints one `ok`/`FAIL` line per file and a closing `systemrdl: N passed, N failed` line; exits 1
on any failure.
"""
import json
import sys
from pathlib import Path

from systemrdl import RDLCompileError, RDLCompiler
from systemrdl.node import RegNode

# Our access type -> (sw, onwrite, onread) as systemrdl-compiler reports them.
ACCESS = {
    "rw": ("rw", None, None),
    "ro": ("r", None, None),
    "wo": ("w", None, None),
    "w1c": ("rw", "woclr", None),
    "w1s": ("rw", "woset", None),
    "w0c": ("rw", "wzc", None),
    "rc": ("r", None, "rclr"),
    "rs": ("r", None, "rset"),
    "wp": ("w", None, None),
}


FIELD = (
    "(msb, lsb, reset, sw, onwrite, onread, singlepulse, swmod, rdmagen_pulse, precedence, intr,"
    " hwset, hwclr, rdmagen_bitwise, hw, rd_swacc)"
)


def behaviour(f, interrupt):
    """(singlepulse, swmod, rdmagen_pulse, precedence, intr, hwset, hwclr, rdmagen_bitwise, hw,
    rd_swacc)
    of a field of the JSON export; intr is None outside interrupt registers, else "sticky" or
    "nonsticky"; rdmagen_bitwise marks a wider field's per-bit hwset/hwclr; hw is "na" for a
    constant, "w" for a hardware-driven `ro` field, "rw" with hw_write, else "r"; without the
    `_o` output (`hw_read: false`) "w" with hw_write, else "na"; rd_swacc (PeakRDL's read
    strobe property) for `read_strobe`."""
    wp = f["access"] == "wp"
    wide = f["msb"] > f["lsb"]
    hw = f["hw"]
    hw_any = hw["write"] or hw["set"] or hw["clear"] or hw["counter"] is not None
    # Software changes every field but `ro`'s (no write, no read side effect).
    precedence = "hw" if hw_any and f["access"] != "ro" else "sw"
    intr = None
    # SystemRDL forbids intr on a counter: the export leaves it out there.
    if interrupt and hw["counter"] is None:
        intr = "nonsticky" if hw["write"] else "sticky"
    bitwise = True if wide and (hw["set"] or hw["clear"]) else None
    if f.get("constant", False):
        hw_access = "na"
    elif f["access"] == "ro" and not hw_any:
        hw_access = "w"
    elif hw.get("read", True):
        hw_access = "rw" if hw["write"] else "r"
    else:
        # `hw_read: false`: no `_o` output, so hardware only writes it, or has no access.
        hw_access = "w" if hw["write"] else "na"
    return (
        wp and not wide,
        (wp and wide) or hw.get("write_strobe", False),
        True if wp and wide else None,
        precedence,
        intr,
        hw["set"],
        hw["clear"],
        bitwise,
        hw_access,
        True if hw.get("read_strobe", False) else None,
    )


def expected(model):
    """{register path: (address, {field: FIELD})}"""
    regs = {}
    block = model["block"]

    def fields(reg):
        interrupt = reg.get("interrupt_enable") is not None
        return {
            f["name"]: (f["msb"], f["lsb"], f["reset"])
            + ACCESS[f["access"]]
            + behaviour(f, interrupt)
            for f in reg["fields"]
        }

    for item in model["items"]:
        if item["kind"] == "register":
            regs[f"{block}.{item['name']}"] = (item["offset"], fields(item))
        else:
            for i in range(item["max_count"]):
                base = item["offset"] + i * item["stride"]
                for reg in item["registers"]:
                    path = f"{block}.{item['name']}[{i}].{reg['name']}"
                    regs[path] = (base + reg["offset"], fields(reg))
    return regs


def enum_name(value):
    return None if value is None else value.name


def actual(root):
    regs = {}
    for node in root.descendants(unroll=True):
        if not isinstance(node, RegNode):
            continue
        fields = {}
        for f in node.fields():
            fields[f.inst_name] = (
                f.msb,
                f.lsb,
                f.get_property("reset"),
                enum_name(f.get_property("sw")),
                enum_name(f.get_property("onwrite")),
                enum_name(f.get_property("onread")),
                f.get_property("singlepulse"),
                f.get_property("swmod"),
                f.get_property("rdmagen_pulse", default=None),
                enum_name(f.get_property("precedence")),
                ("sticky" if f.get_property("stickybit") else "nonsticky")
                if f.get_property("intr")
                else None,
                f.get_property("hwset"),
                f.get_property("hwclr"),
                f.get_property("rdmagen_bitwise", default=None),
                enum_name(f.get_property("hw")),
                f.get_property("rd_swacc", default=None),
            )
        regs[node.get_path()] = (node.absolute_address, fields)
    return regs


def compare(want, got):
    problems = []
    for path in sorted(set(want) | set(got)):
        if path not in got:
            problems.append(f"{path}: missing from the SystemRDL export")
        elif path not in want:
            problems.append(f"{path}: not in the JSON export")
        elif want[path] != got[path]:
            (wa, wf), (ga, gf) = want[path], got[path]
            if wa != ga:
                problems.append(f"{path}: address {ga:#x}, expected {wa:#x}")
            for name in sorted(set(wf) | set(gf)):
                if wf.get(name) != gf.get(name):
                    problems.append(
                        f"{path}.{name}: {FIELD} = "
                        f"{gf.get(name)}, expected {wf.get(name)}"
                    )
    return problems


def check_files(paths, tool, what, load, compare_one):
    """Checks each export in `paths` against the JSON export beside it and prints one line per
    file and a closing `<tool>: N passed, N failed` line; returns the exit status.

    load(path, compiler) reads the export into the compiler (RDLCompileError when it is
    refused); compare_one(model, root) returns (problems, summary of what matched)."""
    passed = failed = 0
    for path in paths:
        path = Path(path)
        model = json.loads(path.with_suffix(".json").read_text())
        compiler = RDLCompiler()
        try:
            load(path, compiler)
            root = compiler.elaborate().top
        except RDLCompileError:
            print(f"FAIL {path}: {what} rejected it (messages above)")
            failed += 1
            continue
        problems, matched = compare_one(model, root)
        if problems:
            print(f"FAIL {path}: {len(problems)} differences from {path.with_suffix('.json')}")
            for p in problems[:20]:
                print(f"    {p}")
            failed += 1
        else:
            print(f"ok   {path} ({matched} match the JSON export)")
            passed += 1
    print(f"{tool}: {passed} passed, {failed} failed")
    return 1 if failed or not paths else 0


def main(paths):
    def compare_one(model, root):
        want = expected(model)
        nfields = sum(len(f) for _, f in want.values())
        return (
            compare(want, actual(root)),
            f"systemrdl-compiler elaborated; {len(want)} registers, {nfields} fields",
        )

    return check_files(
        paths,
        "systemrdl",
        "systemrdl-compiler",
        lambda path, compiler: compiler.compile_file(str(path)),
        compare_one,
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
