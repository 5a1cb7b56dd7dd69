/* Included first into every reference source: the system headers, then
 * memcpy/memmove redirected to a counting, charging copy (refcmp_charge.c). */
#ifndef REFCMP_CHARGE_H
#define REFCMP_CHARGE_H
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#ifdef __cplusplus
#include <cstring>
extern "C" {
#endif
void *refcmp_memcpy(void *d, const void *s, size_t n);
void *refcmp_memmove(void *d, const void *s, size_t n);
#ifdef __cplusplus
}
#endif
#ifndef REFCMP_NO_REDIRECT
#define memcpy(d, s, n) refcmp_memcpy((d), (s), (n))
#define memmove(d, s, n) refcmp_memmove((d), (s), (n))
#endif
#endif
