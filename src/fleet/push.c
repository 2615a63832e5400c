/* push: the Pushgateway client (see push.h for the contract).
 *
 * One easy handle per attempt keeps every attempt independent (a half-open
 * connection is never reused). The gateway's answer body is kept (bounded)
 * because on a 400 it says which metric or label it refused.
 */
#include "fleet/push.h"

#include <ctype.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/dynlib.h"
#include "util/url.h"
#include "util/xalloc.h"

#define PUSH_ANSWER_MAX 1024

void push_opts_init(struct push_opts *o)
{
	o->connect_timeout_ms = 3000;
	o->total_timeout_ms = 10000;
	o->retries = 3;
	o->backoff_ms = 250;
}

int push_label_name_ok(const char *name)
{
	if (!name || !(isalpha((unsigned char)name[0]) || name[0] == '_') || !strcmp(name, "job"))
		return 0;
	for (const char *p = name; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return 0;
	return 1;
}

/* Appends /NAME/VALUE, or /NAME@base64/VALUE for what a path segment cannot hold:
 * an empty value or one with a '/' (the Pushgateway's README), and "." or ".."
 * (even percent-encoded, an HTTP client or proxy resolves them as dot segments,
 * dropping or shifting the segments around them). */
static void push_segment(FILE *f, const char *name, const char *value)
{
	if (!*value || strchr(value, '/') || !strcmp(value, ".") || !strcmp(value, "..")) {
		char *b = url_base64url(value, strlen(value));
		fprintf(f, "/%s@base64/%s", name, *b ? b : "=");
		free(b);
	} else {
		char *v = url_escape(value);
		fprintf(f, "/%s/%s", name, v);
		free(v);
	}
}

int push_group_url(const char *base, const char *job, const char *const *labels,
		   char **out, struct err *e)
{
	*out = NULL;
	if (!base || (strncmp(base, "http://", 7) && strncmp(base, "https://", 8)))
		return err_set(e, "gateway URL '%s' must start with http:// or https://", base ? base : "");
	if (!job || !*job)
		return err_set(e, "the job name must not be empty");
	for (const char *const *l = labels; l && l[0]; l += 2) {
		if (!push_label_name_ok(l[0]))
			return err_set(e, "bad grouping label name '%s' (letters, digits and '_', "
				       "not starting with a digit, not 'job')", l[0]);
		if (!l[1])
			return err_set(e, "grouping label '%s' has no value", l[0]);
	}
	size_t blen = strlen(base);
	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return err_sys(e, "cannot build the gateway URL");
	fprintf(f, "%.*s/metrics", (int)blen, base);
	push_segment(f, "job", job);
	for (const char *const *l = labels; l && l[0]; l += 2)
		push_segment(f, l[0], l[1]);
	if (fclose(f) != 0) {
		free(buf);
		return err_sys(e, "cannot build the gateway URL");
	}
	*out = buf;
	return 0;
}

struct push_answer {
	char text[PUSH_ANSWER_MAX];
	size_t n;
};

static size_t push_keep(char *data, size_t size, size_t nmemb, void *arg)
{
	struct push_answer *a = arg;
	size_t n = size * nmemb, room = sizeof(a->text) - 1 - a->n;
	memcpy(a->text + a->n, data, n < room ? n : room);
	a->n += n < room ? n : room;
	a->text[a->n] = '\0';
	return n;
}

/* Connection-level failures worth another attempt. */
static int push_transient(CURLcode c)
{
	switch (c) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return 1;
	default:
		return 0;
	}
}

static void push_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* The answer's first line, trimmed, for a one-line error. */
static void push_first_line(struct push_answer *a)
{
	a->text[strcspn(a->text, "\r\n")] = '\0';
	if (strlen(a->text) > 200)
		strcpy(a->text + 197, "...");
}

/* libcurl, loaded on the first push (see util/dynlib.h): the functions used. */
static struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *c);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
} curl;

