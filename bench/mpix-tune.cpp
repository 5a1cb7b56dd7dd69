// mpix-tune: measures every applicable registry algorithm and its parameter grid
// on the machine it is launched on (mpiexec, or SimGrid through sim/run), over
// block sizes and distributions, verifies every result, and writes a selection
// table (the library's `tuning_file`) with the winner per region and its margin.
// Rows go to a CSV as they are measured, so a stopped run resumes from it; the
// cost of the agreement a size-dependent alltoallv rule needs is measured too.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "mpix.h"
#include "options.hpp"
#include "reporters.hpp"
#include "runner.hpp"
#include "select/registry.hpp"
#include "sweep.hpp"
#include "tune_table.hpp"

namespace {

using mpix::Collective;
using Hints = std::vector<std::pair<std::string, std::string>>;

using Options = mpixbench::TuneOptions;

bool known_dist(const std::string &d)
{
    static const char *const names[] = {"uniform", "equal", "normal", "powerlaw", "fft1", "fft2"};
    for (const char *n : names)
        if (d == n)
            return true;
    return d.rfind("graph:", 0) == 0 || d.rfind("matrix:", 0) == 0 || d.rfind("traffic:", 0) == 0;
}

std::string duration_text(double seconds)
{
    const long long s = (long long)(seconds + 0.5);
    char text[32];
    if (s >= 3600)
        std::snprintf(text, sizeof text, "%lldh%02lldm", s / 3600, s / 60 % 60);
    else if (s >= 60)
        std::snprintf(text, sizeof text, "%lldm%02llds", s / 60, s % 60);
    else
        std::snprintf(text, sizeof text, "%llds", s);
    return text;
}

// Where the ranks are: the node of every world rank (emulated: ppn consecutive
// ranks; otherwise MPI_COMM_TYPE_SHARED, as the library finds them).
std::vector<int> node_layout(MPI_Comm world, int ppn)
{
    int p, me;
    MPI_Comm_size(world, &p);
    MPI_Comm_rank(world, &me);
    std::vector<int> node_of((std::size_t)p);
    if (ppn > 0) {
        for (int r = 0; r < p; ++r)
            node_of[(std::size_t)r] = r / ppn;
        return node_of;
    }
    MPI_Comm host;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    int leader = me;  // the host's lowest world rank names it
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, host);
    MPI_Comm_free(&host);
    MPI_Allgather(&leader, 1, MPI_INT, node_of.data(), 1, MPI_INT, world);
    return node_of;
}

// One measurement of the plan: a candidate at a point, or the agreement's cost.
struct Step {
    int ranks;
    Collective coll;
    long long size;
    std::string dist;
    mpixbench::Candidate candidate;  // algorithm "agreement": the allreduce
    std::string params;
};

// Everything measured at one P, in order.
struct PlanForP {
    int ranks = 0, nodes = 0, max_ranks_per_node = 0;
    std::vector<Step> steps;
};

// Every registry row of `coll` that the options select, with every grid value
// of the keys it reads (radix clamped to P, leaders to the largest node).
std::vector<std::pair<mpixbench::Candidate, std::string>> candidates_for(Collective coll, const Options &o, int p,
                                                                         int max_rpn)
{
    std::vector<std::pair<mpixbench::Candidate, std::string>> out;
    auto clamp = [](std::vector<int> v, int most) {
        for (int &x : v)
            x = std::min(x, most);
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
    };
    const std::vector<int> radix = clamp(o.radix, std::max(2, p)), leaders = clamp(o.leaders, std::max(1, max_rpn));
    auto wanted = [&](const char *name) {
        bool in = false;
        for (const std::string &a : o.algos)
            in = (a == "all" || a == name) ? true : a == std::string("-") + name ? false : in;
        return in && std::find(o.exclude.begin(), o.exclude.end(), name) == o.exclude.end();
    };
    for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(coll, i); ++i) {
        // `randomized` is itself a selection (auto's pick below 512 B): a table
        // naming it would measure one block size and run another row at the next.
        if (!wanted(a->name) || !std::strcmp(a->name, "randomized"))
            continue;
        // The grid, key by key: every combination of the values of the keys it reads.
        std::vector<Hints> grid{{}};
        // `with_default`: also the row without the key (its own default, e.g.
        // node_bruck's radix from the bytes, ParLogNa's ceil(sqrt(P))).
        auto expand = [&](const char *key, const std::vector<std::string> &values, bool with_default = false) {
            if (!mpixbench::reads_hint(a, key))
                return;
            std::vector<Hints> next;
            for (const Hints &h : grid) {
                if (with_default)
                    next.push_back(h);
                for (const std::string &v : values) {
                    next.push_back(h);
                    next.back().emplace_back(key, v);
                }
            }
            grid = next;
        };
        auto texts = [](const std::vector<int> &v) {
            std::vector<std::string> t;
            for (int x : v)
                t.push_back(std::to_string(x));
            return t;
        };
        expand("radix", texts(radix), true);
        expand("batch_size", texts(o.batch));
        expand("leaders_per_node", texts(leaders));
        expand("inner", o.inner);
        for (const Hints &h : grid)
            out.push_back({mpixbench::Candidate{a->name, h}, mpixbench::params_text(h)});
    }
    return out;
}

