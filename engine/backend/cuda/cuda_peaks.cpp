// The GPU's peaks for the profiler (engine/profile/device_peaks.h): a large device-to-device copy (read + write
// bytes), and cuBLAS GEMMs at 8192^3 on random data: SGEMM with pedantic math (true fp32), TF32 tensor-core math,
// and FP16 inputs/outputs with fp32 accumulation (cublasGemmEx). Each is the median of several runs after warm-up,
// timed with events on a stream and handle of its own (the session's math mode is left alone).
#include <algorithm>
#include <random>
#include <vector>

#include "engine/backend/cuda/cuda_state.h"
#include "engine/core/dtype_dispatch.h"
#include "engine/profile/device_peaks.h"

namespace ie::cuda {

namespace {

constexpr int kWarmup = 2;
constexpr int kRuns = 7;

// Frees device buffers and library objects however the measurement ends.
struct Scratch {
  std::vector<void*> buffers;
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ~Scratch() {
    for (void* p : buffers) cudaFree(p);
    if (cublas) blas_api().cublasDestroy(cublas);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
  }
  void* alloc(size_t bytes) {
    void* p = nullptr;
    IE_CUDA_CHECK(cudaMalloc(&p, bytes));
    buffers.push_back(p);
    return p;
  }
  // Median ms of `fn` (work issued on `stream`).
  template <class Fn>
  double median_ms(Fn&& fn) {
    for (int i = 0; i < kWarmup; ++i) fn();
    std::vector<double> ms;
    for (int i = 0; i < kRuns; ++i) {
      IE_CUDA_CHECK(cudaEventRecord(start, stream));
      fn();
      IE_CUDA_CHECK(cudaEventRecord(stop, stream));
      IE_CUDA_CHECK(cudaEventSynchronize(stop));
      float t = 0;
      IE_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
};

std::vector<float> random_matrix(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n * n));
  for (auto& x : v) x = dist(rng);
  return v;
}

DevicePeaks measure(Backend& backend) {
  CudaState& state = state_of(backend.kernel_state());
  IE_CUDA_CHECK(cudaSetDevice(state.device));
  Scratch s;
  IE_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  IE_CUDA_CHECK(cudaEventCreate(&s.start));
  IE_CUDA_CHECK(cudaEventCreate(&s.stop));
  IE_CUDA_CHECK(blas_api().cublasCreate(&s.cublas));
  IE_CUDA_CHECK(blas_api().cublasSetStream(s.cublas, s.stream));
  size_t free_bytes = 0, total_bytes = 0;
  IE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));

  DevicePeaks p;
  // Copy bandwidth: 1 GiB (less on small cards), counted as bytes read plus bytes written.
  const size_t copy_bytes = std::min<size_t>(size_t(1) << 30, free_bytes / 8);
  void* src = s.alloc(copy_bytes);
  void* dst = s.alloc(copy_bytes);
  IE_CUDA_CHECK(cudaMemsetAsync(src, 1, copy_bytes, s.stream));
  double copy_ms =
      s.median_ms([&] { IE_CUDA_CHECK(cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, s.stream)); });
  p.copy_gbps = 2.0 * static_cast<double>(copy_bytes) / (copy_ms * 1e6);

  // GEMMs: three fp32 and three fp16 n x n matrices.
  int64_t n = 8192;
  while (n > 1024 && static_cast<size_t>(n * n) * 18 > free_bytes / 2) n /= 2;
  const size_t count = static_cast<size_t>(n * n);
  float* a = static_cast<float*>(s.alloc(count * 4));
  float* b = static_cast<float*>(s.alloc(count * 4));
  float* c = static_cast<float*>(s.alloc(count * 4));
  half* ah = static_cast<half*>(s.alloc(count * 2));
  half* bh = static_cast<half*>(s.alloc(count * 2));
  half* ch = static_cast<half*>(s.alloc(count * 2));
  for (auto [dev, dev_h, seed] : {std::make_tuple(a, ah, 1u), std::make_tuple(b, bh, 2u)}) {
    std::vector<float> host = random_matrix(n, seed);
    IE_CUDA_CHECK(cudaMemcpy(dev, host.data(), count * 4, cudaMemcpyHostToDevice));
    std::vector<half> host_h(host.begin(), host.end());
    IE_CUDA_CHECK(cudaMemcpy(dev_h, host_h.data(), count * 2, cudaMemcpyHostToDevice));
  }
  const float one = 1.0f, zero = 0.0f;
  const int dim = static_cast<int>(n);
  const double flop = 2.0 * double(n) * double(n) * double(n);
  auto tflops = [&](double ms) { return flop / (ms * 1e9); };

  IE_CUDA_CHECK(blas_api().cublasSetMathMode(s.cublas, CUBLAS_PEDANTIC_MATH));
  p.fp32_tflops = tflops(s.median_ms([&] {
    IE_CUDA_CHECK(
        blas_api().cublasSgemm(s.cublas, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one, a, dim, b, dim, &zero, c, dim));
  }));
  IE_CUDA_CHECK(blas_api().cublasSetMathMode(s.cublas, CUBLAS_DEFAULT_MATH));
  p.tf32_tflops = tflops(s.median_ms([&] {
    IE_CUDA_CHECK(blas_api().cublasGemmEx(s.cublas, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one, a, CUDA_R_32F, dim,
                                          b, CUDA_R_32F, dim, &zero, c, CUDA_R_32F, dim, CUBLAS_COMPUTE_32F_FAST_TF32,
                                          CUBLAS_GEMM_DEFAULT));
  }));
  p.fp16_tflops = tflops(s.median_ms([&] {
    IE_CUDA_CHECK(blas_api().cublasGemmEx(s.cublas, CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one, ah, CUDA_R_16F, dim,
                                          bh, CUDA_R_16F, dim, &zero, ch, CUDA_R_16F, dim, CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT));
  }));
  p.method = "cudaMemcpyAsync D2D " + std::to_string(copy_bytes >> 20) + " MiB (read+write); cuBLAS " +
             std::to_string(n) +
             "^3 SGEMM pedantic / GemmEx TF32 / GemmEx FP16 (fp32 accumulate), random data; "
             "median of " +
             std::to_string(kRuns) + " after " + std::to_string(kWarmup) + " warm-up";
  return p;
}

}  // namespace

IE_REGISTER_BACKEND(cuda_peaks) {
  register_peak_meter(kernel_set::kCudaReference, measure);
  register_peak_meter("cuda", measure);
}

}  // namespace ie::cuda
