# rdmagen: `make rtl` regenerates rtl/ from register-maps/; `make test` installs what is missing
# and runs every check. See README.md.

CARGO   ?= cargo
# The project-wide reset style of generated RTL: sync-high (rst) or async-low (rst_n).
RESET   ?= sync-high
MAPS    := $(sort $(wildcard register-maps/*.yaml))
RDMAGEN := $(CARGO) run -q -p rdmagen --

.PHONY: all rtl test setup fmt-check clippy cargo-test regen-check lint-rtl lint-rtl-async

all: rtl

rtl:
	$(RDMAGEN) csr $(MAPS) -o rtl --reset $(RESET)

setup:
	scripts/setup.sh

fmt-check:
	$(CARGO) fmt --all --check

clippy:
	$(CARGO) clippy --workspace --all-targets -q -- -D warnings

cargo-test:
	$(CARGO) test --workspace

regen-check: rtl
	scripts/regen-check.sh

lint-rtl: regen-check
	scripts/check-rtl.sh rtl/*.v

# The other reset style, generated outside rtl/ and held to the same checks.
lint-rtl-async:
	rm -rf target/rtl-async-low
	$(RDMAGEN) csr $(MAPS) -o target/rtl-async-low --reset async-low
	scripts/check-rtl.sh target/rtl-async-low/*.v

test: setup
	$(MAKE) fmt-check clippy
	$(MAKE) cargo-test
	$(MAKE) lint-rtl lint-rtl-async
	@echo "make test: all checks passed"
