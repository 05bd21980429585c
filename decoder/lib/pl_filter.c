/* SPDX-License-Identifier: MIT */
/* Filters (pl_filter.h). */

#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_glob.h"
#include "pl_names.h"
#include "pl_filter.h"
#include "pl_runtime.h"

enum images { IMAGES_ALL, IMAGES_MAIN, IMAGES_PROGRAM, IMAGES_GLOBS };

struct pl_filter {
   int       images;       /* enum images, as given */
   int       images_given; /* --images was given */
   int       program_default;   /* pl_filter_default_program() */
   char    **objs;         /* images=GLOB,...: the object patterns */
   size_t    nobjs;
   char    **prog_objs;    /* program-objects=: always the program's */
   size_t    nprog_objs;
   char    **lib_objs;     /* library-objects=: never the program's */
   size_t    nlib_objs;
   char    **only;         /* only=: patterns */
   size_t    nonly;
   char    **hide;         /* hide=: patterns */
   size_t    nhide;
   char    **hide_objs;    /* hide-object=: never these objects' */
   size_t    nhide_objs;
   uint32_t  max_depth;    /* depth=: 0 = all */
   uint64_t  first, last;  /* range=: event numbers; last 0 = to the end */
   char     *from_mark, *to_mark;   /* from-mark=, to-mark=: labels */
   uint32_t  from_occ, to_occ;      /* their #N, from 1 */
   char      desc[512];    /* pl_filter_describe() */
};

/* A whole decimal number, no sign: 0, or -1. */
static int parse_num(const char *s, const char **end, uint64_t *v)
{
   uint64_t x = 0;
   const char *p = s;
   if (*p < '0' || *p > '9')
      return -1;
   for (; *p >= '0' && *p <= '9'; p++) {
      if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
         return -1;
      x = x * 10 + (uint64_t)(*p - '0');
   }
   *end = p;
   *v = x;
   return 0;
}

static int add_glob(char ***v, size_t *n, const char *arg, char *why,
                    size_t whylen)
{
   char **nv;
   if (!*arg) {
      snprintf(why, whylen, "empty pattern");
      return -1;
   }
   nv = realloc(*v, (*n + 1) * sizeof *nv);
   if (!nv || !(nv[*n] = strdup(arg))) {
      if (nv)
         *v = nv;
      snprintf(why, whylen, "out of memory");
      return -1;
   }
   *v = nv;
   (*n)++;
   return 0;
}

/* --range=A-B, A-, -B or A (one event): event numbers from 1. */
static int parse_range(pl_filter *f, const char *arg, char *why,
                       size_t whylen)
{
   const char *p = arg;
   uint64_t a = 1, b = 0;

   if (*p != '-' && parse_num(p, &p, &a) < 0)
      goto bad;
   if (*p == '\0') {
      b = a;
   } else {
      if (*p++ != '-')
         goto bad;
      if (*p && (parse_num(p, &p, &b) < 0 || *p))
         goto bad;
   }
   if (a == 0 || (b != 0 && b < a))
      goto bad;
   f->first = a;
   f->last = b;
   return 0;
bad:
   snprintf(why, whylen, "--range wants event numbers FIRST-LAST (from 1; "
            "either may be left out), not '%s'", arg);
   return -1;
}

/* LABEL or LABEL#N (N from 1; a label holding '#' takes the last one as
   the separator only if a number follows it). */
static int parse_mark(const char *opt, const char *arg, char **label,
                      uint32_t *occ, char *why, size_t whylen)
{
   const char *hash = strrchr(arg, '#'), *end;
   uint64_t n = 1;
   size_t len = strlen(arg);

   if (hash && hash[1] && parse_num(hash + 1, &end, &n) == 0 && !*end) {
      if (n == 0 || n > UINT32_MAX) {
         snprintf(why, whylen, "--%s: occurrences count from 1, not '%s'",
                  opt, hash + 1);
         return -1;
      }
      len = (size_t)(hash - arg);
   } else {
      n = 1;
   }
   if (len == 0) {
      snprintf(why, whylen, "--%s wants a mark's label (LABEL or LABEL#N), "
               "not '%s'", opt, arg);
      return -1;
   }
   free(*label);
   if (!(*label = strndup(arg, len))) {
      snprintf(why, whylen, "out of memory");
      return -1;
   }
   *occ = (uint32_t)n;
   return 0;
}

