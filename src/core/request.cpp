#include "core/request.hpp"

#include <algorithm>

#include "core/comm.hpp"

MPIX_Request::MPIX_Request(MPIX_Comm *xcomm_, const char *init_fn_) : xcomm(xcomm_), init_fn(init_fn_)
{
    ++xcomm->live_objects;
}

MPIX_Request::~MPIX_Request()
{
    --xcomm->live_objects;
    // Freed while queued cannot happen (an active request is not freed); be safe.
    auto &q = xcomm->deferred;
    q.erase(std::remove(q.begin(), q.end(), this), q.end());
}

namespace mpix {

void defer(MPIX_Request *request)
{
    request->queued = true;
    request->deferred_rc = MPI_SUCCESS;
    request->xcomm->deferred.push_back(request);
}

void run_deferred(MPIX_Comm *xcomm, const MPIX_Request *upto)
{
    auto &q = xcomm->deferred;
    if (upto && !upto->queued)
        return;
    while (!q.empty()) {
        MPIX_Request *r = q.front();
        q.pop_front();
        r->queued = false;
        r->deferred_rc = r->run_deferred();
        if (r == upto)
            return;
    }
}

int allocate_persistent_tags(MPIX_Comm *xcomm)
{
    // The upper half of the tag space; calls cycle through the lower half.
    const int slots = xcomm->tag_ub / kTagsPerCall / 2 - 1;
    const int tag = kTagsPerCall * (xcomm->tag_ub / kTagsPerCall / 2 + 1 + xcomm->next_persistent_tag);
    xcomm->next_persistent_tag = (xcomm->next_persistent_tag + 1) % slots;
    return tag;
}

}  // namespace mpix
