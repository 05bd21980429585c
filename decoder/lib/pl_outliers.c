/* SPDX-License-Identifier: MIT */
/* The program across its processes (pl_outliers.h). */
#define _XOPEN_SOURCE 700

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_hash.h"
#include "pl_median.h"
#include "pl_outliers.h"
#include "pl_program_private.h"
#include "pl_runtime.h"


static int edge_cmp(const pl_edge *x, uint32_t caller, uint32_t callee)
{
   if (x->caller != caller)
      return x->caller < caller ? -1 : 1;
   return x->callee < callee ? -1 : x->callee > callee;
}

/* The edge caller -> callee of g, NULL if none. */
static const pl_edge *find_edge(const pl_graph *g, uint32_t caller,
                                uint32_t callee)
{
   size_t lo = 0, hi = g->nedges;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int c = edge_cmp(&g->edges[mid], caller, callee);
      if (c == 0)
         return &g->edges[mid];
      if (c < 0)
         lo = mid + 1;
      else
         hi = mid;
   }
   return NULL;
}

static int same_graph(const pl_graph *a, const pl_graph *b, int counts)
{
   size_t i;
   if (a->nedges != b->nedges || a->nfns != b->nfns)
      return 0;
   for (i = 0; i < a->nfns; i++)
      if (a->fns[i].fn != b->fns[i].fn
          || (counts && a->fns[i].calls != b->fns[i].calls))
         return 0;
   for (i = 0; i < a->nedges; i++)
      if (a->edges[i].caller != b->edges[i].caller
          || a->edges[i].callee != b->edges[i].callee
          || (counts && a->edges[i].calls != b->edges[i].calls))
         return 0;
   return 1;
}

/* cls[i] for graphs g[0..n-1]: classes numbered by first member; returns
   the number of classes, sizes in size[] (n entries). */
static size_t classify(pl_graph *g, size_t n, int counts, size_t *cls,
                       size_t *size, size_t *rep)
{
   size_t i, c, nc = 0;
   for (i = 0; i < n; i++) {
      for (c = 0; c < nc; c++)
         if (same_graph(&g[rep[c]], &g[i], counts))
            break;
      if (c == nc) {
         rep[nc] = i;
         size[nc++] = 0;
      }
      cls[i] = c;
      size[c]++;
   }
   return nc;
}

/* What behaviour_functions makes of a function. */
enum { B_NO, B_OWN, B_CALLED, B_ENTRY };

static int reason_order(const void *a, const void *b)
{
   const pl_reason *x = a, *y = b;
   uint64_t kx, ky;
   if (x->kind != y->kind)
      return x->kind < y->kind ? -1 : 1;
   switch (x->kind) {
   case PL_REASON_ONLY_FN: case PL_REASON_ONLY_EDGE:
      kx = x->calls, ky = y->calls;
      break;
   case PL_REASON_MISSING_FN: case PL_REASON_MISSING_EDGE:
      kx = x->median, ky = y->median;
      break;
   default:
      kx = x->calls > x->median ? x->calls - x->median : x->median - x->calls;
      ky = y->calls > y->median ? y->calls - y->median : y->median - y->calls;
   }
   if (kx != ky)
      return kx > ky ? -1 : 1;
   if (x->fn != y->fn)
      return x->fn < y->fn ? -1 : 1;
   return x->caller < y->caller ? -1 : x->caller > y->caller;
}

static int add_reason(pl_outlier *o, size_t *cap, int kind, uint32_t fn,
                      uint32_t caller, uint64_t calls, uint64_t median)
{
   pl_reason *r;
   if (pl_grow(&o->reasons, cap, o->nreasons + 1, sizeof *o->reasons) < 0)
      return -1;
   r = &o->reasons[o->nreasons++];
   r->kind = kind;
   r->fn = fn;
   r->caller = caller;
   r->calls = calls;
   r->median = median;
   return 0;
}

/* Reasons of one kind about the program's own functions before those
   about library functions it calls (behaviour_functions' B_OWN), each
   part in its order: a rank's own extra call tells more than the
   strcmp that decided it. */
static void own_first(pl_reason *v, size_t n, const uint8_t *kind,
                      pl_reason *tmp)
{
   size_t i, j, k, w;
   for (i = 0; i < n; i = j) {
      for (j = i; j < n && v[j].kind == v[i].kind; j++)
         ;
      w = 0;
      for (k = i; k < j; k++)
         if (kind[v[k].fn] == B_OWN)
            tmp[w++] = v[k];
      for (k = i; k < j; k++)
         if (kind[v[k].fn] != B_OWN)
            tmp[w++] = v[k];
      memcpy(v + i, tmp, (j - i) * sizeof *v);
   }
}

