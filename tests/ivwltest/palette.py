# SPDX-License-Identifier: MIT
"""32 VM colours any two of which weston takes as far enough apart
(plugin/config.c: CIE76 delta E of 20 or more; these are 31.6 apart at
least), the first three the sessions' usual blue, red and green: the
palette weston-ivwl(7) gives.  Picked by farthest-point search over a
16-step RGB grid, away from the attention bar's amber, the veil's grey
and the desktop's background."""

VM_COLORS = [
    0xff3070c0, 0xffc03030, 0xff30a040, 0xff0000f0, 0xfff020c0, 0xff00f0f0,
    0xffc0f000, 0xfff0f0a0, 0xff300080, 0xfff0a0e0, 0xff706000, 0xff800050,
    0xff00f040, 0xfff0a070, 0xffa070f0, 0xfff0f0f0, 0xff105020, 0xffc000f0,
    0xff500000, 0xff001040, 0xff60c0f0, 0xfff03080, 0xfff06000, 0xffb0b020,
    0xff00f0b0, 0xff009090, 0xffd07080, 0xff80c090, 0xffa0f070, 0xffa05000,
    0xff0040e0, 0xff704090,
]


def vm_color(i):
    """The i-th VM's colour as weston.ini writes it."""
    return "0x%08x" % VM_COLORS[i % len(VM_COLORS)]
