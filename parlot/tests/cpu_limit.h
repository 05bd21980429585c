/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A SIGKILL from the kernel, `seconds` of CPU time from now (cpu_limit.c). */
#ifndef CPU_LIMIT_H
#define CPU_LIMIT_H
void arm_cpu_limit(long seconds);
#endif
