/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ParLoT for Valgrind: records every function entry and exit of every
   thread, compressed on the fly (see docs/manual.md).

   This file holds the tool's life cycle: options, instrumentation, thread,
   fork and exec events, and the summary at exit.  Tracing state lives in
   pl_threads.c, function identities in pl_functions.c (names for stripped
   code: pl_unwind.c), selective tracing in pl_control.c, how a process
   ended in pl_ending.c, its place in an MPI job in pl_mpi_info.c, which
   system calls may block in pl_syscalls.c, the file in pl_output.c, and
   the codec (shared with the decoder) in common/. */
#include "config.h"              /* VERSION of the Valgrind tree */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_vki.h"
#include "pub_tool_libcfile.h"

#include "pl_codec.h"
#include "pl_control.h"
#include "pl_costs.h"
#include "pl_times.h"
#include "pl_ending.h"
#include "pl_format.h"
#include "pl_output.h"
#include "pl_functions.h"
#include "pl_mpi_info.h"
#include "pl_syscalls.h"
#include "pl_threads.h"
#include "pl_worker.h"

#define PARLOT_VERSION "0.1"
#define DEFAULT_OUT_FILE "parlot.out.%p"

/* ---- options --------------------------------------------------------- */

static const HChar *clo_out_file = NULL;   /* NULL: the default name */
static Bool clo_images_main = False;
static Int  clo_codec = PL_CODEC_CCM;
static Bool clo_keep_plt = False;
static Int  clo_unwind_names = PL_UNWIND_MAIN;
static Int  clo_flush_ms = 1000;
static Bool clo_flush_on_block = True;
static pl_buf tool_options;                /* as given, for the trace */

static Bool pl_process_cmd_line_option(const HChar *arg)
{
   const HChar *images, *codec, *unwind;
   Bool compress, pack;

   if VG_STR_CLO(arg, "--parlot-out-file", clo_out_file) {}
   else if VG_STR_CLO(arg, "--images", images) {
      if (VG_(strcmp)(images, "all") == 0)
         clo_images_main = False;
      else if (VG_(strcmp)(images, "main") == 0)
         clo_images_main = True;
      else
         VG_(fmsg_bad_option)(arg, "--images takes 'all' or 'main'\n");
   }
   else if VG_STR_CLO(arg, "--codec", codec) {
      if (VG_(strcmp)(codec, "ccm") == 0)
         clo_codec = PL_CODEC_CCM;
      else if (VG_(strcmp)(codec, "lzrc") == 0)
         clo_codec = PL_CODEC_LZRC;
      else if (VG_(strcmp)(codec, "lzze") == 0)
         clo_codec = PL_CODEC_LZZE;
      else if (VG_(strcmp)(codec, "raw") == 0)
         clo_codec = PL_CODEC_RAW;
      else
         VG_(fmsg_bad_option)(arg,
                              "--codec takes 'ccm', 'lzrc', 'lzze' or 'raw'\n");
   }
   else if VG_BOOL_CLO(arg, "--compress", compress)
      clo_codec = compress ? PL_CODEC_CCM : PL_CODEC_RAW;
   else if VG_BOOL_CLO(arg, "--keep-plt", clo_keep_plt) {}
   else if VG_STR_CLO(arg, "--unwind-names", unwind) {
      if (VG_(strcmp)(unwind, "main") == 0)
         clo_unwind_names = PL_UNWIND_MAIN;
      else if (VG_(strcmp)(unwind, "all") == 0)
         clo_unwind_names = PL_UNWIND_ALL;
      else if (VG_(strcmp)(unwind, "no") == 0)
         clo_unwind_names = PL_UNWIND_NO;
      else
         VG_(fmsg_bad_option)(arg, "--unwind-names takes 'main', 'all' or "
                              "'no'\n");
   }
   else if VG_BOOL_CLO(arg, "--pack-tables", pack)
      pl_out_set_pack_tables(pack);
   else if VG_BINT_CLO(arg, "--flush-interval", clo_flush_ms, 0, 3600000) {}
   else if VG_BOOL_CLO(arg, "--flush-on-block", clo_flush_on_block) {}
   else if VG_BOOL_CLO(arg, "--collect-insns", pl_collect_insns) {}
   else if VG_BOOL_CLO(arg, "--collect-time", pl_collect_time) {}
   else if VG_BOOL_CLO(arg, "--encoder-thread", pl_worker_wanted) {}
   else if (!pl_control_option(arg))
      return False;

   if (tool_options.len)
      tool_options.data[tool_options.len - 1] = ' ';
   pl_buf_str(&tool_options, arg);
   return True;
}

