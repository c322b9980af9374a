#include "engine/ir/attributes.h"

#include "engine/core/error.h"

namespace ie {

namespace {
const Attribute* typed(const std::map<std::string, Attribute>& items, const std::string& name, Attribute::Kind kind,
                       const char* kind_name) {
  auto it = items.find(name);
  if (it == items.end()) return nullptr;
  if (it->second.kind != kind) fail_input("attribute '", name, "' should be of kind ", kind_name);
  return &it->second;
}
}  // namespace

void Attributes::set_int(const std::string& name, int64_t v) {
  Attribute a; a.kind = Attribute::Kind::Int; a.i = v; m_items[name] = a;
}
void Attributes::set_float(const std::string& name, float v) {
  Attribute a; a.kind = Attribute::Kind::Float; a.f = v; m_items[name] = a;
}
void Attributes::set_ints(const std::string& name, std::vector<int64_t> v) {
  Attribute a; a.kind = Attribute::Kind::Ints; a.ints = std::move(v); m_items[name] = a;
}
void Attributes::set_string(const std::string& name, std::string v) {
  Attribute a; a.kind = Attribute::Kind::String; a.s = std::move(v); m_items[name] = a;
}

int64_t Attributes::get_int(const std::string& name, int64_t fallback) const {
  auto a = typed(m_items, name, Attribute::Kind::Int, "int");
  return a ? a->i : fallback;
}
float Attributes::get_float(const std::string& name, float fallback) const {
  auto a = typed(m_items, name, Attribute::Kind::Float, "float");
  return a ? a->f : fallback;
}
std::string Attributes::get_string(const std::string& name, const std::string& fallback) const {
  auto a = typed(m_items, name, Attribute::Kind::String, "string");
  return a ? a->s : fallback;
}
std::vector<int64_t> Attributes::get_ints(const std::string& name, const std::vector<int64_t>& fallback) const {
  auto a = typed(m_items, name, Attribute::Kind::Ints, "ints");
  return a ? a->ints : fallback;
}
std::vector<float> Attributes::get_floats(const std::string& name, const std::vector<float>& fallback) const {
  auto a = typed(m_items, name, Attribute::Kind::Floats, "floats");
  return a ? a->floats : fallback;
}
const Attribute* Attributes::find(const std::string& name) const {
  auto it = m_items.find(name);
  return it == m_items.end() ? nullptr : &it->second;
}

}  // namespace ie
