/* SPDX-License-Identifier: MIT */
/*
 * The agent's half of the clock link (protocol/region/clock-link.h), with its
 * log lines.
 */
#ifndef IVWL_CLOCK_AGENT_H
#define IVWL_CLOCK_AGENT_H

#include <stdbool.h>

#include "clock-link.h"

/* The display answered: estimate, publish, and say what changed. */
void
ivwl_agent_clock_heard(struct ivwl_clock_asker *c, bool verbose);

#endif
