/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Calls through function pointers: a dispatch table, a function pointer
   passed as an argument, a "vtable" struct, and a pointer returned by a
   function.  Entry must be detected by address, not by call site. */
#include <stdio.h>

typedef int (*op_t)(int, int);

__attribute__((noinline)) int op_add(int a, int b) { return a + b; }
__attribute__((noinline)) int op_sub(int a, int b) { return a - b; }
__attribute__((noinline)) int op_mul(int a, int b) { return a * b; }
__attribute__((noinline)) int op_xor(int a, int b) { return a ^ b; }

static op_t table[4] = { op_add, op_sub, op_mul, op_xor };

__attribute__((noinline)) int apply(op_t f, int a, int b) { return f(a, b); }

__attribute__((noinline)) int twice(op_t f, int a, int b)
{
   return apply(f, apply(f, a, b), b);
}

struct shape_ops {
   int (*area)(int);
   int (*perimeter)(int);
};

__attribute__((noinline)) int sq_area(int s) { return s * s; }
__attribute__((noinline)) int sq_perim(int s) { return 4 * s; }
__attribute__((noinline)) int tri_area(int s) { return s * s / 2; }
__attribute__((noinline)) int tri_perim(int s) { return 3 * s; }

static const struct shape_ops square = { sq_area, sq_perim };
static const struct shape_ops triangle = { tri_area, tri_perim };

__attribute__((noinline)) op_t pick(int i) { return table[i & 3]; }

int main(void)
{
   int i, acc = 0;
   const struct shape_ops *shapes[2] = { &square, &triangle };
   for (i = 0; i < 40; i++) {
      acc += table[i % 4](acc, i);
      acc += twice(pick(i * 3), i, 3);
      acc += shapes[i & 1]->area(i) + shapes[(i >> 1) & 1]->perimeter(i);
   }
   printf("%d\n", acc);
   return 0;
}
