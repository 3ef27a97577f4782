// Random inputs of the GPU benchmarks, drawn on all host cores. The benches rotate several inputs
// of 100 MB and more; one core draws a 16384 x 7168 input in seconds, and quantize_bench needs
// a dozen inputs of that order while it holds the GPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace mxv::device::bench {

/// `elems` values drawn from N(0, 2) as fp32, or as bf16 (the top half of each fp32 pattern), in
/// little-endian bytes. Chunks of 2^20 values draw from their own generator, seeded by (`seed`,
/// chunk), so the bytes are the same whatever the number of threads; the threads take every
/// T-th chunk.
inline std::vector<std::uint8_t> random_normal_bytes(std::size_t elems, bool bf16, std::uint64_t seed) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  const std::size_t width = bf16 ? 2 : 4;
  std::vector<std::uint8_t> out(elems * width);
  const std::size_t chunks = (elems + kChunk - 1) / kChunk;
  const auto draw = [&](std::size_t first_chunk, std::size_t step) {
    for (std::size_t c = first_chunk; c < chunks; c += step) {
      std::seed_seq seq{seed, static_cast<std::uint64_t>(c)};
      std::mt19937_64 rng(seq);
      std::normal_distribution<float> nd(0.0f, 2.0f);
      const std::size_t end = std::min(elems, (c + 1) * kChunk);
      for (std::size_t i = c * kChunk; i < end; ++i) {
        const float x = nd(rng);
        std::uint32_t u;
        std::memcpy(&u, &x, 4);
        if (bf16) {
          const auto h = static_cast<std::uint16_t>(u >> 16);
          std::memcpy(&out[2 * i], &h, 2);
        } else {
          std::memcpy(&out[4 * i], &u, 4);
        }
      }
    }
  };
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(draw, t, threads);
  draw(0, threads);
  for (std::thread& t : pool) t.join();
  return out;
}

}  // namespace mxv::device::bench
