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

/// Validator of an integer option: "<flag> must be >= <min>, got <text>" (exit 2), in place of CLI11's range text.
///   app.add_option("--batch-size", n, "samples per batch")->check(ie::cli::at_least(1, "--batch-size"));
CLI::Validator at_least(int64_t min, const std::string& flag);

/// Adds --threads N: CPU worker threads, 0 for all cores, at most 4x the hardware threads (1024 at most).
void add_threads_option(CLI::App& app, int* threads);

/// Adds --precision fp32|tf32|fp16|bf16 into `name` (`what` follows the list in the help text).
/// --precision fp32|tf32|fp16|bf16 (and `auto` where the tool chooses the mode: precision_choice.h).
void add_precision_option(CLI::App& app, std::string* name, const std::string& what = "", bool with_auto = false);

/// Adds --devices all|0,1 (the GPUs to split batches across) into `text`; devices_from_text() reads it once the
/// backend is known.
void add_devices_option(CLI::App& app, std::string* text);
/// "" -> {} (the current device); "all" -> every device of `backend`; "0,1" -> {0, 1}. Throws Error(Usage).
std::vector<int> devices_from_text(const std::string& text, const std::string& backend);
/// Before anything starts the CUDA driver: a run on the default device (no --devices) makes device 0 the only one
/// the driver starts (CUDA_VISIBLE_DEVICES=0), unless the variable is set already. The driver starts every visible
/// GPU: on a two-H200 machine the README's main job took 0.62-0.76 s with both, 0.46-0.48 s with one. Returns
/// whether it set the variable.
bool start_only_the_default_device(const std::string& devices_text);

/// Adds --max-memory SIZE (bytes, or with K, M, G, T): the most memory a model's plan may take, both the whole
/// arena and any single tensor; sets limits->max_arena_bytes and max_tensor_bytes.
void add_max_memory_option(CLI::App& app, Limits* limits);

/// Prints an error raised while parsing the command line ("<tool>: error: <message>") and returns its exit code.
int report_parse_error(const char* argv0, const Error& e);

}  // namespace ie::cli

/// CLI11's parse with our exit codes: --help exits 0, a usage error exits 2 with CLI11's message or ours.
#define IE_CLI_PARSE(app, argc, argv)                 \
  try {                                               \
    (app).parse((argc), (argv));                      \
  } catch (const CLI::ParseError& e) {                \
    int code = (app).exit(e);                         \
    return code == 0 ? 0 : 2;                         \
  } catch (const ie::Error& e) {                      \
    return ie::cli::report_parse_error((argv)[0], e); \
  }
