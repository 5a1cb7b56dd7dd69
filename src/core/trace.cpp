#include "core/trace.hpp"

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

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
void write_json_string(std::FILE *f, const std::string &s)
{
    std::fputc('"', f);
    for (char c : s) {
        if (c == '"' || c == '\\')
            std::fputc('\\', f);
        if (static_cast<unsigned char>(c) >= 0x20)
            std::fputc(c, f);
    }
    std::fputc('"', f);
}
}  // namespace

std::unique_ptr<Trace> open_trace(const std::string &prefix, int rank, const char *call, const char *algorithm,
                                  const LocalWork *work)
{
    if (prefix.empty())
        return nullptr;
    std::unique_ptr<Trace> t(new Trace(prefix + "." + std::to_string(rank) + ".jsonl", call, algorithm));
    t->count_copies(work, work->bytes());
    return t;
}

Trace::~Trace()
{
    std::FILE *f = std::fopen(path_.c_str(), "a");
    if (!f)
        return;  // tracing is best effort; the exchange itself succeeded
    const unsigned long long copied = work_ ? static_cast<unsigned long long>(work_->bytes() - copied_start_) : 0;
    for (const Round &r : rounds_) {
        std::fputs("{\"call\":", f);
        write_json_string(f, call_);
        std::fputs(",\"algorithm\":", f);
        write_json_string(f, algorithm_);
        std::fputs(",\"params\":", f);
        write_json_string(f, params_);
        std::fprintf(f, ",\"round\":%d,\"send_peer\":%d,\"recv_peer\":%d,\"blocks\":[", r.round,
                     r.send_peer, r.recv_peer);
        for (std::size_t i = 0; i < r.blocks.size(); ++i)
            std::fprintf(f, i ? ",%lld" : "%lld", r.blocks[i]);
        std::fprintf(f, "],\"bytes_sent\":%zu,\"bytes_recv\":%zu,\"temp_bytes\":%zu", r.sent, r.recv,
                     temp_peak_);
        if (stage_peak_ > 0)
            std::fprintf(f, ",\"stage_bytes\":%zu,\"stage_peak\":%zu", r.staged, stage_peak_);
        std::fprintf(f, ",\"copied_bytes\":%llu", copied);
        std::fputs("}\n", f);
    }
    std::fclose(f);
}

}  // namespace mpix
