// Per-round tracing (hint `trace`): one JSON object per round, appended to
// PREFIX.<rank>.jsonl when the call ends. Costs nothing when off (no object).
#ifndef MPIX_CORE_TRACE_HPP
#define MPIX_CORE_TRACE_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

namespace mpix {

class LocalWork;

class Trace {
public:
    Trace(std::string path, const char *call, const char *algorithm);
    ~Trace();  // writes the buffered rounds
    Trace(const Trace &) = delete;
    Trace &operator=(const Trace &) = delete;

    void set_params(const std::string &params) { params_ = params; }
    const std::string &params() const { return params_; }
    // One round: peers (-1 when none), global block ids moved, bytes each way.
    // stage_bytes: bytes of this round received into a staging area (ParLogNa).
    void round(int round, int send_peer, int recv_peer, const std::vector<long long> &blocks,
               std::size_t bytes_sent, std::size_t bytes_recv, std::size_t stage_bytes = 0);
    // Records a temporary allocation alive now; the peak is written on every line.
    void temp_alloc(std::size_t bytes)
    {
        temp_now_ += bytes;
        if (temp_now_ > temp_peak_)
            temp_peak_ = temp_now_;
    }
    void temp_free(std::size_t bytes) { temp_now_ -= bytes < temp_now_ ? bytes : temp_now_; }
    // Staging for in-flight overlap, kept apart from temp_bytes (the forwarding buffer).
    void stage_alloc(std::size_t bytes) { stage_peak_ += bytes; }
    // The call's local copies (core/local_work.hpp) are those counted on `work`
    // from `start_bytes` until the trace is written: every line then carries
    // them as `copied_bytes`.
    void count_copies(const LocalWork *work, std::uint64_t start_bytes)
    {
        work_ = work;
        copied_start_ = start_bytes;
    }

private:
    struct Round {
        int round, send_peer, recv_peer;
        std::vector<long long> blocks;
        std::size_t sent, recv, staged;
    };
    std::string path_, call_, algorithm_, params_;
    std::vector<Round> rounds_;
    std::size_t temp_now_ = 0, temp_peak_ = 0, stage_peak_ = 0;
    const LocalWork *work_ = nullptr;
    std::uint64_t copied_start_ = 0;
};

// The trace of one call (or one start of a persistent request) of `algorithm`
// on rank `rank`: PREFIX.<rank>.jsonl for the hint `trace` = `prefix`, or
// PREFIX.<group>.<rank>.jsonl on a communicator whose group is not
// MPI_COMM_WORLD's (`group`: trace_group_tag), so sub-communicators never share
// a file; nullptr when the prefix is empty (tracing off). Every dispatch
// (alltoall(v), sparse, neighbour, persistent) opens its traces here, so every
// row gets one. The copies counted on `work` from now until the trace is
// written are the call's.
std::unique_ptr<Trace> open_trace(const std::string &prefix, const std::string &group, int rank, const char *call,
                                  const char *algorithm, const LocalWork *work);

// "" for a communicator with MPI_COMM_WORLD's group in its order (or when
// MPI_COMM_WORLD is not there); otherwise "g" and eight hex digits hashed from
// its ranks' MPI_COMM_WORLD ranks in order, the same on every rank of it.
// Local: no communication.
std::string trace_group_tag(MPI_Comm comm, bool world_available);

}  // namespace mpix

#endif
