/* fuzz_markdown: libFuzzer target for the markdown cell writers (util/escape).
 *
 * NUL-separated texts become a GitHub table (header, delimiter, text cells,
 * code-span cells), read back as cmark-gfm splits rows: at a '|' without a backslash
 * before it, then "\|" is a pipe. Each row has the header's cells; a text cell
 * holds no raw '<', '>' or '`' and unescapes to its text; a code cell is one
 * span holding its text ('`' as "'"); control bytes read back as spaces.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CELLS 32

static void check(bool ok)
{
	if (!ok)
		abort();
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The cells of one row [p, end): the bytes between unescaped pipes, "\|" made '|';
 * each cell is one space, its text, one space. Returns how many (at most max). */
static size_t split_row(const char *p, const char *end, char **cells, size_t *lens, size_t max)
{
	check(p < end && *p == '|');
	size_t n = 0;
	char *cur = NULL;
	size_t len = 0;
	for (const char *q = p + 1; q < end; q++) {
		if (*q == '|' && q[-1] != '\\') {
			check(n < max && cur && len >= 2 && cur[0] == ' ' && cur[len - 1] == ' ');
			cells[n] = cur;
			lens[n++] = len;
			cur = NULL;
			len = 0;
			continue;
		}
		if (!cur)
			cur = malloc((size_t)(end - q) + 1);
		if (*q == '|') /* "\|": the pipe, without its backslash */
			len--;
		cur[len++] = *q;
	}
	check(!cur); /* the row ends with a '|' */
	return n;
}

/* A text cell's inline content read back: "\X" is X for ASCII punctuation, the
 * three entities their characters. Anything that would be markup aborts. */
static size_t text_back(const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		check(c != '<' && c != '>' && c != '`' && c != '\n' && c != '\r');
		if (c == '\\') {
			check(i + 1 < n && strchr("\\|`*[]~_", s[i + 1]));
			out[o++] = s[++i];
		} else if (c == '&') {
			static const char *const ent[] = { "&lt;", "&gt;", "&amp;" };
			static const char chr[] = "<>&";
			size_t k = 0;
			while (k < 3 && strncmp(s + i, ent[k], strlen(ent[k])))
				k++;
			check(k < 3 && i + strlen(ent[k]) <= n);
			out[o++] = chr[k];
			i += strlen(ent[k]) - 1;
		} else {
			check(!strchr("*[]~", c)); /* a '|' here was "\\|" in the row */
			out[o++] = c;
		}
	}
	return o;
}

/* What a text reads back as: control bytes as spaces, the rest as is (code: '`' as "'"). */
static bool same(const char *orig, size_t olen, const char *got, size_t glen, bool code)
{
	if (olen != glen)
		return false;
	for (size_t i = 0; i < olen; i++) {
		unsigned char c = (unsigned char)orig[i];
		char want = is_control(c) ? ' ' : code && c == '`' ? '\'' : (char)c;
		if (got[i] != want)
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *texts[MAX_CELLS];
	size_t lens[MAX_CELLS], n = 0;
	char *copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (size_t off = 0; off <= size && n < MAX_CELLS;) {
		texts[n] = copy + off;
		lens[n] = strlen(copy + off);
		off += lens[n++] + 1;
	}

	char *md = NULL;
	size_t mdlen = 0;
	FILE *f = open_memstream(&md, &mdlen);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "| c%zu ", i);
	fputs("|\n", f);
	for (size_t i = 0; i < n; i++)
		fputs("| :-- ", f);
	fputs("|\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs("| ", f);
		escape_markdown(texts[i], f);
		fputc(' ', f);
	}
	fputs("|\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs("| `", f);
		escape_markdown_code(texts[i], f);
		fputs("` ", f);
	}
	fputs("|\n", f);
	check(fclose(f) == 0);

	const char *p = md, *end = md + mdlen;
	char *cells[MAX_CELLS];
	size_t clens[MAX_CELLS];
	char *back = malloc(mdlen + 1);
	for (int row = 0; row < 4; row++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		check(eol != NULL); /* four rows, no cell with a line of its own */
		size_t k = split_row(p, eol, cells, clens, MAX_CELLS);
		check(k == n);
		for (size_t i = 0; i < k; i++) {
			const char *c = cells[i] + 1;
			size_t cl = clens[i] - 2;
			if (row == 2) {
				size_t bl = text_back(c, cl, back);
				check(same(texts[i], lens[i], back, bl, false));
			} else if (row == 3) {
				check(cl >= 2 && c[0] == '`' && c[cl - 1] == '`');
				check(!memchr(c + 1, '`', cl - 2)); /* one span, closed where it should */
				check(same(texts[i], lens[i], c + 1, cl - 2, true));
			}
			free(cells[i]);
		}
		p = eol + 1;
	}
	check(p == end);
	free(back);
	free(md);
	free(copy);
	return 0;
}
