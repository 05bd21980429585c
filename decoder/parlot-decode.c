/* parlot-decode: print the contents of ParLoT trace files.

   The command line selects one output mode; each mode is a set of hooks
   (see struct mode) called around and for every trace file, writing to a
   buffered output.  The driver owns error reporting: one line per bad
   file, "parlot-decode: FILE: offset N: message", after everything that
   could be decoded from that file has been written. */

#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_format.h"
#include "pl_trace.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#define PROG "parlot-decode"
#define OUT_BUF_SIZE (1u << 20)
#define OUT_SLACK    64   /* writable bytes past the end, see print_events */
#define PREFIX_MAX   32   /* "pid\tthread\t" */

enum { EXIT_DATA = 1, EXIT_USAGE = 2 };

/* ---- Buffered output ---------------------------------------------------- */

typedef struct {
   int         fd;
   const char *name;     /* for messages */
   char       *buf;
   size_t      len, cap;
   int         err;      /* errno of the first failed write, sticky */
} output;

static int out_flush(output *o)
{
   size_t done = 0;
   while (done < o->len && !o->err) {
      ssize_t k = write(o->fd, o->buf + done, o->len - done);
      if (k < 0) {
         if (errno != EINTR)
            o->err = errno;
      } else {
         done += (size_t)k;
      }
   }
   o->len = 0;
   return o->err ? -1 : 0;
}

/* Slow path for anything that may not fit the buffer. */
static void out_bytes(output *o, const void *p, size_t n)
{
   const char *s = p;
   while (n > 0) {
      size_t k;
      if (o->len == o->cap && out_flush(o) < 0)
         return;
      k = o->cap - o->len < n ? o->cap - o->len : n;
      memcpy(o->buf + o->len, s, k);
      o->len += k;
      s += k;
      n -= k;
   }
}

/* Decimal digits of v at p; returns the end. */
static char *put_u32(char *p, uint32_t v)
{
   char tmp[10];
   int n = 0;
   if (v < 10) {
      *p++ = (char)('0' + v);
      return p;
   }
   do {
      tmp[n++] = (char)('0' + v % 10);
      v /= 10;
   } while (v);
   while (n)
      *p++ = tmp[--n];
   return p;
}

/* ---- Names as printed --------------------------------------------------- */

/* Names go out verbatim except for bytes that would break a line-oriented
   format: control characters and the backslash become C escapes. */
static int needs_escape(unsigned char c)
{
   return c < 0x20 || c == 0x7f || c == '\\';
}

static size_t escaped_len(const char *s, size_t n)
{
   size_t i, len = n;
   for (i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      if (needs_escape(c))
         len += (c == '\t' || c == '\n' || c == '\\') ? 1 : 3;
   }
   return len;
}

static char *put_escaped(char *p, const char *s, size_t n)
{
   static const char hex[] = "0123456789abcdef";
   size_t i;
   for (i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      if (!needs_escape(c)) {
         *p++ = (char)c;
         continue;
      }
      *p++ = '\\';
      if (c == '\t')
         *p++ = 't';
      else if (c == '\n')
         *p++ = 'n';
      else if (c == '\\')
         *p++ = '\\';
      else {
         *p++ = 'x';
         *p++ = hex[c >> 4];
         *p++ = hex[c & 15];
      }
   }
   return p;
}

/* ---- Function names ------------------------------------------------------- */

/* The tool records symbol names exactly as in the object, so C++ names are
   mangled.  They are demangled once per function when a trace is opened,
   with the C++ runtime's demangler (libstdc++ / libc++abi, Itanium ABI);
   the raw name stays available in the trace's table. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static int opt_demangle = 1;     /* --no-demangle clears it */

/* A malloc'ed demangled form of name, or NULL if it is not a mangled C++
   name.  Only "_Z" names are tried: the demangler also accepts bare type
   encodings, and would turn a C function named "f" into "float".  A symbol
   version suffix ("@VERSION", "@@VERSION") is kept as it is. */
static char *demangle(const char *name, size_t len)
{
   const char *at;
   char *d, *base, *out;
   int status = 0;
   size_t dl;

   if (len < 3 || name[0] != '_' || name[1] != 'Z')
      return NULL;
   d = __cxa_demangle(name, NULL, NULL, &status);
   if (d && status == 0)
      return d;
   free(d);
   at = memchr(name, '@', len);
   if (!at || at == name + 2)
      return NULL;
   base = malloc((size_t)(at - name) + 1);
   if (!base)
      return NULL;
   memcpy(base, name, (size_t)(at - name));
   base[at - name] = 0;
   d = __cxa_demangle(base, NULL, NULL, &status);
   free(base);
   if (!d || status != 0) {
      free(d);
      return NULL;
   }
   dl = strlen(d);
   out = malloc(dl + (size_t)(name + len - at) + 1);
   if (out) {
      memcpy(out, d, dl);
      memcpy(out + dl, at, (size_t)(name + len - at) + 1);
   }
   free(d);
   return out;
}