std::vector<PlanForP> make_plan(const Options &o, const std::vector<int> &node_of)
{
    std::vector<PlanForP> plan;
    for (int p : o.ranks) {
        PlanForP pp;
        pp.ranks = p;
        std::map<int, int> per_node;
        for (int r = 0; r < p; ++r)
            ++per_node[node_of[(std::size_t)r]];
        pp.nodes = (int)per_node.size();
        for (const auto &kv : per_node)
            pp.max_ranks_per_node = std::max(pp.max_ranks_per_node, kv.second);
        for (const std::string &name : o.colls) {
            Collective coll;
            mpix::collective_from_name(name.c_str(), &coll);
            const bool v = coll == Collective::alltoallv;
            if (v)  // what every size-dependent alltoallv rule pays, once per P
                pp.steps.push_back(Step{p, coll, 16, "allreduce", mpixbench::Candidate{"agreement", {}},
                                        o.agreement_us < 0 ? "default" : "given"});
            const auto cands = candidates_for(coll, o, p, pp.max_ranks_per_node);
            for (long long s : o.sizes)
                for (const std::string &d : v ? o.dists : std::vector<std::string>{"uniform"})
                    for (const auto &c : cands)
                        pp.steps.push_back(Step{p, coll, s, d, c.first, c.second});
        }
        plan.push_back(pp);
    }
    return plan;
}

int ppn_column(int p, int nodes) { return (p + nodes - 1) / std::max(1, nodes); }

std::string step_key(const Step &s, int nodes)
{
    return mpixbench::tune_key(mpix::collective_name(s.coll), s.candidate.algorithm, s.params, s.ranks,
                               ppn_column(s.ranks, nodes), s.size, s.dist);
}

// What agreeing on alltoallv's block statistics costs inside a call: a row
// (node_bruck, 16 B uniform blocks) timed fixed, then through a two-rule table
// whose first rule tests mean_block_bytes, so every call agrees as `auto` would
// (natively the library's MPI_Iallreduce, completed one call later; under SMPI a
// blocking recursive-doubling MPI_Allreduce, src/select/registry.cpp); the difference,
// never below 0. Warm-up calls keep the first call's blocking agreement out, and
// agreement_period=1 the schedule's calls that agree nothing: this is one
// agreement's cost. The table charges a call its share, one agreement in
// --agreement-period calls (docs/tuning.md).
// The table file is written by rank 0 (the only rank the library reads it on).
mpixbench::Measurement measure_agreement(mpixbench::Runner *runner, const Options &o, std::string *error)
{
    const int me = runner->rank();
    const std::string path = o.csv[0] + ".agreement.json";
    int written = 1;
    if (me == 0) {
        std::ofstream out(path);
        out << "{\"mpix_selection_table\": 1, \"description\": \"mpix-tune: a rule that agrees, for its cost\", "
               "\"alltoallv\": [{\"when\": {\"mean_block_bytes\": {\"max\": 0}}, \"algorithm\": \"node_bruck\"}, "
               "{\"algorithm\": \"node_bruck\"}]}\n";
        written = out.good() ? 1 : 0;
    }
    MPI_Bcast(&written, 1, MPI_INT, 0, runner->comm());
    mpixbench::Measurement m;
    if (!written) {
        m.verified = "FAILED";
        *error = "cannot write " + path;
        return m;
    }
    std::string why;
    if (runner->prepare(mpixbench::Point{mpix::Collective::alltoallv, 16, "uniform", (unsigned long long)o.seed},
                        &why)) {
        m.verified = "FAILED";
        *error = "cannot prepare the point: " + why;
        return m;
    }
    runner->set_iterations(std::max(o.iters, 3), std::max(o.warmup, 1));
    const mpixbench::Measurement fixed = runner->measure(mpixbench::Candidate{"node_bruck", {}});
    const mpixbench::Measurement agreed =
        runner->measure(mpixbench::Candidate{"auto", {{"tuning_file", path}, {"agreement_period", "1"}}});
    runner->set_iterations(o.iters, o.warmup);
    if (me == 0)
        std::remove(path.c_str());
    m.verified = fixed.verified == "FAILED" || agreed.verified == "FAILED" ? "FAILED" : fixed.verified;
    if (m.verified == "FAILED")
        *error = agreed.error.empty() ? fixed.error : agreed.error;
    m.median_us = std::max(0.0, agreed.median_us - fixed.median_us);
    m.min_us = std::max(0.0, agreed.min_us - fixed.min_us);
    m.max_us = std::max(0.0, agreed.max_us - fixed.max_us);
    return m;
}

