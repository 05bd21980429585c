/* SPDX-License-Identifier: MIT */
/* parlot-annotate's tables: numbers with thousands separators and
   percentages, in columns as wide as their widest cell. */
#define _XOPEN_SOURCE 700

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* ---- Cells and tables --------------------------------------------------- */

/* v with thousands separators, at p (room for 27 bytes); returns the end. */
char *report_put_commas(char *p, uint64_t v)
{
   char d[24];
   int n = snprintf(d, sizeof d, "%" PRIu64, v), i;
   for (i = 0; i < n; i++) {
      if (i > 0 && (n - i) % 3 == 0)
         *p++ = ',';
      *p++ = d[i];
   }
   *p = 0;
   return p;
}


/* A cell as callgrind_annotate writes it: "1,234 (12.34%)"; 100% and more
   with one decimal, "(100.0%)"; a 0 without percentage, padded as if it
   had one so that numbers stay aligned. */
static void format_cell(char *buf, uint64_t v, uint64_t base, int pct)
{
   char *p = report_put_commas(buf, v);
   double x;
   if (!pct)
      return;
   if (v == 0) {
      memcpy(p, "         ", 10);
      return;
   }
   x = base ? (double)v * 100.0 / (double)base : 0.0;
   snprintf(p, CELL_MAX - (size_t)(p - buf),
            x < 99.995 ? " (%5.2f%%)" : " (%5.1f%%)", x);
}


void report_table_init(table *t, int ncols)
{
   int k;
   memset(t, 0, sizeof *t);
   t->ncols = ncols;
   for (k = 0; k < ncols; k++)
      t->head[k] = "";
}

void report_table_col(table *t, int k, const char *head, int pct,
                      uint64_t base)
{
   t->head[k] = head;
   t->pct[k] = pct;
   t->base[k] = base;
   t->width[k] = strlen(head);
}

void report_table_measure(table *t, const uint64_t *v)
{
   char cell[CELL_MAX];
   int k;
   for (k = 0; k < t->ncols; k++) {
      size_t w;
      format_cell(cell, v[k], t->base[k], t->pct[k]);
      w = strlen(cell);
      if (w > t->width[k])
         t->width[k] = w;
   }
}

void report_put_spaces(outbuf *o, size_t n)
{
   static const char sp[] = "                                ";
   while (n > 0) {
      size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
      outbuf_write(o, sp, k);
      n -= k;
   }
}

/* The cells of a row and the two spaces before its label. */
void report_table_cells(outbuf *o, const table *t, const uint64_t *v)
{
   char cell[CELL_MAX];
   int k;
   for (k = 0; k < t->ncols; k++) {
      size_t w;
      format_cell(cell, v[k], t->base[k], t->pct[k]);
      w = strlen(cell);
      report_put_spaces(o, t->width[k] - w);
      outbuf_write(o, cell, w);
      outbuf_write(o, "  ", 2);
   }
}

/* Rule, column heads, label head, rule. */
void report_table_head(outbuf *o, const table *t, const char *label)
{
   int k;
   outbuf_str(o, RULE);
   for (k = 0; k < t->ncols; k++) {
      outbuf_str(o, t->head[k]);
      if (k + 1 < t->ncols || label)
         report_put_spaces(o, t->width[k] - strlen(t->head[k]) + 2);
   }
   if (label)
      outbuf_str(o, label);
   outbuf_str(o, "\n" RULE);
}

/* A name as recorded, with the bytes that would break a line escaped. */
void report_put_name(outbuf *o, const char *s)
{
   size_t n = strlen(s), e = pl_escaped_len(s, n);
   char *buf;
   if (e == n) {
      outbuf_write(o, s, n);
      return;
   }
   buf = malloc(e);
   if (!buf) {
      outbuf_str(o, "?");
      return;
   }
   pl_put_escaped(buf, s, n);
   outbuf_write(o, buf, e);
   free(buf);
}
