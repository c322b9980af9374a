#include "tools/common/progress.h"

#include <unistd.h>

#include <cstdio>

namespace ie::cli {

ProgressBar::ProgressBar(std::string label, int64_t total, bool enabled)
    : m_label(std::move(label)), m_total(total > 0 ? total : 1),
      m_enabled(enabled && isatty(STDOUT_FILENO) && isatty(STDERR_FILENO)) {
  m_start = m_last = std::chrono::steady_clock::now();
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(int64_t done) {
  if (!m_enabled || m_finished) return;
  auto now = std::chrono::steady_clock::now();
  if (done < m_total && now - m_last < std::chrono::milliseconds(100)) return;
  m_last = now;
  constexpr int kWidth = 30;
  int filled = static_cast<int>(kWidth * done / m_total);
  double secs = std::chrono::duration<double>(now - m_start).count();
  std::fprintf(stderr, "\r%s [%.*s%*s] %lld/%lld  %.0f/s ", m_label.c_str(), filled,
               "##############################", kWidth - filled, "", static_cast<long long>(done),
               static_cast<long long>(m_total), secs > 0 ? done / secs : 0.0);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!m_enabled || m_finished) return;
  m_finished = true;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace ie::cli
