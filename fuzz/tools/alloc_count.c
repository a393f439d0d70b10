// LD_PRELOAD allocation counter for scripts/fuzz-allocs: counts every malloc, calloc, realloc,
// aligned_alloc, posix_memalign and memalign of the process (operator new reaches malloc) and
// writes the total to $ALLOC_COUNT_OUT (or stderr) at exit. A counter, not a profiler: the
// interesting number is the difference between a replay of N inputs and a replay of none.
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ullong allocations;

void *malloc(size_t n) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_malloc(n); }
void *calloc(size_t k, size_t n) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_calloc(k, n); }
void *realloc(void *p, size_t n) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
  void *p = memalign(a, n);
  if (p == NULL) return 12;  // ENOMEM
  *out = p;
  return 0;
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("ALLOC_COUNT_OUT");
  FILE *f = path != NULL ? fopen(path, "w") : NULL;
  fprintf(f != NULL ? f : stderr, "allocations %llu\n", (unsigned long long)atomic_load(&allocations));
  if (f != NULL) fclose(f);
}
