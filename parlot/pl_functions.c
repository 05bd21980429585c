/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Function and object tables.

   A function is identified by its entry address together with its name and
   object, so that code unloaded and replaced by other code at the same
   address (dlclose/dlopen) gets a new ID instead of a wrong name.  Lookups
   happen at translation time only; the per-event path never comes here. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_oset.h"
#include "pub_tool_clientstate.h"

#include "pl_format.h"
#include "pl_glob.h"
#include "pl_mpi_names.h"
#include "pl_grow.h"
#include "pl_hash.h"
#include "pl_output.h"
#include "pl_functions.h"
#include "pl_unwind.h"

typedef struct {
   HChar *name;
   Bool   is_main;
} pl_object;

typedef struct {
   Addr   addr;
   HChar *name;        /* Valgrind's name (its primary name at addr) */
   UInt   obj;
   /* shown: the name written to the trace, name or one of aliases;
      aliases: the other names at addr, NULL-terminated, or NULL */
   const HChar  *shown;
   HChar       **aliases;
} pl_function;

static Bool main_only;
static Bool keep_plt;
static Int  unwind_names;                  /* enum pl_unwind_names */
static const pl_fn_patterns *patterns;     /* NULL: none */

UChar *pl_fn_flags;
UInt  *pl_fn_trace_id;
static UInt cap_flags, cap_trace_ids;
static UInt n_defined;                     /* IDs with PL_FN_RECORD */

/* The signal handlers the program installed (pl_fn_add_handler): a few
   per program, searched at translation time only. */
#define MAX_HANDLERS 64
static Addr handlers[MAX_HANDLERS];
static UInt n_handlers;

/* Indexed by ID; index 0 unused (0 means exit in the stream). */
static pl_object   *objs;
static UInt         n_objs = 1, cap_objs;
static pl_function *fns;
static UInt         n_fns = 1, cap_fns;

/* Open-addressing map from entry address to the newest ID there. */
typedef struct { Addr addr; UInt id; } pl_slot;
static pl_slot *slots;
static UWord    n_slots;            /* 1 << slot_bits */
static UInt     slot_bits;
static UWord    used_slots;

/* Core function, not in the tool headers (stable since 3.10): the symbol
   name exactly as in the object — not demangled, and not renamed to
   "(below main)" — so traces name functions as nm does; decoders demangle. */
extern Bool VG_(get_fnname_raw)(DiEpoch ep, Addr a, const HChar **buf);

/* Core variable, not in the tool headers (stable since 3.5): the core's
   descriptor of the client executable, opened after the launcher found it
   (through PATH when it was named without a slash). */
extern Int VG_(cl_exec_fd);

/* Core function, not in the tool headers (any platform, despite its
   comment): the offset of a in the function containing it. */
extern Bool VG_(get_inst_offset_in_function)(DiEpoch ep, Addr a,
                                             PtrdiffT *offset);

/* Core functions, not in the tool headers (stable since 3.9): a
   DebugInfo's symbol table, sorted by address with the names of one
   address merged into one entry (Valgrind's preferred name and the
   others).  SymAVMAs as pub_core_debuginfo.h declares it. */
typedef struct {
   Addr main;
#  if defined(VGA_ppc64be) || defined(VGA_ppc64le)
   Addr tocptr;
#  endif
#  if defined(VGA_ppc64le)
   Addr local_ep;
#  endif
} pl_sym_avmas;
extern Int  VG_(DebugInfo_syms_howmany)(const DebugInfo *di);
extern void VG_(DebugInfo_syms_getidx)(const DebugInfo *di, Int idx,
                                       pl_sym_avmas *avmas, UInt *size,
                                       const HChar **pri_name,
                                       const HChar ***sec_names,
                                       Bool *isText, Bool *isIFunc,
                                       Bool *isGlobal);

static pl_buf pending_objs, pending_fns, pending_aliases;
static ULong  exe_dev, exe_ino;
static Bool   exe_known;

void pl_fn_set_patterns(const pl_fn_patterns *p)
{
   patterns = p;
}

