/* host: hostname, kernel release, CPU model, cores and memory, read once. */
#include "proc/host.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

void host_info_read(struct host_info *h)
{
	memset(h, 0, sizeof(*h));
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	h->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	h->memory_kb = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) {
				c += 1 + (c[1] == ' ');
				c[strcspn(c, "\n")] = 0;
				snprintf(h->cpu_model, sizeof(h->cpu_model), "%s", c);
			}
			break;
		}
	}
	fclose(f);
}
