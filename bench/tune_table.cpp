// Reading benchmark CSVs and building selection tables (tune_table.hpp).
#include "tune_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "sweep.hpp"        // params_text
#include "text_fields.hpp"  // parse_integer, parse_real, drop_carriage_return
#include "workloads.hpp"

namespace mpixbench {

namespace {

using Hints = std::vector<std::pair<std::string, std::string>>;
using Json = nlohmann::ordered_json;

// One CSV line into fields; double quotes enclose a field with commas or quotes
// ("" is a quote inside). False on an unterminated quote.
bool split_csv(const std::string &line, std::vector<std::string> *fields)
{
    fields->clear();
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c != '"')
                field += c;
            else if (i + 1 < line.size() && line[i + 1] == '"')
                field += '"', ++i;
            else
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields->push_back(field);
            field.clear();
        } else {
            field += c;
        }
    }
    fields->push_back(field);
    return !quoted;
}

bool parse_ull(const std::string &s, unsigned long long *v)
{
    if (s.empty() || s[0] == '-')
        return false;
    char *end = nullptr;
    errno = 0;
    const unsigned long long x = std::strtoull(s.c_str(), &end, 10);
    if (errno || *end)
        return false;
    *v = x;
    return true;
}

const char *const kRequiredColumns[] = {"collective", "algorithm", "params", "size", "dist", "median_us", "verified"};

// The largest integer not above sqrt(a * b): the border between two measured
// values a < b (a band ends there, the next starts one above).
unsigned long long geometric_border(unsigned long long a, unsigned long long b)
{
    const unsigned __int128 product = (unsigned __int128)a * b;
    auto square = [](unsigned long long r) { return (unsigned __int128)r * r; };
    unsigned long long r = (unsigned long long)std::sqrt((long double)a * (long double)b);
    while (r > 0 && square(r) > product)
        --r;
    while (square(r + 1) <= product)
        ++r;
    return r;
}

// An inclusive integer range; a missing end is unbounded.
struct Range {
    bool has_min = false, has_max = false;
    unsigned long long min = 0, max = 0;
    bool operator==(const Range &o) const
    {
        return has_min == o.has_min && has_max == o.has_max && (!has_min || min == o.min) &&
               (!has_max || max == o.max);
    }
    bool unbounded() const { return !has_min && !has_max; }
    Json json() const
    {
        Json j = Json::object();
        if (has_min)
            j["min"] = min;
        if (has_max)
            j["max"] = max;
        return j;
    }
    std::string text() const
    {
        if (unbounded())
            return "any";
        return (has_min ? std::to_string(min) : std::string("0")) + ".." +
               (has_max ? std::to_string(max) : std::string("inf"));
    }
};

// How far the outer bands reach beyond the measured values.
enum class Outer {
    open,        // block sizes: the first band without a minimum, the last without a maximum
    from_least,  // P: from the smallest measured P up, the last band without a maximum
    near,        // ranks per node: as if half the smallest and twice the largest were measured
};

// The range of bands [first, last] of the sorted measured values: borders at the
// geometric mean of neighbouring values; the outer ends as `outer` says, so a
// table claims no P below what it measured and no node size far from it (the
// next table decides there).
Range band_range(const std::vector<unsigned long long> &values, std::size_t first, std::size_t last,
                 Outer outer = Outer::open)
{
    Range r;
    if (first > 0) {
        r.has_min = true;
        r.min = geometric_border(values[first - 1], values[first]) + 1;
    } else if (outer == Outer::from_least && values[0] > 1) {
        r.has_min = true;
        r.min = values[0];
    } else if (outer == Outer::near && values[0] > 1) {
        r.has_min = true;
        r.min = geometric_border(values[0] / 2, values[0]) + 1;
    }
    if (last + 1 < values.size()) {
        r.has_max = true;
        r.max = geometric_border(values[last], values[last + 1]);
    } else if (outer == Outer::near) {
        r.has_max = true;
        r.max = geometric_border(values[last], 2 * values[last]);
    }
    return r;
}

// One workload measured at one statistic value of a group: a distribution, a
// node count and a size scale, with every candidate's median there.
struct Instance {
    std::string dist;
    long long nodes = 0, size = 0;
    std::map<std::string, double> time_us;  // candidate key -> median
    double best_us = 0;                     // the fastest candidate's
};

struct StatPoint {
    unsigned long long stat = 0;
    std::vector<Instance> instances;
};