static void free_globs(char **v, size_t n)
{
   size_t i;
   for (i = 0; i < n; i++)
      free(v[i]);
   free(v);
}

/* images=main|all|program|GLOB[,GLOB]... */
static int parse_images(pl_filter *f, const char *arg, char *why,
                        size_t whylen)
{
   const char *p = arg;

   free_globs(f->objs, f->nobjs);
   f->objs = NULL;
   f->nobjs = 0;
   f->images_given = 1;
   if (strcmp(arg, "main") == 0 || strcmp(arg, "all") == 0
       || strcmp(arg, "program") == 0) {
      f->images = arg[0] == 'm' ? IMAGES_MAIN
                  : arg[0] == 'a' ? IMAGES_ALL : IMAGES_PROGRAM;
      return 0;
   }
   f->images = IMAGES_GLOBS;
   for (;;) {
      size_t len = strcspn(p, ",");
      char *one = strndup(p, len);
      int r;
      if (!one) {
         snprintf(why, whylen, "out of memory");
         return -1;
      }
      r = len ? add_glob(&f->objs, &f->nobjs, one, why, whylen) : 0;
      free(one);
      if (r < 0)
         return -1;
      if (!p[len])
         break;
      p += len + 1;
   }
   if (!f->nobjs) {
      snprintf(why, whylen, "--images wants main, all, program or object "
               "patterns, not '%s'", arg);
      return -1;
   }
   return 0;
}

static int apply_option(pl_filter *f, const char *name, const char *arg,
                     char *why, size_t whylen)
{
   if (strcmp(name, "images") == 0)
      return parse_images(f, arg, why, whylen);
   if (strcmp(name, "program-objects") == 0)
      return add_glob(&f->prog_objs, &f->nprog_objs, arg, why, whylen);
   if (strcmp(name, "library-objects") == 0)
      return add_glob(&f->lib_objs, &f->nlib_objs, arg, why, whylen);
   if (strcmp(name, "only") == 0)
      return add_glob(&f->only, &f->nonly, arg, why, whylen);
   if (strcmp(name, "hide") == 0)
      return add_glob(&f->hide, &f->nhide, arg, why, whylen);
   /* the tool's names: only-object= as images=GLOB */
   if (strcmp(name, "only-object") == 0) {      /* repeatable */
      if (!f->images_given || f->images != IMAGES_GLOBS) {
         free_globs(f->objs, f->nobjs);
         f->objs = NULL;
         f->nobjs = 0;
         f->images_given = 1;
         f->images = IMAGES_GLOBS;
      }
      return add_glob(&f->objs, &f->nobjs, arg, why, whylen);
   }
   if (strcmp(name, "hide-object") == 0)
      return add_glob(&f->hide_objs, &f->nhide_objs, arg, why, whylen);
   if (strcmp(name, "max-depth") == 0 || strcmp(name, "depth") == 0) {
      const char *end;
      uint64_t d;
      if (parse_num(arg, &end, &d) < 0 || *end || d == 0 || d > UINT32_MAX) {
         snprintf(why, whylen, "--%s wants a number from 1, not '%s'", name,
                  arg);
         return -1;
      }
      f->max_depth = (uint32_t)d;
      return 0;
   }
   if (strcmp(name, "range") == 0)
      return parse_range(f, arg, why, whylen);
   if (strcmp(name, "from-mark") == 0)
      return parse_mark(name, arg, &f->from_mark, &f->from_occ, why, whylen);
   if (strcmp(name, "to-mark") == 0)
      return parse_mark(name, arg, &f->to_mark, &f->to_occ, why, whylen);
   snprintf(why, whylen, "unknown filter '%s'", name);
   return -1;
}

pl_filter *pl_filter_new(void)
{
   return calloc(1, sizeof(pl_filter));
}

void pl_filter_free(pl_filter *f)
{
   if (!f)
      return;
   free_globs(f->only, f->nonly);
   free_globs(f->hide, f->nhide);
   free_globs(f->objs, f->nobjs);
   free_globs(f->prog_objs, f->nprog_objs);
   free_globs(f->lib_objs, f->nlib_objs);
   free_globs(f->hide_objs, f->nhide_objs);
   free(f->from_mark);
   free(f->to_mark);
   free(f);
}

