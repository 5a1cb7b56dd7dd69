// Node and socket regions: MPI_Comm_split_type for nodes, hwloc for sockets,
// or the emulation set by MPIX_Comm_update_locality.
#include "topo/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <map>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace mpix {

Regions::~Regions()
{
    if (local != MPI_COMM_NULL)
        MPI_Comm_free(&local);
    if (cross != MPI_COMM_NULL)
        MPI_Comm_free(&cross);
}

void build_regions_from_keys(const std::vector<long long> &key_of_rank, int rank, Regions *out)
{
    int p = static_cast<int>(key_of_rank.size());
    std::map<long long, int> region_of_key;  // numbered by lowest rank
    out->region_of.assign(p, 0);
    out->index_of.assign(p, 0);
    std::vector<int> sizes;
    for (int r = 0; r < p; ++r) {
        auto it = region_of_key.find(key_of_rank[r]);
        if (it == region_of_key.end()) {
            it = region_of_key.emplace(key_of_rank[r], static_cast<int>(sizes.size())).first;
            sizes.push_back(0);
        }
        out->region_of[r] = it->second;
        out->index_of[r] = sizes[it->second]++;
    }
    out->count = static_cast<int>(sizes.size());
    out->offsets.assign(out->count + 1, 0);
    for (int g = 0; g < out->count; ++g)
        out->offsets[g + 1] = out->offsets[g] + sizes[g];
    out->members.assign(p, 0);
    for (int r = 0; r < p; ++r)
        out->members[out->offsets[out->region_of[r]] + out->index_of[r]] = r;
    out->max_size = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    out->my_region = out->region_of[rank];
    out->my_index = out->index_of[rank];
}

int current_package_index()
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return 0;
    int index = 0;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
            hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topo, set);
            while (obj && obj->type != HWLOC_OBJ_PACKAGE)
                obj = obj->parent;
            // Bound inside one package: that package; unbound or spanning: region 0.
            index = obj ? static_cast<int>(obj->logical_index) : 0;
        }
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
    return index;
}

namespace {

// Node id of every rank: the lowest rank of its shared-memory node, or rank/ppn.
int node_keys(MPIX_Comm *x, std::vector<long long> *keys)
{
    keys->assign(x->size, 0);
    if (x->emulated_ppn < 0) {
        *keys = x->emulated_node_keys;
        return MPI_SUCCESS;
    }
    if (x->emulated_ppn > 0) {
        for (int r = 0; r < x->size; ++r)
            (*keys)[r] = r / x->emulated_ppn;
        return MPI_SUCCESS;
    }
    MPI_Comm shared;
    MPIX_CHECK(MPI_Comm_split_type(x->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
    int leader = x->rank;
    int rc = MPI_Allreduce(&x->rank, &leader, 1, MPI_INT, MPI_MIN, shared);
    MPI_Comm_free(&shared);
    MPIX_CHECK(rc);
    long long mine = leader;
    return MPI_Allgather(&mine, 1, MPI_LONG_LONG, keys->data(), 1, MPI_LONG_LONG, x->comm);
}

}  // namespace

int get_regions(MPIX_Comm *x, Locality locality, const Regions **out)
{
    int which = static_cast<int>(locality);
    if (!x->regions[which]) {
        std::vector<long long> keys;
        if (locality == Locality::node) {
            MPIX_CHECK(node_keys(x, &keys));
        } else {
            const Regions *nodes = nullptr;
            MPIX_CHECK(get_regions(x, Locality::node, &nodes));
            keys.assign(x->size, 0);
            if (x->emulated_ppn < 0 && !x->emulated_socket_keys.empty()) {
                for (int r = 0; r < x->size; ++r)
                    keys[r] = static_cast<long long>(nodes->region_of[r]) * 65536 + x->emulated_socket_keys[r];
            } else {
                long long mine = static_cast<long long>(nodes->my_region) * 65536 + current_package_index();
                MPIX_CHECK(MPI_Allgather(&mine, 1, MPI_LONG_LONG, keys.data(), 1, MPI_LONG_LONG, x->comm));
            }
        }
        std::unique_ptr<Regions> r(new Regions());
        build_regions_from_keys(keys, x->rank, r.get());
        x->regions[which] = std::move(r);
    }
    *out = x->regions[which].get();
    return MPI_SUCCESS;
}

int get_region_comms(MPIX_Comm *x, Locality locality, MPI_Comm *local, MPI_Comm *cross)
{
    const Regions *cr = nullptr;
    MPIX_CHECK(get_regions(x, locality, &cr));
    Regions *r = x->regions[static_cast<int>(locality)].get();
    if (r->local == MPI_COMM_NULL) {
        MPIX_CHECK(MPI_Comm_split(x->comm, r->my_region, r->my_index, &r->local));
        MPIX_CHECK(MPI_Comm_split(x->comm, r->my_index, r->my_region, &r->cross));
    }
    if (local)
        *local = r->local;
    if (cross)
        *cross = r->cross;
    return MPI_SUCCESS;
}

int set_emulated_regions(MPIX_Comm *x, const std::vector<long long> &node_key_of_rank,
                         const std::vector<long long> &socket_key_of_rank)
{
    if (!x || static_cast<int>(node_key_of_rank.size()) != x->size ||
        (!socket_key_of_rank.empty() && static_cast<int>(socket_key_of_rank.size()) != x->size))
        return MPI_ERR_ARG;
    drop_topology(x);
    x->emulated_ppn = -1;
    x->emulated_node_keys = node_key_of_rank;
    x->emulated_socket_keys = socket_key_of_rank;
    return MPI_SUCCESS;
}

}  // namespace mpix
