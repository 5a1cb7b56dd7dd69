// The computation mpix-bench --overlap does while a nonblocking exchange is in
// flight (OSU's dummy compute): natively a busy loop of floating-point work that
// runs until MPI_Wtime says its duration has passed; under SimGrid SMPI that
// duration charged to the simulated clock with smpi_execute_flops at the host's
// speed (no host timing enters, so simulated times stay deterministic, and a
// busy loop would advance no simulated time under smpi/simulate-computation:no).
#ifndef MPIX_BENCH_COMPUTE_HPP
#define MPIX_BENCH_COMPUTE_HPP

namespace mpixbench {

class Compute {
public:
    // Natively: times the kernel once (a chunk of about 50 ns between two
    // readings of MPI_Wtime); under SMPI: reads this rank's host speed. Local.
    Compute();
    // Busy for `seconds` (simulated under SMPI); nothing for seconds <= 0.
    void run(double seconds);
    // Natively the duration of one chunk of the kernel (how far run() may
    // overshoot, besides one MPI_Wtime); under SMPI 0.
    double chunk_seconds() const { return chunk_seconds_; }
    // Under SMPI the host speed in flop/s; natively 0.
    double host_flops_per_second() const { return host_flops_per_second_; }

private:
    double kernel(long iterations);

    long chunk_iterations_ = 1;
    double chunk_seconds_ = 0;
    double host_flops_per_second_ = 0;
    double state_ = 1.0;  // carried from chunk to chunk, so the loop cannot be dropped
};

}  // namespace mpixbench

#endif
