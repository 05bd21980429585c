/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Function starts from an object's unwind table (pl_unwind.h).

   The PT_GNU_EH_FRAME segment (.eh_frame_hdr) holds, for the unwinder, a
   table of every FDE's start address sorted for binary search:
     u8 version (1), u8 eh_frame_ptr encoding, u8 fde_count encoding,
     u8 table encoding, the encoded eh_frame pointer, the encoded count,
     then count pairs (initial location, FDE address).
   Linkers write the table as DW_EH_PE_datarel | DW_EH_PE_sdata4 (0x3b):
   signed 32-bit offsets from the start of .eh_frame_hdr.  Other table
   encodings are not read (the object then has no unwind names). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "pl_format.h"
#include "pl_unwind.h"

#define PT_GNU_EH_FRAME   0x6474e550u
#define EH_TABLE_DATAREL4 0x3b
#define MAX_FDES          (16u << 20)     /* a sanity bound */

typedef struct {
   const DebugInfo *di;
   Addr   text_avma;       /* with di: the same object still */
   Addr  *starts;          /* sorted avmas; NULL: none readable */
   UInt   n;
} unwind_table;

static Bool (*wanted_object)(const HChar *path);
static unwind_table *tables;
static UInt n_tables, cap_tables;
static DiEpoch tables_epoch;

static Bool read_at(Int fd, Off64T off, void *buf, Int len)
{
   return VG_(lseek)(fd, off, VKI_SEEK_SET) == off
          && VG_(read)(fd, buf, len) == len;
}

/* Width of a DW_EH_PE value format (the low nibble), 0 if not fixed. */
static Int enc_width(UChar enc)
{
   switch (enc & 0x0f) {
   case 0x02: case 0x0a: return 2;
   case 0x03: case 0x0b: return 4;
   case 0x04: case 0x0c: return 8;
   default:              return 0;
   }
}

/* The start svmas of the table in hdr (len bytes at svma hdr_svma),
   sorted; NULL if it is not one this reads. */
static Addr *parse_hdr(const UChar *hdr, SizeT len, Addr hdr_svma, UInt *n)
{
   if (len < 4 || hdr[0] != 1 || hdr[3] != EH_TABLE_DATAREL4)
      return NULL;
   Int wp = hdr[1] == 0xff ? 0 : enc_width(hdr[1]);
   Int wc = enc_width(hdr[2]);
   if ((hdr[1] != 0xff && !wp) || !wc || 4 + wp + wc > (Int)len)
      return NULL;
   const UChar *c = hdr + 4 + wp;
   ULong count = wc == 2 ? pl_get16(c) : wc == 4 ? pl_get32(c) : pl_get64(c);
   SizeT at = 4 + (SizeT)wp + (SizeT)wc;
   if (count == 0 || count > MAX_FDES || count > (len - at) / 8)
      return NULL;
   Addr *s = VG_(malloc)("pl.unwind.starts", count * sizeof *s);
   for (ULong i = 0; i < count; i++) {
      Int rel = (Int)pl_get32(hdr + at + 8 * i);
      s[i] = hdr_svma + (Addr)(Long)rel;
      if (i && s[i] < s[i - 1]) {            /* not a search table */
         VG_(free)(s);
         return NULL;
      }
   }
   *n = (UInt)count;
   return s;
}

/* The sorted start svmas of the object file at path (ELF64 only). */
static Addr *read_starts(const HChar *path, UInt *n)
{
   SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
   if (sr_isError(r))
      return NULL;
   Int fd = (Int)sr_Res(r);
   Addr *starts = NULL;
   UChar eh[64], ph[56];

   if (read_at(fd, 0, eh, sizeof eh) && VG_(memcmp)(eh, "\177ELF", 4) == 0
       && eh[4] == 2 /* ELFCLASS64 */ && eh[5] == 1 /* little-endian */) {
      ULong phoff = pl_get64(eh + 32);
      UInt phentsize = pl_get16(eh + 54), phnum = pl_get16(eh + 56);
      for (UInt i = 0; phentsize >= sizeof ph && i < phnum && !starts; i++) {
         if (!read_at(fd, (Off64T)(phoff + (ULong)i * phentsize), ph,
                      sizeof ph))
            break;
         if (pl_get32(ph) != PT_GNU_EH_FRAME)
            continue;
         ULong off = pl_get64(ph + 8), vaddr = pl_get64(ph + 16);
         ULong size = pl_get64(ph + 32);
         if (size < 4 || size > 8ULL * MAX_FDES + 64)
            break;
         UChar *hdr = VG_(malloc)("pl.unwind.hdr", (SizeT)size);
         if (read_at(fd, (Off64T)off, hdr, (Int)size))
            starts = parse_hdr(hdr, (SizeT)size, (Addr)vaddr, n);
         VG_(free)(hdr);
      }
   }
   VG_(close)(fd);
   return starts;
}

static unwind_table *table_of(const DebugInfo *di)
{
   DiEpoch ep = VG_(current_DiEpoch)();
   Addr text = VG_(DebugInfo_get_text_avma)(di);

   if (tables_epoch.n != ep.n) {            /* objects came or went */
      for (UInt i = 0; i < n_tables; i++)
         if (tables[i].starts)
            VG_(free)(tables[i].starts);
      n_tables = 0;
      tables_epoch = ep;
   }
   for (UInt i = 0; i < n_tables; i++)
      if (tables[i].di == di && tables[i].text_avma == text)
         return &tables[i];
   if (n_tables == cap_tables) {
      cap_tables = cap_tables ? 2 * cap_tables : 16;
      tables = VG_(realloc)("pl.unwind.tables", tables,
                            cap_tables * sizeof *tables);
   }
   unwind_table *t = &tables[n_tables++];
   t->di = di;
   t->text_avma = text;
   t->n = 0;
   const HChar *path = VG_(DebugInfo_get_filename)(di);
   t->starts = wanted_object && wanted_object(path)
               ? read_starts(path, &t->n) : NULL;
   PtrdiffT bias = VG_(DebugInfo_get_text_bias)(di);
   for (UInt i = 0; i < t->n; i++)
      t->starts[i] += (Addr)bias;
   return t;
}

void pl_unwind_init(Bool (*wanted)(const HChar *path))
{
   wanted_object = wanted;
}

Bool pl_unwind_around(const DebugInfo *di, Addr a, Addr *below, Addr *above)
{
   const unwind_table *t = table_of(di);
   UInt lo = 0, hi = t->n;                   /* first start > a: lo */

   if (!t->n)
      return False;
   while (lo < hi) {
      UInt mid = lo + (hi - lo) / 2;
      if (t->starts[mid] <= a)
         lo = mid + 1;
      else
         hi = mid;
   }
   *below = lo ? t->starts[lo - 1] : 0;
   *above = lo < t->n ? t->starts[lo] : ~(Addr)0;
   return True;
}

Bool pl_unwind_is_start(const DebugInfo *di, Addr a)
{
   Addr below, above;
   return pl_unwind_around(di, a, &below, &above) && below == a;
}
