/* SPDX-License-Identifier: MIT */
/* What pl_program.c lends the library's other builders of programs
   (pl_program_wire.c): not installed. */
#ifndef PL_PROGRAM_PRIVATE_H
#define PL_PROGRAM_PRIVATE_H

#include "pl_program.h"

/* The ID of f's (object, name, dup) in p; if new, f (its strings, its
   label and ident) is moved into p and f's pointers are cleared.  0 if out
   of memory. */
uint32_t pl_program_adopt(pl_program *p, pl_gfunc *f);

/* Free f's strings (label and shown may be name's, shown's). */
void pl_gfunc_free(pl_gfunc *f);

/* Set what process proc keeps beside its pl_process: its recording
   description (a copy of recording, may be NULL) and how it ended (a
   copy).  0, or -1 if out of memory. */
int pl_program_set_process(pl_program *p, size_t proc, const char *recording,
                           const pl_ending *ending);

#endif
