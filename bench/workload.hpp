// The workloads moved to bench/workloads.hpp; sim/bound_main.cpp still includes
// this name.
#ifndef MPIX_BENCH_WORKLOAD_HPP
#define MPIX_BENCH_WORKLOAD_HPP
#include "workloads.hpp"
#endif
