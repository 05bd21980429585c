/* SPDX-License-Identifier: MIT */
/* parlot-merge: pack ParLoT traces into one archive (docs/parlot-merge.1).

   Every input is checked before anything is written: it must be a
   regular file starting with the trace magic, or a valid archive (whose
   members are copied: archives are flattened), readable as a trace (a
   damaged one is stored as it is, said on stderr, and makes exit status
   1), and the member names (basenames) must be unique.  The archive is written to a temporary
   file next to the output and renamed into place at the end, so a failed
   or interrupted merge leaves no partial archive.  One input file is open
   at a time.  The members' object and function tables are stored once, in
   the archive's tables section, unless --share-tables=no. */

#ifdef HAVE_CONFIG_H
#  include "config.h"
#endif

#define _FILE_OFFSET_BITS 64
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl_archive.h"
#include "pl_cli.h"
#include "pl_format.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#define PROG "parlot-merge"

/* The temporary file, removed on a signal. */
static char *volatile tmp_path;

static void on_signal(int sig)
{
   if (tmp_path)
      unlink(tmp_path);
   signal(sig, SIG_DFL);
   raise(sig);
}

static void usage(FILE *f)
{
   fprintf(f,
      "usage: " PROG " -o ARCHIVE TRACE...\n"
      "Pack ParLoT traces into one archive (read by parlot-decode,\n"
      "parlot-annotate; unpacked by parlot-split).\n"
      "\n"
      "  -o, --output=ARCHIVE  the archive to write (replaced if it exists,\n"
      "                        but never if it is one of the inputs)\n"
      "      --share-tables=yes|no  store the object and function tables\n"
      "                        that members share once (default: yes)\n"
      "  -h, --help            show this help and exit\n"
      "  -V, --version         show the version and exit\n"
      "\n"
      "Members are named after the inputs' base names, which must be\n"
      "unique.  An input that is itself an archive contributes its members.\n"
      "Nothing is written unless every input is readable.\n"
      "Exit status: 0 on success, 1 on a bad input or a write error, 2 on a\n"
      "usage error.\n");
}

static const char *base_name(const char *p)
{
   const char *s = strrchr(p, '/');
   return s ? s + 1 : p;
}

typedef struct {
   const pl_input *in;
   const char     *member;   /* name in the new archive */
} entry;

static int cmp_entries(const void *x, const void *y)
{
   const entry *a = x, *b = y;
   return strcmp(a->member, b->member);
}

/* A loose input must be a regular file starting with the trace magic. */
static int check_trace(const char *path)
{
   char m[PL_MAGIC_LEN];
   struct stat st;
   ssize_t k;
   int fd = open(path, O_RDONLY);

   if (fd < 0) {
      fprintf(stderr, PROG ": %s: cannot open: %s\n", path, strerror(errno));
      return -1;
   }
   if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
      fprintf(stderr, PROG ": %s: not a regular file\n", path);
      close(fd);
      return -1;
   }
   k = read(fd, m, sizeof m);
   close(fd);
   if (k != (ssize_t)sizeof m || memcmp(m, PL_MAGIC, PL_MAGIC_LEN) != 0) {
      fprintf(stderr, PROG ": %s: not a ParLoT trace (bad magic)\n", path);
      return -1;
   }
   return 0;
}

static int write_archive(int fd, const pl_inputs *ins, const entry *es,
                         int share)
{
   pl_archive_writer *w;
   pl_error err;
   size_t i;

   w = pl_archive_writer_new(fd, &err);
   if (!w)
      goto fail_out;
   if (share && pl_archive_share_tables(w) < 0) {
      pl_archive_writer_free(w);
      fprintf(stderr, PROG ": out of memory\n");
      return -1;
   }
   for (i = 0; i < ins->n; i++) {
      const pl_input *in = &ins->v[i];
      int in_src;

      if (pl_archive_add_input(w, es[i].member, in->path, in->offset,
                               in->size, &in_src, &err) < 0) {
         pl_archive_writer_free(w);
         if (in_src) {
            pl_report(PROG, in->name, &err);
            return -1;
         }
         goto fail_out;
      }
   }
   if (pl_archive_finish(w, &err) < 0)
      goto fail_out;
   return 0;
fail_out:
   fprintf(stderr, PROG ": %s\n", err.msg);
   return -1;
}

/* Parse the command line into *out (the inputs are argv[optind..]): -1
   to go on, else the exit status (help, version, a usage error). */
static int parse_options(int argc, char **argv, const char **out,
                         int *share)
{
   static const struct option longopts[] = {
      { "output", required_argument, NULL, 'o' },
      { "share-tables", required_argument, NULL, 's' },
      { "help", no_argument, NULL, 'h' },
      { "version", no_argument, NULL, 'V' },
      { NULL, 0, NULL, 0 }
   };
   int c;

   opterr = 0;
   while ((c = getopt_long(argc, argv, ":o:hV", longopts, NULL)) != -1) {
      switch (c) {
      case 'o':
         *out = optarg;
         break;
      case 's':
         if (strcmp(optarg, "yes") == 0)
            *share = 1;
         else if (strcmp(optarg, "no") == 0)
            *share = 0;
         else
            return pl_usage_error(PROG, "--share-tables takes yes or no",
                                  optarg);
         break;
      case 'h':
         usage(stdout);
         return fflush(stdout) == 0 ? 0 : PL_EXIT_DATA;
      case 'V':
         return pl_print_version(PROG, PACKAGE_VERSION);
      default:
         return pl_option_error(PROG, c, argv);
      }
   }
   if (!*out)
      return pl_usage_error(PROG, "no output archive given (-o ARCHIVE)",
                            NULL);
   if (optind == argc)
      return pl_usage_error(PROG, "no trace file given", NULL);
   if (pl_is_an_input(*out, argv + optind, argc - optind)) {
      fprintf(stderr, PROG ": %s: output file is also an input\n", *out);
      return PL_EXIT_USAGE;
   }
   return -1;
}

