// Numbers and comma-separated lists in command lines and CSV fields (bench/text_fields.hpp).
#include "text_fields.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace mpixbench {

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

bool parse_real(const std::string &text, double *value)
{
    char *end = nullptr;
    errno = 0;
    const double x = std::strtod(text.c_str(), &end);
    if (errno || end == text.c_str() || *end || !std::isfinite(x))
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

void drop_carriage_return(std::string *line)
{
    if (!line->empty() && line->back() == '\r')
        line->pop_back();
}

}  // namespace mpixbench
