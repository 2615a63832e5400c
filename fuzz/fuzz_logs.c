/* fuzz_logs: libFuzzer target for what perfhunt reads from files it does not
 * own — a daemon's log followed with --probe-log (leading timestamps, then
 * probe lines, through the same feed the streams use) and `history import`'s
 * JSON Lines (jsonio_read_many, through a memfd path).
 *
 * The first byte chooses a chunk size, so lines are also split across reads;
 * its top bit also marks a skip (the follower's (NULL, 0)) after every
 * seventh chunk. Leading timestamps of every logger format (RFC 3339, glog,
 * syslog/journal, epoch) are read against a fixed "now" in UTC and in a zone.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "monitor/logtail.h"
#include "monitor/probefeed.h"
#include "record/jsonio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static bool zone;
	if (!zone) {
		setenv("TZ", "CET-1", 1); /* zone-less stamps are local: a zone that is not UTC */
		tzset();
		zone = true;
	}
	size_t chunk = (size_t)data[0] % 97 + 1;
	bool skips = data[0] & 0x80;
	const char *text = (const char *)data + 1;
	size_t n = size - 1;

	double epoch_ms, res_ms = -1;
	size_t skip = logtail_leading_time(text, n, 1796119200000.0, &epoch_ms, &res_ms);
	if (skip > n || (skip && (!isfinite(epoch_ms) || !(res_ms > 0 && res_ms <= 1000))))
		abort();

	struct probe_config cfg;
	probe_config_init(&cfg);
	struct probefeed f;
	probefeed_init(&f, &cfg, 1, true);
	for (size_t off = 0; off < n; off += chunk) {
		size_t len = n - off < chunk ? n - off : chunk;
		probefeed_on_output(&f, MONITOR_LOG, text + off, len, (double)off);
		if (skips && (off / chunk) % 7 == 6)
			probefeed_on_output(&f, MONITOR_LOG, NULL, 0, (double)off);
	}
	if (f.phases.n_unparsed_first > PHASE_UNPARSED_KEEP)
		abort();
	probefeed_finish(&f, (double)n);
	probefeed_release(&f);
	probe_config_release(&cfg);

	int fd = memfd_create("fuzz_logs", MFD_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, text, n) == (ssize_t)n) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			json_t **v = NULL;
			size_t nv = 0;
			if (jsonio_read_many(path, &v, &nv, NULL) == 0)
				jsonio_values_free(v, nv);
		}
		close(fd);
	}
	return 0;
}
