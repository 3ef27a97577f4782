// run_program (program.h). CLI11 parses a verb's options; the words that choose the command (a
// verb, golden's subcommand) are handled before it so that `mxv help golden regen`, a typo in a
// verb or subcommand and `mxv` alone get a useful answer instead of CLI11's "A subcommand is
// required".
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

std::vector<std::string> verb_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// "mxv golden check": the command a (sub)command is reached by, for messages and usage lines.
std::string command_path(const CLI::App& cmd) {
  return cmd.get_parent() == nullptr ? cmd.get_name() : command_path(*cmd.get_parent()) + " " + cmd.get_name();
}

// What the words below `cmd` are called: verbs at the top, subcommands below a verb (golden).
std::string word_kind(const CLI::App& cmd) { return cmd.get_parent() == nullptr ? "verb" : "subcommand"; }

// "'quantise' is not a verb; did you mean 'quantize'?" plus the list, on stderr; exit code 2.
// The same below a verb: "mxv golden: 'regn' is not a subcommand; did you mean 'regen'?".
int unknown_word(const CLI::App& cmd, const std::string& typed) {
  const std::vector<std::string> names = verb_names(cmd);
  const std::string near = nearest_name(typed, names);
  std::cerr << command_path(cmd) << ": '" << typed << "' is not a " << word_kind(cmd);
  if (!near.empty()) std::cerr << "; did you mean '" << near << "'?";
  std::cerr << "\n" << word_kind(cmd) << "s: " << joined(names) << "\nRun '"
            << (cmd.get_parent() == nullptr ? std::string("mxv help") : "mxv help " + cmd.get_name())
            << "' for what each does.\n";
  return 2;
}

std::vector<std::string> long_option_names(const CLI::App& cmd) {
  std::vector<std::string> options;
  for (const CLI::Option* o : cmd.get_options()) {
    for (const std::string& n : o->get_lnames()) options.push_back("--" + n);
  }
  return options;
}

// "mxv golden check: unknown option '--backnd'; did you mean '--backend'?" for each unknown long
// option. `always`: also without a near name, where CLI11's own message would not mention the
// option at all (it reports a missing required option first).
void suggest_options(const CLI::App& cmd, const std::vector<std::string>& extras, bool always) {
  const std::vector<std::string> options = long_option_names(cmd);
  for (const std::string& e : extras) {
    if (!e.starts_with("--")) continue;
    const std::string near = nearest_name(e.substr(0, e.find('=')), options);
    if (near.empty() && !always) continue;
    std::cerr << command_path(cmd) << ": unknown option '" << e << "'";
    if (!near.empty()) std::cerr << "; did you mean '" << near << "'?";
    std::cerr << "\n";
  }
}

// The most deeply nested command CLI11 parsed (golden, then check), or null before any verb.
const CLI::App* parsed_command(const CLI::App& app) {
  const CLI::App* node = nullptr;
  for (const CLI::App* cur = &app; !cur->get_subcommands().empty();) node = cur = cur->get_subcommands().front();
  return node;
}

// "mxv golden check: ": what starts a refusal, the whole command that refused.
std::string refusal_prefix(const CLI::App& app) {
  const CLI::App* cmd = parsed_command(app);
  return command_path(cmd != nullptr ? *cmd : app) + ": ";
}

bool names_option(const CLI::App& cmd, const std::string& word) {
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->check_name(word.substr(0, word.find('=')))) return true;
  }
  return false;
}

// The words that choose a command (a verb, golden's subcommand), checked before CLI11 parses so a
// typo gets the nearest name instead of CLI11's "A subcommand is required": a word that names no
// command, an option where a command is expected, a command missing. Returns the exit code of
// such a refusal, or -1 when the path is whole and CLI11 may parse.
int check_command_words(const CLI::App& app, int argc, char** argv) {
  const CLI::App* node = &app;
  for (int i = 1; !verb_names(*node).empty(); ++i) {
    if (i >= argc) {
      std::cerr << node->help(node->get_parent() == nullptr ? "" : command_path(*node->get_parent())) << "\n"
                << command_path(*node) << ": give a " << word_kind(*node) << " (" << joined(verb_names(*node)) << ")\n";
      return 2;
    }
    const std::string word = argv[i];
    if (word.starts_with("-")) {
      if (names_option(*node, word)) return -1;  // --help, --version: CLI11 answers them
      suggest_options(*node, {word}, true);
      std::cerr << "Run '" << (node == &app ? std::string("mxv help") : "mxv help " + node->get_name())
                << "' for the " << word_kind(*node) << "s and options.\n";
      return 2;
    }
    const std::vector<std::string> names = verb_names(*node);
    if (std::find(names.begin(), names.end(), word) == names.end()) return unknown_word(*node, word);
    node = node->get_subcommand(word);
  }
  return -1;
}

// `mxv help [VERB [SUBCOMMAND]]`: the help of the command the words name, its usage line with the
// whole command ("Usage: mxv golden regen"); a word that names none is refused with the nearest.
int print_help(const CLI::App& app, int argc, char** argv) {
  const CLI::App* node = &app;
  for (int i = 2; i < argc; ++i) {
    const std::vector<std::string> names = verb_names(*node);
    const std::string word = argv[i];
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      if (names.empty()) {
        std::cerr << command_path(*node) << ": has no subcommand '" << word << "'\n";
        return 2;
      }
      return unknown_word(*node, word);
    }
    node = node->get_subcommand(word);
  }
  std::cout << node->help(node->get_parent() == nullptr ? "" : command_path(*node->get_parent()));
  return 0;
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

  // The top level: `help [VERB [SUBCOMMAND]]`, no verb, an unknown verb, subcommand or option.
  if (argc >= 2 && std::string(argv[1]) == "help") return print_help(app, argc, argv);
  if (const int refused = check_command_words(app, argc, argv); refused >= 0) return refused;

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports a missing required option before an unknown one: name the unknown one too.
    if (const CLI::App* cmd = parsed_command(app); cmd != nullptr) {
      suggest_options(*cmd, cmd->remaining(), dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr);
    }
    // CLI11 prints the message (or the help / version). Every usage error exits with 2.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const std::bad_alloc&) {
    std::cerr << refusal_prefix(app) << "out of memory\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << refusal_prefix(app) << e.what() << "\n";
    return 2;
  }
  return verdict;
}

}  // namespace mxv::cli
