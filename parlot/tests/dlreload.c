/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dlopen/dlclose/dlopen again: libraries A and B are loaded alternately,
   four times each, most likely at the same address every time (dlclose
   unmaps A, B takes its place).  The functions of the library that is
   mapped NOW must be recorded, with their own names and object: nothing
   may be remembered by address across an unmap.  The program (the main
   image) is instrumented as usual; the libraries' events are checked
   against the structure of their code (parlot_check.py dlreload). */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

typedef int (*entry_t)(int);

__attribute__((noinline)) int call_through(entry_t f, int x)
{
   return f(x);
}

__attribute__((noinline)) int load_and_call(const char *dir, const char *lib,
                                            int x)
{
   char path[4096];
   void *h;
   entry_t f;
   int r;
   snprintf(path, sizeof path, "%s/%s", dir, lib);
   h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
   if (h == NULL) {
      fprintf(stderr, "dlopen: %s\n", dlerror());
      return -1;
   }
   f = (entry_t)dlsym(h, "entry");
   r = call_through(f, x);
   dlclose(h);
   return r;
}

int main(int argc, char **argv)
{
   char self[4096];
   const char *dir;
   int i, s = 0;
   (void)argc;
   strncpy(self, argv[0], sizeof self - 1);
   self[sizeof self - 1] = '\0';
   dir = dirname(self);
   for (i = 0; i < 8; i++)
      s += load_and_call(dir, (i & 1) ? "dlreload_b.so" : "dlreload_a.so", i);
   printf("%d\n", s);
   return 0;
}
