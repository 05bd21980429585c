/* SPDX-License-Identifier: MIT */
/* MPI calls by any of their names: the C name (MPI_Abort), its profiling
   name (PMPI_Abort), a Fortran binding's in any case with trailing
   underscores (mpi_abort_, MPI_ABORT, pmpi_abort__) or the F08 names
   (mpi_abort_f08).  No libc: the tool uses it too. */
#ifndef PL_MPI_NAMES_H
#define PL_MPI_NAMES_H

static inline char pl_mpi_lower(char c)
{
   return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether s begins with the lower-case word w, in any case; *end: past it. */
static inline int pl_mpi_prefix(const char *s, const char *w, const char **end)
{
   for (; *w; s++, w++)
      if (pl_mpi_lower(*s) != *w)
         return 0;
   *end = s;
   return 1;
}

/* Whether name is MPI_<call> (call in lower case: "abort", "test"). */
static inline int pl_mpi_call_is(const char *name, const char *call)
{
   const char *rest;
   if (*name == 'P' || *name == 'p')
      name++;
   if (!pl_mpi_prefix(name, "mpi_", &rest) || !pl_mpi_prefix(rest, call, &rest))
      return 0;
   pl_mpi_prefix(rest, "_f08", &rest);
   while (*rest == '_')
      rest++;
   return *rest == '\0';
}

#endif
