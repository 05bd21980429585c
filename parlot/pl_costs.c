/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-event instruction counts (pl_costs.h).  Counting: each superblock
   adds the instructions it executed to pl_insns before each side exit, at
   its end, before a function entry (the instructions before it are the
   caller's) and before a return (the ret is the callee's), so the count
   is exact whenever a helper reads it.  Each event's cost waits beside
   the event in the thread's batch (pl_threads.h); a job of its own codes
   a part's costs after the part is full (on the encoder thread or the
   client side, possibly while the other codes the part's events:
   pl_worker.h), and the coded bytes make a COSTS chunk once it is full or
   at a sync. */
#include "pub_tool_basics.h"
#include "pub_tool_vki.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "pl_cost_codec.h"
#include "pl_format.h"
#include "pl_output.h"
#include "pl_costs.h"
#include "pl_worker.h"

/* A thread's COSTS chunk grows to this many coded bytes before it is
   written (or ends at a sync): its 37 bytes of framing stay below 0.2 %. */
#define OUT_CAP (16 * 1024)
#define MAX_CHUNK_EVENTS 0x40000000u

Bool  pl_collect_insns;
ULong pl_insns;

struct pl_costs {
   pl_costs_client client;    /* first: pl_costs_event casts to it */
   /* the coder's (a job, on the encoder thread or the client side): on
      cache lines of their own, or each side's writes would take the
      line from the other at every event (cpp with --collect-insns spent
      8 % of its samples on pl_costs_event's two stores) */
   ULong first __attribute__((aligned(64)));  /* events before the chunk */
   UInt  in_chunk;            /* events coded into the open chunk */
   UInt  number;              /* the thread's, for the chunks */
   uint64_t cost[PL_PARTS][PL_BATCH]; /* beside the thread's batch */
   pl_rcc_enc enc;            /* the open chunk's coder, writing at out */
   UChar out[PL_CHUNK_HEADER_SIZE + PL_COSTS_PREFIX_SIZE + OUT_CAP];
   pl_cost_model model;
};

#define COSTS_MAP_SIZE VG_PGROUNDUP(sizeof(pl_costs))

static void open_chunk(pl_costs *c)
{
   c->in_chunk = 0;
   pl_rcc_enc_init(&c->enc,
                   c->out + PL_CHUNK_HEADER_SIZE + PL_COSTS_PREFIX_SIZE);
}

static void start(pl_costs *c, Bool zeroed)
{
   c->first = 0;
   open_chunk(c);
   pl_cost_model_init(&c->model, zeroed, PL_COST_REV_LATEST);
}

/* A mapping of its own, as for pl_thread: fresh pages read as zero, so
   the model's slots cost memory only once used, and munmap gives them
   back. */
pl_costs *pl_costs_new(UInt number)
{
   if (!pl_collect_insns)
      return NULL;
   pl_costs *c = VG_(am_shadow_alloc)(COSTS_MAP_SIZE);
   if (!c)
      VG_(out_of_memory_NORETURN)("pl.costs", COSTS_MAP_SIZE);
   c->number = number;
   start(c, True);
   c->client.insns = c->client.last = 0;   /* a new thread counts from 0 */
   c->client.cost = &c->cost[0][0];
   return c;
}

void pl_costs_restart(pl_costs *c, UInt number)
{
   c->number = number;
   start(c, False);
   c->client.last = pl_insns;
}

void pl_costs_free(pl_costs *c)
{
   if (!c)
      return;
   SysRes r = VG_(am_munmap_valgrind)((Addr)c, COSTS_MAP_SIZE);
   tl_assert(!sr_isError(r));
}

void pl_costs_switch(pl_costs *from, pl_costs *to)
{
   if (from)
      from->client.insns = pl_insns;
   if (to)
      pl_insns = to->client.insns;
}

/* Write the open chunk, if it has events, and open the next. */
static void write_chunk(pl_costs *c)
{
   if (c->in_chunk == 0)
      return;
   UChar *p = c->out + PL_CHUNK_HEADER_SIZE;
   pl_cost_encode_cut(&c->model, &c->enc);
   pl_put64(p, c->first);
   pl_put32(p + 8, c->in_chunk);
   pl_put32(p + 12, PL_COST_INSNS | PL_COST_REV_LATEST << 16);
   UInt len = (UInt)(PL_COSTS_PREFIX_SIZE + pl_rcc_enc_finish(&c->enc));
   pl_chunk_header(c->out, PL_CHUNK_COSTS, c->number, p, len);
   pl_out_write(c->out, PL_CHUNK_HEADER_SIZE + len);
   c->first += c->in_chunk;
   open_chunk(c);
}

void pl_costs_code(pl_costs *c, const UInt *events, UInt part, UInt n)
{
   const uint64_t *cost = c->cost[part];
   UInt i = 0;
   while (i < n) {
      /* room for an event, a run's length at the cut, and the finish;
         a chunk of runs also ends before its count could overflow */
      if (c->enc.len + 2 * PL_COST_MAX_EVENT_BYTES + PL_COST_FINISH_BYTES
          > OUT_CAP || c->in_chunk == MAX_CHUNK_EVENTS)
         write_chunk(c);
      UInt room = MAX_CHUNK_EVENTS - c->in_chunk;
      UInt k = (UInt)pl_cost_encode_some(&c->model, &c->enc, events + i,
                                         cost + i,
                                         n - i < room ? n - i : room);
      i += k;
      c->in_chunk += k;
   }
}

void pl_costs_flush(pl_costs *c)
{
   write_chunk(c);
}

void pl_costs_add_insns(IRSB *sb, UInt n)
{
   if (n == 0)
      return;
   IRTemp old = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp sum = newIRTemp(sb->tyenv, Ity_I64);
   IRExpr *at = mkIRExpr_HWord((HWord)&pl_insns);
   addStmtToIRSB(sb, IRStmt_WrTmp(old, IRExpr_Load(Iend_LE, Ity_I64, at)));
   addStmtToIRSB(sb, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64,
                                                     IRExpr_RdTmp(old),
                                                     IRExpr_Const(IRConst_U64(n)))));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&pl_insns),
                                  IRExpr_RdTmp(sum)));
}
