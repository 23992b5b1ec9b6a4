"""rdmagen.rdl_import: SystemRDL designs imported into rdmagen maps.

The round trip exports every map (the committed export/*.rdl and the CSR test maps), imports
the SystemRDL back, validates the result with `rdmagen check` and compares its `rdmagen json`
with the original's JSON export. Hand-written RDL in tests/rdl/ covers what PeakRDL users
write and the export never does, and what the map format cannot hold.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("systemrdl", reason="systemrdl-compiler is not installed")

from rdmagen.rdl_import import RdlImportError, import_rdl, main, to_yaml  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
RDL = HERE / "rdl"


def rdmagen_cmd() -> list[str]:
    """The rdmagen CLI: $RDMAGEN (a command line), else the newest built binary of the
    workspace, else `cargo run`."""
    if os.environ.get("RDMAGEN"):
        return shlex.split(os.environ["RDMAGEN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    built = [p for p in (target / "release" / "rdmagen", target / "debug" / "rdmagen")
             if p.exists()]
    if built:
        return [str(max(built, key=lambda p: p.stat().st_mtime))]
    if shutil.which("cargo"):
        return ["cargo", "run", "-q", "--release", "-p", "rdmagen", "--"]
    pytest.fail("no rdmagen binary: build it (cargo build --release -p rdmagen) or set RDMAGEN")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(rdmagen_cmd() + list(args), cwd=REPO, capture_output=True, text=True)
    assert p.returncode == 0, f"rdmagen {' '.join(args)} failed:\n{p.stdout}\n{p.stderr}"
    return p


def words(text: str) -> str:
    return " ".join(text.split())


def field_view(f: dict) -> dict:
    return {k: f[k] for k in ("name", "msb", "lsb", "access", "reset", "enum", "hw")} | {
        "description": words(f["description"])}


def reg_view(r: dict) -> dict:
    return {"name": r["name"], "offset": r["offset"], "width": r["width"], "reset": r["reset"],
            "interrupt_enable": r["interrupt_enable"], "description": words(r["description"]),
            "fields": sorted((field_view(f) for f in r["fields"]), key=lambda f: f["lsb"])}


def item_view(it: dict) -> dict:
    if it["kind"] == "register":
        return reg_view(it) | {"kind": "register"}
    return {"kind": "group", "name": it["name"], "offset": it["offset"], "stride": it["stride"],
            "max_count": it["max_count"], "description": words(it["description"]),
            "registers": sorted((reg_view(r) for r in it["registers"]),
                                key=lambda r: r["offset"])}


def compare(orig: dict, back: dict) -> None:
    """Everything the SystemRDL carries must come back; what it does not carry is asserted
    lost, so a change in either direction shows up here."""
    assert back["block"] == orig["block"]
    # Equal for these maps; an explicit address_width wider than the map needs would come back
    # as the smallest (the addrmap's size carries no more).
    assert back["address_width"] == orig["address_width"]
    assert words(back["description"]) == words(orig["description"])
    ov = sorted((item_view(i) for i in orig["items"]), key=lambda i: i["offset"])
    bv = [item_view(i) for i in back["items"]]
    assert [i["name"] for i in bv] == [i["name"] for i in ov]
    for o, b in zip(ov, bv):
        assert b == o, f"{o['name']} differs"
    # Enums: names and values (with their descriptions) survive; the enum's own description
    # does not (the export writes none), and enums no field uses are not imported.
    used = {f["enum"] for i in orig["items"] for r in ([i] if i["kind"] == "register"
                                                        else i["registers"])
            for f in r["fields"] if f["enum"]}
    oe = {e["name"]: [(v["name"], v["value"], words(v["description"])) for v in e["values"]]
          for e in orig["enums"] if e["name"] in used}
    be = {e["name"]: [(v["name"], v["value"], words(v["description"])) for v in e["values"]]
          for e in back["enums"]}
    assert be == oe
    assert all(e["description"] == "" for e in back["enums"])
    # Not in SystemRDL: parameters (a parameter-sized group comes back fixed at its maximum
    # count), memories, spaces, a group's explicit window, the version (given on the command
    # line).
    assert back["parameters"] == []
    assert back["memories"] == [] and back["spaces"] == []
    for b in back["items"]:
        if b["kind"] == "group":
            assert b["count"] == {"fixed": b["max_count"]}


def exports(tmp: Path) -> list[tuple[Path, Path]]:
    """(rdl, json) of every committed export and of each CSR test map's fresh export."""
    pairs = [(p, p.with_suffix(".json")) for p in sorted((REPO / "export").glob("*.rdl"))]
    maps = sorted(str(p) for p in (REPO / "tb" / "csr-tests" / "maps").glob("*.yaml"))
    assert maps, "no CSR test maps found"
    out = tmp / "test-maps"
    run("rdl", *maps, "-o", str(out))
    run("json", *maps, "-o", str(out))
    pairs += [(p, p.with_suffix(".json")) for p in sorted(out.glob("*.rdl"))]
    return pairs


