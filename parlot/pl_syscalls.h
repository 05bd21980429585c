/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which system calls may block (pl_syscalls.c). */
#ifndef PL_SYSCALLS_H
#define PL_SYSCALLS_H

#include "pub_tool_basics.h"

/* Whether system call sysno with args may wait for another thread or
   process (a lock, a message, a child, time): a thread blocked in one
   forever runs no more client code, so the periodic flush would never
   write its last events (pl_main.c's flush_before_wait says when the tool
   writes them first).  Calls that cannot wait are left out: reads of
   files, polls with a zero timeout, receives with MSG_DONTWAIT, calls on
   non-blocking descriptors, connects of datagram sockets, receives on
   netlink sockets that only get replies. */
Bool pl_syscall_may_block(UInt sysno, const UWord *args);

/* The longest a call that may block (above) can wait, in milliseconds
   rounded up, from its timeout argument; -1 if it has none (it may wait
   forever) or one not known here (an absolute time). */
Long pl_syscall_wait_limit_ms(UInt sysno, const UWord *args);

#endif
