/* SPDX-License-Identifier: MIT */
/* Command-line conventions shared by the decoder's programs (pl_cli.h). */
#define _FILE_OFFSET_BITS 64
#define _GNU_SOURCE              /* asprintf, scandir */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_alloc.h"
#include "pl_cli.h"
#include "pl_format.h"

int pl_usage_error(const char *prog, const char *what, const char *arg)
{
   fprintf(stderr, "%s: %s%s%s%s (try '%s --help')\n", prog, what,
           arg ? " '" : "", arg ? arg : "", arg ? "'" : "", prog);
   return PL_EXIT_USAGE;
}

int pl_option_error(const char *prog, int c, char **argv)
{
   const char *arg = argv[optind - 1];

   if (c == ':')
      return pl_usage_error(prog, "option needs an argument:", arg);
   if (strncmp(arg, "--", 2) != 0 && optopt > 0 && optopt < 0x80) {
      char opt[3] = { '-', (char)optopt, 0 };   /* in a group: -xq */
      return pl_usage_error(prog, "unknown option", opt);
   }
   return pl_usage_error(prog, "unknown option", arg);
}

void pl_report(const char *prog, const char *path, const pl_error *e)
{
   fprintf(stderr, "%s: %s: offset %llu: %s\n", prog, path,
           (unsigned long long)e->offset, e->msg);
}

int pl_print_version(const char *prog, const char *version)
{
   printf("%s (ParLoT) %s, trace format %u.%u\n", prog, version,
          PL_VERSION_MAJOR, PL_VERSION_MINOR);
   return fflush(stdout) == 0 ? 0 : PL_EXIT_DATA;
}

int pl_is_an_input(const char *out, char *const *paths, int n)
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

int pl_parse_u64(const char *s, uint64_t *v)
{
   char *end;
   if (!*s || *s == '-' || *s == ' ')
      return -1;
   errno = 0;
   *v = strtoull(s, &end, 0);
   return errno || *end ? -1 : 0;
}

int pl_output_open(const char *prog, outbuf *o, const char *path,
                   char *const *inputs, int ninputs)
{
   int fd = STDOUT_FILENO;

   if (path) {
      if (pl_is_an_input(path, inputs, ninputs)) {
         fprintf(stderr, "%s: %s: output file is also an input\n", prog,
                 path);
         return PL_EXIT_USAGE;
      }
      fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
      if (fd < 0) {
         fprintf(stderr, "%s: %s: cannot create: %s\n", prog, path,
                 strerror(errno));
         return PL_EXIT_DATA;
      }
   }
   if (outbuf_init(o, fd, path ? path : "standard output") < 0) {
      fprintf(stderr, "%s: out of memory\n", prog);
      if (path)
         close(fd);
      return PL_EXIT_DATA;
   }
   return 0;
}

int pl_output_close(const char *prog, outbuf *o)
{
   int err;

   outbuf_flush(o);
   if (o->fd != STDOUT_FILENO && close(o->fd) < 0 && !o->err)
      o->err = errno;
   err = o->err;
   if (err)
      fprintf(stderr, "%s: %s: write error: %s\n", prog, o->name,
              strerror(err));
   outbuf_free(o);
   return err ? PL_EXIT_DATA : 0;
}

/* Whether the file at path starts as a trace or an archive does. */
static int looks_like_trace(const char *path)
{
   char head[PL_MAGIC_LEN];
   int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;
   if (fd < 0)
      return 0;
   if (read(fd, head, sizeof head) == (ssize_t)sizeof head)
      ok = memcmp(head, PL_MAGIC, PL_MAGIC_LEN) == 0
           || memcmp(head, PL_AR_MAGIC, PL_AR_MAGIC_LEN) == 0;
   close(fd);
   return ok;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
   return strcmp((*a)->d_name, (*b)->d_name);
}

/* The traces and archives in directory dir, by name: other files are
   left out, a directory without any is an error.  As pl_cli_inputs. */
