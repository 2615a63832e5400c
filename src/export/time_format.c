/* time_format: GNU time's output from a run record.
 *
 * One walk over the format, as GNU time's own summarize() walks it: a %
 * directive writes one figure, a backslash escape one character, anything
 * else is copied. Times are cut (not rounded) to hundredths of a second and
 * %P is whole percent, as GNU time writes them, so the two tools' lines
 * differ only by what they measured.
 */
#include "export/time_format.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "export/report_page.h"

const char time_format_default[] =
	"%Uuser %Ssystem %Eelapsed %PCPU (%Xavgtext+%Davgdata %Mmaxresident)k\n"
	"%Iinputs+%Ooutputs (%Fmajor+%Rminor)pagefaults %Wswaps";

const char time_format_verbose[] =
	"\tCommand being timed: \"%C\"\n"
	"\tUser time (seconds): %U\n"
	"\tSystem time (seconds): %S\n"
	"\tPercent of CPU this job got: %P\n"
	"\tElapsed (wall clock) time (h:mm:ss or m:ss): %E\n"
	"\tAverage shared text size (kbytes): %X\n"
	"\tAverage unshared data size (kbytes): %D\n"
	"\tAverage stack size (kbytes): %p\n"
	"\tAverage total size (kbytes): %K\n"
	"\tMaximum resident set size (kbytes): %M\n"
	"\tAverage resident set size (kbytes): %t\n"
	"\tMajor (requiring I/O) page faults: %F\n"
	"\tMinor (reclaiming a frame) page faults: %R\n"
	"\tVoluntary context switches: %w\n"
	"\tInvoluntary context switches: %c\n"
	"\tSwaps: %W\n"
	"\tFile system inputs: %I\n"
	"\tFile system outputs: %O\n"
	"\tSocket messages sent: %s\n"
	"\tSocket messages received: %r\n"
	"\tSignals delivered: %k\n"
	"\tPage size (bytes): %Z\n"
	"\tExit status: %x";

/* A figure of the summary as a whole number (0 when the record lacks it). */
static long long whole(const json_t *sum, const char *key, double scale)
{
	double v = report_page_num(sum, key) / scale;
	return isfinite(v) && v >= 0 ? (long long)v : 0;
}

/* Seconds as GNU time writes them: "%ld.%02ld", cut to hundredths. */
static void seconds(FILE *out, double s)
{
	long long cs = isfinite(s) && s > 0 ? (long long)(s * 100 + 1e-6) : 0;
	fprintf(out, "%lld.%02lld", cs / 100, cs % 100);
}

/* %E: h:mm:ss from an hour on, else m:ss.cs. */
static void elapsed(FILE *out, double s)
{
	long long cs = isfinite(s) && s > 0 ? (long long)(s * 100 + 1e-6) : 0, sec = cs / 100;
	if (sec >= 3600)
		fprintf(out, "%lld:%02lld:%02lld", sec / 3600, sec % 3600 / 60, sec % 60);
	else
		fprintf(out, "%lld:%02lld.%02lld", sec / 60, sec % 60, cs % 100);
}

/* %C: the words joined by spaces, as GNU time writes argv; a shell string as is. */
static void command(FILE *out, const json_t *cmd)
{
	if (json_is_string(cmd)) {
		fputs(json_string_value(cmd), out);
		return;
	}
	size_t i;
	json_t *w;
	json_array_foreach(cmd, i, w)
		fprintf(out, "%s%s", i ? " " : "", json_is_string(w) ? json_string_value(w) : "");
}

/* The summary's figure of a count directive: %M the largest process's peak
 * RSS (GNU time's ru_maxrss of the child), faults, context switches. */
static const char *count_key(char c)
{
	static const char *const keys[][2] = { { "M", "peak_rss_kb" }, { "F", "majflt" }, { "R", "minflt" },
					       { "w", "vcsw" }, { "c", "ivcsw" } };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i][0][0] == c)
			return keys[i][1];
	return "";
}

/* One directive c; false when GNU time has none of that name. */
static bool directive(FILE *out, const json_t *rec, char c)
{
	const json_t *sum = json_object_get(rec, "summary");
	double wall = report_page_num(sum, "wall_s"), user = report_page_num(sum, "user_s"),
	       sys = report_page_num(sum, "sys_s");
	long long cpu_ms;
	switch (c) {
	case 'e':
		seconds(out, wall);
		return true;
	case 'E':
		elapsed(out, wall);
		return true;
	case 'U':
		seconds(out, user);
		return true;
	case 'S':
		seconds(out, sys);
		return true;
	case 'P':
		cpu_ms = (long long)((isfinite(user) ? user : 0) * 1000 + (isfinite(sys) ? sys : 0) * 1000);
		if (isfinite(wall) && wall * 1000 >= 1)
			fprintf(out, "%lld%%", cpu_ms * 100 / (long long)(wall * 1000));
		else
			fputs("?%", out);
		return true;
	case 'M': case 'F': case 'R': case 'w': case 'c':
		fprintf(out, "%lld", whole(sum, count_key(c), 1));
		return true;
	case 'I': case 'O':
		/* ru_inblock/ru_oublock count the storage's blocks; perfhunt's
		 * read_bytes/write_bytes are bytes through system calls (rchar) */
		fputc('-', out);
		return true;
	case 'x':
		fprintf(out, "%lld", whole(json_object_get(rec, "exit"), "code", 1));
		return true;
	case 'C':
		command(out, json_object_get(rec, "command"));
		return true;
	case 'Z':
		fprintf(out, "%ld", sysconf(_SC_PAGESIZE));
		return true;
	case 'X': case 'D': case 'p': case 'K': case 't': case 'W': case 'r': case 's': case 'k':
		fputc('0', out); /* Linux keeps none of these; GNU time prints 0 */
		return true;
	}
	return false;
}

int time_format_write(const json_t *rec, const char *format, FILE *out)
{
	const json_t *ex = json_object_get(rec, "exit");
	long long code = whole(ex, "code", 1), sig = whole(ex, "signal", 1);
	if (sig)
		fprintf(out, "Command terminated by signal %lld\n", sig);
	else if (code)
		fprintf(out, "Command exited with non-zero status %lld\n", code);
	for (const char *p = format; *p; p++) {
		if (*p == '%' && p[1]) {
			p++;
			if (*p == '%')
				fputc('%', out);
			else if (!directive(out, rec, *p))
				fprintf(out, "?%c", *p);
		} else if (*p == '\\' && p[1]) {
			p++;
			if (*p == 't' || *p == 'n' || *p == '\\')
				fputc(*p == 't' ? '\t' : *p == 'n' ? '\n' : '\\', out);
			else
				fprintf(out, "?\\%c", *p);
		} else {
			fputc(*p, out);
		}
	}
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}
