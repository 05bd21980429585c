/* SPDX-License-Identifier: MIT */
/* Demangling and escaping of names (pl_names.h). */
#include <stdlib.h>
#include <string.h>

#include "pl_names.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *pl_demangle(const char *name, size_t len)
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