// Waits for the ranks still measuring without spinning on a core they need
// (natively, MPICH's blocking calls poll).
void wait_for_all(MPI_Comm world)
{
#if MPIX_SMPI
    MPI_Barrier(world);
#else
    MPI_Request req;
    MPI_Ibarrier(world, &req);
    for (int done = 0;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
#endif
}

// Rank 0's strings to every rank (one buffer, '\n'-separated).
std::vector<std::string> broadcast_lines(const std::vector<std::string> &lines, MPI_Comm world)
{
    std::string joined;
    for (const std::string &l : lines)
        joined += l + "\n";
    long long length = (long long)joined.size();
    MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, world);
    joined.resize((std::size_t)length);
    MPI_Bcast(&joined[0], (int)length, MPI_CHAR, 0, world);
    std::vector<std::string> out;
    std::stringstream ss(joined);
    for (std::string l; std::getline(ss, l);)
        out.push_back(l);
    return out;
}

// The CSV row of a measurement (reporters.hpp, the same columns as mpix-bench's).
std::string append_row(const std::string &path, const Step &s, int nodes, const mpixbench::Measurement &m,
                       double bound_us, unsigned long long seed)
{
    mpixbench::RunDescription run;
    run.coll = s.coll;
    run.ranks = s.ranks;
    run.nodes = nodes;
    run.ppn = ppn_column(s.ranks, nodes);
    run.dist = s.dist;
    run.seed = seed;
    mpixbench::ResultRow row;
    row.algorithm = s.candidate.algorithm;
    row.params = s.params;
    row.size = s.size;
    row.measured = m;
    row.bound_us = bound_us;
    return mpixbench::append_csv(path, run, {row});
}

std::string point_text(const Step &s)
{
    if (s.candidate.algorithm == "agreement")
        return "P=" + std::to_string(s.ranks) + " alltoallv's agreement";
    return "P=" + std::to_string(s.ranks) + " " + mpix::collective_name(s.coll) + " S=" + std::to_string(s.size) +
           (s.coll == Collective::alltoallv ? " " + s.dist : std::string());
}

// Reads every CSV (rank 0); false with a message when one cannot be read. A
// missing first file is a fresh run's (not an error unless --from-csv).
bool read_all(const Options &o, bool first_may_be_missing, std::vector<mpixbench::TuneRow> *rows)
{
    for (std::size_t i = 0; i < o.csv.size(); ++i) {
        if (i == 0 && first_may_be_missing && !std::ifstream(o.csv[0]))
            continue;
        std::string why;
        std::vector<std::string> warnings;
        std::vector<mpixbench::TuneRow> r = mpixbench::read_tune_csv(o.csv[i], &why, &warnings);
        for (const std::string &w : warnings)
            std::fprintf(stderr, "mpix-tune: warning: %s\n", w.c_str());
        if (!why.empty()) {
            std::fprintf(stderr, "mpix-tune: %s\n", why.c_str());
            return false;
        }
        rows->insert(rows->end(), r.begin(), r.end());
    }
    return true;
}

