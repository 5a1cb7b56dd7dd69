// The MPIX_Topo object and the point-to-point helpers every backend shares.
#include <cstdint>
#include <utility>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "neighbor/neighbor.hpp"

MPIX_Topo::MPIX_Topo(MPIX_Comm *xcomm_, std::vector<int> sources_, std::vector<int> destinations_)
    : xcomm(xcomm_), sources(std::move(sources_)), destinations(std::move(destinations_))
{
    ++xcomm->live_objects;
}

MPIX_Topo::~MPIX_Topo() { --xcomm->live_objects; }

namespace mpix {

int start_in_order(std::vector<MPI_Request> &requests)
{
    for (MPI_Request &r : requests)
        MPIX_CHECK(MPI_Start(&r));
    return MPI_SUCCESS;
}

void free_requests(std::vector<MPI_Request> &requests)
{
    for (MPI_Request &r : requests)
        if (r != MPI_REQUEST_NULL)
            MPI_Request_free(&r);
    requests.clear();
}

int complete_checked(std::vector<MPI_Request> &requests, const std::size_t *posted, bool blocking,
                     bool *done, int *mismatch)
{
    *done = true;
    if (requests.empty())
        return MPI_SUCCESS;
    std::vector<MPI_Status> statuses(requests.size());
    int rc;
    if (blocking) {
        rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data());
    } else {
        int flag = 0;
        rc = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag, statuses.data());
        if (rc == MPI_SUCCESS && !flag) {
            *done = false;
            return MPI_SUCCESS;
        }
    }
    // Only MPI_ERR_IN_STATUS fills the statuses' error fields.
    const bool per_status = rc == MPI_ERR_IN_STATUS;
    if (rc != MPI_SUCCESS && !per_status)
        return rc;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        int err = per_status ? statuses[i].MPI_ERROR : MPI_SUCCESS;
        if (!posted || posted[i] == SIZE_MAX) {  // a send, or an exact-length receive
            if (err != MPI_SUCCESS && err != MPI_ERR_PENDING)
                return err;
            continue;
        }
        int err_class = err;
        if (err != MPI_SUCCESS)
            MPI_Error_class(err, &err_class);
        if (err_class == MPI_ERR_TRUNCATE) {
            if (*mismatch == MPI_SUCCESS)
                *mismatch = MPI_ERR_TRUNCATE;
            continue;
        }
        if (err != MPI_SUCCESS && err != MPI_ERR_PENDING)
            return err;
        int received = 0;
        MPI_Get_count(&statuses[i], MPI_BYTE, &received);
        if (static_cast<std::size_t>(received) < posted[i] && *mismatch == MPI_SUCCESS)
            *mismatch = MPI_ERR_COUNT;
    }
    return MPI_SUCCESS;
}

}  // namespace mpix