static void pl_print_usage(void)
{
   VG_(printf)(
"    --parlot-out-file=<file>  trace file name [parlot.out.%%p]; %%p and\n"
"                              %%q{VAR} are expanded; the default name never\n"
"                              overwrites: .1, .2, ... are appended instead\n"
"    --images=all|main         trace every object or only the main\n"
"                              executable [all]\n"
"    --codec=ccm|lzrc|lzze|raw stream codec: call-context model + range\n"
"                              coder, LZ + range coder, LZ + zero\n"
"                              elimination, or raw 16-bit words [ccm]\n"
"    --compress=yes|no         same as --codec=ccm or --codec=raw [yes]\n"
"    --pack-tables=yes|no      compress the object and function tables\n"
"                              (trace format 2.12); no writes format 1.13,\n"
"                              which older decoders read [yes]\n"
"    --keep-plt=no|yes         trace PLT stubs as functions of their own [no]\n"
"    --unwind-names=main|all|no  name functions no symbol names (stripped\n"
"                              programs) from the object's unwind table,\n"
"                              as OBJECT+0xADDRESS: in the main executable,\n"
"                              every object, or none [main]\n"
"    --flush-interval=<ms>     write completed stream data at least this\n"
"                              often, 0 = only when buffers fill [1000]\n"
"    --flush-on-block=yes|no   write the threads' stream data when the last\n"
"                              running thread starts a wait without a time\n"
"                              limit (a hung run killed with SIGKILL then\n"
"                              shows where each thread waits) [yes]\n"
"    --collect-insns=no|yes    record with each event the instructions the\n"
"                              thread executed since its previous event\n"
"                              (Callgrind's Ir; COSTS chunks) [no]\n"
"    --collect-time=no|yes     record wall-clock stamps of each thread:\n"
"                              every 65536 events, around system calls that\n"
"                              may block, at thread switches (TIMES\n"
"                              chunks) [no]\n"
"    --encoder-thread=yes|no   code the events on a thread of the tool's\n"
"                              own, which runs while the client does: on a\n"
"                              second core, the client waits less (amd64\n"
"                              Linux; same trace) [yes]\n"
   );
   pl_control_usage();
}

static void pl_print_debug_usage(void)
{
   VG_(printf)("    (none)\n");
}

/* ---- threads ---------------------------------------------------------- */

/* Whether the periodic flush reads the clock now.  The clock is a system
   call in Valgrind's code (no vDSO), and client code starts after every
   translation and system call: 33,000 times in the first second of an
   MPI rank.  So the clock is read once FLUSH_CHECK_BLOCKS blocks ran since
   it last was (the scheduler's time slice is 100,000), or after
   FLUSH_CHECK_STARTS starts of few blocks each (a loop of system calls).
   Only client code makes events, so a flush waits at most that long. */
#define FLUSH_CHECK_BLOCKS 20000
#define FLUSH_CHECK_STARTS 256

static Bool flush_check_due(ULong blocks_done)
{
   static ULong checked_at;
   static UInt  starts;
   if (blocks_done - checked_at < FLUSH_CHECK_BLOCKS
       && ++starts < FLUSH_CHECK_STARTS)
      return False;
   checked_at = blocks_done;
   starts = 0;
   return True;
}

/* --collect-time: blocks between two stamps of a running thread at the
   starts of its client code (the scheduler's time slice is 100,000), the
   least time between two such stamps, and between two stamps where code
   is translated. */
#define STAMP_BLOCKS 20000
#define RUN_STAMP_NS 5000000
#define TRANSLATION_STAMP_NS 1000000

static UInt last_flush_ms;      /* of the periodic flush */

/* The periodic flush: every thread's events, if none were written for
   --flush-interval. */
static void flush_if_interval_passed(void)
{
   UInt now = VG_(read_millisecond_timer)();
   if (now - last_flush_ms >= (UInt)clo_flush_ms) {
      last_flush_ms = now;
      pl_sync_all_threads();
   }
}

