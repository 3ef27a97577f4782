// Running properties (docs/fuzzing.md "Replay" and "mxv fuzz"): check_property runs one property
// for a number of cases through rapidcheck (shrinking a failure to its minimal counterexample), and
// run_fuzz is the `mxv fuzz` verb: properties x backends until a case or time budget is spent, a
// live status line on a terminal, and on a failure the counterexample, the check library's report
// and the command that replays exactly that run.
//
// Replay: a run is a function of (property, backend, seed, cases). The rapidcheck seed of a
// property is property_seed(seed, name), so the property test (MXV_TEST_SEED, MXV_FUZZ_CASES) and
// `mxv fuzz --property NAME --seed S --cases N` draw the same cases.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/device/backend.h"
#include "mxv/fuzz/properties.h"

namespace mxv::fuzz {

struct CheckParams {
  std::uint64_t seed = 0;  ///< the run seed (mixed with the property name)
  int cases = 20;          ///< successful cases before the property passes
  bool shrink = true;
};

/// Where a property run stands (also its progress reports).
struct CheckOutcome {
  bool ok = true;
  bool gave_up = false;     ///< too many generated cases were discarded (a generator defect)
  int cases = 0;            ///< cases run so far (passed and failed, not discarded)
  int discarded = 0;
  int shrinks = 0;          ///< accepted shrink steps
  std::string counterexample;  ///< the minimal failing case, one value per line
  std::string failure;         ///< the failing assertion's message (the check library's report)
  std::vector<golden::VerifyCase> failing_calls;  ///< the minimal counterexample's kernel calls
};

/// The rapidcheck seed of `property` in a run seeded `seed`.
std::uint64_t property_seed(std::uint64_t seed, std::string_view property);

/// Runs `property` on `backend`; `progress` (optional) is called after every case and shrink.
CheckOutcome check_property(const Property& property, device::Backend& backend, const CheckParams& params,
                            const Tamper& tamper = {}, const std::function<void(const CheckOutcome&)>& progress = {});

/// The command that replays one property run.
std::string replay_command(std::string_view property, std::string_view backend, std::uint64_t seed, int cases);

/// `mxv fuzz` options.
struct FuzzOptions {
  double minutes = 0;      ///< time budget (rounds of round_cases per property until spent)
  int cases = 0;           ///< or: this many cases per property, one round (0 with minutes 0: 50)
  std::uint64_t seed = 1;
  std::string backend = "auto";         ///< auto | cuda | emulated
  std::vector<std::string> properties;  ///< empty = all
  bool list = false;                    ///< print the properties and exit
  std::string save_failure;             ///< write the failing case here (format: docs/fuzzing.md)
  bool live = false;                    ///< redraw a status line on `err` (the CLI sets it on a terminal)
  int round_cases = 10;                 ///< cases per property per round of a timed run
  Tamper tamper;                        ///< test hook: a planted bug in every kernel output
};

/// Runs the campaign. Returns 0 when every case passed, 1 on a property failure (after printing it),
/// 2 on a usage error (unknown property, unavailable backend, bad budget) with the reason on `err`.
int run_fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err);

}  // namespace mxv::fuzz
