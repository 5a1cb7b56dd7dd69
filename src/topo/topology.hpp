// Regions (nodes or sockets) of an MPIX_Comm: explicit maps, no placement assumptions.
#ifndef MPIX_TOPO_TOPOLOGY_HPP
#define MPIX_TOPO_TOPOLOGY_HPP

#include <mpi.h>

#include <vector>

#include "core/hints.hpp"

struct MPIX_Comm;

namespace mpix {

// A partition of the communicator's ranks into regions. Regions are numbered in
// order of their lowest rank; members of a region are listed in ascending rank.
// Region sizes may differ and members need not be consecutive.
struct Regions {
    int count = 0;
    std::vector<int> region_of;  // rank -> region
    std::vector<int> index_of;   // rank -> index inside its region
    std::vector<int> offsets;    // region r's members: members[offsets[r] .. offsets[r+1])
    std::vector<int> members;
    int my_region = 0;
    int my_index = 0;
    int max_size = 0;  // largest region

    int size_of(int region) const { return offsets[region + 1] - offsets[region]; }
    int member(int region, int index) const { return members[offsets[region] + index]; }

    // Cached sub-communicators, built on first use (collective over the comm):
    MPI_Comm local = MPI_COMM_NULL;  // my region, ranks ordered as in `members`
    MPI_Comm cross = MPI_COMM_NULL;  // every rank with my local index, ordered by region

    Regions() = default;
    Regions(const Regions &) = delete;
    Regions &operator=(const Regions &) = delete;
    ~Regions();
};

// The regions of `xcomm` for a locality (node: MPI shared-memory nodes or the
// emulation set by MPIX_Comm_update_locality; socket: hwloc packages inside nodes).
// Collective on first use for each locality; cached afterwards.
int get_regions(MPIX_Comm *xcomm, Locality locality, const Regions **out);
// Collective on first use: the sub-communicators of those regions.
int get_region_comms(MPIX_Comm *xcomm, Locality locality, MPI_Comm *local, MPI_Comm *cross);

// Builds regions from a per-rank key (equal keys share a region), for emulation and tests.
void build_regions_from_keys(const std::vector<long long> &key_of_rank, int rank, Regions *out);

// TEST HOOK (internal, not in mpix.h): installs an arbitrary node map (equal keys
// share a node) and optionally a socket map (socket_key_of_rank, refined by node;
// empty: hwloc as usual), so tests can emulate round-robin placement and several
// sockets per node. Collective in effect (every rank must pass the same maps);
// MPIX_Comm_update_locality(xcomm, ppn) replaces it again.
int set_emulated_regions(MPIX_Comm *xcomm, const std::vector<long long> &node_key_of_rank,
                         const std::vector<long long> &socket_key_of_rank = {});

// hwloc: the index of the package this process is bound to, or 0 when unbound
// or bound across packages (one region per node).
int current_package_index();

}  // namespace mpix

#endif
