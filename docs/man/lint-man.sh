#!/bin/bash
# SPDX-License-Identifier: MIT
# Fails on any warning about a man page from mandoc -T lint or from
# groff through man --warnings.
#   lint-man.sh PAGE...
set -u
have=0
fail=0
for page in "$@"; do
	if command -v mandoc >/dev/null; then
		have=1
		out=$(mandoc -T lint -W warning "$page" 2>&1)
		if [ -n "$out" ]; then
			echo "$out"
			fail=1
		fi
	fi
	if command -v man >/dev/null; then
		have=1
		# groff's own warnings go to stderr; the page itself is thrown
		# away
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 \
			-l "$page" 2>&1 >/dev/null)
		if [ -n "$out" ]; then
			echo "$page: man --warnings:"
			echo "$out"
			fail=1
		fi
	fi
done
if [ $have = 0 ]; then
	echo "neither mandoc nor man is installed (tools/deps.sh)"
	exit 77
fi
[ $fail = 0 ] && echo "$# pages lint clean"
exit $fail
