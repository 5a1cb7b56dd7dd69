// Prints the guide's hint, algorithm and persistent tables (docs/tuning.md,
// docs/algorithms.md, docs/persistent-neighbour.md) from the registry and the hint
// key table, so the documentation is generated from (and checked against) them.
#include <cstdio>
#include <cstring>
#include <string>

#include "core/hints.hpp"
#include "select/registry.hpp"

int main(int argc, char **argv)
{
    bool hints = argc > 1 && !std::strcmp(argv[1], "hints");
    if (hints) {
        std::printf("| key | values | default | environment variable | meaning |\n|---|---|---|---|---|\n");
        for (const mpix::HintKey *k = mpix::hint_keys(); k->key; ++k) {
            std::string env = "MPIX_";
            for (const char *p = k->key; *p; ++p)
                env += (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
            std::string values = k->values;  // a '|' would split the markdown cell
            for (size_t at; (at = values.find('|')) != std::string::npos;)
                values.replace(at, 1, ", ");
            std::printf("| `%s` | %s | %s | `%s` | %s |\n", k->key, values.c_str(), k->default_value, env.c_str(),
                        k->summary);
        }
        return 0;
    }
    if (argc > 1 && !std::strcmp(argv[1], "persistent")) {
        std::printf("| collective | algorithm | computed once at MPIX_*_init, and how a start runs |\n|---|---|---|\n");
        for (mpix::Collective c : {mpix::Collective::alltoall, mpix::Collective::alltoallv})
            for (int i = 0; const mpix::Algorithm *a = mpix::algorithm_at(c, i); ++i)
                std::printf("| %s | `%s` | %s |\n", mpix::collective_name(c), a->name, mpix::persistent_form(*a));
        return 0;
    }
    std::printf("| collective | algorithm | hints read | what it does | local copies per call (D: the rank's data) |\n"
                "|---|---|---|---|---|\n");
    for (int c = 0; c < mpix::kCollectives; ++c)
        for (int i = 0;; ++i) {
            const mpix::Algorithm *a = mpix::algorithm_at(static_cast<mpix::Collective>(c), i);
            if (!a)
                break;
            const char *copies = mpix::local_copies(*a);
            std::printf("| %s | `%s` | %s | %s%s%s | %s |\n", mpix::collective_name(a->collective), a->name,
                        *a->hint_keys ? a->hint_keys : "-", a->summary, *a->needs ? "; needs " : "", a->needs,
                        *copies ? copies : "-");
        }
    return 0;
}
