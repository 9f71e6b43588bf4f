/*
 * pcap.h — pcap files of Ethernet frames with nanosecond timestamps, written
 * through libpcap's dump API (docs/protocol.md "Packet capture"): link type DLT_EN10MB,
 * magic 0xa1b23c4d, so Wireshark and tshark read them as they are.
 *
 * The kernel knows nothing of frames: callers hand over finished bytes and a
 * simulated time. Frames longer than the snap length are cut to it, their
 * original length kept in the record (as a capture with `-s` does).
 */
#ifndef ROCESIM_PCAP_H
#define ROCESIM_PCAP_H

#include <stdint.h>
#include "simtime.h"

#define PCAPW_MAX_SNAPLEN 65535u   /* longer than any frame the simulator builds */

struct pcapw;

/* Creates (truncates) the file at path. snaplen 0 or above PCAPW_MAX_SNAPLEN
 * means PCAPW_MAX_SNAPLEN. Returns NULL with *err (malloc'd: the path and
 * why, e.g. "Permission denied") on failure. */
struct pcapw *pcapw_open(const char *path, uint32_t snaplen, char **err);
/* Appends one frame of len bytes seen at t_ps (truncated to whole ns). */
void pcapw_write(struct pcapw *w, simtime_t t_ps, const uint8_t *frame, uint32_t len);
/* Frames written so far. */
uint64_t pcapw_frames(const struct pcapw *w);
/* Flushes and closes; frees w. Returns 0, or -1 with *err (malloc'd) when a
 * write failed (disk full): the file is then incomplete. */
int pcapw_close(struct pcapw *w, char **err);

#endif
