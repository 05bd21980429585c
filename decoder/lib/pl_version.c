/* SPDX-License-Identifier: MIT */
/* Versions of the library and of the trace format it reads (parlot.h). */
#include "parlot.h"
#include "pl_format.h"

#ifndef PACKAGE_VERSION
#  define PACKAGE_VERSION "dev"
#endif

const char *pl_lib_version(void)
{
   return PACKAGE_VERSION;
}

void pl_lib_format_version(unsigned *major, unsigned *minor)
{
   *major = PL_VERSION_MAJOR;
   *minor = PL_VERSION_MINOR;
}
