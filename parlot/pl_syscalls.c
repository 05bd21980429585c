/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The system calls that may block (pl_syscalls.h), for the flush before
   them. */
#include "pub_tool_basics.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "pl_syscalls.h"

#define PL_MSG_DONTWAIT 0x40        /* Linux's; the VKI headers lack it */

/* Whether reading fd can wait for another thread or process: not for a
   regular file or a block device (MPI_Init's hwloc reads hundreds of
   /sys files; syncing before each wrote most of a short MPI rank's
   trace as chunk headers). */
static Bool read_may_wait(UWord fd)
{
   struct vg_stat st;
   if (VG_(fstat)((Int)fd, &st) != 0)
      return True;                       /* let the call say what it is */
   return !VKI_S_ISREG(st.mode) && !VKI_S_ISBLK(st.mode);
}

Bool pl_syscall_may_block(UInt sysno, const UWord *args)
{
   switch (sysno) {
   case __NR_futex: {
      UWord op = args[1] & 0x7f;     /* without FUTEX_PRIVATE_FLAG and
                                        FUTEX_CLOCK_REALTIME */
      return op == 0 /* WAIT */ || op == 6 /* LOCK_PI */
             || op == 9 /* WAIT_BITSET */ || op == 11 /* WAIT_REQUEUE_PI */
             || op == 13 /* LOCK_PI2 */;
   }
   case __NR_read: case __NR_readv: case __NR_pread64:
      return read_may_wait(args[0]);
   case __NR_poll:
      return (Int)args[2] != 0;
#if defined(__NR_epoll_wait)
   case __NR_epoll_wait:
#endif
   case __NR_epoll_pwait:
      return (Int)args[3] != 0;
#if defined(__NR_recvfrom)
   case __NR_recvfrom:
      return !(args[3] & PL_MSG_DONTWAIT);
   case __NR_recvmsg:
      return !(args[2] & PL_MSG_DONTWAIT);
   case __NR_accept: case __NR_connect:
      return True;
#endif
   case __NR_ppoll: case __NR_pselect6:
   case __NR_nanosleep: case __NR_clock_nanosleep:
   case __NR_wait4: case __NR_waitid:
   case __NR_rt_sigsuspend: case __NR_rt_sigtimedwait:
   case __NR_flock:
#if defined(__NR_select)
   case __NR_select:
#endif
#if defined(__NR_pause)
   case __NR_pause:
#endif
#if defined(__NR_recvmmsg)
   case __NR_recvmmsg:
#endif
#if defined(__NR_accept4)
   case __NR_accept4:
#endif
#if defined(__NR_msgrcv)
   case __NR_msgrcv: case __NR_semop: case __NR_semtimedop:
#endif
      return True;
   default:
      return False;
   }
}
