/* netlink: the process-events connector and taskstats exit records.
 *
 * Both are plain netlink sockets read non-blocking from the monitor's poll
 * loop. Messages are parsed defensively (lengths checked against the datagram)
 * because the buffer comes from the kernel but its layout grows across
 * versions: only the prefix of struct taskstats we know is copied.
 */
#include "proc/netlink.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/cn_proc.h>
#include <linux/filter.h>
#include <linux/connector.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

/* The connector multicasts every event of the machine (exec, exit, comm, uid,
 * each thread's creation) and we need only new processes. A socket filter
 * drops the rest in the kernel, so a busy machine does not wake the monitor
 * for them or fill its buffer. Offsets: nlmsghdr (16) + cn_msg (20), then
 * struct proc_event: what at 36, fork.child_pid at 60, fork.child_tgid at 64.
 * Classic BPF loads are big-endian, hence htonl on the constant. Without the
 * filter (an old kernel refusing it) everything still works, just busier. */
void procevents_filter_forks(int fd)
{
	enum { WHAT = NLMSG_LENGTH(0) + sizeof(struct cn_msg) };
	enum { CHILD_PID = WHAT + 24, CHILD_TGID = WHAT + 28 };
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, WHAT),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(PROC_EVENT_FORK), 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, CHILD_TGID),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, CHILD_PID),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	_Static_assert(offsetof(struct proc_event, event_data.fork.child_pid) == 24, "proc_event layout");
	_Static_assert(offsetof(struct proc_event, event_data.fork.child_tgid) == 28, "proc_event layout");
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

int procevents_open(struct err *e)
{
	int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return err_sys(e, "process events connector unavailable");
	int rcvbuf = 4 << 20;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC, .nl_pid = 0 };
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err_sys(e, "process events connector unavailable");
		close(fd);
		return -1;
	}
	/* nlmsghdr | cn_msg | op, laid out by hand: cn_msg ends in a flexible array */
	char req[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))]
		__attribute__((aligned(NLMSG_ALIGNTO)));
	memset(req, 0, sizeof(req));
	struct nlmsghdr *nl = (struct nlmsghdr *)req;
	struct cn_msg *cn = NLMSG_DATA(nl);
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	nl->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	nl->nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	if (send(fd, req, nl->nlmsg_len, 0) < 0) {
		err_sys(e, "process events connector unavailable");
		close(fd);
		return -1;
	}
	return fd;
}

/* One datagram from a non-blocking netlink socket: its length, or 0 once
 * drained; *lost is set when the kernel dropped messages (ENOBUFS). */
static ssize_t recv_next(int fd, char *buf, size_t n, int *lost)
{
	for (;;) {
		ssize_t r = recv(fd, buf, n, 0);
		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno == ENOBUFS) {
			*lost = 1;
			continue;
		}
		return 0; /* EAGAIN: drained */
	}
}

int procevents_read(int fd, const struct procevents_handler *h)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	int lost = 0;
	ssize_t n;
	while ((n = recv_next(fd, buf, sizeof(buf), &lost)) > 0) {
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type != NLMSG_DONE)
				continue;
			struct cn_msg *cn = NLMSG_DATA(nh);
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(struct proc_event)) ||
			    cn->id.idx != CN_IDX_PROC)
				continue;
			/* The event sits 36 bytes into the message (nlmsghdr + cn_msg): not
			 * aligned for its u64 timestamp, so it is copied out, never cast. */
			struct proc_event ev;
			memcpy(&ev, cn->data, sizeof(ev));
			if (ev.what == PROC_EVENT_FORK) {
				/* Threads fork too; only new processes (pid == tgid) matter. */
				if (ev.event_data.fork.child_pid == ev.event_data.fork.child_tgid && h->on_fork)
					h->on_fork(ev.event_data.fork.parent_tgid,
						   ev.event_data.fork.child_tgid, h->arg);
			} else if (ev.what == PROC_EVENT_EXIT) {
				if (ev.event_data.exit.process_pid == ev.event_data.exit.process_tgid &&
				    h->on_exit)
					h->on_exit(ev.event_data.exit.process_tgid, h->arg);
			}
		}
	}
	return lost ? -1 : 0;
}

/* ---- taskstats over generic netlink ---- */

#define GENL_DATA(g) ((char *)(g) + GENL_HDRLEN)
#define NLA_DATA(a) ((char *)(a) + NLA_HDRLEN)

