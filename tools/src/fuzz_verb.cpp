// `mxv fuzz`: options only; the campaign is fuzz::run_fuzz (fuzz/include/mxv/fuzz/campaign.h).
// Exit codes: 0 every case passed, 1 a property failed (counterexample, report and replay command
// printed), 2 a usage error (docs/fuzzing.md, "mxv fuzz").
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "mxv/cli/verbs.h"
#include "mxv/cli/vocabulary.h"
#include "mxv/fuzz/campaign.h"

namespace mxv::cli {

void add_fuzz_verb(CLI::App& app) {
  auto opt = std::make_shared<fuzz::FuzzOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fuzz",
      "Property-based verification: generated kernel calls aimed at rounding and layout decisions, each checked "
      "against the reference and metamorphic identities on every available backend; a failure is shrunk to a "
      "minimal counterexample and printed with the command that replays it (docs/fuzzing.md). Exit codes: 0 every "
      "case passed, 1 a property failed, 2 a usage error");
  auto* minutes = cmd->add_option("--minutes", opt->minutes, "run rounds of every property for this many minutes")
                      ->type_name(kReal);
  cmd->add_option("--cases", opt->cases, "or: run this many cases of each property (default 50)")
      ->type_name(kInt)
      ->excludes(minutes);
  cmd->add_option("--seed", opt->seed, "run seed (a property's cases are a function of it and the property name)")
      ->type_name(kInt)
      ->capture_default_str();
  add_text(*cmd, "--backend", opt->backend, "auto | cuda | emulated (default auto: every available backend)", kName);
  add_text(*cmd, "--property", opt->properties, "run only this property (repeatable; see --list)", kName);
  cmd->add_flag("--list", opt->list, "list the properties and exit");
  add_text(*cmd, "--save-failure", opt->save_failure,
           "write the failing case to FILE (golden cases; docs/fuzzing.md, \"Saved failures\")", kFile);
  cmd->callback([opt] {
    opt->live = isatty(fileno(stderr)) != 0;
    const int code = fuzz::run_fuzz(*opt, std::cout, std::cerr);
    if (code != 0) {
      // The verb's verdict is the exit code; the program maps exceptions to 2, so leave directly.
      std::cout.flush();
      std::cerr.flush();
      std::exit(code);
    }
  });
}

}  // namespace mxv::cli
