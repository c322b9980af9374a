// cuBLAS, cuBLASLt and cuDNN, opened when a kernel first needs them (dlopen) instead of linked: the fused kernels
// never call them, and loading cuBLASLt costs every process that links it tens of milliseconds of static
// initialization (perf on `infer --help`: about 80% of its samples sat in libcublasLt's initializers), CPU-only
// runs and the CLI tools included. Call sites go through the tables: `blas_api().cublasGemmEx(...)`.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>

// The entry points the engine uses, by their exported names (the _v2 names cublas_v2.h maps its macros to).
// clang-format off
#define IE_CUBLAS_FUNCTIONS(X) \
  X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) \
  X(cublasSetMathMode) X(cublasSgemm_v2) X(cublasGetProperty) \
  X(cublasGetStatusString)
// cublas_api.h overloads these in C++ (an inline form taking a cudaDataType compute type); the exported entry points
// take cublasComputeType_t, and their members below are typed by hand.
#define IE_CUBLAS_OVERLOADED_FUNCTIONS(X) X(cublasGemmEx) X(cublasGemmStridedBatchedEx)
#define IE_CUBLASLT_FUNCTIONS(X) \
  X(cublasLtCreate) X(cublasLtDestroy) \
  X(cublasLtMatmul) X(cublasLtMatmulAlgoGetHeuristic) \
  X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) \
  X(cublasLtMatmulDescSetAttribute) X(cublasLtMatmulPreferenceCreate) \
  X(cublasLtMatmulPreferenceDestroy) X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy)
#define IE_CUDNN_FUNCTIONS(X) \
  X(cudnnCreate) X(cudnnDestroy) \
  X(cudnnSetStream) X(cudnnGetVersion) \
  X(cudnnGetErrorString) X(cudnnCreateTensorDescriptor) \
  X(cudnnDestroyTensorDescriptor) X(cudnnSetTensor4dDescriptor) \
  X(cudnnCreateFilterDescriptor) X(cudnnDestroyFilterDescriptor) \
  X(cudnnSetFilter4dDescriptor) X(cudnnCreateConvolutionDescriptor) \
  X(cudnnDestroyConvolutionDescriptor) X(cudnnSetConvolution2dDescriptor) \
  X(cudnnSetConvolutionGroupCount) X(cudnnSetConvolutionMathType) \
  X(cudnnGetConvolution2dForwardOutputDim) X(cudnnGetConvolutionForwardAlgorithm_v7) \
  X(cudnnFindConvolutionForwardAlgorithm) X(cudnnGetConvolutionForwardWorkspaceSize) \
  X(cudnnConvolutionForward) X(cudnnConvolutionBiasActivationForward) \
  X(cudnnAddTensor) X(cudnnCreateActivationDescriptor) \
  X(cudnnDestroyActivationDescriptor) X(cudnnSetActivationDescriptor) \
  X(cudnnActivationForward) X(cudnnCreatePoolingDescriptor) \
  X(cudnnDestroyPoolingDescriptor) X(cudnnSetPooling2dDescriptor) \
  X(cudnnGetPooling2dForwardOutputDim) X(cudnnPoolingForward) \
  X(cudnnSoftmaxForward)
// clang-format on

namespace ie::cuda {

#define IE_CUDA_API_MEMBER(name) decltype(&::name) name = nullptr;
struct CublasApi {
  IE_CUBLAS_FUNCTIONS(IE_CUDA_API_MEMBER)
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
  using GemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                                  const void*, const void*, cudaDataType, int, long long, const void*,
                                                  cudaDataType, int, long long, const void*, void*, cudaDataType, int,
                                                  long long, int, cublasComputeType_t, cublasGemmAlgo_t);
  GemmEx cublasGemmEx = nullptr;
  GemmStridedBatchedEx cublasGemmStridedBatchedEx = nullptr;
};
// The hand-written types must name one of the declared overloads.
static_assert(sizeof(static_cast<CublasApi::GemmEx>(&::cublasGemmEx)) > 0);
static_assert(sizeof(static_cast<CublasApi::GemmStridedBatchedEx>(&::cublasGemmStridedBatchedEx)) > 0);
struct CublasLtApi {
  IE_CUBLASLT_FUNCTIONS(IE_CUDA_API_MEMBER)
};
struct CudnnApi {
  IE_CUDNN_FUNCTIONS(IE_CUDA_API_MEMBER)
};
#undef IE_CUDA_API_MEMBER

/// Each library's entry points, opened on the first call from any thread; throws Error(Device) naming the library
/// and the loader's message when it cannot be opened or lacks an entry point (a later call tries again).
const CublasApi& blas_api();
const CublasLtApi& blaslt_api();
const CudnnApi& dnn_api();

}  // namespace ie::cuda
