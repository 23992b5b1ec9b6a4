#!/usr/bin/env bash
# Checks generated Verilog the way users will: `verilator --lint-only -Wall` with zero
# warnings, `iverilog -g2005` compile with no warnings, and Yosys `synth` with no latch and no
# error, no combinational path between AXI inputs and AXI outputs, and none from one
# valid/ready interface's ready input to another's ready or valid output.
# Usage: scripts/check-rtl.sh FILE.v...   (one module per file, named after the file;
# submodules are found in the file's directory, as `<module>.v`)
#
# - Verilator and Icarus see the whole hierarchy (port widths and connections are checked
#   across modules). Yosys synthesizes the file's own module with its submodules read as black
#   boxes (`read_verilog -lib`): every module is synthesized once, when its own file is checked,
#   not again inside each top that instantiates it. Pass the submodules' files too.
# - Files are checked in parallel, $CHECK_RTL_JOBS at a time (default: the number of CPUs);
#   the report keeps argument order.
# - A result is kept in $CHECK_RTL_CACHE (default target/check-rtl-cache) under a hash of the
#   file, its submodules, this script and the tool versions, so the same bytes are not checked
#   twice (make test's regression re-checks the CSR files lint-rtl has checked). Set
#   CHECK_RTL_CACHE= (empty) to turn that off.
# - CHECK_RTL_SYNTH=coarse stops Yosys after the coarse passes (`synth -run begin:fine`:
#   processes without ROM inference, latch inference, memories, FSMs, `check -assert`)
#   instead of mapping to gates.
#   make test uses it for the other reset style and the other parser widths: their logic maps
#   as rtl/'s does, and gate mapping is most of Yosys' time (82 s of 95 s on the 512-bit RX
#   parser). make bench maps the parser at every width fully (synth_xilinx).
set -uo pipefail
jobs=${CHECK_RTL_JOBS:-$(nproc 2>/dev/null || echo 1)}
cache=${CHECK_RTL_CACHE-target/check-rtl-cache}
synth=${CHECK_RTL_SYNTH:-full}
case $synth in full | coarse) ;; *) echo "CHECK_RTL_SYNTH must be full or coarse, not $synth" >&2; exit 2 ;; esac
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
tools="$(verilator --version 2>&1 | head -1); $(iverilog -V 2>&1 | head -1); $(yosys -V 2>&1)"
self=$(sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1)

# Cells a combinational cone stops at: flops and memory writes only. `%coe`/`%cie` would also
# stop at a memory's read port, which after `proc` is asynchronous (a synchronous read is that
# port and a flop), and so miss a path such as an address through a RAM to RDATA.
seq_cells='$ff,$dff,$dffe,$adff,$adffe,$sdff,$sdffe,$sdffce,$aldff,$aldffe,$dffsr,$dffsre'
seq_cells+=',$dlatch,$adlatch,$dlatchsr,$memwr,$memwr_v2,$meminit,$meminit_v2,$mem,$mem_v2'

# The interface a valid/ready port belongs to: `[prefix]s_axi[l]_` for AXI ports, else the
# name without its `[t]ready`/`[t]valid` suffix.
stream_if() {
  if [[ $1 =~ ^([a-z0-9_]*s_axil?_) ]]; then echo "${BASH_REMATCH[1]}"; else echo "$1" | sed -E 's/(ready|valid)$//'; fi
}

# Known combinational paths from one interface's ready input to another interface's ready or
# valid output: `module input output`, each with why it exists. Every other path fails.
# These are the next work items; a path is not skipped silently.
STREAM_ALLOW=(
  # QPC RX and R_Key lookups (rx, mk): a request is taken when the pipeline advances
  # (`*_adv`), which waits for the response's ready; the request and response ports are one
  # 2-stage pipeline, but their readies are a combinational path between two interfaces. The
  # RX parser drives both every cycle with its own pipeline enable as the response ready and
  # relies on the lookup moving with it; the doorbell and WQE ports have a response skid.
  "qpc rx_rsp_ready rx_req_ready"
  "qpc mk_rsp_ready mk_req_ready"
  # UAR: the doorbell at the head retires (takes the QPC's answer, `db_rsp_ready`, and pulses
  # the monitor `mon_valid`) in the cycle the fetch queue (`fetch_ready`) or the forward port
  # (`fwd_ready`, uar_mlx5) takes it. Fix: a skid on the fetch and forward outputs.
  "uar fetch_ready db_rsp_ready"
  "uar fetch_ready mon_valid"
  "uar_mlx5 fetch_ready db_rsp_ready"
  "uar_mlx5 fetch_ready mon_valid"
  "uar_mlx5 fwd_ready mon_valid"
  "uar_top fetch_ready mon_valid"
  "uar_mlx5_top fetch_ready mon_valid"
  "uar_mlx5_top fwd_ready mon_valid"
)

