// Every refusal of the ONNX importer says where and what: a walk over the
// importer's refusal sites (each line of src/frontends/onnx that calls
// refuse(), NodeContext::fail() or fail_not_known(); refusal.h records the
// line), with one small model per site (tests/frontends/refusals/, by
// importer area). Each model must be refused at its
// site (so a case cannot pass by failing somewhere else), and its message
// must name the node, its op_type and opset, and the input, output or
// attribute concerned. A refusal added without a case fails
// EveryRefusalSiteHasACase, naming the line. SHOW_REFUSALS=1 in the
// environment prints every case's message (to read them all at once).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/refusal.h"
#include "ir/text.h"
#include "frontends/refusals/cases.h"
#include "support/onnx_model.h"
#include "support/scoped_memory_limit.h"

namespace edgec {
namespace {

namespace fs = std::filesystem;
using onnx::AttributeProto;
using onnx::TensorProto;
using namespace refusal_cases;

const std::string kSources = EDGEC_SOURCE_DIR "/src/frontends/onnx";

// ---- the importer's sources -------------------------------------------------------

/// The importer's sources the walk covers: tensor_data.* reads tensors for
/// the importer and is walked by its own tests.
std::vector<fs::path> importer_sources() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kSources)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("tensor_data", 0) == 0) continue;
    if (e.path().extension() == ".cpp" || e.path().extension() == ".h") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// `text` with comments blanked and string and character literals emptied
/// (quotes kept, newlines kept), so that code can be matched by position.
std::string code_of(const std::string& text) {
  std::string out = text;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '"' || out[i] == '\'') {
      const char quote = out[i++];
      while (i < out.size() && out[i] != quote) {
        if (out[i] == '\\') out[i++] = ' ';
        if (i < out.size() && out[i] != '\n') out[i] = ' ';
        ++i;
      }
    }
  }
  return out;
}

struct Site {
  std::string file;  ///< Base name.
  int line = 0;
  auto operator<=>(const Site&) const = default;
};

std::string str(const Site& s) { return s.file + ":" + std::to_string(s.line); }

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Where `word` stands in `code` as a whole identifier, each with the
/// position just past it and the spaces after it. (No std::regex: GCC 12
/// at -O1, the sanitized build's level, warns of maybe-uninitialized
/// values inside <regex>, and the build treats warnings as errors.)
std::vector<std::pair<size_t, size_t>> word_uses(const std::string& code, const std::string& word) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at > 0 && is_identifier_char(code[at - 1])) || (end < code.size() && is_identifier_char(code[end]))) continue;
    size_t next = end;
    while (next < code.size() && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
    out.emplace_back(at, next);
  }
  return out;
}

/// Each line that refuses, with its text: a call of refuse, refuse_node,
/// fail or fail_not_known that is not a declaration and does not forward its
/// caller's site (a helper that refuses for its caller passes `site` on).
std::map<Site, std::string> refusal_sites() {
  std::map<Site, std::string> sites;
  for (const fs::path& path : importer_sources()) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::string code = code_of(text);
    std::vector<std::pair<size_t, size_t>> calls;  // (name, just past its "(")
    for (const char* name : {"refuse", "refuse_node", "fail", "fail_not_known"})
      for (const auto& [at, next] : word_uses(code, name))
        if (next < code.size() && code[next] == '(') calls.emplace_back(at, next + 1);
    std::sort(calls.begin(), calls.end());
    for (const auto& [at, args_at] : calls) {
      const size_t line_start = code.rfind('\n', at) + 1;
      const std::string before = code.substr(line_start, at - line_start);
      if (before.find("void ") != std::string::npos) continue;  // a declaration or definition
      // The arguments, up to the matching parenthesis.
      size_t i = args_at, depth = 1;
      const size_t args_start = i;
      for (; i < code.size() && depth > 0; ++i) depth += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
      std::string args = code.substr(args_start, i - 1 - args_start);
      while (!args.empty() && std::isspace(static_cast<unsigned char>(args.back()))) args.pop_back();
      if (args.size() >= 4 && args.compare(args.size() - 4, 4, "site") == 0) continue;  // forwards its caller's
      const int line = static_cast<int>(std::count(code.begin(), code.begin() + static_cast<long>(at), '\n')) + 1;
      const size_t end = text.find('\n', line_start);
      const Site site{path.filename().string(), line};
      EXPECT_FALSE(sites.count(site)) << str(site) << ": two refusals on one line; give each its own line";
      sites[site] = text.substr(line_start, end - line_start);
    }
  }
  return sites;
}

