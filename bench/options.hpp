// Command lines of mpix-bench, mpix-tune and sim/check_sim: CLI11 with the
// programs' conventions. --help prints on stdout and exits 0; a bad option or
// value prints one message on stderr and exits 2. Under MPI every rank parses
// and only the rank that prints (rank 0) says anything.
#ifndef MPIX_BENCH_OPTIONS_HPP
#define MPIX_BENCH_OPTIONS_HPP

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace mpixbench {

// Before adding options: each may be repeated (the last wins), help columns fit
// the option names.
void configure_app(CLI::App &app);

// Parses argv: -1 to go on, otherwise the exit status (0 after --help, 2 after an
// error), the help or the error already printed when `print`. Every option's
// callback runs as it is parsed, in command-line order (so a later --size
// replaces an earlier -m, as in the hand-written parsers this replaced).
int parse_command_line(CLI::App &app, int argc, char **argv, bool print);

// A command-line error found after parsing (options that only make sense
// together): "PROGRAM: MESSAGE" and where the options are listed, on stderr.
void print_usage_error(const std::string &program, const std::string &message);

// Refuses a value from inside an option callback: the message is what the user reads.
[[noreturn]] void refuse(const std::string &message);

// Comma-separated items, empty ones dropped.
std::vector<std::string> split_list(const std::string &text);
// A whole decimal integer (no trailing characters, no overflow).
bool parse_integer(const std::string &text, long long *value);
// A comma-separated list of integers in [min, max]; false (out untouched) otherwise.
bool parse_integer_list(const std::string &text, long long min, long long max, std::vector<long long> *out);
// Whether `name` is one of the comma-separated `list` (an empty list holds every name).
bool list_holds(const std::string &list, const std::string &name);

}  // namespace mpixbench

#endif
