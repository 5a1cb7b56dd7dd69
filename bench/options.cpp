// Command-line conventions of the bench programs (bench/options.hpp).
#include "options.hpp"

#include <cstdio>
#include <sstream>

namespace mpixbench {

namespace {

// The help's option column; descriptions are wrapped to the rest of 80 columns.
constexpr std::size_t kOptionColumn = 34, kHelpWidth = 80;

// One paragraph (line breaks become spaces) wrapped at `width` columns.
std::string wrapped(const std::string &text, std::size_t width)
{
    std::istringstream words(text);
    std::string out, line, word;
    while (words >> word) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + line;
}

}  // namespace

void configure_app(CLI::App &app)
{
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    app.get_formatter()->column_width(kOptionColumn);
}

int parse_command_line(CLI::App &app, int argc, char **argv, bool print)
{
    for (CLI::Option *option : app.get_options()) {
        option->trigger_on_parse();
        option->description(wrapped(option->get_description(), kHelpWidth - kOptionColumn));
    }
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

}  // namespace mpixbench