/* NULL is the filter that drops nothing, everywhere below. */
static const pl_filter no_filter;

/* The images in force: as given; else the program's view where it is
   the default and no --only asks for something else; else all. */
static int images_of(const pl_filter *f)
{
   if (f->images_given)
      return f->images;
   return f->program_default && !f->nonly ? IMAGES_PROGRAM : IMAGES_ALL;
}

int pl_filter_active(const pl_filter *f)
{
   if (!f)
      return 0;
   return images_of(f) != IMAGES_ALL || f->nonly || f->nhide
          || f->nhide_objs || f->max_depth || f->first > 1 || f->last || f->from_mark
          || f->to_mark;
}

int pl_filter_program_view(const pl_filter *f)
{
   return f && images_of(f) == IMAGES_PROGRAM;
}

/* Append " key=value" to buf (size n) if it fits; "..." once it does not. */
static void describe_add(char *buf, size_t n, const char *key,
                         const char *val)
{
   size_t len = strlen(buf);
   int w = snprintf(buf + len, n - len, "%s%s=%s", len ? " " : "", key, val);
   if (w < 0 || (size_t)w >= n - len)
      snprintf(buf + (len < n - 4 ? len : n - 4), 4, "...");
}

static void describe_mark(char *buf, size_t n, const char *key,
                          const char *label, const char *occ)
{
   size_t len = strlen(label) + strlen(occ) + 1;
   char *v = malloc(len);
   if (!v)
      return;
   snprintf(v, len, "%s%s", label, occ);
   describe_add(buf, n, key, v);
   free(v);
}

/* Rewrite f->desc after a change. */
static void describe(pl_filter *f)
{
   char *buf = f->desc;
   char num[64];
   size_t i;

   buf[0] = '\0';
   switch (images_of(f)) {
   case IMAGES_MAIN:
      describe_add(buf, sizeof f->desc, "images", "main");
      break;
   case IMAGES_PROGRAM:
      describe_add(buf, sizeof f->desc, "images", "program");
      for (i = 0; i < f->nprog_objs; i++)
         describe_add(buf, sizeof f->desc, "program-objects",
                      f->prog_objs[i]);
      for (i = 0; i < f->nlib_objs; i++)
         describe_add(buf, sizeof f->desc, "library-objects",
                      f->lib_objs[i]);
      break;
   case IMAGES_GLOBS:
      for (i = 0; i < f->nobjs; i++)
         describe_add(buf, sizeof f->desc, "images", f->objs[i]);
      break;
   }
   for (i = 0; i < f->nonly; i++)
      describe_add(buf, sizeof f->desc, "only", f->only[i]);
   for (i = 0; i < f->nhide; i++)
      describe_add(buf, sizeof f->desc, "hide", f->hide[i]);
   for (i = 0; i < f->nhide_objs; i++)
      describe_add(buf, sizeof f->desc, "hide-object", f->hide_objs[i]);
   if (f->max_depth) {
      snprintf(num, sizeof num, "%u", f->max_depth);
      describe_add(buf, sizeof f->desc, "max-depth", num);
   }
   if (f->first > 1 || f->last) {
      if (f->last)
         snprintf(num, sizeof num, "%llu-%llu",
                  (unsigned long long)(f->first ? f->first : 1),
                  (unsigned long long)f->last);
      else
         snprintf(num, sizeof num, "%llu-", (unsigned long long)f->first);
      describe_add(buf, sizeof f->desc, "range", num);
   }
   if (f->from_mark) {
      snprintf(num, sizeof num, "#%u", f->from_occ);
      describe_mark(buf, sizeof f->desc, "from-mark", f->from_mark, num);
   }
   if (f->to_mark) {
      snprintf(num, sizeof num, "#%u", f->to_occ);
      describe_mark(buf, sizeof f->desc, "to-mark", f->to_mark, num);
   }
}

int pl_filter_option(pl_filter *f, const char *name, const char *arg,
                     char *why, size_t whylen)
{
   if (apply_option(f, name, arg, why, whylen) < 0)
      return -1;
   describe(f);
   return 0;
}

