/* SPDX-License-Identifier: MIT */
/* parlot-split: restore the traces of a ParLoT archive as files
   (docs/parlot-split.1).

   Each member is written to DIR/NAME, checked against its CRC as it is
   copied; a member that does not check out is removed again and reported.
   Existing files are never replaced without --force: without it, every
   target is checked before anything is written, and each file is created
   exclusively; with it, each member is written to a temporary file that is
   renamed over the target. */

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

#include "pl_archive.h"
#include "pl_cli.h"
#include "pl_format.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

#define PROG "parlot-split"

static void usage(FILE *f)
{
   fprintf(f,
      "usage: " PROG " [-C DIR] [--force] ARCHIVE\n"
      "       " PROG " --list ARCHIVE\n"
      "Restore the traces packed by parlot-merge, byte for byte, under\n"
      "their names.\n"
      "\n"
      "  -C, --directory=DIR  write the files in DIR (default: the current\n"
      "                       directory)\n"
      "  -f, --force          replace existing files\n"
      "  -l, --list           list the members (OFFSET SIZE CRC32 NAME, tab-\n"
      "                       separated) instead\n"
      "  -h, --help           show this help and exit\n"
      "  -V, --version        show the version and exit\n"
      "\n"
      "Exit status: 0 on success, 1 on a bad archive, a damaged member, an\n"
      "existing file or a write error, 2 on a usage error.\n");
}

static char *join(const char *dir, const char *name)
{
   size_t dl = strlen(dir), nl = strlen(name);
   char *p = malloc(dl + nl + 2);
   if (!p)
      return NULL;
   memcpy(p, dir, dl);
   p[dl] = '/';
   memcpy(p + dl + 1, name, nl + 1);
   return p;
}

/* Restore member i of the archive open on afd to fd.  0, or -1 after
   printing why. */
static int copy_member(int afd, const pl_archive *a, size_t i, int fd,
                       const char *target)
{
   pl_error err;
   int in_archive;

   if (pl_archive_restore(a, i, afd, fd, &in_archive, &err) == 0)
      return 0;
   if (in_archive)
      fprintf(stderr, PROG ": %s:%s: offset %llu: %s (not restored)\n",
              a->path, a->members[i].name, (unsigned long long)err.offset,
              err.msg);
   else
      fprintf(stderr, PROG ": %s: %s\n", target, err.msg);
   return -1;
}

static int extract(const pl_archive *a, const char *dir, int force)
{
   int afd, status = 0;
   size_t i;

   /* without --force, refuse before writing anything */
   if (!force)
      for (i = 0; i < a->n; i++) {
         struct stat st;
         char *t = join(dir, a->members[i].name);
         if (!t) {
            fprintf(stderr, PROG ": out of memory\n");
            return PL_EXIT_DATA;
         }
         if (lstat(t, &st) == 0) {
            fprintf(stderr, PROG ": %s: file exists (use --force to replace "
                    "it); nothing restored\n", t);
            free(t);
            return PL_EXIT_DATA;
         }
         free(t);
      }
   afd = open(a->path, O_RDONLY);
   if (afd < 0) {
      fprintf(stderr, PROG ": %s: cannot open: %s\n", a->path,
              strerror(errno));
      return PL_EXIT_DATA;
   }
   for (i = 0; i < a->n; i++) {
      const pl_member *m = &a->members[i];
      char *target = join(dir, m->name), *tmp = NULL;
      int fd, ok;

      if (!target || (force && !(tmp = malloc(strlen(target) + 8)))) {
         fprintf(stderr, PROG ": out of memory\n");
         free(target);
         status = PL_EXIT_DATA;
         break;
      }
      if (force) {
         strcpy(tmp, target);
         strcat(tmp, ".XXXXXX");
         fd = mkstemp(tmp);
         if (fd >= 0) {
            mode_t um = umask(0);
            umask(um);
            if (fchmod(fd, 0666 & ~um) < 0) { /* as open(0666) would */ }
         }
      } else {
         fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0666);
      }
      if (fd < 0) {
         fprintf(stderr, PROG ": %s: cannot create: %s\n", target,
                 strerror(errno));
         free(target);
         free(tmp);
         status = PL_EXIT_DATA;
         continue;
      }
      ok = copy_member(afd, a, i, fd, target) == 0;
      if (close(fd) < 0 && ok) {
         fprintf(stderr, PROG ": %s: write error: %s\n", target,
                 strerror(errno));
         ok = 0;
      }
      if (ok && force && rename(tmp, target) < 0) {
         fprintf(stderr, PROG ": %s: cannot rename %s to it: %s\n", target,
                 tmp, strerror(errno));
         ok = 0;
      }
      if (!ok) {
         unlink(force ? tmp : target);
         status = PL_EXIT_DATA;
      }
      free(target);
      free(tmp);
   }
   close(afd);
   return status;
}

