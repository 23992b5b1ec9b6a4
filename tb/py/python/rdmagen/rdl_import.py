"""Import a SystemRDL 2.0 design into an rdmagen register map (YAML), for teams moving from
PeakRDL.

    python -m rdmagen.rdl_import DESIGN.rdl [-t TOP] [--version 1.0.0] [-I DIR]
                                 [--snake-case] [-o MAP.yaml]

The design is compiled and elaborated by systemrdl-compiler (the reference implementation:
no SystemRDL parser of our own), then mapped back through the table of rdmagen's SystemRDL
export (gen/outputs/src/systemrdl.rs), inverted. Whatever the map format cannot hold is an
error naming the RDL path and what to do; every such error is reported together and nothing
is written. Nothing is approximated silently. The documented choices (docs/regmap-format.md,
"Importing SystemRDL"): a stored field without a `reset` resets to 0 (rdmagen resets every
flop); a field software only reads and nothing changes (`sw = r`, `hw = na` or `r`) is a
`constant:` with its reset as the value; a stored field hardware does not read (`hw = na`, or
`hw = w` with `we`) gets `hw_read: false` (no `_o` output); `name` is the description where
there is no `desc`; a parameter-sized group of an rdmagen export comes back with its maximum
count.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field as dc_field
from typing import Any

__all__ = ["RdlImportError", "import_rdl", "to_yaml", "main"]

# Properties the importer understands. Any other property set on a component is refused
# (a PeakRDL feature rdmagen does not have must not vanish on the way in).
FIELD_PROPS = {
    "name", "desc", "sw", "hw", "onread", "onwrite", "rclr", "rset", "woclr", "woset",
    "singlepulse", "swmod", "we", "hwset", "hwclr", "counter", "incrwidth", "incrvalue",
    "incrsaturate", "saturate", "intr", "stickybit", "nonsticky", "enable", "reset",
    "precedence", "encode", "fieldwidth", "dontcompare", "donttest", "ispresent",
    "rdmagen_pulse", "rdmagen_bitwise", "swacc", "rd_swacc",
}
REG_PROPS = {"name", "desc", "regwidth", "accesswidth", "shared", "dontcompare", "donttest",
             "ispresent"}
BLOCK_PROPS = {"name", "desc", "dontcompare", "donttest", "ispresent", "addressing",
               "alignment", "sharedextbus", "lsb0", "rsvdset", "rsvdsetX"}

NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


class RdlImportError(Exception):
    """The design cannot be expressed as an rdmagen map; ``errors`` lists every reason."""

    def __init__(self, errors: list[str]):
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass
class _Ctx:
    errors: list[str] = dc_field(default_factory=list)
    enums: dict[str, dict[str, Any]] = dc_field(default_factory=dict)
    # Child components by name, per component (id), for ->enable references.
    children: dict[int, dict[str, Any]] = dc_field(default_factory=dict)

    def err(self, node: Any, msg: str) -> None:
        self.errors.append(f"{node.get_path()}: {msg}")


def _name(x: Any) -> str | None:
    return None if x is None else x.name


def _desc(node: Any) -> str:
    # Without a desc, SystemRDL's `name` (a display name) is the nearest thing we have.
    d = node.get_property("desc") or (node.get_property("name")
                                      if "name" in node.list_properties() else "")
    return " ".join(d.split()) if d else ""


def snake(name: str) -> str:
    """`myRegInst` / `CTRL_REG` -> `my_reg_inst` / `ctrl_reg` (for --snake-case)."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
    return re.sub(r"_+", "_", s).strip("_")


def _rename(m: dict[str, Any]) -> None:
    """Every name to snake_case (enum values to UPPER_CASE), references along with them."""
    m["block"] = snake(m["block"])
    for e in m.get("enums", []):
        e["name"] = snake(e["name"])
        for v in e["values"]:
            v["name"] = snake(v["name"]).upper()

    def reg(r: dict[str, Any]) -> None:
        r["name"] = snake(r["name"])
        if "interrupt" in r:
            r["interrupt"]["enable"] = snake(r["interrupt"]["enable"])
        for f in r["fields"]:
            f["name"] = snake(f["name"])
            if "enum" in f:
                f["enum"] = snake(f["enum"])

    for it in m["registers"]:
        if "fields" in it:
            reg(it)
        else:
            it["name"] = snake(it["name"])
            for r in it["registers"]:
                reg(r)