static void pl_start_client_code(ThreadId tid, ULong blocks_done)
{
   static ULong stamped_at;
   pl_thread *t = pl_thread_of(tid);
   if (t == NULL) {                      /* the initial thread */
      t = pl_thread_new(tid, 0);
      pl_thread_set(tid, t);
   }
   if (t->lwp == 0)
      t->lwp = VG_(gettid)();
   if (pl_cur != t) {     /* each thread its own last jump and count */
      if (pl_cur) {
         pl_cur->jump_sp = pl_jump_sp;
         pl_thread_stamp(pl_cur);    /* it stops here ... */
      }
      pl_jump_sp = t->jump_sp;
      pl_costs_switch(pl_cur ? pl_cur->costs : NULL, t->costs);
      pl_thread_stamp(t);            /* ... and this one goes on */
   }
   pl_cur = t;
   /* a thread that runs long without events or system calls (a compute
      loop) still gets a stamp every STAMP_BLOCKS blocks */
   if (pl_collect_time && blocks_done - stamped_at >= STAMP_BLOCKS) {
      stamped_at = blocks_done;
      pl_times_stamp_due(t->times, t->number, pl_thread_events(t),
                         RUN_STAMP_NS);
   }

   if (clo_flush_ms > 0 && flush_check_due(blocks_done))
      flush_if_interval_passed();
}

static void pl_thread_created(ThreadId parent, ThreadId child)
{
   pl_thread *p = pl_thread_of(parent);
   pl_thread *old = pl_thread_of(child);
   if (old) {                            /* defensive: slot not released */
      pl_thread_end(old, PL_END_THREAD_EXIT);
      pl_thread_free(old);
   }
   pl_thread_set(child, pl_thread_new(child, p ? p->number : 0));
}

static void pl_thread_first_insn(ThreadId tid)
{
   pl_thread *t = pl_thread_of(tid);
   if (t)
      t->lwp = VG_(gettid)();
}

/* The thread a fatal signal killed, by number: Valgrind ends every
   thread, the last one too, before tool_fini. */
static UInt signal_thread;

static void pl_thread_exited(ThreadId tid)
{
   pl_thread *t = pl_thread_of(tid);
   Bool took_signal;
   if (!t)
      return;
   UInt reason = pl_ending_of_thread(tid, &took_signal);
   if (took_signal)
      signal_thread = t->number;
   pl_thread_end(t, reason);
   pl_thread_free(t);
   pl_thread_set(tid, NULL);
   /* The last running thread leaves while the others wait.  A wait writes
      only when nothing else runs, so those whose waits began while this
      one still ran have not written (a hang): write them now. */
   if (reason == PL_END_THREAD_EXIT && clo_flush_on_block
       && !pl_other_thread_running(NULL))
      pl_sync_all_threads();
}

/* A handler's frames live on the alternate stack, or below the SP it
   interrupted (minus the red zone and the signal frame). */
static void pl_pre_deliver_signal(ThreadId tid, Int sigNo, Bool alt_stack)
{
   pl_thread *t = pl_thread_of(tid);
   if (!t)
      return;
   if (alt_stack) {
      Addr lo = VG_(thread_get_altstack_min)(tid);
      pl_thread_signal_enter(t, lo, lo + VG_(thread_get_altstack_size)(tid));
   } else {
      pl_thread_signal_enter(t, 0, VG_(get_SP)(tid));
   }
}

static void pl_post_deliver_signal(ThreadId tid, Int sigNo)
{
   pl_thread *t = pl_thread_of(tid);
   if (t)
      pl_thread_signal_return(t);
}

/* ---- the trace file ---------------------------------------------------- */

