#include "engine/io/npy.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/shape.h"
#include "engine/io/file_util.h"

namespace ie {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kAlign = 64;  // numpy pads the preamble plus header to a multiple of 64 bytes

// numpy type codes (after the byte-order character) and their element types.
struct NpyType {
  const char* code;
  DType dtype;
};
constexpr NpyType kTypes[] = {
    {"f4", DType::Float32}, {"f2", DType::Float16}, {"f8", DType::Float64}, {"u1", DType::UInt8},
    {"i1", DType::Int8},    {"i2", DType::Int16},   {"u2", DType::UInt16},  {"i4", DType::Int32},
    {"u4", DType::UInt32},  {"i8", DType::Int64},   {"u8", DType::UInt64},  {"b1", DType::Bool},
    // numpy has no bfloat16 code: ml_dtypes' bfloat16 saves as a 2-byte void ('<V2'), so that is what a V2 means
    // here, as Keras and JAX read it too; 'bfloat16' is the descr of the str(dtype) convention some writers use.
    {"V2", DType::BFloat16},
};

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  Shape shape;
  bool has_descr = false, has_order = false, has_shape = false;
};

// Parses the Python dict literal numpy writes, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& path) : m_text(text), m_path(path) {}

  NpyHeader parse() {
    NpyHeader h;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = parse_string();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (peek() == '[') fail_input(m_path, ": structured dtypes (records) are not supported in .npy files");
        h.descr = parse_string();
        h.has_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = parse_bool();
        h.has_order = true;
      } else if (key == "shape") {
        h.shape = parse_shape();
        h.has_shape = true;
      } else {
        bad("unexpected key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') ++m_pos;
    }
    ++m_pos;
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' || m_text[m_pos] == '\0')) ++m_pos;
    if (m_pos != m_text.size()) bad("unexpected text after the dictionary");
    if (!h.has_descr || !h.has_order || !h.has_shape) bad("it needs the keys 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    fail_input(m_path, ": malformed .npy header (", what, "): ", m_text.substr(0, 200));
  }
  char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
  void skip_space() {
    while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t' || m_text[m_pos] == '\n')) ++m_pos;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) bad(concat("expected '", c, "' at offset ", m_pos));
    ++m_pos;
  }
  std::string parse_string() {
    char quote = peek();
    if (quote != '\'' && quote != '"') bad(concat("expected a string at offset ", m_pos));
    size_t end = m_text.find(quote, m_pos + 1);
    if (end == std::string::npos) bad("unterminated string");
    std::string s = m_text.substr(m_pos + 1, end - m_pos - 1);
    m_pos = end + 1;
    return s;
  }
  bool parse_bool() {
    for (const char* word : {"True", "False"}) {
      size_t n = std::strlen(word);
      if (m_text.compare(m_pos, n, word) == 0) {
        m_pos += n;
        return word[0] == 'T';
      }
    }
    bad(concat("expected True or False at offset ", m_pos));
  }
  Shape parse_shape() {
    expect('(');
    Shape shape;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') bad(concat("expected a dimension at offset ", m_pos));
      int64_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        int digit = peek() - '0';
        if (d > (std::numeric_limits<int64_t>::max() - digit) / 10) bad("a dimension does not fit 64 bits");
        d = d * 10 + digit;
        ++m_pos;
      }
      if (peek() == 'L') ++m_pos;  // Python 2 long literal, written by old numpy versions
      shape.push_back(d);
      skip_space();
      if (peek() == ',')
        ++m_pos;
      else if (peek() != ')')
        bad(concat("expected ',' or ')' at offset ", m_pos));
    }
    ++m_pos;
    return shape;
  }

  const std::string& m_text;
  const std::string& m_path;
  size_t m_pos = 0;
};

DType dtype_from_descr(const std::string& descr, const std::string& path) {
  char order = descr.empty() ? '\0' : descr[0];
  bool has_order = order == '<' || order == '>' || order == '|' || order == '=';
  std::string code = has_order ? descr.substr(1) : descr;
  if (code == "?") code = "b1";
  if (descr == "bfloat16") code = "V2";
  if (code == "O" || code == "O8") fail_input(path, ": object arrays (pickled Python objects) are not supported");
  for (const NpyType& t : kTypes) {
    if (code != t.code) continue;
    if (order == '>' && dtype_size(t.dtype) > 1)
      fail_input(path, ": big-endian data ('", descr, "') is not supported; save it little-endian with ",
                 "arr.astype(arr.dtype.newbyteorder('<'))");
    return t.dtype;
  }
  fail_input(
      path, ": unsupported dtype '", descr,
      "' (supported: float32, float16, bfloat16 as ml_dtypes saves it ('<V2'), float64, int8, uint8, int16, uint16, ",
      "int32, uint32, int64, uint64, bool)");
}