static int genl_send(int fd, uint16_t family, uint8_t cmd, uint16_t attr, const void *data, size_t len)
{
	struct {
		struct nlmsghdr nl;
		struct genlmsghdr g;
		char buf[256];
	} req;
	memset(&req, 0, sizeof(req));
	struct nlattr *na = (struct nlattr *)req.buf;
	na->nla_type = attr;
	na->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(NLA_DATA(na), data, len);
	req.nl.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
	req.nl.nlmsg_type = family;
	req.nl.nlmsg_flags = NLM_F_REQUEST;
	req.g.cmd = cmd;
	req.g.version = 1;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	return sendto(fd, &req, req.nl.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -1 : 0;
}

static int resolve_family(int fd, uint16_t *family)
{
	if (genl_send(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		      TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME)) < 0)
		return -1;
	char buf[4096];
	for (int tries = 0; tries < 50; tries++) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				usleep(1000);
				continue;
			}
			return -1;
		}
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;
		if (!NLMSG_OK(nh, (size_t)n) || nh->nlmsg_type == NLMSG_ERROR)
			return -1;
		char *p = GENL_DATA(NLMSG_DATA(nh));
		char *end = (char *)nh + nh->nlmsg_len;
		while (p + NLA_HDRLEN <= end) {
			struct nlattr *na = (struct nlattr *)p;
			if (na->nla_len < NLA_HDRLEN || p + na->nla_len > end)
				break;
			if (na->nla_type == CTRL_ATTR_FAMILY_ID && na->nla_len >= NLA_HDRLEN + 2) {
				memcpy(family, NLA_DATA(na), 2);
				return 0;
			}
			p += NLA_ALIGN(na->nla_len);
		}
		return -1;
	}
	return -1;
}

int exitstats_open(struct exitstats *x, struct err *e)
{
	memset(x, 0, sizeof(*x));
	x->fd = socket(PF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (x->fd < 0)
		return err_sys(e, "taskstats unavailable");
	int rcvbuf = 4 << 20;
	setsockopt(x->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	if (bind(x->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || resolve_family(x->fd, &x->family) < 0) {
		err_sys(e, "taskstats unavailable");
		goto fail;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	snprintf(x->cpumask, sizeof(x->cpumask), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
	if (genl_send(x->fd, x->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
		      x->cpumask, strlen(x->cpumask) + 1) < 0) {
		err_sys(e, "taskstats registration failed");
		goto fail;
	}
	return 0;
fail:
	close(x->fd);
	x->fd = -1;
	return -1;
}

static void deliver(const struct taskstats *ts, size_t len, int group,
		    void (*fn)(const struct exit_record *, void *), void *arg)
{
	struct taskstats t;
	memset(&t, 0, sizeof(t));
	memcpy(&t, ts, len < sizeof(t) ? len : sizeof(t));
	struct exit_record r = {
		.pid = (pid_t)t.ac_pid, .ppid = (pid_t)t.ac_ppid, .tgid = (pid_t)t.ac_tgid,
		.hiwater_rss_kb = t.hiwater_rss, .utime_us = t.ac_utime, .stime_us = t.ac_stime,
		.minflt = t.ac_minflt, .majflt = t.ac_majflt, .nvcsw = t.nvcsw, .nivcsw = t.nivcsw,
		.read_char = t.read_char, .write_char = t.write_char, .elapsed_us = t.ac_etime,
		.run_ns = t.cpu_run_virtual_total, .run_delay_ns = t.cpu_delay_total,
		.whole_group = group,
	};
	memcpy(r.comm, t.ac_comm, sizeof(r.comm) - 1 < sizeof(t.ac_comm) ? sizeof(r.comm) - 1 : sizeof(t.ac_comm));
	fn(&r, arg);
}

int exitstats_read(struct exitstats *x, void (*fn)(const struct exit_record *r, void *arg), void *arg)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	int lost = 0;
	if (x->fd < 0)
		return 0;
	ssize_t n;
	while ((n = recv_next(x->fd, buf, sizeof(buf), &lost)) > 0) {
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type != x->family)
				continue;
			char *p = GENL_DATA(NLMSG_DATA(nh));
			char *end = (char *)nh + nh->nlmsg_len;
			while (p + NLA_HDRLEN <= end) {
				struct nlattr *na = (struct nlattr *)p;
				if (na->nla_len < NLA_HDRLEN || p + na->nla_len > end)
					break;
				int group = na->nla_type == TASKSTATS_TYPE_AGGR_TGID;
				if (na->nla_type == TASKSTATS_TYPE_AGGR_PID || group) {
					char *q = NLA_DATA(na), *qend = p + na->nla_len;
					while (q + NLA_HDRLEN <= qend) {
						struct nlattr *in = (struct nlattr *)q;
						if (in->nla_len < NLA_HDRLEN || q + in->nla_len > qend)
							break;
						if (in->nla_type == TASKSTATS_TYPE_STATS)
							deliver((const struct taskstats *)NLA_DATA(in),
								in->nla_len - NLA_HDRLEN, group, fn, arg);
						q += NLA_ALIGN(in->nla_len);
					}
				}
				p += NLA_ALIGN(na->nla_len);
			}
		}
	}
	return lost ? -1 : 0;
}

void exitstats_close(struct exitstats *x)
{
	if (x->fd >= 0) {
		genl_send(x->fd, x->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
			  x->cpumask, strlen(x->cpumask) + 1);
		close(x->fd);
	}
	x->fd = -1;
}
