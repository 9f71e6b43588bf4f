/*
 * pcap.c — the libpcap dump wrapper of pcap.h.
 *
 * A "dead" pcap_t (no interface) with nanosecond timestamp precision gives
 * the file header; pcap_dump then writes records whose ts.tv_usec carries
 * nanoseconds (pcap_open_dead_with_tstamp_precision(3PCAP)). Writes go
 * through the dumper's stdio buffer; errors are sticky in the FILE and
 * reported once, at close.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcap.h"
#include "xalloc.h"

struct pcapw {
	pcap_t *dead;              /* carries link type, snap length and precision */
	pcap_dumper_t *dump;
	char *path;
	uint32_t snaplen;
	uint64_t frames;
};

struct pcapw *pcapw_open(const char *path, uint32_t snaplen, char **err)
{
	if (snaplen == 0 || snaplen > PCAPW_MAX_SNAPLEN)
		snaplen = PCAPW_MAX_SNAPLEN;
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, (int)snaplen,
							      PCAP_TSTAMP_PRECISION_NANO);
	if (!dead) {
		err_printf(err, "cannot create %s: libpcap has no nanosecond precision", path);
		return NULL;
	}
	errno = 0;
	pcap_dumper_t *dump = pcap_dump_open(dead, path);
	if (!dump) {
		/* libpcap's message is "PATH: strerror"; errno is still fopen's. */
		err_printf(err, "cannot create %s: %s", path, errno ? strerror(errno) : pcap_geterr(dead));
		pcap_close(dead);
		return NULL;
	}
	struct pcapw *w = xcalloc(1, sizeof *w);
	*w = (struct pcapw){ .dead = dead, .dump = dump, .path = xstrdup(path), .snaplen = snaplen };
	return w;
}

void pcapw_write(struct pcapw *w, simtime_t t_ps, const uint8_t *frame, uint32_t len)
{
	int64_t ns = t_ps / SIMTIME_NS;
	struct pcap_pkthdr h = {
		.caplen = len < w->snaplen ? len : w->snaplen,
		.len = len,
	};
	h.ts.tv_sec = (time_t)(ns / 1000000000);
	h.ts.tv_usec = (suseconds_t)(ns % 1000000000); /* nanoseconds: the file is nano-precision */
	pcap_dump((u_char *)w->dump, &h, frame);
	w->frames++;
}

uint64_t pcapw_frames(const struct pcapw *w) { return w->frames; }

int pcapw_close(struct pcapw *w, char **err)
{
	FILE *f = pcap_dump_file(w->dump);
	int bad = pcap_dump_flush(w->dump) != 0 || ferror(f);
	int e = errno;
	pcap_dump_close(w->dump);   /* fclose: may fail too, on a full disk */
	pcap_close(w->dead);
	if (bad)
		err_printf(err, "capture %s is incomplete: %s", w->path, strerror(e ? e : EIO));
	free(w->path);
	free(w);
	return bad ? -1 : 0;
}
