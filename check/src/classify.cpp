// The check library's comparison and classification (docs/design.md section 3.6, "A mismatch is
// explained"). Every differing byte is found by a plain byte comparison; classification only
// explains what was found, in the precedence order documented in check.h:
//
//   positional   out-of-bounds (guard bytes), nonzero-padding (layout padding slots)
//   write-level  never-written (sentinel survived), nibble-swap (E2M1 byte with nibbles exchanged)
//   buffer-level layout-permutation
//   value-level  nan-policy, sign-of-zero, tie-flip, boundary-flip, scale-off, other
//
// Layout permutation is judged on the whole buffer, not per element: with 16 E2M1 values almost
// any value "is found at another index", so a value is called moved only when the buffer supports
// it. The rule: every remaining mismatch's actual value must be the expected value of some OTHER
// mismatching data slot, as a multiset (each expected slot can be the source of one value). A
// real permutation satisfies it (a moved value leaves its source slot wrong or unwritten); a
// scale one binade off, a tie rule or a NaN/zero policy does not, because its largest (or new)
// value is never expected anywhere that differs. The partner reported is a swap partner when
// there is one nearby, else the nearest source slot. Known limit: a value duplicated while its
// source slot stays correct is not a permutation under this rule (it is reported as other).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "mxv/check/check.h"
#include "mxv/check/storage_map.h"
#include "mxv/check/independent_decoder.h"

namespace mxv::check {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// One explained difference before it is written out: `pos` is a byte offset inside the guard
// region (guards) or a slot index (data, padding).
struct Found {
  Region region;
  std::size_t pos;
  MismatchClass cls = MismatchClass::kOther;
  int k = 0;
  std::size_t partner = kNone;  // layout-permutation: the slot whose expected value this is
};

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

[[noreturn]] void bad_argument(const std::string& what) {
  throw std::invalid_argument("mxv::check::compare: " + what);
}

void validate_context(const OutputSpec& spec, const Context& ctx, std::size_t elements) {
  auto check_len = [&](std::size_t got, std::size_t want, const char* field) {
    if (got != 0 && got != want) {
      bad_argument(std::string("context.") + field + " has " + std::to_string(got) +
                   " entries; it must be empty or hold " + std::to_string(want) + " for '" +
                   spec.name + "'");
    }
  };
  check_len(ctx.input_bits.size(), elements, "input_bits");
  check_len(ctx.pre_rounding.size(), elements, "pre_rounding");
  if (!ctx.block_amax.empty() || !ctx.block_scale.empty()) {
    if (ctx.block_size == 0) bad_argument("context.block_size must be >= 1 when block context is given");
    const std::size_t blocks = (elements / spec.cols) * ceil_div(spec.cols, ctx.block_size);
    check_len(ctx.block_amax.size(), blocks, "block_amax");
    check_len(ctx.block_scale.size(), blocks, "block_scale");
  }
}

class Classifier {
 public:
  Classifier(const OutputSpec& spec, const StorageMap& map, const std::uint8_t* expected,
             const std::uint8_t* actual, const Context& ctx, const Options& opts)
      : spec_(spec), map_(map), exp_(expected), act_(actual), ctx_(ctx), opts_(opts) {}

  // Appends one Found per differing slot, in slot order.
  void run(std::vector<Found>& out) {
    const std::size_t first = out.size();
    for (std::size_t s = 0; s < map_.slots(); ++s) {
      if (map_.read(exp_, s) != map_.read(act_, s)) out.push_back({map_.element_of(s) ? Region::kData : Region::kPadding, s});
    }
    std::vector<Found*> pending;
    for (std::size_t i = first; i < out.size(); ++i) {
      Found& f = out[i];
      if (f.region == Region::kPadding) f.cls = MismatchClass::kNonzeroPadding;
      else if (sentinel_survived(f.pos)) f.cls = MismatchClass::kNeverWritten;
      else if (nibbles_swapped(f.pos)) f.cls = MismatchClass::kNibbleSwap;
      else pending.push_back(&f);
    }
    pending = find_permutation(out, first, pending);
    for (Found* f : pending) classify_value(*f);
  }

