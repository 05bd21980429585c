/* SPDX-License-Identifier: MIT */
/* ParLoT's client requests for Fortran programs (see <valgrind/parlot.h>).

   Compile this file with the program (cc -c parlot_fortran.c -I<valgrind
   include dir>) and call, from Fortran:

     call parlot_start_trace()
     call parlot_stop_trace()
     call parlot_start_thread_trace()
     call parlot_stop_thread_trace()
     call parlot_mark('solver iteration')
     call parlot_flush()

   The names follow gfortran's and Intel Fortran's default convention (lower
   case, one trailing underscore, a character argument's length passed by
   value after the arguments); trailing blanks of a label are dropped, as
   Fortran pads fixed-length strings with them. */
#include <stddef.h>

#include "parlot.h"

void parlot_start_trace_(void);
void parlot_stop_trace_(void);
void parlot_start_thread_trace_(void);
void parlot_stop_thread_trace_(void);
void parlot_mark_(const char *label, size_t len);
void parlot_flush_(void);

void parlot_start_trace_(void) { PARLOT_START_TRACE; }
void parlot_stop_trace_(void) { PARLOT_STOP_TRACE; }
void parlot_start_thread_trace_(void) { PARLOT_START_THREAD_TRACE; }
void parlot_stop_thread_trace_(void) { PARLOT_STOP_THREAD_TRACE; }
void parlot_flush_(void) { PARLOT_FLUSH; }

void parlot_mark_(const char *label, size_t len)
{
   char buf[256];
   size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
   for (size_t i = 0; i < n; i++)
      buf[i] = label[i];
   while (n > 0 && buf[n - 1] == ' ')
      n--;
   buf[n] = '\0';
   PARLOT_MARK(buf);
}
