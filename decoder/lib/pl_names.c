/* SPDX-License-Identifier: MIT */
/* Demangling and escaping of names (pl_names.h). */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_names.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* gfortran's module procedures: __MODULE_MOD_NAME is MODULE::NAME. */
static char *fortran_module(const char *name, size_t len)
{
   const char *mod;
   char *out;

   if (len < 9 || strncmp(name, "__", 2) != 0)
      return NULL;
   mod = strstr(name + 3, "_MOD_");
   if (!mod || !mod[5] || mod == name + 2)
      return NULL;
   out = malloc(len);                  /* "__" and "_MOD_" -> "::" */
   if (!out)
      return NULL;
   snprintf(out, len, "%.*s::%s", (int)(mod - name - 2), name + 2, mod + 5);
   return out;
}

/* The MPI interface's Fortran bindings (mpi_recv_, MPI_RECV, mpi_recv__,
   mpi_recv_f08, pmpi_recv_) under the name of the standard, MPI_Recv or
   PMPI_Recv: one name whatever the language and the library.  A binding
   is all lower case or all upper case; C's names are mixed. */
static char *mpi_binding(const char *name, size_t len)
{
   static const char up[] = "PMPI_", low[] = "pmpi_";
   int upper = name[0] == 'M' || name[0] == 'P';
   size_t pre = name[0] == 'p' || name[0] == 'P';   /* profiling name */
   size_t i, end = len;
   char *out;

   if (len < pre + 5 || strncmp(name, (upper ? up : low) + 1 - pre, pre + 4))
      return NULL;
   for (i = pre + 4; i < len; i++) {
      char c = name[i];
      if (!(c == '_' || (c >= '0' && c <= '9')
            || (upper ? c >= 'A' && c <= 'Z' : c >= 'a' && c <= 'z')))
         return NULL;
   }
   while (end > pre + 4 && name[end - 1] == '_')
      end--;
   if (!upper && end > pre + 8 && strncmp(name + end - 4, "_f08", 4) == 0)
      end -= 4;
   if (end == pre + 4 || (upper && end < len))
      return NULL;            /* MPI_ alone; MPI_X_ is no binding */
   out = malloc(end + 1);
   if (!out)
      return NULL;
   memcpy(out, up + 1 - pre, pre + 4);
   for (i = pre + 4; i < end; i++) {
      char c = name[i];
      if (i > pre + 4 && c >= 'A' && c <= 'Z')
         c = (char)(c - 'A' + 'a');
      else if (i == pre + 4 && c >= 'a' && c <= 'z')
         c = (char)(c - 'a' + 'A');
      out[i] = c;
   }
   out[end] = '\0';
   return out;
}

/* The C library's variants of one function for one processor, chosen at
   load time (IFUNC): __memcpy_avx_unaligned_erms, __strlen_avx2,
   __sin_fma are memcpy, strlen and sin; and a C name's symbol version
   (fopen@@GLIBC_2.2.5) is fopen.  Traces of one program on two machines
   then name the same calls alike. */
static char *c_library_name(const char *name, size_t len)
{
   static const char *const isa[] = {
      "sse2", "sse3", "ssse3", "sse4_1", "sse4_2", "sse42", "avx", "avx2",
      "avx512f", "avx512bw", "avx512dq", "avx512vl", "evex", "evex512",
      "fma", "fma4", NULL
   };
   const char *at = memchr(name, '@', len), *p;
   size_t n = at ? (size_t)(at - name) : len, i, k;

   if (n >= 4 && name[0] == '_' && name[1] == '_')
      for (p = name + 3; p < name + n; p++) {
         if (*p != '_')
            continue;
         for (k = 0; isa[k]; k++) {
            size_t il = strlen(isa[k]);
            if ((size_t)(name + n - p) > il
                && strncmp(p + 1, isa[k], il) == 0
                && (p + 1 + il == name + n || p[1 + il] == '_'))
               break;
         }
         if (!isa[k])
            continue;
         for (i = 2; name + i < p; i++)
            if (!((name[i] >= 'a' && name[i] <= 'z')
                  || (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
               break;
         if (name + i == p)
            return strndup(name + 2, (size_t)(p - name - 2));
         break;
      }
   return at && at > name ? strndup(name, n) : NULL;
}

char *pl_demangle(const char *name, size_t len)
{
   const char *at;
   char *d, *base, *out;
   int status = 0;
   size_t dl;

   if ((out = mpi_binding(name, len)) || (out = fortran_module(name, len)))
      return out;
   if (len < 2 || name[0] != '_' || name[1] != 'Z')
      return c_library_name(name, len);
   if (len < 3)
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

static int needs_escape(unsigned char c)
{
   return c < 0x20 || c == 0x7f || c == '\\';
}

size_t pl_escaped_len(const char *s, size_t n)
{
   size_t i, len = n;
   for (i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      if (needs_escape(c))
         len += (c == '\t' || c == '\n' || c == '\\') ? 1 : 3;
   }
   return len;
}

char *pl_put_escaped(char *p, const char *s, size_t n)
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