/* Whether a pattern of pats matches one of f's names or demangled. */
static Bool any_glob(const HChar **pats, UInt n, const pl_function *f,
                     const HChar *demangled)
{
   for (UInt i = 0; i < n; i++) {
      if (pl_glob_match(pats[i], f->name)
          || (demangled && pl_glob_match(pats[i], demangled)))
         return True;
      for (HChar **al = f->aliases; al && *al; al++)
         if (pl_glob_match(pats[i], *al))
            return True;
   }
   return False;
}

static Bool any_glob_obj(const HChar **pats, UInt n, const HChar *path,
                         const HChar *base)
{
   for (UInt i = 0; i < n; i++)
      if (pl_glob_match(pats[i], path) || pl_glob_match(pats[i], base))
         return True;
   return False;
}

/* The flags of function f in object objname. */
static UChar classify(const pl_function *f, const HChar *objname)
{
   const pl_fn_patterns *p = patterns;
   const HChar *base, *shown = NULL;
   UChar fl = PL_FN_RECORD;

   if (!p)
      return fl;
   base = VG_(strrchr)(objname, '/') ? VG_(strrchr)(objname, '/') + 1
                                     : objname;
   if ((p->n_only_obj && !any_glob_obj(p->only_obj, p->n_only_obj, objname,
                                       base))
       || any_glob_obj(p->hide_obj, p->n_hide_obj, objname, base))
      fl = 0;
   /* the demangled name, as users write it ("ns::f(int)") */
   if (p->n_only || p->n_hide || p->n_toggle) {
      const HChar *d;
      if (VG_(get_fnname)(VG_(current_DiEpoch)(), f->addr, &d)
          && VG_(strcmp)(d, f->name) != 0)
         shown = d;
   }
   if (fl && ((p->n_only && !any_glob(p->only, p->n_only, f, shown))
              || any_glob(p->hide, p->n_hide, f, shown)))
      fl = 0;
   if (any_glob(p->toggle, p->n_toggle, f, shown))
      fl |= PL_FN_TOGGLE;
   return fl;
}

static Bool unwind_wanted(const HChar *path);

void pl_fn_init(Bool main_image_only, Bool keep_plt_stubs, Int unwind)
{
   main_only = main_image_only;
   keep_plt = keep_plt_stubs;
   unwind_names = unwind;
   pl_unwind_init(unwind_wanted);
   slot_bits = 12;
   n_slots = (UWord)1 << slot_bits;
   slots = VG_(calloc)("pl.fn.slots", n_slots, sizeof *slots);

   /* args_the_exename is the name as typed ("perl"), which need not be a
      path from the current directory: ask the open executable first. */
   struct vg_stat st;
   if ((VG_(cl_exec_fd) >= 0 && VG_(fstat)(VG_(cl_exec_fd), &st) == 0) ||
       (VG_(args_the_exename) &&
        !sr_isError(VG_(stat)(VG_(args_the_exename), &st)))) {
      exe_dev = st.dev;
      exe_ino = st.ino;
      exe_known = True;
   }
}

/* arr (*cap elements of elem bytes) reallocated to hold need. */
static void *grow(void *arr, UInt *cap, UInt need, SizeT elem, const HChar *cc)
{
   SizeT ncap;

   if (need <= *cap)
      return arr;
   ncap = pl_grow_cap(*cap, need, 256, elem);
   if (ncap == 0 || ncap > 0xFFFFFFFFu)
      VG_(tool_panic)("parlot: too many objects or functions");
   *cap = (UInt)ncap;
   return VG_(realloc)(cc, arr, ncap * elem);
}

static void queue_obj(UInt id)
{
   pl_buf_u32(&pending_objs, id);
   pl_buf_str(&pending_objs, objs[id].name);
}

static void queue_fn(UInt id)
{
   pl_buf_u32(&pending_fns, pl_fn_trace_id[id]);
   pl_buf_u32(&pending_fns, fns[id].obj);
   pl_buf_u64(&pending_fns, fns[id].addr);
   pl_buf_str(&pending_fns, fns[id].shown);
   for (HChar **al = fns[id].aliases; al && *al; al++) {
      pl_buf_u32(&pending_aliases, pl_fn_trace_id[id]);
      pl_buf_str(&pending_aliases, *al);
   }
   if (pending_fns.len + pending_aliases.len >= 256 * 1024)
      pl_fn_flush_defs();
}

