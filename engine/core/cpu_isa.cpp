#include "engine/core/cpu_isa.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ie {

namespace {

bool has_avx512() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

// Avx512 only where supported; every other choice is the baseline.
CpuIsa usable(CpuIsa isa) { return isa == CpuIsa::Avx512 ? best_cpu_isa() : baseline_cpu_isa(); }

CpuIsa from_environment() {
  const char* env = std::getenv("IE_CPU_ISA");
  if (!env || !*env) return best_cpu_isa();
  CpuIsa asked = best_cpu_isa();
  if (std::strcmp(env, "avx512") == 0)
    asked = CpuIsa::Avx512;
  else if (std::strcmp(env, "avx2") == 0)
    asked = CpuIsa::Avx2;
  else if (std::strcmp(env, "generic") == 0)
    asked = CpuIsa::Generic;
  else
    std::fprintf(stderr, "warning: IE_CPU_ISA=%s is not avx512, avx2 or generic; using %s\n", env, cpu_isa_name(asked));
  const CpuIsa used = usable(asked);
  if (used != asked)
    std::fprintf(stderr, "warning: IE_CPU_ISA=%s: this processor or build has %s kernels instead\n", env,
                 cpu_isa_name(used));
  return used;
}

std::atomic<int>& current() {
  static std::atomic<int> isa{static_cast<int>(from_environment())};
  return isa;
}

}  // namespace

CpuIsa baseline_cpu_isa() {
#if defined(__AVX2__) && defined(__FMA__)
  return CpuIsa::Avx2;
#else
  return CpuIsa::Generic;
#endif
}

CpuIsa best_cpu_isa() {
  static const CpuIsa best = has_avx512() ? CpuIsa::Avx512 : baseline_cpu_isa();
  return best;
}

CpuIsa cpu_isa() { return static_cast<CpuIsa>(current().load(std::memory_order_relaxed)); }

CpuIsa set_cpu_isa(CpuIsa isa) {
  const CpuIsa used = usable(isa);
  current().store(static_cast<int>(used), std::memory_order_relaxed);
  return used;
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Avx512:
      return "avx512";
    case CpuIsa::Avx2:
      return "avx2";
    default:
      return "generic";
  }
}

}  // namespace ie