/* The reasons process graph g differs from the majority: members m
   (graphs gs[m[0..nm-1]]), rep their first (all have its shape); kind:
   behaviour_functions' of each function. */
static int explain(pl_outlier *o, const pl_graph *g, pl_graph *gs,
                   const size_t *m, size_t nm, uint64_t *tmp,
                   const uint8_t *kind)
{
   pl_reason *sorted;
   const pl_graph *rep = &gs[m[0]];
   size_t cap = 0, i, j;

   for (i = 0; i < g->nfns; i++) {
      const pl_fstat *f = &g->fns[i];
      const pl_fstat *r = pl_graph_fn(rep, f->fn);
      if (!r) {
         if (add_reason(o, &cap, PL_REASON_ONLY_FN, f->fn, 0, f->calls, 0) < 0)
            return -1;
         continue;
      }
      for (j = 0; j < nm; j++) {
         const pl_fstat *s = pl_graph_fn(&gs[m[j]], f->fn);
         tmp[j] = s ? s->calls : 0;
      }
      tmp[0] = pl_lower_median(tmp, nm);
      if (tmp[0] != f->calls
          && add_reason(o, &cap, PL_REASON_CALLS, f->fn, 0, f->calls,
                        tmp[0]) < 0)
         return -1;
   }
   for (i = 0; i < rep->nfns; i++) {
      uint32_t fn = rep->fns[i].fn;
      if (pl_graph_fn(g, fn))
         continue;
      for (j = 0; j < nm; j++) {
         const pl_fstat *s = pl_graph_fn(&gs[m[j]], fn);
         tmp[j] = s ? s->calls : 0;
      }
      if (add_reason(o, &cap, PL_REASON_MISSING_FN, fn, 0, 0,
                     pl_lower_median(tmp, nm)) < 0)
         return -1;
   }
   /* edges between functions both call */
   for (i = 0; i < g->nedges; i++) {
      const pl_edge *e = &g->edges[i];
      if (!pl_graph_fn(rep, e->callee)
          || (e->caller && !pl_graph_fn(rep, e->caller))
          || find_edge(rep, e->caller, e->callee))
         continue;
      if (add_reason(o, &cap, PL_REASON_ONLY_EDGE, e->callee, e->caller,
                     e->calls, 0) < 0)
         return -1;
   }
   for (i = 0; i < rep->nedges; i++) {
      const pl_edge *e = &rep->edges[i];
      if (!pl_graph_fn(g, e->callee)
          || (e->caller && !pl_graph_fn(g, e->caller))
          || find_edge(g, e->caller, e->callee))
         continue;
      for (j = 0; j < nm; j++) {
         const pl_edge *s = find_edge(&gs[m[j]], e->caller, e->callee);
         tmp[j] = s ? s->calls : 0;
      }
      if (add_reason(o, &cap, PL_REASON_MISSING_EDGE, e->callee, e->caller,
                     0, pl_lower_median(tmp, nm)) < 0)
         return -1;
   }
   qsort(o->reasons, o->nreasons, sizeof *o->reasons, reason_order);
   if (!(sorted = malloc((o->nreasons + 1) * sizeof *sorted)))
      return -1;
   own_first(o->reasons, o->nreasons, kind, sorted);
   free(sorted);
   return 0;
}

/* ---- What processes are compared on ------------------------------------ */

/* Per program function, what outlier classes look at: the program's view
   (pl_runtime.h): its own functions (B_OWN), and the library functions
   it calls (B_ENTRY, counted along the edges from its own code only),
   the C++ standard library's code compiled into the program among them.
   Libraries' internal calls differ from rank to rank (rank 0 does more in
   MPI_Init, progress engines poll as they please) and would drown the
   program's behaviour, as would its own calls of MPI's polls (MPI_Test,
   MPI_Iprobe: as many as the timing has it), which count for nothing.
   A system library's functions are the program's where its own code
   calls them.  If nothing is the program's, every
   function counts (B_OWN).  NULL if out of memory. */