/* The main executable is recognised by file identity, which is immune to
   relative paths and symlinks in how it was started. */
static Bool is_main_object(const HChar *path)
{
   struct vg_stat st;
   if (!exe_known || sr_isError(VG_(stat)(path, &st)))
      return False;
   return st.dev == exe_dev && st.ino == exe_ino;
}

/* Whose functions without a symbol are named from the unwind table. */
static Bool unwind_wanted(const HChar *path)
{
   return unwind_names == PL_UNWIND_ALL
          || (unwind_names == PL_UNWIND_MAIN && is_main_object(path));
}

/* "sort+0x4a20": the object's file name and the function's address in
   the file (as objdump and addr2line take it). */
static HChar *unwind_name(const DebugInfo *di, Addr a)
{
   const HChar *path = VG_(DebugInfo_get_filename)(di);
   const HChar *base = VG_(strrchr)(path, '/') ? VG_(strrchr)(path, '/') + 1
                                               : path;
   SizeT len = VG_(strlen)(base) + 24;
   HChar *name = VG_(malloc)("pl.fn.name", len);
   VG_(snprintf)(name, len, "%s+0x%lx", base,
                 (UWord)(a - (Addr)VG_(DebugInfo_get_text_bias)(di)));
   return name;
}

/* The object holding a, if a starts a function its unwind table lists. */
static const DebugInfo *unwind_entry(Addr a)
{
   const DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   return di && pl_unwind_is_start(di, a) ? di : NULL;
}

static UInt object_id(const HChar *name)
{
   static UInt last = 0;
   if (last && VG_(strcmp)(objs[last].name, name) == 0)
      return last;
   for (UInt i = 1; i < n_objs; i++)
      if (VG_(strcmp)(objs[i].name, name) == 0)
         return last = i;
   objs = grow(objs, &cap_objs, n_objs + 1, sizeof *objs, "pl.fn.objs");
   objs[n_objs].name = VG_(strdup)("pl.fn.objname", name);
   objs[n_objs].is_main = is_main_object(name);
   queue_obj(n_objs);
   return last = n_objs++;
}

static UWord slot_of(Addr a)
{
   return (UWord)pl_golden_slot(a, slot_bits);
}

static void slots_insert(Addr a, UInt id)
{
   UWord i = slot_of(a);
   while (slots[i].id != 0 && slots[i].addr != a)
      i = (i + 1) & (n_slots - 1);
   if (slots[i].id == 0)
      used_slots++;
   slots[i].addr = a;
   slots[i].id = id;
}

static void slots_grow(void)
{
   pl_slot *old = slots;
   UWord old_n = n_slots;
   slot_bits++;
   n_slots *= 2;
   used_slots = 0;
   slots = VG_(calloc)("pl.fn.slots", n_slots, sizeof *slots);
   for (UWord i = 0; i < old_n; i++)
      if (old[i].id)
         slots_insert(old[i].addr, old[i].id);
   VG_(free)(old);
}

static UInt slots_find(Addr a)
{
   UWord i = slot_of(a);
   while (slots[i].id != 0) {
      if (slots[i].addr == a)
         return slots[i].id;
      i = (i + 1) & (n_slots - 1);
   }
   return 0;
}

/* PLT stubs have no symbols; with --keep-plt=yes each 16-byte slot of a
   .plt section is a function of its own, named after its offset.  (.plt
   lies outside the text range VG_(find_DebugInfo) knows, hence the walk.) */
static const DebugInfo *plt_owner(Addr a, HChar *out, SizeT n)
{
   for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di;
        di = VG_(next_DebugInfo)(di)) {
      Addr plt = VG_(DebugInfo_get_plt_avma)(di);
      SizeT size = VG_(DebugInfo_get_plt_size)(di);
      if (size == 0 || a < plt || a >= plt + size)
         continue;
      if ((a - plt) % 16 != 0)
         return NULL;
      VG_(snprintf)(out, n, "plt+0x%lx", (UWord)(a - plt));
      return di;
   }
   return NULL;
}

