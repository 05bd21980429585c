/* SPDX-License-Identifier: GPL-2.0-or-later */
// C++ exceptions: throw from deep frames, catch at several levels,
// rethrow, destructors run during unwinding (RAII), an exception caught
// and a new one thrown from the handler, and a std::vector so that
// instrumented template code from headers appears as well.
#include <cstdio>
#include <stdexcept>
#include <vector>

static int total;

struct Guard {
   int v;
   explicit Guard(int x) : v(x) { total += x; }
   ~Guard() { total -= v; }
};

__attribute__((noinline)) void thrower(int n)
{
   Guard g(n);
   if (n == 0)
      throw std::runtime_error("boom");
   thrower(n - 1);
}

__attribute__((noinline)) int catch_here(int n)
{
   try {
      thrower(n);
   } catch (const std::runtime_error &) {
      return 1;
   }
   return 0;
}

__attribute__((noinline)) void rethrower(int n)
{
   Guard g(n);
   try {
      thrower(n);
   } catch (...) {
      total += 1;
      throw;
   }
}

__attribute__((noinline)) void translate(int n)
{
   try {
      rethrower(n);
   } catch (const std::exception &) {
      throw 42;
   }
}

__attribute__((noinline)) int outer(int n)
{
   try {
      translate(n);
   } catch (int v) {
      return v;
   }
   return 0;
}

int main()
{
   std::vector<int> v;
   int i, s = 0;
   for (i = 0; i < 5; i++) {
      s += catch_here(i * 3);
      s += outer(i + 1);
      v.push_back(s);
   }
   std::printf("%d %zu %d\n", s, v.size(), total);
   return 0;
}
