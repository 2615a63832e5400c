#!/bin/sh
# clock-step.sh: runs t-faults' stepped-clock case (as root; steps the system
# clock back 1 h and forward again, restoring it from /proc/uptime).
cd "$(dirname "$0")/../cli" && PERFHUNT_TEST_CLOCK_STEP=1 exec sh t-faults.sh
