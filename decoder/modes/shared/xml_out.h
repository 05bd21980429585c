/* SPDX-License-Identifier: MIT */
/* XML documents streamed with libxml2's xmlTextWriter into an outbuf (so
   -o and write errors work as for every output), for parlot-decode --xml
   and parlot-diff --xml.

   Strings from traces (paths, names, command lines) are bytes, not
   necessarily UTF-8, and may hold control characters that XML 1.0 cannot
   carry at all, not even as character references.  xml_text() writes them
   as UTF-8 with each maximal ill-formed subsequence (Unicode's
   "substitution of maximal subparts", as Python's and browsers' decoders
   do) and each character XML forbids replaced by U+FFFD, so that the
   document is always well-formed.

   Every writer call does nothing once one failed (an output error, which
   the caller reports, or libxml2 out of memory). */
#ifndef XML_OUT_H
#define XML_OUT_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/xmlwriter.h>

#include "pl_ending.h"
#include "pl_outbuf.h"

#define XC(s) ((const xmlChar *)(s))

typedef struct {
   xmlTextWriterPtr w;
   outbuf          *o;
   int              failed;     /* a writer call failed: write nothing more */
   char            *text;       /* xml_text()'s buffer */
   size_t           text_cap;
} xml_out;

/* Start a document on o, indented, with its root element open and the
   attributes version and creator.  0, or -1 if out of memory. */
int  xml_out_open(xml_out *x, outbuf *o, const char *root,
                  const char *version, const char *creator);
/* End the document and free x: 0, or -1 if libxml2 failed without an
   output error (out of memory); an output error is the caller's to
   report, from o->err. */
int  xml_out_close(xml_out *x);

/* s as text XML can carry: s itself if it is fine as it is (the common
   case), else a copy in x's buffer; NULL if out of memory. */
const char *xml_text(xml_out *x, const char *s);

void xml_check(xml_out *x, int r);    /* r < 0: the writer failed */
void xml_start(xml_out *x, const char *name);
void xml_end(xml_out *x);
/* An attribute whose value XML can carry as it is (our own text). */
void xml_attr(xml_out *x, const char *name, const char *value);
/* An attribute whose value comes from a trace (through xml_text). */
void xml_attr_text(xml_out *x, const char *name, const char *value);
void xml_attr_u64(xml_out *x, const char *name, uint64_t v);
/* How a process ended, as the schemas give it (parlot-callgraph.rng,
   parlot-info.rng): end= exit|signal|exec|truncated, exit-status=, and
   for a signal signal=, signal-name=, signal-thread=. */
void xml_attr_ending(xml_out *x, const pl_ending *e);

#endif
