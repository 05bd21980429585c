/* SPDX-License-Identifier: MIT */
/* Packed tables decoded through the process's cache (pl_table_cache.h). */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pl_alloc.h"
#include "pl_hash.h"
#include "pl_table_cache.h"
#include "pl_table_pack.h"

/* What the cache holds at most: a 64-rank run's tables are a few MB */
#define CACHE_BYTES ((size_t)64 << 20)
#define BUCKET_BITS 12

typedef struct entry {
   struct entry *next;        /* in its bucket */
   struct entry *newer;       /* in the order added, for eviction */
   uint64_t key, prev;        /* the chain after it and before it */
   unsigned type;
   uint32_t raw_len;
   size_t   len;
   uint8_t *bytes;            /* len packed bytes, then raw_len decoded */
} entry;

static struct {
   pthread_mutex_t mu;
   entry *bucket[1u << BUCKET_BITS];
   entry *oldest, *newest;
   size_t bytes;
} cache = { PTHREAD_MUTEX_INITIALIZER, { 0 }, NULL, NULL, 0 };

/* A payload served by the cache that the trace's model has not read. */
typedef struct {
   unsigned type;
   uint32_t raw_len;
   size_t   len;
   uint8_t *packed;
} unread;

struct pl_packed_tables {
   pl_tpack *model;           /* made when a payload first misses */
   uint64_t  key;             /* the chain of the payloads so far */
   unread   *behind;          /* payloads the model has yet to read */
   size_t    nbehind, behind_cap;
};

static uint64_t chain(uint64_t prev, unsigned type, uint32_t raw_len,
                      const uint8_t *packed, size_t len)
{
   uint64_t h = pl_fnv1a_step(pl_fnv1a_step(prev, type), raw_len);
   return pl_fnv1a(pl_fnv1a_step(h, len), packed, len);
}

static entry **bucket_of(uint64_t key)
{
   return &cache.bucket[pl_golden_slot(key, BUCKET_BITS)];
}

/* Copy the payload's decoding into raw if the cache has it: 1, else 0. */
static int lookup(uint64_t key, uint64_t prev, unsigned type,
                  const uint8_t *packed, size_t len, uint8_t *raw,
                  uint32_t raw_len)
{
   entry *e;
   int hit = 0;
   pthread_mutex_lock(&cache.mu);
   for (e = *bucket_of(key); e; e = e->next)
      if (e->key == key && e->prev == prev && e->type == type
          && e->raw_len == raw_len && e->len == len
          && memcmp(e->bytes, packed, len) == 0) {
         memcpy(raw, e->bytes + len, raw_len);
         hit = 1;
         break;
      }
   pthread_mutex_unlock(&cache.mu);
   return hit;
}

static void unlink_oldest(void)
{
   entry *e = cache.oldest, **p = bucket_of(e->key);
   while (*p != e)
      p = &(*p)->next;
   *p = e->next;
   cache.oldest = e->newer;
   if (!cache.oldest)
      cache.newest = NULL;
   cache.bytes -= e->len + e->raw_len;
   free(e->bytes);
   free(e);
}

/* Keep a decoded payload, the oldest ones going to make room.  Out of
   memory, it is not kept. */
static void add(uint64_t key, uint64_t prev, unsigned type,
                const uint8_t *packed, size_t len, const uint8_t *raw,
                uint32_t raw_len)
{
   size_t size = len + raw_len;
   entry *e;
   if (size > CACHE_BYTES / 4 || !(e = calloc(1, sizeof *e)))
      return;
   if (!(e->bytes = malloc(size ? size : 1))) {
      free(e);
      return;
   }
   memcpy(e->bytes, packed, len);
   memcpy(e->bytes + len, raw, raw_len);
   e->key = key;
   e->prev = prev;
   e->type = type;
   e->len = len;
   e->raw_len = raw_len;
   pthread_mutex_lock(&cache.mu);
   while (cache.oldest && cache.bytes + size > CACHE_BYTES)
      unlink_oldest();
   e->next = *bucket_of(key);
   *bucket_of(key) = e;
   if (cache.newest)
      cache.newest->newer = e;
   else
      cache.oldest = e;
   cache.newest = e;
   cache.bytes += size;
   pthread_mutex_unlock(&cache.mu);
}

static void forget_behind(pl_packed_tables *pt)
{
   size_t i;
   for (i = 0; i < pt->nbehind; i++)
      free(pt->behind[i].packed);
   pt->nbehind = 0;
}

/* The model reads the payloads the cache served since it last read one,
   so that it can decode the next itself.  0, 1 (one did not decode as
   it had: the file changed between the reads), or -1. */
static int catch_up(pl_packed_tables *pt, const char **why)
{
   uint8_t *scratch = NULL;
   size_t cap = 0, i;
   int rc = 0;

   if (!pt->model) {
      if (!(pt->model = malloc(sizeof *pt->model)))
         return -1;
      pl_tpack_init(pt->model);
   }
   for (i = 0; i < pt->nbehind && rc == 0; i++) {
      unread *u = &pt->behind[i];
      if (pl_grow(&scratch, &cap, u->raw_len ? u->raw_len : 1, 1) < 0)
         rc = -1;
      else if (pl_tpack_decode(pt->model, u->type, u->packed, u->len,
                               scratch, u->raw_len, why))
         rc = 1;
   }
   forget_behind(pt);
   free(scratch);
   return rc;
}

int pl_packed_decode(pl_packed_tables **ptp, unsigned type,
                     const uint8_t *packed, size_t len, uint8_t *raw,
                     uint32_t raw_len, const char **why)
{
   pl_packed_tables *pt = *ptp;
   uint64_t key;
   int rc;

   if (!pt && !(pt = *ptp = calloc(1, sizeof *pt)))
      return -1;
   key = chain(pt->key, type, raw_len, packed, len);
   if (lookup(key, pt->key, type, packed, len, raw, raw_len)) {
      unread *u;
      if (pl_grow(&pt->behind, &pt->behind_cap, pt->nbehind + 1,
                  sizeof *pt->behind) < 0)
         return -1;
      u = &pt->behind[pt->nbehind];
      if (!(u->packed = malloc(len ? len : 1)))
         return -1;
      memcpy(u->packed, packed, len);
      u->type = type;
      u->raw_len = raw_len;
      u->len = len;
      pt->nbehind++;
      pt->key = key;
      return 0;
   }
   if ((rc = catch_up(pt, why)) != 0)
      return rc;
   if (pl_tpack_decode(pt->model, type, packed, len, raw, raw_len, why))
      return 1;
   add(key, pt->key, type, packed, len, raw, raw_len);
   pt->key = key;
   return 0;
}

void pl_packed_done(pl_packed_tables *pt)
{
   if (!pt)
      return;
   forget_behind(pt);
   free(pt->behind);
   free(pt->model);
   free(pt);
}
