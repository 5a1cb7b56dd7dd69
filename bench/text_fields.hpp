// Numbers and comma-separated lists as the bench programs read them, in command
// lines and CSV fields alike. Kept apart from options.hpp so that code reading
// CSVs (tune_table.cpp) does not compile CLI11, the build's heaviest header.
#ifndef MPIX_BENCH_TEXT_FIELDS_HPP
#define MPIX_BENCH_TEXT_FIELDS_HPP

#include <string>
#include <vector>

namespace mpixbench {

// Comma-separated items, empty ones dropped.
std::vector<std::string> split_list(const std::string &text);
// A whole decimal integer (no trailing characters, no overflow).
bool parse_integer(const std::string &text, long long *value);
// A whole finite decimal number (no trailing characters, no overflow).
bool parse_real(const std::string &text, double *value);
// A comma-separated list of integers in [min, max]; false (out untouched) otherwise.
bool parse_integer_list(const std::string &text, long long min, long long max, std::vector<long long> *out);
// Whether `name` is one of the comma-separated `list` (an empty list holds every name).
bool list_holds(const std::string &list, const std::string &name);
// Drops a trailing '\r': a line of a CSV written with CRLF line ends (Python's
// csv.writer by default) read by std::getline.
void drop_carriage_return(std::string *line);

}  // namespace mpixbench

#endif