std::string descr_of(DType dtype, const std::string& path) {
  for (const NpyType& t : kTypes) {
    if (t.dtype != dtype) continue;
    return std::string(dtype_size(dtype) == 1 ? "|" : "<") + t.code;
  }
  fail(ErrorKind::Usage, path, ": cannot write a tensor of type ", dtype_name(dtype), " as .npy");
}

std::string shape_literal(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

uint32_t read_le(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Tensor read_npy(const std::string& path) {
  InputFile in(path);
  unsigned char preamble[12];
  size_t got = in.read_some(preamble, 8);
  if (std::memcmp(preamble, kMagic, std::min(got, kMagicSize)) != 0 || got == 0)
    fail_input(path, ": not a .npy file (bad magic bytes)");
  if (got < 8) fail_input(path, ": truncated header: expected 8 bytes, got ", got);
  int major = preamble[6], minor = preamble[7];
  if (major < 1 || major > 3) fail_input(path, ": unsupported .npy format version ", major, ".", minor);
  int len_bytes = major == 1 ? 2 : 4;
  in.read_exact(preamble + 8, len_bytes, "header");
  uint64_t header_len = read_le(preamble + 8, len_bytes);
  if (header_len > in.size() - in.position())
    fail_input(path, ": truncated header: expected ", header_len, " bytes, got ", in.size() - in.position());
  std::string text(header_len, '\0');
  in.read_exact(text.data(), header_len, "header");

  NpyHeader h = HeaderParser(text, path).parse();
  DType dtype = dtype_from_descr(h.descr, path);
  if (h.fortran_order)
    fail_input(path, ": Fortran-order arrays are not supported; save np.ascontiguousarray(arr) instead");
  int64_t numel = 1;
  for (int64_t d : h.shape) {
    if (d != 0 && numel > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(dtype_size(dtype)) / d)
      fail_input(path, ": shape ", shape_to_string(h.shape), " is too large (its byte count overflows 64 bits)");
    numel *= d;
  }
  uint64_t nbytes = static_cast<uint64_t>(numel) * dtype_size(dtype);
  uint64_t left = in.size() - in.position();
  if (left != nbytes)
    fail_input(path, left < nbytes ? ": truncated data" : ": unexpected bytes after the data", " for shape ",
               shape_to_string(h.shape), " of ", dtype_name(dtype), ": expected ", nbytes, " bytes, got ", left);

  Tensor t(dtype, h.shape);
  in.read_exact(t.data(), nbytes, "data");
  if (dtype == DType::Bool) normalize_bools(t);
  return t;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  if (tensor.empty()) fail(ErrorKind::Usage, path, ": cannot write an empty (unallocated) tensor");
  std::string dict = "{'descr': '" + descr_of(tensor.dtype(), path) +
                     "', 'fortran_order': False, 'shape': " + shape_literal(tensor.shape()) + ", }";
  // Version 1.0 stores the header length in 2 bytes; 2.0 (numpy >= 1.9) in 4.
  int major = 1;
  size_t preamble = 10;
  size_t total = (preamble + dict.size() + 1 + kAlign - 1) / kAlign * kAlign;
  if (total - preamble > 0xFFFF) {
    major = 2;
    preamble = 12;
    total = (preamble + dict.size() + 1 + kAlign - 1) / kAlign * kAlign;
  }
  size_t header_len = total - preamble;
  std::string head(kMagic, kMagicSize);
  head += static_cast<char>(major);
  head += '\0';
  for (size_t i = 0; i < preamble - 8; ++i) head += static_cast<char>((header_len >> (8 * i)) & 0xFF);
  head += dict;
  head.append(total - head.size() - 1, ' ');
  head += '\n';

  AtomicFileWriter out(path);
  out.write(head);
  out.write(tensor.data(), tensor.nbytes());
  out.commit();
}

}  // namespace ie