// Builds and writes the table (rank 0); 0, or 2 with a message.
int write_table(const Options &o, const std::string &command)
{
    std::vector<mpixbench::TuneRow> rows;
    if (!read_all(o, false, &rows))
        return 2;
    mpixbench::BuildOptions b;
    b.version = PACKAGE_VERSION;
    b.platform = o.platform;
    b.command = command;
    b.csv_files = o.csv;
    b.merge_within = o.merge_within;
    b.seed = (unsigned long long)o.seed;
    b.agreement_period = (unsigned long long)o.agreement_period;
    b.known_algorithm = [](const std::string &coll, const std::string &algo) {
        Collective c;
        return mpix::collective_from_name(coll.c_str(), &c) && mpix::find_algorithm(c, algo.c_str());
    };
    b.reads_hint = [](const std::string &coll, const std::string &algo, const std::string &key) {
        Collective c;
        const mpix::Algorithm *a =
            mpix::collective_from_name(coll.c_str(), &c) ? mpix::find_algorithm(c, algo.c_str()) : nullptr;
        return a && mpixbench::reads_hint(a, key.c_str());
    };
    b.carries_agreement = [](const std::string &coll, const std::string &algo) {
        Collective c;
        const mpix::Algorithm *a =
            mpix::collective_from_name(coll.c_str(), &c) ? mpix::find_algorithm(c, algo.c_str()) : nullptr;
        return a && mpix::block_stats_in_own_messages(*a);
    };
    std::string report;
    const std::string table = mpixbench::selection_table_text(rows, b, &report);
    std::fputs(report.c_str(), stdout);
    std::fflush(stdout);
    if (table.empty()) {
        std::fprintf(stderr, "mpix-tune: no usable rows in the CSV: no table written\n");
        return 2;
    }
    std::ofstream out(o.out);
    out << table;
    out.close();
    if (!out) {
        std::fprintf(stderr, "mpix-tune: cannot write %s\n", o.out.c_str());
        return 2;
    }
    std::fprintf(stderr, "mpix-tune: table written to %s\n", o.out.c_str());
    return 0;
}

// The fastest candidate row at each point (collective, P, ppn, size, dist) of
// the CSV, for --check's ratios (rank 0).
std::map<std::string, double> best_by_point(const std::vector<mpixbench::TuneRow> &rows)
{
    std::map<std::string, double> best;
    for (const mpixbench::TuneRow &r : rows) {
        if (r.verified == "FAILED" || r.algorithm == "auto" || r.algorithm == "agreement" || r.median_us <= 0 ||
            r.params.find("(baseline)") != std::string::npos || r.params.find("persistent") != std::string::npos)
            continue;
        const std::string key = mpixbench::tune_key(r.collective, "", "", r.ranks, r.ppn, r.size, r.dist);
        auto it = best.emplace(key, r.median_us).first;
        it->second = std::min(it->second, r.median_us);
    }
    return best;
}

struct Outcome {
    std::vector<std::string> failures;  // rank 0
    int measured = 0, resumed = 0;
    double worst_auto = 0;  // --check: the largest auto / best ratio
    std::string worst_auto_at;
};

// The warm-up calls before a timed one. A check times `auto`, whose call pays
// for the agreement of the previous call's block statistics in the way that
// call's row handed them over (carried in its messages: nothing; reduced: a
// reduction at this call's start). After one warm-up the timed call would pay
// as the row picked at the previous point's values hands them over: at
// fattree-64x16's P = 16, 64 KiB power law, after a parlogna warm-up,
// nonblocking's band measured 49.49 us where a run of calls pays 61.37. So a
// check warms up at least twice: the timed call follows a call of its own row.
// A check times auto in a steady run: after a change of point its pick agrees
// on every call again (the hint agreement_period), so it gets warm-up calls
// until the agreements are agreement_period calls apart again, then that many
// timed calls. Their median is a call that agrees nothing, their largest one
// that agrees (docs/tuning.md).
int warmup_calls(const Options &o, bool check)
{
    return check ? std::max(o.warmup, 2) + int(std::min(2 * o.agreement_period, 1LL << 20)) : o.warmup;
}
int timed_calls(const Options &o, bool check)
{
    return check ? std::max(o.iters, int(std::min(o.agreement_period, 1LL << 20))) : o.iters;
}