def _unknown_props(ctx: _Ctx, node: Any, allowed: set[str], what: str) -> None:
    for p in node.list_properties():
        if p in ("decr", "decrvalue", "decrwidth", "decrsaturate", "decrthreshold"):
            ctx.err(node, f"`{p}`: a decrementing counter; rdmagen counters only count up "
                    "(counter, incrwidth, incrsaturate)")
        elif p not in allowed:
            ctx.err(node, f"property `{p}` on a {what} has no rdmagen equivalent; remove it "
                    "(or describe the behaviour with rdmagen's access types and hardware "
                    "properties, docs/regmap-format.md)")


def _access(ctx: _Ctx, f: Any) -> str | None:
    sw = _name(f.get_property("sw"))
    onread = _name(f.get_property("onread"))
    onwrite = _name(f.get_property("onwrite"))
    wide = f.width > 1
    if sw == "rw" and onread is None:
        acc = {None: "rw", "woclr": "w1c", "woset": "w1s", "wzc": "w0c"}.get(onwrite)
        if acc is None:
            ctx.err(f, f"onwrite = {onwrite} has no rdmagen access type (rdmagen has w1c = "
                    "woclr, w1s = woset, w0c = wzc)")
        if f.get_property("singlepulse"):
            ctx.err(f, "singlepulse on a readable field: rdmagen's pulse (`wp`) reads "
                    "as 0; make it sw = w")
        return acc
    if sw == "r" and onwrite is None and onread in (None, "rclr", "rset"):
        if f.get_property("swmod"):
            ctx.err(f, "swmod on a field software does not write: rdmagen's write strobe "
                    "(`write_strobe`) pulses on writes only, not on a read's side effect")
        return {None: "ro", "rclr": "rc", "rset": "rs"}[onread]
    if sw == "w" and onread is None and onwrite is None:
        if f.get_property("singlepulse"):
            return "wp"
        if f.get_property("rdmagen_pulse", default=False):
            if f.get_property("swmod") and wide:
                return "wp"
            ctx.err(f, "rdmagen_pulse on a 1-bit field or without swmod: a 1-bit pulse is "
                    "singlepulse; a wider one is swmod with `rdmagen_pulse = true`")
            return None
        return "wo"
    ctx.err(f, f"sw = {sw} with onread = {onread}, onwrite = {onwrite} has no rdmagen access "
            "type (docs/regmap-format.md, 'Access types')")
    return None


