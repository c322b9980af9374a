#include "tools/common/cli.h"

#include <unistd.h>

#include <iostream>
#include <sstream>

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

}  // namespace ie::cli
