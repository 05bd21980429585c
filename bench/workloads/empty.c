/* SPDX-License-Identifier: MIT */
/* Nothing but start and exit: what Valgrind and a tool cost before the
   program runs (reading debug info, the translation of start-up code). */
int main(void)
{
   return 0;
}
