/* host: facts about the machine a run was recorded on. */
#ifndef PERFHUNT_HOST_H
#define PERFHUNT_HOST_H

#include <stdint.h>

struct host_info {
	char hostname[256];
	char kernel[128];
	char cpu_model[128];
	int cores;
	uint64_t memory_kb;
};

void host_info_read(struct host_info *h);

#endif
