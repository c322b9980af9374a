// Which instruction set the CPU kernels use: the build's baseline (x86-64-v3: AVX2 + FMA) everywhere, AVX-512
// kernels (compiled beside it with function target attributes, not a separate build) where the processor has
// them, plain C++ on other architectures. Decided once per process; IE_CPU_ISA=avx2|avx512 overrides it.
//
//   if (cpu_isa() == CpuIsa::Avx512) avx512_kernel(...); else avx2_kernel(...);
#pragma once

namespace ie {

enum class CpuIsa { Generic, Avx2, Avx512 };

/// The build's baseline kernels: Avx2 when the library is compiled for AVX2 + FMA (IE_CPU_ARCH), else Generic.
CpuIsa baseline_cpu_isa();
/// The best instruction set this processor and build support: Avx512 where the processor has AVX-512 F/BW/VL/DQ
/// (x86-64 with GCC or Clang), else the baseline.
CpuIsa best_cpu_isa();
/// The instruction set the CPU kernels use now: IE_CPU_ISA when set (avx512; avx2 or generic: the baseline; a
/// choice the processor lacks is lowered, with a warning on stderr), else best_cpu_isa().
CpuIsa cpu_isa();
/// Makes the kernels use `isa` from now on (Avx512 where supported, anything else the baseline); returns the one in
/// force. For tests and benchmarks that compare the paths; not meant to change while kernels run.
CpuIsa set_cpu_isa(CpuIsa isa);
/// "generic", "avx2" or "avx512".
const char* cpu_isa_name(CpuIsa isa);

}  // namespace ie
