// Node attributes, read by name with ONNX's defaults (never by position).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/api/engine.h"

namespace ie {

struct Attribute {
  enum class Kind { Float, Int, String, Tensor, Floats, Ints, Strings, Graph, Other };
  Kind kind = Kind::Other;
  float f = 0;
  int64_t i = 0;
  std::string s;
  ie::Tensor t;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
};

class Attributes {
 public:
  bool has(const std::string& name) const { return m_items.count(name) != 0; }
  void set(const std::string& name, Attribute value) { m_items[name] = std::move(value); }
  void set_int(const std::string& name, int64_t v);
  void set_float(const std::string& name, float v);
  void set_ints(const std::string& name, std::vector<int64_t> v);
  void set_string(const std::string& name, std::string v);
  void erase(const std::string& name) { m_items.erase(name); }

  // Getters throw Error(BadInput) when the attribute exists with another kind.
  int64_t get_int(const std::string& name, int64_t fallback) const;
  float get_float(const std::string& name, float fallback) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& fallback = {}) const;
  std::vector<float> get_floats(const std::string& name, const std::vector<float>& fallback = {}) const;
  /// The attribute itself, or nullptr.
  const Attribute* find(const std::string& name) const;
  const std::map<std::string, Attribute>& items() const { return m_items; }

 private:
  std::map<std::string, Attribute> m_items;
};

}  // namespace ie
