/* Unit tests of src/fleet and src/util/url: group URLs, label parsing,
 * base64url and password redaction, and the push's errors and retries
 * against a loopback port where nothing listens (a real refused connection).
 * Pushes to a live Pushgateway are end-to-end tests (tests/cli/t-fleet.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fleet/fleet.h"
#include "fleet/push.h"
#include "util/clock.h"
#include "util/url.h"

static void test_url_helpers(void **state)
{
	(void)state;
	char *s = url_escape("a b/c~d.e_f-g%é");
	assert_string_equal(s, "a%20b%2Fc~d.e_f-g%25%C3%A9");
	free(s);
	/* RFC 4648 test vectors, URL-safe alphabet. */
	static const char *const v[][2] = { { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" },
					     { "foo", "Zm9v" }, { "foob", "Zm9vYg==" },
					     { "/usr/b?>", "L3Vzci9iPz4=" } };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		s = url_base64url(v[i][0], strlen(v[i][0]));
		assert_string_equal(s, v[i][1]);
		free(s);
	}
	s = url_base64url("\xfb\xff", 2);
	assert_string_equal(s, "-_8=");
	free(s);
	s = url_redact("postgresql://ph:s3cret@db.example:5432/perf?sslmode=require");
	assert_string_equal(s, "postgresql://ph:***@db.example:5432/perf?sslmode=require");
	free(s);
	s = url_redact("postgresql://ph@127.0.0.1/perf");
	assert_string_equal(s, "postgresql://ph@127.0.0.1/perf");
	free(s);
	s = url_redact("http://127.0.0.1:9091/a@b");
	assert_string_equal(s, "http://127.0.0.1:9091/a@b");
	free(s);
}

static void test_group_url(void **state)
{
	(void)state;
	char *u = NULL;
	struct err e = { 0 };
	const char *labels[] = { "instance", "gpu-01", "branch", "feature/x", "empty", "",
				 "cmd", "a b", NULL };
	assert_int_equal(push_group_url("http://127.0.0.1:9091/", "perfhunt", labels, &u, &e), 0);
	assert_string_equal(u, "http://127.0.0.1:9091/metrics/job/perfhunt/instance/gpu-01"
			       "/branch@base64/ZmVhdHVyZS94/empty@base64/=/cmd/a%20b");
	free(u);
	assert_int_equal(push_group_url("http://h:1", "nightly/gpu", NULL, &u, &e), 0);
	assert_string_equal(u, "http://h:1/metrics/job@base64/bmlnaHRseS9ncHU=");
	free(u);
	/* dot segments: an HTTP client would merge them away, shifting the labels */
	const char *dots[] = { "a", ".", "instance", "..", "b", "...", "c", ".x", NULL };
	assert_int_equal(push_group_url("http://h:1", "..", dots, &u, &e), 0);
	assert_string_equal(u, "http://h:1/metrics/job@base64/Li4=/a@base64/Lg==/instance@base64/Li4="
			       "/b/.../c/.x");
	free(u);
	assert_int_equal(push_group_url("ftp://h", "j", NULL, &u, &e), -1);
	assert_string_equal(e.msg, "gateway URL 'ftp://h' must start with http:// or https://");
	assert_int_equal(push_group_url("http://h", "", NULL, &u, &e), -1);
	const char *bad[] = { "9lives", "x", NULL };
	assert_int_equal(push_group_url("http://h", "j", bad, &u, &e), -1);
	assert_non_null(strstr(e.msg, "bad grouping label name '9lives'"));
	assert_null(u);
}

static void test_parse_label(void **state)
{
	(void)state;
	char *name = NULL;
	const char *value = NULL;
	struct err e = { 0 };
	assert_int_equal(fleet_parse_label("branch=main=x", &name, &value, &e), 0);
	assert_string_equal(name, "branch");
	assert_string_equal(value, "main=x");
	free(name);
	assert_int_equal(fleet_parse_label("novalue", &name, &value, &e), -1);
	assert_string_equal(e.msg, "label 'novalue' must be NAME=VALUE");
	assert_int_equal(fleet_parse_label("job=x", &name, &value, &e), -1);
	assert_non_null(strstr(e.msg, "bad label name 'job'"));
	assert_int_equal(fleet_parse_label("a-b=x", &name, &value, &e), -1);
	assert_null(name);
}

/* A loopback port with nothing listening: bind, read the port, close. */
static int closed_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static void test_push_refused_retries(void **state)
{
	(void)state;
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", closed_port());
	struct push_opts o;
	push_opts_init(&o);
	o.retries = 2;
	o.backoff_ms = 50;
	struct err e = { 0 };
	int64_t t0 = clock_mono_ns();
	assert_int_equal(push_to_gateway(url, "perfhunt", NULL, "x 1\n", 4, &o, &e), -1);
	double waited_ms = (double)(clock_mono_ns() - t0) / 1e6;
	/* 50 + 100 ms of backoff between three attempts, and no more than the timeouts. */
	assert_true(waited_ms >= 150 && waited_ms < 5000);
	char want[160];
	snprintf(want, sizeof(want), "cannot push to '%s/metrics/job/perfhunt': ", url);
	assert_non_null(strstr(e.msg, want));
	assert_non_null(strstr(e.msg, "(3 attempts)"));
	assert_null(strchr(e.msg, '\n'));
}

static void test_after_record_writes_first(void **state)
{
	(void)state;
	char dir[] = "/tmp/perfhunt-fleet.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128], url[64];
	snprintf(path, sizeof(path), "%s/run.prom", dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", closed_port());
	json_error_t je;
	json_t *rec = json_load_file("data/openmetrics/run.json", 0, &je);
	assert_non_null(rec);
	struct fleet_opts o;
	fleet_opts_init(&o);
	o.openmetrics_path = path;
	o.push_url = url;
	o.push.retries = 0;
	struct err e = { 0 };
	assert_int_equal(fleet_after_record(&o, rec, NULL, &e), -1);
	/* The push failed, naming the group of instance gpu-01; the file is there. */
	assert_non_null(strstr(e.msg, "/metrics/job/perfhunt/instance/gpu-01'"));
	assert_int_equal(access(path, R_OK), 0);
	json_decref(rec);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_helpers),
		cmocka_unit_test(test_group_url),
		cmocka_unit_test(test_parse_label),
		cmocka_unit_test(test_push_refused_retries),
		cmocka_unit_test(test_after_record_writes_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
