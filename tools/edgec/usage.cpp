// Command-line usage errors: option values parsed whole (every numeric
// option is taken as text and parsed here, so that "12abc" is refused
// rather than read as 12 and every refusal names the flag and the text),
// and CLI11's own parse errors rewritten as one "error: ..." line.
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "commands.h"

namespace edgec::cli {
namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string range(int64_t lo, int64_t hi, const std::string& why) {
  return std::to_string(lo) + " to " + std::to_string(hi) + (why.empty() ? "" : " (" + why + ")");
}

// Lower-cases the first letter of a CLI11 message ("The following ...").
std::string sentence(std::string s) {
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

std::string command_list(const CLI::App& app) {
  std::string out;
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  for (size_t i = 0; i < subs.size(); ++i)
    out += (i == 0 ? "" : i + 1 == subs.size() ? " or " : ", ") + subs[i]->get_name();
  return out;
}

}  // namespace

int64_t parse_integer(const std::string& flag, const std::string& text, int64_t lo, int64_t hi,
                      const std::string& why) {
  int64_t v = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec == std::errc::result_out_of_range && ptr == end)
    throw UsageError(flag + ": expected " + range(lo, hi, why) + ", got " + text);
  if (ec != std::errc() || ptr != end || text.empty())
    throw UsageError(flag + ": expected an integer from " + range(lo, hi, why) + ", got " + quoted(text));
  if (v < lo || v > hi) throw UsageError(flag + ": expected " + range(lo, hi, why) + ", got " + text);
  return v;
}

int parse_threads(const std::string& flag, const std::string& text) {
  return static_cast<int>(parse_integer(flag, text, 1, runtime::Method::max_threads(), "the cores of this machine"));
}

std::map<std::string, int64_t> parse_dim_options(const std::vector<std::string>& specs, const std::string& flag) {
  std::map<std::string, int64_t> out;
  for (const std::string& s : specs) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(flag + ": expected NAME=SIZE, got " + quoted(s));
    const std::string name = s.substr(0, eq);
    const std::string size = s.substr(eq + 1);
    int64_t v = 0;
    try {
      v = parse_integer(flag, size, 1, INT64_MAX);
    } catch (const UsageError&) {
      throw UsageError(flag + ": expected NAME=SIZE with SIZE an integer from 1 to " + std::to_string(INT64_MAX) +
                       ", got " + quoted(s));
    }
    if (auto [it, added] = out.emplace(name, v); !added && it->second != v)
      throw UsageError(flag + ": '" + name + "' given twice, as " + std::to_string(it->second) + " and " +
                       std::to_string(v));
  }
  return out;
}

std::map<std::string, std::vector<int64_t>> parse_shape_options(const std::vector<std::string>& specs,
                                                                const std::string& flag, int64_t min_size) {
  std::map<std::string, std::vector<int64_t>> out;
  const std::string expected = flag + ": expected NAME=D0xD1x... (sizes from " + std::to_string(min_size) +
                               "; NAME= for a scalar), got ";
  for (const std::string& s : specs) {
    // The last '=': an input's name may hold one, a size never does.
    const size_t eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0) throw UsageError(expected + quoted(s));
    const std::string name = s.substr(0, eq);
    std::vector<int64_t> dims;
    const std::string text = s.substr(eq + 1);
    for (size_t at = 0; !text.empty() && at <= text.size();) {
      const size_t x = text.find('x', at);
      const std::string size = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
      try {
        dims.push_back(parse_integer(flag, size, min_size, INT64_MAX));
      } catch (const UsageError&) {
        throw UsageError(expected + quoted(s));
      }
      if (x == std::string::npos) break;
      at = x + 1;
    }
    if (auto [it, added] = out.emplace(name, dims); !added && it->second != dims)
      throw UsageError(flag + ": '" + name + "' given twice, with different shapes");
  }
  return out;
}

std::string describe_parse_error(const CLI::ParseError& e, const CLI::App& app) {
  // The command being parsed (CLI11 records it before it fails), if any.
  const auto parsed = app.get_subcommands();
  const CLI::App* cmd = parsed.empty() ? nullptr : parsed.back();
  const std::string where = cmd ? cmd->get_name() + ": " : "";
  const std::string message = e.what();
  if (!cmd) {
    const std::vector<std::string> left = app.remaining();
    for (const std::string& arg : left)
      if (arg.empty() || arg[0] != '-')
        return "unknown command " + quoted(arg) + "; expected " + command_list(app) + " (edgec --help lists them)";
    if (!left.empty()) return "unknown option " + quoted(left.front()) + " (edgec --help lists them)";
    return "expected a command: " + command_list(app) + " (edgec --help lists them)";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    for (const CLI::Option* opt : cmd->get_options()) {
      if (!opt->get_required() || opt->count() > 0) continue;
      const std::string what = opt->get_positional() ? "the " + opt->get_name() + " argument" : opt->get_name();
      return where + "missing " + what + " (" + opt->get_description() + ")";
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    const size_t colon = message.find(": ");
    const std::string name = colon == std::string::npos ? "" : message.substr(0, colon);
    if (!name.empty() && message.find(" missing", colon) != std::string::npos) return name + ": expected a value";
    if (!name.empty() && message.find("At Most", colon) != std::string::npos)
      return name + ": given more than once; expected it once";
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    // Left over by the command, or by edgec itself (before the command).
    const std::vector<std::string> mine = cmd->remaining(), before = app.remaining();
    if (!mine.empty() || !before.empty()) {
      const std::string& arg = mine.empty() ? before.front() : mine.front();
      const std::string help = mine.empty() ? "edgec --help" : "edgec " + cmd->get_name() + " --help";
      if (arg.size() > 1 && arg[0] == '-')
        return (mine.empty() ? "" : where) + "unknown option " + quoted(arg) + " (" + help + " lists them)";
      return (mine.empty() ? "" : where) + "unexpected argument " + quoted(arg);
    }
  }
  return where + sentence(message);
}

}  // namespace edgec::cli