// Runs the plan (or, check: auto with the table at every point of it). Collective over world.
int run_plan(const Options &o, const std::vector<PlanForP> &plan, const std::set<std::string> &done, bool check,
             MPI_Comm world, Outcome *outcome)
{
    int me;
    MPI_Comm_rank(world, &me);
    std::map<std::string, double> best;
    if (check && me == 0) {
        std::vector<mpixbench::TuneRow> rows;
        read_all(o, true, &rows);
        best = best_by_point(rows);
    }
    // The steps to run, the same on every rank: the plan less what the CSV has,
    // or (check) the first step of every point.
    auto runs = [&](const PlanForP &pp, std::size_t i) {
        const Step &s = pp.steps[i];
        if (!check)
            return !done.count(step_key(s, pp.nodes));
        return s.candidate.algorithm != "agreement" && (i == 0 || point_text(s) != point_text(pp.steps[i - 1]));
    };
    long long total = 0;
    for (const PlanForP &pp : plan)
        for (std::size_t i = 0; i < pp.steps.size(); ++i)
            total += runs(pp, i);
    const auto started = std::chrono::steady_clock::now();
    long long k = 0;
    int status = 0;
    bool stop = false;
    for (const PlanForP &pp : plan) {
        int stopped = stop;  // rank 0 measured at every P, so it knows
        MPI_Bcast(&stopped, 1, MPI_INT, 0, world);
        if (stopped)
            break;
        MPI_Comm sub;
        MPI_Comm_split(world, me < pp.ranks ? 0 : MPI_UNDEFINED, me, &sub);
        if (sub == MPI_COMM_NULL) {
            wait_for_all(world);
            continue;
        }
        mpixbench::RunnerOptions ro{timed_calls(o, check), warmup_calls(o, check), o.verify, o.ppn};
        std::unique_ptr<mpixbench::Runner> runner(new mpixbench::Runner(sub, ro));
        if (me == 0 && runner->nodes() != pp.nodes)
            std::fprintf(stderr, "mpix-tune: note: P=%d: the library sees %d nodes, the plan counted %d\n", pp.ranks,
                         runner->nodes(), pp.nodes);
        const int nodes = runner->nodes();
        std::string prepared, unprepared;  // the point the runner holds; one it could not prepare
        double bound_us = 0;               // the prepared point's lower bound (simulated runs)
        int checked_here = 0;
        for (std::size_t i = 0; i < pp.steps.size(); ++i) {
            const Step &s = pp.steps[i];
            if (!runs(pp, i)) {
                outcome->resumed += !check;
                continue;
            }
            ++k;
            const bool agreement = s.candidate.algorithm == "agreement";
            const std::string point = point_text(s);
            Step done_step = s;  // what the row records
            if (check) {
                done_step.candidate =
                    mpixbench::Candidate{"auto", {{"tuning_file", o.check_table.empty() ? o.out : o.check_table}}};
                done_step.params = "table";
            }
            if (point == unprepared)
                continue;
            mpixbench::Measurement m;
            if (agreement && o.agreement_us >= 0) {
                m.median_us = m.min_us = m.max_us = o.agreement_us;
                m.verified = "yes";
            } else if (agreement) {
                std::string why;
                m = measure_agreement(runner.get(), o, &why);
                m.error = why;
                prepared.clear();  // the runner holds the agreement's point now
            } else {
                if (point != prepared) {
                    std::string why;
                    const mpixbench::Point pt{s.coll, s.size, s.dist, (unsigned long long)o.seed};
                    if (runner->prepare(pt, &why)) {
                        if (me == 0)
                            outcome->failures.push_back(point + ": cannot prepare the point: " + why);
                        status = 1;
                        prepared.clear();
                        unprepared = point;
                        continue;
                    }
                    prepared = point;
                    mpix::sim::Bound bound;
                    bound_us = runner->lower_bound(&bound) ? bound.seconds() * 1e6 : 0;
                }
                m = runner->measure(done_step.candidate);
            }
            ++outcome->measured;
            // The library refused the table (or its key): every point would fail alike.
            // m.verified is agreed and every rank of the first P checks its first
            // point, so they stop together (the others learn it at the next P).
            const bool refused = check && &pp == &plan.front() && ++checked_here == 1 && m.verified == "FAILED";
            if (me == 0 && refused)
                std::fprintf(stderr, "mpix-tune: --check: auto with the table failed at the first point (%s); check"
                                     " stopped\n", m.error.c_str());
            if (refused) {
                status = 1;
                if (me == 0)
                    outcome->failures.push_back(point + ": auto with the table: " + m.error);
                stop = true;
                break;
            }
            if (me != 0)
                continue;
            if (check && !m.picked.empty())  // the row says what auto ran there
                done_step.params = "table;picked=" + m.picked;
            const std::string err = append_row(o.csv[0], done_step, nodes, m, agreement ? 0 : bound_us, (unsigned long long)o.seed);
            if (!err.empty()) {
                std::fprintf(stderr, "mpix-tune: %s\n", err.c_str());
                status = 2;
            }
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            const double eta = elapsed / (double)k * (double)(total - k);
            const std::string what = !check            ? s.candidate.algorithm + " " + s.params
                                     : m.picked.empty() ? std::string("auto with the table")
                                                        : "auto with the table, picked " + m.picked;
            std::string ratio;
            if (check) {
                auto b = best.find(mpixbench::tune_key(mpix::collective_name(s.coll), "", "", s.ranks,
                                                       ppn_column(s.ranks, nodes), s.size, s.dist));
                if (b != best.end() && m.verified != "FAILED") {
                    const double x = m.median_us / b->second;
                    char t[48];
                    std::snprintf(t, sizeof t, ", x%.3f of the best", x);
                    ratio = t;
                    if (x > outcome->worst_auto) {
                        outcome->worst_auto = x;
                        outcome->worst_auto_at = point + " (picked " + m.picked + ")";
                    }
                }
            }
            std::fprintf(stderr, "[%lld/%lld] %s: %s: %.2f us%s%s%s, ETA %s\n", k, total, point.c_str(),
                         what.c_str(), m.median_us, ratio.c_str(), m.verified == "yes" ? "" : ", verified ",
                         m.verified == "yes" ? "" : m.verified.c_str(), duration_text(eta).c_str());
            if (m.verified == "FAILED") {
                outcome->failures.push_back(point + ": " + what + ": " + (m.error.empty() ? "FAILED" : m.error));
                std::fprintf(stderr, "    FAILED: %s\n", m.error.c_str());
            }
            std::fflush(stderr);
        }
        runner.reset();
        MPI_Comm_free(&sub);
        wait_for_all(world);
    }
    MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, world);
    return status;
}

