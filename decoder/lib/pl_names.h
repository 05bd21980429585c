/* SPDX-License-Identifier: MIT */
/* Function names as the decoder's programs show them.

   The tool records symbol names exactly as in the object, so C++ names
   are mangled; they are demangled with the C++ runtime's demangler
   (Itanium ABI).  Names go into line-oriented output verbatim except for
   bytes that would break a line: control characters and the backslash
   become C escapes (\t, \n, \\, \xHH). */
#ifndef PL_NAMES_H
#define PL_NAMES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A malloc'ed demangled form of name (len bytes, NUL-terminated), or NULL
   if it is not a mangled name or memory ran out.  C++: only "_Z" names are
   tried (the demangler also accepts bare type encodings and would turn a
   C function "f" into "float"); a symbol version suffix ("@VERSION",
   "@@VERSION") is kept as it is.  Fortran (gfortran): a module procedure
   __MODULE_MOD_NAME is MODULE::NAME.  MPI's Fortran bindings (mpi_recv_,
   MPI_RECV, mpi_recv__, mpi_recv_f08, pmpi_recv_) read as the standard's
   name, MPI_Recv (PMPI_Recv).  C: the C library's processor-specific
   variants (__memcpy_avx_unaligned_erms, __strlen_avx2, __sin_fma) read
   as the function called (memcpy, strlen, sin), and a symbol version
   (fopen@@GLIBC_2.2.5) is dropped.  (Fortran, MPI and C names since
   libparlot 0.7.) */
char *pl_demangle(const char *name, size_t len);

/* Length of s (n bytes) once escaped, and the escaped copy at p (returns
   the end; p needs pl_escaped_len() bytes). */
size_t pl_escaped_len(const char *s, size_t n);
char  *pl_put_escaped(char *p, const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif
