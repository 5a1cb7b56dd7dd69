/* The charge for a reference code's local copies, the same model as mpix's
 * LocalWork (src/core/local_work.cpp): seconds = overhead + bytes / rate, the
 * rate being the cache rate while the call's send + receive bytes on the rank
 * fit the cache share, the memory rate beyond. Charged as smpi_execute_flops. */
#define REFCMP_NO_REDIRECT
#include "charge.h"
#include <smpi/smpi.h>
#include <simgrid/host.h>

double refcmp_copied_bytes;      /* bytes copied since the driver reset it */
double refcmp_working_set;       /* the call's send + receive bytes on this rank */
static double rate_cache = 30e9, rate_memory = 2.0e9, cache_bytes = 4194304, overhead = 3.6e-9;

static void charge(size_t n)
{
    if (n == 0)
        return;
    refcmp_copied_bytes += (double)n;
#ifndef NO_CHARGE
    double rate = refcmp_working_set > cache_bytes ? rate_memory : rate_cache;
    double seconds = overhead + (double)n / rate;
    smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
#endif
}
void *refcmp_memcpy(void *d, const void *s, size_t n) { charge(n); return memcpy(d, s, n); }
void *refcmp_memmove(void *d, const void *s, size_t n) { charge(n); return memmove(d, s, n); }
