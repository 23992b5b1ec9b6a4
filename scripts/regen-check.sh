#!/usr/bin/env bash
# Fails when `make rtl` changed or added anything under rtl/: generated files are committed and
# must match what the generator produces from the committed maps.
set -euo pipefail
if ! git diff --exit-code --stat -- rtl/ || [ -n "$(git status --porcelain -- rtl/)" ]; then
  echo "regen-check: rtl/ differs from what 'make rtl' generates; run 'make rtl' and commit:" >&2
  git status --short -- rtl/ >&2
  git --no-pager diff -- rtl/ | head -60 >&2
  exit 1
fi
echo "regen-check: rtl/ is up to date"