static int curl_load(struct err *e)
{
	static const char *const names[] = {
		"curl_global_init", "curl_easy_init", "curl_easy_setopt", "curl_easy_perform",
		"curl_easy_getinfo", "curl_easy_cleanup", "curl_easy_strerror", "curl_slist_append",
		"curl_slist_free_all",
	};
	static int loaded;
	if (loaded)
		return 0;
	if (dynlib_load("libcurl.so.4", names, (void **)&curl, sizeof(names) / sizeof(names[0]), e) < 0)
		return -1;
	curl.global_init(CURL_GLOBAL_DEFAULT);
	loaded = 1;
	return 0;
}

static int push_request(const char *method, const char *base, const char *job,
			const char *const *labels, const char *body, size_t len,
			const struct push_opts *o_or_null, struct err *e)
{
	struct push_opts o;
	if (o_or_null)
		o = *o_or_null;
	else
		push_opts_init(&o);
	char *url = NULL;
	if (push_group_url(base, job, labels, &url, e))
		return -1;
	if (curl_load(e) < 0) {
		free(url);
		return -1;
	}
	char *shown = url_redact(url);
	struct curl_slist *hdr = curl.slist_append(NULL, "Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8");
	int rc = -1, attempts = 0;
	long backoff = o.backoff_ms;
	for (;;) {
		attempts++;
		struct push_answer ans = { .n = 0 };
		char cerr[CURL_ERROR_SIZE] = "";
		CURL *c = curl.easy_init();
		if (!c) {
			err_set(e, "cannot push to '%s': cannot start libcurl", shown);
			break;
		}
		curl.easy_setopt(c, CURLOPT_URL, url);
		/* the path as push_group_url built it: no dot segment is merged away */
		curl.easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
		curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
		curl.easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
		if (body) {
			curl.easy_setopt(c, CURLOPT_POSTFIELDS, body);
			curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
			curl.easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
		}
		curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, o.connect_timeout_ms);
		curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, o.total_timeout_ms);
		curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl.easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
		curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, push_keep);
		curl.easy_setopt(c, CURLOPT_WRITEDATA, &ans);
		curl.easy_setopt(c, CURLOPT_USERAGENT, "perfhunt/" PERFHUNT_VERSION);
		CURLcode cc = curl.easy_perform(c);
		long status = 0;
		curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		curl.easy_cleanup(c);
		int retry;
		if (cc != CURLE_OK) {
			retry = push_transient(cc);
			err_set(e, "cannot push to '%s': %s", shown, cerr[0] ? cerr : curl.easy_strerror(cc));
		} else if (status >= 200 && status < 300) {
			rc = 0;
			break;
		} else {
			retry = status >= 500;
			push_first_line(&ans);
			err_set(e, "pushgateway at '%s' answered HTTP %ld%s%s", shown, status,
				ans.text[0] ? ": " : "", ans.text);
		}
		if (!retry || attempts > o.retries)
			break;
		push_sleep_ms(backoff);
		backoff *= 2;
	}
	if (rc && attempts > 1) {
		char tail[48];
		snprintf(tail, sizeof(tail), " (%d attempts)", attempts);
		size_t used = strlen(e ? e->msg : "");
		if (e && used + strlen(tail) < sizeof(e->msg))
			strcat(e->msg, tail);
	}
	curl.slist_free_all(hdr);
	free(shown);
	free(url);
	return rc;
}

int push_to_gateway(const char *base, const char *job, const char *const *labels,
		    const char *text, size_t len, const struct push_opts *o, struct err *e)
{
	return push_request("PUT", base, job, labels, text ? text : "", text ? len : 0, o, e);
}

int push_delete_group(const char *base, const char *job, const char *const *labels,
		      const struct push_opts *o, struct err *e)
{
	return push_request("DELETE", base, job, labels, NULL, 0, o, e);
}
