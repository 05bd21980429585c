/* SPDX-License-Identifier: MIT */
/* Which open frames of a thread a filter shows, raw depth by raw depth
   (not installed): the one bookkeeping behind pl_view.c's filtered events
   and pl_program.c's order of the program's view.  A frame is shown, and
   is the program's own code or not (pl_keep_frame); its callees look at
   the second.  Frames never seen (a forked child's inherited ones, raw
   depth 0) are neither. */
#ifndef PL_FRAMES_H
#define PL_FRAMES_H

#include <string.h>

#include "pl_alloc.h"
#include "pl_filter.h"

#define PL_FRAME_SHOWN 1u
#define PL_FRAME_OWN   2u

typedef struct {
   uint8_t *st;           /* [raw depth]: PL_FRAME_* bits */
   size_t   cap;
} pl_frames;

/* A call opens raw depth d (from 1) with function fn: whether keep shows
   it (the caller may still hide it: pl_frames_hide).  -1 if out of
   memory. */
static inline int pl_frames_call(pl_frames *f, const uint8_t *keep,
                                 uint32_t fn, uint32_t d)
{
   int show, own;
   if ((size_t)d + 1 > f->cap) {
      size_t old = f->cap;
      if (pl_grow(&f->st, &f->cap, (size_t)d + 1, 1) < 0)
         return -1;
      memset(f->st + old, 0, f->cap - old);
   }
   show = pl_keep_frame(keep, fn, (f->st[d - 1] & PL_FRAME_OWN) != 0, &own);
   f->st[d] = (uint8_t)((own ? PL_FRAME_OWN : 0)
                        | (show ? PL_FRAME_SHOWN : 0));
   return show;
}

/* The frame just opened at raw depth d is not shown after all (a range,
   a depth limit); it stays the program's own or not. */
static inline void pl_frames_hide(pl_frames *f, uint32_t d)
{
   f->st[d] &= (uint8_t)~PL_FRAME_SHOWN;
}

/* A return closes raw depth d (one pl_frames_call opened): whether that
   frame was shown. */
static inline int pl_frames_return(pl_frames *f, uint32_t d)
{
   int shown = d < f->cap && (f->st[d] & PL_FRAME_SHOWN);
   if (d < f->cap)
      f->st[d] = 0;
   return shown;
}

#endif