// What a rule measured: summed, maxed or minned over its points when regions merge.
struct Measured {
    int points = 0, unmeasured = 0;
    double worst_ratio = 0;
    double margin = 0;  // 0: no runner-up measured
    std::string runner_up;
    double agreement_us = 0;  // what every call pays to agree on the statistic (0: nothing)
    std::set<long long> sizes, ranks, ranks_per_node;
    std::set<unsigned long long> stats;
    std::set<std::string> dists;

    void merge(const Measured &o)
    {
        points += o.points;
        unmeasured += o.unmeasured;
        worst_ratio = std::max(worst_ratio, o.worst_ratio);
        if (o.margin > 0 && (margin <= 0 || o.margin < margin)) {
            margin = o.margin;
            runner_up = o.runner_up;
        }
        agreement_us = std::max(agreement_us, o.agreement_us);
        sizes.insert(o.sizes.begin(), o.sizes.end());
        ranks.insert(o.ranks.begin(), o.ranks.end());
        ranks_per_node.insert(o.ranks_per_node.begin(), o.ranks_per_node.end());
        stats.insert(o.stats.begin(), o.stats.end());
        dists.insert(o.dists.begin(), o.dists.end());
    }
};

// Statistic borders of neighbouring P (or node sizes) this close count as one:
// each is where two rows cross, so a point between them pays little either way,
// and one rule is easier to read than two.
constexpr double kBorderTolerance = 1.2;

// Two statistic ranges with the same open ends and each border within
// kBorderTolerance of the other's.
bool close_ranges(const Range &a, const Range &b)
{
    auto close = [](unsigned long long x, unsigned long long y) {
        const double lo = (double)std::min(x, y) + 1, hi = (double)std::max(x, y) + 1;
        return hi <= kBorderTolerance * lo;
    };
    return a.has_min == b.has_min && a.has_max == b.has_max && (!a.has_min || close(a.min - 1, b.min - 1)) &&
           (!a.has_max || close(a.max, b.max));
}

// A border of `a_weight` merged values and one of `b_weight`: their weighted mean in log.
unsigned long long merged_border(unsigned long long a, int a_weight, unsigned long long b, int b_weight)
{
    if (a == b || a == 0 || b == 0)
        return std::min(a, b);
    const double log_mean = (a_weight * std::log((double)a) + b_weight * std::log((double)b)) / (a_weight + b_weight);
    return std::min(std::max((unsigned long long)std::floor(std::exp(log_mean)), std::min(a, b)), std::max(a, b));
}

// A rule while it is built: its ranges (ranks_per_node, ranks, statistic), its pick.
struct Region {
    Range rpn, ranks, stat;
    std::string candidate;
    Measured measured;
    int merged_values = 1;  // the P (or node sizes) whose statistic borders `stat` averages
    bool same_decision(const Region &o) const
    {
        return rpn == o.rpn && ranks == o.ranks && close_ranges(stat, o.stat) && candidate == o.candidate;
    }
    void merge(const Region &o)
    {
        measured.merge(o.measured);
        if (stat.has_min)
            stat.min = merged_border(stat.min - 1, merged_values, o.stat.min - 1, o.merged_values) + 1;
        if (stat.has_max)
            stat.max = merged_border(stat.max, merged_values, o.stat.max, o.merged_values);
        merged_values += o.merged_values;
    }
};

bool same_decisions(const std::vector<Region> &a, const std::vector<Region> &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!a[i].same_decision(b[i]))
            return false;
    return true;
}

// Merges region lists pairwise (same decisions, so the same length and order).
void merge_measured(std::vector<Region> *into, const std::vector<Region> &from)
{
    for (std::size_t i = 0; i < into->size(); ++i)
        (*into)[i].merge(from[i]);
}

// "name params", as the report and `runner_up` name a candidate (runner.hpp).
std::string label(const Candidate &c) { return c.algorithm + " " + params_text(c.hints); }

// How well a candidate covers a set of workloads: unmeasured ones first (fewer
// is better), then the worst and the mean ratio to each workload's best.
struct Score {
    int missing = 0;
    double worst = 0, mean = 0;
    std::string key;
    bool operator<(const Score &o) const
    {
        return std::tie(missing, worst, mean, key) < std::tie(o.missing, o.worst, o.mean, o.key);
    }
};

// What a candidate of a size-banded rule pays a call for the agreement: `us`,
// except the candidates whose row carries the statistic inside its own
// messages (BuildOptions::carries_agreement), which pay nothing.
struct AgreementCost {
    double us = 0;
    const std::set<std::string> *carrying = nullptr;  // candidate keys
    double of(const std::string &key) const { return carrying && carrying->count(key) ? 0.0 : us; }
};

