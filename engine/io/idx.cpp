#include "engine/io/idx.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/shape.h"
#include "engine/io/file_util.h"

namespace ie {
namespace {

// Deflate cannot compress better than about 1032:1, which bounds what a gzip file of a given size can hold.
constexpr uint64_t kMaxDeflateRatio = 1032;
// gzread() takes an unsigned count; read big tensors in pieces.
constexpr size_t kChunk = size_t{1} << 30;

constexpr std::pair<int, DType> kIdxTypes[] = {
    {0x08, DType::UInt8}, {0x09, DType::Int8},    {0x0B, DType::Int16},
    {0x0C, DType::Int32}, {0x0D, DType::Float32}, {0x0E, DType::Float64},
};

DType idx_dtype(int code, const std::string& path) {
  for (auto [c, dtype] : kIdxTypes)
    if (c == code) return dtype;
  fail_input(path, ": unknown IDX type byte 0x", "0123456789ABCDEF"[(code >> 4) & 15], "0123456789ABCDEF"[code & 15],
             " (expected 08 uint8, 09 int8, 0B int16, 0C int32, 0D float32 or 0E float64)");
}

// A gzFile reads both gzip and plain files, so one path serves both.
class GzReader {
 public:
  explicit GzReader(const std::string& path) : m_path(path) {
    check_regular_file(path);
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) fail_input(path, ": cannot open for reading: ", std::strerror(errno));
    m_file_size = static_cast<uint64_t>(st.st_size);
    m_file = gzopen(path.c_str(), "rb");
    if (!m_file) fail_input(path, ": cannot open for reading: ", std::strerror(errno));
  }
  ~GzReader() { gzclose(m_file); }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;

  bool compressed() const { return gzdirect(m_file) == 0; }
  uint64_t file_size() const { return m_file_size; }

  // Reads up to n bytes; throws on corrupt compressed data.
  size_t read(void* dst, size_t n) {
    size_t total = 0;
    while (total < n) {
      unsigned want = static_cast<unsigned>(std::min(n - total, kChunk));
      int got = gzread(m_file, static_cast<char*>(dst) + total, want);
      if (got < 0) {
        int errnum = 0;
        std::string msg = gzerror(m_file, &errnum);
        // zlib prefixes its message with the path.
        if (msg.compare(0, m_path.size() + 2, m_path + ": ") == 0) msg.erase(0, m_path.size() + 2);
        fail_input(m_path, ": corrupt gzip data after ", m_offset + total, " decompressed bytes: ", msg);
      }
      if (got == 0) break;
      total += static_cast<size_t>(got);
    }
    m_offset += total;
    return total;
  }

  // zlib reports a gzip stream cut short as a short read with Z_BUF_ERROR, not as corrupt data.
  const char* truncation_note() {
    int errnum = Z_OK;
    gzerror(m_file, &errnum);
    return errnum == Z_BUF_ERROR ? " (the gzip stream ends early)" : "";
  }