// ---- the walk -----------------------------------------------------------------------

struct Outcome {
  std::optional<Site> site;
  std::string message;
};

Outcome run_case(const Case& k) {
  try {
    k.run();
  } catch (const onnx_import::ImportRefusal& e) {
    return {Site{fs::path(e.site().file_name()).filename().string(), static_cast<int>(e.site().line())}, e.what()};
  } catch (const CompileError& e) {
    return {std::nullopt, std::string("a CompileError that is not a refusal: ") + e.what()};
  }
  return {std::nullopt, "(no error)"};
}

// A training-mode dropout of ratio 0 keeps every element (ONNX): it imports
// as the identity, as torchvision's Swin exports its dropouts.
TEST(OnnxRefusals, TrainingDropoutOfRatioZeroIsTheIdentity) {
  Model m;
  m.x().floats("r", {0.f}, {}).ints("mode", {1}, {}, TensorProto::BOOL);
  m.node("Dropout", {"x", "r", "mode"}, {"y"});
  m.output("y");
  std::string bytes;
  ASSERT_TRUE(m.proto.SerializeToString(&bytes));
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "dropout.onnx");
  // The output is the input (copied, as every graph input that is also an
  // output is): one clone of x, nothing random.
  std::vector<const Node*> calls;
  for (const Node* n : program->graph.nodes())
    if (n->is_call()) calls.push_back(n);
  ASSERT_EQ(calls.size(), 1u) << print_program(*program);
  EXPECT_NE(calls[0]->op().find("clone"), std::string::npos) << print_program(*program);
  EXPECT_EQ(calls[0]->input(0)->name(), "x") << print_program(*program);
}

// Each case is refused at a refusal site with a message naming what it
// refuses (for a node: the node, its op_type and opset, and the operand).
TEST(OnnxRefusals, EachNamesWhereAndWhat) {
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.label);
    const Outcome o = run_case(k);
    EXPECT_TRUE(o.site.has_value()) << o.message;
    if (getenv("SHOW_REFUSALS")) std::cout << "[" << k.label << "] " << o.message << "\n";
    for (const std::string& text : k.expect) EXPECT_NE(o.message.find(text), std::string::npos) << o.message;
  }
}

// Every refusal site has a case that reaches it.
TEST(OnnxRefusals, EveryRefusalSiteHasACase) {
  const auto sites = refusal_sites();
  ASSERT_GT(sites.size(), 50u);
  std::map<Site, std::vector<std::string>> reached;
  for (const Case& k : cases()) {
    const Outcome o = run_case(k);
    if (!o.site) continue;  // EachNamesWhereAndWhat reports it
    reached[*o.site].push_back(k.label);
    EXPECT_TRUE(sites.count(*o.site)) << k.label << " reached " << str(*o.site)
                                      << ", which the source scan does not list as a refusal";
  }
  for (const auto& [site, text] : sites)
    EXPECT_TRUE(reached.count(site)) << str(site) << ": no case in tests/frontends/refusals/ reaches this refusal:\n"
                                     << text;
}

// The importer throws only through refusal.h (refuse, internal_error,
// io_error) and rethrows with `throw;`: a `throw CompileError(...)` would
// bypass the walk.
TEST(OnnxRefusals, ImporterThrowsOnlyThroughRefusal) {
  for (const fs::path& path : importer_sources()) {
    if (path.filename() == "refusal.h") continue;
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string code = code_of(ss.str());
    for (const auto& [at, next] : word_uses(code, "throw")) {
      const int line = static_cast<int>(std::count(code.begin(), code.begin() + static_cast<long>(at), '\n')) + 1;
      EXPECT_TRUE(next < code.size() && code[next] == ';')
          << path.filename().string() << ":" << line
          << ": a throw that is not a rethrow; refuse() (or internal_error()) instead";
    }
  }
}

}  // namespace
}  // namespace edgec
