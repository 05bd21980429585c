/* SPDX-License-Identifier: MIT */
/* Call paths and their 64-bit stack tags.

   A function's identity is the FNV-1a 64-bit hash of its symbol name as
   recorded (mangled), a 0 byte and the last component of its object's
   path: the same in every process that runs the same code, wherever the
   object is loaded.  The tag of the path f1 > f2 > ... > fn (outermost
   first) is built by chained hashing from 0:
       T0 = 0,  Tk = MIX(Tk-1, ident(fk)),  MIX(A, B) = (A * 11) xor B
   (arithmetic modulo 2^64), so a tag costs one multiply and one xor per
   call and stays 8 bytes at any depth.  Different paths can share a
   tag; the decoder reports such collisions. */
#ifndef PL_PATHS_H
#define PL_PATHS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline uint64_t pl_path_mix(uint64_t tag, uint64_t ident)
{
   return tag * 11u ^ ident;
}

/* The identity of function `name` (as recorded) of `object` (a path). */
uint64_t pl_path_ident(const char *name, const char *object);

#ifdef __cplusplus
}
#endif

#endif
