/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The system calls that may block (pl_syscalls.h), for the flush before
   them. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_core_libcfile.h"      /* VG_(fcntl), VG_(getsockopt),
                                       VG_(getsockname): not in the tool
                                       interface */

#include "pl_syscalls.h"

#define PL_MSG_DONTWAIT 0x40        /* Linux's; the VKI headers lack it */
#define PL_TIMER_ABSTIME 1          /* clock_nanosleep's flag */
#define PL_SOCK_SEQPACKET 5         /* Linux's; the VKI headers lack it */

/* Whether fd is in non-blocking mode: a call that would wait on it fails
   with EAGAIN instead (MPI libraries poll their sockets so). */
static Bool nonblocking(UWord fd)
{
   Int flags = VG_(fcntl)((Int)fd, VKI_F_GETFL, 0);
   return flags >= 0 && (flags & VKI_O_NONBLOCK);
}

/* Whether a receive on socket fd can wait: not on a non-blocking one,
   nor on a netlink socket that joined no multicast group, which only
   gets the kernel's replies to its own requests, sent at once
   (getifaddrs, as MPI_Init's interface discovery calls it). */
static Bool recv_may_wait(UWord fd)
{
   struct vki_sockaddr_nl nl;
   Int len = (Int)sizeof nl;
   if (nonblocking(fd))
      return False;
   VG_(memset)(&nl, 0, sizeof nl);
   if (VG_(getsockname)((Int)fd, (struct vki_sockaddr *)&nl, &len) == 0
       && nl.nl_family == VKI_AF_NETLINK && nl.nl_groups == 0)
      return False;
   return True;
}

/* Whether connect on socket fd can wait: on a stream or sequenced-packet
   socket that blocks, for the peer; on a datagram socket it only sets
   the peer's address (MPI_Init's interface probing connects hundreds of
   UDP sockets). */
static Bool connect_may_wait(UWord fd)
{
   Int type = 0, len = (Int)sizeof type;
   if (VG_(getsockopt)((Int)fd, VKI_SOL_SOCKET, VKI_SO_TYPE, &type, &len) != 0)
      return True;                       /* let the call say what it is */
   return (type == VKI_SOCK_STREAM || type == PL_SOCK_SEQPACKET)
          && !nonblocking(fd);
}

/* Whether reading fd can wait for another thread or process: not for a
   regular file or a block device (MPI_Init's hwloc reads hundreds of
   /sys files; syncing before each wrote most of a short MPI rank's
   trace as chunk headers). */
static Bool read_may_wait(UWord fd)
{
   struct vg_stat st;
   if (VG_(fstat)((Int)fd, &st) != 0)
      return True;                       /* let the call say what it is */
   return !VKI_S_ISREG(st.mode) && !VKI_S_ISBLK(st.mode) && !nonblocking(fd);
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
      return !(args[3] & PL_MSG_DONTWAIT) && recv_may_wait(args[0]);
   case __NR_recvmsg:
      return !(args[2] & PL_MSG_DONTWAIT) && recv_may_wait(args[0]);
   case __NR_accept:
      return !nonblocking(args[0]);
   case __NR_connect:
      return connect_may_wait(args[0]);
#endif
#if defined(__NR_accept4)
   case __NR_accept4:
      return !nonblocking(args[0]);
#endif
#if defined(__NR_recvmmsg)
   case __NR_recvmmsg:
      return !(args[3] & PL_MSG_DONTWAIT) && recv_may_wait(args[0]);
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
#if defined(__NR_msgrcv)
   case __NR_msgrcv: case __NR_semop: case __NR_semtimedop:
#endif
      return True;
   default:
      return False;
   }
}

/* A relative timeout the client passes as struct timespec (tv_nsec) or
   struct timeval (tv_usec) at addr, in ms rounded up; -1 for NULL, an
   unreadable address or a negative time (the kernel then waits without
   limit or fails the call). */
static Long client_timeout_ms(UWord addr, Long sub_per_ms)
{
   if (addr == 0
       || !VG_(am_is_valid_for_client)(addr, 2 * sizeof(Word), VKI_PROT_READ))
      return -1;
   const Word *tv = (const Word *)addr;     /* the platform's longs */
   if (tv[0] < 0 || tv[1] < 0 || tv[0] > 100000000)
      return -1;
   return (Long)tv[0] * 1000 + ((Long)tv[1] + sub_per_ms - 1) / sub_per_ms;
}

#define NS_PER_MS 1000000
#define US_PER_MS 1000

Long pl_syscall_wait_limit_ms(UInt sysno, const UWord *args)
{
   switch (sysno) {
   case __NR_nanosleep:
      return client_timeout_ms(args[0], NS_PER_MS);
   case __NR_clock_nanosleep:           /* an absolute time: unknown here */
      return args[1] & PL_TIMER_ABSTIME ? -1
                                         : client_timeout_ms(args[2], NS_PER_MS);
   case __NR_futex:                     /* WAIT's time is relative; the
                                           others' absolute */
      return (args[1] & 0x7f) == 0 ? client_timeout_ms(args[3], NS_PER_MS) : -1;
   case __NR_poll:
      return (Int)args[2] < 0 ? -1 : (Long)(Int)args[2];
#if defined(__NR_epoll_wait)
   case __NR_epoll_wait:
#endif
   case __NR_epoll_pwait:
      return (Int)args[3] < 0 ? -1 : (Long)(Int)args[3];
   case __NR_ppoll:
      return client_timeout_ms(args[2], NS_PER_MS);
   case __NR_pselect6:
      return client_timeout_ms(args[4], NS_PER_MS);
#if defined(__NR_select)
   case __NR_select:
      return client_timeout_ms(args[4], US_PER_MS);
#endif
   case __NR_rt_sigtimedwait:
      return client_timeout_ms(args[2], NS_PER_MS);
   default:
      return -1;
   }
}