// Times with the agreement cost added: the candidate pays its `cost`, and is
// compared with each point's fastest row paying `best_cost` (the same cost: the
// fastest once every candidate pays its own; none: the fastest row as named).
Score score_of(const std::string &key, const std::vector<const Instance *> &set, const AgreementCost &cost,
               const AgreementCost &best_cost)
{
    const double offset_us = cost.of(key);
    Score s;
    s.key = key;
    int measured = 0;
    for (const Instance *in : set) {
        auto t = in->time_us.find(key);
        if (t == in->time_us.end()) {
            ++s.missing;
            continue;
        }
        double best = std::numeric_limits<double>::infinity();
        for (const auto &kv : in->time_us)
            best = std::min(best, kv.second + best_cost.of(kv.first));
        const double ratio = (t->second + offset_us) / best;
        s.worst = std::max(s.worst, ratio);
        s.mean += ratio;
        ++measured;
    }
    if (measured)
        s.mean /= measured;
    return s;
}

// The candidate minimising the worst ratio over the set ("" when none is measured).
std::string pick(const std::vector<const Instance *> &set, const AgreementCost &cost,
                 const std::string &exclude = "")
{
    std::set<std::string> keys;
    for (const Instance *in : set)
        for (const auto &kv : in->time_us)
            keys.insert(kv.first);
    keys.erase(exclude);
    bool have = false;
    Score best;
    for (const std::string &k : keys) {
        Score s = score_of(k, set, cost, cost);
        if (!have || s < best) {
            best = s;
            have = true;
        }
    }
    return have ? best.key : "";
}

std::vector<const Instance *> instances_of(const std::vector<StatPoint> &points, std::size_t first, std::size_t last)
{
    std::vector<const Instance *> set;
    for (std::size_t k = first; k <= last; ++k)
        for (const Instance &in : points[k].instances)
            set.push_back(&in);
    return set;
}

Measured measure_band(const std::vector<StatPoint> &points, std::size_t first, std::size_t last,
                      const std::string &winner, const std::string &runner_up, const AgreementCost &cost,
                      const std::map<std::string, Candidate> &candidates)
{
    Measured m;
    const double offset_us = cost.of(winner);
    m.agreement_us = offset_us;
    if (!runner_up.empty())
        m.runner_up = label(candidates.at(runner_up));
    for (const Instance *in : instances_of(points, first, last)) {
        ++m.points;
        m.sizes.insert(in->size);
        m.dists.insert(in->dist);
        auto w = in->time_us.find(winner);
        if (w == in->time_us.end()) {
            ++m.unmeasured;
            continue;
        }
        const double mine = w->second + offset_us;
        // Against the fastest row without the agreement: what a caller who named
        // that row explicitly would pay.
        m.worst_ratio = std::max(m.worst_ratio, mine / in->best_us);
        auto r = runner_up.empty() ? in->time_us.end() : in->time_us.find(runner_up);
        if (r != in->time_us.end()) {
            const double margin = (r->second + cost.of(runner_up)) / mine;
            m.margin = m.margin <= 0 ? margin : std::min(m.margin, margin);
        }
    }
    for (std::size_t k = first; k <= last; ++k)
        m.stats.insert(points[k].stat);
    return m;
}

struct Band {
    std::size_t first, last;
};

// The mean over a point's workloads of log(time of a / time of b), each paying
// its agreement; false where no workload measured both.
bool log_ratio_at(const StatPoint &point, const std::string &a, const std::string &b, const AgreementCost &cost,
                  double *out)
{
    double sum = 0;
    int n = 0;
    for (const Instance &in : point.instances) {
        auto ta = in.time_us.find(a), tb = in.time_us.find(b);
        if (ta == in.time_us.end() || tb == in.time_us.end())
            continue;
        sum += std::log((ta->second + cost.of(a)) / (tb->second + cost.of(b)));
        ++n;
    }
    if (n)
        *out = sum / n;
    return n > 0;
}

// The border between a band won by `below` ending at `lower` and one won by
// `above` starting at `upper`: where the two rows' times cross, taking log time
// as linear in log statistic between the two measured points. A border midway
// in log (the geometric mean) puts a point near one end on the wrong side when
// the rows cross near the other end. The geometric mean where the rows do not
// cross between the points (a merged band's winner need not win at its edge)
// or a statistic is 0.
unsigned long long crossover_border(const StatPoint &lower, const StatPoint &upper, const std::string &below,
                                    const std::string &above, const AgreementCost &cost)
{
    const unsigned long long geometric = geometric_border(lower.stat, upper.stat);
    double d_lower = 0, d_upper = 0;
    if (lower.stat == 0 || !log_ratio_at(lower, below, above, cost, &d_lower) ||
        !log_ratio_at(upper, below, above, cost, &d_upper) || !(d_lower <= 0 && d_upper >= 0 && d_upper > d_lower))
        return geometric;
    const double f = -d_lower / (d_upper - d_lower);
    const double log_border = std::log((double)lower.stat) + f * std::log((double)upper.stat / (double)lower.stat);
    const double x = std::floor(std::exp(log_border));
    // Each band keeps its own measured point.
    if (!(x >= (double)lower.stat))
        return lower.stat;
    if (x >= (double)upper.stat)
        return upper.stat - 1;
    return (unsigned long long)x;
}

