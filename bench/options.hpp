// Command lines of mpix-bench, mpix-tune and sim/check_sim: CLI11 with the
// programs' conventions. --help prints on stdout and exits 0; a bad option or
// value prints one message on stderr and exits 2. Under MPI every rank parses
// and only the rank that prints (rank 0) says anything.
#ifndef MPIX_BENCH_OPTIONS_HPP
#define MPIX_BENCH_OPTIONS_HPP

#include <string>
#include <vector>

#include "text_fields.hpp"  // the parsers option callbacks use

// SimGrid SMPI's mpi.h defines exit(x) as a macro, which would rewrite CLI11's
// App::exit; CLI11 is read without it, whatever was included before.
#pragma push_macro("exit")
#undef exit
#include <CLI/CLI.hpp>
#pragma pop_macro("exit")

namespace mpixbench {

// Before adding options: each may be repeated (the last wins), help columns fit
// the option names; parse_command_line wraps every description to 80 columns.
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

}  // namespace mpixbench

#endif