/* The names a mode prints, per function ID: the demangled name if there
   is one (and demangling is on), else the raw name from the trace. */
typedef struct {
   const pl_trace *t;
   pl_name *shown;       /* [id], 1..n */
   uint32_t n;
} fn_names;

static void free_names(fn_names *nm)
{
   uint32_t id;
   if (!nm->shown)
      return;
   for (id = 1; id <= nm->n; id++)
      if (nm->shown[id].str != pl_trace_function(nm->t, id)->name.str)
         free((char *)nm->shown[id].str);
   free(nm->shown);
   nm->shown = NULL;
}

static int load_names(const pl_trace *t, fn_names *nm)
{
   uint32_t id;

   nm->t = t;
   nm->n = pl_trace_nfunctions(t);
   nm->shown = calloc((size_t)nm->n + 1, sizeof *nm->shown);
   if (!nm->shown)
      return -1;
   for (id = 1; id <= nm->n; id++) {
      const pl_function *f = pl_trace_function(t, id);
      char *d = opt_demangle ? demangle(f->name.str, f->name.len) : NULL;
      if (d) {
         nm->shown[id].str = d;
         nm->shown[id].len = strlen(d);
      } else {
         nm->shown[id] = f->name;
      }
   }
   return 0;
}

/* ---- Mode: --events ------------------------------------------------------ */

/* Per function, the constant tail of its event lines:
   "\t<object>\t<function>\n", all in one arena. */
typedef struct {
   char   *arena;
   size_t *at;          /* [id]: offset of the tail in arena, [n+1]: end */
} tails;

static int build_tails(const pl_trace *t, const fn_names *nm, tails *tl)
{
   uint32_t n = pl_trace_nfunctions(t), id;
   size_t total = 0;
   char *p;

   tl->at = malloc(((size_t)n + 2) * sizeof *tl->at);
   if (!tl->at)
      return -1;
   for (id = 1; id <= n; id++) {
      const pl_function *f = pl_trace_function(t, id);
      const pl_name *o = pl_trace_object(t, f->obj);
      total += 3 + escaped_len(o->str, o->len)
               + escaped_len(nm->shown[id].str, nm->shown[id].len);
   }
   tl->arena = malloc(total + 16);    /* +16: print_events reads ahead */
   if (!tl->arena) {
      free(tl->at);
      return -1;
   }
   p = tl->arena;
   for (id = 1; id <= n; id++) {
      const pl_function *f = pl_trace_function(t, id);
      const pl_name *o = pl_trace_object(t, f->obj);
      tl->at[id] = (size_t)(p - tl->arena);
      *p++ = '\t';
      p = put_escaped(p, o->str, o->len);
      *p++ = '\t';
      p = put_escaped(p, nm->shown[id].str, nm->shown[id].len);
      *p++ = '\n';
   }
   tl->at[n + 1] = (size_t)(p - tl->arena);
   memset(p, 0, 16);
   return 0;
}

/* Longest fixed part of a line before the tail: "return\t" + depth. */
#define EVENT_HEAD_MAX (7 + 10)

static const char digits2[201] =
   "00010203040506070809101112131415161718192021222324252627282930313233343536"
   "37383940414243444546474849505152535455565758596061626364656667686970717273"
   "7475767778798081828384858687888990919293949596979899";

/* Write a batch of events of one thread; prefix is "pid\tthread\t",
   padded to PREFIX_MAX bytes.  The fast path copies fixed-size blocks
   (prefix, kind, 16-byte pieces of the tail), which may write up to
   OUT_SLACK bytes past the line into the output buffer's slack and read
   past a tail into the arena's padding: both exist for this. */
