#!/bin/bash
# SPDX-License-Identifier: MIT
# Gives every source file outside kernel/ an SPDX-License-Identifier line
# with meson.build's license: (kernel/ carries the driver's own GPL-2.0
# lines).  Files that have an SPDX line keep it.  Run it again after new
# files land.
#
#   tools/spdx.sh           add the line where it is missing
#   tools/spdx.sh --check   list the files without the line, or with
#                           another licence than meson's; exit 1 if any
set -eu
cd "${SPDX_ROOT:-$(dirname "$0")/..}"
check=0
[ "${1:-}" = "--check" ] && check=1

license=$(sed -n "s/^[[:space:]]*license:[[:space:]]*'\([^']*\)'.*/\1/p" meson.build |
	head -1)
[ -n "$license" ] || { echo "spdx: no license: in meson.build" >&2; exit 2; }
tag="SPDX-License-Identifier: $license"

# The sources: what git tracks (a tree without .git: every file but
# build directories).
list_files() {
	if git rev-parse --git-dir >/dev/null 2>&1; then
		git ls-files -co --exclude-standard
	else
		find . -type f -not -path './.git/*' -not -path './build*' \
			-not -path './obj-*' | sed 's|^\./||'
	fi
}

# The comment that carries the tag in FILE, or nothing for a file that
# is not a source (data, docs, package metadata).
comment_for() {
	case $1 in
	kernel/*) return ;;
	*.c | *.h | *.js) echo "/* $tag */" ;;
	*.py | *.sh | meson.build | */meson.build | meson_options.txt | \
	*.service.in | *.sysusers | debian/rules | debian/*.postinst | \
	.ci/run) echo "# $tag" ;;
	*.html) echo "<!-- $tag -->" ;;
	docs/man/*.[1-8]) echo ".\\\" $tag" ;;
	esac
}

missing=0
while read -r f; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	line=$(comment_for "$f")
	[ -n "$line" ] || continue
	found=$(head -5 "$f" | grep -o 'SPDX-License-Identifier: .*' |
		head -1 | sed 's/[[:space:]]*\(\*\/\|-->\)\{0,1\}[[:space:]]*$//') ||
		true
	if [ -n "$found" ]; then
		if [ "$found" != "$tag" ]; then
			echo "$f: '$found', meson.build says '$tag'"
			missing=$((missing + 1))
		fi
		continue
	fi
	if [ $check = 1 ]; then
		echo "$f: no SPDX-License-Identifier line"
		missing=$((missing + 1))
		continue
	fi
	# After a #! line or an HTML doctype, which must stay first.
	first=$(head -1 "$f")
	case $first in
	'#!'* | '<!'[dD][oO][cC][tT][yY][pP][eE]*) at=1 ;;
	*) at=0 ;;
	esac
	tmp=$(mktemp)
	{
		head -n $at "$f"
		printf '%s\n' "$line"
		tail -n +$((at + 1)) "$f"
	} >"$tmp"
	chmod --reference="$f" "$tmp"
	mv "$tmp" "$f"
	echo "spdx: $f"
done < <(list_files)

if [ $check = 1 ]; then
	[ $missing = 0 ] && echo "every source outside kernel/ has '$tag'"
	[ $missing = 0 ]
fi