static int add_directory(const char *prog, pl_inputs *in, const char *dir)
{
   struct dirent **ents;
   int n = scandir(dir, &ents, NULL, by_name), i, bad = 0, found = 0;

   if (n < 0) {
      if (prog)
         fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(errno));
      return 1;
   }
   for (i = 0; i < n; i++) {
      char *path = NULL;
      struct stat st;
      if (bad >= 0 && ents[i]->d_name[0] != '.'
          && asprintf(&path, "%s%s%s", dir,
                      dir[strlen(dir) - 1] == '/' ? "" : "/",
                      ents[i]->d_name) >= 0
          && stat(path, &st) == 0 && S_ISREG(st.st_mode)
          && looks_like_trace(path)) {
         pl_error err;
         int r = pl_inputs_add(in, path, &err);
         found++;
         if (r < 0) {
            if (prog)
               fprintf(stderr, "%s: %s\n", prog, err.msg);
            bad = -1;
         } else if (r > 0) {
            if (prog)
               pl_report(prog, path, &err);
            bad++;
         }
      }
      free(path);
      free(ents[i]);
   }
   free(ents);
   if (bad >= 0 && !found) {
      if (prog)
         fprintf(stderr, "%s: %s: no trace or archive in this directory\n",
                 prog, dir);
      bad++;
   }
   return bad;
}

/* ---- Pipes and standard input ------------------------------------------ */

/* A trace read from standard input ("-"), a pipe or a FIFO is copied to a
   temporary file first: the readers index a trace and read it more than
   once, which a pipe cannot give.  The same path given twice is read
   once; the copies are removed at exit. */
typedef struct {
   char *given, *copy;
} spool;

static spool *spools;
static size_t nspools, spools_cap;

static void remove_spools(void)
{
   size_t i;
   for (i = 0; i < nspools; i++) {
      unlink(spools[i].copy);
      free(spools[i].copy);
      free(spools[i].given);
   }
   free(spools);
   spools = NULL;
   nspools = spools_cap = 0;
}

/* Whether path is to be copied before reading: "-", a pipe, a FIFO or a
   socket (not a character device: /dev/zero would never end). */
static int needs_spool(const char *path)
{
   struct stat st;
   if (strcmp(path, "-") == 0)
      return 1;
   return stat(path, &st) == 0
          && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/* Copy everything from fd to a new temporary file: its path, or NULL
   (errno set; *what says which step failed). */
static char *copy_to_temporary(int fd, const char **what)
{
   const char *dir = getenv("TMPDIR");
   char *path, buf[1 << 16];
   outbuf ob;
   ssize_t n;
   int out, e;

   *what = NULL;
   if (asprintf(&path, "%s/parlot-input.XXXXXX", dir && *dir ? dir : "/tmp")
       < 0) {
      *what = "out of memory";
      return NULL;
   }
   if ((out = mkstemp(path)) < 0) {
      *what = "cannot create a temporary copy";
      free(path);
      return NULL;
   }
   if (outbuf_init(&ob, out, path) < 0) {
      *what = "out of memory";
      e = ENOMEM;
      goto fail;
   }
   while ((n = read(fd, buf, sizeof buf)) != 0) {
      if (n < 0 && errno == EINTR)
         continue;
      if (n < 0)
         break;
      outbuf_write(&ob, buf, (size_t)n);
   }
   e = n < 0 ? errno : 0;
   if (e)
      *what = "read error";
   else if (outbuf_flush(&ob) < 0)
      e = ob.err;
   outbuf_free(&ob);
   if (close(out) < 0 && !e)
      e = errno;
   out = -1;
   if (!e)
      return path;
   if (*what == NULL)
      *what = "cannot write its temporary copy";
fail:
   if (out >= 0)
      close(out);
   unlink(path);
   free(path);
   errno = e;
   return NULL;
}

/* The file to read for path: path, or a copy of what it streams.  NULL
   after reporting why (unless prog is NULL). */
static const char *readable_path(const char *prog, const char *path)
{
   const char *what;
   char *copy, *given;
   size_t i;
   int fd;

   if (!needs_spool(path))
      return path;
   for (i = 0; i < nspools; i++)
      if (strcmp(spools[i].given, path) == 0)
         return spools[i].copy;
   fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY);
   if (fd < 0) {
      if (prog)
         fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
      return NULL;
   }
   copy = copy_to_temporary(fd, &what);
   if (fd != STDIN_FILENO)
      close(fd);
   if (!copy) {
      if (prog)
         fprintf(stderr, "%s: %s: %s: %s\n", prog,
                 strcmp(path, "-") == 0 ? "standard input" : path, what,
                 strerror(errno));
      return NULL;
   }
   given = strdup(path);
   if (!given || pl_grow(&spools, &spools_cap, nspools + 1,
                         sizeof *spools) < 0) {
      unlink(copy);
      free(copy);
      free(given);
      if (prog)
         fprintf(stderr, "%s: out of memory\n", prog);
      return NULL;
   }
   if (nspools == 0)
      atexit(remove_spools);
   spools[nspools].given = given;
   spools[nspools++].copy = copy;
   return copy;
}