def test_round_trip_of_every_export(tmp_path: Path) -> None:
    pairs = exports(tmp_path)
    assert len(pairs) >= 10
    imported = tmp_path / "imported"
    imported.mkdir()
    yamls = []
    for rdl, _ in pairs:
        orig = json.loads(_.read_text())
        y = imported / f"{orig['block']}.yaml"
        assert main([str(rdl), "--version", "3.2.1", "-o", str(y)]) == 0
        yamls.append(y)
    run("check", *map(str, yamls))
    out = tmp_path / "json"
    run("json", *map(str, yamls), "-o", str(out))
    for rdl, js in pairs:
        orig = json.loads(js.read_text())
        back = json.loads((out / js.name).read_text())
        assert back["version"] == "3.2.1"
        compare(orig, back)


def test_round_trip_notices_a_change(tmp_path: Path) -> None:
    """The comparison is not vacuous: an export edited by one property fails it."""
    rdl = (REPO / "export" / "example.rdl").read_text()
    edited = tmp_path / "example.rdl"
    edited.write_text(rdl.replace("} errors[31:16] = 0x0;", "} errors[31:17] = 0x0;", 1))
    y = tmp_path / "example.yaml"
    assert main([str(edited), "-o", str(y)]) == 0
    run("json", str(y), "-o", str(tmp_path / "json"))
    back = json.loads((tmp_path / "json" / "example.json").read_text())
    with pytest.raises(AssertionError):
        compare(json.loads((REPO / "export" / "example.json").read_text()), back)


def test_import_is_deterministic() -> None:
    a = to_yaml(import_rdl(str(REPO / "export" / "uar.rdl")))
    b = to_yaml(import_rdl(str(REPO / "export" / "uar.rdl")))
    assert a == b


def test_peakrdl_style_design(tmp_path: Path) -> None:
    m = import_rdl(str(RDL / "peakrdl_style.rdl"), version="2.1.0")
    text = to_yaml(m, "peakrdl_style.rdl")
    assert text == (RDL / "peakrdl_style.yaml").read_text()
    y = tmp_path / "peak.yaml"
    y.write_text(text)
    run("check", str(y))