 private:
  std::string m_path;
  gzFile m_file = nullptr;
  uint64_t m_file_size = 0;
  uint64_t m_offset = 0;  // decompressed bytes read so far
};

void swap_bytes(void* data, size_t elem, size_t count) {
  auto* p = static_cast<unsigned char*>(data);
  if (elem == 1) return;
  for (size_t i = 0; i < count; ++i, p += elem) std::reverse(p, p + elem);
}

// Sends bytes to the file, deflating them into a gzip stream when asked.
class IdxSink {
 public:
  IdxSink(const std::string& path, bool gzip) : m_out(path), m_gzip(gzip), m_path(path) {
    // windowBits 15 + 16 selects the gzip wrapper.
    if (m_gzip && deflateInit2(&m_zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      fail(ErrorKind::Usage, path, ": cannot start gzip compression");
  }
  ~IdxSink() {
    if (m_gzip) deflateEnd(&m_zs);
  }
  IdxSink(const IdxSink&) = delete;
  IdxSink& operator=(const IdxSink&) = delete;

  void write(const void* data, size_t n) {
    if (!m_gzip) return m_out.write(data, n);
    const auto* p = static_cast<const unsigned char*>(data);
    while (n > 0) {
      size_t piece = std::min(n, kChunk);
      deflate_piece(p, piece, Z_NO_FLUSH);
      p += piece;
      n -= piece;
    }
  }
  void commit() {
    if (m_gzip) deflate_piece(nullptr, 0, Z_FINISH);
    m_out.commit();
  }

 private:
  void deflate_piece(const unsigned char* p, size_t n, int flush) {
    m_zs.next_in = const_cast<unsigned char*>(p);
    m_zs.avail_in = static_cast<unsigned>(n);
    unsigned char buf[1 << 16];
    int ret = Z_OK;
    do {
      m_zs.next_out = buf;
      m_zs.avail_out = sizeof(buf);
      ret = deflate(&m_zs, flush);
      if (ret == Z_STREAM_ERROR) fail(ErrorKind::Usage, m_path, ": gzip compression failed");
      m_out.write(buf, sizeof(buf) - m_zs.avail_out);
    } while (m_zs.avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
  }

  AtomicFileWriter m_out;
  bool m_gzip;
  std::string m_path;
  z_stream m_zs{};
};

}  // namespace

Tensor read_idx(const std::string& path) {
  GzReader in(path);
  const char* kind = in.compressed() ? "decompressed " : "";
  unsigned char magic[4];
  size_t got = in.read(magic, 4);
  if (got != 4) fail_input(path, ": truncated IDX header: expected 4 ", kind, "bytes, got ", got, in.truncation_note());
  if (magic[0] != 0 || magic[1] != 0) fail_input(path, ": not an IDX file (it must start with two zero bytes)");
  DType dtype = idx_dtype(magic[2], path);
  int rank = magic[3];

  std::vector<unsigned char> dims_raw(4 * rank);
  got = in.read(dims_raw.data(), dims_raw.size());
  if (got != dims_raw.size())
    fail_input(path, ": truncated IDX header: expected ", 4 + dims_raw.size(), " ", kind, "bytes, got ", 4 + got,
               in.truncation_note());
  Shape shape(rank);
  for (int i = 0; i < rank; ++i) {
    const unsigned char* p = &dims_raw[4 * i];
    shape[i] = (int64_t{p[0]} << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
  }
  size_t elem = dtype_size(dtype);
  uint64_t numel = 1;
  for (int64_t d : shape) {
    if (d != 0 && numel > std::numeric_limits<int64_t>::max() / elem / static_cast<uint64_t>(d))
      fail_input(path, ": IDX shape ", shape_to_string(shape), " is too large (its byte count overflows 64 bits)");
    numel *= static_cast<uint64_t>(d);
  }
  uint64_t header = 4 + dims_raw.size();
  uint64_t nbytes = numel * elem;
  // Reject impossible sizes before allocating: plain files must match exactly, gzip files are bounded by the ratio.
  if (!in.compressed() && in.file_size() != header + nbytes)
    fail_input(path, in.file_size() < header + nbytes ? ": truncated IDX data" : ": unexpected bytes after IDX data",
               " for shape ", shape_to_string(shape), " of ", dtype_name(dtype), ": expected ", header + nbytes,
               " bytes in the file, got ", in.file_size());
  if (in.compressed() && nbytes / kMaxDeflateRatio > in.file_size())
    fail_input(path, ": IDX shape ", shape_to_string(shape), " needs ", nbytes, " bytes of data, more than a ",
               in.file_size(), "-byte gzip file can hold (truncated or corrupt)");

  Tensor t(dtype, shape);
  got = in.read(t.data(), nbytes);
  if (got != nbytes)
    fail_input(path, ": truncated IDX data for shape ", shape_to_string(shape), " of ", dtype_name(dtype),
               ": expected ", header + nbytes, " ", kind, "bytes, got ", header + got, in.truncation_note());
  unsigned char extra;
  if (in.read(&extra, 1) != 0)
    fail_input(path, ": unexpected bytes after IDX data for shape ", shape_to_string(shape), " of ", dtype_name(dtype),
               ": expected ", header + nbytes, " ", kind, "bytes, got more");
  swap_bytes(t.data(), elem, numel);
  return t;
}

}  // namespace ie

namespace ie {

void write_idx(const std::string& path, const Tensor& tensor) {
  if (tensor.empty()) fail(ErrorKind::Usage, path, ": cannot write an empty (unallocated) tensor");
  int code = 0;
  for (auto [c, dtype] : kIdxTypes)
    if (dtype == tensor.dtype()) code = c;
  if (!code) fail(ErrorKind::Usage, path, ": IDX cannot hold ", dtype_name(tensor.dtype()), " data");
  if (tensor.rank() > 255) fail(ErrorKind::Usage, path, ": IDX holds at most 255 dims, the tensor has ", tensor.rank());
  std::vector<unsigned char> header = {0, 0, static_cast<unsigned char>(code),
                                       static_cast<unsigned char>(tensor.rank())};
  for (int64_t d : tensor.shape()) {
    if (d > 0xFFFFFFFFll) fail(ErrorKind::Usage, path, ": IDX dims must fit 32 bits, got ", d);
    for (int shift = 24; shift >= 0; shift -= 8) header.push_back(static_cast<unsigned char>((d >> shift) & 0xFF));
  }
  std::string ext = file_extension(path);
  IdxSink out(path, ext == ".gz");
  out.write(header.data(), header.size());
  // Big-endian data: swap a bounded copy at a time so that large tensors need no second full buffer.
  size_t elem = dtype_size(tensor.dtype());
  size_t per_block = (size_t{1} << 20) / elem;
  std::vector<unsigned char> block(per_block * elem);
  const auto* src = static_cast<const unsigned char*>(tensor.data());
  for (size_t done = 0, numel = tensor.numel(); done < numel; done += per_block) {
    size_t count = std::min(per_block, numel - done);
    std::memcpy(block.data(), src + done * elem, count * elem);
    swap_bytes(block.data(), elem, count);
    out.write(block.data(), count * elem);
  }
  out.commit();
}

}  // namespace ie
