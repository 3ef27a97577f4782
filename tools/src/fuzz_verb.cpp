// `mxv fuzz`: options only; the campaign is fuzz::run_fuzz (fuzz/include/mxv/fuzz/campaign.h).
// Exit codes: 0 every case passed, 1 a property failed (counterexample, report and replay command
// printed), 2 a usage error (docs/fuzzing.md, "mxv fuzz").
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/fuzz/campaign.h"
#include "mxv/io/option_value.h"
#include "mxv/io/output_files.h"

namespace mxv::cli {

void add_fuzz_verb(CLI::App& app, int& exit_code) {
  const auto [cmd, opt] = add_verb<fuzz::FuzzOptions>(
      app, "fuzz",
      "Property-based verification: generated kernel calls aimed at rounding and layout decisions, each checked "
      "against the reference and metamorphic identities on every available backend; a failure is shrunk to a "
      "minimal counterexample and printed with the command that replays it (docs/fuzzing.md). " +
          checking_exit_codes("a property failed"));
  // Typed values are parsed by mxv::io (option_value.h), so "nan", "-1" and a seed beyond 64 bits
  // are refused the way every verb refuses them.
  auto minutes_text = std::make_shared<std::optional<std::string>>();
  auto seed_text = std::make_shared<std::optional<std::string>>();
  auto* minutes = add_text(*cmd, "--minutes", *minutes_text,
                           "run rounds of every property for this many minutes (finite, > 0; the first round "
                           "always runs whole)",
                           kReal);
  // Through the typed parser too: 0 or a negative count is refused rather than read as "default".
  auto cases_text = std::make_shared<std::optional<std::string>>();
  add_text(*cmd, "--cases", *cases_text, "or: run this many cases of each property (>= 1; default 50)", kInt)
      ->excludes(minutes);
  add_seed(*cmd, *seed_text, "run seed", "a property's cases are a function of it and the property name", opt->seed);
  add_backend(*cmd, opt->backend);
  add_text(*cmd, "--property", opt->properties, "run only this property (repeatable; see --list)", kName);
  cmd->add_flag("--list", opt->list, "list the properties and exit");
  add_text(*cmd, "--save-failure", opt->save_failure,
           "write the failing case to FILE (golden cases; docs/fuzzing.md, \"Saved failures\")", kFile);
  cmd->callback([opt, minutes_text, cases_text, seed_text, &exit_code] {
    if (*minutes_text) {
      opt->minutes = io::parse_real_option("--minutes", **minutes_text, io::RealRule::kFinitePositive);
    }
    if (*cases_text) {
      opt->cases = static_cast<int>(io::parse_int_option("--cases", **cases_text, 1, std::numeric_limits<int>::max()));
    }
    if (*seed_text) opt->seed = io::parse_uint64_option("--seed", **seed_text);
    if (!opt->save_failure.empty()) {
      // Checked before the campaign (hours, perhaps) rather than when a failure is to be saved.
      io::OutputBatch probe;
      probe.output("--save-failure", opt->save_failure);
    }
    opt->live = isatty(fileno(stderr)) != 0;
    exit_code = fuzz::run_fuzz(*opt, std::cout, std::cerr);
  });
}

}  // namespace mxv::cli
