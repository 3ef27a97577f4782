// run_program (program.h). CLI11 parses a verb's options; the top level is handled before it so
// that `mxv help`, a typo in the verb and `mxv` alone get a useful answer instead of CLI11's
// "A subcommand is required".
#include "mxv/cli/program.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <algorithm>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "mxv/cli/nearest_name.h"
#include "mxv/cli/verbs.h"

namespace mxv::cli {
namespace {

constexpr const char* kFooter =
    "Run 'mxv help VERB' or 'mxv VERB --help' for a verb's options; docs/cli.md describes the vocabulary.\n"
    "Exit codes: 0 success; 1 a check found a mismatch (verify, golden check, golden regen --check, golden diff, "
    "fuzz); 2 bad usage or bad input (nothing written).";

std::vector<std::string> verb_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// "'quantise' is not a verb; did you mean 'quantize'?" plus the list, on stderr; exit code 2.
int unknown_verb(CLI::App& app, const std::string& typed) {
  const std::vector<std::string> names = verb_names(app);
  const std::string near = nearest_name(typed, names);
  std::cerr << "mxv: '" << typed << "' is not a verb";
  if (!near.empty()) std::cerr << "; did you mean '" << near << "'?";
  std::cerr << "\nverbs: " << joined(names) << "\nRun 'mxv help' for what each does.\n";
  return 2;
}

// CLI11 says "The following arguments were not expected: --tensor-amx"; add the nearest option.
void suggest_options(const CLI::App& verb, const std::vector<std::string>& extras) {
  std::vector<std::string> options;
  for (const CLI::Option* o : verb.get_options()) {
    for (const std::string& n : o->get_lnames()) options.push_back("--" + n);
  }
  for (const std::string& e : extras) {
    if (!e.starts_with("--")) continue;
    const std::string near = nearest_name(e.substr(0, e.find('=')), options);
    if (!near.empty()) std::cerr << "mxv " << verb.get_name() << ": unknown option '" << e << "'; did you mean '" << near << "'?\n";
  }
}

const CLI::App* parsed_verb(CLI::App& app) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  return parsed.empty() ? nullptr : parsed.front();
}

}  // namespace

int run_program(int argc, char** argv) {
  CLI::App app{"mxv: bit-exact reference models and verified kernels for block-scaled formats (MXFP4, NVFP4, MXFP8)",
               "mxv"};
  app.set_version_flag("--version", "mxv " + version_text(), "print the version and git revision, then exit");
  app.footer(kFooter);
  add_convert_verb(app);
  add_quantize_verb(app);
  add_dequantize_verb(app);
  add_swiglu_quantize_verb(app);
  int verdict = 0;
  add_verify_verb(app, verdict);
  add_golden_verb(app, argc, argv, verdict);
  add_fuzz_verb(app, verdict);
  app.require_subcommand(1);

  // The top level: no verb, `help [VERB]`, an unknown verb.
  if (argc < 2) {
    std::cerr << app.help() << "\nmxv: give a verb (" << joined(verb_names(app)) << ")\n";
    return 2;
  }
  const std::string first = argv[1];
  const std::vector<std::string> names = verb_names(app);
  if (first == "help") {
    if (argc == 2) {
      std::cout << app.help();
      return 0;
    }
    const std::string verb = argv[2];
    if (std::find(names.begin(), names.end(), verb) == names.end()) return unknown_verb(app, verb);
    std::cout << app.get_subcommand(verb)->help();
    return 0;
  }
  if (!first.starts_with("-") && std::find(names.begin(), names.end(), first) == names.end()) {
    return unknown_verb(app, first);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (const auto* extras = dynamic_cast<const CLI::ExtrasError*>(&e); extras != nullptr && parsed_verb(app) != nullptr) {
      suggest_options(*parsed_verb(app), parsed_verb(app)->remaining());
    }
    // CLI11 prints the message (or the help / version). Every usage error exits with 2.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const std::bad_alloc&) {
    const CLI::App* verb = parsed_verb(app);
    std::cerr << "mxv " << (verb ? verb->get_name() : "") << ": out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    const CLI::App* verb = parsed_verb(app);
    std::cerr << "mxv " << (verb ? verb->get_name() : std::string()) << ": " << e.what() << "\n";
    return 2;
  }
  return verdict;
}

}  // namespace mxv::cli
