// What the cuda backend's one-wave launches (LaunchPlan::one_wave, cuda_kernel.cuh) remember of the
// occupancy calculator: its answer depends only on the kernel, the device, the block size and the
// dynamic shared memory, so one question per kernel and geometry is enough (on the H200 keeping it
// made no measurable difference to the fused launch: BENCHMARKS.md, "The occupancy answer kept
// per kernel"). Plain C++, so the host tests hold it to that contract without a GPU.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace mxv::device {

/// What the occupancy calculator's answer depends on.
struct ResidentBlocksKey {
  const void* kernel = nullptr;
  int device = 0;
  unsigned threads = 0;
  std::size_t smem = 0;

  bool operator==(const ResidentBlocksKey&) const = default;
};

/// The resident-block counts asked so far, one per key; thread-safe. A count of 0 (the runtime
/// could not tell) is not kept, so the next launch asks again.
class ResidentBlocksCache {
 public:
  /// The count for `key`: the kept one, or `ask()` (kept when it is not 0).
  template <class Ask>
  unsigned get(const ResidentBlocksKey& key, Ask&& ask) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      for (const Entry& e : entries_) {
        if (e.key == key) return e.blocks;
      }
    }
    const unsigned blocks = ask();
    if (blocks != 0) {
      const std::lock_guard<std::mutex> lock(mutex_);
      entries_.push_back({key, blocks});
    }
    return blocks;
  }

 private:
  struct Entry {
    ResidentBlocksKey key;
    unsigned blocks = 0;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;  // a few kernels per process: a scan beats hashing
};

}  // namespace mxv::device
