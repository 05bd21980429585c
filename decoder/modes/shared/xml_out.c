/* SPDX-License-Identifier: MIT */
/* XML documents into an outbuf (xml_out.h). */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlversion.h>

#include "xml_out.h"


/* ---- Text ----------------------------------------------------------------- */

/* Whether code point c may appear in an XML 1.0 document. */
static int xml_char_ok(uint32_t c)
{
   if (c < 0x20)
      return c == 0x9 || c == 0xA || c == 0xD;
   return c < 0xD800 || (c >= 0xE000 && c <= 0xFFFD) || c >= 0x10000;
}

/* Length of the well-formed UTF-8 sequence at s (1 to 4 bytes) with its
   code point in *cp; or 0 and in *bad the length of the maximal subpart
   of an ill-formed sequence there (at least 1), to be replaced by one
   U+FFFD (Unicode 15, section 3.9, table 3-7). */
static size_t utf8_next(const unsigned char *s, const unsigned char *end,
                        uint32_t *cp, size_t *bad)
{
   unsigned char c = s[0];
   unsigned char lo = 0x80, hi = 0xBF;
   size_t need, i;
   uint32_t v;

   if (c < 0x80) {
      *cp = c;
      return 1;
   }
   if (c >= 0xC2 && c <= 0xDF) {
      need = 1;
      v = c & 0x1F;
   } else if (c >= 0xE0 && c <= 0xEF) {
      need = 2;
      v = c & 0x0F;
      if (c == 0xE0)
         lo = 0xA0;
      else if (c == 0xED)
         hi = 0x9F;            /* no surrogates */
   } else if (c >= 0xF0 && c <= 0xF4) {
      need = 3;
      v = c & 0x07;
      if (c == 0xF0)
         lo = 0x90;
      else if (c == 0xF4)
         hi = 0x8F;            /* nothing above U+10FFFF */
   } else {
      *bad = 1;                /* 80..C1, F5..FF never start a sequence */
      return 0;
   }
   for (i = 1; i <= need; i++) {
      unsigned char t = s + i < end ? s[i] : 0;
      if (t < lo || t > hi) {
         *bad = i;
         return 0;
      }
      v = v << 6 | (t & 0x3Fu);
      lo = 0x80;
      hi = 0xBF;
   }
   *cp = v;
   return need + 1;
}

/* s as text XML can carry: s itself if it is fine as it is (the common
   case), else a copy in x->text with the replacements; NULL if out of
   memory. */