static void print_events(output *o, const char *prefix, size_t plen,
                         const tails *tl, const pl_event *ev, size_t n)
{
   static const char kind[2][8] = { "call\t", "return\t" };
   static const size_t kind_len[2] = { 5, 7 };
   size_t i;

   for (i = 0; i < n; i++) {
      uint32_t fn = ev[i].fn, k = ev[i].kind, d = ev[i].depth;
      const char *tail = tl->arena + tl->at[fn];
      size_t tlen = tl->at[fn + 1] - tl->at[fn], j;
      char *p;

      if (o->cap - o->len < plen + EVENT_HEAD_MAX + tlen) {
         char head[EVENT_HEAD_MAX];
         if (out_flush(o) < 0)
            return;
         if (o->cap < plen + EVENT_HEAD_MAX + tlen) {
            /* a name longer than the whole buffer */
            out_bytes(o, prefix, plen);
            out_bytes(o, kind[k], kind_len[k]);
            out_bytes(o, head, (size_t)(put_u32(head, d) - head));
            out_bytes(o, tail, tlen);
            continue;
         }
      }
      p = o->buf + o->len;
      memcpy(p, prefix, PREFIX_MAX);
      p += plen;
      memcpy(p, kind[k], 8);
      p += kind_len[k];
      if (d < 10) {
         *p++ = (char)('0' + d);
      } else if (d < 100) {
         memcpy(p, digits2 + 2 * d, 2);
         p += 2;
      } else {
         p = put_u32(p, d);
      }
      for (j = 0; j < tlen; j += 16)
         memcpy(p + j, tail + j, 16);
      o->len = (size_t)(p + tlen - o->buf);
   }
}

static int events_file(pl_trace *t, output *o, pl_error *err)
{
   const char *pid = pl_trace_process_get(t, "pid");
   size_t i, nthreads = pl_trace_nthreads(t);
   fn_names nm;
   tails tl;
   int ret = 0;

   if (nthreads == 0)
      return 0;
   if (load_names(t, &nm) < 0 || build_tails(t, &nm, &tl) < 0) {
      free_names(&nm);
      err->offset = 0;
      snprintf(err->msg, sizeof err->msg, "out of memory");
      return -1;
   }
   free_names(&nm);            /* the tails hold copies */
   for (i = 0; i < nthreads && ret == 0; i++) {
      char prefix[PREFIX_MAX] = { 0 };
      int plen = snprintf(prefix, sizeof prefix, "%s\t%u\t", pid,
                          pl_trace_thread(t, i)->number);
      pl_events *it = pl_events_open(t, i, err);
      const pl_event *ev;
      long n;

      if (!it) {
         ret = -1;
         break;
      }
      while ((n = pl_events_next(it, &ev, err)) > 0 && !o->err)
         print_events(o, prefix, (size_t)plen, &tl, ev, (size_t)n);
      if (n < 0)
         ret = -1;
      pl_events_close(it);
      if (o->err)
         break;
   }
   free(tl.arena);
   free(tl.at);
   return ret;
}

/* ---- Driver ------------------------------------------------------------- */

struct mode {
   const char *option;  /* long option selecting it */
   const char *help;
   /* One trace: write its output; 0, or -1 with *err set for bad data.
      Output errors are left in o->err. */
   int (*file)(pl_trace *t, output *o, pl_error *err);
};

static const struct mode modes[] = {
   { "events", "one line per call and return, tab-separated:\n"
               "                     PID THREAD call|return DEPTH OBJECT FUNCTION",
     events_file },
};
#define NMODES (sizeof modes / sizeof modes[0])

static void usage(FILE *f)
{
   size_t i;
   fprintf(f,
      "usage: " PROG " MODE [-o FILE] [--no-demangle] TRACE...\n"
      "Decode ParLoT traces (valgrind --tool=parlot).\n"
      "\n"
      "modes:\n");
   for (i = 0; i < NMODES; i++)
      fprintf(f, "  --%-16s %s\n", modes[i].option, modes[i].help);
   fprintf(f,
      "\n"
      "options:\n"
      "  -o, --output=FILE  write to FILE instead of standard output\n"
      "      --no-demangle  print C++ function names as recorded (mangled)\n"
      "  -h, --help         show this help and exit\n"
      "  -V, --version      show the version and exit\n"
      "\n"
      "Threads are printed in thread-number order, files in command-line\n"
      "order.  Names are printed as recorded, except that mangled C++ names\n"
      "are demangled; control characters and backslashes in them are\n"
      "written as C escapes (\\t, \\n, \\\\, \\xHH).\n"
      "\n"
      "A trace is complete when it ends with the process's exit or exec.\n"
      "A damaged or truncated trace is decoded up to the damage, then\n"
      "reported on standard error as \"FILE: offset N: message\".\n"
      "Exit status: 0 if all traces were complete and valid, 1 on bad data\n"
      "or an output error, 2 on a usage error.\n");
}

