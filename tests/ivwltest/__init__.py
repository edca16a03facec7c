# SPDX-License-Identifier: MIT
"""The Python side of ivwl's tests: sessions of real weston with ivwl.so
(session), hostile peers against them (hostile_session, server_proxy),
the QEMU deployment of app-VMs (deploy_b).  The test scripts import it
with tests/ on PYTHONPATH (meson's test environment sets it)."""