def _field(ctx: _Ctx, f: Any) -> dict[str, Any] | None:
    _unknown_props(ctx, f, FIELD_PROPS, "field")
    acc = _access(ctx, f)
    hw = _name(f.get_property("hw"))
    we = f.get_property("we")
    hwset, hwclr = f.get_property("hwset"), f.get_property("hwclr")
    counter = f.get_property("counter")
    intr = f.get_property("intr")
    sticky = intr and f.get_property("stickybit")
    out: dict[str, Any] = {"name": f.inst_name,
                           "bits": f.lsb if f.msb == f.lsb else f"{f.msb}:{f.lsb}"}
    if acc:
        out["access"] = acc
    for prop in ("we", "hwset", "hwclr"):
        if not isinstance(f.get_property(prop), bool):
            ctx.err(f, f"{prop} refers to a signal or field: rdmagen's hardware properties are "
                    "block inputs; set it to true")
    # A strobe after each software read: PeakRDL-regblock's rd_swacc (a user-defined
    # property), or SystemRDL's swacc, which is also asserted on writes (a field software
    # writes too gets both strobes; hardware ORs them if it wants one).
    rd_strobe = f.get_property("rd_swacc", default=False) or f.get_property("swacc")
    if acc == "ro" and hw in ("na", "r") and not (hwset or hwclr or counter or sticky):
        # Software reads it and nothing changes it: a constant, its value the reset.
        if rd_strobe:
            ctx.err(f, "rd_swacc/swacc on a field nothing drives (a constant for rdmagen): "
                    "make it hw = w (an input whose reads hardware sees)")
        value = f.get_property("reset")
        if value is not None and not isinstance(value, int):
            ctx.err(f, "a constant whose reset refers to a signal or field: give it a number")
            return None
        out["constant"] = value or 0
        _enum_and_desc(ctx, f, out)
        return out
    # A field hardware drives with no storage: `ro` without properties (an input).
    wire = acc == "ro" and hw in ("w", "rw") and not (we or hwset or hwclr or counter) and \
        not sticky
    if hw in ("w", "rw") and not wire and not we and not sticky:
        ctx.err(f, f"hw = {hw} without `we` on a stored field: rdmagen loads a field from "
                "hardware only with a write enable (hw_write); add `we`, or make it sw = r "
                "for a hardware-driven input")
    # swmod on a field that keeps what software wrote: our write strobe (`_stb_o`). A wider
    # pulse's swmod is part of `wp` itself. It tells hardware of a write; it changes nothing.
    flags: dict[str, Any] = {}
    if f.get_property("swmod") and acc in ("rw", "wo", "w1c", "w1s", "w0c"):
        flags["write_strobe"] = True
    if rd_strobe and acc not in (None, "wo", "wp"):
        flags["read_strobe"] = True
    if f.get_property("swacc") and acc in ("rw", "wo", "w1c", "w1s", "w0c"):
        flags["write_strobe"] = True
    if f.get_property("rd_swacc", default=False) and acc in ("wo", "wp"):
        ctx.err(f, "rd_swacc on a field software cannot read")
    # Hardware does not read the stored value (`hw = na`, or `w` with `we`): no `_o` output.
    # It changes nothing, so it is not one of the properties precedence is about.
    if hw in ("na", "w") and not wire:
        if acc in ("wo", "wp"):
            ctx.err(f, f"a write-only field hardware does not read (hw = {hw}): nothing could "
                    "ever read what software writes; make it hw = r or remove it")
        flags["hw_read"] = False
    hwp: dict[str, Any] = {}
    if we:
        hwp["hw_write"] = True
    if sticky:
        if we:
            ctx.err(f, "a sticky intr with `we` (only sets bits when written) has no rdmagen "
                    "equivalent; make it nonsticky (hardware loads any value)")
        elif not (hwset or hwclr or counter) and hw in ("w", "rw"):
            # A sticky interrupt bit is set by its hardware input: rdmagen's per-bit hw_set.
            # With hw = r there is no input: software alone sets it (a w1s status bit).
            hwset = True
    if hwset:
        hwp["hw_set"] = True
    if hwclr:
        hwp["hw_clear"] = True
    if (f.get_property("hwset") or f.get_property("hwclr")) and f.width > 1 and \
            not f.get_property("rdmagen_bitwise", default=False):
        ctx.err(f, "hwset/hwclr on a field wider than 1 bit is one signal for the whole "
                "field in SystemRDL; rdmagen's hw_set/hw_clear act per bit: add "
                "`rdmagen_bitwise = true` if per-bit is what you want, or split the field")
    if counter:
        if "incrvalue" in f.list_properties() and f.get_property("incrvalue") != 1:
            ctx.err(f, "incrvalue other than 1: rdmagen's counter adds its input "
                    "(incrwidth bits); use incrwidth")
        sat = f.get_property("incrsaturate")
        if not isinstance(sat, bool):
            ctx.err(f, "incrsaturate at a value: rdmagen's counter saturates at all ones or "
                    "wraps; use incrsaturate = true/false")
        c: dict[str, Any] = {}
        # No incrwidth: a 1-bit increment input (incrvalue 1), step_width 1 for us.
        width = f.get_property("incrwidth") or 1
        if width != 1:
            c["step_width"] = width
        if sat is False:
            c["saturate"] = False
        hwp["counter"] = c
    sw_changes = acc not in (None, "ro")
    if hwp and sw_changes and _name(f.get_property("precedence")) != "hw":
        ctx.err(f, "precedence = sw (the SystemRDL default) on a field both software and "
                "hardware change: in rdmagen hardware acts after software in the same cycle; "
                "add `precedence = hw` if that is acceptable")
    reset = f.get_property("reset")
    if reset is not None and not isinstance(reset, int):
        ctx.err(f, "reset refers to a signal or field: rdmagen resets to a constant")
    elif reset is not None and not wire:
        out["reset"] = reset
    elif reset is not None and wire:
        ctx.err(f, "reset on a field hardware drives without storage: there is no flop to "
                "reset; drop the reset")
    _enum_and_desc(ctx, f, out)
    out.update(hwp)
    out.update(flags)
    return out


