#include "engine/core/byte_size.h"

#include <cctype>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "engine/core/error.h"

namespace ie {

std::string human_bytes(uint64_t b) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (b < 1024) return std::to_string(b) + " B";
  double v = static_cast<double>(b) / 1024.0;
  int unit = 0;
  while (v >= 1024.0 && unit < 5) v /= 1024.0, ++unit;
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << v << " " << kUnits[unit];
  return os.str();
}

uint64_t parse_byte_size(const std::string& text, const std::string& what) {
  auto bad = [&]() {
    fail(ErrorKind::Usage, what, ": '", text, "' is not a size in bytes (a whole number, optionally with K, M, G or T",
         " for KiB, MiB, GiB, TiB, e.g. 8G)");
  };
  size_t used = 0;
  double value = 0;
  try {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) bad();
    value = std::stod(text, &used);
  } catch (const std::logic_error&) {
    bad();
  }
  std::string suffix = text.substr(used);
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.size() == 3 && suffix.substr(1) == "IB") suffix.resize(1);
  const std::string units = "KMGT";
  int shift = 0;
  if (!suffix.empty()) {
    size_t u = units.find(suffix);
    if (suffix.size() != 1 || u == std::string::npos) bad();
    shift = 10 * static_cast<int>(u + 1);
  }
  const double bytes = std::ldexp(value, shift);
  if (!(bytes >= 1)) fail(ErrorKind::Usage, what, " must be at least 1 byte, got '", text, "'");
  if (bytes >= 18446744073709551615.0) fail(ErrorKind::Usage, what, ": '", text, "' is more than 2^64 bytes");
  return static_cast<uint64_t>(bytes);
}

}  // namespace ie