 private:
  bool sentinel_survived(std::size_t slot) const {
    if (!opts_.sentinel) return false;
    const std::size_t byte = map_.byte_of(slot);
    const std::size_t len = std::max<std::size_t>(1, map_.bits_per_slot() / 8);
    for (std::size_t i = 0; i < len; ++i) {
      if (act_[byte + i] != *opts_.sentinel) return false;
    }
    return true;
  }

  bool nibbles_swapped(std::size_t slot) const {
    if (spec_.kind != CodeKind::kE2M1x2) return false;
    const std::uint8_t e = exp_[map_.byte_of(slot)], a = act_[map_.byte_of(slot)];
    const auto swapped = static_cast<std::uint8_t>((e >> 4) | ((e & 0xFu) << 4));
    return (e & 0xFu) != (e >> 4) && a == swapped;
  }

  // Marks the pending mismatches explained by a layout permutation (see the file comment) and
  // returns those that are not.
  std::vector<Found*> find_permutation(std::vector<Found>& all, std::size_t first,
                                       const std::vector<Found*>& pending) const {
    if (pending.empty()) return pending;
    // Sources: expected values of every differing data slot, each usable once in the multiset.
    std::unordered_map<std::uint32_t, std::vector<std::size_t>> sources;
    for (std::size_t i = first; i < all.size(); ++i) {
      if (all[i].region == Region::kData) sources[map_.read(exp_, all[i].pos)].push_back(all[i].pos);
    }
    std::unordered_map<std::uint32_t, std::size_t> demand;
    for (const Found* f : pending) ++demand[map_.read(act_, f->pos)];
    for (const auto& [value, n] : demand) {
      const auto it = sources.find(value);
      if (it == sources.end() || it->second.size() < n) return pending;
    }
    for (Found* f : pending) {
      f->cls = MismatchClass::kLayoutPermutation;
      f->partner = nearest_source(sources.at(map_.read(act_, f->pos)), f->pos);
    }
    return {};
  }

  // A slot among `slots` (sorted, none equal to `slot`): a swap partner (its actual is our
  // expected) among the 32 nearest on each side if there is one, else the nearest.
  std::size_t nearest_source(const std::vector<std::size_t>& slots, std::size_t slot) const {
    const auto mid = std::lower_bound(slots.begin(), slots.end(), slot) - slots.begin();
    const std::uint32_t want = map_.read(exp_, slot);
    std::size_t best = kNone, best_dist = kNone;
    const auto n = static_cast<std::ptrdiff_t>(slots.size());
    for (std::ptrdiff_t d = 0; d < 32; ++d) {
      for (const std::ptrdiff_t j : {mid - 1 - d, mid + d}) {
        if (j < 0 || j >= n) continue;
        const std::size_t s = slots[static_cast<std::size_t>(j)];
        const std::size_t dist = s > slot ? s - slot : slot - s;
        if (map_.read(act_, s) == want) return s;
        if (dist < best_dist) best = s, best_dist = dist;
      }
    }
    return best;
  }

  std::optional<float> block_value(std::span<const float> values, std::size_t element) const {
    if (values.empty()) return std::nullopt;
    const std::size_t per_row = ceil_div(map_.cols(), ctx_.block_size);
    const std::size_t row = map_.global_row_of(element), col = element % map_.cols();
    return values[row * per_row + col / ctx_.block_size];
  }

  bool context_says_nan(std::size_t element) const {
    if (!ctx_.input_bits.empty() && std::isnan(input_value(ctx_.input_kind, ctx_.input_bits[element]))) {
      return true;
    }
    if (!ctx_.pre_rounding.empty() && std::isnan(ctx_.pre_rounding[element])) return true;
    const auto amax = block_value(ctx_.block_amax, element);
    return amax && std::isnan(*amax);
  }

