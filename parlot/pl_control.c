/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selective tracing: which calls are recorded, and when.

   Command line: --trace-at-start, --toggle-trace, --only, --hide,
   --only-object, --hide-object, --max-depth.  In the program: the client
   requests of <valgrind/parlot.h>.  The shadow stack always holds every
   call (stack correction needs them all); these rules only decide which
   entries and exits go into the stream (pl_threads.c). */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_gdbserver.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vki.h"

#include "pl_control.h"
#include "pl_functions.h"
#include "pl_output.h"
#include "pl_threads.h"
#include "parlot.h"

#define MAX_LABEL 255

static Bool clo_trace_at_start = True;
static UWord clo_max_depth;
static pl_fn_patterns pats;
static Bool process_on;           /* the process-wide state */
static UInt explicit_changes;     /* start/stop requests so far */

/* Add pattern val of option opt (arg as given) to v; other, of the
   option that says the opposite (--only / --hide), must not hold it. */
static void add_pattern(const HChar *arg, const HChar *opt, const HChar *val,
                        const HChar ***v, UInt *n, const HChar **other,
                        UInt n_other, const HChar *other_opt)
{
   if (*val == '\0')
      VG_(fmsg_bad_option)(arg, "%s wants a pattern ('*' and '?' are "
                           "wildcards), not an empty string\n", opt);
   for (UInt i = 0; i < n_other; i++)
      if (VG_(strcmp)(other[i], val) == 0)
         VG_(fmsg_bad_option)(arg, "%s=%s was given too: they contradict "
                              "each other\n", other_opt, val);
   *v = VG_(realloc)("pl.control.pats", *v, (*n + 1) * sizeof **v);
   (*v)[(*n)++] = VG_(strdup)("pl.control.pat", val);
}

Bool pl_control_option(const HChar *arg)
{
   const HChar *pat = NULL;
   Long depth;

   if VG_BOOL_CLO(arg, "--trace-at-start", clo_trace_at_start) {}
   else if VG_STR_CLO(arg, "--toggle-trace", pat)
      add_pattern(arg, "--toggle-trace", pat, &pats.toggle, &pats.n_toggle,
                  NULL, 0, NULL);
   else if VG_STR_CLO(arg, "--only", pat)
      add_pattern(arg, "--only", pat, &pats.only, &pats.n_only,
                  pats.hide, pats.n_hide, "--hide");
   else if VG_STR_CLO(arg, "--hide", pat)
      add_pattern(arg, "--hide", pat, &pats.hide, &pats.n_hide,
                  pats.only, pats.n_only, "--only");
   else if VG_STR_CLO(arg, "--only-object", pat)
      add_pattern(arg, "--only-object", pat, &pats.only_obj,
                  &pats.n_only_obj, pats.hide_obj, pats.n_hide_obj,
                  "--hide-object");
   else if VG_STR_CLO(arg, "--hide-object", pat)
      add_pattern(arg, "--hide-object", pat, &pats.hide_obj,
                  &pats.n_hide_obj, pats.only_obj, pats.n_only_obj,
                  "--only-object");
   else if VG_BINT_CLO(arg, "--max-depth", depth, 1, 1000000)
      clo_max_depth = (UWord)depth;
   else
      return False;
   return True;
}

void pl_control_usage(void)
{
   VG_(printf)(
"    --trace-at-start=yes|no   record from the start, or only after a\n"
"                              PARLOT_START_TRACE request [yes]\n"
"    --toggle-trace=<glob>     record a thread only while it is inside a\n"
"                              function matching <glob> (may be repeated)\n"
"    --only=<glob>             record only calls of functions matching\n"
"                              <glob> (may be repeated; any of a function's\n"
"                              names, e.g. PMPI_Send for MPI_Send)\n"
"    --hide=<glob>             never record calls of functions matching\n"
"                              <glob> (may be repeated)\n"
"    --only-object=<glob>      record only functions of objects whose path\n"
"                              or file name matches (may be repeated)\n"
"    --hide-object=<glob>      never record functions of such objects\n"
"    --max-depth=<n>           record at most <n> levels of recorded calls\n"
   );
}

/* Whether any thread may record: else nothing is instrumented. */
static Bool wants_instrumentation(void)
{
   if (pats.n_toggle || process_on)
      return True;
   for (UInt i = 0; i < pl_thread_slots(); i++)
      if (pl_thread_at(i) && pl_thread_at(i)->user_state > 0)
         return True;
   return False;
}

