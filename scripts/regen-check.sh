#!/usr/bin/env bash
# Fails when `make rtl` changed, added or removed anything under the generated directories:
# generated files are committed and must match what the generator produces from the committed
# maps.
set -euo pipefail
dirs=(rtl/ sw/include/ docs/regs/ export/)
if ! git diff --exit-code --stat -- "${dirs[@]}" || [ -n "$(git status --porcelain -- "${dirs[@]}")" ]; then
  echo "regen-check: ${dirs[*]} differ from what 'make rtl' generates; run 'make rtl' and commit:" >&2
  git status --short -- "${dirs[@]}" >&2
  git --no-pager diff -- "${dirs[@]}" | head -60 >&2
  exit 1
fi
echo "regen-check: ${dirs[*]} are up to date"
