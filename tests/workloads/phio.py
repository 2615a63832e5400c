#!/usr/bin/python3
# phio: a phase blocked on block I/O, then one blocked on a sleep. The io
# phase writes 48 MiB through O_DIRECT | O_SYNC (each write waits for the
# device) and the process stays alive after it, as a server would; it prints
# its own delay-accounting figure for the phase (stat's delayacct_blkio_ticks,
# 0 where delay accounting is off) as "TRUTH iowait_ms=N" on stderr.
#   phio.py FILE   (FILE is created and removed; it must be on a block device)
import os, mmap, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_DIRECT | os.O_SYNC, 0o644)
buf = mmap.mmap(-1, 1 << 20)
def ticks():
    s = open("/proc/self/stat").read(); return int(s[s.rindex(")") + 2:].split()[39])
print("PERFHUNT: begin=io", flush=True)
t0 = ticks()
for i in range(48):
    os.write(fd, buf)
t1 = ticks()
print("PERFHUNT: end=io", flush=True)
print("PERFHUNT: begin=idle", flush=True)
time.sleep(0.2)
print("PERFHUNT: end=idle", flush=True)
os.close(fd); os.unlink(sys.argv[1])
print("TRUTH iowait_ms=%d" % ((t1 - t0) * 1000 // os.sysconf("SC_CLK_TCK")), file=sys.stderr)
