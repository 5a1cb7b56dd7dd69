// Command-line conventions of the bench programs (bench/options.hpp).
#include "options.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace mpixbench {

void configure_app(CLI::App &app)
{
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.get_formatter()->column_width(34);
}

int parse_command_line(CLI::App &app, int argc, char **argv, bool print)
{
    for (CLI::Option *option : app.get_options())
        option->trigger_on_parse();
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success &) {  // --help
        if (print) {
            std::fputs(app.help().c_str(), stdout);
            std::fflush(stdout);
        }
        return 0;
    } catch (const CLI::ParseError &e) {
        if (print)
            print_usage_error(app.get_name(), e.what());
        return 2;
    }
    return -1;
}

void print_usage_error(const std::string &program, const std::string &message)
{
    std::fprintf(stderr, "%s: %s\n%s --help lists the options\n", program.c_str(), message.c_str(), program.c_str());
    std::fflush(stderr);
}

void refuse(const std::string &message) { throw CLI::ValidationError(message); }

std::vector<std::string> split_list(const std::string &text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty())
            out.push_back(item);
    return out;
}

bool parse_integer(const std::string &text, long long *value)
{
    char *end = nullptr;
    errno = 0;
    long long x = std::strtoll(text.c_str(), &end, 10);
    if (errno || end == text.c_str() || *end)
        return false;
    *value = x;
    return true;
}

bool parse_integer_list(const std::string &text, long long min, long long max, std::vector<long long> *out)
{
    std::vector<long long> values;
    for (const std::string &item : split_list(text)) {
        long long v;
        if (!parse_integer(item, &v) || v < min || v > max)
            return false;
        values.push_back(v);
    }
    if (values.empty())
        return false;
    *out = values;
    return true;
}

bool list_holds(const std::string &list, const std::string &name)
{
    if (list.empty())
        return true;
    for (const std::string &item : split_list(list))
        if (item == name)
            return true;
    return false;
}

}  // namespace mpixbench