def _enum_and_desc(ctx: _Ctx, f: Any, out: dict[str, Any]) -> None:
    enum = f.get_property("encode")
    if enum is not None:
        out["enum"] = _enum(ctx, f, enum)
    d = _desc(f)
    if d:
        out["description"] = d


def _enum(ctx: _Ctx, f: Any, enum: Any) -> str:
    name = enum.type_name
    values = [{"name": m.name, "value": m.value, **({"description": " ".join(m.rdl_desc.split())}
                                                    if m.rdl_desc else {})} for m in enum]
    prev = ctx.enums.get(name)
    if prev is None:
        ctx.enums[name] = {"name": name, "values": values}
    elif prev["values"] != values:
        ctx.err(f, f"a second enum named `{name}` with other values: rename one (rdmagen enums "
                "are one namespace per map)")
    return name


def _register(ctx: _Ctx, r: Any, name: str, offset: int) -> dict[str, Any]:
    _unknown_props(ctx, r, REG_PROPS, "register")
    width = r.get_property("regwidth")
    if width not in (32, 64):
        ctx.err(r, f"regwidth = {width}: rdmagen registers are 32 or 64 bits wide")
    if r.get_property("accesswidth") != 32:
        ctx.err(r, f"accesswidth = {r.get_property('accesswidth')}: rdmagen's bus is 32 bits "
                "(a 64-bit register is two halves, low then high); set accesswidth = 32")
    if r.external:
        ctx.err(r, "external register: rdmagen's CSR block holds every register; make it "
                "internal or leave it out of the map")
    if r.signals():
        ctx.err(r, "signal inside a register: rdmagen's hardware ports follow from the fields' "
                "properties; remove the signal")
    if r.is_alias:
        ctx.err(r, "alias register: rdmagen has one address per register; remove the alias")
    out: dict[str, Any] = {"name": name, "offset": offset}
    if width == 64:
        out["width"] = 64
    d = _desc(r)
    if d:
        out["description"] = d
    fields = sorted(r.fields(), key=lambda f: f.lsb)
    intr = [f for f in fields if f.get_property("intr")]
    if intr:
        # A flattened regfile's prefix applies to the enable register beside it too.
        prefix = name[: len(name) - len(r.inst_name)]
        enable = _interrupt(ctx, r, fields, intr)
        enable = prefix + enable if enable else None
        if enable:
            out["interrupt"] = {"enable": enable}
    out["fields"] = [x for x in (_field(ctx, f) for f in fields) if x is not None]
    return out