void pl_filter_default_program(pl_filter *f)
{
   f->program_default = 1;
   describe(f);
}

const char *pl_filter_describe(const pl_filter *f)
{
   return f ? f->desc : "";
}

uint32_t pl_filter_max_depth(const pl_filter *f)
{
   return f ? f->max_depth : 0;
}

int pl_filter_ranged(const pl_filter *f)
{
   if (!f)
      return 0;
   return f->first > 1 || f->last || f->from_mark || f->to_mark;
}

static uint64_t range_end(const pl_filter *f)
{
   return f->last ? f->last : UINT64_MAX;
}

/* The position of the occ-th mark labelled label in thread index of t,
   or -1 if it has none. */
static int find_mark(const pl_trace *t, size_t index, const char *label,
                     uint32_t occ, uint64_t *position)
{
   size_t n, i;
   const pl_mark *m = pl_trace_marks(t, index, &n);
   for (i = 0; i < n; i++)
      if (m[i].occurrence == occ && strcmp(m[i].label, label) == 0) {
         *position = m[i].position;
         return 0;
      }
   return -1;
}

void pl_filter_thread_range(const pl_filter *f, const pl_trace *t,
                            size_t index, uint64_t *first, uint64_t *last)
{
   uint64_t pos;

   if (!f)
      f = &no_filter;
   *first = f->first ? f->first : 1;
   *last = range_end(f);
   if (f->from_mark) {
      if (find_mark(t, index, f->from_mark, f->from_occ, &pos) == 0)
         *first = pos + 1 > *first ? pos + 1 : *first;
      else
         *first = UINT64_MAX;           /* never reached: nothing shown */
   }
   if (f->to_mark && find_mark(t, index, f->to_mark, f->to_occ, &pos) == 0
       && pos < *last)
      *last = pos;
   if (*last == 0)
      *first = UINT64_MAX;              /* a mark before any event */
}

/* A path's file name: what follows its last '/'. */
static const char *base_name(const char *path)
{
   const char *slash = strrchr(path, '/');
   return slash ? slash + 1 : path;
}

uint32_t pl_main_object(const pl_trace *t)
{
   uint32_t n = pl_trace_nfunctions(t), id, nobj = pl_trace_nobjects(t);
   const char *exe = pl_trace_process_get(t, "exe"), *base;

   for (id = 1; id <= n; id++) {
      const pl_function *fn = pl_trace_function(t, id);
      if (fn->obj && strcmp(fn->name.str, "main") == 0)
         return fn->obj;
   }
   if (!exe || !*exe)
      return 0;
   base = base_name(exe);
   for (id = 1; id <= nobj; id++)
      if (strcmp(base_name(pl_trace_object(t, id)->str), base) == 0)
         return id;
   return 0;
}

static int any_glob(char *const *pats, size_t n, const char *a,
                    const char *b)
{
   size_t i;
   for (i = 0; i < n; i++)
      if (pl_glob_match(pats[i], a) || (b && pl_glob_match(pats[i], b)))
         return 1;
   return 0;
}

enum { MATCH_ONLY = 1, MATCH_HIDE = 2 };


/* Whether object obj of t is one hide-object= leaves out. */
static int hidden_object(const pl_filter *f, const pl_trace *t, uint32_t obj)
{
   const char *path, *base;
   if (!f->nhide_objs || !obj)
      return 0;
   path = pl_trace_object(t, obj)->str;
   base = base_name(path);
   return any_glob(f->hide_objs, f->nhide_objs, base, path);
}

/* Which of f's --only and --hide patterns function id matches (MATCH_*
   bits): every name of it (the one shown and its aliases, as recorded,
   and demangled with demangle), each name demangled once. */
static int matches(const pl_filter *f, const pl_trace *t, uint32_t id,
                   int demangle)
{
   const pl_name *nm = &pl_trace_function(t, id)->name;
   size_t k = 0;
   int m = 0;

   if (!f->nonly && !f->nhide)
      return 0;
   for (; nm && !(m & MATCH_HIDE); nm = pl_trace_function_alias(t, id, k++)) {
      char *d = demangle ? pl_demangle(nm->str, nm->len) : NULL;
      if (any_glob(f->only, f->nonly, nm->str, d))
         m |= MATCH_ONLY;
      if (any_glob(f->hide, f->nhide, nm->str, d))
         m |= MATCH_HIDE;
      free(d);
   }
   return m;
}