/* The index of the last symbol of di at or below a, -1 if none.  The
   table is sorted by address without overlaps: a binary search. */
static Int symbol_below(const DebugInfo *di, Addr a)
{
   Int lo = 0, hi = VG_(DebugInfo_syms_howmany)(di) - 1, below = -1;

   while (lo <= hi) {
      Int mid = lo + (hi - lo) / 2;
      pl_sym_avmas av;
      VG_(DebugInfo_syms_getidx)(di, mid, &av, NULL, NULL, NULL, NULL,
                                 NULL, NULL);
      if (av.main <= a) {
         below = mid;
         lo = mid + 1;
      } else {
         hi = mid - 1;
      }
   }
   return below;
}

/* Whether a text symbol starts at a in di; its primary and other names
   (NULL-terminated, owned by the core). */
static Bool text_symbol_at(const DebugInfo *di, Addr a, const HChar **pri,
                           const HChar ***sec)
{
   Int i = symbol_below(di, a);
   pl_sym_avmas av;
   Bool text;

   if (i < 0)
      return False;
   VG_(DebugInfo_syms_getidx)(di, i, &av, NULL, pri, sec, &text, NULL, NULL);
   return av.main == a && text;
}

/* The names other than Valgrind's primary name `name` of the text symbol
   at a in di, or NULL if none. */
static const HChar **other_names(const DebugInfo *di, Addr a,
                                 const HChar *name)
{
   const HChar *pri, **sec;
   return text_symbol_at(di, a, &pri, &sec)
          && VG_(strcmp)(pri, name) == 0 ? sec : NULL;
}

/* Ranges of code known to hold no function entry: the inside of each
   text symbol found so far, and the gaps between symbols (code without
   one: static functions of stripped libraries).  An instruction there
   needs no debug-info search, each of which walks every object's
   mappings: in an MPI rank's start-up, a tenth of the tool's time.  The
   ranges [first, hi) are disjoint; all are forgotten when the debug info
   changes epoch (an object mapped or unmapped). */
typedef struct {
   Addr first, hi;
} pl_range;
static OSet   *ranges;
static DiEpoch ranges_epoch;

static Word cmp_range(const void *key, const void *elem)
{
   Addr a = *(const Addr *)key;
   const pl_range *r = elem;
   return a < r->first ? -1 : a >= r->hi ? 1 : 0;
}

static OSet *current_ranges(void)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   if (ranges && ranges_epoch.n != ep.n) {
      VG_(OSetGen_Destroy)(ranges);
      ranges = NULL;
   }
   if (!ranges) {
      ranges = VG_(OSetGen_Create)(offsetof(pl_range, first), cmp_range,
                                   VG_(malloc), "pl.fn.ranges", VG_(free));
      ranges_epoch = ep;
   }
   return ranges;
}

static void add_range(Addr first, Addr hi)
{
   OSet *set = current_ranges();
   if (first >= hi || VG_(OSetGen_Contains)(set, &first))
      return;
   pl_range *r = VG_(OSetGen_AllocNode)(set, sizeof *r);
   r->first = first;
   r->hi = hi;
   VG_(OSetGen_Insert)(set, r);
}

Bool pl_fn_known_range(Addr a, Addr *lo, Addr *hi)
{
   const pl_range *r = VG_(OSetGen_Lookup)(current_ranges(), &a);
   if (!r)
      return False;
   *lo = r->first - 1;
   *hi = r->hi;
   return True;
}

/* Narrow [*first, *hi) around a to hold no start of di's unwind table. */
static void unwind_free_around(const DebugInfo *di, Addr a, Addr *first,
                               Addr *hi)
{
   Addr below, above;
   if (!pl_unwind_around(di, a, &below, &above))
      return;
   if (below && below + 1 > *first)
      *first = below + 1;
   if (above < *hi)
      *hi = above;
}

