/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: the loader's, over its base (loader_state.h) and under loader.c. The kw_events reader
 * (events.c): loader.c starts and stops it with each load; loader__poll(), which the commands
 * call instead of sleeping, comes to them with loader.h.
 */
#ifndef KW_EVENTS_H
#define KW_EVENTS_H

struct loader;

/*
 * Waits up to timeout_ms, then names the processes of new trigger rows (loader__identify(), every
 * 0.2 s). With --vm it wakes at each exec to read the new process's name, and decides about the
 * processes that ran probes before a decision (events.c). The loops of record, top and serve
 * call it instead of sleeping.
 */
void loader__poll(struct loader *l, int timeout_ms);

/*
 * After load, before the probes attach: the kw_events reader, and with --vm the exec program
 * and the processes of /proc.
 */
int events_start(struct loader *l);
void events_stop(struct loader *l);

#endif /* KW_EVENTS_H */