static void write_process_info(Int forked_from)
{
   pl_buf b = { 0 };
   HChar key[32];
   UInt nargs = VG_(sizeXA)(VG_(args_for_client));

   pl_buf_kv_num(&b, "pid", VG_(getpid)());
   pl_buf_kv_num(&b, "ppid", VG_(getppid)());
   if (forked_from)
      pl_buf_kv_num(&b, "forked_from_pid", forked_from);
   pl_buf_kv(&b, "exe", VG_(args_the_exename) ? VG_(args_the_exename) : "");
   pl_buf_kv_num(&b, "argc", nargs + 1);
   pl_buf_kv(&b, "arg0", VG_(args_the_exename) ? VG_(args_the_exename) : "");
   for (UInt i = 0; i < nargs; i++) {
      VG_(sprintf)(key, "arg%u", i + 1);
      pl_buf_kv(&b, key, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
   }
   pl_buf_kv(&b, "valgrind_version", VERSION);
   pl_buf_kv(&b, "parlot_version", PARLOT_VERSION);
   pl_buf_kv(&b, "tool_options", tool_options.len ?
                                 (HChar *)tool_options.data : "");
   pl_buf_kv(&b, "images", clo_images_main ? "main" : "all");
   pl_buf_kv(&b, "codec", pl_codec_name(clo_codec));
   if (pl_collect_insns)
      pl_buf_kv(&b, "costs", "insns");
   if (pl_collect_time)
      pl_buf_kv(&b, "times", "realtime");
   pl_buf_kv_num(&b, "trace_seq", pl_out_seq());
   pl_control_describe(&b);
   pl_mpi_describe(&b);
   pl_out_chunk(PL_CHUNK_PROCESS, 0, b.data, b.len);
   pl_buf_free(&b);
}

/* PROCESS_END: the last chunk of a process that did not exec.
   killed: the number of the thread the fatal signal killed, 0 unknown. */
static void write_process_end(const pl_ending *e, UInt killed)
{
   pl_buf b = { 0 };
   pl_fn_flush_defs();
   if (e->by_signal) {
      pl_buf_kv(&b, "ending", "signal");
      pl_buf_kv_num(&b, "signal", (ULong)e->signo);
      pl_buf_kv(&b, "signal_name", e->signame);
      if (killed)
         pl_buf_kv_num(&b, "signal_thread", killed);
   } else {
      pl_buf_kv(&b, "ending", "exit");
      pl_buf_kv_num(&b, "exit_status", (ULong)e->status);
   }
   pl_buf_kv_num(&b, "threads", pl_total.threads);
   pl_buf_kv_num(&b, "functions", pl_fn_count());
   pl_buf_kv_num(&b, "events", pl_total.events);
   pl_control_describe_end(&b);
   pl_out_chunk(PL_CHUNK_PROCESS_END, 0, b.data, b.len);
   pl_buf_free(&b);
}

/* A forked child never replaces a file: with a fixed name, the parent is
   still writing it. */
static void open_trace(Int forked_from)
{
   const HChar *fmt = clo_out_file ? clo_out_file : DEFAULT_OUT_FILE;
   HChar *name = VG_(expand_file_name)("--parlot-out-file", fmt);
   /* the program is not started if its trace cannot be; a forked child
      (the program's own doing) runs on untraced */
   pl_out_open(name, clo_out_file == NULL || forked_from != 0,
               forked_from == 0);
   VG_(free)(name);
   write_process_info(forked_from);
}

/* ---- fork and exec --------------------------------------------------- */

static void pl_fork_prepare(ThreadId tid)
{
   pl_threads_before_fork();
}

/* In the child: the parent's file and other threads are not ours.  The
   forking thread continues in a new trace whose stream first re-creates
   the call stack inherited from the parent. */
static void pl_fork_child(ThreadId tid)
{
   Int parent_pid = VG_(getppid)();
   pl_threads_forked_child();
   pl_out_abandon();
   pl_threads_new_process();
   for (UInt i = 0; i < pl_thread_slots(); i++)
      if (pl_thread_at(i) && i != tid) {
         pl_thread_free(pl_thread_at(i));
         pl_thread_set(i, NULL);
      }
   open_trace(parent_pid);
   pl_fn_requeue_all();
   pl_thread *t = pl_thread_of(tid);
   if (t) {
      t->lwp = VG_(gettid)();
      t->parent = 0;
      if (!pl_instrumenting)
         pl_thread_reconcile(t);
      pl_thread_restart(t);
      pl_cur = t;
   }
}

static Bool is_exec(UInt sysno)
{
#if defined(__NR_execveat)
   if (sysno == __NR_execveat)
      return True;
#endif
   return sysno == __NR_execve;
}

/* Whether to write a thread's events before a call that may block, so
   that a process killed with SIGKILL while it hangs still leaves them.
   While any thread runs client code, the periodic flush writes every
   thread's events at least each --flush-interval, the waiting threads'
   too; only the last thread to stop running must write them all itself
   (a deadlock, every rank's thread in a blocking receive).  A wait that
   ends by itself within the interval (a short sleep or poll) counts as
   running.  Besides, a wait writes every thread's events if nothing did
   for an interval: the periodic flush looks at the clock only every so
   many blocks or thread starts, which a thread that mostly sleeps in
   short polls (a progress loop while the others hang) seldom reaches.
   So a loop of short sleeps (PMIx sleeps 100 us some 1,000 times in
   MPI_Init) or a helper thread woken often (a progress thread's
   epoll_wait) makes a chunk per thread per interval, not one per wait,
   and a process killed with SIGKILL loses at most what a running one
   does: the last interval's events.  Without a periodic flush
   (--flush-interval=0), every wait writes its own thread's events. */
static Bool flush_before_wait(pl_thread *t, UInt sysno, const UWord *args)
{
   if (!clo_flush_on_block)
      return False;
   if (clo_flush_ms == 0)
      return True;
   Long limit = pl_syscall_wait_limit_ms(sysno, args);
   if (limit < 0 || limit >= clo_flush_ms) {
      t->in_wait = True;
      if (!pl_other_thread_running(t)) {
         pl_sync_all_threads();
         return False;
      }
   }
   flush_if_interval_passed();
   return False;
}

/* rt_sigaction's new action (act, a client pointer; 0: none): its
   handler is a function, whatever the symbols say (pl_fn_add_handler),
   unless it is SIG_DFL or SIG_IGN. */
static void note_handler(Addr act)
{
   const vki_sigaction_toK_t *sa = (const vki_sigaction_toK_t *)act;
   Addr h;
   if (!act || !VG_(am_is_valid_for_client)(act, sizeof *sa, VKI_PROT_READ))
      return;
   h = (Addr)sa->ksa_handler;
   if (h != (Addr)VKI_SIG_DFL && h != (Addr)VKI_SIG_IGN)
      pl_fn_add_handler(h);
}

/* Before a call that may block, put the thread's events in the file.
   Before exec, put every event so far in the file: if the exec succeeds,
   nothing of this process image runs again.  If it fails (execvp tries
   each directory of PATH), the streams simply go on. */
static void pl_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs)
{
   if (sysno == __NR_rt_sigaction) {
      note_handler(args[1]);
      return;
   }
   if (pl_collect_time
       && (sysno == __NR_exit || sysno == __NR_exit_group)) {
      pl_thread *t = pl_thread_of(tid);   /* its own code ends here, what */
      if (t)                              /* exiting costs Valgrind aside */
         pl_thread_stamp(t);
      return;
   }
   if (pl_syscall_may_block(sysno, args)) {
      pl_thread *t = pl_thread_of(tid);
      if (t)
         pl_thread_stamp(t);       /* the wait starts */
      if (t && flush_before_wait(t, sysno, args))
         pl_thread_sync(t);
      return;
   }
   if (!is_exec(sysno))
      return;
   HChar path[4096];
   /* the exec'd program's path, "" if the pointer is bad */
   pl_client_string(sysno == __NR_execve ? args[0] : args[1], path,
                    sizeof path);
   pl_sync_all_threads();
   pl_fn_flush_defs();
   pl_buf b = { 0 };
   pl_buf_kv(&b, "path", path);
   pl_out_chunk(PL_CHUNK_EXEC, 0, b.data, b.len);
   pl_buf_free(&b);
}