/* The archive's entries, es[i] for ins->v[i], every loose trace checked
   and the member names valid and distinct; 0, or -1 (said on stderr). */
static int name_members(const pl_inputs *ins, entry *es)
{
   entry *sorted = malloc((ins->n ? ins->n : 1) * sizeof *sorted);
   size_t i;
   int r = -1;

   if (!sorted) {
      fprintf(stderr, PROG ": out of memory\n");
      return -1;
   }
   for (i = 0; i < ins->n; i++) {
      es[i].in = &ins->v[i];
      es[i].member = ins->v[i].member ? ins->v[i].member
                                      : base_name(ins->v[i].path);
      if (!ins->v[i].member) {
         if (check_trace(ins->v[i].path) < 0)
            goto out;
         if (!pl_archive_name_ok(es[i].member, strlen(es[i].member))) {
            fprintf(stderr, PROG ": %s: unsupported member name (control "
                    "characters, or longer than %u bytes)\n",
                    ins->v[i].path, PL_AR_NAME_MAX);
            goto out;
         }
      }
   }
   memcpy(sorted, es, ins->n * sizeof *es);
   qsort(sorted, ins->n, sizeof *sorted, cmp_entries);
   for (i = 1; i < ins->n; i++)
      if (strcmp(sorted[i - 1].member, sorted[i].member) == 0) {
         fprintf(stderr, PROG ": %s: same name '%s' as %s (members are "
                 "named by base name)\n", sorted[i].in->name,
                 sorted[i].member, sorted[i - 1].in->name);
         goto out;
      }
   r = 0;
out:
   free(sorted);
   return r;
}

/* Write the archive to OUT.XXXXXX and rename it to OUT, so that OUT is
   never half-written (the temporary file goes on error or a signal).
   0, or -1 (said on stderr). */
static int write_atomically(const char *out, const pl_inputs *ins,
                            const entry *es, int share)
{
   char *tmp = malloc(strlen(out) + 8);
   int fd = -1, r = -1;
   mode_t um;

   if (!tmp) {
      fprintf(stderr, PROG ": out of memory\n");
      return -1;
   }
   strcpy(tmp, out);
   strcat(tmp, ".XXXXXX");
   signal(SIGINT, on_signal);
   signal(SIGTERM, on_signal);
   signal(SIGHUP, on_signal);
   fd = mkstemp(tmp);
   if (fd < 0) {
      fprintf(stderr, PROG ": %s: cannot create: %s\n", out, strerror(errno));
      goto out;
   }
   tmp_path = tmp;
   um = umask(0);               /* mkstemp's 0600 -> the usual mode */
   umask(um);
   if (fchmod(fd, 0666 & ~um) < 0) {
      fprintf(stderr, PROG ": %s: %s\n", tmp, strerror(errno));
      goto out;
   }
   if (write_archive(fd, ins, es, share) < 0)
      goto out;
   r = close(fd);
   fd = -1;
   if (r < 0) {
      fprintf(stderr, PROG ": %s: write error: %s\n", out, strerror(errno));
      goto out;
   }
   r = -1;
   if (rename(tmp, out) < 0) {
      fprintf(stderr, PROG ": %s: cannot rename %s to it: %s\n", out, tmp,
              strerror(errno));
      goto out;
   }
   tmp_path = NULL;
   r = 0;
out:
   if (fd >= 0)
      close(fd);
   if (tmp_path) {
      unlink(tmp_path);
      tmp_path = NULL;
   }
   free(tmp);
   return r;
}

/* Read every input as a trace: one that cannot be read at all is an
   error (-1: nothing is written); a damaged one is stored as it is, said
   on stderr (its name in the archive, where the damage starts, what it
   is).  How many are damaged, or -1. */
static int check_traces(const pl_inputs *ins)
{
   size_t i;
   int damaged = 0, bad = 0;

   for (i = 0; i < ins->n; i++) {
      pl_error err;
      const pl_error *d;
      pl_trace *t = pl_input_open(&ins->v[i], &err);
      if (!t) {
         pl_report(PROG, ins->v[i].name, &err);
         bad = 1;
         continue;
      }
      if ((d = pl_trace_damage(t)) != NULL) {
         fprintf(stderr, PROG ": %s: offset %llu: %s (stored as it is)\n",
                 ins->v[i].name, (unsigned long long)d->offset, d->msg);
         damaged++;
      }
      pl_trace_close(t);
   }
   return bad ? -1 : damaged;
}

int main(int argc, char **argv)
{
   const char *out = NULL;
   pl_inputs ins;
   entry *es;
   int status, share = 1, damaged;

   status = parse_options(argc, argv, &out, &share);
   if (status >= 0)
      return status;
   /* check every input before writing anything */
   memset(&ins, 0, sizeof ins);
   status = PL_EXIT_DATA;
   if (pl_cli_inputs(PROG, &ins, argv + optind, argc - optind) != 0
       || (damaged = check_traces(&ins)) < 0) {
      pl_inputs_free(&ins);
      return status;
   }
   es = malloc((ins.n ? ins.n : 1) * sizeof *es);
   if (!es)
      fprintf(stderr, PROG ": out of memory\n");
   else if (name_members(&ins, es) == 0 &&
            write_atomically(out, &ins, es, share) == 0)
      status = damaged ? PL_EXIT_DATA : 0;   /* written, but say so */
   free(es);
   pl_inputs_free(&ins);
   return status;
}