static int list(const pl_archive *a)
{
   size_t i;
   /* what each member restores to */
   for (i = 0; i < a->n; i++)
      printf("%llu\t%llu\t%08x\t%s\n",
             (unsigned long long)a->members[i].offset,
             (unsigned long long)a->traces[i].size,
             (unsigned)a->traces[i].crc, a->members[i].name);
   if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, PROG ": standard output: write error: %s\n",
              strerror(errno));
      return PL_EXIT_DATA;
   }
   return 0;
}

/* Parse the command line (the archive is argv[optind]): -1 to go on, else
   the exit status (help, version, a usage error). */
static int parse_options(int argc, char **argv, const char **dir,
                         int *force, int *listing)
{
   static const struct option longopts[] = {
      { "directory", required_argument, NULL, 'C' },
      { "force", no_argument, NULL, 'f' },
      { "list", no_argument, NULL, 'l' },
      { "help", no_argument, NULL, 'h' },
      { "version", no_argument, NULL, 'V' },
      { NULL, 0, NULL, 0 }
   };
   int c;

   opterr = 0;
   while ((c = getopt_long(argc, argv, ":C:flhV", longopts, NULL)) != -1) {
      switch (c) {
      case 'C':
         *dir = optarg;
         break;
      case 'f':
         *force = 1;
         break;
      case 'l':
         *listing = 1;
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
   if (optind == argc)
      return pl_usage_error(PROG, "no archive given", NULL);
   if (argc - optind > 1)
      return pl_usage_error(PROG, "one archive at a time; extra argument",
                            argv[optind + 1]);
   if (!**dir)
      return pl_usage_error(PROG, "-C wants a directory, not", *dir);
   return -1;
}

int main(int argc, char **argv)
{
   const char *dir = ".";
   int force = 0, listing = 0, recovered = 0, status;
   pl_archive *a;
   pl_error err;
   struct stat st;

   status = parse_options(argc, argv, &dir, &force, &listing);
   if (status >= 0)
      return status;
   a = pl_archive_open(argv[optind], &err);
   if (!a) {
      /* damaged: the members its headers still give are restored (or
         listed), and the exit status says the archive was not whole */
      pl_error rerr;
      size_t lost;
      a = pl_archive_recover(argv[optind], &lost, &rerr);
      if (!a || a->n == 0) {
         pl_report(PROG, argv[optind], &err);
         pl_archive_free(a);
         return PL_EXIT_DATA;
      }
      fprintf(stderr, PROG ": %s: offset %llu: %s; %zu member%s recovered "
              "from %s headers%s\n", argv[optind],
              (unsigned long long)err.offset, err.msg, a->n,
              a->n == 1 ? "" : "s", a->n == 1 ? "its" : "their",
              lost ? ", the others lost" : "");
      recovered = 1;
   }
   if (listing) {
      status = list(a);
   } else if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
      fprintf(stderr, PROG ": %s: not a directory\n", dir);
      status = PL_EXIT_DATA;
   } else {
      status = extract(a, dir, force);
   }
   pl_archive_free(a);
   return status ? status : recovered ? PL_EXIT_DATA : 0;
}