/* Inputs in[from..] were added from file, a copy of what the user named
   shown: their names say shown ("stdin" for "-"), not the copy's path. */
static int rename_inputs(pl_inputs *in, size_t from, const char *file,
                         const char *shown)
{
   size_t i, flen = strlen(file);
   if (strcmp(shown, "-") == 0)
      shown = "stdin";
   for (i = from; i < in->n; i++) {
      pl_input *x = &in->v[i];
      char *name;
      size_t member_at = x->member ? (size_t)(x->member - x->name) : 0;
      if (strncmp(x->name, file, flen) != 0)
         continue;
      if (asprintf(&name, "%s%s", shown, x->name + flen) < 0)
         return -1;
      if (x->member)
         x->member = name + member_at - flen + strlen(shown);
      free(x->name);
      x->name = name;
   }
   return 0;
}

/* The same trace given twice (one file under two names, a directory and
   a file in it, an archive twice) is read once: said on stderr, the later
   one dropped.  0, or -1 if out of memory. */
static int drop_repeats(const char *prog, pl_inputs *in)
{
   struct stat *st = malloc((in->n ? in->n : 1) * sizeof *st);
   size_t *first = malloc((in->n ? in->n : 1) * sizeof *first);
   size_t i, j, kept = 0;

   if (!st || !first) {
      free(st);
      free(first);
      return -1;
   }
   for (i = 0; i < in->n; i++) {     /* first[i]: the input i repeats */
      first[i] = i;
      if (stat(in->v[i].path, &st[i]) != 0)
         continue;                     /* unreadable: reported when read */
      for (j = 0; j < i; j++)
         if (first[j] == j && st[j].st_dev == st[i].st_dev
             && st[j].st_ino == st[i].st_ino
             && in->v[j].offset == in->v[i].offset) {
            first[i] = j;
            break;
         }
   }
   for (i = 0; i < in->n; i++)
      if (first[i] != i && prog)
         fprintf(stderr, "%s: %s: given twice (as %s): read once\n",
                 prog, in->v[i].name, in->v[first[i]].name);
   for (i = 0; i < in->n; i++) {
      if (first[i] != i) {
         free(in->v[i].path);
         free(in->v[i].name);
         continue;
      }
      in->v[kept++] = in->v[i];
   }
   in->n = kept;
   free(st);
   free(first);
   return 0;
}

int pl_cli_inputs(const char *prog, pl_inputs *in, char *const *paths, int n)
{
   int bad = 0, i;

   for (i = 0; i < n; i++) {
      pl_error err;
      struct stat st;
      const char *file;
      size_t before = in->n;
      int r;

      if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
         r = add_directory(prog, in, paths[i]);
         if (r < 0)
            return -1;
         bad += r;
         continue;
      }
      file = readable_path(prog, paths[i]);
      if (!file) {
         bad++;
         continue;
      }
      r = pl_inputs_add(in, file, &err);
      if (r < 0 || (file != paths[i]
                    && rename_inputs(in, before, file, paths[i]) < 0)) {
         if (prog)
            fprintf(stderr, "%s: %s\n", prog, r < 0 ? err.msg
                                                   : "out of memory");
         return -1;
      }
      if (r > 0) {
         if (prog)
            pl_report(prog, strcmp(paths[i], "-") == 0 ? "stdin" : paths[i],
                      &err);
         bad++;
      }
   }
   if (drop_repeats(prog, in) < 0) {
      if (prog)
         fprintf(stderr, "%s: out of memory\n", prog);
      return -1;
   }
   return bad;
}