// One group's rules (one collective, P and ranks_per_node) over the statistic.
// `agreement_us` > 0: rules that condition on the statistic make every call pay
// it, except where the picked row carries it (`carrying`, candidate keys).
std::vector<Region> solve_group(const std::vector<StatPoint> &points, double agreement_us, bool needs_agreement,
                                double merge_within, const std::map<std::string, Candidate> &candidates,
                                const std::set<std::string> &carrying)
{
    const AgreementCost offset{needs_agreement ? agreement_us : 0.0, &carrying};
    const AgreementCost none{};
    // Each point's own best; runs of the same best form the bands.
    std::vector<Band> bands;
    std::string previous;
    for (std::size_t k = 0; k < points.size(); ++k) {
        const std::string best = pick(instances_of(points, k, k), offset);
        if (bands.empty() || best != previous)
            bands.push_back({k, k});
        else
            bands.back().last = k;
        previous = best;
    }
    // Neighbouring bands merge where one candidate is within merge_within of the best everywhere.
    for (std::size_t j = 0; j + 1 < bands.size();) {
        std::vector<const Instance *> both = instances_of(points, bands[j].first, bands[j + 1].last);
        const std::string w = pick(both, offset);
        const Score s = score_of(w, both, offset, offset);
        if (s.missing == 0 && s.worst <= merge_within) {
            bands[j].last = bands[j + 1].last;
            bands.erase(bands.begin() + (std::ptrdiff_t)j + 1);
        } else {
            ++j;
        }
    }
    std::vector<StatPoint>::size_type last = points.size() - 1;
    std::vector<const Instance *> all = instances_of(points, 0, last);
    bool single = bands.size() == 1;
    if (!single && needs_agreement) {
        // Size bands make every call pay the agreement; one rule without the
        // statistic pays none. Both against each point's fastest row (no
        // agreement): the bands win only with a smaller worst ratio (then mean).
        const std::string one = pick(all, none);
        Score banded;
        int measured = 0;
        for (const Band &b : bands) {
            const std::vector<const Instance *> set = instances_of(points, b.first, b.last);
            const Score s = score_of(pick(set, offset), set, offset, none);
            const int n = int(set.size()) - s.missing;
            banded.missing += s.missing;
            banded.worst = std::max(banded.worst, s.worst);
            banded.mean += s.mean * n;
            measured += n;
        }
        if (measured)
            banded.mean /= measured;
        const Score alone = score_of(one, all, none, none);
        single = !one.empty() && !(std::tie(banded.missing, banded.worst, banded.mean) <
                                   std::tie(alone.missing, alone.worst, alone.mean));
    }
    std::vector<Region> regions;
    if (single) {
        const std::string w = pick(all, none);
        Region r;
        r.candidate = w;
        r.measured = measure_band(points, 0, last, w, pick(all, none, w), none, candidates);
        regions.push_back(r);
        return regions;
    }
    for (const Band &b : bands) {
        std::vector<const Instance *> set = instances_of(points, b.first, b.last);
        const std::string w = pick(set, offset);
        Region r;
        r.candidate = w;
        r.measured = measure_band(points, b.first, b.last, w, pick(set, offset, w), offset, candidates);
        regions.push_back(r);
    }
    // The first band open below, the last open above; between them, the borders
    // where neighbouring picks cross (crossover_border).
    for (std::size_t j = 0; j + 1 < regions.size(); ++j) {
        const unsigned long long border = crossover_border(points[bands[j].last], points[bands[j + 1].first],
                                                           regions[j].candidate, regions[j + 1].candidate, offset);
        regions[j].stat.has_max = regions[j + 1].stat.has_min = true;
        regions[j].stat.max = border;
        regions[j + 1].stat.min = border + 1;
    }
    return regions;
}

