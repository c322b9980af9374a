#include "engine/io/file_names.h"

#include <cctype>
#include <string>
#include <unordered_set>

namespace ie {
namespace {

// Leaves room for a uniqueness suffix and an extension within the usual 255-byte limit.
constexpr size_t kMaxNameLength = 200;

bool is_safe_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  size_t begin = s.find_first_not_of("_.");
  if (begin == std::string::npos) return "";
  size_t end = s.find_last_not_of("_.");
  return s.substr(begin, end - begin + 1);
}

}  // namespace

std::string file_safe_name(const std::string& tensor_name) {
  std::string out;
  for (char c : tensor_name) {
    char mapped = is_safe_char(c) ? c : '_';
    if (mapped == '_' && !out.empty() && out.back() == '_') continue;
    out += mapped;
  }
  out = trim(out);
  if (out.size() > kMaxNameLength) out = trim(out.substr(0, kMaxNameLength));
  return out.empty() ? "tensor" : out;
}

std::vector<std::string> make_unique_names(const std::vector<std::string>& names) {
  std::unordered_set<std::string> listed;
  for (const auto& n : names) listed.insert(lower(n));
  std::unordered_set<std::string> used;
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const auto& name : names) {
    std::string candidate = name;
    for (int k = 1; used.count(lower(candidate)); ++k) {
      candidate = name + "_" + std::to_string(k);
      if (listed.count(lower(candidate))) candidate = name;  // keep looking: that name belongs to a later entry
    }
    used.insert(lower(candidate));
    out.push_back(candidate);
  }
  return out;
}

std::vector<std::string> unique_file_names(const std::vector<std::string>& tensor_names) {
  std::vector<std::string> safe;
  safe.reserve(tensor_names.size());
  for (const auto& n : tensor_names) safe.push_back(file_safe_name(n));
  return make_unique_names(safe);
}

}  // namespace ie
