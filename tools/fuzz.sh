#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the fuzz targets as libFuzzer binaries (clang, ASan + UBSan) and
# runs each for SECONDS (default 30).  Exit status 1 if any target crashed.
#   tools/fuzz.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-30}

tools/deps.sh
if [ ! -d build-fuzz ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
ninja -C build-fuzz

pass=0
fail=0
for target in build-fuzz/tests/fuzz/fuzz-*; do
	[ -x "$target" ] && [ -f "$target" ] || continue
	name=$(basename "$target")
	corpus=$(mktemp -d)
	if "$target" -max_total_time="$seconds" -print_final_stats=0 \
		"$corpus" >"$corpus.log" 2>&1; then
		echo "ok   $name: $(grep -o 'Done [0-9]* runs' "$corpus.log")"
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		tail -40 "$corpus.log"
		fail=$((fail + 1))
	fi
	rm -rf "$corpus" "$corpus.log"
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
