// SPDX-License-Identifier: GPL-2.0-or-later
// Frames that end without returning: C++ exceptions caught one and
// several calls up, through frames whose destructors run on the way
// (cleanup landing pads), a rethrow, and longjmp out of a recursion.
// The instructions run after each landing are the landing frame's, for
// ParLoT as for Callgrind (parlot/tests/costs/run_costs_tests.sh).
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

static std::jmp_buf back;

__attribute__((noinline)) static int thrower(int i)
{
   if (i % 7 == 3)
      throw std::runtime_error("every seventh");
   return i * 3;
}

// its vector's destructor runs while the exception passes
__attribute__((noinline)) static int holder(int i)
{
   std::vector<int> v(static_cast<size_t>(i % 5 + 1), i);
   return thrower(i) + static_cast<int>(v.size());
}

__attribute__((noinline)) static int rethrower(int i)
{
   try {
      return holder(i);
   } catch (const std::runtime_error &) {
      if (i % 2)
         throw;
      return -1;
   }
}

__attribute__((noinline)) static int catcher(int i)
{
   try {
      return rethrower(i);
   } catch (const std::exception &) {
      return -2;
   }
}

__attribute__((noinline)) static void descend(int n)
{
   if (n == 0)
      std::longjmp(back, 1);
   descend(n - 1);
}

__attribute__((noinline)) static int jumper(int i)
{
   volatile int landed = 0;
   if (setjmp(back) == 0)
      descend(i % 9);
   else
      landed = i;
   return landed;
}

int main(int argc, char **argv)
{
   int n = argc > 1 ? std::atoi(argv[1]) : 2000;
   long sum = 0;
   for (int i = 0; i < n; i++)
      sum += catcher(i) + jumper(i);
   std::printf("%ld\n", sum);
   return 0;
}
