// libonnx-testdata's models (pytorch-converted/, pytorch-operator/,
// simple/: models nobody here wrote, mostly at opset 6, IR 3) through what
// `edgec compile` and `edgec run` do, compared with each data set's
// output_*.pb within 1e-4 (absolute plus relative). Every model must
// compile with the default backends and match, whatever ONNX Runtime does
// with it (1.20 refuses many opset-6 operators edgec reads), except those
// listed in models/onnx_testdata/refused.txt with their reason: each of
// those must be refused, with the text the list gives, and a listed model
// that passes fails the test too. ONNX Runtime 1.20's verdicts
// (models/onnx_testdata/ort_1.20.txt, written by
// models/onnx_testdata/ort_runs.py) are printed beside edgec's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "support/onnx_cases.h"

namespace edgec {
namespace {

namespace fs = std::filesystem;

const fs::path kData = "/usr/share/libonnx-testdata/data";
const char* const kSuites[] = {"pytorch-converted", "pytorch-operator", "simple"};
const char* const kRefusedList = "models/onnx_testdata/refused.txt";

/// "suite/name" -> ONNX Runtime 1.20's verdict ("ok" or "refused: ...").
std::map<std::string, std::string> ort_verdicts() {
  std::map<std::string, std::string> out;
  std::ifstream in(EDGEC_SOURCE_DIR "/models/onnx_testdata/ort_1.20.txt");
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.find(' ');
    if (space != std::string::npos) out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

struct Refused {
  std::string message_has;  ///< text edgec's message must contain
  std::string why;          ///< "by design: ..." or "edgec bug: ..."
};

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

/// refused.txt: "MODEL | TEXT | WHY" a line; '#' starts a comment line.
/// A malformed line is a test failure naming it.
std::map<std::string, Refused> refused_list() {
  std::map<std::string, Refused> out;
  std::ifstream in(std::string(EDGEC_SOURCE_DIR "/") + kRefusedList);
  EXPECT_TRUE(in.good()) << kRefusedList << " is missing";
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (trimmed(line).empty() || line[0] == '#') continue;
    const size_t a = line.find(" | "), b = a == std::string::npos ? a : line.find(" | ", a + 3);
    const std::string where = std::string(kRefusedList) + ":" + std::to_string(number);
    if (b == std::string::npos) {
      ADD_FAILURE() << where << ": expected MODEL | TEXT IN EDGEC'S MESSAGE | WHY, got: " << line;
      continue;
    }
    const std::string model = trimmed(line.substr(0, a));
    Refused r{trimmed(line.substr(a + 3, b - a - 3)), trimmed(line.substr(b + 3))};
    if (r.message_has.empty() || (r.why.rfind("by design: ", 0) != 0 && r.why.rfind("edgec bug: ", 0) != 0))
      ADD_FAILURE() << where << ": the text must not be empty and the reason must start with \"by design: \" or "
                    << "\"edgec bug: \", got: " << line;
    if (!out.emplace(model, std::move(r)).second) ADD_FAILURE() << where << ": " << model << " is listed twice";
  }
  return out;
}

TEST(OnnxTestdataModels, EveryModelCompilesAndMatchesButThoseListedRefused) {
  ASSERT_TRUE(fs::is_directory(kData / "pytorch-converted")) << "libonnx-testdata is not installed; make installs it";
  const auto ort = ort_verdicts();
  ASSERT_FALSE(ort.empty()) << "models/onnx_testdata/ort_1.20.txt is missing or empty";
  const auto refused = refused_list();
  int models = 0, passed = 0, ort_runs = 0, ort_refuses = 0, listed_seen = 0;
  std::vector<std::string> notes;
  for (const char* suite : kSuites) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(kData / suite))
      if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& dir : dirs) {
      ++models;
      const std::string name = std::string(suite) + "/" + dir.filename().string();
      const auto verdict = ort.find(name);
      ASSERT_NE(verdict, ort.end()) << name << " is not in models/onnx_testdata/ort_1.20.txt; rerun ort_runs.py";
      const bool ort_ok = verdict->second == "ok";
      ort_runs += ort_ok;
      const std::string bytes = onnx_cases::slurp(dir / "model.onnx");
      onnx::ModelProto model;
      ASSERT_TRUE(model.ParseFromString(bytes)) << name << ": model.onnx does not parse";
      const std::string problem = onnx_cases::run_case(model, bytes, dir, compare::Tolerance::sum(1e-4, 1e-4));
      passed += problem.empty();
      if (auto listed = refused.find(name); listed != refused.end()) {
        ++listed_seen;
        EXPECT_NE(problem, "") << name << " compiles and matches now; take it off " << kRefusedList << " ("
                               << listed->second.why << ")";
        EXPECT_TRUE(problem.empty() || problem.find(listed->second.message_has) != std::string::npos)
            << name << " is refused, but not as " << kRefusedList << " says (\"" << listed->second.message_has
            << "\"): " << problem;
        notes.push_back(name + ": refused, " + listed->second.why);
        continue;
      }
      EXPECT_EQ(problem, "") << name << " (ONNX Runtime 1.20: " << verdict->second.substr(0, 120)
                             << "); if edgec refuses it by design, list it in " << kRefusedList << " with the reason";
      if (!ort_ok && problem.empty()) {
        ++ort_refuses;
        notes.push_back(name + ": compiles and matches; ONNX Runtime 1.20 " + verdict->second.substr(0, 120));
      }
    }
  }
  EXPECT_EQ(listed_seen, static_cast<int>(refused.size()))
      << kRefusedList << " lists a model libonnx-testdata does not have";
  std::cout << "libonnx-testdata models: " << passed << " of " << models << " compile and match (" << ort_refuses
            << " of them ONNX Runtime 1.20 refuses); " << refused.size() << " refused as " << kRefusedList
            << " says; ONNX Runtime 1.20 runs " << ort_runs << "\n";
  for (const auto& o : notes) std::cout << "  " << o << "\n";
  RecordProperty("passed", passed);
  RecordProperty("models", models);
}

}  // namespace
}  // namespace edgec
