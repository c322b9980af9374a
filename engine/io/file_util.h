// File plumbing shared by the tensor readers and writers: exact reads with clear truncation errors, and writes that
// never leave a partial file behind.
//
//   InputFile in(path);                       // throws Error(BadInput) naming the file when it cannot be opened
//   in.read_exact(buf, n, "the header");      // throws naming the file, expected and actual byte counts
//
//   AtomicFileWriter out(path);               // writes into a temporary file beside `path`
//   out.write(data, n);
//   out.commit();                             // renames it over `path`; without commit() the temp file is removed
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/api/engine.h"

namespace ie {

/// Throws Error(BadInput) naming the file unless `path` is a regular file (or a link to one): "cannot open for
/// reading: <why>" when it does not exist, "not a regular file (a FIFO)" for a folder, FIFO, device or socket.
/// Call it before opening: opening a FIFO for reading blocks until some other process writes to it.
void check_regular_file(const std::string& path);

/// A binary file opened for reading; all errors are Error(BadInput) naming the file.
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return m_path; }
  /// Size of the file in bytes, taken when it was opened.
  uint64_t size() const { return m_size; }
  /// Bytes read so far.
  uint64_t position() const { return m_position; }
  /// Reads exactly n bytes or throws "<path>: truncated <what>: expected N bytes, got M".
  void read_exact(void* dst, size_t n, const char* what);
  /// Reads up to n bytes; returns how many were read.
  size_t read_some(void* dst, size_t n);

 private:
  std::string m_path;
  std::FILE* m_file = nullptr;
  uint64_t m_size = 0;
  uint64_t m_position = 0;
};

/// Writes a file through a temporary file in the same folder, renamed over the target on commit().
/// Errors (folder missing, disk full, no permission) are Error(Usage) naming the target file.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t n);
  void write(const std::string& s) { write(s.data(), s.size()); }
  void commit();

 private:
  [[noreturn]] void fail_io(const char* what);

  std::string m_path;
  std::string m_temp_path;
  std::FILE* m_file = nullptr;
  bool m_committed = false;
};

/// Maps every nonzero byte of a bool tensor to 1: a C++ bool must hold 0 or 1, and hand-made files may not.
void normalize_bools(Tensor& tensor);

/// Lower-cased file name extension with its dot (".npy"), or "" when there is none.
std::string file_extension(const std::string& path);

}  // namespace ie