static uint8_t *behaviour_functions(const pl_program *p, const pl_graph *gs,
                                    size_t n)
{
   uint8_t *b = calloc((size_t)p->nfns + 1, 1);
   const char *main_obj = NULL;
   uint32_t f;
   size_t i, j;
   int own = 0, changed = 1;

   if (!b)
      return NULL;
   for (f = 1; f <= p->nfns && !main_obj; f++)
      if (strcmp(p->fns[f].name, "main") == 0
          && strcmp(p->fns[f].object, "???"))
         main_obj = p->fns[f].object;
   for (f = 1; f <= p->nfns; f++) {
      const pl_gfunc *g = &p->fns[f];
      int k = main_obj && strcmp(g->object, main_obj) == 0
              ? PL_OBJECT_PROGRAM : (int)pl_object_kind(g->object);
      if (pl_runtime_calls_main(g->name))
         b[f] = B_OWN;            /* stands for a stripped main */
      else if (pl_runtime_mpi_poll(g->name))
         b[f] = B_NO;
      else if (k != PL_OBJECT_LOADER && pl_runtime_instantiated(g->name))
         b[f] = B_ENTRY;          /* std::sort's internals follow the data */
      else if (k == PL_OBJECT_PROGRAM || k == PL_OBJECT_SYSTEM)
         b[f] = pl_runtime_function(g->name) ? B_NO
                : k == PL_OBJECT_PROGRAM ? B_OWN : B_CALLED;
      else
         b[f] = k == PL_OBJECT_RUNTIME ? B_ENTRY : B_NO;
   }
   /* a system library's function the program's own code calls is its own
      (liblammps.so, called from a stripped lmp's main) */
   while (changed) {
      changed = 0;
      for (i = 0; i < n; i++)
         for (j = 0; j < gs[i].nedges; j++) {
            const pl_edge *e = &gs[i].edges[j];
            if (b[e->callee] == B_CALLED && e->caller
                && b[e->caller] == B_OWN) {
               b[e->callee] = B_OWN;
               changed = 1;
            }
         }
   }
   for (f = 1; f <= p->nfns; f++)
      own |= b[f] == B_OWN && !pl_runtime_calls_main(p->fns[f].name);
   if (!own)
      memset(b + 1, B_OWN, p->nfns);
   return b;
}

/* g restricted to behaviour b: the edges from the program's own code to
   its own code and to library entries (and from no caller to its own
   code), and each function's calls along them (b has nfns + 1 entries).
   0, or -1 if out of memory. */
static int behaviour_graph(const pl_graph *g, const uint8_t *b,
                           uint32_t nfns, pl_graph *out)
{
   uint64_t *in = calloc((size_t)nfns + 1, sizeof *in);   /* [callee] */
   size_t i;
   memset(out, 0, sizeof *out);
   out->fns = malloc((g->nfns + 1) * sizeof *out->fns);
   out->edges = malloc((g->nedges + 1) * sizeof *out->edges);
   if (!in || !out->fns || !out->edges) {
      free(in);
      pl_graph_free(out);
      return -1;
   }
   out->events = g->events;
   out->calls = g->calls;
   out->max_depth = g->max_depth;
   for (i = 0; i < g->nedges; i++) {
      const pl_edge *e = &g->edges[i];
      /* a library's thread starts in the library: no call of the
         program's (caller 0 is a thread's outermost frame) */
      if ((e->caller ? b[e->caller] == B_OWN : b[e->callee] == B_OWN)
          && (b[e->callee] == B_OWN || b[e->callee] == B_ENTRY)) {
         out->edges[out->nedges++] = *e;
         in[e->callee] += e->calls;
      }
   }
   /* each function's calls along those edges: a library's calls of the
      program's code (qsort's of its comparator, as often as the data has
      it) are the library's doing; such a function still counts as there */
   for (i = 0; i < g->nfns; i++) {
      pl_fstat s = g->fns[i];
      if (b[s.fn] != B_OWN && b[s.fn] != B_ENTRY)
         continue;
      s.calls = in[s.fn];
      if (!s.calls && b[s.fn] == B_ENTRY)
         continue;
      out->fns[out->nfns++] = s;
   }
   free(in);
   return 0;
}

/* Whether fn leads to an MPI call in g (fn itself included); seen is
   scratch of nfns + 1 bytes, cleared on return. */
static int reaches_mpi(const pl_program *p, const pl_graph *g, uint32_t fn,
                       uint8_t *seen, uint32_t *stack)
{
   size_t top = 0, i, k;
   int found = 0;

   stack[top++] = fn;
   seen[fn] = 1;
   while (top && !found) {
      uint32_t f = stack[--top];
      if (pl_runtime_mpi_interface(p->fns[f].name)) {
         found = 1;
         break;
      }
      for (k = 0; k < g->nedges; k++)       /* edges sorted by caller */
         if (g->edges[k].caller == f && !seen[g->edges[k].callee]) {
            seen[g->edges[k].callee] = 1;
            stack[top++] = g->edges[k].callee;
         }
   }
   for (i = 0; i <= p->nfns; i++)
      seen[i] = 0;
   return found;
}