void pl_control_post_clo(void)
{
   if (pats.n_only || pats.n_hide || pats.n_only_obj || pats.n_hide_obj
       || pats.n_toggle)
      pl_fn_set_patterns(&pats);
   pl_max_depth = clo_max_depth;
   process_on = clo_trace_at_start;
   pl_instrumenting = wants_instrumentation();
   pl_selective = pats.n_only || pats.n_hide || pats.n_only_obj
                  || pats.n_hide_obj || pats.n_toggle || clo_max_depth
                  || !clo_trace_at_start;
}

static void describe_patterns(pl_buf *b, const HChar *key,
                              const HChar **v, UInt n)
{
   for (UInt i = 0; i < n; i++) {
      if (b->len)
         pl_buf_bytes(b, " ", 1);
      pl_buf_bytes(b, key, VG_(strlen)(key));
      pl_buf_bytes(b, "=", 1);
      pl_buf_bytes(b, v[i], VG_(strlen)(v[i]));
   }
}

void pl_control_describe(pl_buf *out)
{
   pl_buf b = { 0 };
   HChar num[32];

   if (!clo_trace_at_start)
      describe_patterns(&b, "trace-at-start", (const HChar *[]){ "no" }, 1);
   describe_patterns(&b, "toggle-trace", pats.toggle, pats.n_toggle);
   describe_patterns(&b, "only", pats.only, pats.n_only);
   describe_patterns(&b, "hide", pats.hide, pats.n_hide);
   describe_patterns(&b, "only-object", pats.only_obj, pats.n_only_obj);
   describe_patterns(&b, "hide-object", pats.hide_obj, pats.n_hide_obj);
   if (clo_max_depth) {
      const HChar *d = num;
      VG_(sprintf)(num, "%lu", clo_max_depth);
      describe_patterns(&b, "max-depth", &d, 1);
   }
   if (b.len) {
      pl_buf_bytes(&b, "", 1);
      pl_buf_kv(out, "recording", (const HChar *)b.data);
   }
   pl_buf_free(&b);
}

void pl_control_describe_end(pl_buf *out)
{
   pl_buf_kv_num(out, "recording_changes", explicit_changes);
}

Bool pl_thread_should_record(const pl_thread *t)
{
   Bool on = t->user_state ? t->user_state > 0 : process_on;
   return on && (pats.n_toggle == 0 || t->toggle_inside > 0);
}

/* Instrument or not, as the states now ask; when instrumentation comes
   back, every shadow stack is made the real stack again. */
static void set_instrumentation(void)
{
   Bool want = wants_instrumentation();
   if (want == pl_instrumenting)
      return;
   pl_instrumenting = want;
   VG_(discard_translations_safely)((Addr)0x1000, ~(SizeT)0xfff, "parlot");
   if (want)
      for (UInt i = 0; i < pl_thread_slots(); i++)
         if (pl_thread_at(i))
            pl_thread_reconcile(pl_thread_at(i));
}

static void process_set(Bool on)
{
   process_on = on;
   pl_threads_become_selective();
   explicit_changes++;
   for (UInt i = 0; i < pl_thread_slots(); i++)
      if (pl_thread_at(i))
         pl_thread_at(i)->user_state = 0;
   set_instrumentation();
   for (UInt i = 0; i < pl_thread_slots(); i++)
      if (pl_thread_at(i))
         pl_thread_update_recording(pl_thread_at(i), True);
}

static void thread_set(pl_thread *t, Int state)
{
   pl_threads_become_selective();
   explicit_changes++;
   t->user_state = state;
   set_instrumentation();
   pl_thread_update_recording(t, True);
}

Bool pl_client_string(Addr a, HChar *out, SizeT n)
{
   SizeT i = 0;
   while (i + 1 < n && VG_(am_is_valid_for_client)(a + i, 1, VKI_PROT_READ)
          && ((const HChar *)a)[i] != 0) {
      out[i] = ((const HChar *)a)[i];
      i++;
   }
   out[i] = 0;
   return a != 0 && (i + 1 == n
                     || VG_(am_is_valid_for_client)(a + i, 1, VKI_PROT_READ));
}

/* ---- vgdb monitor commands ---------------------------------------------- */

