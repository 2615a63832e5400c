/* csv: the timeline CSV writer (format in docs/FORMATS.md).
 *
 * Each row is formatted into one buffer and written with a single write(2),
 * unbuffered: a monitor killed with SIGKILL leaves only whole rows behind,
 * and a full disk is noticed at the row that did not fit.
 */
#ifndef PERFHUNT_CSV_H
#define PERFHUNT_CSV_H

#include <stdbool.h>

#include "monitor/sample.h"
#include "util/err.h"

enum csv_format { CSV_FULL, CSV_SEED };

struct csv_writer {
	int fd;
	enum csv_format format;
	bool with_client;    /* a daemon is attached: the command's tree in client_* columns */
	bool with_gpu_procs; /* the gpu_procs_mib column (GPU memory is sampled) */
	long long whole_bytes; /* bytes of whole rows written: a failed write is cut back to it */
	bool header_due;     /* CSV_FULL: the header is written with the first row */
	char path[4096];
};

/* Opens path as fsafe_open_stream does (never through another user's link or
 * directory), takes an exclusive flock on a regular file, which a second
 * writer is refused (before anything is cut), then truncates it. The header
 * is written with the first row (csv_format_header). with_gpu_procs: GPU
 * memory is sampled (an NVIDIA driver is there), so each row ends with its
 * processes' own. */
int csv_open(struct csv_writer *w, const char *path, enum csv_format format, bool with_client,
	     bool with_gpu_procs, struct err *e);
/* Returns 0, or -1 with errno set when the row could not be written whole.
 * client: the command's tree when a daemon is attached (s is the daemon's). */
int csv_write(struct csv_writer *w, const struct sample *s, const struct sample *client);
/* Closes; returns -1 (e filled) if the data could not be committed. */
int csv_close(struct csv_writer *w, struct err *e);
/* The full format's header line: csv_header's columns, the tree's memory
 * column named by how it is counted (tree_cgroup_kb, tree_pss_kb,
 * tree_rss_sum_kb), then with_client's client_* columns, then with_gpu_procs'
 * gpu_procs_mib; returns its length (0 if it does not fit). */
size_t csv_format_header(enum sample_mem mem, bool with_client, bool with_gpu_procs, char *buf, size_t n);
/* Formats one row into buf (with newline); returns its length. Exposed for
 * tests. with_gpu_procs: the last field lists s's processes' GPU memory as
 * PID:MIB;PID:MIB (empty where the sample holds none). */
size_t csv_format_row(enum csv_format format, const struct sample *s, const struct sample *client,
		      bool with_gpu_procs, char *buf, size_t n);

extern const char csv_header[];
extern const char csv_client_header[];

#endif
