// The options several commands take, registered in one place so that they
// read and are documented alike in every command's --help.
#include "commands.h"

namespace edgec::cli {

void add_program_argument(CLI::App& cmd, std::string& path) {
  cmd.add_option("program", path, "the .edgec file")->required();
}

void add_inputs_option(CLI::App& cmd, std::string& path) {
  cmd.add_option("--inputs", path, "an .npz with one array per input, keyed by input name")->required();
}

void add_outputs_option(CLI::App& cmd, std::string& path) {
  cmd.add_option("--outputs", path, "where to write the outputs (.npz, keyed by output name)")->required();
}

void add_threads_option(CLI::App& cmd, std::string& text, const std::string& help) {
  cmd.add_option("--threads", text, help)->type_name("INT:POSITIVE");
}

void add_timeout_option(CLI::App& cmd, std::string& text, bool& given) {
  cmd.add_option("--timeout", text,
                 "stop the program's execution after this many seconds (decimals allowed) with an error and no "
                 "output (default: none)")
      ->type_name("SECONDS")
      ->each([&given](const std::string&) { given = true; });
}

}  // namespace edgec::cli