/* After a call that may have blocked: when the wait ended. */
static void pl_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nArgs,
                            SysRes res)
{
   pl_thread *t = pl_thread_of(tid);
   if (t == NULL)
      return;
   t->in_wait = False;
   if (pl_collect_time && pl_syscall_may_block(sysno, args))
      pl_thread_stamp(t);
}

/* ---- instrumentation --------------------------------------------------- */

static IRTemp read_sp(IRSB *sb, const VexGuestLayout *layout, IRType ty)
{
   IRTemp t = newIRTemp(sb->tyenv, ty);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Get(layout->offset_SP, ty)));
   return t;
}

static void add_entry_call(IRSB *sb, const VexGuestLayout *layout,
                           IRType ty, UInt fn)
{
   IRTemp sp = read_sp(sb, layout, ty);
   IRDirty *d = unsafeIRDirty_0_N(2, "pl_on_entry",
                                  VG_(fnptr_to_fnentry)(&pl_on_entry),
                                  mkIRExprVec_2(mkIRExpr_HWord(fn),
                                                IRExpr_RdTmp(sp)));
   addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* After the entry of MPI_Abort (PL_FN_ENDS_JOB): the launcher kills every
   rank, this one too, with SIGKILL once it hears of the abort (MPICH's
   does, within a second), and what the periodic flush has not written
   yet would be lost, where the job was ended first.  So every thread's
   events go to the file then. */
static void add_job_abort_call(IRSB *sb)
{
   IRDirty *d = unsafeIRDirty_0_N(0, "pl_sync_all_threads",
                                  VG_(fnptr_to_fnentry)(&pl_sync_all_threads),
                                  mkIRExprVec_0());
   addStmtToIRSB(sb, IRStmt_Dirty(d));
}

static void add_return_call(IRSB *sb, const VexGuestLayout *layout, IRType ty)
{
   IRTemp sp = read_sp(sb, layout, ty);
   IRDirty *d = unsafeIRDirty_0_N(1, "pl_on_return",
                                  VG_(fnptr_to_fnentry)(&pl_on_return),
                                  mkIRExprVec_1(IRExpr_RdTmp(sp)));
   addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* Whether the block sets SP to a value not made from SP by an addition or
   a subtraction: from another register or memory, as longjmp and a C++
   exception's jump to its landing pad do.  Such a block ending in a
   computed jump gets the return call: every frame entered below the new
   SP has ended, and ends there, so that the code after the landing (a
   cleanup pad's destructor calls, a catch block, the code after setjmp)
   is in the landing frame, not in the one that threw until the thread's
   next event.  (`leave` and stack alignment are taken too; they end no
   frame.) */
static Bool sets_sp_from_elsewhere(const IRSB *sb,
                                   const VexGuestLayout *layout)
{
   Bool switched = False;
   Bool *from_sp = VG_(calloc)("pl.sp_temps", sb->tyenv->types_used + 1,
                               sizeof *from_sp);
   for (Int i = 0; i < sb->stmts_used; i++) {
      const IRStmt *st = sb->stmts[i];
      if (st->tag == Ist_WrTmp) {
         const IRExpr *e = st->Ist.WrTmp.data;
         Bool v = False;
         if (e->tag == Iex_Get)
            v = e->Iex.Get.offset == layout->offset_SP;
         else if (e->tag == Iex_RdTmp)
            v = from_sp[e->Iex.RdTmp.tmp];
         else if (e->tag == Iex_Binop
                  && (e->Iex.Binop.op == Iop_Add64
                      || e->Iex.Binop.op == Iop_Sub64
                      || e->Iex.Binop.op == Iop_Add32
                      || e->Iex.Binop.op == Iop_Sub32)
                  && e->Iex.Binop.arg1->tag == Iex_RdTmp)
            v = from_sp[e->Iex.Binop.arg1->Iex.RdTmp.tmp];
         from_sp[st->Ist.WrTmp.tmp] = v;
      } else if (st->tag == Ist_Put && st->Ist.Put.offset == layout->offset_SP
                 && (st->Ist.Put.data->tag != Iex_RdTmp
                     || !from_sp[st->Ist.Put.data->Iex.RdTmp.tmp])) {
         switched = True;
      }
   }
   VG_(free)(from_sp);
   return switched;
}

/* pl_jump_sp = SP: this jump may reach a function's entry (a tail call if
   that function is entered at the SP of the frame on top). */
static void add_jump_note(IRSB *sb, const VexGuestLayout *layout, IRType ty)
{
   IRTemp sp = read_sp(sb, layout, ty);
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&pl_jump_sp),
                                  IRExpr_RdTmp(sp)));
}

