// Launch facts shared by the fused kernels: the device's SM count and shared-memory opt-in limit (read once per
// device), and resident CTAs per SM of a kernel configuration (opting in to large shared memory once per kernel).
// Depends on CUDA alone, like the kernel headers that include it.
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

namespace ie::dev {

// Device facts a launch needs, read once per device and kernel configuration: attribute queries and the
// shared-memory opt-in cost microseconds, as much as a whole batch-1 convolution.
struct DeviceLimits {
  int sms = 0, smem_optin = 0;
};
inline cudaError_t device_limits(DeviceLimits* out) {
  static std::mutex mutex;
  static std::map<int, DeviceLimits> known;
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(dev);
  if (it == known.end()) {
    DeviceLimits d;
    err = cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&d.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (err != cudaSuccess) return err;
    it = known.emplace(dev, d).first;
  }
  *out = it->second;
  return cudaSuccess;
}

// Resident CTAs per SM of a kernel at a block size and shared-memory size; kept per (device, kernel, threads,
// bytes). A kernel that needs more than the default 48 KiB opts in once, to the device's whole opt-in limit: the
// attribute is a maximum, so setting it per size would shrink it under a size launched before.
template <class Kernel>
cudaError_t resident_blocks(Kernel kernel, int threads, int smem_bytes, int smem_optin, int* per_sm) {
  static std::mutex mutex;
  static std::map<std::tuple<int, const void*, int, int>, int> known;
  static std::set<std::pair<int, const void*>> opted_in;
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  const void* fn = reinterpret_cast<const void*>(kernel);
  const auto key = std::make_tuple(dev, fn, threads, smem_bytes);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(key);
  if (it == known.end()) {
    if (smem_bytes > 48 * 1024 && !opted_in.count({dev, fn})) {
      err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin);
      if (err == cudaSuccess) opted_in.insert({dev, fn});
    }
    int blocks = 0;
    if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem_bytes);
    if (err != cudaSuccess) return err;
    it = known.emplace(key, blocks).first;
  }
  *per_sm = it->second;
  return cudaSuccess;
}

}  // namespace ie::dev
