// The `cuda` backend (docs/design.md section 3.5, "Backends"): device memory through
// cudaMalloc/cudaMemcpy (with the guard bytes of backend.h) and one __global__ wrapper per kernel
// instantiation, passing a CudaCtx to the same kernel bodies the emulator runs. Declared in plain
// C++ (no CUDA types) so host code and tests include it freely; defined in device/src/cuda_backend.cu
// and the per-family translation units of cuda_kernel.cuh, or by cuda_backend_unavailable.cpp when
// mxv is built without CUDA.
#pragma once

#include <memory>

#include "mxv/device/backend.h"

namespace mxv::device {

/// Whether the cuda backend can run here; the reason when not (built without CUDA, no device,
/// driver error).
Availability cuda_availability();

/// A cuda backend on device 0. Throws std::runtime_error with cuda_availability().reason when
/// the backend is not available.
std::unique_ptr<Backend> make_cuda_backend();

/// Built with nvcc; only constructed through make_cuda_backend().
class CudaBackend final : public Backend {
 public:
  CudaBackend();
  ~CudaBackend() override;
  BackendKind kind() const override { return BackendKind::kCuda; }
  void synchronize() override;

  /// The cudaStream_t every launch and copy of this backend uses (as void*: no CUDA types here).
  void* stream() const { return stream_; }

 protected:
  /// Launches the kernel of the family whose parameters `args` holds through that family's
  /// __global__ wrappers (cuda_kernel.cuh, one translation unit per family).
  void run_kernel(const LaunchPlan& plan, const KernelArgs& args) override;
  /// Throws std::runtime_error naming the plan and the CUDA error if the launch failed.
  void check_launch(const LaunchPlan& plan) override;

  std::byte* raw_alloc(std::size_t bytes, std::string_view name) override;
  void raw_free(std::byte* p) noexcept override;
  void raw_copy(void* dst, const void* src, std::size_t bytes, CopyDirection direction) override;
  void raw_fill(std::byte* dst, std::uint8_t value, std::size_t bytes) override;
  void raw_set(std::byte* dst, std::uint8_t value, std::size_t bytes) override;

 private:
  void* stream_ = nullptr;
};

}  // namespace mxv::device