/* The addresses [*first, *hi) of di's text around a that start no
   function: the inside of the text symbol holding a (its entry is *first
   - 1), or the gap between the symbols around a.  False if a is outside
   di's text or inside a symbol that is not text. */
static Bool entry_free_around(const DebugInfo *di, Addr a, Addr *first,
                              Addr *hi)
{
   Addr text = VG_(DebugInfo_get_text_avma)(di);
   Addr text_end = text + VG_(DebugInfo_get_text_size)(di);
   Int below = symbol_below(di, a);
   pl_sym_avmas av;
   UInt size;
   Bool is_text;

   if (a < text || a >= text_end)
      return False;
   *first = text;
   *hi = text_end;
   if (below >= 0) {
      VG_(DebugInfo_syms_getidx)(di, below, &av, &size, NULL, NULL, &is_text,
                                 NULL, NULL);
      if (a < av.main + size) {         /* inside the symbol */
         *first = av.main + 1;
         *hi = av.main + size;
         return is_text;
      }
      if (av.main + size > *first)
         *first = av.main + size;
   }
   if (below + 1 < VG_(DebugInfo_syms_howmany)(di)) {
      VG_(DebugInfo_syms_getidx)(di, below + 1, &av, NULL, NULL, NULL, NULL,
                                 NULL, NULL);
      if (av.main < *hi)
         *hi = av.main;
   }
   unwind_free_around(di, a, first, hi);
   return True;
}

Bool pl_fn_range(Addr a, Addr *lo, Addr *hi)
{
   const DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   Addr first;

   if (!di || !entry_free_around(di, a, &first, hi))
      return False;
   add_range(first, *hi);
   *lo = first - 1;
   return True;
}

/* The name users wrote among a function's names (docs/manual.md, "Function
   names").  Valgrind prefers the MPI profiling name PMPI_X to the public
   MPI_X at one address; undo that for any profiling prefix: a name
   beginning with 'P' or 'p' gives way to the rest of it when that is also
   a name of the function (PMPI_Send -> MPI_Send, pmpi_send_ ->
   mpi_send_, pshmem_put -> shmem_put). */
static const HChar *public_name(const HChar *name, const HChar **others)
{
   if (!others || (name[0] != 'P' && name[0] != 'p'))
      return name;
   for (; *others; others++)
      if (VG_(strcmp)(*others, name + 1) == 0)
         return *others;
   return name;
}

/* f->shown and f->aliases from Valgrind's name f->name and its others. */
static void set_names(pl_function *f, const HChar **others)
{
   UInt n = 0, k = 0;
   const HChar *shown = public_name(f->name, others);

   f->shown = f->name;
   f->aliases = NULL;
   if (!others)
      return;
   while (others[n])
      n++;
   f->aliases = VG_(malloc)("pl.fn.aliases", (n + 1) * sizeof *f->aliases);
   if (shown != f->name)
      f->aliases[k++] = f->name;
   for (UInt i = 0; i < n; i++) {
      /* a name in both .symtab and .dynsym comes twice */
      Bool seen = VG_(strcmp)(others[i], f->name) == 0;
      for (UInt j = 0; j < i && !seen; j++)
         seen = VG_(strcmp)(others[i], others[j]) == 0;
      if (seen)
         continue;
      HChar *copy = VG_(strdup)("pl.fn.alias", others[i]);
      if (others[i] == shown)
         f->shown = copy;
      else
         f->aliases[k++] = copy;
   }
   f->aliases[k] = NULL;
}

void pl_fn_add_handler(Addr a)
{
   if (pl_fn_is_handler(a) || n_handlers == MAX_HANDLERS)
      return;
   handlers[n_handlers++] = a;
}

Bool pl_fn_is_handler(Addr a)
{
   for (UInt i = 0; i < n_handlers; i++)
      if (handlers[i] == a)
         return True;
   return False;
}

