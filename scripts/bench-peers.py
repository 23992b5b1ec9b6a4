#!/usr/bin/env python3
"""`make bench-peers`: rdmagen next to PeakRDL-regblock and Corsair on the same register maps.

Maps: `scripts/gen-bench-map.py VFS flat` (VFS x 16 registers written out flat, plus one global
register) for VFS = 16, 64, 256, 1024, 4096. Each tool reads the same map in its own format:
rdmagen the YAML; PeakRDL the SystemRDL that `rdmagen rdl` exports from it; Corsair a regmap
written by `scripts/corsair-from-json.py` from `rdmagen json` (same registers, addresses,
fields and nearest access modes). Commands (OUT a fresh directory per run):

    rtl: target/release/rdmagen csr MAP -o OUT
         peakrdl regblock MAP.rdl -o OUT --cpuif axi4-lite-flat
         corsair -c csrconfig            (v_module only)
    all: target/release/rdmagen all MAP --rtl OUT/rtl --include OUT/include --docs OUT/docs --export OUT/export
         corsair -c csrconfig            (v_module, c_header, md_doc with bitfield pictures)

Whole-process wall time and peak memory from /usr/bin/time; the median of 3 runs (1 run when a
run takes over 5 s). Each run is capped at --limit CPU seconds (default 30); a tool capped at
one size is reported as "> limit" (its ratio a lower bound) and not run at larger sizes.
Writes docs/BENCHMARKS.peers.md, docs/BENCHMARKS.peers.json and docs/img/gen-time.svg.
The peers are installed into .venv by this script only (they are not test dependencies).

Usage: scripts/bench-peers.py [--sizes 16,64,256] [--limit SECONDS]
"""

import argparse
import fcntl
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv", "bin")
PEERS = ["peakrdl-regblock==1.3.1", "peakrdl==1.5.0", "corsair==1.0.4", "matplotlib"]


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def timed(cmd, cwd, limit):
    """(wall s, peak MiB, CPU s) of one whole-process run, "limit" once it has used `limit` CPU
    seconds, "wall" past 10x `limit` wall seconds. The cap is on CPU time (RLIMIT_CPU, inherited by the tool's process), so a run that
    hits it did use at least `limit` CPU seconds however loaded the machine was, and the
    report gives "> limit" and the ratio as a lower bound. Wall time is capped too, in case
    a tool waits instead of computing."""

    def cap():
        resource.setrlimit(resource.RLIMIT_CPU, (int(limit), int(limit) + 5))

    with tempfile.NamedTemporaryFile("r") as t:
        t0 = time.monotonic()
        try:
            proc = subprocess.run(
                ["/usr/bin/time", "-f", "%M %U %S", "-o", t.name] + cmd,
                cwd=cwd,
                capture_output=True,
                timeout=10 * limit,
                preexec_fn=cap,
            )
        except subprocess.TimeoutExpired:
            return "wall"
        wall = time.monotonic() - t0
        report = t.read()
        if proc.returncode != 0:
            if "signal 24" in report or "signal 9" in report:  # SIGXCPU, then SIGKILL at the hard cap
                return "limit"
            raise subprocess.CalledProcessError(proc.returncode, cmd, proc.stdout, proc.stderr)
        mem, user, system = report.strip().splitlines()[-1].split()
        return wall, int(mem) / 1024, float(user) + float(system)


def measure(make_cmd, limit):
    """Median wall time and peak memory over fresh output directories."""
    samples = []
    for _ in range(3):
        work = tempfile.mkdtemp(prefix="peer-", dir=os.path.join(ROOT, "target", "bench"))
        cmd, cwd = make_cmd(work)
        r = timed(cmd, cwd, limit)
        shutil.rmtree(work, ignore_errors=True)
        if isinstance(r, str):
            return r
        samples.append(r)
        if r[0] > 5:
            break
    return tuple(statistics.median(s[i] for s in samples) for i in range(3))


