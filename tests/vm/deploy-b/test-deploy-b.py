#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deployment B in QEMU: see tests/ivwltest/deploy_b.py, which
test-deploy-b-clock.py and deploy-a's test build on."""

import sys

from ivwltest.deploy_b import main

if __name__ == "__main__":
    sys.exit(main())
