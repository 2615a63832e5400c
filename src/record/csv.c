/* csv: writing timeline rows whole, one write(2) each, into a file opened
 * without following another user's link and locked against a second writer. */
#include "record/csv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/escape.h"
#include "util/fdio.h"
#include "util/fsafe.h"

const char csv_header[] =
	"epoch_ms,rss_kb,rss_gib,t_ms,anon_kb,file_kb,shmem_kb,swap_kb,pss_kb,user_ms,sys_ms,"
	"minflt,majflt,minflt_total,majflt_total,vcsw,ivcsw,read_bytes,write_bytes,procs,threads,"
	"gpu_mib,gpu_util_pct,phase\n";
/* appended (before the newline): the tree's memory, each page once, named by
 * how it was counted (enum sample_mem) */
static const char *const mem_columns[] = {
	[SAMPLE_MEM_RSS] = ",tree_rss_sum_kb",
	[SAMPLE_MEM_CGROUP] = ",tree_cgroup_kb",
	[SAMPLE_MEM_PSS] = ",tree_pss_kb",
};
/* appended (before the newline) when a daemon is attached */
const char csv_client_header[] =
	",client_rss_kb,client_anon_kb,client_file_kb,client_shmem_kb,client_swap_kb,client_user_ms,"
	"client_sys_ms,client_minflt,client_majflt,client_procs,client_threads";
/* appended last where GPU memory is sampled: whether it is there is known
 * before the first row (the driver is), its values are each sample's */
static const char gpu_procs_column[] = ",gpu_procs_mib";
/* the field's room: "PID:MIB.M;" for each process a sample can list */
#define GPU_PROCS_FIELD_BYTES (SAMPLE_GPU_PROCS * 24)

