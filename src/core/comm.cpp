// MPIX_Comm internals: tags, hints, topology drops (the public functions are in api/comm.cpp).
#include "core/comm.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "core/error.hpp"
#include "mpix.h"

namespace mpix {

CacheKey &CacheKey::add(std::string_view text)
{
    if (long_.empty() && len_ + text.size() <= sizeof(buf_)) {
        std::memcpy(buf_ + len_, text.data(), text.size());
        len_ += text.size();
    } else {
        if (long_.empty())
            long_.assign(buf_, len_);
        long_.append(text);
    }
    return *this;
}

CacheKey &CacheKey::add(long long number)
{
    char digits[24];
    const std::to_chars_result r = std::to_chars(digits, digits + sizeof(digits), number);
    return add(std::string_view(digits, static_cast<std::size_t>(r.ptr - digits)));
}

int allocate_tags(MPIX_Comm *xcomm)
{
    // Tags cycle through [kTagsPerCall, tag_ub]; a wrap needs 500+ calls in
    // flight between two ranks before it could collide (an exchange cannot end on
    // one rank before every other rank has sent it its data, so ranks are at most
    // one call apart).
    // The lower half of the tag space: persistent requests keep tags from the
    // upper half for their lifetime (core/request.cpp).
    int slots = xcomm->tag_ub / kTagsPerCall / 2 - 1;
    int tag = kTagsPerCall * (1 + xcomm->next_tag);
    xcomm->next_tag = (xcomm->next_tag + 1) % slots;
    return tag;
}

Hints resolve_hints(const MPIX_Comm *xcomm, const MPIX_Info *call_info)
{
    Hints h = xcomm->hints;
    if (call_info)
        apply_hints(call_info->values, xcomm->lookup, &h);
    return h;
}

int check_call_info(const MPIX_Info *call_info, const char **why)
{
    if (call_info && call_info->values.count("tuning_file")) {
        *why = "hint tuning_file is a communicator's (MPIX_Comm_set_info, MPIX_TUNING_FILE), not a per-call hint";
        return MPI_ERR_INFO_KEY;
    }
    return MPI_SUCCESS;
}

namespace {

// auto's kept picks (MPIX_Comm::auto_memo) hold only while what they depend on does.
void forget_auto_picks(MPIX_Comm *xcomm)
{
    ++xcomm->selection_epoch;
    for (auto &m : xcomm->auto_memo)
        m = MPIX_Comm::AutoMemo();
    for (auto &m : xcomm->pass_memo)
        m = MPIX_Comm::PassMemo();
}

}  // namespace

void drop_topology(MPIX_Comm *xcomm)
{
    forget_auto_picks(xcomm);
    for (auto &r : xcomm->regions)
        r.reset();
    for (auto it = xcomm->cache.begin(); it != xcomm->cache.end();) {
        if (it->second->depends_on_topology())
            it = xcomm->cache.erase(it);
        else
            ++it;
    }
}

void refresh_hints(MPIX_Comm *xcomm)
{
    xcomm->hints = Hints();
    xcomm->rule_hints.clear();
    forget_auto_picks(xcomm);
    apply_hints(xcomm->env_values, xcomm->lookup, &xcomm->hints);
    apply_hints(xcomm->info_values, xcomm->lookup, &xcomm->hints);
}

int read_environment(AlgorithmLookup lookup, std::map<std::string, std::string> *values, int *ppn, std::string *bad)
{
    if (const char *value = std::getenv("MPIX_PPN")) {
        const char *why = nullptr;
        int rc = parse_emulated_ppn(value, ppn, &why);
        if (rc != MPI_SUCCESS) {
            *bad = std::string("environment variable MPIX_PPN: ") + why;
            return rc;
        }
    }
    for (const HintKey *k = hint_keys(); k->key; ++k) {
        std::string var = "MPIX_";
        for (const char *p = k->key; *p; ++p)
            var += static_cast<char>(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        const char *value = std::getenv(var.c_str());
        if (!value)
            continue;
        const char *why = nullptr;
        int rc = validate_hint(k->key, value, lookup, &why);
        if (rc != MPI_SUCCESS) {
            *bad = "environment variable " + var + ": " + why;
            return rc;
        }
        (*values)[k->key] = value;
    }
    return MPI_SUCCESS;
}

}  // namespace mpix

