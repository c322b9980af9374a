// The one exception type of the library; its kind maps onto the tools' exit codes (public through engine.h).
#pragma once

#include <stdexcept>
#include <string>

namespace ie {

/// What went wrong, mapped one-to-one onto the tools' exit codes.
enum class ErrorKind : int {
  CheckFailed = 1,   // a result check (accuracy, tolerance) failed
  Usage = 2,         // the caller asked for something impossible
  BadInput = 3,      // bad model, input tensor or file format
  Device = 4,        // CUDA, cuDNN or cuBLAS failure
  Regression = 5,    // benchmark slower than its baseline
  NonFinite = 6,     // NaN or Inf in an output
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
  ErrorKind kind() const { return m_kind; }
  int exit_code() const { return static_cast<int>(m_kind); }

 private:
  ErrorKind m_kind;
};

}  // namespace ie