  void classify_value(Found& f) const {
    const CodeKind kind = spec_.kind;
    const std::uint32_t e = map_.read(exp_, f.pos), a = map_.read(act_, f.pos);
    const std::size_t element = *map_.element_of(f.pos);
    const bool e_nan = is_nan_code(kind, e), a_nan = is_nan_code(kind, a);
    if (e_nan || a_nan || context_says_nan(element)) {
      f.cls = MismatchClass::kNanPolicy;
      return;
    }
    if (is_zero_code(kind, e) && is_zero_code(kind, a)) {
      f.cls = MismatchClass::kSignOfZero;
      return;
    }
    if (classify_rounding(f, e, a, element)) return;
    classify_scale(f, e, a);
  }

  // Tie or boundary flip: adjacent codes, pre-rounding value at (or near) their midpoint. Not for
  // E8M0 (its conversions round by floor/ceil of log2, which have no midpoint) nor fp32 outputs
  // (the midpoint of two fp32 neighbours is not an fp32 value).
  bool classify_rounding(Found& f, std::uint32_t e, std::uint32_t a, std::size_t element) const {
    const CodeKind kind = spec_.kind;
    if (ctx_.pre_rounding.empty() || kind == CodeKind::kE8M0 || kind == CodeKind::kFp32) return false;
    if (!adjacent(kind, e, a)) return false;
    const double mid = (code_value(kind, e) + code_value(kind, a)) / 2;
    const auto mid_f = static_cast<float>(mid);
    if (static_cast<double>(mid_f) != mid) return false;
    const float pre = ctx_.pre_rounding[element];
    const std::uint64_t ulps = fp32_ulp_distance(pre, mid_f);
    if (ulps == 0) {
      f.cls = MismatchClass::kTieFlip;
      return true;
    }
    if (ulps <= opts_.boundary_ulps) {
      f.cls = MismatchClass::kBoundaryFlip;
      f.k = static_cast<int>(ulps) * (pre < mid_f ? -1 : 1);
      return true;
    }
    return false;
  }

  void classify_scale(Found& f, std::uint32_t e, std::uint32_t a) const {
    const CodeKind kind = spec_.kind;
    if (kind == CodeKind::kE8M0) {
      f.cls = MismatchClass::kScaleOffBinades;
      f.k = static_cast<int>(a) - static_cast<int>(e);
      return;
    }
    if (kind == CodeKind::kUE4M3) {
      if (e < 0x80 && a < 0x80) {  // a set sign bit is not a scale "off by codes"
        f.cls = MismatchClass::kScaleOffCodes;
        f.k = static_cast<int>(a) - static_cast<int>(e);
      }
      return;
    }
    if (kind == CodeKind::kBf16 || kind == CodeKind::kFp16 || kind == CodeKind::kFp32) {
      // A dequantized value off by exactly 2^k: same sign and significand, other exponent.
      const double ve = code_value(kind, e), va = code_value(kind, a);
      if (!std::isfinite(ve) || !std::isfinite(va) || ve == 0 || va == 0) return;
      int xe = 0, xa = 0;
      const double me = std::frexp(ve, &xe), ma = std::frexp(va, &xa);
      if (me == ma && xe != xa) {
        f.cls = MismatchClass::kScaleOffBinades;
        f.k = xa - xe;
      }
    }
  }

