SHELL := /bin/bash
# rdmagen: `make rtl` regenerates rtl/ from register-maps/; `make test` installs what is missing
# and runs every check. See README.md.

CARGO   ?= cargo
# The project-wide reset style of generated RTL: sync-high (rst) or async-low (rst_n).
RESET   ?= sync-high
MAPS    := $(sort $(wildcard register-maps/*.yaml))
RDMAGEN := $(CARGO) run -q -p rdmagen --

.PHONY: all rtl test setup fmt-check clippy doc cargo-test regen-check lint-rtl lint-rtl-async \
	check-headers check-rdl check-svg bench

all: rtl

# Every generated output: CSR RTL (rtl/), C headers (sw/include/), the register reference
# (docs/regs/), SystemRDL and JSON exports (export/). All committed; CI diffs them.
rtl:
	$(RDMAGEN) all $(MAPS) --rtl rtl --include sw/include --docs docs/regs --export export --reset $(RESET)

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

regen-check: rtl
	scripts/regen-check.sh

lint-rtl: regen-check
	set -o pipefail; scripts/check-rtl.sh rtl/*.v | tee target/rtl-check.log

# The other reset style, generated outside rtl/ and held to the same checks.
lint-rtl-async:
	rm -rf target/rtl-async-low
	$(RDMAGEN) csr $(MAPS) -o target/rtl-async-low --reset async-low
	set -o pipefail; scripts/check-rtl.sh target/rtl-async-low/*.v | tee target/rtl-check-async.log

# The generated C headers compiled as C11 and C++17 with warnings as errors.
check-headers: regen-check
	set -o pipefail; scripts/check-headers.sh sw/include/*.h | tee target/header-check.log

# The SystemRDL exports elaborated by systemrdl-compiler and compared with the JSON exports.
check-rdl: regen-check
	set -o pipefail; .venv/bin/python scripts/check-rdl.py export/*.rdl | tee target/rdl-check.log

# One register picture per map rendered to PNG (well-formedness of all: cargo test).
check-svg: regen-check
	set -o pipefail; scripts/check-svg.sh docs/regs | tee target/svg-check.log

# Wall time and peak memory of `rdmagen all` on generated 4096- and 65536-register maps.
bench:
	scripts/bench-gen.sh

test: setup
	$(MAKE) fmt-check clippy doc
	$(MAKE) cargo-test
	$(MAKE) lint-rtl lint-rtl-async check-headers check-rdl check-svg
	@scripts/summary.sh target/cargo-test.log target/rtl-check.log target/rtl-check-async.log \
		target/header-check.log target/rdl-check.log target/svg-check.log
