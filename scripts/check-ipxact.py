#!/usr/bin/env python3
"""Imports every IP-XACT export with PeakRDL-ipxact into systemrdl-compiler and compares the
result with the JSON export of the same map, as scripts/check-rdl.py does for the SystemRDL
export: register paths, absolute addresses (every array element up to the maximum count),
field bit ranges, reset values, software access, read/write side effects and `volatile` (on
fields software can write). A wrong export fails. It also checks that the importer kept every
enumeration's values.

Usage: scripts/check-ipxact.py export/*.xml   (export/<block>.json must sit beside each .xml)
Prints one `ok`/`FAIL` line per file and a closing `ipxact: N passed, N failed` line; exits 1
on any failure.
"""
import importlib.util
import sys
from pathlib import Path

from peakrdl_ipxact import IPXACTImporter
from systemrdl.node import FieldNode, RegNode

# The expected model and the comparison are check-rdl.py's: both exports carry the same CSRs.
_spec = importlib.util.spec_from_file_location("check_rdl", Path(__file__).with_name("check-rdl.py"))
check_rdl = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_rdl)


# What IP-XACT carries of a field: check_rdl's first six (bits, reset, sw, onwrite, onread) and
# `volatile` (the hardware changes the value), which the importer turns into hw = rw on a field
# software can write (on a read-only one it always says hw = w, so it is not compared there).
# The rest of check_rdl's tuple (pulses, precedence, interrupts, hwset/hwclr) has no IP-XACT
# element.
check_rdl.FIELD = "(msb, lsb, reset, sw, onwrite, onread, volatile)"


def expected(model):
    """check_rdl.expected cut to IP-XACT's share. On a field software writes, check_rdl's
    `precedence` is "hw" exactly when the hardware changes it, which is IP-XACT's `volatile`."""
    return {
        path: (addr, {name: t[:6] + (None if t[3] == "r" else t[9] == "hw",) for name, t in fields.items()})
        for path, (addr, fields) in check_rdl.expected(model).items()
    }


def actual(root, block):
    """check_rdl.actual's first six, with the importer's `<component>__<memoryMap>.<addressBlock>`
    prefix replaced by the block's name, and `volatile` read back from hw."""
    hw = {}
    for node in root.descendants(unroll=True):
        if isinstance(node, RegNode):
            for f in node.fields():
                hw[(node.get_path(), f.inst_name)] = f.get_property("hw").name
    regs = {}
    for path, (addr, fields) in check_rdl.actual(root).items():
        parts = path.split(".")
        regs[".".join([block] + parts[2:])] = (
            addr,
            {
                name: t[:6] + (None if t[3] == "r" else hw[(path, name)] == "rw",)
                for name, t in fields.items()
            },
        )
    return regs


def enums(root):
    """{(register, field): {name: value}} of every field with an encoding."""
    out = {}
    for node in root.descendants(unroll=False):
        if isinstance(node, FieldNode):
            enc = node.get_property("encode")
            if enc is not None:
                out[(node.parent.inst_name, node.inst_name)] = {m.name: m.value for m in enc}
    return out


def expected_enums(model):
    by_name = {e["name"]: {v["name"]: v["value"] for v in e["values"]} for e in model["enums"]}
    out = {}

    def fields(reg):
        for f in reg["fields"]:
            if f.get("enum"):
                width = f["msb"] - f["lsb"] + 1
                out[(reg["name"], f["name"])] = {k: v for k, v in by_name[f["enum"]].items() if v >> width == 0}

    for item in model["items"]:
        for reg in [item] if item["kind"] == "register" else item["registers"]:
            fields(reg)
    return out


def main(paths):
    def compare_one(model, root):
        want = expected(model)
        problems = check_rdl.compare(want, actual(root, model["block"]))
        want_enums, got_enums = expected_enums(model), enums(root)
        for name in sorted(set(want_enums) | set(got_enums)):
            if want_enums.get(name) != got_enums.get(name):
                problems.append(
                    f"field {name}: enumeration {got_enums.get(name)}, expected {want_enums.get(name)}"
                )
        nfields = sum(len(f) for _, f in want.values())
        return (
            problems,
            f"PeakRDL-ipxact imported; {len(want)} registers, {nfields} fields, "
            f"{len(want_enums)} encodings",
        )

    return check_rdl.check_files(
        paths,
        "ipxact",
        "PeakRDL-ipxact",
        lambda path, compiler: IPXACTImporter(compiler).import_file(str(path)),
        compare_one,
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