const char *xml_text(xml_out *x, const char *s)
{
   static const char fffd[3] = { '\xEF', '\xBF', '\xBD' };
   const unsigned char *p = (const unsigned char *)s, *end;
   size_t n, len, out = 0;

   for (; *p; p++)
      if (*p >= 0x7F || (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r'))
         break;
   if (!*p)
      return s;                /* printable ASCII */
   len = strlen(s);
   end = (const unsigned char *)s + len;
   /* each input byte becomes at most 3 output bytes (U+FFFD) */
   if (3 * len + 1 > x->text_cap) {
      char *t = realloc(x->text, 3 * len + 1);
      if (!t)
         return NULL;
      x->text = t;
      x->text_cap = 3 * len + 1;
   }
   n = (size_t)(p - (const unsigned char *)s);
   memcpy(x->text, s, n);
   out = n;
   while (p < end) {
      uint32_t cp;
      size_t bad = 0, k = utf8_next(p, end, &cp, &bad);
      if (k && xml_char_ok(cp)) {
         memcpy(x->text + out, p, k);
         out += k;
         p += k;
      } else {
         memcpy(x->text + out, fffd, 3);
         out += 3;
         p += k ? k : bad;
      }
   }
   x->text[out] = 0;
   return x->text;
}

/* ---- Writer helpers ------------------------------------------------------- */

/* Every helper does nothing once a call failed: an output error (the
   driver reports it) or out of memory (write returns -1). */
void xml_check(xml_out *x, int r)
{
   if (r < 0)
      x->failed = 1;
}

void xml_start(xml_out *x, const char *name)
{
   if (!x->failed)
      xml_check(x, xmlTextWriterStartElement(x->w, XC(name)));
}

void xml_end(xml_out *x)
{
   if (!x->failed)
      xml_check(x, xmlTextWriterEndElement(x->w));
}

/* An attribute whose value XML can carry as it is: our own text, or what
   xml_text() made of a trace's. */
void xml_attr(xml_out *x, const char *name, const char *value)
{
   if (!x->failed)
      xml_check(x, xmlTextWriterWriteAttribute(x->w, XC(name), XC(value)));
}

/* An attribute whose value comes from a trace. */
void xml_attr_text(xml_out *x, const char *name, const char *value)
{
   const char *t;
   if (x->failed)
      return;
   t = xml_text(x, value);
   if (!t) {
      x->failed = 1;
      return;
   }
   xml_attr(x, name, t);
}

void xml_attr_u64(xml_out *x, const char *name, uint64_t v)
{
   char buf[24];
   snprintf(buf, sizeof buf, "%" PRIu64, v);
   xml_attr(x, name, buf);
}

void xml_attr_ending(xml_out *x, const pl_ending *e)
{
   static const char *const ends[] = { "truncated", "exit", "signal",
                                       "exec" };
   xml_attr(x, "end", e->kind >= PL_ENDING_CUT_SHORT
                      && e->kind <= PL_ENDING_EXEC ? ends[e->kind]
                                                   : "truncated");
   if (e->status >= 0)
      xml_attr_u64(x, "exit-status", (uint64_t)e->status);
   if (e->kind != PL_ENDING_SIGNAL)
      return;
   xml_attr_u64(x, "signal", (uint64_t)e->signal);
   if (*e->signal_name)
      xml_attr_text(x, "signal-name", e->signal_name);
   if (e->signal_thread)
      xml_attr_u64(x, "signal-thread", e->signal_thread);
   if (e->end_lost)
      xml_attr(x, "end-lost", "yes");
}

/* ---- The document --------------------------------------------------------- */

/* libxml2's output goes into the outbuf; after a write error it stops. */
static int to_outbuf(void *ctx, const char *buf, int len)
{
   outbuf *o = ctx;
   if (len > 0)
      outbuf_write(o, buf, (size_t)len);
   return o->err ? -1 : len;
}

static int no_close(void *ctx)
{
   (void)ctx;
   return 0;
}

int xml_out_open(xml_out *x, outbuf *o, const char *root,
                 const char *version, const char *creator)
{
   xmlOutputBufferPtr ob;

   LIBXML_TEST_VERSION
   memset(x, 0, sizeof *x);
   x->o = o;
   ob = xmlOutputBufferCreateIO(to_outbuf, no_close, o, NULL);
   if (!ob)
      return -1;
   x->w = xmlNewTextWriter(ob);      /* owns ob from now on */
   if (!x->w) {
      xmlOutputBufferClose(ob);
      return -1;
   }
   xml_check(x, xmlTextWriterSetIndent(x->w, 1));
   xml_check(x, xmlTextWriterSetIndentString(x->w, XC("  ")));
   if (!x->failed)
      xml_check(x, xmlTextWriterStartDocument(x->w, "1.0", "UTF-8", NULL));
   xml_start(x, root);
   xml_attr(x, "version", version);
   xml_attr(x, "creator", creator);
   return 0;
}

int xml_out_close(xml_out *x)
{
   int r = 0;
   if (!x->failed)
      xml_check(x, xmlTextWriterEndDocument(x->w));
   if (!x->failed)
      xml_check(x, xmlTextWriterFlush(x->w));
   xmlFreeTextWriter(x->w);
   free(x->text);
   /* a failure without an output error is libxml2 running out of memory */
   if (x->failed && !x->o->err)
      r = -1;
   memset(x, 0, sizeof *x);
   return r;
}
