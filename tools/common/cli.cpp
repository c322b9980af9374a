#include "tools/common/cli.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "engine/backend/backend.h"
#include "engine/core/byte_size.h"
#include "engine/core/parallel.h"

namespace ie::cli {

int guarded_main(const char* tool, const std::function<int()>& body) {
  try {
    return body();
  } catch (const ie::Error& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::cerr << tool << ": error: out of memory\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << tool << ": error: " << e.what() << "\n";
    return 3;
  }
}

std::vector<int64_t> parse_shape(const std::string& text, const std::string& what) {
  std::vector<int64_t> shape;
  std::string item;
  std::stringstream ss(text);
  while (std::getline(ss, item, text.find('x') != std::string::npos ? 'x' : ',')) {
    try {
      size_t used = 0;
      long long v = std::stoll(item, &used);
      if (used != item.size() || v < 0) throw std::invalid_argument(item);
      shape.push_back(v);
    } catch (const std::exception&) {
      throw Error(ErrorKind::Usage, what + ": '" + text + "' is not a shape like 2x3x4");
    }
  }
  if (shape.empty()) throw Error(ErrorKind::Usage, what + ": empty shape");
  return shape;
}

std::map<std::string, std::vector<int64_t>> parse_named_shapes(const std::vector<std::string>& items) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(ErrorKind::Usage, "--shape '" + item + "': expected NAME=2x3x4");
    shapes[item.substr(0, eq)] = parse_shape(item.substr(eq + 1), "--shape " + item.substr(0, eq));
  }
  return shapes;
}

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) == 1; }

namespace {
// The option's text as a whole integer; nullopt leaves text that is no number to CLI11's conversion message.
std::optional<long long> as_integer(const std::string& text) {
  try {
    size_t used = 0;
    long long v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}
}  // namespace

CLI::Validator at_least(int64_t min, const std::string& flag) {
  return CLI::Validator(
      [min, flag](std::string& text) -> std::string {
        auto v = as_integer(text);
        if (v && *v < min) throw Error(ErrorKind::Usage, flag + " must be >= " + std::to_string(min) + ", got " + text);
        return "";
      },
      "INT>=" + std::to_string(min));
}

void add_threads_option(CLI::App& app, int* threads) {
  app.add_option("--threads", *threads,
                 "CPU worker threads (0: all cores; at most " + std::to_string(max_cpu_threads()) +
                     ", 4x the hardware threads)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (auto v = as_integer(text)) check_cpu_threads(*v, "--threads");
            return "";
          },
          "INT"));
}

void add_precision_option(CLI::App& app, std::string* name, const std::string& what, bool with_auto) {
  std::vector<std::string> modes = {"fp32", "tf32", "fp16", "bf16"};
  if (with_auto) modes.push_back("auto");
  std::string help = "fp32 | tf32 | fp16 | bf16";
  if (with_auto) help += " | auto (the fastest mode whose accuracy gate holds on the input's first samples)";
  app.add_option("--precision", *name, help + (what.empty() ? "" : " (" + what + ")"))->check(CLI::IsMember(modes));
}

void add_devices_option(CLI::App& app, std::string* text) {
  app.add_option("--devices", *text,
                 "GPUs to split the batches across: all, or a list such as 0,1 (default: the "
                 "current device)");
}

std::vector<int> devices_from_text(const std::string& text, const std::string& backend) {
  std::vector<int> devices;
  if (text.empty()) return devices;
  if (text == "all") {
    for (int d = 0; d < backend_device_count(backend); ++d) devices.push_back(d);
    if (devices.empty()) throw Error(ErrorKind::Device, "--devices all: backend '" + backend + "' has no device here");
    return devices;
  }
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    auto v = as_integer(item);
    if (!v || *v < 0 || *v > 1023)
      throw Error(ErrorKind::Usage, "--devices: '" + item + "' is not a device number (use all, or e.g. 0,1)");
    devices.push_back(static_cast<int>(*v));
  }
  if (devices.empty()) throw Error(ErrorKind::Usage, "--devices is empty (use all, or e.g. 0,1)");
  return devices;
}

bool start_only_the_default_device(const std::string& devices_text) {
  if (!devices_text.empty() || std::getenv("CUDA_VISIBLE_DEVICES")) return false;
  return setenv("CUDA_VISIBLE_DEVICES", "0", 0) == 0;
}

void add_max_memory_option(CLI::App& app, Limits* limits) {
  app.add_option_function<std::string>(
      "--max-memory",
      [limits](const std::string& text) {
        limits->max_arena_bytes = limits->max_tensor_bytes = parse_byte_size(text, "--max-memory");
      },
      "most memory a model's plan may take, the arena and any single tensor (e.g. 8G; default: " +
          human_bytes(Limits{}.max_arena_bytes) + " arena, " + human_bytes(Limits{}.max_tensor_bytes) + " tensor)");
}

int report_parse_error(const char* argv0, const Error& e) {
  std::string tool = argv0 ? argv0 : "";
  size_t slash = tool.find_last_of('/');
  if (slash != std::string::npos) tool.erase(0, slash + 1);
  std::cerr << tool << ": error: " << e.what() << "\n";
  return e.exit_code();
}

}  // namespace ie::cli
