#include "engine/io/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "engine/core/error.h"

// Every reader copies little-endian file data straight into tensors.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the tensor file readers assume a little-endian host");

namespace ie {

void check_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail_input(path, ": cannot open for reading: ", std::strerror(errno));
  if (S_ISREG(st.st_mode)) return;
  const char* kind = S_ISDIR(st.st_mode)    ? "a folder"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                  : "a special file";
  fail_input(path, ": not a regular file (", kind, ")");
}

InputFile::InputFile(const std::string& path) : m_path(path) {
  check_regular_file(path);
  m_file = std::fopen(path.c_str(), "rb");
  if (!m_file) fail_input(path, ": cannot open for reading: ", std::strerror(errno));
  struct stat st {};
  if (fstat(fileno(m_file), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(m_file);
    m_file = nullptr;
    fail_input(path, ": not a regular file");
  }
  m_size = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (m_file) std::fclose(m_file);
}

size_t InputFile::read_some(void* dst, size_t n) {
  size_t got = n ? std::fread(dst, 1, n, m_file) : 0;
  if (got < n && std::ferror(m_file)) fail_input(m_path, ": read error: ", std::strerror(errno));
  m_position += got;
  return got;
}

void InputFile::read_exact(void* dst, size_t n, const char* what) {
  size_t got = read_some(dst, n);
  if (got != n) fail_input(m_path, ": truncated ", what, ": expected ", n, " bytes, got ", got);
}

AtomicFileWriter::AtomicFileWriter(const std::string& path) : m_path(path) {
  // A unique name in the target's folder, so that the final rename() stays on one file system.
  static std::atomic<unsigned> counter{0};
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) fail(ErrorKind::Usage, path, ": not a file name");
  for (int attempt = 0; attempt < 100; ++attempt) {
    m_temp_path = concat(dir, ".", base, ".tmp-", getpid(), "-", counter++);
    // open() with 0666 respects the umask, so the result gets the same permissions as a plain fopen().
    int fd = ::open(m_temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0)
      fail(ErrorKind::Usage, path, ": cannot create a file in '", dir.empty() ? "." : dir, "': ", std::strerror(errno));
    m_file = fdopen(fd, "wb");
    if (!m_file) {
      ::close(fd);
      std::remove(m_temp_path.c_str());
      fail(ErrorKind::Usage, path, ": cannot open for writing: ", std::strerror(errno));
    }
    return;
  }
  fail(ErrorKind::Usage, path, ": cannot find a free temporary file name beside it");
}

AtomicFileWriter::~AtomicFileWriter() {
  if (m_committed) return;
  if (m_file) std::fclose(m_file);
  std::remove(m_temp_path.c_str());
}

void AtomicFileWriter::fail_io(const char* what) {
  int err = errno;
  if (m_file) std::fclose(m_file);
  m_file = nullptr;
  std::remove(m_temp_path.c_str());
  fail(ErrorKind::Usage, m_path, ": ", what, ": ", std::strerror(err));
}

void AtomicFileWriter::write(const void* data, size_t n) {
  if (!m_file) fail(ErrorKind::Usage, m_path, ": write after the file was closed");
  if (n && std::fwrite(data, 1, n, m_file) != n) fail_io("write failed");
}

void AtomicFileWriter::commit() {
  if (!m_file) fail(ErrorKind::Usage, m_path, ": commit after the file was closed");
  if (std::fflush(m_file) != 0) fail_io("write failed");
  std::FILE* f = m_file;
  m_file = nullptr;
  if (std::fclose(f) != 0) fail_io("write failed");
  if (std::rename(m_temp_path.c_str(), m_path.c_str()) != 0) fail_io("cannot rename the temporary file over it");
  m_committed = true;
}

void normalize_bools(Tensor& tensor) {
  auto* p = static_cast<uint8_t*>(tensor.data());
  for (size_t i = 0, n = tensor.nbytes(); i < n; ++i) p[i] = p[i] != 0;
}

std::string file_extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

}  // namespace ie