std::string command_line(int argc, char **argv)
{
    std::string c;
    for (int i = 0; i < argc; ++i)
        c += (i ? " " : "") + std::string(argv[i]);
    return c;
}

// Options the parser cannot check alone; empty when fine.
std::string validate(Options *o, int world_size)
{
    if (o->ranks.empty())
        o->ranks = {world_size};
    std::sort(o->ranks.begin(), o->ranks.end());
    o->ranks.erase(std::unique(o->ranks.begin(), o->ranks.end()), o->ranks.end());
    if (o->ranks.front() < 1 || o->ranks.back() > world_size)
        return "--ranks: every P between 1 and the " + std::to_string(world_size) + " launched ranks";
    std::sort(o->sizes.begin(), o->sizes.end());
    o->sizes.erase(std::unique(o->sizes.begin(), o->sizes.end()), o->sizes.end());
    for (const std::string &d : o->dists)
        if (!known_dist(d))
            return "--dists: unknown distribution " + d + " (uniform, equal, normal, powerlaw, fft1, fft2, graph:D, "
                   "matrix:PATH, traffic:PATH)";
    for (const std::string &name : o->algos) {
        const std::string bare = name[0] == '-' ? name.substr(1) : name;
        bool found = bare == "all";
        for (const std::string &c : o->colls) {
            Collective coll;
            mpix::collective_from_name(c.c_str(), &coll);
            found = found || mpix::find_algorithm(coll, bare.c_str());
        }
        if (!found)
            return "--algo: no " + bare + " in the registry of the collectives measured (mpix-bench --list)";
    }
    if (o->csv.empty())
        o->csv = {"mpix-tune.csv"};
    if (o->from_csv && !o->check_table.empty())
        return "--check-table measures auto with the table: it needs a launch, not --from-csv";
    if (o->from_csv && o->check)
        return "--check measures auto with the table: it needs a launch, not --from-csv";
    return "";
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm world;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    int p, me;
    MPI_Comm_size(world, &p);
    MPI_Comm_rank(world, &me);

    Options o;
    int rc = mpixbench::parse_tune_command_line(argc, argv, me == 0, &o);
    bool stop = rc >= 0;
    if (!stop) {
        const std::string err = validate(&o, p);
        if (!err.empty()) {
            if (me == 0)
                mpixbench::print_usage_error("mpix-tune", err);
            rc = 2;
            stop = true;
        }
    }
    if (!stop && o.from_csv) {
        rc = me == 0 ? write_table(o, command_line(argc, argv)) : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, world);
        stop = true;
    }
    if (stop) {
        MPI_Comm_free(&world);
        MPI_Finalize();
        return rc;
    }

    const std::vector<int> node_of = node_layout(world, o.ppn);
    const std::vector<PlanForP> plan = make_plan(o, node_of);
    // Rank 0 reads what the CSV already has; every rank skips the same steps.
    std::vector<std::string> done_lines;
    int readable = 1;
    if (me == 0) {
        std::vector<mpixbench::TuneRow> rows;
        readable = read_all(o, true, &rows) ? 1 : 0;
        // New rows go under the current header only (older files: a later --csv).
        std::ifstream first(o.csv[0]);
        std::string header;
        if (readable && first && std::getline(first, header) && !mpixbench::is_csv_header(header)) {
            std::fprintf(stderr, "mpix-tune: %s has another header (an older mpix-bench's?): new rows need a new "
                                 "file; give it after one (--csv new.csv,%s) to use its rows\n",
                         o.csv[0].c_str(), o.csv[0].c_str());
            readable = 0;
        }
        for (const std::string &k : mpixbench::done_keys(rows))
            done_lines.push_back(k);
    }
    MPI_Bcast(&readable, 1, MPI_INT, 0, world);
    if (!readable) {
        MPI_Comm_free(&world);
        MPI_Finalize();
        return 2;
    }
    const std::vector<std::string> done_list = broadcast_lines(done_lines, world);
    const std::set<std::string> done(done_list.begin(), done_list.end());

    if (o.dry_run) {
        if (me == 0) {
            long long total = 0, skip = 0;
            for (const PlanForP &pp : plan) {
                std::set<std::string> cands;
                for (const Step &s : pp.steps) {
                    ++total;
                    skip += done.count(step_key(s, pp.nodes));
                    cands.insert(std::string(mpix::collective_name(s.coll)) + " " + s.candidate.algorithm + " " +
                                 s.params);
                }
                std::printf("P=%d: %d nodes, at most %d ranks per node; %zu measurements\n", pp.ranks, pp.nodes,
                            pp.max_ranks_per_node, pp.steps.size());
                for (const std::string &c : cands)
                    std::printf("  %s\n", c.c_str());
            }
            std::printf("sizes:");
            for (long long s : o.sizes)
                std::printf(" %lld", s);
            std::printf("; alltoallv dists:");
            for (const std::string &d : o.dists)
                std::printf(" %s", d.c_str());
            std::printf("\n%lld measurements, %lld already in %s, %lld to run; iters %d, warmup %d\n", total, skip,
                        o.csv[0].c_str(), total - skip, o.iters, o.warmup);
        }
        MPI_Comm_free(&world);
        MPI_Finalize();
        return 0;
    }

    Outcome outcome;
    rc = run_plan(o, plan, done, false, world, &outcome);
    if (me == 0)
        std::fprintf(stderr, "mpix-tune: %d measured, %d already in %s\n", outcome.measured, outcome.resumed,
                     o.csv[0].c_str());
    int table_rc = me == 0 && o.check_table.empty() ? write_table(o, command_line(argc, argv)) : 0;
    MPI_Bcast(&table_rc, 1, MPI_INT, 0, world);
    rc = std::max(rc, table_rc);
    if (table_rc == 0 && (o.check || !o.check_table.empty())) {
        Outcome checked;
        rc = std::max(rc, run_plan(o, plan, done, true, world, &checked));
        if (me == 0) {
            outcome.failures.insert(outcome.failures.end(), checked.failures.begin(), checked.failures.end());
            if (checked.worst_auto > 0)
                std::printf("auto with the table: worst %.3f x the best measured row, at %s\n", checked.worst_auto,
                            checked.worst_auto_at.c_str());
        }
    }
    if (me == 0 && !outcome.failures.empty()) {
        std::fprintf(stderr, "mpix-tune: %zu failed (never a winner):\n", outcome.failures.size());
        for (const std::string &f : outcome.failures)
            std::fprintf(stderr, "  %s\n", f.c_str());
        rc = std::max(rc, 1);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, world);
    MPI_Comm_free(&world);
    MPI_Finalize();
    return rc;
}
