#include "core/request.hpp"

#include "core/comm.hpp"

MPIX_Request::MPIX_Request(MPIX_Comm *xcomm_, const char *init_fn_, bool persistent_)
    : xcomm(xcomm_), init_fn(init_fn_), persistent(persistent_)
{
    ++xcomm->live_objects;
}

MPIX_Request::~MPIX_Request()
{
    --xcomm->live_objects;
}

namespace mpix {

int allocate_persistent_tags(MPIX_Comm *xcomm)
{
    // The upper half of the tag space; calls cycle through the lower half.
    const int slots = xcomm->tag_ub / kTagsPerCall / 2 - 1;
    const int tag = kTagsPerCall * (xcomm->tag_ub / kTagsPerCall / 2 + 1 + xcomm->next_persistent_tag);
    xcomm->next_persistent_tag = (xcomm->next_persistent_tag + 1) % slots;
    return tag;
}

}  // namespace mpix