/* Per object ID of t: for images=main or GLOB, whether it is in the
   images (1 or 0); for images=program, its enum pl_object_kind, the
   program-objects= and library-objects= patterns first. */
static uint8_t *objects_in(const pl_filter *f, const pl_trace *t, int images)
{
   uint32_t n = pl_trace_nobjects(t), id, main_obj = pl_main_object(t);
   uint8_t *in = calloc((size_t)n + 1, 1);

   if (!in)
      return NULL;
   in[0] = images == IMAGES_PROGRAM ? PL_OBJECT_RUNTIME : 0;
   for (id = 1; id <= n; id++) {
      const char *path = pl_trace_object(t, id)->str;
      const char *base = base_name(path);
      switch (images) {
      case IMAGES_MAIN:
         in[id] = id == main_obj;
         break;
      case IMAGES_GLOBS:
         in[id] = (uint8_t)any_glob(f->objs, f->nobjs, base, path);
         break;
      default:                /* IMAGES_PROGRAM */
         if (id == main_obj || any_glob(f->prog_objs, f->nprog_objs, base,
                                        path))
            in[id] = PL_OBJECT_PROGRAM;
         else if (any_glob(f->lib_objs, f->nlib_objs, base, path))
            in[id] = PL_OBJECT_RUNTIME;
         else
            in[id] = (uint8_t)pl_object_kind(path);
         break;
      }
   }
   return in;
}

/* images=program: the class of function id of object kind `kind`. */
static uint8_t program_class(const pl_trace *t, uint32_t id, int kind,
                             int only)
{
   const pl_function *fn = pl_trace_function(t, id);
   if (only)
      return PL_KEEP_YES;
   if (pl_runtime_calls_main(fn->name.str))
      return PL_KEEP_CALLS_MAIN;
   if ((kind == PL_OBJECT_PROGRAM || kind == PL_OBJECT_SYSTEM)
       && pl_runtime_instantiated(fn->name.str))
      return PL_KEEP_ENTRY;
   switch (kind) {
   case PL_OBJECT_PROGRAM:
      return pl_runtime_function(fn->name.str) ? PL_KEEP_NO : PL_KEEP_YES;
   case PL_OBJECT_SYSTEM:
      return pl_runtime_function(fn->name.str) ? PL_KEEP_NO
                                                : PL_KEEP_CALLED;
   case PL_OBJECT_RUNTIME:
      return PL_KEEP_ENTRY;
   default:
      return PL_KEEP_NO;     /* the loader */
   }
}

uint8_t *pl_filter_functions(const pl_filter *f, const pl_trace *t,
                             int demangle)
{
   uint32_t n = pl_trace_nfunctions(t), id;
   int images;
   uint8_t *keep, *in = NULL;

   if (!f)
      f = &no_filter;
   images = images_of(f);
   keep = malloc((size_t)n + 1);
   if (!keep || (images != IMAGES_ALL && !(in = objects_in(f, t, images)))) {
      free(keep);
      return NULL;
   }
   keep[0] = PL_KEEP_NO;
   for (id = 1; id <= n; id++) {
      const pl_function *fn = pl_trace_function(t, id);
      int m = matches(f, t, id, demangle);

      if ((m & MATCH_HIDE) || hidden_object(f, t, fn->obj)) {
         keep[id] = PL_KEEP_NO;
         continue;
      }
      switch (images) {
      case IMAGES_ALL:
         keep[id] = !f->nonly || (m & MATCH_ONLY) ? PL_KEEP_YES : PL_KEEP_NO;
         break;
      case IMAGES_PROGRAM:
         keep[id] = program_class(t, id, in[fn->obj], m & MATCH_ONLY);
         break;
      default:             /* the images, with what --only adds */
         keep[id] = in[fn->obj] || (m & MATCH_ONLY) ? PL_KEEP_YES
                                                    : PL_KEEP_NO;
         break;
      }
   }
   free(in);
   return keep;
}
