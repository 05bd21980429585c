/* SPDX-License-Identifier: MIT */
/* Which open frames of a thread a filter shows, raw depth by raw depth
   (not installed): the one bookkeeping behind pl_view.c's filtered events
   and pl_program.c's order of the program's view.  A frame is shown, and
   is the program's own code or not (pl_keep_frame); its callees look at
   the second.  Frames never seen (a forked child's inherited ones, raw
   depth 0) are neither. */
#ifndef PL_FRAMES_H
#define PL_FRAMES_H

#include <stdlib.h>
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

/* Whether the frame open at raw depth d is the program's own (in a
   view that is not the program's, a shown one).  If not, nothing inside
   it is shown but calls of the functions pl_frames_stops marks. */
static inline int pl_frames_own(const pl_frames *f, uint32_t d)
{
   return d < f->cap && (f->st[d] & PL_FRAME_OWN);
}

/* [fn] for function IDs 0..n: whether keep may show a call of fn inside
   a frame that is not the program's own (pl_keep_frame).  malloc'ed;
   NULL if out of memory. */
static inline uint8_t *pl_frames_stops(const uint8_t *keep, uint32_t n)
{
   uint8_t *stop = (uint8_t *)malloc((size_t)n + 1);
   uint32_t fn;
   if (stop)
      for (fn = 0; fn <= n; fn++)
         stop[fn] = keep[fn] == PL_KEEP_YES || keep[fn] == PL_KEEP_CALLS_MAIN;
   return stop;
}

/* How many of the events ev[0..n) stay inside the frame open at raw
   depth floor, which is not the program's own: they show nothing and
   change no frame's state (pl_events_skip goes past such events before
   they are made). */
static inline size_t pl_frames_inside(const pl_event *ev, size_t n,
                                      uint32_t floor, const uint8_t *stop)
{
   size_t j;
   for (j = 0; j < n; j++)
      if (ev[j].kind == PL_EV_CALL ? stop[ev[j].fn] : ev[j].depth <= floor)
         break;
   return j;
}

#endif
