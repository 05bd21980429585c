/* SPDX-License-Identifier: MIT */
/* Function identities of the stack tags (pl_paths.h). */
#include <string.h>

#include "pl_hash.h"
#include "pl_paths.h"

uint64_t pl_path_ident(const char *name, const char *object)
{
   const char *base = strrchr(object, '/');

   base = base ? base + 1 : object;
   return pl_fnv1a(pl_fnv1a(PL_FNV1A_INIT, name, strlen(name) + 1), base,
                   strlen(base));
}