def main():
    venv_python = os.path.join(VENV, "python")
    if os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(VENV, "..")):
        # The plot needs matplotlib from .venv: run under its interpreter.
        os.execv(venv_python, [venv_python] + sys.argv)
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="16,64,256,1024,4096")
    # CPU seconds per run; 30 keeps the whole bench in its 20 minutes (issue 9) and still shows
    # the peers' growth: at 4097 registers "> 30 s" against rdmagen's ~0.1 s.
    ap.add_argument("--limit", type=float, default=30)
    # scripts/bench-build.sh installs the peers while Yosys runs; the timed run finds them.
    ap.add_argument("--install-only", action="store_true", help="install the peers into .venv and stop")
    args = ap.parse_args()
    load_before = " ".join(open("/proc/loadavg").read().split()[:3])
    started = time.monotonic()
    os.makedirs(os.path.join(ROOT, "target", "bench"), exist_ok=True)
    # `make bench` may install from two steps at once (bench-hw's peer rows, bench-build): one
    # pip at a time in the shared .venv.
    with open(os.path.join(ROOT, "target", "bench", "peers-install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run([os.path.join(VENV, "pip"), "install", "-q"] + PEERS, check=True)
    if args.install_only:
        return
    sh(["cargo", "build", "-q", "--release", "-p", "rdmagen"], cwd=ROOT)
    rdmagen = os.path.join(ROOT, "target", "release", "rdmagen")
    peakrdl, corsair = os.path.join(VENV, "peakrdl"), os.path.join(VENV, "corsair")
    versions = {
        "rdmagen": sh([rdmagen, "--version"]).stdout.strip(),
        "peakrdl-regblock": "1.3.1",
        "corsair": sh([corsair, "--version"]).stdout.strip().split()[-1],
    }
    bench = os.path.join(ROOT, "target", "bench")
    rows, gave_up = [], set()
    for vfs in [int(v) for v in args.sizes.split(",")]:
        yaml = os.path.join(bench, f"peer_flat_{vfs}.yaml")
        with open(yaml, "w") as f:
            f.write(sh([os.path.join(ROOT, "scripts", "gen-bench-map.py"), str(vfs), "flat"]).stdout)
        regs = int(sh([rdmagen, "check", yaml]).stdout.rsplit(", ", 1)[1].split()[0])
        inputs = os.path.join(bench, f"peer_in_{vfs}")
        shutil.rmtree(inputs, ignore_errors=True)
        sh([rdmagen, "rdl", yaml, "-o", inputs])
        sh([rdmagen, "json", yaml, "-o", inputs])
        rdl = os.path.join(inputs, f"bench_flat_{vfs}.rdl")
        js = os.path.join(inputs, f"bench_flat_{vfs}.json")

        def corsair_cmd(outputs):
            def make(work):
                sh([sys.executable, os.path.join(ROOT, "scripts", "corsair-from-json.py"), js, work, "--outputs", outputs])
                return [corsair, "-c", "csrconfig"], work

            return make

        runs = {
            ("rdmagen", "rtl"): lambda w: ([rdmagen, "csr", yaml, "-o", w], ROOT),
            ("rdmagen", "all"): lambda w: (
                [rdmagen, "all", yaml, "--rtl", f"{w}/rtl", "--include", f"{w}/include", "--docs", f"{w}/docs", "--export", f"{w}/export"],
                ROOT,
            ),
            ("peakrdl-regblock", "rtl"): lambda w: ([peakrdl, "regblock", rdl, "-o", w, "--cpuif", "axi4-lite-flat"], ROOT),
            ("corsair", "rtl"): corsair_cmd("rtl"),
            ("corsair", "all"): corsair_cmd("all"),
        }
        for (tool, outputs), make in runs.items():
            if (tool, outputs) in gave_up:
                r = "skipped"
            else:
                r = measure(make, args.limit)
                if isinstance(r, str):
                    gave_up.add((tool, outputs))
            row = {"vfs": vfs, "registers": regs, "tool": tool, "outputs": outputs}
            if isinstance(r, tuple):
                row.update(wall_s=round(r[0], 3), peak_mib=round(r[1], 1), cpu_s=round(r[2], 2))
            else:
                row["result"] = r
            rows.append(row)
            print(json.dumps(row), flush=True)

    def result(vfs, tool, outputs):
        return next((r.get("result") for r in rows if (r["vfs"], r["tool"], r["outputs"]) == (vfs, tool, outputs)), None)

    def cpu(vfs, tool, outputs):
        for r in rows:
            if (r["vfs"], r["tool"], r["outputs"]) == (vfs, tool, outputs):
                return r.get("cpu_s")
        return None

    cpu_name = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
    load = open("/proc/loadavg").read().split()[:3]
    md = [
        "# Generator next to its peers",
        "",
        "Written by `make bench-peers` (`scripts/bench-peers.py`, which documents the commands); rerun it",
        "to refresh. Same maps for every tool (`scripts/gen-bench-map.py VFS flat`: VFS x 16 registers",
        "written out flat); PeakRDL reads our SystemRDL export of the map, Corsair a regmap converted from",
        "our JSON export (`scripts/corsair-from-json.py`). *rtl*: the CSR block only; *all*: every output",
        "the tool makes here (rdmagen: RTL, C header, Markdown + one SVG per register, SystemRDL, JSON;",
        "Corsair: RTL, C header, Markdown + one SVG per register). Median of 3 whole-process runs (1 when",
        f"a run takes over 5 s). Each run is capped at {args.limit:g} CPU seconds (RLIMIT_CPU, so the cap",
        "does not depend on the machine's load): a capped run shows \"> N CPU s\" and its ratio as a",
        "lower bound, and the tool is not run at larger maps. Times are wall / CPU (user + system)",
        "seconds; the ratios use CPU time, which other load on the machine disturbs less than wall time.",
        "",
        f"Versions: {versions['rdmagen']}, PeakRDL-regblock {versions['peakrdl-regblock']}, Corsair {versions['corsair']}.",
        f"Machine: {os.cpu_count()} CPUs, {cpu_name}; load average before: {load_before}, at the end: {' '.join(load)}; whole run {time.monotonic() - started:.0f} s.",
        "",
        "| registers | outputs | rdmagen s (wall / CPU) | PeakRDL-regblock s | Corsair s | PeakRDL / rdmagen (CPU) | Corsair / rdmagen (CPU) | peak MiB (rdmagen / PeakRDL / Corsair) |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def fmt(v):
        return "–" if v is None else f"{v:.3f}"

    def status(vfs, tool, outputs):
        for r in rows:
            if (r["vfs"], r["tool"], r["outputs"]) == (vfs, tool, outputs):
                if r.get("result") == "limit":
                    return f"> {args.limit:g} CPU s (capped)"
                if r.get("result") == "wall":
                    return f"> {10 * args.limit:g} wall s (capped)"
                if "result" in r:
                    return "not run (capped at a smaller map)"
                return f"{r['wall_s']:.2f} / {r['cpu_s']:.2f}"
        return "–"

    def mem(vfs, tool, outputs):
        for r in rows:
            if (r["vfs"], r["tool"], r["outputs"]) == (vfs, tool, outputs) and "peak_mib" in r:
                return f"{r['peak_mib']:.0f}"
        return "–"

    for vfs in sorted({r["vfs"] for r in rows}):
        regs = next(r["registers"] for r in rows if r["vfs"] == vfs)
        for outputs in ("rtl", "all"):
            # Ratios of CPU time (user + system): steadier than wall time on a shared machine;
            # 10 ms resolution, so rdmagen's small maps count at least 10 ms.
            ours = cpu(vfs, "rdmagen", outputs)
            ratios = []
            for tool in ("peakrdl-regblock", "corsair"):
                theirs = cpu(vfs, tool, outputs)
                if theirs and ours is not None:
                    ratios.append(f"{theirs / max(ours, 0.01):.0f}x")
                elif result(vfs, tool, outputs) == "limit" and ours is not None:
                    # The peer used at least the cap: its ratio is at least cap / ours.
                    ratios.append(f"> {args.limit / max(ours, 0.01):.0f}x")
                else:
                    ratios.append("–")
            md.append(
                f"| {regs} | {outputs} | {status(vfs, 'rdmagen', outputs)} "
                f"| {status(vfs, 'peakrdl-regblock', outputs) if outputs == 'rtl' else 'n/a'} "
                f"| {status(vfs, 'corsair', outputs)} | {ratios[0] if outputs == 'rtl' else 'n/a'} | {ratios[1]} "
                f"| {mem(vfs, 'rdmagen', outputs)} / {mem(vfs, 'peakrdl-regblock', outputs) if outputs == 'rtl' else 'n/a'} / {mem(vfs, 'corsair', outputs)} |"
            )
    md += ["", "![Generator wall time against register count](img/gen-time.svg)"]
    with open(os.path.join(ROOT, "docs", "BENCHMARKS.peers.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(ROOT, "docs", "BENCHMARKS.peers.json"), "w") as f:
        json.dump({"versions": versions, "limit_s": args.limit, "rows": rows}, f, indent=1)
        f.write("\n")
    plot(rows)
    print("\n".join(md))


def plot(rows):
    """CPU time against register count per tool and output set (log-log), as SVG."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "rdmagen"  # stable ids: the SVG diffs only when data does
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for tool, outputs, style in [
        ("rdmagen", "rtl", "o-"),
        ("rdmagen", "all", "o--"),
        ("peakrdl-regblock", "rtl", "s-"),
        ("corsair", "rtl", "^-"),
        ("corsair", "all", "^--"),
    ]:
        pts = [
            (r["registers"], max(r["cpu_s"], 0.01))
            for r in rows
            if (r["tool"], r["outputs"]) == (tool, outputs) and "cpu_s" in r
        ]
        if pts:
            ax.plot(*zip(*pts), style, label=f"{tool} ({outputs})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("registers (flat map)")
    ax.set_ylabel("CPU time, s (whole process, user + system)")
    ax.set_title("Register generators: time against map size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.join(ROOT, "docs", "img"), exist_ok=True)
    fig.savefig(os.path.join(ROOT, "docs", "img", "gen-time.svg"), metadata={"Date": None})


if __name__ == "__main__":
    main()