static void monitor_help(void)
{
   VG_(gdb_printf)(
"parlot monitor commands:\n"
"  parlot status        threads, their events and recording state\n"
"  parlot start|stop    every thread records / stops recording\n"
"  parlot mark LABEL    a mark LABEL in every thread's stream\n"
"  parlot flush         write every thread's events to the trace file\n");
}

static void monitor_status(void)
{
   UInt n = 0;
   VG_(gdb_printf)("trace file %s: %llu bytes written%s; recording %s%s\n",
                   pl_out_name(), pl_out_bytes(),
                   pl_out_failed() ? " (INCOMPLETE: a write failed)" : "",
                   process_on ? "on" : "off",
                   pl_instrumenting ? "" : " (no thread records: code runs "
                   "uninstrumented)");
   for (UInt i = 0; i < pl_thread_slots(); i++) {
      pl_thread *t = pl_thread_at(i);
      if (!t)
         continue;
      n++;
      VG_(gdb_printf)("thread %u (lwp %d): %llu events, %llu stream bytes, "
                      "depth %lu (%lu recorded), recording %s\n", t->number,
                      t->lwp, pl_thread_events(t),
                      (ULong)t->enc.out_total, t->depth,
                      pl_thread_recorded_depth(t),
                      t->active ? "on" : "off");
   }
   VG_(gdb_printf)("%u thread%s\n", n, n == 1 ? "" : "s");
}

/* "parlot ..." from vgdb (monitor command). */
static Bool monitor_command(const HChar *req)
{
   HChar s[VG_(strlen)(req) + 1], *save, *word;

   VG_(strcpy)(s, req);
   word = VG_(strtok_r)(s, " ", &save);
   switch (VG_(keyword_id)("help parlot", word, kwd_report_duplicated_matches)) {
   case 0:
      monitor_help();
      return True;
   case 1:
      break;
   default:
      return False;
   }
   word = VG_(strtok_r)(NULL, " ", &save);
   switch (VG_(keyword_id)("status start stop mark flush", word,
                           kwd_report_all)) {
   case 0:
      monitor_status();
      break;
   case 1:
      process_set(True);
      VG_(gdb_printf)("recording on\n");
      break;
   case 2:
      process_set(False);
      VG_(gdb_printf)("recording off\n");
      break;
   case 3: {
      /* the rest of the line is the label, blanks included */
      const HChar *label = save;
      while (*label == ' ')
         label++;
      if (!*label) {
         VG_(gdb_printf)("parlot mark wants a label\n");
         break;
      }
      for (UInt i = 0; i < pl_thread_slots(); i++)
         if (pl_thread_at(i))
            pl_thread_mark(pl_thread_at(i), label);
      VG_(gdb_printf)("marked\n");
      break;
   }
   case 4:
      pl_sync_all_threads();
      VG_(gdb_printf)("flushed\n");
      break;
   default:
      monitor_help();
      break;
   }
   return True;
}

Bool pl_control_client_request(ThreadId tid, UWord *args, UWord *ret)
{
   pl_thread *t;
   HChar label[MAX_LABEL + 1];

   if (args[0] == VG_USERREQ__GDB_MONITOR_COMMAND) {
      Bool handled = monitor_command((const HChar *)args[1]);
      *ret = handled;
      return handled;
   }
   if (!VG_IS_TOOL_USERREQ('P', 'L', args[0]))
      return False;
   t = pl_thread_of(tid);
   *ret = 0;
   switch (args[0]) {
   case VG_USERREQ__PARLOT_START_TRACE:
      process_set(True);
      break;
   case VG_USERREQ__PARLOT_STOP_TRACE:
      process_set(False);
      break;
   case VG_USERREQ__PARLOT_START_THREAD_TRACE:
      if (t)
         thread_set(t, 1);
      break;
   case VG_USERREQ__PARLOT_STOP_THREAD_TRACE:
      if (t)
         thread_set(t, -1);
      break;
   case VG_USERREQ__PARLOT_MARK:
      if (!pl_client_string(args[1], label, sizeof label)) {
         VG_(umsg)("ParLoT: PARLOT_MARK with an unreadable label at %#lx: "
                   "mark ignored\n", args[1]);
         break;
      }
      if (t)
         pl_thread_mark(t, label);
      break;
   case VG_USERREQ__PARLOT_FLUSH:
      pl_sync_all_threads();
      break;
   default:
      VG_(umsg)("ParLoT: unknown client request %#lx ignored (a newer "
                "<valgrind/parlot.h>?)\n", args[0]);
      return False;
   }
   return True;
}