/* Drop from the root's graph (gs[root]) its own work: the calls it makes
   beyond any other process's along the same edge (all of them where no
   other process calls that callee from that caller), of callees that
   lead to no MPI call (its reports and file I/O, also where every rank
   prints a last line), with the callees' calls along them; then the
   functions left without calls, with their edges.  1 if it dropped
   calls, 0 if none, -1 if out of memory. */
static int drop_root_only(const pl_program *p, pl_graph *gs, size_t n,
                          size_t root)
{
   uint8_t *seen = calloc((size_t)p->nfns + 1, 1);
   uint8_t *gone = calloc((size_t)p->nfns + 1, 1);
   uint8_t *drop = NULL, *was_called = NULL;
   uint32_t *stack = malloc(((size_t)p->nfns + 1) * sizeof *stack);
   pl_graph *g = &gs[root];
   size_t j, k, m, w;
   int ret = -1, dropped = 0;

   if (!seen || !gone || !stack || !(drop = calloc(g->nedges + 1, 1))
       || !(was_called = malloc(g->nfns + 1)))
      goto out;
   for (k = 0; k < g->nfns; k++)
      was_called[k] = g->fns[k].calls != 0;
   for (j = 0; j < g->nedges; j++) {
      pl_edge *e = &g->edges[j];
      uint64_t most = 0, excess;      /* another process's most calls */
      for (m = 0; m < n; m++) {
         const pl_edge *o = m != root ? find_edge(&gs[m], e->caller,
                                                  e->callee) : NULL;
         if (o && o->calls > most)
            most = o->calls;
      }
      if (e->calls <= most || reaches_mpi(p, g, e->callee, seen, stack))
         continue;
      excess = e->calls - most;
      e->calls = most;
      drop[j] = most == 0;
      dropped = 1;
      for (k = 0; k < g->nfns; k++)
         if (g->fns[k].fn == e->callee)
            g->fns[k].calls -= excess < g->fns[k].calls
                               ? excess : g->fns[k].calls;
   }
   /* a function the program's code never calls (a comparator qsort
      calls) had none before: it stays */
   for (k = w = 0; k < g->nfns; k++) {
      gone[g->fns[k].fn] = !g->fns[k].calls && was_called[k];
      if (!gone[g->fns[k].fn])
         g->fns[w++] = g->fns[k];
   }
   g->nfns = w;
   for (j = w = 0; j < g->nedges; j++)
      if (!drop[j] && !gone[g->edges[j].callee]
          && !(g->edges[j].caller && gone[g->edges[j].caller]))
         g->edges[w++] = g->edges[j];
   g->nedges = w;
   ret = dropped;
out:
   free(seen);
   free(gone);
   free(drop);
   free(was_called);
   free(stack);
   return ret;
}

/* ---- Who is an outlier --------------------------------------------------- */

/* The order of process pr's calls (its threads' orders, by thread
   number); 0 if a thread's is not known. */
static uint64_t process_order(const pl_program *p, const pl_process *pr)
{
   uint64_t h = PL_FNV1A_INIT;
   size_t j;
   for (j = 0; j < pr->nthreads; j++) {
      const pl_thread *th = &p->threads[pr->first_thread + j];
      if (!th->order)
         return 0;
      h = pl_fnv1a_step(pl_fnv1a_step(h, th->number), th->order);
   }
   return h ? h : 1;
}

/* Processes' orders: ord[i], of all their calls; and where one of i and
   j is the root whose own work was left out of its graph (root < n),
   ord_mpi[], of their calls that lead to MPI, so that its reports do not
   make its order another.  The root's order tells only whether it is an
   outlier: the others' calls that lead to no MPI call (a compute
   step moved) are told apart among themselves. */
typedef struct {
   const uint64_t *ord, *ord_mpi;
   size_t root;
} orders;

static int same_order(const orders *o, size_t i, size_t j)
{
   if (i == o->root || j == o->root)
      return o->ord_mpi[i] == o->ord_mpi[j];
   return o->ord[i] == o->ord[j];
}

/* Outliers by order: in each class of gcls (n processes, classes by
   calls counted) with three members or more where two or more share an
   order, the members whose order no other has.  They are appended to r's
   outliers with their one reason; is_out marks the processes already
   outliers; root: the index of the root whose own work was left out, n
   if none.  0, or -1 if out of memory. */
