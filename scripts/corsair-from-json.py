#!/usr/bin/env python3
"""Writes a Corsair 1.x register map (regs.yaml + csrconfig) equivalent to one of our JSON
exports (`rdmagen json`), for the generator comparison in `make bench` (scripts/bench-peers.sh).

Equivalent means the same registers at the same addresses with the same fields and the nearest
Corsair access mode; Corsair has no counters, read-set or write-0-clear fields, so those become
the nearest plain mode (noted per mode below). Arrays are written out flat with their parameter
defaults, as Corsair has no arrays.

Usage: scripts/corsair-from-json.py EXPORT.json OUTDIR [--outputs rtl|all]
"""

import json
import os
import sys

# our access -> (Corsair access, hardware options)
ACCESS = {
    "rw": ("rw", "o"),
    "ro": ("ro", "i"),
    "rc": ("roc", "i"),  # clear-on-read; our counters count in hardware, Corsair's only load
    "rs": ("ro", "i"),  # no read-set in Corsair
    "w1c": ("rw1c", "s"),
    "w1s": ("rw1s", "o"),
    "w0c": ("rw", "o"),  # no write-0-clear in Corsair
    "wo": ("wo", "o"),
    "wp": ("wosc", "o"),
}


def flatten(items, params, base=0, suffix=""):
    """Registers with absolute offsets; groups expanded with their count."""
    for it in items:
        if it["kind"] == "register":
            yield base + it["offset"], it["name"] + suffix, it
        else:
            count = it["count"]
            if isinstance(count, dict):
                count = params[count["parameter"]]
            for i in range(count):
                regs = [dict(r, kind="register") for r in it["registers"]]
                yield from flatten(
                    regs, params, base + it["offset"] + i * it["stride"], f"_{it['name']}{i}{suffix}"
                )


def main():
    src, out = sys.argv[1], sys.argv[2]
    outputs = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--outputs" else "rtl"
    d = json.load(open(src))
    params = {p["name"]: p["default"] for p in d.get("parameters", [])}
    regs = []
    for addr, name, r in flatten(d["items"], params):
        # A 64-bit register becomes two 32-bit ones (Corsair registers are one bus word).
        for word in range(r["width"] // 32):
            lo, hi = 32 * word, 32 * word + 31
            bfs = []
            for f in r["fields"]:
                if f["msb"] < lo or f["lsb"] > hi:
                    continue
                access, hw = ACCESS[f["access"]]
                if f["hw"]["write"] and access in ("rw", "ro"):
                    hw = "ioe" if access == "rw" else "ie"
                msb, lsb = min(f["msb"], hi), max(f["lsb"], lo)
                part = "" if (msb, lsb) == (f["msb"], f["lsb"]) else f"_{lsb}"
                bfs.append(
                    {
                        "name": f["name"] + part,
                        "description": "",
                        "reset": ((f["reset"] or 0) >> (lsb - f["lsb"])) & ((1 << (msb - lsb + 1)) - 1),
                        "width": msb - lsb + 1,
                        "lsb": lsb - lo,
                        "access": access,
                        "hardware": hw,
                        "enums": [],
                    }
                )
            suffix = f"_w{word}" if r["width"] > 32 else ""
            regs.append({"name": name + suffix, "description": "", "address": addr + 4 * word, "bitfields": bfs})
    os.makedirs(out, exist_ok=True)
    # JSON is YAML; Corsair reads either by extension.
    with open(os.path.join(out, "regs.json"), "w") as f:
        json.dump({"regmap": regs}, f)
    cfg = [
        "[globcfg]",
        "base_address = 0",
        "data_width = 32",
        f"address_width = {d['address_width']}",
        "register_reset = sync_pos",
        "address_increment = none",
        "address_alignment = data_width",
        "force_name_case = none",
        "regmap_path = regs.json",
        "",
        "[v_module]",
        "path = hw/regs.v",
        "read_filler = 0",
        "interface = axil",
        "generator = Verilog",
    ]
    if outputs == "all":
        cfg += [
            "",
            "[c_header]",
            "path = sw/regs.h",
            "prefix = CSR",
            "generator = CHeader",
            "",
            "[md_doc]",
            "path = doc/regs.md",
            "title = Register map",
            "print_images = True",
            "image_dir = md_img",
            "print_conventions = True",
            "generator = Markdown",
        ]
    with open(os.path.join(out, "csrconfig"), "w") as f:
        f.write("\n".join(cfg) + "\n")


if __name__ == "__main__":
    main()
