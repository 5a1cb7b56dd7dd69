// mpix-bench's sweep (bench/sweep.hpp).
#include "sweep.hpp"

#include <algorithm>
#include <cstdio>

#include "config.h"
#include "reporters.hpp"
#include "select/registry.hpp"

namespace mpixbench {

std::string resolve_algorithms(mpix::Collective coll, const std::vector<std::string> &names,
                               std::vector<const mpix::Algorithm *> *out, bool *with_auto)
{
    out->clear();
    *with_auto = false;
    for (const std::string &name : names) {
        if (name == "all") {
            for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i)
                out->push_back(a);
            *with_auto = true;
        } else if (name == "auto") {
            *with_auto = true;
        } else if (name[0] == '-') {  // all,-linear: drop one again
            if (name == "-auto")
                *with_auto = false;
            out->erase(std::remove_if(out->begin(), out->end(),
                                      [&](const mpix::Algorithm *a) { return name.substr(1) == a->name; }),
                       out->end());
        } else if (const mpix::Algorithm *a = mpix::find_algorithm(coll, name.c_str())) {
            out->push_back(a);
        } else {
            return std::string("no ") + mpix::collective_name(coll) + " algorithm named " + name + " (see --list)";
        }
    }
    return "";
}

std::vector<int> sweep_values(const std::vector<int> &given, bool radix, int p)
{
    if (given.empty())
        return {0};  // the algorithm's default
    if (given[0] != kSweepValues)
        return given;
    std::vector<int> v;
    if (radix) {
        // 2, 3, 4, 6, 8, 12, 16, ... up to P, then P itself.
        for (int b = 2; b <= p; b *= 2) {
            v.push_back(b);
            if (b + b / 2 <= p)
                v.push_back(b + b / 2);
        }
        if (v.empty() || v.back() != p)
            v.push_back(std::max(2, p));
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    } else {
        for (int b = 1; b <= std::max(1, p); b *= 2)
            v.push_back(b);
    }
    return v;
}

bool reads_hint(const mpix::Algorithm *a, const char *key)
{
    std::string keys = std::string(",") + a->hint_keys + ",";
    return keys.find(std::string(",") + key + ",") != std::string::npos;
}

std::string params_text(const HintList &hints)
{
    std::string t;
    for (const auto &kv : hints)
        t += (t.empty() ? "" : ";") + kv.first + "=" + kv.second;
    return t.empty() ? "default" : t;
}

namespace {

using mpix::Collective;

bool is_crs(Collective c) { return c == Collective::alltoall_crs || c == Collective::alltoallv_crs; }

// The hints of one parameter set: radix and batch_size where set (> 0), then --hint's.
HintList candidate_hints(int radix, int batch, const HintList &extra)
{
    HintList hints;
    if (radix > 0)
        hints.emplace_back("radix", std::to_string(radix));
    if (batch > 0)
        hints.emplace_back("batch_size", std::to_string(batch));
    hints.insert(hints.end(), extra.begin(), extra.end());
    return hints;
}

class Bench {
public:
    Bench(const BenchOptions &o, Runner &runner) : o_(o), runner_(runner), me_(runner.rank()) {}

    int run()
    {
        int rc = o_.osu ? run_osu() : run_table();
        // The exchange ran (1: some row failed verification, its bytes are still these).
        if ((rc == 0 || rc == 1) && !o_.workload_out.empty()) {
            int written = write_workload();
            if (written)
                rc = written;
        }
        return rc;
    }

private:
    int run_table();
    int run_osu();
    int write_workload();
    // This size's point on the runner; 2 (with the reason on stderr) when any rank cannot.
    int prepare(long long size);
    // Timed and untimed calls per parameter set: the options, or OSU's defaults by size.
    int iters_for(long long s) const { return o_.iters >= 0 ? o_.iters : s > 8192 ? 100 : 1000; }
    int warmup_for(long long s) const { return o_.warmup >= 0 ? o_.warmup : s > 8192 ? 10 : 100; }
    // The table's untimed calls (BenchOptions::warmup): the option, or natively
    // kTableWarmup up to kTableWarmupAbove bytes and kTableWarmupLarge above.
    int table_warmup_for(long long s) const { return table_warmup(o_.warmup, s); }
    RunDescription description() const
    {
        RunDescription d;
        d.coll = o_.coll;
        d.ranks = runner_.ranks();
        d.nodes = runner_.nodes();
        d.ppn = (d.ranks + d.nodes - 1) / d.nodes;
        d.dist = o_.dist;
        d.seed = o_.seed;
        d.iters = o_.iters;
        d.warmup = o_.warmup;
        d.overlap = o_.overlap;
        return d;
    }