static int order_outliers(const pl_program *p, pl_ranks *r, const size_t *gcls,
                          const size_t *gsize, size_t n, uint8_t *is_out,
                          size_t root)
{
   uint64_t *ord = malloc((n + 1) * sizeof *ord);
   uint64_t *ord_mpi = malloc((n + 1) * sizeof *ord_mpi);
   orders o = { ord, ord_mpi, root };
   size_t i, j;

   if (!ord || !ord_mpi) {
      free(ord);
      free(ord_mpi);
      return -1;
   }
   for (i = 0; i < n; i++) {
      ord[i] = process_order(p, &p->procs[r->procs[i]]);
      ord_mpi[i] = pl_program_order_mpi(p, r->procs[i]);
      if (!ord_mpi[i])
         ord[i] = 0;        /* not both known: not compared */
   }
   for (i = 0; i < n; i++) {
      size_t same = 0, shared = 0;
      if (is_out[i] || !ord[i] || gsize[gcls[i]] < 3)
         continue;
      for (j = 0; j < n; j++) {
         size_t k, twins = 0;
         if (j == i || j == root || gcls[j] != gcls[i] || !ord[j])
            continue;
         same += same_order(&o, i, j);
         for (k = 0; k < n; k++)
            twins += k != i && k != root && gcls[k] == gcls[i] && ord[k]
                     && same_order(&o, k, j);
         shared += twins >= 2;
      }
      if (!same && shared) {
         pl_outlier *o = &r->outliers[r->noutliers++];
         size_t cap = 0;
         o->proc = i;
         is_out[i] = 1;
         if (add_reason(o, &cap, PL_REASON_ORDER, 0, 0, 0, 0) < 0) {
            free(ord);
            free(ord_mpi);
            return -1;
         }
      }
   }
   free(ord);
   free(ord_mpi);
   return 0;
}

/* How far apart two behaviour graphs are: the calls of each function and
   along each edge, absolute differences summed. */
static uint64_t distance(const pl_graph *a, const pl_graph *b)
{
   uint64_t d = 0;
   size_t i;
   for (i = 0; i < a->nfns; i++) {
      const pl_fstat *s = pl_graph_fn(b, a->fns[i].fn);
      uint64_t x = a->fns[i].calls, y = s ? s->calls : 0;
      d += x > y ? x - y : y - x;
   }
   for (i = 0; i < b->nfns; i++)
      if (!pl_graph_fn(a, b->fns[i].fn))
         d += b->fns[i].calls;
   for (i = 0; i < a->nedges; i++) {
      const pl_edge *e = find_edge(b, a->edges[i].caller, a->edges[i].callee);
      uint64_t x = a->edges[i].calls, y = e ? e->calls : 0;
      d += x > y ? x - y : y - x;
   }
   for (i = 0; i < b->nedges; i++)
      if (!find_edge(a, b->edges[i].caller, b->edges[i].callee))
         d += b->edges[i].calls;
   return d;
}

/* The calls of fn (or along caller -> fn with edge) in g. */
static uint64_t value_in(const pl_graph *g, uint32_t fn, uint32_t caller,
                         int edge)
{
   if (edge) {
      const pl_edge *e = find_edge(g, caller, fn);
      return e ? e->calls : 0;
   }
   {
      const pl_fstat *s = pl_graph_fn(g, fn);
      return s ? s->calls : 0;
   }
}

/* Whether gs[i] holds a count (of a function or an edge) that no other
   process of the set (gs[set[0..nset-1]], i among them) has: what a rank
   that adds or skips calls looks like, while behaviours several ranks
   share (the two ends of a stencil) do not.  The set's processes call
   the same functions along the same edges. */
static int has_unique_count(const pl_graph *gs, const size_t *set,
                            size_t nset, size_t i)
{
   const pl_graph *g = &gs[i];
   size_t j, m;

   for (j = 0; j < g->nfns + g->nedges; j++) {
      int edge = j >= g->nfns;
      uint32_t fn = edge ? g->edges[j - g->nfns].callee : g->fns[j].fn;
      uint32_t caller = edge ? g->edges[j - g->nfns].caller : 0;
      uint64_t v = value_in(g, fn, caller, edge);
      for (m = 0; m < nset; m++)
         if (set[m] != i && value_in(&gs[set[m]], fn, caller, edge) == v)
            break;
      if (m == nset)
         return 1;
   }
   return 0;
}

/* A process by its MPI rank's number, for sort_by_rank. */
typedef struct {
   unsigned long long rank;
   size_t proc;
} ranked;