// Neighbouring measured values (P, or ranks per node) whose rules decide alike
// become one band: their regions merged, `range` of each set to the band.
std::vector<Region> merge_runs(const std::vector<unsigned long long> &values,
                               const std::vector<std::vector<Region>> &per_value, Outer outer, Range Region::*range)
{
    std::vector<Region> out;
    for (std::size_t first = 0, last; first < values.size(); first = last + 1) {
        std::vector<Region> merged = per_value[first];
        for (last = first; last + 1 < values.size() && same_decisions(per_value[last + 1], merged); ++last)
            merge_measured(&merged, per_value[last + 1]);
        for (Region &r : merged) {
            r.*range = band_range(values, first, last, outer);
            out.push_back(r);
        }
    }
    return out;
}

std::string now_utc()
{
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

// x to `digits` decimals, as the nearest double (so JSON prints it short).
double rounded(double x, int digits)
{
    const double scale = std::pow(10.0, digits);
    return std::round(x * scale) / scale;
}

Json hint_value(const std::string &v)
{
    unsigned long long n;
    if (!v.empty() && v.size() < 19 && v.find_first_not_of("0123456789") == std::string::npos && parse_ull(v, &n))
        return n;
    return v;
}

bool is_alltoallv(const std::string &collective) { return collective == "alltoallv"; }

}  // namespace

std::vector<TuneRow> read_tune_csv(const std::string &path, std::string *why, std::vector<std::string> *warnings)
{
    std::ifstream in(path);
    if (!in) {
        *why = "cannot open " + path + ": " + std::strerror(errno);
        return {};
    }
    std::vector<TuneRow> rows;
    std::map<std::string, std::size_t> column;
    std::size_t columns = 0;
    std::string line;
    std::vector<std::string> f;
    auto warn = [&](long long line_no, const std::string &what) {
        if (warnings)
            warnings->push_back(path + ":" + std::to_string(line_no) + ": " + what);
    };
    for (long long line_no = 1; std::getline(in, line); ++line_no) {
        drop_carriage_return(&line);
        if (line.empty())
            continue;
        if (!split_csv(line, &f)) {
            warn(line_no, "unterminated quote: line skipped");
            continue;
        }
        if (std::find(f.begin(), f.end(), "collective") != f.end()) {  // a header, first or repeated
            column.clear();
            for (std::size_t i = 0; i < f.size(); ++i)
                column.emplace(f[i], i);
            columns = f.size();
            for (const char *name : kRequiredColumns)
                if (!column.count(name)) {
                    *why = path + ":" + std::to_string(line_no) + ": the header has no column '" + name + "'";
                    return {};
                }
            continue;
        }
        if (columns == 0) {
            *why = path + ":" + std::to_string(line_no) + ": no header line before the rows (collective,algorithm,...)";
            return {};
        }
        if (f.size() != columns) {
            warn(line_no, std::to_string(f.size()) + " fields where the header has " + std::to_string(columns) +
                              ": line skipped");
            continue;
        }
        auto text = [&](const char *name) -> std::string {
            auto c = column.find(name);
            return c == column.end() ? std::string() : f[c->second];
        };
        TuneRow r;
        r.collective = text("collective");
        r.algorithm = text("algorithm");
        r.params = text("params");
        r.dist = text("dist");
        r.verified = text("verified");
        r.source = path + ":" + std::to_string(line_no);
        bool ok = parse_integer(text("size"), &r.size) && parse_real(text("median_us"), &r.median_us);
        // Optional columns: absent or empty leaves them unknown; present and bad skips the line.
        auto optional_ll = [&](const char *name, long long *v) {
            const std::string t = text(name);
            if (!t.empty() && !parse_integer(t, v))
                ok = false;
        };
        auto optional_double = [&](const char *name, double *v) {
            const std::string t = text(name);
            if (!t.empty() && !parse_real(t, v))
                ok = false;
        };
        auto optional_ull = [&](const char *name, unsigned long long *v, bool *has) {
            const std::string t = text(name);
            if (t.empty())
                return;
            *has = parse_ull(t, v);
            ok = ok && *has;
        };
        optional_ll("P", &r.ranks);
        optional_ll("nodes", &r.nodes);
        optional_ll("ppn", &r.ppn);
        optional_double("min_us", &r.min_us);
        optional_double("max_us", &r.max_us);
        optional_ull("mean_block_bytes", &r.mean_block_bytes, &r.has_mean_block);
        optional_ull("max_block_bytes", &r.max_block_bytes, &r.has_max_block);
        if (!ok) {
            warn(line_no, "a number cannot be read: line skipped");
            continue;
        }
        rows.push_back(r);
    }
    if (columns == 0) {
        *why = path + ": empty (no header line)";
        return {};
    }
    return rows;
}

std::string tune_key(const std::string &collective, const std::string &algorithm, const std::string &params,
                     long long ranks, long long ppn, long long size, const std::string &dist)
{
    return collective + "," + algorithm + "," + params + "," + std::to_string(ranks) + "," + std::to_string(ppn) +
           "," + std::to_string(size) + "," + dist;
}