stream_allowed() {
  local e
  for e in "${STREAM_ALLOW[@]}"; do
    [ "$e" = "$1 $2 $3" ] && return 0
  done
  return 1
}

# Prints the `ok`/`FAIL` lines for one file.
check_one() {
  local f=$1 work=$2 top dir deps todo cur m d flow cells key
  top=$(basename "$f" .v)
  dir=$(dirname "$f")
  # Submodules this file instantiates, and theirs, from its own directory.
  deps=()
  todo=("$f")
  while [ ${#todo[@]} -gt 0 ]; do
    cur=${todo[0]}; todo=("${todo[@]:1}")
    for m in $(sed -n 's/^ *\([a-z][a-z0-9_]*\) \(#(\|u_[a-z0-9_]* (\).*/\1/p' "$cur" | sort -u); do
      d="$dir/$m.v"
      if [ "$m" != "$top" ] && [ -f "$d" ] && [[ " ${deps[*]} " != *" $d "* ]]; then
        deps+=("$d"); todo+=("$d")
      fi
    done
  done
  if [ -n "$cache" ]; then
    key=$( { echo "$self $tools $top $synth"; cat "$f" "${deps[@]}"; } | sha256sum | cut -d' ' -f1)
    if [ -f "$cache/$key" ]; then
      sed "s|@FILE@|$f|" "$cache/$key"
      return
    fi
  fi
  mkdir -p "$work"
  {
    # `ok` only when every check passed (a lint failure used to print both lines).
    local bad=0
    # AXI forbids combinational paths between a manager's or subordinate's inputs and its
    # outputs (IHI 0022, A3.2.1 / "Signal dependencies"): no input of an AXI4 or AXI4-Lite
    # interface (ports `[prefix]s_axi_*` or `[prefix]s_axil_*`, e.g. a top's `qpc_s_axil_*`)
    # may reach an output of the same interface without a flop, through the whole hierarchy
    # under this file. The cones stop at flops and memory writes only (`seq_cells`).
    local ifs
    ifs=$(grep -E '^ *(input|output)\b' "$f" | grep -oE '\b[a-z0-9_]*s_axil?_[a-z]' |
      sed 's/.$//' | sort -u)
    if [ -n "$ifs" ]; then
      local seq=$seq_cells
      local sel="" p
      for p in $ifs; do
        sel+="select -set ins i:$p*; select -set outs o:$p*;
          select -set path @ins %co*:-$seq @outs %ci*:-$seq %i;
          tee -q -o $work/axi-in-$p select -list @path @ins %i;
          tee -q -o $work/axi-out-$p select -list @path @outs %i; "
      done
      if ! yosys -q -l "$work/axi" -p "read_verilog $f ${deps[*]}; hierarchy -top $top; proc; flatten; opt_clean; $sel" \
          >/dev/null 2>&1; then
        echo "FAIL axi     @FILE@"; grep -E "ERROR" "$work/axi" | head -5 | sed 's/^/    /'
        bad=1
      else
        for p in $ifs; do
          if [ -s "$work/axi-in-$p" ] || [ -s "$work/axi-out-$p" ]; then
            echo "FAIL axi     @FILE@: combinational path from $p* inputs to $p* outputs"
            echo "    inputs:  $(sed 's|.*/||' "$work/axi-in-$p" | sort | tr '\n' ' ')"
            echo "    outputs: $(sed 's|.*/||' "$work/axi-out-$p" | sort | tr '\n' ' ')"
            echo "    fix: register the ready/valid outputs (a skid buffer keeps one transfer per cycle)"
            bad=1
          fi
        done
      fi
    fi
    # Valid/ready interfaces (AXI4-Stream and the blocks' own stream ports, UG934): no ready
    # input of one interface may reach a ready or valid output of another without a flop,
    # through the whole hierarchy under this file. Such a path makes timing closure depend on
    # whatever is connected on both sides and closes a loop when blocks are chained. An
    # interface is the port name without `[t]ready`/`[t]valid` (`m_hdr_`, `s_axis_t`,
    # `rx_wb_`), or the `[prefix]s_axi[l]_` of an AXI port (its channels are one interface,
    # checked above). Known paths are listed in STREAM_ALLOW, each with its reason.
    local rdy outs_rv
    rdy=$(grep -E '^ *input\b' "$f" | grep -oE '\b[a-z0-9_]*ready\b' | sort -u)
    outs_rv=$(grep -E '^ *output\b' "$f" | grep -oE '\b[a-z0-9_]*(ready|valid)\b' | sort -u)
    if [ -n "$rdy" ] && [ -n "$outs_rv" ]; then
      local ssel="" o
      for o in $outs_rv; do
        ssel+="tee -q -o $work/stream-$o select -list o:$o %ci*:-$seq_cells i:*ready %i; "
      done
      if ! yosys -q -l "$work/stream" -p "read_verilog $f ${deps[*]}; hierarchy -top $top; proc; flatten; opt_clean; $ssel" \
          >/dev/null 2>&1; then
        echo "FAIL stream  @FILE@"; grep -E "ERROR" "$work/stream" | head -5 | sed 's/^/    /'
        bad=1
      else
        local i_ o_if i_if
        for o in $outs_rv; do
          o_if=$(stream_if "$o")
          for i_ in $(sed 's|.*/||' "$work/stream-$o" | sort -u); do
            i_if=$(stream_if "$i_")
            [ "$i_if" = "$o_if" ] && continue
            if stream_allowed "$top" "$i_" "$o"; then
              echo "note stream  @FILE@: $i_ -> $o is combinational (allowed in STREAM_ALLOW)"
              continue
            fi
            echo "FAIL stream  @FILE@: combinational path from $i_ to $o (another interface's ready)"
            bad=1
          done
        done
        [ "$bad" = 1 ] && echo "    fix: compute the output from flops (an output register and a skid entry per stream)"
      fi
    fi
    if ! verilator --lint-only -Wall --top-module "$top" "$f" "${deps[@]}" >"$work/lint" 2>&1 || [ -s "$work/lint" ]; then
      echo "FAIL lint    @FILE@"; sed 's/^/    /' "$work/lint" | head -40
      bad=1
    fi
    if ! iverilog -g2005 -Wall -o /dev/null "$f" "${deps[@]}" >"$work/iv" 2>&1 || [ -s "$work/iv" ]; then
      echo "FAIL iverilog @FILE@"; sed 's/^/    /' "$work/iv" | head -40
      bad=1
    fi
    # Blocks with RAMs (context RAMs, per-flow state) keep them as memory cells, as a RAM macro
    # or block RAM would take them: mapping them to flip-flops would only measure Yosys.
    flow="synth -top $top"
    if [ "$synth" = coarse ]; then
      # Case tables stay multiplexers (`proc -norom`): Yosys 0.23's `check` takes an unmapped
      # ROM's read data for an undriven wire.
      flow="hierarchy -top $top; proc -norom; synth -top $top -run begin:fine"
    elif grep -qE '\] *[a-z_0-9]+ \[0:' "$f"; then
      flow="synth -top $top -run begin:fine; opt -fast -full; techmap; opt -fast; abc; opt -fast; clean"
    fi
    local lib=""
    [ ${#deps[@]} -gt 0 ] && lib="read_verilog -lib ${deps[*]};"
    if ! yosys -l "$work/ys" -p "$lib read_verilog $f; $flow; check -assert; select -assert-none t:\$_DLATCH* t:\$dlatch* t:\$adlatch*; stat" >/dev/null 2>&1; then
      echo "FAIL yosys   @FILE@"; grep -E "ERROR|Latch inferred|Warning" "$work/ys" | head -20 | sed 's/^/    /'
    elif grep -q "Latch inferred" "$work/ys"; then
      echo "FAIL latch   @FILE@"; grep "Latch inferred" "$work/ys" | head -10 | sed 's/^/    /'
    elif [ "$bad" = 0 ]; then
      cells=$(grep -E "Number of cells" "$work/ys" | tail -1 | awk '{print $NF}')
      local own=""
      [ ${#deps[@]} -gt 0 ] && own=" in its own module"
      local what="synth"
      [ "$synth" = coarse ] && what="coarse synth"
      echo "ok   @FILE@ (verilator -Wall, iverilog -g2005, yosys $what: $cells cells$own, no latches)"
    fi
  } >"$work/result"
  # Only results of the checks themselves are kept: a tool that could not run is not cached.
  if [ -n "$cache" ] && ! grep -q "^FAIL" "$work/result"; then
    mkdir -p "$cache" && cp "$work/result" "$cache/$key"
  fi
  sed "s|@FILE@|$f|" "$work/result"
}

i=0
for f in "$@"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  check_one "$f" "$log/w$i" >"$log/out$i" &
  i=$((i + 1))
done
wait
fail=0
for ((j = 0; j < i; j++)); do
  cat "$log/out$j"
  grep -q "^FAIL" "$log/out$j" && fail=1
done
exit $fail
