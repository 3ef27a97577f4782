// Kernel families (docs/adding-a-kernel-family.md): how a family tells both backends, from one
// declaration beside its kernel body, which kernel a launch plan runs.
//
// A family is a struct deriving from FamilyOf<Params, variants...> (its parameters and the
// variants of its enum a plan may name; the enum has one to_string, whose names plans carry) with
//   template <class Visitor>
//   static void visit(Variant, const LaunchPlan&, const Params&, Visitor&& visitor);
// which calls `visitor.template operator()<Kernel>()` with the one kernel instantiation the
// variant, the plan's geometry and the parameters select. A Kernel is a struct deriving from
// KernelOf<Params, bound[, min_blocks]> (its __launch_bounds__; bound 0 for none) with
//   template <class Ctx> static MXV_HD MXV_FORCEINLINE void run(Ctx&, const Params&);
// which calls the kernel body.
// The cuda backend derives one __global__ wrapper per Kernel (cuda_kernel.cuh), the emulated
// backend runs Kernel::run per thread; neither names a variant itself.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "mxv/device/launch_plan.h"

namespace mxv::device {

template <class F>
concept KernelFamily = requires {
  typename F::Params;
  typename F::Variant;
  F::kVariants;
};

/// The kernel families a backend dispatches over (the list device/CMakeLists.txt generates
/// from its mxv_kernel_family lines, kernel_families.h in the build tree).
template <KernelFamily... Families>
struct FamilyList {};

/// A launch's parameters with their type erased, so that Backend has one run_kernel for every
/// family. The tag is the address of a variable template instance: one object per type in the
/// program (mxv's libraries are static, so no copy per shared object), and not a constant, so no
/// linker folds two tags into one address.
class KernelArgs {
 public:
  template <class Params>
  static KernelArgs of(const Params& params) {
    return KernelArgs(&type_tag<Params>, &params);
  }
  /// The parameters when they are a Params, otherwise nullptr.
  template <class Params>
  const Params* get() const {
    return tag_ == &type_tag<Params> ? static_cast<const Params*>(params_) : nullptr;
  }

 private:
  template <class T>
  static inline char type_tag = 0;
  KernelArgs(const char* tag, const void* params) : tag_(tag), params_(params) {}
  const char* tag_;
  const void* params_;
};

/// The variant of Family a plan names, if any.
template <KernelFamily Family>
std::optional<typename Family::Variant> variant_named(std::string_view name) {
  for (const auto v : Family::kVariants) {
    if (to_string(v) == name) return v;
  }
  return std::nullopt;
}

/// Calls `on_family.template operator()<Family>(params)` for the family of the list whose
/// parameters `args` holds and returns its result; false when no family of the list takes them.
template <class... Families, class OnFamily>
bool with_family(FamilyList<Families...>, const KernelArgs& args, OnFamily&& on_family) {
  bool ran = false;
  const auto try_one = [&]<class Family>() {
    if (const auto* params = args.get<typename Family::Params>()) {
      ran = on_family.template operator()<Family>(*params);
      return true;
    }
    return false;
  };
  (try_one.template operator()<Families>() || ...);
  return ran;
}

/// Calls `launch.template operator()<Kernel>()` with the kernel of Family that `plan` and `params`
/// select; false (nothing called) when the plan names none of the family's variants.
template <KernelFamily Family, class Launch>
bool with_kernel(const LaunchPlan& plan, const typename Family::Params& params, Launch&& launch) {
  const std::optional<typename Family::Variant> variant = variant_named<Family>(plan.kernel);
  if (!variant) return false;
  Family::visit(*variant, plan, params, launch);
  return true;
}

/// What every family declares: its parameters and the variants a plan may name.
template <class P, auto kFirst, decltype(kFirst)... kRest>
struct FamilyOf {
  using Params = P;
  using Variant = decltype(kFirst);
  static constexpr std::array<Variant, 1 + sizeof...(kRest)> kVariants{kFirst, kRest...};
};

/// What every kernel declares: its parameters and its __launch_bounds__ (0: none): at most
/// kBound threads a block and, where kMinBlocks > 1, room for kMinBlocks such blocks on one SM,
/// which caps the registers ptxas may give a thread (the cuda wrapper's second bound; the emulator
/// ignores both).
template <class P, unsigned kBound, unsigned kMinBlocks = 1>
struct KernelOf {
  using Params = P;
  static constexpr unsigned kMaxThreads = kBound;
  static constexpr unsigned kMinBlocksPerSm = kMinBlocks;
  static_assert(kMinBlocks >= 1u && (kMinBlocks == 1u || kBound > 0u), "a block minimum needs a thread bound");
};

/// A family of one variant run by one kernel.
template <class Kernel, auto kVariant>
struct OneKernelFamily : FamilyOf<typename Kernel::Params, kVariant> {
  using typename FamilyOf<typename Kernel::Params, kVariant>::Params;
  using typename FamilyOf<typename Kernel::Params, kVariant>::Variant;
  template <class Visitor>
  static void visit(Variant, const LaunchPlan&, const Params&, Visitor&& visitor) {
    visitor.template operator()<Kernel>();
  }
};

}  // namespace mxv::device