/* Whether a jump to the constant dst enters a function. */
static Bool enters_function(const IRConst *dst)
{
   return pl_fn_is_entry(dst->tag == Ico_U64 ? (Addr)dst->Ico.U64
                                             : (Addr)dst->Ico.U32);
}

/* An entry call goes right after the IMark of a function's first
   instruction, so that it sees the SP at entry.  With no chasing
   (pl_pre_clo_init), a call or a jump to a function starts a block; how
   the block was reached tells a call from a tail call: jumps that may
   enter a function note their SP (add_jump_note) for the entry to
   compare.  An entry inside a block was reached by falling through from
   the code before it, or is the copy of a loop's head that unrolling
   made: as by a jump.  A block ending in a return gets a return call at
   its very end, after the ret's own SP update, reached only when the ret
   itself executes. */
static IRSB *pl_instrument(VgCallbackClosure *closure, IRSB *sb_in,
                           const VexGuestLayout *layout,
                           const VexGuestExtents *vge,
                           const VexArchInfo *archinfo_host,
                           IRType gWordTy, IRType hWordTy)
{
   Bool first_insn = True;
   /* where no function starts around the last instruction looked up (its
      symbol, or the gap between two): the instructions strictly inside
      need no look-up (a superblock rarely leaves the function it starts
      in, and a look-up searches every object) */
   Addr sym_lo = 0, sym_hi = 0;

   if (gWordTy != hWordTy)
      VG_(tool_panic)("host/guest word size mismatch");
   if (!pl_instrumenting)          /* nothing records: as --tool=none */
      return sb_in;
   if (pl_collect_time && pl_cur && pl_cur->times)
      pl_times_stamp_due(pl_cur->times, pl_cur->number,
                         pl_thread_events(pl_cur), TRANSLATION_STAMP_NS);

   /* --collect-insns: instructions not yet added to pl_insns */
   UInt uncounted = 0;
   IRSB *sb = deepCopyIRSBExceptStmts(sb_in);
   for (Int i = 0; i < sb_in->stmts_used; i++) {
      IRStmt *st = sb_in->stmts[i];
      if (st->tag == Ist_Exit && pl_collect_insns) {
         pl_costs_add_insns(sb, uncounted);
         uncounted = 0;
      }
      if (st->tag == Ist_Exit && st->Ist.Exit.jk == Ijk_Boring
          && enters_function(st->Ist.Exit.dst))
         add_jump_note(sb, layout, gWordTy);
      addStmtToIRSB(sb, st);
      if (st->tag != Ist_IMark)
         continue;
      Addr a = (Addr)st->Ist.IMark.addr;
      UInt fn = 0;
      if (pl_fn_is_handler(a)) {          /* may lie in a symbol's gap */
         fn = pl_fn_entry_id(a);
      } else if (!(a > sym_lo && a < sym_hi)
                 && !pl_fn_known_range(a, &sym_lo, &sym_hi)) {
         fn = pl_fn_entry_id(a);
         if (!pl_fn_range(a, &sym_lo, &sym_hi))
            sym_lo = sym_hi = 0;
      }
      if (fn && pl_collect_insns) {    /* what ran before is the caller's */
         pl_costs_add_insns(sb, uncounted);
         uncounted = 0;
      }
      uncounted++;
      if (fn) {
         if (!first_insn)              /* a fall-through or a loop */
            add_jump_note(sb, layout, gWordTy);
         add_entry_call(sb, layout, gWordTy, fn);
         if (pl_fn_flags[fn] & PL_FN_ENDS_JOB)
            add_job_abort_call(sb);
      }
      first_insn = False;
   }
   if (pl_collect_insns)               /* the ret is the callee's */
      pl_costs_add_insns(sb, uncounted);
   if (sb_in->jumpkind == Ijk_Ret
       || (sb_in->jumpkind == Ijk_Boring && sb_in->next->tag != Iex_Const
           && sets_sp_from_elsewhere(sb_in, layout)))
      add_return_call(sb, layout, gWordTy);
   if (sb_in->jumpkind == Ijk_Boring
       && (sb_in->next->tag != Iex_Const                /* computed */
           || enters_function(sb_in->next->Iex.Const.con)))
      add_jump_note(sb, layout, gWordTy);
   return sb;
}