static int by_rank_number(const void *a, const void *b)
{
   const ranked *x = a, *y = b;
   if (x->rank != y->rank)
      return x->rank < y->rank ? -1 : 1;
   return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* procs[0..n-1] (indexes in p->procs, each with a rank) by rank number,
   so that classes, references and outliers do not follow the order of
   the trace files (their pids: a launcher need not start rank 1 before
   rank 2).  0, or -1 if out of memory. */
static int sort_by_rank(const pl_program *p, size_t *procs, size_t n)
{
   ranked *v = malloc((n + 1) * sizeof *v);
   size_t i;
   if (!v)
      return -1;
   for (i = 0; i < n; i++) {
      char *end;
      const char *s = p->procs[procs[i]].rank;
      v[i].rank = strtoull(s, &end, 10);
      if (end == s || *end)
         v[i].rank = ULLONG_MAX;        /* not a number: after the others */
      v[i].proc = procs[i];
   }
   qsort(v, n, sizeof *v, by_rank_number);
   for (i = 0; i < n; i++)
      procs[i] = v[i].proc;
   free(v);
   return 0;
}

/* Whether procs[i] is MPI rank 0, the root. */
static int is_root(const pl_program *p, const pl_ranks *r, size_t i)
{
   return r->by_rank && strcmp(p->procs[r->procs[i]].rank, "0") == 0;
}

static int outlier_order(const void *a, const void *b)
{
   size_t x = ((const pl_outlier *)a)->proc, y = ((const pl_outlier *)b)->proc;
   return x < y ? -1 : x > y;
}

void pl_ranks_free(pl_ranks *r)
{
   size_t i;
   for (i = 0; i < r->noutliers; i++)
      free(r->outliers[i].reasons);
   free(r->outliers);
   free(r->procs);
   free(r->cls);
   free(r->ref);
   free(r->fns);
   memset(r, 0, sizeof *r);
}

int pl_ranks_analyse(const pl_program *p, pl_ranks *r)
{
   pl_graph *gs = NULL;
   const pl_graph **parts = NULL;
   size_t *size = NULL, *rep = NULL, *members = NULL;
   uint64_t *tmp = NULL;
   uint32_t *seen = NULL;
   uint8_t *keep = NULL;
   uint64_t *dist = NULL;
   uint8_t *is_out = NULL;
   size_t *gcls = NULL, *gsize = NULL, *grep = NULL;
   size_t i, j, k, n = 0, nm = 0, best, root, lone_root;
   int shape_majority;
   uint32_t f;
   int ret = -1;

   memset(r, 0, sizeof *r);
   for (i = 0; i < p->nprocs; i++)
      if (p->procs[i].rank && p->procs[i].nthreads > 0)
         r->by_rank = 1;
   r->procs = malloc((p->nprocs + 1) * sizeof *r->procs);
   if (!r->procs)
      goto out;
   for (i = 0; i < p->nprocs; i++) {
      const pl_process *pr = &p->procs[i];
      if (pr->nthreads == 0)
         continue;
      if (r->by_rank ? pr->rank != NULL
                     : !(pr->role && strcmp(pr->role, "launcher") == 0))
         r->procs[r->nprocs++] = i;
   }
   n = r->nprocs;
   if (r->by_rank && sort_by_rank(p, r->procs, n) < 0)
      goto out;
   gs = calloc(n + 1, sizeof *gs);
   parts = malloc((p->nthreads + 1) * sizeof *parts);
   r->cls = malloc((n + 1) * sizeof *r->cls);
   size = malloc((n + 1) * sizeof *size);
   rep = malloc((n + 1) * sizeof *rep);
   members = malloc((n + 1) * sizeof *members);
   tmp = malloc((n + 1) * sizeof *tmp);
   seen = calloc((size_t)p->nfns + 1, sizeof *seen);
   if (!gs || !parts || !r->cls || !size || !rep || !members || !tmp
       || !seen)
      goto out;
   for (i = 0; i < n; i++) {
      const pl_process *pr = &p->procs[r->procs[i]];
      for (j = 0; j < pr->nthreads; j++)
         parts[j] = &p->threads[pr->first_thread + j].g;
      if (pl_graph_sum(&gs[i], parts, pr->nthreads) < 0)
         goto out;
   }

   /* per function: min / median / max */
   for (i = 0; i < n; i++)
      for (j = 0; j < gs[i].nfns; j++)
         if (!seen[gs[i].fns[j].fn]++)
            r->nfns++;
   r->fns = malloc((r->nfns + 1) * sizeof *r->fns);
   if (!r->fns)
      goto out;
   r->nfns = 0;
   for (f = 1; f <= p->nfns; f++) {
      pl_rank_fn *rf;
      if (!seen[f])
         continue;
      rf = &r->fns[r->nfns++];
      rf->fn = f;
      rf->nprocs = seen[f];
      for (i = 0; i < n; i++) {
         const pl_fstat *s = pl_graph_fn(&gs[i], f);
         tmp[i] = s ? s->calls : 0;
      }
      rf->median = pl_lower_median(tmp, n);
      rf->min = tmp[0];
      rf->max = tmp[n - 1];
   }

   /* classes and outliers, on the program's own behaviour */
   if (n < 2) {
      ret = 0;
      goto out;
   }
   keep = behaviour_functions(p, gs, n);
   if (!keep)
      goto out;
   for (i = 0; i < n; i++) {
      pl_graph b;
      if (behaviour_graph(&gs[i], keep, p->nfns, &b) < 0)
         goto out;
      pl_graph_free(&gs[i]);
      gs[i] = b;
   }
   /* rank 0, the root by convention, does the I/O the others do not */
   root = n;
   for (i = 0; i < n; i++)
      if (is_root(p, r, i)) {
         int dropped = drop_root_only(p, gs, n, i);
         if (dropped < 0)
            goto out;
         if (dropped)
            root = i;
         break;
      }
   /* outliers by shape: outside the largest class of processes calling
      the same functions along the same edges, if no other is as large */
   r->class_kind = PL_CLASS_SHAPE;
   r->nclasses = classify(gs, n, 0, r->cls, size, rep);
   best = 0;
   for (i = 1; i < r->nclasses; i++)
      if (size[i] > size[best])
         best = i;
   shape_majority = 1;
   for (i = 0; i < r->nclasses; i++)
      if (i != best && size[i] == size[best])
         shape_majority = 0;
   r->ref = malloc((n + 1) * sizeof *r->ref);
   r->outliers = calloc(n + 1, sizeof *r->outliers);
   dist = malloc((n * n + 1) * sizeof *dist);
   if (!r->ref || !r->outliers || !dist)
      goto out;
   nm = 0;
   for (i = 0; i < n; i++) {
      if (r->cls[i] == best)
         members[nm++] = i;
      else if (shape_majority)
         r->outliers[r->noutliers++].proc = i;
   }
   /* ... and by calls among the largest shape class: a class of its own,
      with a count no other process of that class has */
   if (r->nclasses == 1) {
      r->class_kind = PL_CLASS_GRAPH;
      r->nclasses = classify(gs, n, 1, r->cls, size, rep);
   }
   /* classes by calls counted, for what follows */
   gcls = malloc((n + 1) * sizeof *gcls);
   gsize = malloc((n + 1) * sizeof *gsize);
   grep = malloc((n + 1) * sizeof *grep);
   is_out = calloc(n + 1, 1);
   if (!gcls || !gsize || !grep || !is_out)
      goto out;
   classify(gs, n, 1, gcls, gsize, grep);
   if (shape_majority && nm >= 3)
      for (j = 0; j < nm; j++)
         if (gsize[gcls[members[j]]] == 1
             && has_unique_count(gs, members, nm, members[j]))
            r->outliers[r->noutliers++].proc = members[j];
   /* ... and by order: the same calls as their class, in another order */
   for (k = 0; k < r->noutliers; k++)
      is_out[r->outliers[k].proc] = 1;
   if (shape_majority && order_outliers(p, r, gcls, gsize, n, is_out, root) < 0)
      goto out;
   best = 0;
   for (i = 1; i < r->nclasses; i++)
      if (size[i] > size[best])
         best = i;
   r->majority = best;
   r->majority_size = size[best];
   r->has_majority = r->nclasses > 1;
   for (i = 0; i < r->nclasses; i++)
      if (i != best && size[i] == size[best])
         r->has_majority = 0;
   if (r->class_kind == PL_CLASS_GRAPH && 2 * size[best] <= n)
      r->has_majority = 0;
   for (i = 0; i < n; i++)
      for (j = i; j < n; j++)
         dist[i * n + j] = dist[j * n + i] = i == j ? 0
                                             : distance(&gs[i], &gs[j]);
   /* the medoid: closest to all the others */
   {
      uint64_t best_sum = UINT64_MAX;
      for (i = 0; i < n; i++) {
         uint64_t sum = 0;
         for (j = 0; j < n; j++)
            sum += dist[i * n + j];
         if (sum < best_sum) {
            best_sum = sum;
            r->medoid = i;
         }
      }
   }
   /* rank 0 alone in its class: the root's role (it gathers what the
      others send, decides, writes) makes it unlike the others in a run
      without a fault too, so it counts for nothing in whether the odd
      ones can be told, and comes last */
   lone_root = n;
   for (i = 0; i < n; i++)
      if (is_out[i] && pl_ranks_lone_root(p, r, r->procs[i]))
         lone_root = i;
   if (r->nclasses > 1
       && (n < 3 || !shape_majority
           || 4 * (r->noutliers - (lone_root < n))
              > n - (lone_root < n) + 3)) {
      /* two processes, no largest class, or most of them unlike any
         other: no rule tells the odd ones; each is compared with the
         medoid */
      r->by_medoid = 1;
      for (k = 0; k < r->noutliers; k++) {
         free(r->outliers[k].reasons);
         r->outliers[k].reasons = NULL;
         r->outliers[k].nreasons = 0;
      }
      r->noutliers = 0;
      for (i = 0; i < n; i++)
         if (r->cls[i] != r->cls[r->medoid])
            r->outliers[r->noutliers++].proc = i;
   }
   /* in process order, a lone root last */
   qsort(r->outliers, r->noutliers, sizeof *r->outliers, outlier_order);
   if (lone_root < n && r->noutliers > 1 && r->outliers[0].proc == lone_root) {
      pl_outlier first = r->outliers[0];
      memmove(r->outliers, r->outliers + 1,
              (r->noutliers - 1) * sizeof *r->outliers);
      r->outliers[r->noutliers - 1] = first;
   }
   /* each process's reference: the medoid, an outlier's nearest
      process that is no outlier, else the first of its class */
   memset(is_out, 0, n + 1);
   for (k = 0; k < r->noutliers; k++)
      is_out[r->outliers[k].proc] = 1;
   /* a class's reference: its first process, not the root if it can
      (the root's own I/O would show in every comparison with it) */
   for (i = n; i-- > 0;)
      if (!is_root(p, r, i) && !is_out[i])
         rep[r->cls[i]] = i;
   for (i = 0; i < n; i++)
      r->ref[i] = rep[r->cls[i]];
   for (k = 0; k < r->noutliers; k++) {
      size_t me = r->outliers[k].proc, near = r->medoid;
      if (!r->by_medoid)
         for (j = 0, near = SIZE_MAX; j < n; j++) {
            if (is_out[j])
               continue;
            /* the root only if no other rank is as near (its own
               I/O, left out of the distance, is not) */
            if (near == SIZE_MAX || dist[me * n + j] < dist[me * n + near]
                || (dist[me * n + j] == dist[me * n + near]
                    && is_root(p, r, near) && !is_root(p, r, j)))
               near = j;
         }
      if (near == SIZE_MAX)
         near = r->medoid != me ? r->medoid : (me + 1) % n;
      r->ref[me] = near;
      for (j = nm = 0; j < n; j++)
         if (r->cls[j] == r->cls[near] && !is_out[j] && j != me)
            members[nm++] = j;
      r->outliers[k].proc = r->procs[me];
      r->outliers[k].cls = r->cls[me];
      r->outliers[k].ref = r->procs[near];
      if (explain(&r->outliers[k], &gs[me], gs, members, nm, tmp, keep) < 0)
         goto out;
   }
   ret = 0;
out:
   if (gs)
      for (i = 0; i < n; i++)
         pl_graph_free(&gs[i]);
   free(gs);
   free(parts);
   free(size);
   free(rep);
   free(members);
   free(tmp);
   free(seen);
   free(keep);
   free(dist);
   free(is_out);
   free(gcls);
   free(gsize);
   free(grep);
   if (ret < 0)
      pl_ranks_free(r);
   return ret;
}

int pl_ranks_lone_root(const pl_program *p, const pl_ranks *r, size_t proc)
{
   size_t i, at = r->nprocs, members = 0;
   for (i = 0; i < r->nprocs; i++)
      if (r->procs[i] == proc)
         at = i;
   if (r->nprocs < 3 || at == r->nprocs || !is_root(p, r, at))
      return 0;
   for (i = 0; i < r->nprocs; i++)
      members += r->cls[i] == r->cls[at];
   return members == 1;
}

const char *pl_ranks_proc_name(const pl_program *p, const pl_ranks *r,
                               size_t proc, char *buf, size_t len)
{
   const pl_process *pr = &p->procs[proc];
   if (r->by_rank && pr->rank)
      snprintf(buf, len, "rank %s", pr->rank);
   else
      snprintf(buf, len, "pid %s", pr->pid);
   return buf;
}
