/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Function starts from an object's unwind table, for code no symbol
   names.  Most distribution binaries are stripped, so their own
   functions have no names, yet every function compiled with unwind
   tables (gcc's default on x86-64) has an FDE whose start the
   .eh_frame_hdr search table lists.  Each object's table is read from its
   file once (again after objects are loaded or unloaded). */
#ifndef PL_UNWIND_H
#define PL_UNWIND_H

#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"

/* Which objects' tables are read: wanted(path), asked once per object. */
void pl_unwind_init(Bool (*wanted)(const HChar *path));

/* The unwind-table starts of di's object around a: *below the last at or
   before a (0 if none), *above the first after it (~0 if none).  False
   if the object has no table this reads, or is not wanted. */
Bool pl_unwind_around(const DebugInfo *di, Addr a, Addr *below, Addr *above);

/* Whether a is a start in di's unwind table. */
Bool pl_unwind_is_start(const DebugInfo *di, Addr a);

#endif
