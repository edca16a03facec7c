#!/bin/sh
# SPDX-License-Identifier: MIT
# Formats ivwl's C sources with .clang-format, or checks them.  Trailing
# comments then go to a tab stop with tabs (tools/tab-comments.py), which
# clang-format cannot do.
#
#   tools/format.sh [--check] [FILE...]
#
# Without FILEs: every tracked .c and .h outside kernel/ (the driver keeps
# the kernel's style, which `ninja checkpatch-ko` checks).  --check
# changes nothing: it lists each file that would change with the number
# of lines, prints the totals and exits 1 when there is any.
set -eu

cd "$(dirname "$0")/.."

check=false
if [ "${1:-}" = --check ]; then
	check=true
	shift
fi

fmt=${CLANG_FORMAT:-clang-format}
if ! command -v "$fmt" >/dev/null; then
	echo "format.sh: $fmt not found (tools/deps.sh installs it)" >&2
	exit 2
fi

if [ $# -eq 0 ]; then
	if git rev-parse --git-dir >/dev/null 2>&1; then
		set -- $(git ls-files '*.c' '*.h' | grep -v '^kernel/')
	else
		set -- $(find . -path ./kernel -prune -o -path './build*' \
			 -prune -o \( -name '*.c' -o -name '*.h' \) -print)
	fi
fi

formatted()
{
	"$fmt" --style=file "$1" | tools/tab-comments.py
}

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
files=0
lines=0
for f in "$@"; do
	formatted "$f" >"$tmp"
	if ! $check; then
		cmp -s "$f" "$tmp" || cat "$tmp" >"$f"
		continue
	fi
	n=$(diff "$f" "$tmp" | grep -c '^[<>]' || true)
	if [ "$n" -gt 0 ]; then
		echo "$f: $n lines"
		files=$((files + 1))
		lines=$((lines + n))
	fi
done

if $check; then
	echo "format-check: $files of $# files would change ($lines lines" \
	     "removed or added)"
	[ "$files" -eq 0 ]
fi
