// ResidentBlocksCache (device/include/mxv/device/resident_blocks_cache.h): the cuda backend's
// one-wave launches ask the occupancy calculator once per kernel, device, block size and dynamic
// shared memory, and ask again after an answer of 0 (the runtime could not tell).
#include "mxv/device/resident_blocks_cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace mxv::device {
namespace {

const int kKernelA = 1;
const int kKernelB = 2;

TEST(ResidentBlocksCache, AsksOncePerKeyAndKeepsEachKeysAnswer) {
  ResidentBlocksCache cache;
  int asked = 0;
  const auto ask = [&](unsigned answer) {
    return [&asked, answer] {
      ++asked;
      return answer;
    };
  };
  const ResidentBlocksKey base{&kKernelA, 0, 256, 0};
  EXPECT_EQ(cache.get(base, ask(528)), 528u);
  EXPECT_EQ(cache.get(base, ask(1)), 528u);  // kept: not asked again
  EXPECT_EQ(asked, 1);

  // Every field of the key is part of it.
  ResidentBlocksKey other_kernel = base, other_device = base, other_threads = base, other_smem = base;
  other_kernel.kernel = &kKernelB;
  other_device.device = 1;
  other_threads.threads = 128;
  other_smem.smem = 32768;
  EXPECT_EQ(cache.get(other_kernel, ask(10)), 10u);
  EXPECT_EQ(cache.get(other_device, ask(11)), 11u);
  EXPECT_EQ(cache.get(other_threads, ask(12)), 12u);
  EXPECT_EQ(cache.get(other_smem, ask(13)), 13u);
  EXPECT_EQ(asked, 5);
  EXPECT_EQ(cache.get(other_smem, ask(99)), 13u);
  EXPECT_EQ(cache.get(base, ask(99)), 528u);
  EXPECT_EQ(asked, 5);
}

TEST(ResidentBlocksCache, AnAnswerOfZeroIsNotKept) {
  ResidentBlocksCache cache;
  int asked = 0;
  const ResidentBlocksKey key{&kKernelA, 0, 256, 0};
  EXPECT_EQ(cache.get(key, [&] { ++asked; return 0u; }), 0u);
  EXPECT_EQ(cache.get(key, [&] { ++asked; return 7u; }), 7u);
  EXPECT_EQ(cache.get(key, [&] { ++asked; return 8u; }), 7u);
  EXPECT_EQ(asked, 2);
}

TEST(ResidentBlocksCache, ThreadsSharingItGetTheSameAnswers) {
  ResidentBlocksCache cache;
  std::vector<std::thread> threads;
  std::vector<unsigned> got(8 * 100);
  for (unsigned t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (unsigned i = 0; i < 100; ++i) {
        const unsigned threads_per_block = 32u * (1u + i % 4u);
        got[t * 100 + i] = cache.get({&kKernelA, 0, threads_per_block, 0}, [&] { return threads_per_block * 2u; });
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (unsigned k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], 64u * (1u + (k % 100) % 4u)) << k;
}

}  // namespace
}  // namespace mxv::device