def _interrupt(ctx: _Ctx, r: Any, fields: list[Any], intr: list[Any]) -> str | None:
    """The enable register of an interrupt status register, or None (errors recorded)."""
    # SystemRDL forbids intr on a counter, so rdmagen's export leaves a counting status field
    # without it; such a field is still in the pair when the enable register has its name.
    counters = [f for f in fields if not f.get_property("intr") and f.get_property("counter")]
    if len(intr) + len(counters) != len(fields):
        ctx.err(r, "some fields are intr and some are not: an rdmagen interrupt status register "
                "has only status fields; move the others to another register")
        return None
    targets = set()
    for f in intr:
        if _name(f.get_property("intr type")) not in (None, "level"):
            ctx.err(f, "edge-sensitive intr: rdmagen status bits are set by a level (hw_set); "
                    "detect the edge in the hardware that drives the input")
        for p in ("mask", "haltenable", "haltmask"):
            if f.get_property(p) is not None:
                ctx.err(f, f"intr with ->{p}: rdmagen pairs a status register with an enable "
                        "register only (->enable)")
        en = _enable_target(ctx, f)
        if en is None:
            ctx.err(f, "intr without ->enable: rdmagen pairs every status field with an enable "
                    "field; add `->enable = <enable register>.<field>`")
            continue
        en_field, en_reg, container = en
        if en_field.inst_name != f.inst_name or container is not r.parent.inst:
            path = f.get_property("enable").get_path()
            ctx.err(f, f"->enable = {path}: rdmagen pairs a status field with the "
                    "same-named field of an enable register beside it")
            continue
        targets.add(en_reg.inst_name)
    if len(targets) > 1:
        ctx.err(r, f"->enable points at several registers ({', '.join(sorted(targets))}): "
                "rdmagen has one enable register per status register")
        return None
    if targets and counters:
        target = next(iter(targets))
        enable = next(c for c in r.parent.children() if c.inst_name == target)
        names = {f.inst_name for f in enable.fields()}
        for f in counters:
            if f.inst_name not in names:
                ctx.err(f, f"a counter beside intr fields whose enable register {target} has no "
                        f"field {f.inst_name}: an rdmagen interrupt status register has only "
                        "status fields; add the enable field or move the counter")
    return targets.pop() if targets else None


def _enable_target(ctx: _Ctx, f: Any) -> tuple[Any, Any, Any] | None:
    """(field, register, register's parent) components of a field's ->enable, or None.

    Resolved over a name index of the component tree: systemrdl-compiler's own resolution
    (get_property) scans the parent's children by name, quadratic in a 4096-register map."""
    ref = f.inst.properties.get("enable")
    if ref is None:
        return None
    node = f
    while node is not None and node.inst.original_def is not ref.ref_root:
        node = node.parent
    if node is None or len(ref.ref_elements) < 2:
        en = f.get_property("enable")  # an unusual reference: the library resolves it
        return (en.inst, en.parent.inst, en.parent.parent.inst)
    path = [node.inst]
    for name, _idx, _src in ref.ref_elements:
        index = ctx.children.get(id(path[-1]))
        if index is None:
            index = ctx.children[id(path[-1])] = {c.inst_name: c for c in path[-1].children}
        path.append(index[name])
    return path[-1], path[-2], path[-3]


# (offset, "register" or "group", the item, a group's registers, the RDL node)
_Item = tuple[int, str, dict[str, Any], list[dict[str, Any]] | None, Any]


