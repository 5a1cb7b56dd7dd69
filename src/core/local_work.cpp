#include "core/local_work.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "config.h"
#include "core/cpu_count.hpp"

#if MPIX_SMPI
#include <simgrid/host.h>
#include <smpi/smpi.h>
#endif

namespace mpix {

#if MPIX_SMPI
namespace {

// A finite value >= 0 from the environment variable `name`; absent: *value
// unchanged. False for anything else.
bool read_nonnegative(const char *name, double *value)
{
    const char *text = std::getenv(name);
    if (!text || !*text)
        return true;
    char *end = nullptr;
    errno = 0;
    double v = std::strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !std::isfinite(v) || v < 0)
        return false;
    *value = v;
    return true;
}

// MPIX_SIM_MPI_SELF: absent, empty or "0" (the own block is a copy), or
// RENDEZVOUS_BYTES:NS:GBPS, each a finite number >= 0. False for anything else.
bool read_mpi_self(double *rendezvous_bytes, double *overhead_ns, double *gbps)
{
    const char *text = std::getenv("MPIX_SIM_MPI_SELF");
    if (!text || !*text || std::strcmp(text, "0") == 0)
        return true;
    double *fields[] = {rendezvous_bytes, overhead_ns, gbps};
    const char *at = text;
    for (int i = 0; i < 3; ++i) {
        char *end = nullptr;
        errno = 0;
        const double v = std::strtod(at, &end);
        if (errno != 0 || end == at || !std::isfinite(v) || v < 0 || *end != (i < 2 ? ':' : '\0'))
            return false;
        *fields[i] = v;
        at = end + 1;
    }
    return true;
}

}  // namespace
#endif

bool read_copy_model(CopyModel *model, const char **why)
{
    *model = CopyModel();
#if MPIX_SMPI
    double cache_gbps = 0, memory_gbps = 0, cache_bytes = 0, overhead_ns = 0;
    const struct {
        const char *variable;
        double *value;
        const char *why;
    } inputs[] = {
        {"MPIX_SIM_COPY_BW", &cache_gbps, "environment variable MPIX_SIM_COPY_BW: expected a copy bandwidth in GB/s >= 0"},
        {"MPIX_SIM_COPY_MEM_BW", &memory_gbps,
         "environment variable MPIX_SIM_COPY_MEM_BW: expected a copy bandwidth in GB/s >= 0"},
        {"MPIX_SIM_COPY_CACHE", &cache_bytes, "environment variable MPIX_SIM_COPY_CACHE: expected bytes >= 0"},
        {"MPIX_SIM_COPY_OVERHEAD", &overhead_ns,
         "environment variable MPIX_SIM_COPY_OVERHEAD: expected nanoseconds per copy >= 0"},
    };
    for (const auto &in : inputs)
        if (!read_nonnegative(in.variable, in.value)) {
            *why = in.why;
            return false;
        }
    double small_ns = -1;  // unset: overhead_ns
    if (!read_nonnegative("MPIX_SIM_COPY_SMALL_OVERHEAD", &small_ns)) {
        *why = "environment variable MPIX_SIM_COPY_SMALL_OVERHEAD: expected nanoseconds per small copy >= 0";
        return false;
    }
    double piece_ns = 0;
    if (!read_nonnegative("MPIX_SIM_CPU_PIECE", &piece_ns)) {
        *why = "environment variable MPIX_SIM_CPU_PIECE: expected nanoseconds per piece >= 0";
        return false;
    }
    model->seconds_per_piece = piece_ns * 1e-9;
    double block_ns = 0;
    if (!read_nonnegative("MPIX_SIM_CPU_BLOCK", &block_ns)) {
        *why = "environment variable MPIX_SIM_CPU_BLOCK: expected nanoseconds per basic block >= 0";
        return false;
    }
    if (block_ns > 0 && !cpu_counted()) {
        *why = "environment variable MPIX_SIM_CPU_BLOCK: this build does not count its basic blocks (configure --enable-cpu-count)";
        return false;
    }
    model->seconds_per_block = block_ns * 1e-9;
    double self_bytes = 0, self_ns = 0, self_gbps = 0;
    if (!read_mpi_self(&self_bytes, &self_ns, &self_gbps)) {
        *why = "environment variable MPIX_SIM_MPI_SELF: expected 0 or RENDEZVOUS_BYTES:NS:GBPS, each >= 0";
        return false;
    }
    if (cache_gbps > 0) {
        model->cache_bytes_per_second = cache_gbps * 1e9;
        model->memory_bytes_per_second = memory_gbps * 1e9;
        model->cache_bytes = cache_bytes;
        model->seconds_per_copy = overhead_ns * 1e-9;
        model->seconds_per_small_copy = small_ns >= 0 ? small_ns * 1e-9 : -1;
        model->mpi_self_rendezvous_bytes = self_bytes;
        model->mpi_self_seconds = self_ns * 1e-9;
        model->mpi_self_bytes_per_second = self_gbps * 1e9;
    }
#else
    (void)why;
#endif
    return true;
}

void LocalWork::set_model(const CopyModel &m)
{
    model_ = m;
#if MPIX_SMPI
    if (model_.charged() || model_.cpu_charged() || model_.seconds_per_block > 0)
        host_flops_per_second_ = sg_host_get_speed(sg_host_self());
    if (model_.seconds_per_block > 0)
        cpu_set_charge(model_.seconds_per_block, host_flops_per_second_);
#endif
}

MPIX_NOT_COUNTED void LocalWork::charge(double seconds)
{
    pending_seconds_ += seconds;
    if (batch_depth_ == 0)
        flush();
}

MPIX_NOT_COUNTED void LocalWork::flush()
{
    cpu_charge();  // the work that led to the copy, then the copy
#if MPIX_SMPI
    if (pending_seconds_ > 0 && host_flops_per_second_ > 0)
        smpi_execute_flops(pending_seconds_ * host_flops_per_second_);
#endif
    pending_seconds_ = 0;
}

}  // namespace mpix