/* ---- start and end --------------------------------------------------- */

static void pl_post_clo_init(void)
{
   /* Chased blocks would read a stale SP at a function entry reached by a
      jump (pl_pre_clo_init): the trace must not depend on the option. */
   if (VG_(clo_vex_control).guest_chase) {
      VG_(umsg)("ParLoT: --vex-guest-chase=yes ignored: a tail call inside a "
                "chased block cannot be told from a return and a call\n");
      VG_(clo_vex_control).guest_chase = False;
   }
   /* Loop unrolling stays on with --collect-insns, unlike Callgrind's:
      VEX unrolls before the tool instruments, each copy of the body
      ends in its own exit from the loop, and the instructions are
      counted before every exit, so only instructions that ran are. */
   pl_collecting = pl_collect_insns || pl_collect_time;
   pl_control_post_clo();
   pl_fn_init(clo_images_main, clo_keep_plt, clo_unwind_names);
   pl_threads_init(clo_codec);
   open_trace(0);
}

/* Valgrind gives every ending exit code 0: pl_ending reads the real one. */
static void pl_fini(Int exitcode_always_0)
{
   pl_ending e;

   pl_ending_of_process(&e);
   for (UInt i = 0; i < pl_thread_slots(); i++)
      if (pl_thread_at(i)) {
         pl_thread_end(pl_thread_at(i), e.by_signal ? PL_END_SIGNAL
                                                    : PL_END_PROCESS_EXIT);
         pl_thread_free(pl_thread_at(i));
         pl_thread_set(i, NULL);
      }
   write_process_end(&e, e.by_signal ? signal_thread : 0);
   pl_out_close();

   if (VG_(clo_verbosity) == 0)
      return;
   ULong raw = 2 * pl_total.words;
   ULong streams = pl_total.encoded_bytes;
   VG_(umsg)("ParLoT: trace file %s%s\n", pl_out_name(),
             pl_out_not_created() ? " (NOT WRITTEN: it could not be created)"
             : pl_out_failed() ? " (INCOMPLETE: a write failed)" : "");
   VG_(umsg)("ParLoT: threads %'llu, functions %'u, events %'llu\n",
             pl_total.threads, pl_fn_count(), pl_total.events);
   VG_(umsg)("ParLoT: bytes written %'llu (streams %'llu), uncompressed "
             "streams %'llu, ratio %llu.%01llu\n", pl_out_bytes(), streams,
             raw, streams ? raw / streams : 0,
             streams ? (10 * raw / streams) % 10 : 0);
   if (VG_(clo_stats)) {
      pl_worker_figures f;
      pl_worker_stats(&f);
      VG_(umsg)("ParLoT: coding jobs (a part's events, or its costs) run "
                "on the encoder thread %'llu, on the client side instead "
                "of waiting %'llu; waits for a job %'llu (%'llu ms)\n",
                f.ran_there, f.ran_here, f.waits, f.wait_ms);
      if (f.running_ms)
         VG_(umsg)("ParLoT: the encoder thread waited for work %'llu ms of "
                   "%'llu ms\n", f.idle_ms, f.running_ms);
   }
}

