// Opens cuBLAS, cuBLASLt and cuDNN on first use (see cuda_libraries.h).
#include "engine/backend/cuda/cuda_libraries.h"

#include <dlfcn.h>

#include <string>

#include "engine/core/error.h"

namespace ie::cuda {
namespace {

#define IE_STRINGIFY_(x) #x
#define IE_STRINGIFY(x) IE_STRINGIFY_(x)

// The sonames of the versions the engine was compiled against; where the loader's search (LD_LIBRARY_PATH, the
// engine's run path, the system's cache) does not find one, the folders the build found them in.
constexpr const char* kCublasName = "libcublas.so." IE_STRINGIFY(CUBLAS_VER_MAJOR);
constexpr const char* kCublasLtName = "libcublasLt.so." IE_STRINGIFY(CUBLAS_VER_MAJOR);
constexpr const char* kCudnnName = "libcudnn.so." IE_STRINGIFY(CUDNN_MAJOR);
#ifndef IE_CUDA_LIBRARY_DIRS
#define IE_CUDA_LIBRARY_DIRS ""
#endif

void* open_library(const char* soname) {
  void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  std::string why = lib ? "" : dlerror();
  const std::string dirs = IE_CUDA_LIBRARY_DIRS;  // ':'-separated
  for (size_t begin = 0; !lib && begin < dirs.size();) {
    size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    if (end > begin) lib = dlopen((dirs.substr(begin, end - begin) + "/" + soname).c_str(), RTLD_NOW | RTLD_LOCAL);
    begin = end + 1;
  }
  if (!lib)
    fail(ErrorKind::Device, "cannot open ", soname, " (", why,
         "): the CUDA reference kernels need it; set LD_LIBRARY_PATH to the folder that holds it");
  return lib;
}

template <class Fn>
void resolve(void* lib, const char* soname, const char* name, Fn* out) {
  dlerror();
  void* symbol = dlsym(lib, name);
  if (!symbol) fail(ErrorKind::Device, soname, " has no entry point ", name, " (another version than the build's?)");
  *out = reinterpret_cast<Fn>(symbol);
}

// Opens `soname` and fills an Api table; fill(lib, soname, api) resolves each entry with IE_CUDA_API_RESOLVE.
template <class Api, class Fill>
Api open_api(const char* soname, Fill fill) {
  void* lib = open_library(soname);
  Api api;
  fill(lib, soname, api);
  return api;
}

#define IE_CUDA_API_RESOLVE(name) resolve(lib, soname, #name, &api.name);

}  // namespace

const CublasApi& blas_api() {
  static const CublasApi table = open_api<CublasApi>(kCublasName, [](void* lib, const char* soname, CublasApi& api) {
    IE_CUBLAS_FUNCTIONS(IE_CUDA_API_RESOLVE)
    IE_CUBLAS_OVERLOADED_FUNCTIONS(IE_CUDA_API_RESOLVE)
  });
  return table;
}

const CublasLtApi& blaslt_api() {
  static const CublasLtApi table = open_api<CublasLtApi>(
      kCublasLtName,
      [](void* lib, const char* soname, CublasLtApi& api) { IE_CUBLASLT_FUNCTIONS(IE_CUDA_API_RESOLVE) });
  return table;
}

const CudnnApi& dnn_api() {
  static const CudnnApi table = open_api<CudnnApi>(
      kCudnnName, [](void* lib, const char* soname, CudnnApi& api) { IE_CUDNN_FUNCTIONS(IE_CUDA_API_RESOLVE) });
  return table;
}

}  // namespace ie::cuda