int csv_open(struct csv_writer *w, const char *path, enum csv_format format, bool with_client,
	     bool with_gpu_procs, struct err *e)
{
	w->format = format;
	w->with_client = with_client;
	w->with_gpu_procs = with_gpu_procs;
	snprintf(w->path, sizeof(w->path), "%s", path);
	bool regular = false;
	if (!strcmp(path, "-")) { /* stdout, as -o - */
		w->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (w->fd < 0)
			return err_sys(e, "cannot write the CSV to stdout");
	} else if (fsafe_open_stream(path, &w->fd, &regular, e) < 0) {
		return -1;
	}
	/* One writer per file: a second run given the same --csv would
	 * interleave its rows with ours. The lock is taken before the file is
	 * cut, so the loser leaves the winner's rows alone. flock, not fcntl:
	 * it belongs to this open file, which a detached monitor keeps. */
	if (regular && flock(w->fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			err_set(e, "cannot write '%s': another perfhunt is writing it (give each run "
				"its own --csv file)", path);
		else
			err_sys(e, "cannot lock '%s'", path);
		close(w->fd);
		w->fd = -1;
		return -1;
	}
	if (regular && ftruncate(w->fd, 0) < 0) {
		err_sys(e, "cannot truncate '%s'", path);
		close(w->fd);
		w->fd = -1;
		return -1;
	}
	w->whole_bytes = 0;
	w->header_due = format == CSV_FULL;
	return 0;
}

size_t csv_format_header(enum sample_mem mem, bool with_client, bool with_gpu_procs, char *buf, size_t n)
{
	int len = snprintf(buf, n, "%.*s%s%s%s\n", (int)sizeof(csv_header) - 2, csv_header,
			   mem_columns[mem], with_client ? csv_client_header : "",
			   with_gpu_procs ? gpu_procs_column : "");
	return len > 0 && (size_t)len < n ? (size_t)len : 0;
}

/* The header goes with the first row: the tree column's name says how the
 * memory was counted, which is known once the command is in its cgroup. */
static int write_header(struct csv_writer *w, const struct sample *s)
{
	char header[sizeof(csv_header) + sizeof(csv_client_header) + sizeof(gpu_procs_column) + 32];
	size_t len = csv_format_header(s->mem_method, w->with_client, w->with_gpu_procs, header, sizeof(header));
	if (fdio_write_all(w->fd, header, len) < 0)
		return -1;
	w->header_due = false;
	w->whole_bytes = (long long)len;
	return 0;
}

/* The sample's processes' GPU memory, a comma before: PID:MIB;PID:MIB. */
static int gpu_procs_field(const struct sample *s, char *buf, size_t n)
{
	int len = snprintf(buf, n, ",");
	for (uint32_t i = 0; s->gpu_valid && i < s->ngpu_procs && len >= 0 && (size_t)len < n; i++)
		len += snprintf(buf + len, n - (size_t)len, "%s%u:%.1f", i ? ";" : "", s->gpu_procs[i].pid,
				s->gpu_procs[i].mib);
	return len;
}

size_t csv_format_row(enum csv_format format, const struct sample *s, const struct sample *client,
		      bool with_gpu_procs, char *buf, size_t n)
{
	int len;
	if (format == CSV_SEED) {
		len = snprintf(buf, n, "%lld,%llu,%.2f\n", (long long)s->epoch_ms,
			       (unsigned long long)s->rss_kb, (double)s->rss_kb / 1048576.0);
	} else {
		char pss[24] = "", gpu[24] = "", util[24] = "", phase[ESCAPE_CSV_BYTES(sizeof(s->phase))];
		if (s->pss_valid)
			snprintf(pss, sizeof(pss), "%llu", (unsigned long long)s->pss_kb);
		if (s->gpu_valid) {
			snprintf(gpu, sizeof(gpu), "%.1f", s->gpu_mib);
			snprintf(util, sizeof(util), "%.0f", s->gpu_util_pct);
		}
		/* Phase names are the program's text: "a,b" or "=cmd()" is one quoted field. */
		escape_csv(phase, s->phase);
		len = snprintf(buf, n,
			       "%lld,%llu,%.2f,%.1f,%llu,%llu,%llu,%llu,%s,%.1f,%.1f,%llu,%llu,%llu,%llu,"
			       "%llu,%llu,%llu,%llu,%u,%u,%s,%s,%s,%llu",
			       (long long)s->epoch_ms, (unsigned long long)s->rss_kb,
			       (double)s->rss_kb / 1048576.0, s->t_ms, (unsigned long long)s->anon_kb,
			       (unsigned long long)s->file_kb, (unsigned long long)s->shmem_kb,
			       (unsigned long long)s->swap_kb, pss, s->user_ms, s->sys_ms,
			       (unsigned long long)s->minflt, (unsigned long long)s->majflt,
			       (unsigned long long)s->minflt_total, (unsigned long long)s->majflt_total,
			       (unsigned long long)s->vcsw, (unsigned long long)s->ivcsw,
			       (unsigned long long)s->read_bytes, (unsigned long long)s->write_bytes,
			       s->procs, s->threads, gpu, util, phase, (unsigned long long)s->mem_kb);
		if (len >= 0 && client && (size_t)len < n)
			len += snprintf(buf + len, n - (size_t)len,
					",%llu,%llu,%llu,%llu,%llu,%.1f,%.1f,%llu,%llu,%u,%u",
					(unsigned long long)client->rss_kb, (unsigned long long)client->anon_kb,
					(unsigned long long)client->file_kb, (unsigned long long)client->shmem_kb,
					(unsigned long long)client->swap_kb, client->user_ms, client->sys_ms,
					(unsigned long long)client->minflt, (unsigned long long)client->majflt,
					client->procs, client->threads);
		if (len >= 0 && with_gpu_procs && (size_t)len < n)
			len += gpu_procs_field(s, buf + len, n - (size_t)len);
		if (len >= 0 && (size_t)len < n)
			len += snprintf(buf + len, n - (size_t)len, "\n");
	}
	if (len < 0)
		return 0;
	if ((size_t)len >= n) { /* never write a cut row: end it where it was cut */
		buf[n - 2] = '\n';
		buf[n - 1] = 0;
		return n - 1;
	}
	return (size_t)len;
}

int csv_write(struct csv_writer *w, const struct sample *s, const struct sample *client)
{
	char buf[1536 + GPU_PROCS_FIELD_BYTES];
	if (w->header_due && write_header(w, s) < 0)
		return -1;
	size_t len = csv_format_row(w->format, s, w->with_client ? client : NULL, w->with_gpu_procs, buf,
				    sizeof(buf));

	if (fdio_write_all(w->fd, buf, len) < 0) {
		/* a full disk took part of the row: cut the file back to whole rows */
		int saved = errno;
		if (ftruncate(w->fd, w->whole_bytes) == 0)
			lseek(w->fd, w->whole_bytes, SEEK_SET);
		errno = saved;
		return -1;
	}
	w->whole_bytes += (long long)len;
	return 0;
}

int csv_close(struct csv_writer *w, struct err *e)
{
	if (w->fd < 0)
		return 0;
	int rc = close(w->fd);
	w->fd = -1;
	if (rc < 0)
		return err_sys(e, "cannot write '%s'", w->path);
	return 0;
}