static void pl_pre_clo_init(void)
{
   VG_(details_name)            ("ParLoT");
   VG_(details_version)         (PARLOT_VERSION);
   VG_(details_description)     ("whole-program call and return tracing");
   VG_(details_copyright_author)(
      "Copyright (C) 2026, the ParLoT for Valgrind authors.");
   VG_(details_bug_reports_to)  ("the ParLoT for Valgrind issue tracker");
   VG_(details_avg_translation_sizeB)(300);
   /* No chasing: a block then starts at every function entry reached by a
      call or a jump, where SP is exact.  Inside a chased block, VEX's first
      optimisation drops an SP update that the next instruction overwrites
      (an epilogue's last pop before `jmp f`, f's first push), so f's entry
      would read the SP from before the pop: f's frame would be too low, and
      its own tail call would look like a return and a call.  Programs
      with much code run faster too (fewer, smaller translations: cc1
      23 %, python 15 %, bench/README.md). */
   VG_(clo_vex_control).guest_chase = False;

   VG_(basic_tool_funcs)        (pl_post_clo_init, pl_instrument, pl_fini);
   VG_(needs_command_line_options)(pl_process_cmd_line_option,
                                   pl_print_usage, pl_print_debug_usage);
   VG_(needs_syscall_wrapper)   (pl_pre_syscall, pl_post_syscall);
   VG_(needs_client_requests)   (pl_control_client_request);

   VG_(track_start_client_code) (pl_start_client_code);
   VG_(track_pre_thread_ll_create)(pl_thread_created);
   VG_(track_pre_thread_first_insn)(pl_thread_first_insn);
   VG_(track_pre_thread_ll_exit)(pl_thread_exited);
   VG_(track_pre_deliver_signal)(pl_pre_deliver_signal);
   VG_(track_post_deliver_signal)(pl_post_deliver_signal);
   VG_(atfork)(pl_fork_prepare, NULL, pl_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pl_pre_clo_init)
