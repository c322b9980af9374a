// A one-line progress bar on stderr, drawn only when stdout and stderr are terminals.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace ie::cli {

class ProgressBar {
 public:
  ProgressBar(std::string label, int64_t total, bool enabled);
  ~ProgressBar();
  void update(int64_t done);
  void finish();

 private:
  std::string m_label;
  int64_t m_total;
  bool m_enabled;
  bool m_finished = false;
  std::chrono::steady_clock::time_point m_start, m_last;
};

}  // namespace ie::cli
