// Host launcher of the quantize and amax kernels: argument validation, the variant gate, launch
// geometry, the grouped row table, and the run itself (docs/design.md section 5.3, "quantize"). The
// sizes and layout rules here are computed independently of the reference (scale_layout.cpp);
// the tests hold the two together byte for byte.
#include "mxv/device/quantize.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace mxv::device {

namespace {

// ort_qmoe quantizes exactly as an OCP-floor MXFP4 recipe with the NaN-ignoring amax (its other
// fields are decode quirks and the SwiGLU activation), so the kernels implement it too.
constexpr std::array<std::string_view, 4> kSupported = {"nvfp4_te", "mxfp4_nvidia", "mxfp4_ocp", "ort_qmoe"};

// Grid-stride kernels: more blocks than this only add scheduling overhead (132 SMs x 16 blocks
// of 256 threads is far below it), while staying well inside the 2^31-1 grid limit.
constexpr std::uint64_t kMaxBlocks = 1u << 20;

[[noreturn]] void reject(const Recipe& r, const std::string& why) {
  throw std::invalid_argument("quantize: recipe '" + std::string(r.name) + "' is not supported by the kernels: " + why +
                              " (supported presets: nvfp4_te, mxfp4_nvidia, mxfp4_ocp, ort_qmoe)");
}

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }

}  // namespace

bool fits_narrow_index(std::uint64_t input_bytes, std::uint64_t output_bytes, std::uint64_t slots,
                       std::uint64_t threads) {
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 32;
  return input_bytes + 16u < kLimit && output_bytes < kLimit && slots + 2u * threads < kLimit;
}

unsigned grid_stride_blocks(std::uint64_t threads, unsigned block_threads) {
  const std::uint64_t b = (threads + block_threads - 1) / block_threads;
  return static_cast<unsigned>(std::clamp<std::uint64_t>(b, 1, kMaxBlocks));
}

void validate_group_counts(std::string_view who, std::span<const std::int64_t> group_counts, std::int64_t rows) {
  std::int64_t sum = 0;
  for (std::size_t g = 0; g < group_counts.size(); ++g) {
    if (group_counts[g] < 0) {
      throw std::invalid_argument(std::string(who) + ": group_counts[" + std::to_string(g) + "] must be >= 0, got " +
                                  std::to_string(group_counts[g]));
    }
    sum += group_counts[g];
  }
  if (!group_counts.empty() && sum != rows) {
    throw std::invalid_argument(std::string(who) + ": group_counts sum to " + std::to_string(sum) + " but rows is " +
                                std::to_string(rows));
  }
}

ScaleSlotGeometry scale_slot_geometry(std::uint64_t rows, std::uint64_t kb, bool swizzled,
                                      std::span<const std::int64_t> group_counts) {
  ScaleSlotGeometry g;
  g.kb_slots = swizzled ? round_up(kb, 4) : kb;
  if (!swizzled) {
    g.scale_rows = rows;  // linear: grouping does not move scale rows
  } else if (group_counts.empty()) {
    g.scale_rows = round_up(rows, 128);
  } else {
    // One table entry per 128-row tile: each expert's scale rows start at a multiple of 128.
    std::uint64_t first = 0;
    for (const std::int64_t c : group_counts) {
      const auto count = static_cast<std::uint64_t>(c);
      for (std::uint64_t t = 0; t < count; t += 128) {
        g.tile_rows.push_back(static_cast<std::uint32_t>(first + t));
        g.tile_rows.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(128, count - t)));
      }
      first += count;
    }
    g.scale_rows = g.tile_rows.size() / 2 * 128;
  }
  return g;
}

std::span<const std::string_view> quantize_supported_presets() { return kSupported; }

