#!/bin/bash
# SPDX-License-Identifier: MIT
# A Debian sid root (weston 16, libwayland 1.24), made and used as the
# trixie root is (tools/trixie-root.sh):
#
#   tools/sid-root.sh ensure | run CMD...
#
# The root stays in $IVWL_SID_ROOT (default /var/cache/ivwl/sid-root).
IVWL_ROOT_SUITE=sid exec "$(dirname "$0")/trixie-root.sh" "$@"
