// Shared pieces of the command-line tools: error-to-exit-code mapping and argument parsing helpers.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie::cli {

/// Runs `body`, turning ie::Error into its exit code and a message on stderr (never a crash).
int guarded_main(const char* tool, const std::function<int()>& body);

/// Parses "2x3x4" or "2,3,4" into a shape; throws Error(Usage) naming `what`.
std::vector<int64_t> parse_shape(const std::string& text, const std::string& what);

/// Parses repeated "name=2x3x4" options into a map.
std::map<std::string, std::vector<int64_t>> parse_named_shapes(const std::vector<std::string>& items);

/// Whether stdout is an interactive terminal (progress bars only then).
bool stdout_is_terminal();

}  // namespace ie::cli

/// CLI11's parse with our exit codes: --help exits 0, a usage error exits 2 with CLI11's message.
#define IE_CLI_PARSE(app, argc, argv)           \
  try {                                         \
    (app).parse((argc), (argv));                \
  } catch (const CLI::ParseError& e) {          \
    int code = (app).exit(e);                   \
    return code == 0 ? 0 : 2;                   \
  }
