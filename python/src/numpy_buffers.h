// Moving C++ vectors into numpy arrays without a copy, and viewing the byte buffers the Python
// layer hands over (python/mxv/_arrays.py makes every input a 1-D contiguous uint8 view).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace mxv::python {

namespace nb = nanobind;

/// The Python side passes raw bytes as 1-D, C-contiguous uint8 arrays on the CPU.
using Bytes = nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

inline std::span<const std::uint8_t> span_of(const Bytes& b) { return {b.data(), b.size()}; }

/// A numpy array that owns `values` (moved into a capsule), with the given shape.
template <class T>
nb::ndarray<nb::numpy, T> to_numpy(std::vector<T>&& values, std::initializer_list<std::size_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T>(owned->data(), shape, owner);
}

/// fp32 values of a byte buffer that holds them (size checked: a multiple of 4 bytes).
std::vector<float> floats_of(std::span<const std::uint8_t> bytes, const char* what);

}  // namespace mxv::python