/* ---- What the selection and filters kept --------------------------------- */

/* Whether thread k of t has an event inside the filters' range. */
static int range_holds_events(const pl_filter *f, const pl_trace *t,
                              size_t k)
{
   const pl_thread_info *ti = pl_trace_thread(t, k);
   uint64_t first, last;

   pl_filter_thread_range(f, t, k, &first, &last);
   return first != UINT64_MAX && first <= last
          && (!ti->ended || first <= ti->events);
}

void pl_kept_trace(pl_kept *k, const pl_trace *t, const pl_select *sel,
                   const pl_filter *f, int demangle)
{
   const char *pid = pl_trace_process_get(t, "pid");
   uint32_t n = pl_trace_nfunctions(t), id;
   size_t i;

   k->traces++;
   for (i = 0; !k->threads && i < pl_trace_nthreads(t); i++)
      k->threads += pl_select_match(sel, pid ? pid : "",
                                    pl_trace_thread(t, i)->number);
   for (i = 0; !k->shown && i < pl_trace_nthreads(t); i++)
      k->shown += !pl_filter_ranged(f) || range_holds_events(f, t, i);
   if (k->functions || !pl_filter_active(f)) {
      k->functions += n;
      return;
   }
   uint8_t *keep = pl_filter_functions(f, t, demangle);
   for (id = 1; keep && id <= n; id++)
      k->functions += keep[id] != 0;
   if (!keep)
      k->functions++;              /* out of memory: say nothing */
   free(keep);
   if (!k->functions)              /* for the line that says why */
      k->main_named += pl_main_object(t) != 0;
}

void pl_kept_add(pl_kept *k, const pl_kept *part)
{
   k->traces += part->traces;
   k->threads += part->threads;
   k->functions += part->functions;
   k->shown += part->shown;
   k->main_named += part->main_named;
}

void pl_kept_program(pl_kept *k, const pl_program *p, const pl_filter *f)
{
   size_t i;

   k->traces = p->nprocs;
   k->threads = p->nthreads;
   k->functions = 1;               /* not known apart from calls */
   k->shown = 0;
   k->main_named = 1;              /* not known: no hint */
   for (i = 0; i < p->nthreads; i++)
      k->shown += p->threads[i].g.calls != 0;
   if (!pl_filter_active(f) || !p->nthreads)
      k->shown = 1;
}

int pl_kept_nothing(const char *prog, const pl_kept *k,
                    const char *select_text, const pl_filter *f)
{
   const char *s = k->traces == 1 ? "" : "s";

   if (!k->traces)
      return 0;
   if (select_text && !k->threads) {
      fprintf(stderr, "%s: --select=%s matches no thread of the %zu trace%s "
              "read\n", prog, select_text, k->traces, s);
      return 1;
   }
   if (pl_filter_active(f) && !k->functions) {
      fprintf(stderr, "%s: the filters (%s) match no function of the %zu "
              "trace%s read%s\n", prog, pl_filter_describe(f), k->traces, s,
              !k->main_named
              ? " (no function of the main executable is named: a stripped "
                "program without unwind tables, or traced with "
                "--unwind-names=no)" : "");
      return 1;
   }
   if (pl_filter_active(f) && !k->shown) {
      fprintf(stderr, "%s: the filters (%s) leave no %s of the %zu trace%s "
              "read\n", prog, pl_filter_describe(f),
              pl_filter_ranged(f) ? "event" : "call", k->traces, s);
      return 1;
   }
   return 0;
}