qrules::Scheme quantize_scheme_of(const Recipe& recipe) {
  recipe.validate();
  if (recipe.element != ElementFormat::kFp4E2M1) reject(recipe, "element must be e2m1");
  if (recipe.dialect != Dialect::kCuda) reject(recipe, "dialect must be cuda");
  if (recipe.element_encoder != ElementEncoder::kDialect) reject(recipe, "element_encoder must be dialect");
  if (recipe.scale_clamp != ScaleClamp::kNone) reject(recipe, "scale_clamp must be none");
  if (recipe.zero_block != ZeroBlock::kScaleCodeZero) reject(recipe, "zero_block must be code_zero");
  if (recipe.partial_block != PartialBlock::kZeroPadded) reject(recipe, "partial_block must be zero_padded");
  if (recipe.is_nvfp4()) {
    if (recipe.block_size != 16) reject(recipe, "NVFP4 block_size must be 16");
    if (recipe.order != Nvfp4Order::kTe) reject(recipe, "NVFP4 order must be te");
    if (recipe.reciprocal != Reciprocal::kIeee) reject(recipe, "reciprocal must be ieee");
    if (recipe.tensor_amax != TensorAmaxPolicy::kTeClamp) reject(recipe, "tensor_amax must be te_clamp");
    return qrules::Scheme::kNvfp4Te;
  }
  if (recipe.block_size != 32) reject(recipe, "MX block_size must be 32");
  if (recipe.scale_rule == ScaleRule::kOcpFloor) return qrules::Scheme::kMxfp4Ocp;
  if (recipe.scale_rule == ScaleRule::kNvidiaRoundUp) return qrules::Scheme::kMxfp4Nvidia;
  reject(recipe, "scale_rule must be ocp_floor or nvidia_round_up");
}

