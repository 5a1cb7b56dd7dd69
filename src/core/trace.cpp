#include "core/trace.hpp"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/local_work.hpp"

namespace mpix {

Trace::Trace(std::string path, const char *call, const char *algorithm)
    : path_(std::move(path)), call_(call), algorithm_(algorithm)
{
}

void Trace::round(int round, int send_peer, int recv_peer, const std::vector<long long> &blocks,
                  std::size_t bytes_sent, std::size_t bytes_recv, std::size_t stage_bytes)
{
    rounds_.push_back(Round{round, send_peer, recv_peer, blocks, bytes_sent, bytes_recv, stage_bytes});
}

namespace {
void append_json_string(std::string &out, const std::string &s)
{
    out += '"';
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20)
            out += c;
    }
    out += '"';
}
}  // namespace

std::unique_ptr<Trace> open_trace(const std::string &prefix, const std::string &group, int rank, const char *call,
                                  const char *algorithm, const LocalWork *work)
{
    if (prefix.empty())
        return nullptr;
    std::string path = prefix + ".";
    if (!group.empty())
        path += group + ".";
    std::unique_ptr<Trace> t(new Trace(path + std::to_string(rank) + ".jsonl", call, algorithm));
    t->count_copies(work, work->bytes());
    return t;
}

std::string trace_group_tag(MPI_Comm comm, bool world_available)
{
    if (!world_available)
        return "";
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int same = MPI_UNEQUAL;
    MPI_Group_compare(group, world, &same);
    std::string tag;
    if (same != MPI_IDENT) {
        int n = 0;
        MPI_Group_size(group, &n);
        std::vector<int> ranks(static_cast<std::size_t>(n)), in_world(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            ranks[static_cast<std::size_t>(i)] = i;
        MPI_Group_translate_ranks(group, n, ranks.data(), world, in_world.data());
        std::uint32_t hash = 2166136261u;  // FNV-1a over the world ranks' bytes
        for (int w : in_world)
            for (int b = 0; b < 4; ++b) {
                hash ^= static_cast<std::uint32_t>(w >> (8 * b)) & 0xffu;
                hash *= 16777619u;
            }
        char text[16];
        std::snprintf(text, sizeof text, "g%08x", static_cast<unsigned>(hash));
        tag = text;
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    return tag;
}

Trace::~Trace()
{
    // The whole call's lines go out in one append, so lines of the same file
    // written by other processes or threads never interleave within a call.
    std::string text;
    const unsigned long long copied = work_ ? static_cast<unsigned long long>(work_->bytes() - copied_start_) : 0;
    char number[160];
    for (const Round &r : rounds_) {
        text += "{\"call\":";
        append_json_string(text, call_);
        text += ",\"algorithm\":";
        append_json_string(text, algorithm_);
        text += ",\"params\":";
        append_json_string(text, params_);
        std::snprintf(number, sizeof number, ",\"round\":%d,\"send_peer\":%d,\"recv_peer\":%d,\"blocks\":[", r.round,
                      r.send_peer, r.recv_peer);
        text += number;
        for (std::size_t i = 0; i < r.blocks.size(); ++i) {
            std::snprintf(number, sizeof number, i ? ",%lld" : "%lld", r.blocks[i]);
            text += number;
        }
        std::snprintf(number, sizeof number, "],\"bytes_sent\":%zu,\"bytes_recv\":%zu,\"temp_bytes\":%zu", r.sent,
                      r.recv, temp_peak_);
        text += number;
        if (stage_peak_ > 0) {
            std::snprintf(number, sizeof number, ",\"stage_bytes\":%zu,\"stage_peak\":%zu", r.staged, stage_peak_);
            text += number;
        }
        std::snprintf(number, sizeof number, ",\"copied_bytes\":%llu}\n", copied);
        text += number;
    }
    std::FILE *f = std::fopen(path_.c_str(), "a");
    if (!f)
        return;  // tracing is best effort; the exchange itself succeeded
    std::setvbuf(f, nullptr, _IONBF, 0);  // one write() of the whole text
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
}

}  // namespace mpix
