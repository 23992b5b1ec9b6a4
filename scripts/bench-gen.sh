#!/usr/bin/env bash
# `make bench`: whole-process wall time and peak memory of `rdmagen all` (release build) on
# generated NIC-scale maps — 256 VFs x 16 registers written flat (4096 distinct registers) and
# 4096 VFs x 16 (65536), plus the same as one parameterised array and the small example map —
# median of 11 runs each (3 for the 65536-register map, whose runs take seconds), into fresh output directories and again over unchanged outputs; with
# valgrind installed, also the instruction count of one fresh run (callgrind; steady however
# loaded the machine is), except for the 65536-register map (minutes under valgrind). Writes
# docs/BENCHMARKS.gen.md, then scripts/bench-report.sh assembles docs/BENCHMARKS.md.
# The maps come from scripts/gen-bench-map.py and are not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
# 11 runs: single runs of the 4096-register map spread over 40-56 ms within a minute on this
# machine (helpers stopped), and the median of 5 moved from 42 to 51 ms between two `make
# bench` runs a minute apart (session 29).
runs=11
# The 65536-register map: each run takes about a second, so 3 runs give a steady median; this
# keeps `make bench` inside its 20 minutes.
runs_big=3
dir=target/bench
mkdir -p "$dir"
cargo build -q --release -p rdmagen
bin=target/release/rdmagen
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing; run scripts/setup.sh" >&2; exit 1; }

# Instructions of one fresh run under callgrind, in millions, or "-" without valgrind.
instructions() {
  local map=$1 out=$2
  if ! command -v valgrind >/dev/null; then echo "-"; return; fi
  valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "$bin" all "$map" \
    --rtl "$out/rtl" --include "$out/include" --docs "$out/docs" --export "$out/export" \
    >/dev/null 2>"$dir/callgrind.log"
  rm -f "$dir/callgrind.out"
  sed -nE 's/.*Collected : ([0-9]+).*/\1/p' "$dir/callgrind.log" | awk '{ printf "%d", $1 / 1000000 }'
}

# shellcheck source=scripts/load-verdict.sh
. scripts/load-verdict.sh  # (the working directory is the repository root here)

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Runs `rdmagen all MAP` into $out once, prints "wall_ms peak_kb cpu_ms" (cpu: user + system).
one() {
  local map=$1 out=$2 t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%M %U %S" -o "$dir/time.txt" "$bin" all "$map" --rtl "$out/rtl" \
    --include "$out/include" --docs "$out/docs" --export "$out/export" >/dev/null
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(tail -1 "$dir/time.txt" | awk '{ printf "%d %d", $1, ($2 + $3) * 1000 }')"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
for spec in "example" "256 flat" "4096 flat" "256 array" "4096 array"; do
  set -- $spec
  if [ "$1" = example ]; then
    map=register-maps/example.yaml name="example.yaml"
    set -- example map
  else
    map="$dir/$2_$1.yaml" name="$1 VFs x 16, $2"
    scripts/gen-bench-map.py "$1" "$2" >"$map"
  fi
  regs=$("$bin" check "$map" | sed -E 's/.*, ([0-9]+) registers\)/\1/')
  for mode in fresh unchanged; do
    rm -rf "$dir"/out_*
    out="$dir/out_$2_$1"
    [ "$mode" = unchanged ] && one "$map" "$out" >/dev/null
    : >"$dir/samples.txt"
    n=$runs
    [ "$regs" -gt 4097 ] && n=$runs_big
    for run in $(seq "$n"); do
      # A new directory per fresh run: deleting thousands of files just before a run makes
      # the file system slow down the next one, which is not the generator's cost.
      [ "$mode" = fresh ] && out="$dir/out_$2_$1_$run"
      one "$map" "$out" >>"$dir/samples.txt"
    done
    wall=$(awk '{ print $1 }' "$dir/samples.txt" | median)
    mem=$(awk '{ print $2 }' "$dir/samples.txt" | median)
    cpu=$(awk '{ print $3 }' "$dir/samples.txt" | median)
    files=$(find "$out" -type f | wc -l)
    instr="-"
    if [ "$mode" = fresh ] && [ "$regs" -le 4097 ]; then
      instr=$(instructions "$map" "$dir/out_callgrind")
    fi
    row="| $name | $regs | $mode | $files | $wall | $cpu | $((mem / 1024)) | $instr |"
    rm -rf "$dir"/out_*
    echo "$row"
    rows+=("$row")
  done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
{
  echo "# Generator benchmarks"
  echo
  echo "Written by \`make bench\` (scripts/bench-gen.sh); rerun it to refresh. Each row is the median"
  echo "of $runs whole-process runs ($runs_big for the 65537-register map) of"
  echo
  echo '```sh'
  echo "target/release/rdmagen all MAP --rtl OUT/rtl --include OUT/include --docs OUT/docs --export OUT/export"
  echo '```'
  echo
  echo "timed with \`date +%s%N\` around \`/usr/bin/time -f '%M %U %S'\` (peak resident memory; CPU is"
  echo "user + system time, 10 ms resolution, less sensitive than wall time to other load). *fresh*:"
  echo "each run writes into a new, empty output directory, so every file is written; *unchanged*: the"
  echo "outputs already exist and match, so each file is read and compared and none is written."
  echo "*M instr*: instructions of one fresh run counted by \`valgrind --tool=callgrind\` (all threads;"
  echo "independent of other load on the machine; not measured for the 65536-register map)."
  echo "Maps: \`scripts/gen-bench-map.py VFS flat|array\` (16 registers per VF with every access type,"
  echo "interrupt pairs, counters and an enum, plus one global register), and register-maps/example.yaml."
  echo
  echo "Machine: $(nproc) CPUs, $cpu; load average (1, 5, 15 min) before the run: $load_before, after: $load_after"
  echo "($(load_verdict "$load_before"))."
  echo
  echo "| map | registers | outputs | files | wall ms | CPU ms | peak MiB | M instr |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} >docs/BENCHMARKS.gen.md
echo "bench: wrote docs/BENCHMARKS.gen.md"
scripts/bench-report.sh