def _flatten(ctx: _Ctx, node: Any, prefix: str, base: int, in_array: bool) -> list[_Item]:
    """The registers and groups under `node` as (offset, kind, item, group registers, node)
    tuples; non-array regfiles are flattened (names `<regfile>_<register>`)."""
    from systemrdl.node import AddrmapNode, MemNode, RegfileNode, RegNode

    items: list[_Item] = []
    for c in node.children():
        name = prefix + c.inst_name
        if isinstance(c, RegNode):
            off = base + c.raw_address_offset
            dims = c.array_dimensions or []
            if c.is_array:
                if in_array or len(dims) > 1:
                    ctx.err(c, "nested or multi-dimensional array: rdmagen groups are one level "
                            "deep; unroll the inner dimension into named registers")
                    continue
                g = {"name": name, "offset": off, "count": dims[0],
                     "stride": c.array_stride}
                items.append((off, "group", g, [_register(ctx, c, c.inst_name, 0)], c))
            else:
                items.append((off, "register", _register(ctx, c, name, off), None, c))
        elif isinstance(c, RegfileNode):
            _unknown_props(ctx, c, BLOCK_PROPS, "regfile")
            if c.external:
                ctx.err(c, "external regfile: rdmagen's CSR block holds every register")
                continue
            off = base + c.raw_address_offset
            dims = c.array_dimensions or []
            if c.is_array:
                if in_array or len(dims) > 1:
                    ctx.err(c, "nested or multi-dimensional array: rdmagen groups are one level "
                            "deep; unroll the inner dimension into named registers")
                    continue
                inner = _flatten(ctx, c, "", 0, True)
                regs = [it[2] for it in sorted(inner, key=lambda t: t[0])]
                g = {"name": name, "offset": off, "count": dims[0],
                     "stride": c.array_stride}
                d = _group_desc(_desc(c))
                if d:
                    g["description"] = d
                items.append((off, "group", g, regs, c))
            else:
                items.extend(_flatten(ctx, c, name + "_", off, in_array))
        elif isinstance(c, MemNode):
            ctx.err(c, "mem: rdmagen's CSR block decodes registers only; describe a RAM as a "
                    "`memories:` entry for a block generator, outside the CSR map")
        elif isinstance(c, AddrmapNode):
            ctx.err(c, "nested addrmap: an rdmagen map is one block; import it on its own "
                    "(`-t` picks the top addrmap)")
        else:
            ctx.err(c, f"{type(c).__name__}: not a register or regfile; rdmagen has no "
                    "equivalent")
    return items


_ARRAY_NOTE = re.compile(r"\s*\(?Array of [^()]*elements(, at most \d+)?\.\)?$")


def _group_desc(d: str) -> str:
    # rdmagen's export appends "(Array of N elements.)": drop it so a round trip is exact.
    return _ARRAY_NOTE.sub("", d)


def import_rdl(path: str | list[str], top: str | None = None, version: str = "1.0.0",
               incl_search_paths: list[str] | None = None,
               snake_case: bool = False) -> dict[str, Any]:
    """Compile and elaborate `path` (one file or several, in order) and return the rdmagen map
    as a dict in map order. With `snake_case`, names are converted (`CtrlReg` -> `ctrl_reg`,
    enum values upper case) instead of refused. Raises RdlImportError with every problem
    found."""
    try:
        from systemrdl import RDLCompileError, RDLCompiler
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RdlImportError([
            "systemrdl-compiler is not installed: `pip install systemrdl-compiler` "
            f"(the importer elaborates SystemRDL with it) [{e}]"]) from e
    paths = [path] if isinstance(path, str) else list(path)
    compiler = RDLCompiler()
    try:
        for p in paths:
            compiler.compile_file(p, incl_search_paths=incl_search_paths)
        root = compiler.elaborate(top_def_name=top).top
    except RDLCompileError as e:
        raise RdlImportError([f"systemrdl-compiler rejected the design ({e}; messages above)"]) \
            from e
    ctx = _Ctx()
    _unknown_props(ctx, root, BLOCK_PROPS, "addrmap")
    items = _flatten(ctx, root, "", 0, False)
    items.sort(key=lambda t: t[0])
    out_items = []
    for _, kind, item, regs, node in items:
        if kind == "register":
            out_items.append(item)
        else:
            # A register array is a group of one register named like the array.
            item["array"] = {"count": item.pop("count"), "stride": item.pop("stride")}
            item["registers"] = regs
            out_items.append(item)
    size = root.size
    m: dict[str, Any] = {"block": root.inst_name, "version": version}
    d = _desc(root)
    if d:
        m["description"] = d
    m["address_width"] = max(4, math.ceil(math.log2(size))) if size > 1 else 4
    if ctx.enums:
        m["enums"] = list(ctx.enums.values())
    m["registers"] = out_items
    if snake_case:
        _rename(m)
    _names(ctx, root, m)
    if ctx.errors:
        raise RdlImportError(ctx.errors)
    return m