static int usage_error(const char *what, const char *arg)
{
   fprintf(stderr, PROG ": %s%s%s%s (try '" PROG " --help')\n", what,
           arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
   return EXIT_USAGE;
}

static void report(const char *path, const pl_error *e)
{
   fprintf(stderr, PROG ": %s: offset %llu: %s\n", path,
           (unsigned long long)e->offset, e->msg);
}

static int output_failed(const output *o)
{
   fprintf(stderr, PROG ": %s: write error: %s\n", o->name, strerror(o->err));
   return EXIT_DATA;
}

/* Refuse -o naming one of the inputs: opening it would truncate a trace. */
static int is_an_input(const char *out, char **paths, int n)
{
   struct stat so, si;
   int i;
   if (stat(out, &so) < 0 || !S_ISREG(so.st_mode))
      return 0;
   for (i = 0; i < n; i++)
      if (stat(paths[i], &si) == 0 && si.st_dev == so.st_dev
          && si.st_ino == so.st_ino)
         return 1;
   return 0;
}

int main(int argc, char **argv)
{
   enum { OPT_MODE = 0x100, OPT_NO_DEMANGLE = 0x80 };
   struct option longopts[NMODES + 5];
   const struct mode *mode = NULL;
   const char *out_path = NULL;
   output out;
   int status = 0, c, i;
   size_t m;

   for (m = 0; m < NMODES; m++) {
      longopts[m].name = modes[m].option;
      longopts[m].has_arg = no_argument;
      longopts[m].flag = NULL;
      longopts[m].val = OPT_MODE + (int)m;
   }
   longopts[m++] = (struct option){ "output", required_argument, NULL, 'o' };
   longopts[m++] = (struct option){ "help", no_argument, NULL, 'h' };
   longopts[m++] = (struct option){ "version", no_argument, NULL, 'V' };
   longopts[m++] = (struct option){ "no-demangle", no_argument, NULL,
                                    OPT_NO_DEMANGLE };
   longopts[m] = (struct option){ NULL, 0, NULL, 0 };

   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:hV", longopts, NULL)) != -1) {
      switch (c) {
      case 'o':
         out_path = optarg;
         break;
      case OPT_NO_DEMANGLE:
         opt_demangle = 0;
         break;
      case 'h':
         usage(stdout);
         return fflush(stdout) == 0 ? 0 : EXIT_DATA;
      case 'V':
         printf(PROG " (ParLoT) %s, trace format %u.%u\n", PACKAGE_VERSION,
                PL_VERSION_MAJOR, PL_VERSION_MINOR);
         return fflush(stdout) == 0 ? 0 : EXIT_DATA;
      case ':':
         return usage_error("option needs an argument:", argv[optind - 1]);
      case '?':
         if (strncmp(argv[optind - 1], "--", 2) != 0 && optopt > 0
             && optopt < 0x80) {
            char opt[3] = { '-', (char)optopt, 0 };
            return usage_error("unknown option", opt);
         }
         return usage_error("unknown option", argv[optind - 1]);
      default:
         if (mode && mode != &modes[c - OPT_MODE])
            return usage_error("only one mode may be given", NULL);
         mode = &modes[c - OPT_MODE];
         break;
      }
   }
   if (!mode)
      return usage_error("no mode given, e.g. --events", NULL);
   if (optind == argc)
      return usage_error("no trace file given", NULL);

   out.fd = STDOUT_FILENO;
   out.name = "standard output";
   if (out_path) {
      if (is_an_input(out_path, argv + optind, argc - optind)) {
         fprintf(stderr, PROG ": %s: output file is also an input\n",
                 out_path);
         return EXIT_USAGE;
      }
      out.fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
      if (out.fd < 0) {
         fprintf(stderr, PROG ": %s: cannot create: %s\n", out_path,
                 strerror(errno));
         return EXIT_DATA;
      }
      out.name = out_path;
   }
   out.len = 0;
   out.cap = OUT_BUF_SIZE;
   out.err = 0;
   out.buf = malloc(out.cap + OUT_SLACK);
   if (!out.buf) {
      fprintf(stderr, PROG ": out of memory\n");
      return EXIT_DATA;
   }

   for (i = optind; i < argc && !out.err; i++) {
      pl_error err;
      const pl_error *dmg;
      pl_trace *t = pl_trace_open(argv[i], &err);
      int r;

      if (!t) {
         report(argv[i], &err);
         status = EXIT_DATA;
         continue;
      }
      r = mode->file(t, &out, &err);
      /* what was decoded goes out before the message about the rest */
      if (out_flush(&out) < 0) {
         pl_trace_close(t);
         break;
      }
      if (r < 0) {
         report(argv[i], &err);
         status = EXIT_DATA;
      } else if ((dmg = pl_trace_damage(t)) != NULL) {
         report(argv[i], dmg);
         status = EXIT_DATA;
      }
      pl_trace_close(t);
   }

   out_flush(&out);
   if (out_path && close(out.fd) < 0 && !out.err)
      out.err = errno;
   free(out.buf);
   if (out.err)
      return output_failed(&out);
   return status;
}