  const OutputSpec& spec_;
  const StorageMap& map_;
  const std::uint8_t* exp_;
  const std::uint8_t* act_;
  const Context& ctx_;
  const Options& opts_;
};

Mismatch materialize(const Found& f, const StorageMap* map, const std::uint8_t* exp,
                     const std::uint8_t* payload, std::span<const std::uint8_t> actual,
                     const Context& ctx, const Options& opts, std::size_t payload_bytes) {
  Mismatch m;
  m.cls = f.cls;
  m.region = f.region;
  m.k = f.k;
  if (f.region == Region::kGuardBefore || f.region == Region::kGuardAfter) {
    m.byte_offset = f.region == Region::kGuardBefore
                        ? static_cast<std::int64_t>(f.pos) - static_cast<std::int64_t>(opts.guard_before)
                        : static_cast<std::int64_t>(payload_bytes + f.pos);
    m.expected = opts.guard_fill;
    m.actual = actual[static_cast<std::size_t>(static_cast<std::int64_t>(opts.guard_before) + m.byte_offset)];
    return m;
  }
  m.byte_offset = static_cast<std::int64_t>(map->byte_of(f.pos));
  m.nibble = map->nibble_of(f.pos);
  m.expected = map->read(exp, f.pos);
  m.actual = map->read(payload, f.pos);
  const auto element = map->element_of(f.pos);
  if (!element) return m;
  m.coord = map->coord_of(*element);
  if (f.partner != kNone) {
    m.found_at = map->coord_of(*map->element_of(f.partner));
    m.found_byte_offset = static_cast<std::int64_t>(map->byte_of(f.partner));
  }
  if (!ctx.input_bits.empty()) m.input_bits = ctx.input_bits[*element];
  if (!ctx.pre_rounding.empty()) m.pre_rounding = ctx.pre_rounding[*element];
  if (ctx.block_size != 0) {
    const std::size_t per_row = ceil_div(map->cols(), ctx.block_size);
    const std::size_t block = map->global_row_of(*element) * per_row + (*element % map->cols()) / ctx.block_size;
    if (!ctx.block_amax.empty()) m.block_amax = ctx.block_amax[block];
    if (!ctx.block_scale.empty()) m.block_scale = ctx.block_scale[block];
  }
  return m;
}

}  // namespace

Report compare(const OutputSpec& spec, std::span<const std::uint8_t> expected,
               std::span<const std::uint8_t> actual, const Context& context, const Options& options) {
  const std::size_t n = storage_bytes(spec);  // validates spec
  const std::size_t elements = element_count(spec);
  if (expected.size() != n) {
    bad_argument("expected has " + std::to_string(expected.size()) + " bytes but '" + spec.name +
                 "' (" + std::string(to_string(spec.kind)) + ", " + std::string(to_string(spec.layout)) +
                 ") occupies " + std::to_string(n));
  }
  if (actual.size() != options.guard_before + n + options.guard_after) {
    bad_argument("actual has " + std::to_string(actual.size()) + " bytes; it must hold guard_before (" +
                 std::to_string(options.guard_before) + ") + " + std::to_string(n) + " + guard_after (" +
                 std::to_string(options.guard_after) + ") bytes for '" + spec.name + "'");
  }
  validate_context(spec, context, elements);

  Report report;
  report.spec = spec;
  report.input_kind = context.input_kind;
  report.bytes_compared = actual.size();
  report.elements_compared = elements;

  std::vector<Found> found;
  for (std::size_t i = 0; i < options.guard_before; ++i) {
    if (actual[i] != options.guard_fill) found.push_back({Region::kGuardBefore, i, MismatchClass::kOutOfBounds});
  }
  const std::uint8_t* payload = actual.data() + options.guard_before;
  std::optional<StorageMap> map;
  if (n != 0 && std::memcmp(expected.data(), payload, n) != 0) {
    map.emplace(spec);
    Classifier(spec, *map, expected.data(), payload, context, options).run(found);
  }
  for (std::size_t i = 0; i < options.guard_after; ++i) {
    if (payload[n + i] != options.guard_fill) found.push_back({Region::kGuardAfter, i, MismatchClass::kOutOfBounds});
  }

  report.mismatch_count = found.size();
  for (const Found& f : found) ++report.counts[static_cast<std::size_t>(f.cls)];
  const std::size_t listed = std::min(found.size(), options.max_listed);
  report.listed.reserve(listed);
  for (std::size_t i = 0; i < listed; ++i) {
    report.listed.push_back(materialize(found[i], map ? &*map : nullptr, expected.data(), payload,
                                        actual, context, options, n));
  }
  return report;
}

std::vector<std::uint32_t> input_bits_of(std::span<const float> values) {
  std::vector<std::uint32_t> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](float v) { return std::bit_cast<std::uint32_t>(v); });
  return out;
}

std::vector<std::uint32_t> input_bits_of(std::span<const std::uint16_t> bits) {
  return {bits.begin(), bits.end()};
}

}  // namespace mxv::check