def _names(ctx: _Ctx, root: Any, m: dict[str, Any]) -> None:
    items = m["registers"]
    bad = []
    for it in items:
        bad.append(it["name"])
        for r in it.get("registers", []):
            bad.append(r["name"])
            bad.extend(f["name"] for f in r["fields"])
        bad.extend(f["name"] for f in it.get("fields", []))
    bad.append(m["block"])
    bad.extend(e["name"] for e in m.get("enums", []))
    for n in sorted({n for n in bad if not NAME_RE.match(n) or "__" in n or n.endswith("_")}):
        ctx.errors.append(f"{root.get_path()}: name `{n}` is not rdmagen snake_case "
                          "([a-z][a-z0-9_]*, no `__`, not ending in `_`): rename it in the RDL, "
                          "or pass --snake-case")


HEX_KEYS = {"offset", "stride", "reset"}


def _scalar(v: Any, key: str = "") -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return hex(v) if v > 9 and key in HEX_KEYS else str(v)
    # A JSON string is a YAML double-quoted scalar; plain where nothing needs quoting.
    s = str(v)
    if re.match(r"^[A-Za-z_][A-Za-z0-9_.]*$", s) and s not in ("true", "false", "null", "yes",
                                                                 "no", "on", "off", "y", "n"):
        return s
    return json.dumps(s, ensure_ascii=False)


def _emit(v: Any, indent: int, lines: list[str], prefix: str) -> None:
    pad = " " * indent
    if isinstance(v, dict):
        first = True
        for k, x in v.items():
            lead = prefix if first else pad
            first = False
            if isinstance(x, (dict, list)) and x:
                lines.append(f"{lead}{k}:")
                _emit(x, indent + 2, lines, " " * (indent + 2))
            elif isinstance(x, dict):
                lines.append(f"{lead}{k}: {{}}")
            else:
                lines.append(f"{lead}{k}: {_scalar(x, k)}")
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, dict):
                _emit(x, indent + 2, lines, pad + "- ")
            else:
                lines.append(f"{pad}- {_scalar(x)}")


def to_yaml(m: dict[str, Any], source: str = "") -> str:
    """The map as YAML text, in the dict's order (deterministic)."""
    lines = [f"# Imported from SystemRDL{' ' + source if source else ''} by rdmagen.rdl_import."]
    _emit(m, 0, lines, "")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rdmagen.rdl_import",
                                 description="Import a SystemRDL design into an rdmagen map.")
    ap.add_argument("rdl", nargs="+", help="SystemRDL files, compiled in order")
    ap.add_argument("-t", "--top", help="top addrmap (default: the last one defined)")
    ap.add_argument("--version", default="1.0.0", help="the map's version (default 1.0.0)")
    ap.add_argument("-I", dest="incl", action="append", help="include search path")
    ap.add_argument("--snake-case", action="store_true",
                    help="convert names to snake_case (enum values to UPPER_CASE) instead of "
                    "refusing them")
    ap.add_argument("-o", "--out", help="output YAML file (default: standard output)")
    a = ap.parse_args(argv)
    if not re.fullmatch(r"\d+\.\d+\.\d+", a.version):
        # The map would be written and then refused by `rdmagen check` (regmap::bad_version).
        ap.error(f"--version {a.version}: expected MAJOR.MINOR.PATCH, e.g. 1.0.0")
    errors: list[str] = []
    m: dict[str, Any] = {}
    for p in a.rdl:
        # An unreadable input is named here, not as a traceback from inside the compiler.
        try:
            with open(p, "rb"):
                pass
        except OSError as e:
            errors.append(f"{p}: {e.strerror}")
    if not errors:
        try:
            m = import_rdl(a.rdl, a.top, a.version, a.incl, a.snake_case)
        except RdlImportError as e:
            errors = e.errors
    if errors:
        for msg in errors:
            print(f"error: {msg}", file=sys.stderr)
        print(f"rdl_import: {len(errors)} error(s), no map written", file=sys.stderr)
        return 1
    text = to_yaml(m, " ".join(a.rdl))
    if a.out:
        try:
            with open(a.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            print(f"error: {a.out}: {e.strerror}", file=sys.stderr)
            print("rdl_import: 1 error(s), no map written", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