def test_unsupported_constructs_are_all_reported(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(RdlImportError) as e:
        import_rdl(str(RDL / "unsupported.rdl"))
    got = [m.split(":", 1)[0] + ": " + m.split(": ", 1)[1].split(";")[0].split(":")[0]
           for m in e.value.errors]
    assert got == [
        "bad.ext: external register",
        "bad.down.c: `decrvalue`",
        "bad.half: regwidth = 16",
        "bad.half: accesswidth = 16",
        "bad.sticky.s: precedence = sw (the SystemRDL default) on a field both software and "
        "hardware change",
        "bad.toggle.t: onwrite = wot has no rdmagen access type (rdmagen has w1c = woclr, "
        "w1s = woset, w0c = wzc)",
        "bad.ram: mem",
        "bad.nest[].cell[]: nested or multi-dimensional array",
    ]
    # The command line prints them all and writes nothing.
    assert main([str(RDL / "unsupported.rdl"), "-o", "/nonexistent/never.yaml"]) == 1
    err = capsys.readouterr().err
    assert err.count("error: ") == 8 and "8 error(s), no map written" in err


def test_errors_name_what_to_do(tmp_path: Path) -> None:
    """Smaller refusals, each with its hint: a wide hwset without rdmagen_bitwise, an intr
    whose enable is another field's, swmod on a clear-on-read field, hw = w without we on a
    stored field, a
    signal inside a register."""
    rdl = tmp_path / "more.rdl"
    rdl.write_text("""
addrmap more {
    default accesswidth = 32;
    reg { field { sw = rw; hw = r; hwset; precedence = hw; } f[3:0] = 0; } wide @ 0x0;
    reg { field { sw = rw; hw = r; onwrite = woclr; intr; precedence = hw; } a[0:0] = 0; } st @ 0x4;
    reg { field { sw = rw; hw = r; } b[0:0] = 0; } en @ 0x8;
    st.a->enable = en.b;
    reg { field { sw = r; hw = r; onread = rclr; swmod; } s[3:0] = 0; } strobe @ 0xc;
    reg { field { sw = rw; hw = w; } x[0:0] = 0; } loaded @ 0x10;
    reg { signal { activelow; } my_rst; field { sw = rw; hw = r; } y[0:0] = 0; } sig @ 0x14;
};
""")
    with pytest.raises(RdlImportError) as e:
        import_rdl(str(rdl))
    errs = e.value.errors
    assert len(errs) == 5, errs
    assert errs[0].startswith("more.wide.f: hwset/hwclr on a field wider than 1 bit") and \
        "rdmagen_bitwise = true" in errs[0]
    assert errs[1].startswith("more.st.a: ->enable = more.en.b")
    assert errs[2].startswith("more.strobe.s: swmod on a field software does not write")
    assert errs[3].startswith("more.loaded.x: hw = w without `we` on a stored field")
    assert errs[4].startswith("more.sig: signal inside a register")


def test_missing_top_and_bad_rdl_are_errors(tmp_path: Path) -> None:
    rdl = tmp_path / "broken.rdl"
    rdl.write_text("addrmap x { reg { field {} f; } r @ 0x0 }")  # missing ';'
    with pytest.raises(RdlImportError) as e:
        import_rdl(str(rdl))
    assert "systemrdl-compiler rejected the design" in e.value.errors[0]


def test_command_line_errors_are_messages_not_tracebacks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing or unreadable input, an output in a missing directory and a version the map
    format refuses: one `error:` line each and exit 1 (2 for the version, a usage error), no
    traceback and no file written."""
    rdl = tmp_path / "ok.rdl"
    rdl.write_text("addrmap top { reg { field { sw = rw; hw = r; } f[4] = 0; } ctl @ 0x0; };")
    missing = tmp_path / "nothere.rdl"
    assert main([str(rdl), str(missing), "-o", str(tmp_path / "m.yaml")]) == 1
    err = capsys.readouterr().err
    assert f"error: {missing}: No such file or directory" in err, err
    assert "rdl_import: 1 error(s), no map written" in err, err
    assert main([str(tmp_path)]) == 1
    assert f"error: {tmp_path}: Is a directory" in capsys.readouterr().err
    out = tmp_path / "no" / "such" / "dir" / "m.yaml"
    assert main([str(rdl), "-o", str(out)]) == 1
    assert f"error: {out}: No such file or directory" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main([str(rdl), "--version", "banana", "-o", str(tmp_path / "m.yaml")])
    assert e.value.code == 2
    assert "--version banana: expected MAJOR.MINOR.PATCH" in capsys.readouterr().err
    assert not (tmp_path / "m.yaml").exists()
    assert main([str(rdl), "--version", "2.3.4", "-o", str(tmp_path / "m.yaml")]) == 0
    assert 'version: "2.3.4"' in (tmp_path / "m.yaml").read_text()


def test_names_and_top_selection(tmp_path: Path) -> None:
    """`-t` picks the addrmap; a name the map format cannot hold is refused, not rewritten."""
    rdl = tmp_path / "two.rdl"
    rdl.write_text("""
addrmap first { reg { field { sw = rw; hw = r; } on[0:0] = 0; } ctrl @ 0x0; };
addrmap second {
    enum LinkMode { Off = 0; FastRetrain = 1; };
    reg { name = "Control"; field { sw = rw; hw = r; encode = LinkMode; } On[0:0] = 0; } CTRL @ 0x0;
    reg { field { sw = rw; hw = r; onwrite = woclr; intr; precedence = hw; } RxDone[0:0] = 0;
    } IrqSt @ 0x4;
    reg { field { sw = rw; hw = r; } RxDone[0:0] = 0; } IrqEn @ 0x8;
    IrqSt.RxDone->enable = IrqEn.RxDone;
};
""")
    m = import_rdl(str(rdl), top="first")
    assert m["block"] == "first" and [r["name"] for r in m["registers"]] == ["ctrl"]
    with pytest.raises(RdlImportError) as e:
        import_rdl(str(rdl))  # the last addrmap is the default top
    assert [x.split("`")[1] for x in e.value.errors] == [
        "CTRL", "IrqEn", "IrqSt", "LinkMode", "On", "RxDone"]
    assert all(x.startswith("second: name") and x.endswith("or pass --snake-case")
               for x in e.value.errors)
    # --snake-case converts them, references (enum, interrupt enable) along with them.
    m = import_rdl(str(rdl), snake_case=True)
    assert m["enums"] == [{"name": "link_mode", "values": [{"name": "OFF", "value": 0},
                                                            {"name": "FAST_RETRAIN", "value": 1}]}]
    ctrl, st, en = m["registers"]
    assert (ctrl["name"], ctrl["description"], ctrl["fields"][0]["name"],
            ctrl["fields"][0]["enum"]) == ("ctrl", "Control", "on", "link_mode")
    assert (st["name"], st["interrupt"], st["fields"][0]["name"]) == (
        "irq_st", {"enable": "irq_en"}, "rx_done")
    y = tmp_path / "second.yaml"
    y.write_text(to_yaml(m))
    run("check", str(y))


def test_interrupt_pair_in_a_flattened_regfile(tmp_path: Path) -> None:
    rdl = tmp_path / "flat.rdl"
    rdl.write_text("""
addrmap flat {
    default accesswidth = 32;
    regfile {
        reg { field { sw = rw; hw = w; onwrite = woclr; intr; precedence = hw; } done[0:0] = 0;
        } st @ 0x0;
        reg { field { sw = rw; hw = r; } done[0:0] = 0; } en @ 0x4;
        st.done->enable = en.done;
    } dma @ 0x10;
};
""")
    m = import_rdl(str(rdl))
    st, en = m["registers"]
    assert (st["name"], st["offset"], st["interrupt"], en["name"], en["offset"]) == (
        "dma_st", 0x10, {"enable": "dma_en"}, "dma_en", 0x14)
    assert st["fields"][0]["hw_set"] is True
    y = tmp_path / "flat.yaml"
    y.write_text(to_yaml(m))
    run("check", str(y))


def test_missing_systemrdl_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "systemrdl", None)  # import now raises ImportError
    with pytest.raises(RdlImportError) as e:
        import_rdl(str(RDL / "peakrdl_style.rdl"))
    assert e.value.errors[0].startswith("systemrdl-compiler is not installed: `pip install")


def test_constants_are_imported(tmp_path: Path) -> None:
    """A field software only reads and nothing changes is a constant with its reset as the
    value (`hw = na`, or `hw = r` with no hardware property); `hw = w` stays an input."""
    rdl = tmp_path / "ids.rdl"
    rdl.write_text("""
addrmap ids {
    default accesswidth = 32;
    enum Kind { Nic = 2; Dpu = 3; };
    reg {
        field { sw = r; hw = na; } minor[7:0] = 0x31;
        field { sw = r; hw = r; } major[15:8] = 3;
        field { sw = r; hw = na; encode = Kind; desc = "What it is."; } kind[17:16] = 3;
        field { sw = r; hw = na; } zero[18:18];
        field { sw = r; hw = w; } strap[31:24];
    } id @ 0x0;
};
""")
    m = import_rdl(str(rdl), snake_case=True)
    (r,) = m["registers"]
    assert r["fields"] == [
        {"name": "minor", "bits": "7:0", "access": "ro", "constant": 0x31},
        {"name": "major", "bits": "15:8", "access": "ro", "constant": 3},
        {"name": "kind", "bits": "17:16", "access": "ro", "constant": 3, "enum": "kind",
         "description": "What it is."},
        {"name": "zero", "bits": 18, "access": "ro", "constant": 0},
        {"name": "strap", "bits": "31:24", "access": "ro"},
    ]
    y = tmp_path / "ids.yaml"
    y.write_text(to_yaml(m))
    run("check", str(y))
    out = tmp_path / "out"
    run("json", str(y), "-o", str(out))
    back = json.loads((out / "ids.json").read_text())
    fields = back["items"][0]["fields"]
    assert [(f["name"], f["constant"], f["reset"]) for f in fields] == [
        ("minor", True, 0x31), ("major", True, 3), ("kind", True, 3), ("zero", True, 0),
        ("strap", False, None)]



def csr_outputs(tmp: Path, m: dict) -> set[str]:
    """The output ports of the CSR block rdmagen makes from imported map `m` (checked first)."""
    y = tmp / f"{m['block']}.yaml"
    y.write_text(to_yaml(m))
    run("check", str(y))
    run("csr", str(y), "-o", str(tmp / "out"))
    rtl = (tmp / "out" / f"{m['block']}_csr.v").read_text()
    return set(re.findall(r"output wire\s+(?:\[[^]]*\]\s*)?(\w+)", rtl))


def test_swmod_is_a_write_strobe(tmp_path: Path) -> None:
    """swmod on a field that keeps what software wrote is `write_strobe` (its `_stb_o`); a
    wider swmod with rdmagen_pulse is still a pulse (`wp`)."""
    rdl = tmp_path / "q.rdl"
    rdl.write_text("""
property rdmagen_pulse { type = boolean; component = field; };
addrmap q {
    default accesswidth = 32;
    reg {
        field { sw = rw; hw = r; swmod; } tail[15:0] = 0;
        field { sw = w; hw = r; swmod; } kick[23:16] = 0;
        field { sw = w; hw = r; swmod; rdmagen_pulse = true; } go[31:24] = 0;
    } db @ 0x0;
    reg { field { sw = rw; hw = r; onwrite = woclr; swmod; } ack[0:0] = 0; } st @ 0x4;
};
""")
    m = import_rdl(str(rdl))
    db, st = m["registers"]
    assert [(f["name"], f["access"], f.get("write_strobe")) for f in db["fields"]] == [
        ("tail", "rw", True), ("kick", "wo", True), ("go", "wp", None)]
    assert (st["fields"][0]["access"], st["fields"][0]["write_strobe"]) == ("w1c", True)
    ports = {p for p in csr_outputs(tmp_path, m) if p.endswith("_stb_o")}
    assert ports == {"db_tail_stb_o", "db_kick_stb_o", "db_go_stb_o", "st_ack_stb_o"}


def test_read_strobes_are_imported(tmp_path: Path) -> None:
    """PeakRDL-regblock's rd_swacc is `read_strobe` (its `_rd_stb_o`); SystemRDL's swacc,
    asserted on any access, gives a field software reads and writes both strobes; rd_swacc on
    a field nothing drives (a constant here) is refused."""
    rdl = tmp_path / "f.rdl"
    rdl.write_text("""
property rd_swacc { type = boolean; component = field; };
addrmap f {
    default accesswidth = 32;
    reg {
        field { sw = r; hw = w; rd_swacc = true; } data[15:0];
        field { sw = r; hw = w; onread = rclr; we; precedence = hw; rd_swacc = true; } lost[23:16] = 0;
        field { sw = rw; hw = r; swacc; } mode[25:24] = 0;
        field { sw = r; hw = w; swacc; } head[31:28];
    } fifo @ 0x0;
};
""")
    m = import_rdl(str(rdl))
    got = [(f["name"], f["access"], f.get("read_strobe"), f.get("write_strobe"))
           for f in m["registers"][0]["fields"]]
    assert got == [("data", "ro", True, None), ("lost", "rc", True, None),
                   ("mode", "rw", True, True), ("head", "ro", True, None)]
    ports = {p for p in csr_outputs(tmp_path, m) if p.endswith("stb_o")}
    assert ports == {"fifo_data_rd_stb_o", "fifo_lost_rd_stb_o", "fifo_mode_rd_stb_o",
                     "fifo_mode_stb_o", "fifo_head_rd_stb_o"}
    bad = tmp_path / "bad.rdl"
    bad.write_text("""
property rd_swacc { type = boolean; component = field; };
addrmap b { reg { field { sw = r; hw = r; rd_swacc = true; } id[7:0] = 3; } ver @ 0x0; };
""")
    with pytest.raises(RdlImportError) as e:
        import_rdl(str(bad))
    assert "rd_swacc/swacc on a field nothing drives" in str(e.value)


def test_fields_hardware_does_not_read(tmp_path: Path) -> None:
    """`hw = na` on a stored field, or `hw = w` with `we`, has no `_o` output: `hw_read:
    false`; a write-only field nothing reads is refused."""
    rdl = tmp_path / "scr.rdl"
    rdl.write_text("""
addrmap scr {
    default accesswidth = 32;
    reg { field { sw = rw; hw = na; } value[31:0] = 0; } scratch @ 0x0;
    reg {
        field { sw = r; hw = na; counter; incrsaturate = true; } drops[15:0] = 0;
        field { sw = r; hw = w; we; } last[23:16] = 0;
        field { sw = rw; hw = r; } keep[31:24] = 0;
    } stats @ 0x4;
};
""")
    m = import_rdl(str(rdl))
    scratch, stats = m["registers"]
    assert scratch["fields"][0]["hw_read"] is False
    drops, last, keep = stats["fields"]
    assert (drops["hw_read"], drops["counter"]) == (False, {})
    assert (last["hw_read"], last["hw_write"]) == (False, True)
    assert "hw_read" not in keep
    assert {p for p in csr_outputs(tmp_path, m) if not p.startswith("s_axil_")} == {
        "stats_keep_o"}

    bad = tmp_path / "bad.rdl"
    bad.write_text("addrmap bad { reg { field { sw = w; hw = na; } k[7:0] = 0; } key @ 0x0; };")
    with pytest.raises(RdlImportError) as e:
        import_rdl(str(bad))
    assert e.value.errors[0].startswith("bad.key.k: a write-only field hardware does not read")
