// Helpers that build ie::Error messages; all library errors go through these.
#pragma once

#include <sstream>
#include <string>

#include "engine/core/exception.h"

namespace ie {

template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <class... Args>
[[noreturn]] void fail(ErrorKind kind, const Args&... args) {
  throw Error(kind, concat(args...));
}

template <class... Args>
[[noreturn]] void fail_input(const Args&... args) {
  throw Error(ErrorKind::BadInput, concat(args...));
}

}  // namespace ie

// Precondition that comes from the model or the caller: throws Error(BadInput) with the message.
#define IE_EXPECT(cond, ...)                           \
  do {                                                 \
    if (!(cond)) ::ie::fail_input(__VA_ARGS__);        \
  } while (0)

namespace ie {

/// A valid model or request that the engine does not support (an op, a dtype, an attribute form).
class Unsupported : public Error {
 public:
  explicit Unsupported(const std::string& message) : Error(ErrorKind::BadInput, message) {}
};

/// Planning needs the value of `tensor` (a shape, axes, sizes ...) but it is only known at run time. When the
/// tensor is a graph input, the session binds its value at plan time (like a shape-tensor input) and plans again.
class NeedsValue : public Unsupported {
 public:
  NeedsValue(const std::string& tensor, const std::string& message) : Unsupported(message), m_tensor(tensor) {}
  const std::string& tensor() const { return m_tensor; }

 private:
  std::string m_tensor;
};

template <class... Args>
[[noreturn]] void fail_unsupported(const Args&... args) {
  throw Unsupported(concat(args...));
}

}  // namespace ie