UInt pl_fn_entry_id(Addr a)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const HChar *sym;
   const DebugInfo *di;
   HChar plt_name[48];

   HChar *name;
   if (VG_(get_fnname_if_entry)(ep, a, &sym)) {
      VG_(get_fnname_raw)(ep, a, &sym);
      /* 'sym' lives only until the next debuginfo query: copy it first. */
      name = VG_(strdup)("pl.fn.name", sym);
      di = VG_(find_DebugInfo)(ep, a);
   } else if (keep_plt && (di = plt_owner(a, plt_name, sizeof plt_name))) {
      name = VG_(strdup)("pl.fn.name", plt_name);
   } else if ((di = unwind_entry(a)) != NULL
              || (pl_fn_is_handler(a)
                  && (di = VG_(find_DebugInfo)(ep, a)) != NULL)) {
      name = unwind_name(di, a);
   } else {
      return 0;
   }
   const HChar *objname = di ? VG_(DebugInfo_get_filename)(di) : "???";
   UInt obj = object_id(objname);
   if (main_only && !objs[obj].is_main) {
      VG_(free)(name);
      return 0;
   }

   UInt id = slots_find(a);
   if (id && fns[id].obj == obj && VG_(strcmp)(fns[id].name, name) == 0) {
      VG_(free)(name);
      return id;
   }
   id = n_fns++;
   fns = grow(fns, &cap_fns, n_fns, sizeof *fns, "pl.fn.fns");
   pl_fn_flags = grow(pl_fn_flags, &cap_flags, n_fns, 1, "pl.fn.flags");
   pl_fn_trace_id = grow(pl_fn_trace_id, &cap_trace_ids, n_fns,
                         sizeof *pl_fn_trace_id, "pl.fn.traceids");
   fns[id].addr = a;
   fns[id].name = name;
   fns[id].obj = obj;
   set_names(&fns[id], di ? other_names(di, a, name) : NULL);
   UChar fl = classify(&fns[id], objname);
   pl_fn_flags[id] = fl | (pl_mpi_call_is(name, "abort") ? PL_FN_ENDS_JOB
                                                         : 0);
   pl_fn_trace_id[id] = fl & PL_FN_RECORD ? n_defined + 1 : 0;
   if (2 * (used_slots + 1) > n_slots)
      slots_grow();
   slots_insert(a, id);
   /* a function never recorded never appears in the stream */
   if (fl & PL_FN_RECORD) {
      queue_fn(id);
      n_defined++;
   }
   return id;
}

Bool pl_fn_is_entry(Addr a)
{
   const HChar *sym;
   HChar plt_name[48];
   Addr lo, hi;
   if (pl_fn_is_handler(a))
      return True;
   if (pl_fn_known_range(a, &lo, &hi))
      return False;
   return VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &sym)
          || (keep_plt && plt_owner(a, plt_name, sizeof plt_name))
          || unwind_entry(a);
}

UInt pl_fn_containing(Addr a)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   const DebugInfo *di;
   PtrdiffT off;
   Addr below, above;

   if (VG_(get_inst_offset_in_function)(ep, a, &off) && off >= 0)
      return pl_fn_entry_id(a - (Addr)off);
   if ((di = VG_(find_DebugInfo)(ep, a)) != NULL
       && pl_unwind_around(di, a, &below, &above) && below)
      return pl_fn_entry_id(below);
   return 0;
}

void pl_fn_flush_defs(void)
{
   if (pending_objs.len) {
      pl_out_table(PL_CHUNK_OBJECTS, pending_objs.data, pending_objs.len);
      pending_objs.len = 0;
   }
   if (pending_fns.len) {
      pl_out_table(PL_CHUNK_FUNCTIONS, pending_fns.data, pending_fns.len);
      pending_fns.len = 0;
   }
   if (pending_aliases.len) {
      pl_out_table(PL_CHUNK_ALIASES, pending_aliases.data,
                   pending_aliases.len);
      pending_aliases.len = 0;
   }
}

void pl_fn_requeue_all(void)
{
   pending_objs.len = 0;
   pending_fns.len = 0;
   pending_aliases.len = 0;
   for (UInt i = 1; i < n_objs; i++)
      queue_obj(i);
   pl_fn_flush_defs();
   for (UInt i = 1; i < n_fns; i++)
      if (pl_fn_flags[i] & PL_FN_RECORD)
         queue_fn(i);
}

UInt pl_fn_count(void) { return n_defined; }