    const BenchOptions &o_;
    Runner &runner_;
    const int me_;
    long long prepared_size_ = -1;  // the size the runner holds, -1 none
};

int Bench::prepare(long long size)
{
    std::string why;
    prepared_size_ = -1;
    if (runner_.prepare(Point{o_.coll, size, o_.dist, o_.seed}, &why)) {
        if (me_ == 0)
            std::fprintf(stderr, "mpix-bench: %s\n", why.c_str());
        return 2;
    }
    prepared_size_ = size;
    return 0;
}

int Bench::run_table()
{
    // Algorithms to run, in registry order; `auto` last.
    std::vector<const mpix::Algorithm *> algos;
    bool with_auto = false;
    std::string error = resolve_algorithms(o_.coll, o_.algos, &algos, &with_auto);
    if (!error.empty()) {
        if (me_ == 0)
            std::fprintf(stderr, "mpix-bench: %s\n", error.c_str());
        return 2;
    }

    // The baseline: the MPI collective (dense), or the `personalized` backend (crs).
    std::string base = o_.baseline;
    const mpix::Algorithm *base_algo = nullptr;
    if (is_crs(o_.coll) && base == "mpi")
        base = "personalized";
    if (base != "mpi" && base != "none") {
        base_algo = mpix::find_algorithm(o_.coll, base.c_str());
        if (!base_algo) {
            if (me_ == 0)
                std::fprintf(stderr, "mpix-bench: baseline %s is not a %s algorithm\n", base.c_str(),
                             mpix::collective_name(o_.coll));
            return 2;
        }
    }
    // --overlap: the MPI library's nonblocking collective (MPI_Ialltoall(v)).
    const char *mpi_collective = mpi_collective_name(o_.coll);  // "MPI_Alltoallv"
    const std::string mpi_label = !mpi_collective ? ""
                                  : o_.overlap    ? std::string("MPI_Ia") + (mpi_collective + 5)
                                                  : std::string(mpi_collective);
    const char *mpi_name = mpi_collective ? mpi_label.c_str() : nullptr;
    TableNotes notes;
    notes.persistent = o_.persistent;
    notes.overlap = o_.overlap;
    notes.overlap_slices = o_.overlap_slices;
    notes.speedup_versus = is_crs(o_.coll) && o_.baseline == "mpi" ? "the personalized backend"
                           : o_.baseline == "mpi"                  ? mpi_name
                                                                   : o_.baseline;
    if (base == "mpi" && !mpi_collective_available(o_.coll)) {
        if (me_ == 0)
            std::fprintf(stderr, "mpix-bench: note: no %s row: SimGrid SMPI does not implement MPI_Dist_graph_create*"
                                 " or MPI_Neighbor_* (they abort); no speedup column (--baseline NAME gives one)\n",
                         mpi_name);
        base = "none";
        notes.mpi_row_unavailable = true;
    }
    const std::string base_label = base == "mpi" ? mpi_name : base == "none" ? "" : "baseline:" + base;
    // --persistent: the MPI library's own persistent form beside its blocking one, where it has one.
    const bool mpi_persistent = o_.persistent && base == "mpi" && MPI_VERSION >= 4 && !MPIX_SMPI;
    auto persistent_params = [](const std::string &params) {
        return params == "default" ? std::string("persistent") : params + ";persistent";
    };

    const int p = runner_.ranks();
    const std::vector<int> radixes = sweep_values(o_.radix, true, p), batches = sweep_values(o_.batch, false, p);
    int total = 0;  // progress
    for (const mpix::Algorithm *a : algos)
        total += (reads_hint(a, "radix") ? (int)radixes.size() : 1) *
                 (reads_hint(a, "batch_size") ? (int)batches.size() : 1);
    total = (total + (with_auto ? 1 : 0)) * (o_.persistent ? 2 : 1) + (base_label.empty() ? 0 : 1) + mpi_persistent;
    total *= (int)o_.sizes.size();

    std::vector<ResultRow> rows;
    bool all_ok = true;
    int done = 0;
    auto progress = [&](const std::string &what, long long s) {
        ++done;
        if (me_ == 0)
            std::fprintf(stderr, "[%d/%d] %s S=%lld\n", done, total, what.c_str(), s), std::fflush(stderr);
    };
    // Each row's result as soon as it is known: long simulations that are
    // stopped early still leave their figures in the log.
    auto add = [&](ResultRow row) {
        all_ok &= row.measured.verified != "FAILED";
        if (me_ == 0) {
            const Measurement &m = row.measured;
            char overlap[128] = "";
            if (m.overlap)
                std::snprintf(overlap, sizeof overlap, " (pure), overall %.2f us, compute %.2f us, overlap %.1f %%",
                              m.overall_us, m.compute_us, m.overlap_pct);
            std::fprintf(stderr, "    %s %s S=%lld: median %.2f us%s, verified %s%s%s%s\n", row.algorithm.c_str(),
                         row.params.c_str(), row.size, m.median_us, overlap, m.verified.c_str(),
                         m.error.empty() ? "" : " (", m.error.c_str(), m.error.empty() ? "" : ")");
            std::fflush(stderr);
        }
        rows.push_back(std::move(row));
    };
    auto measured = [&](const std::string &label, const Candidate &c, CallForm form, long long s,
                        const std::string &params) {
        ResultRow row;
        row.algorithm = label;
        row.size = s;
        row.measured = o_.overlap ? runner_.measure_overlap(c, o_.overlap_slices) : runner_.measure(c, form);
        row.params = params;
        return row;
    };
    for (long long s : o_.sizes) {
        if (prepare(s))
            return 2;
        runner_.set_iterations(o_.iters, table_warmup_for(s));
        mpix::sim::Bound bound;
        const bool have_bound = runner_.lower_bound(&bound);
        if (have_bound)
            notes.bounds[s] = bound;
        const std::size_t first = rows.size();
        double base_median = 0;
        if (!base_label.empty()) {
            progress(base_label, s);
            Candidate c{base_algo ? base_algo->name : "", base_algo ? o_.hints : HintList{}};
            add(measured(base_label, c, CallForm::blocking, s, base_algo ? "default (baseline)" : "(baseline)"));
            base_median = rows.back().measured.median_us;
        }
        if (mpi_persistent) {
            progress(std::string(mpi_name) + "_init", s);
            add(measured(mpi_name, Candidate{"", {}}, CallForm::persistent, s, "persistent"));
        }
        for (const mpix::Algorithm *a : algos)
            for (int r : reads_hint(a, "radix") ? radixes : std::vector<int>{0})
                for (int b : reads_hint(a, "batch_size") ? batches : std::vector<int>{0}) {
                    const Candidate c{a->name, candidate_hints(r, b, o_.hints)};
                    const std::string params = params_text(c.hints);
                    progress(std::string(a->name) + " " + params, s);
                    add(measured(a->name, c, CallForm::blocking, s, params));
                    if (!o_.persistent)
                        continue;
                    progress(std::string(a->name) + " " + persistent_params(params), s);
                    add(measured(a->name, c, CallForm::persistent, s, persistent_params(params)));
                }
        if (with_auto) {
            const Candidate c{"auto", o_.hints};
            progress("auto", s);
            ResultRow row = measured("auto", c, CallForm::blocking, s, "");
            row.params = "picked=" + row.measured.picked;
            add(std::move(row));
            if (o_.persistent) {
                progress("auto persistent", s);
                add(measured("auto", c, CallForm::persistent, s, "persistent"));
            }
        }
        for (std::size_t i = first; i < rows.size(); ++i) {
            const double median = rows[i].measured.median_us;
            rows[i].speedup = base_label.empty() || median <= 0 ? 0 : base_median / median;
            rows[i].bound_us = have_bound ? bound.seconds() * 1e6 : 0;
        }
    }
    if (me_ == 0) {
        const RunDescription run = description();
        print_table(stdout, run, notes, rows);
        if (!o_.csv.empty()) {
            const std::string problem = append_csv(o_.csv, run, rows);
            if (!problem.empty())
                std::fprintf(stderr, "mpix-bench: %s\n", problem.c_str());
        }
        if (!o_.json.empty()) {
            const std::string problem = write_json(o_.json, run, rows);
            if (!problem.empty())
                std::fprintf(stderr, "mpix-bench: %s\n", problem.c_str());
        }
    }
    return all_ok ? 0 : 1;
}

// --format osu: one algorithm, rows printed as they are measured.
int Bench::run_osu()
{
    const std::string &name = o_.algos[0];
    const mpix::Algorithm *a = nullptr;
    if (name != "mpi" && name != "auto" && !(a = mpix::find_algorithm(o_.coll, name.c_str()))) {
        if (me_ == 0)
            std::fprintf(stderr, "mpix-bench: no %s algorithm named %s (see --list; or auto, mpi)\n",
                         mpix::collective_name(o_.coll), name.c_str());
        return 2;
    }
    const int p = runner_.ranks();
    const int radix = a && reads_hint(a, "radix") && !o_.radix.empty() ? o_.radix[0] : 0;
    const int batch = a && reads_hint(a, "batch_size") && !o_.batch.empty() ? o_.batch[0] : 0;
    const Candidate candidate{name == "mpi" ? "" : name, candidate_hints(radix, batch, o_.hints)};
    // OSU's memory limit for its size range: a buffer of size * P bytes at most 512 MiB.
    const long long mem_limit = 512LL << 20;
    std::vector<long long> sizes;
    for (long long s : o_.sizes)
        if (!o_.osu_range || s * p <= mem_limit)
            sizes.push_back(s);
    if (me_ == 0 && sizes.size() < o_.sizes.size())
        std::fprintf(stderr,
                     "mpix-bench: sizes above %lld bytes left out: size x %d ranks exceeds 512 MiB per buffer"
                     " (OSU's default limit; --size lists sizes without it)\n",
                     sizes.empty() ? 0LL : sizes.back(), p);

    OsuHeader header;
    header.alltoall = o_.coll == Collective::alltoall;
    header.algorithm = name;
    header.params = name == "mpi" || (name == "auto" && o_.hints.empty()) ? "" : params_text(candidate.hints);
    if (header.params == "default")
        header.params.clear();
    header.ranks = p;
    header.nodes = runner_.nodes();
    header.ppn = (p + header.nodes - 1) / header.nodes;
    header.dist = o_.dist;
    header.seed = o_.seed;
    header.full = o_.osu_full;
    header.validation = o_.osu_validation;
    header.overlap = o_.overlap;
    header.overlap_slices = o_.overlap_slices;
    if (me_ == 0)
        print_osu_header(stdout, header);
    bool all_ok = true;
    std::vector<std::pair<long long, std::string>> picks;
    for (long long s : sizes) {
        if (prepare(s))
            return 2;
        runner_.set_iterations(iters_for(s), warmup_for(s));
        const Measurement m =
            o_.overlap ? runner_.measure_overlap(candidate, o_.overlap_slices) : runner_.measure(candidate);
        const bool ok = m.verified != "FAILED";
        all_ok &= ok;
        if (name == "auto")
            picks.emplace_back(s, m.picked);
        if (me_ != 0)
            continue;
        print_osu_row(stdout, header, s, m);
        if (!ok)
            std::fprintf(stderr, "mpix-bench: %s size %lld: a wrong byte or an error code on some rank%s%s%s\n",
                         name.c_str(), s, m.error.empty() ? "" : " (rank 0: ", m.error.c_str(),
                         m.error.empty() ? "" : ")");
    }
    if (me_ == 0)
        print_osu_picks(stdout, picks);
    return all_ok ? 0 : 1;
}

// --workload-out: the one size's blocks as sent, gathered on rank 0 and written
// with the library's node of each rank. Collective; 2 on every rank when rank 0
// cannot write the file.
int Bench::write_workload()
{
    const long long s = o_.sizes.front();
    if (prepared_size_ != s && prepare(s))
        return 2;
    WorkloadRecord record;
    record.bytes = runner_.gather_sent_bytes();
    int ok = 1;
    if (me_ == 0) {
        record.coll = o_.coll;
        record.ranks = runner_.ranks();
        record.ranks_per_node_max = runner_.ranks_per_node_max();
        record.nodes = runner_.nodes();
        record.dist = o_.dist;
        record.size = s;
        record.seed = o_.seed;
        record.node_of = runner_.node_of();
        const std::string problem = write_workload_json(o_.workload_out, record);
        if (!problem.empty()) {
            std::fprintf(stderr, "mpix-bench: --workload-out: %s\n", problem.c_str());
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, runner_.comm());
    return ok ? 0 : 2;
}

}  // namespace

int run_bench(const BenchOptions &o, Runner &runner)
{
    Bench bench(o, runner);
    return bench.run();
}

}  // namespace mpixbench