QuantizePlan plan_quantize(const QuantizeProblem& problem) {
  QuantizePlan plan;
  plan.problem = problem;
  const qrules::Scheme scheme = quantize_scheme_of(problem.recipe);
  if (problem.input_type != WideType::kFp32 && problem.input_type != WideType::kBf16) {
    throw std::invalid_argument("quantize: input_type must be fp32 or bf16, got " +
                                std::string(to_string(problem.input_type)));
  }
  if (problem.rows < 1) throw std::invalid_argument("quantize: rows must be >= 1, got " + std::to_string(problem.rows));
  if (problem.cols < 1) throw std::invalid_argument("quantize: cols must be >= 1, got " + std::to_string(problem.cols));
  // Row indices travel as 32-bit words in the tile table, element offsets as 64-bit.
  if (problem.rows > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("quantize: rows must be < 2^32, got " + std::to_string(problem.rows));
  }
  if (problem.cols > (std::int64_t{1} << 40) || problem.rows * problem.cols > (std::int64_t{1} << 46)) {
    throw std::invalid_argument("quantize: rows * cols must be <= 2^46 elements");
  }
  validate_group_counts("quantize", problem.group_counts, problem.rows);

  const auto rows = static_cast<std::uint64_t>(problem.rows);
  const auto cols = static_cast<std::uint64_t>(problem.cols);
  const unsigned block = qrules::block_size(scheme);
  const bool swizzled = problem.scale_layout == ScaleLayout::kSwizzled128x4;
  const bool bf16 = problem.input_type == WideType::kBf16;

  QuantizeParams& q = plan.params;
  q.scheme = scheme;
  q.layout = swizzled ? ScaleLayout::kSwizzled128x4 : ScaleLayout::kLinear;
  q.input_bf16 = bf16;
  q.nan_propagates = problem.recipe.nan_in_amax == NanInAmax::kPropagate;
  q.rows = rows;
  q.cols = cols;
  q.kb = (cols + block - 1) / block;
  q.row_bytes = (cols + 1) / 2;
  ScaleSlotGeometry slots = scale_slot_geometry(rows, q.kb, swizzled, problem.group_counts);
  q.kb_slots = slots.kb_slots;
  q.scale_rows = slots.scale_rows;
  plan.tile_rows = std::move(slots.tile_rows);
  q.items = q.scale_rows * q.kb_slots;

  // The gate: the vector variant needs whole blocks (so a lane's 16-byte vector never straddles
  // a block or a row end, and every row starts 16-byte aligned: K * elem_bytes is a multiple of
  // 32). Everything else takes the scalar variant.
  plan.input_bytes = rows * cols * (bf16 ? 2u : 4u);
  plan.element_bytes = rows * q.row_bytes;
  q.variant = cols % block == 0 ? QuantizeVariant::kVector : QuantizeVariant::kScalar;
  plan.quantize_launch.kernel = to_string(q.variant);
  plan.quantize_launch.block = {kQuantizeBlockThreads, 1, 1};
  if (q.variant == QuantizeVariant::kVector) {
    // One thread (or lane pair: quantize_lanes_per_block) per scale slot; each walks about
    // kSlotsPerThread of them, so its one-time division of the slot index is amortised.
    constexpr std::uint64_t kSlotsPerThread = 8;
    const std::uint64_t lanes = quantize_lanes_per_block(scheme, bf16);
    plan.quantize_launch.grid = {grid_stride_blocks(lanes * ((q.items + kSlotsPerThread - 1) / kSlotsPerThread),
                                            kQuantizeBlockThreads), 1, 1};
    const std::uint64_t threads = std::uint64_t{plan.quantize_launch.grid.x} * kQuantizeBlockThreads;
    q.narrow_index = fits_narrow_index(plan.input_bytes, plan.element_bytes, q.items, threads);
  } else {
    plan.quantize_launch.grid = {grid_stride_blocks(q.items, kQuantizeBlockThreads), 1, 1};
  }
  validate_launch_plan(plan.quantize_launch);
  plan.scale_bytes = q.items;

  if (scheme == qrules::Scheme::kNvfp4Te && !problem.tensor_amax) {
    plan.launches_amax = true;
    plan.amax_params.input_bf16 = bf16;
    plan.amax_params.nan_propagates = q.nan_propagates;
    plan.amax_params.count = rows * cols;
    // Each thread folds at least 4 vectors before the block reduction, one atomic per block.
    const std::uint64_t chunks = plan.amax_params.count / (bf16 ? 8u : 4u) + 1;
    plan.amax_launch.kernel = to_string(AmaxVariant::kAmax);
    plan.amax_launch.block = {kAmaxBlockThreads, 1, 1};
    plan.amax_launch.grid = {grid_stride_blocks((chunks + 3) / 4, kAmaxBlockThreads), 1, 1};
    validate_launch_plan(plan.amax_launch);
  }
  return plan;
}

QuantizeBuffers alloc_quantize_buffers(Backend& backend, const QuantizePlan& plan, std::uint8_t sentinel) {
  return alloc_block_quantize_buffers(backend, "quantize", block_quantize_layout(plan), sentinel);
}

void run_quantize(Backend& backend, const QuantizePlan& plan, const DeviceBuffer& input, QuantizeBuffers& out) {
  const BlockQuantizeLayout layout = block_quantize_layout(plan);
  require_buffer_bytes("quantize", input, plan.input_bytes, "input");
  require_block_quantize_buffers("quantize", layout, out);
  QuantizeParams q = plan.params;
  q.input = input.as<std::uint8_t>();
  bind_block_quantize_buffers(q, layout, out);

  if (plan.launches_amax) {  // 0 for the atomicMax reduction, which then leaves its own result
    backend.set_bytes(out.amax, 0);  // without waiting for the GPU, as an upload would
    out.amax_holds.reset();
  } else if (q.scheme == qrules::Scheme::kNvfp4Te) {  // the calibrated value's exact bits
    hold_calibrated_amax(backend, out, std::bit_cast<std::uint32_t>(*plan.problem.tensor_amax));
  }
  if (plan.launches_amax) {
    AmaxParams a = plan.amax_params;
    a.input = q.input;
    a.amax_bits = q.amax_bits;
    backend.launch(plan.amax_launch, a);
  }
  backend.launch(plan.quantize_launch, q);
}

}  // namespace mxv::device
