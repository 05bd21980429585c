/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The smallest possible program: main does nothing.  The trace must still
   exist, decode, be consistent and hold exactly one call/return of main
   among the instrumented functions. */
int main(void)
{
   return 0;
}