std::set<std::string> done_keys(const std::vector<TuneRow> &rows)
{
    std::set<std::string> keys;
    for (const TuneRow &r : rows)
        if (r.verified != "FAILED")
            keys.insert(tune_key(r.collective, r.algorithm, r.params, r.ranks, r.ppn, r.size, r.dist));
    return keys;
}

bool parse_params(const std::string &params, Hints *hints)
{
    hints->clear();
    if (params.empty() || params == "default")
        return true;
    std::stringstream ss(params);
    std::string item;
    while (std::getline(ss, item, ';')) {
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            return false;
        hints->emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
    return !hints->empty();
}

bool synthetic_mean_block_bytes(const std::string &dist, long long ranks, long long size, unsigned long long seed,
                                unsigned long long *mean)
{
    static const char *const formulas[] = {"uniform", "equal", "normal", "powerlaw", "fft1", "fft2"};
    bool synthetic = dist.rfind("graph:", 0) == 0;
    for (const char *name : formulas)
        synthetic = synthetic || dist == name;
    if (!synthetic || ranks < 1 || ranks > (1 << 20) || size < 0)
        return false;
    Workload w;
    if (!w.load(dist, (int)ranks, 0).empty())
        return false;
    unsigned long long largest = 0;
    for (int src = 0; ranks > 1 && src < ranks; ++src) {
        unsigned long long sum = 0;
        for (int dst = 0; dst < ranks; ++dst)
            if (dst != src)
                sum += w.bytes(src, dst, size, seed, src);
        largest = std::max(largest, sum / (unsigned long long)(ranks - 1));
    }
    *mean = largest;
    return true;
}

nlohmann::ordered_json build_selection_table(const std::vector<TuneRow> &rows, const BuildOptions &options,
                                             std::string *report)
{
    const unsigned long long agreement_period = std::max(options.agreement_period, 1ULL);
    // Why rows were left out, by reason, for the report and "generated".
    std::map<std::string, long long> left_out;
    std::set<std::string> dropped_hints;  // "key (algorithm)"
    std::map<std::string, Candidate> candidates;
    // (collective, ranks_per_node) -> P -> statistic -> (dist, nodes, size) -> instance
    using InstanceKey = std::tuple<std::string, long long, long long>;
    std::map<std::pair<std::string, long long>,
             std::map<long long, std::map<unsigned long long, std::map<InstanceKey, Instance>>>>
        groups;
    std::map<std::pair<long long, long long>, double> agreement;  // (P, ranks_per_node) -> us
    std::map<std::tuple<std::string, long long, long long>, std::pair<bool, unsigned long long>> mean_memo;
    long long used = 0, duplicates = 0;

    for (const TuneRow &r : rows) {
        const bool dense = r.collective == "alltoall" || is_alltoallv(r.collective);
        long long nodes = r.nodes > 0 ? r.nodes : r.ppn > 0 && r.ranks > 0 ? (r.ranks + r.ppn - 1) / r.ppn : 0;
        Hints hints;
        if (!dense) {
            ++left_out["collective " + r.collective + " (mpix-tune tables alltoall and alltoallv)"];
        } else if (r.verified == "FAILED") {
            ++left_out["FAILED verification"];
        } else if (r.params.find("(baseline)") != std::string::npos || r.algorithm.rfind("MPI_", 0) == 0 ||
                   r.algorithm.rfind("baseline:", 0) == 0) {
            ++left_out["MPI baseline"];
        } else if (r.algorithm == "auto") {
            ++left_out["auto"];
        } else if (r.params == "persistent" ||
                   (r.params.size() > 11 && r.params.compare(r.params.size() - 11, 11, ";persistent") == 0)) {
            ++left_out["persistent"];
        } else if (r.ranks <= 0 || nodes <= 0) {
            ++left_out["no P or node count"];
        } else if (r.algorithm == "randomized") {  // a selection itself (auto's pick for small blocks)
            ++left_out["randomized (a selection, not one row)"];
        } else if (r.algorithm == "agreement") {  // 0 is a measured cost: the agreement hid in the exchange
            const double us = std::max(0.0, r.median_us);
            double &a = agreement.emplace(std::make_pair(r.ranks, r.ranks / nodes), us).first->second;
            a = std::min(a, us);
        } else if (r.median_us <= 0) {
            ++left_out["no time"];
        } else if (!parse_params(r.params, &hints)) {
            ++left_out["params not key=value;... (" + r.params + ")"];
        } else if (options.known_algorithm && !options.known_algorithm(r.collective, r.algorithm)) {
            ++left_out["unknown algorithm " + r.collective + " " + r.algorithm];
        } else {
            unsigned long long stat = (unsigned long long)std::max(0LL, r.size);
            if (is_alltoallv(r.collective)) {
                auto memo = mean_memo.find({r.dist, r.ranks, r.size});
                if (r.has_mean_block) {
                    stat = r.mean_block_bytes;
                } else {
                    if (memo == mean_memo.end()) {
                        unsigned long long m = 0;
                        const bool ok = synthetic_mean_block_bytes(r.dist, r.ranks, r.size, options.seed, &m);
                        memo = mean_memo.emplace(std::make_tuple(r.dist, r.ranks, r.size), std::make_pair(ok, m))
                                   .first;
                    }
                    if (!memo->second.first) {
                        ++left_out["alltoallv without mean_block_bytes, dist " + r.dist + " not synthetic"];
                        continue;
                    }
                    stat = memo->second.second;
                }
            }
            if (options.reads_hint) {
                Hints read;
                for (const auto &kv : hints)
                    if (options.reads_hint(r.collective, r.algorithm, kv.first))
                        read.push_back(kv);
                    else
                        dropped_hints.insert(kv.first + " (" + r.algorithm + ")");
                hints = read;
            }
            Hints sorted = hints;
            std::sort(sorted.begin(), sorted.end());
            const std::string key = r.algorithm + " " + params_text(sorted);
            candidates.emplace(key, Candidate{r.algorithm, hints});
            Instance &in = groups[{r.collective, r.ranks / nodes}][r.ranks][stat][InstanceKey(r.dist, nodes, r.size)];
            in.dist = r.dist;
            in.nodes = nodes;
            in.size = r.size;
            auto t = in.time_us.emplace(key, r.median_us);
            if (!t.second) {  // measured again: keep the fastest
                ++duplicates;
                t.first->second = std::min(t.first->second, r.median_us);
            }
            ++used;
        }
    }

    std::ostringstream text;
    std::set<long long> agreement_missing;
    // collective -> ranks_per_node -> regions over P and the statistic
    std::map<std::string, std::map<long long, std::vector<Region>>> by_rpn;
    for (auto &g : groups) {
        const std::string &coll = g.first.first;
        const long long rpn = g.first.second;
        // P -> regions over the statistic; neighbouring P with the same decisions merge.
        std::vector<unsigned long long> ps;
        std::vector<std::vector<Region>> per_p;
        for (auto &byp : g.second) {
            std::vector<StatPoint> points;
            for (auto &bys : byp.second) {
                StatPoint sp;
                sp.stat = bys.first;
                for (auto &in : bys.second) {
                    Instance &inst = in.second;
                    inst.best_us = std::numeric_limits<double>::infinity();
                    for (const auto &kv : inst.time_us)
                        inst.best_us = std::min(inst.best_us, kv.second);
                    sp.instances.push_back(inst);
                }
                points.push_back(sp);
            }
            double agreement_us = 0;
            const bool needs = is_alltoallv(coll);
            if (needs) {
                auto a = agreement.find({byp.first, rpn});
                if (a == agreement.end())  // measured at this P with another layout
                    for (auto it = agreement.begin(); it != agreement.end(); ++it)
                        if (it->first.first == byp.first)
                            a = it;
                if (a != agreement.end())  // the schedule's share: one agreement in agreement_period calls
                    agreement_us = a->second / double(agreement_period);
                else
                    agreement_missing.insert(byp.first);
            }
            std::set<std::string> carrying;
            if (needs && options.carries_agreement)
                for (const auto &kv : candidates)
                    if (options.carries_agreement(coll, kv.second.algorithm))
                        carrying.insert(kv.first);
            const double merge_within =
                needs ? std::max(options.merge_within, options.agreed_merge_within) : options.merge_within;
            std::vector<Region> regions = solve_group(points, agreement_us, needs, merge_within, candidates, carrying);
            for (Region &r : regions) {
                r.measured.ranks.insert(byp.first);
                r.measured.ranks_per_node.insert(rpn);
            }
            ps.push_back((unsigned long long)byp.first);
            per_p.push_back(regions);
        }
        std::vector<Region> &out = by_rpn[coll][rpn];
        for (Region &r : merge_runs(ps, per_p, Outer::from_least, &Region::ranks))
            out.push_back(r);
    }

    Json table;
    table["mpix_selection_table"] = 1;
    table["description"] = "mpix-tune: the fastest measured algorithm per region" +
                           (options.platform.empty() ? std::string() : " on " + options.platform);
    Json generated;
    generated["by"] = "mpix-tune " + options.version;
    generated["platform"] = options.platform;
    generated["csv"] = options.csv_files;
    generated["date"] = options.date.empty() ? now_utc() : options.date;
    if (!options.command.empty())
        generated["command"] = options.command;
    generated["agreement_period"] = agreement_period;
    generated["rows_used"] = used;
    if (!left_out.empty())
        generated["rows_left_out"] = left_out;
    table["generated"] = generated;

    long long rules = 0;
    for (auto &c : by_rpn) {
        const std::string &coll = c.first;
        // ranks_per_node bands; neighbours with the same decisions merge. Every
        // rule keeps the node sizes it was measured near (Outer::near).
        std::vector<unsigned long long> rpns;
        std::vector<std::vector<Region>> per_rpn;
        for (auto &kv : c.second) {
            rpns.push_back((unsigned long long)kv.first);
            per_rpn.push_back(kv.second);
        }
        Json list = Json::array();
        for (Region &r : merge_runs(rpns, per_rpn, Outer::near, &Region::rpn)) {
            const Candidate &cand = candidates.at(r.candidate);
            const Measured &m = r.measured;
            const char *stat_key = is_alltoallv(coll) ? "mean_block_bytes" : "block_bytes";
            Json when = Json::object();
            if (!r.rpn.unbounded())
                when["ranks_per_node"] = r.rpn.json();
            if (!r.ranks.unbounded())
                when["ranks"] = r.ranks.json();
            if (!r.stat.unbounded())
                when[stat_key] = r.stat.json();
            Json rule;
            rule["when"] = when;
            rule["algorithm"] = cand.algorithm;
            if (!cand.hints.empty()) {
                Json hints = Json::object();
                for (const auto &kv : cand.hints)
                    hints[kv.first] = hint_value(kv.second);
                rule["hints"] = hints;
            }
            Json measured;
            measured["points"] = m.points;
            if (m.unmeasured)
                measured["unmeasured"] = m.unmeasured;
            measured["worst_ratio"] = rounded(m.worst_ratio, 4);
            measured["margin"] = m.margin > 0 ? Json(rounded(m.margin, 4)) : Json(nullptr);
            measured["runner_up"] = m.runner_up.empty() ? Json(nullptr) : Json(m.runner_up);
            measured["sizes"] = m.sizes;
            if (is_alltoallv(coll))
                measured["mean_block_bytes"] = m.stats;
            measured["dists"] = m.dists;
            measured["ranks"] = m.ranks;
            measured["ranks_per_node"] = m.ranks_per_node;
            if (m.agreement_us > 0)
                measured["agreement_us"] = rounded(m.agreement_us, 3);
            rule["measured"] = measured;
            list.push_back(rule);
            ++rules;

            text << coll << " rule " << list.size() << ": ranks_per_node " << r.rpn.text() << ", P "
                 << r.ranks.text() << ", " << stat_key << " " << r.stat.text() << ": " << label(cand) << " ("
                 << m.points << (m.points == 1 ? " point" : " points") << ", worst " << rounded(m.worst_ratio, 3);
            if (m.margin > 0)
                text << ", ahead of " << m.runner_up << " by x" << rounded(m.margin, 3);
            else
                text << ", no runner-up";
            if (m.agreement_us > 0)
                text << ", agreement " << rounded(m.agreement_us, 3) << " us counted"
                     << (agreement_period > 1 ? " (one in " + std::to_string(agreement_period) + " calls)"
                                              : std::string());
            text << ")\n";
        }
        table[coll] = list;
    }

    std::ostringstream head;
    head << "mpix-tune: " << rules << " rules from " << used << " rows";
    if (duplicates)
        head << " (" << duplicates << " measured again: the fastest kept)";
    head << "\n";
    for (const auto &kv : left_out)
        head << "  left out: " << kv.second << " rows, " << kv.first << "\n";
    if (!dropped_hints.empty()) {
        head << "  hints the row does not read, left out of rules:";
        for (const std::string &h : dropped_hints)
            head << " " << h;
        head << "\n";
    }
    if (!agreement_missing.empty()) {
        head << "  no agreement cost measured at P =";
        for (long long p : agreement_missing)
            head << " " << p;
        head << ": counted as 0 (alltoallv size bands may not pay for themselves)\n";
    }
    if (report)
        *report = head.str() + text.str();
    return table;
}

std::string selection_table_text(const std::vector<TuneRow> &rows, const BuildOptions &options, std::string *report)
{
    const nlohmann::ordered_json table = build_selection_table(rows, options, report);
    if (!table.contains("alltoall") && !table.contains("alltoallv"))
        return "";
    return table.dump(2) + "\n";
}

}  // namespace mpixbench
