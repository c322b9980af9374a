// Lab: what the host's links carry between page-locked memory and every GPU at once, the ceiling of a streamed
// pipeline whose batches are bound by copies (the SSA at 65536 moves 84 MB in and 92 MB out per batch in fp32 I/O).
//
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a tests/kernels/host_link_lab.cu -o host_link_lab
//   ./host_link_lab [--in MB] [--out MB] [--csv FILE] [--check-only]   # default 84 and 92 MB: the SSA at 65536
//
// For each device alone and for all devices together: host -> device, device -> host, and both directions at once
// (what a pipeline with batches in flight does), 20 copies per device and direction in flight on their own
// streams, page-locked buffers (one per device and direction, so no two DMAs share host pages). The figure is the
// bytes moved over the wall time from the first copy issued to the last one done (median of 5 rounds), and the
// time per batch that bandwidth allows for MB_IN + MB_OUT per batch (per device: the batches are split).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/kernels/lab_util.cuh"

namespace {

struct Device {
  int id = 0;
  void *d_in = nullptr, *d_out = nullptr, *h_in = nullptr, *h_out = nullptr;
  cudaStream_t up = nullptr, down = nullptr;
};

constexpr int kCopies = 20, kRounds = 5;
FILE* g_csv = nullptr;

// Seconds for kCopies copies per device in the chosen directions, all devices at once.
double run(std::vector<Device>& devs, size_t in_bytes, size_t out_bytes, bool up, bool down) {
  for (auto& d : devs) {
    CUDA_CHECK(cudaSetDevice(d.id));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCopies; ++i)
    for (auto& d : devs) {
      CUDA_CHECK(cudaSetDevice(d.id));
      if (up) CUDA_CHECK(cudaMemcpyAsync(d.d_in, d.h_in, in_bytes, cudaMemcpyHostToDevice, d.up));
      if (down) CUDA_CHECK(cudaMemcpyAsync(d.h_out, d.d_out, out_bytes, cudaMemcpyDeviceToHost, d.down));
    }
  for (auto& d : devs) {
    CUDA_CHECK(cudaSetDevice(d.id));
    CUDA_CHECK(cudaStreamSynchronize(d.up));
    CUDA_CHECK(cudaStreamSynchronize(d.down));
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void report(const char* what, std::vector<Device>& devs, size_t in_bytes, size_t out_bytes, bool up, bool down) {
  std::vector<double> s;
  run(devs, in_bytes, out_bytes, up, down);  // warm-up
  for (int r = 0; r < kRounds; ++r) s.push_back(run(devs, in_bytes, out_bytes, up, down));
  std::sort(s.begin(), s.end());
  const double sec = s[s.size() / 2];
  const double bytes = static_cast<double>(devs.size()) * kCopies * ((up ? in_bytes : 0) + (down ? out_bytes : 0));
  // A batch moves in + out bytes; with n devices n batches move in the time measured for kCopies rounds.
  const double batch_ms = sec / (kCopies * static_cast<double>(devs.size())) * 1e3;
  std::printf("  %-28s devices %zu: %7.1f GB/s  (%.3f ms per batch moved)\n", what, devs.size(), bytes / sec / 1e9,
              batch_ms);
  if (g_csv) std::fprintf(g_csv, "%s,%zu,%.2f,%.4f\n", what, devs.size(), bytes / sec / 1e9, batch_ms);
}

}  // namespace

int main(int argc, char** argv) {
  double in_mb = 84, out_mb = 92;
  const char* csv_path = nullptr;
  bool check_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check-only")
      check_only = true;
    else if (a == "--in" && i + 1 < argc)
      in_mb = std::atof(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      out_mb = std::atof(argv[++i]);
    else if (a == "--csv" && i + 1 < argc)
      csv_path = argv[++i];
  }
  const size_t in_bytes = static_cast<size_t>(in_mb * (1 << 20)), out_bytes = static_cast<size_t>(out_mb * (1 << 20));
  if (in_bytes == 0 || out_bytes == 0) {
    std::fprintf(stderr, "--in and --out take sizes in MB above 0\n");
    return 2;
  }
  if (csv_path) g_csv = std::fopen(csv_path, "w");
  if (g_csv) std::fprintf(g_csv, "what,devices,gb_per_s,ms_per_batch\n");
  int n = 0;
  CUDA_CHECK(cudaGetDeviceCount(&n));
  std::vector<Device> all(n);
  for (int i = 0; i < n; ++i) {
    Device& d = all[i];
    d.id = i;
    CUDA_CHECK(cudaSetDevice(i));
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    std::printf("device %d: %s, PCI %04x:%02x:%02x\n", i, p.name, p.pciDomainID, p.pciBusID, p.pciDeviceID);
    CUDA_CHECK(cudaMalloc(&d.d_in, in_bytes));
    CUDA_CHECK(cudaMalloc(&d.d_out, out_bytes));
    CUDA_CHECK(cudaHostAlloc(&d.h_in, in_bytes, cudaHostAllocPortable));
    CUDA_CHECK(cudaHostAlloc(&d.h_out, out_bytes, cudaHostAllocPortable));
    CUDA_CHECK(cudaStreamCreateWithFlags(&d.up, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&d.down, cudaStreamNonBlocking));
  }
  // Validation: one copy each way lands the bytes (device 0xAB -> host, host 0x5C -> device -> host).
  bool ok = true;
  for (auto& d : all) {
    CUDA_CHECK(cudaSetDevice(d.id));
    CUDA_CHECK(cudaMemset(d.d_out, 0xAB, out_bytes));
    std::memset(d.h_in, 0x5C, in_bytes);
    CUDA_CHECK(cudaMemcpy(d.h_out, d.d_out, out_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(d.d_in, d.h_in, in_bytes, cudaMemcpyHostToDevice));
    unsigned char back[64];
    CUDA_CHECK(cudaMemcpy(back, static_cast<char*>(d.d_in) + in_bytes - 64, 64, cudaMemcpyDeviceToHost));
    const auto* h = static_cast<const unsigned char*>(d.h_out);
    for (size_t i = 0; i < out_bytes; i += 4093) ok &= h[i] == 0xAB;
    for (unsigned char c : back) ok &= c == 0x5C;
  }
  std::printf(ok ? "copies validated\n" : "COPIES WRONG\n");
  if (check_only || !ok) return ok ? 0 : 1;
  std::printf("batch: %zu MB in, %zu MB out; %d copies per direction and device, median of %d rounds\n", in_bytes >> 20,
              out_bytes >> 20, kCopies, kRounds);
  for (int i = 0; i < n; ++i) {
    std::vector<Device> one{all[i]};
    std::printf("device %d alone:\n", i);
    report("host -> device", one, in_bytes, out_bytes, true, false);
    report("device -> host", one, in_bytes, out_bytes, false, true);
    report("both directions", one, in_bytes, out_bytes, true, true);
  }
  if (n > 1) {
    std::printf("all %d devices at once:\n", n);
    report("host -> device", all, in_bytes, out_bytes, true, false);
    report("device -> host", all, in_bytes, out_bytes, false, true);
    report("both directions", all, in_bytes, out_bytes, true, true);
  }
  for (auto& d : all) {
    CUDA_CHECK(cudaSetDevice(d.id));
    cudaFree(d.d_in), cudaFree(d.d_out), cudaFreeHost(d.h_in), cudaFreeHost(d.h_out);
    cudaStreamDestroy(d.up), cudaStreamDestroy(d.down);
  }
  if (g_csv) std::fclose(g_csv);
  return 0;
}
