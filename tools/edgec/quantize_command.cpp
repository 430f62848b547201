// `edgec quantize MODEL.onnx --calibration DIR -o OUT.onnx`: post-training
// static quantization (src/quantize/quantize.h) into a QDQ ONNX model, with
// a report of what it costs on held-back calibration samples (printed, and
// with --report as JSON). Layers not faster in int8 on this CPU stay
// float32 (timed, unless --no-measure).
#include <iostream>

#include "commands.h"
#include "io/pending_files.h"
#include "quantize/quantize.h"

namespace edgec::cli {
namespace {

struct QuantizeOptions {
  std::string input;
  std::string output;
  std::string calibration;
  std::string method = "minmax";
  std::string keep_float;
  std::string holdout;
  bool holdout_given = false;
  std::string report;
  std::string layers = "10";
  std::string backends;
  bool no_measure = false;
};

void run_quantize(const QuantizeOptions& o) {
  prefer_large_pages();
  quantize::Options options;
  quantize::parse_method(o.method, options);
  if (!o.keep_float.empty()) options.keep_float = quantize::parse_node_list(o.keep_float, "--keep-float");
  if (o.holdout_given) options.holdout = parse_integer("--holdout", o.holdout, 0, 1'000'000'000);
  options.worst_layers = parse_integer("--layers", o.layers, 0, 1'000'000'000);
  options.backends = o.backends;
  options.measure = !o.no_measure;
  if (!o.report.empty() && o.report == o.output) throw UsageError("--report and -o name the same file, '" + o.output + "'");
  const quantize::Result result = quantize::quantize_model(o.input, o.calibration, options);
  std::vector<io::OutputFile> files{{o.output, std::as_bytes(std::span(result.model))}};
  std::string json;
  if (!o.report.empty()) {
    json = quantize::report_json(result.report).dump(2) + "\n";
    files.push_back({o.report, std::as_bytes(std::span(json))});
  }
  io::write_files_atomically(files);
  std::cout << quantize::report_text(result.report);
}

}  // namespace

void add_quantize_command(CLI::App& app) {
  auto [cmd, opts] = add_command(app, "quantize",
                                 "quantize a float32 ONNX model to int8 (QDQ ONNX, as ONNX Runtime's quantize_static "
                                 "writes) from calibration inputs, and report what it costs",
                                 run_quantize);
  cmd->add_option("model", opts->input, "the float32 .onnx model")->required();
  cmd->add_option("-o,--output", opts->output, "the QDQ .onnx model to write (atomically)")->required();
  cmd->add_option("--calibration", opts->calibration,
                  "a folder of .npz files, one per sample, each keyed by the model's input names")
      ->required();
  cmd->add_option("--method", opts->method,
                  "activation ranges: minmax (default), or percentile[=P]: the range keeping P% of the values "
                  "(default 99.99), (100-P)/2 % cut off each side");
  cmd->add_option("--keep-float", opts->keep_float, "ONNX node names to leave in float32, comma-separated");
  cmd->add_option("--holdout", opts->holdout,
                  "calibration files held back to compare the quantized model with the float one (the last ones by "
                  "name; default: 20%, at least 1)")
      ->type_name("INT")
      ->each([o = opts.get()](const std::string&) { o->holdout_given = true; });
  cmd->add_option("--report", opts->report, "also write the report as JSON to this file");
  cmd->add_option("--layers", opts->layers, "how many of the layers that lose most the report lists (default 10)")
      ->type_name("INT");
  cmd->add_option("--backends", opts->backends,
                  "backends for the programs calibration, the per-layer timing and the report run (as edgec "
                  "compile's --backends)");
  cmd->add_flag("--no-measure", opts->no_measure,
                "quantize every Conv / Gemm / MatMul without timing it; by default each is timed as a one-layer "
                "model in float32 and in int8 on this CPU, and stays float32 unless its int8 form is at least 10% "
                "faster (--keep-float still forces a layer float32)");
}

}  // namespace edgec::cli
