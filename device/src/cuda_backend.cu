// The cuda backend's memory, availability, error handling and its one run_kernel (docs/design.md
// section 3.5, "Backends"). The __global__ wrappers live in one translation unit per kernel family
// (cuda_kernel.cuh), which run_kernel reaches through launch_on_cuda.
#include <cuda_runtime.h>

#include <stdexcept>
#include <cstdlib>
#include <string>

#include "mxv/device/cuda_backend.h"
#include "mxv/device/cuda_family.h"
#include "mxv/device/kernel_families.h"

namespace mxv::device {

namespace {

void check(cudaError_t err, const std::string& what) {
  if (err != cudaSuccess) {
    throw std::runtime_error("cuda backend: " + what + ": " + cudaGetErrorName(err) + " (" +
                             cudaGetErrorString(err) + ")");
  }
}

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

}  // namespace

Availability cuda_availability() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky error so later calls are not poisoned
    return {false, std::string("no usable CUDA device: cudaGetDeviceCount returned ") +
                       cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")"};
  }
  if (count == 0) return {false, "no CUDA device: cudaGetDeviceCount returned 0 devices"};
  return {true, "CUDA device 0 available (" + std::to_string(count) + " device(s))"};
}

std::unique_ptr<Backend> make_cuda_backend() {
  const Availability a = cuda_availability();
  if (!a.available) throw std::runtime_error("cuda backend unavailable: " + a.reason);
  return std::make_unique<CudaBackend>();
}

// Under `ctest -j --resource-spec-file` (ci/gpu), CTest hands each GPU test process one GPU in
// CTEST_RESOURCE_GROUP_0_GPUS = "id:<n>,slots:1"; without it, device 0.
static int assigned_device() {
  const char* spec = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (spec == nullptr) return 0;
  const std::string s(spec);
  const auto at = s.find("id:");
  if (at == std::string::npos) throw std::runtime_error("cannot parse CTEST_RESOURCE_GROUP_0_GPUS='" + s + "'");
  return std::stoi(s.substr(at + 3));
}

CudaBackend::CudaBackend() {
  const int device = assigned_device();
  check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  stream_ = s;
}

CudaBackend::~CudaBackend() {
  if (stream_ != nullptr) {
    (void)cudaStreamSynchronize(as_stream(stream_));
    (void)cudaStreamDestroy(as_stream(stream_));
  }
}

void CudaBackend::synchronize() { check(cudaStreamSynchronize(as_stream(stream_)), "cudaStreamSynchronize"); }

void CudaBackend::run_kernel(const LaunchPlan& plan, const KernelArgs& args) {
  const bool ran = with_family(KernelFamilies{}, args, [&]<class Family>(const typename Family::Params& p) {
    return launch_on_cuda<Family>(plan, p, stream_);
  });
  if (!ran) not_implemented(plan.kernel);
}

void CudaBackend::check_launch(const LaunchPlan& plan) {
  check(cudaGetLastError(), "launch of " + plan.describe());
}

std::byte* CudaBackend::raw_alloc(std::size_t bytes, std::string_view name) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes for '" + std::string(name) + "'");
  return static_cast<std::byte*>(p);
}

void CudaBackend::raw_free(std::byte* p) noexcept {
  (void)cudaStreamSynchronize(as_stream(stream_));
  (void)cudaFree(p);
}

void CudaBackend::raw_copy(void* dst, const void* src, std::size_t bytes, CopyDirection direction) {
  const bool up = direction == CopyDirection::kToBackend;
  check(cudaMemcpyAsync(dst, src, bytes, up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, as_stream(stream_)),
        up ? "upload" : "download");
  synchronize();
}

// No host memory is involved, so nothing needs the GPU to finish: the stream orders the memset
// before every later launch and copy.
void CudaBackend::raw_set(std::byte* dst, std::uint8_t value, std::size_t bytes) {
  check(cudaMemsetAsync(dst, value, bytes, as_stream(stream_)), "memset");
}

void CudaBackend::raw_fill(std::byte* dst, std::uint8_t value, std::size_t bytes) {
  raw_set(dst, value, bytes);
  synchronize();
}

}  // namespace mxv::device
