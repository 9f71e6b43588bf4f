/*
 * tap.h — packet capture on ports: which ports are tapped ([pcap] taps, or
 * every host port with --pcap alone), one pcap file per tapped port, and
 * the hook a port calls for each frame that crosses its link.
 *
 * A tap records both directions of its port's link, as a capture on that
 * interface would: a frame it sends when its first bit goes on the wire
 * (tap_tx), a frame it receives when its last bit has arrived (tap_rx; the
 * frame is written when the receiving switch takes it, switch_latency
 * later, so a switch port's file is in time order per direction but may
 * hold a received frame after a sent one that is up to that latency
 * younger).
 * Files are named after the port ("host0-p0.pcap", "tor3-p5.pcap") and
 * opened before the run, so an unwritable folder is an input error found
 * before any simulation; they are flushed and closed when the run ends,
 * interrupted or not.
 *
 * Capture is on when --pcap DIR, [pcap] dir or [pcap] taps is given. The
 * folder is --pcap's, else [pcap] dir, else the database path without its
 * extension (results/incast_pfc.db -> results/incast_pfc/).
 *
 * An untapped port pays one predictable branch per frame sent and one per
 * frame received (port.c): its `tap` pointer is NULL.
 */
#ifndef ROCESIM_TAP_H
#define ROCESIM_TAP_H

struct world;
struct taps;

/* Resolves which ports to tap. *out = NULL when capture is off. Returns 0,
 * or -1 with *err (malloc'd, "FILE:LINE: [pcap] taps = '...': ...") for a
 * name that is not a node or node:port of the topology. Opens nothing. */
int tap_setup(struct world *w, const char *cli_dir, struct taps **out, char **err);
/* Creates the folder (here when not NULL: a rank's private one, whose
 * files rank 0 receives, parallel.h; else --pcap's, [pcap] dir or what
 * db_path gives) and one file per tapped port of this rank, then hooks
 * the ports. Returns 0, or -1 with *err (malloc'd, naming the key or
 * option and the path) after removing what it created. */
int tap_open(struct taps *t, const char *db_path, const char *here, char **err);
/* The folder tap_open made or took (until tap_close). */
const char *tap_dir(const struct taps *t);
/* Unhooks, flushes and closes every file (warns when a write failed), frees t. NULL: no-op. */
void tap_close(struct taps *t);
/* As tap_close, but removes the files and the folders tap_open created. */
void tap_discard(struct taps *t);

#endif
