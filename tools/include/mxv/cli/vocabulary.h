// The option vocabulary every `mxv` verb shares (docs/cli.md, "Vocabulary"): one name, one
// value type and one help text per concept, registered through these functions so that two
// verbs cannot drift apart (`--dtype` everywhere, never `--type`; `-o,--output` everywhere,
// never `--out`). Values stay the text the user typed: the verb's logic parses it through
// mxv::io::parse_*_option and names the option in any error. An option that is not given
// stays std::nullopt, so a verb can refuse an option that does not apply.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mxv::cli {

/// A verb (or a verb of `parent`'s) and the struct its options are bound to. The struct is shared:
/// CLI11 writes the values into it while parsing, and the verb's callback, which CLI11 keeps after
/// registration returns, reads it.
template <class Options>
struct Verb {
  CLI::App* cmd;
  std::shared_ptr<Options> options;
};
template <class Options>
Verb<Options> add_verb(CLI::App& parent, const std::string& name, const std::string& description) {
  return {parent.add_subcommand(name, description), std::make_shared<Options>()};
}

/// The value-type names shown in --help.
inline constexpr const char* kFile = "FILE";
inline constexpr const char* kInt = "INT";
inline constexpr const char* kReal = "FLOAT";
inline constexpr const char* kName = "NAME";
inline constexpr const char* kCounts = "INT,INT,...";

/// One option holding text, shown in --help as `type_name`; `dest` is std::string (empty when
/// not given), std::optional<std::string> or, for a repeatable one, std::vector<std::string>. A
/// FILE given as '' is refused: a verb reads an empty path as "not given" and would silently
/// skip the file (`--json ''` writing no report).
template <class Dest>
CLI::Option* add_text(CLI::App& cmd, const std::string& names, Dest& dest, const std::string& help, const char* type_name) {
  CLI::Option* option = cmd.add_option(names, dest, help)->type_name(type_name);
  if (std::string_view(type_name) == kFile) {
    option->check([](const std::string& path) { return path.empty() ? std::string("a file is required, got ''") : std::string(); });
  }
  return option;
}

/// --seed: a 64-bit seed as text (the verb parses it with io::parse_uint64_option). `what` names
/// it, `use` says what it determines, `fallback` is the seed when none is given.
inline CLI::Option* add_seed(CLI::App& cmd, std::optional<std::string>& dest, const std::string& what,
                             const std::string& use, std::uint64_t fallback) {
  return add_text(cmd, "--seed", dest,
                  what + ", 0 to 2^64 - 1 (" + use + ") (default " + std::to_string(fallback) + ")", kInt);
}

/// --backend of the verbs that run kernels on every available backend by default.
inline CLI::Option* add_backend(CLI::App& cmd, std::string& dest) {
  return add_text(cmd, "--backend", dest, "auto | cuda | emulated (default auto: every available backend)", kName);
}

// ---- files ----
inline CLI::Option* add_input(CLI::App& cmd, std::string& dest, const std::string& what) {
  return add_text(cmd, "-i,--input", dest, what + " (required; a file or a pipe)", kFile);
}
inline CLI::Option* add_output(CLI::App& cmd, std::string& dest, const std::string& what) {
  return add_text(cmd, "-o,--output", dest, what + " (required; written whole or not at all)", kFile);
}

// ---- element types ----
template <class Dest>
CLI::Option* add_dtype(CLI::App& cmd, Dest& dest, const std::string& choices, const std::string& what) {
  return add_text(cmd, "--dtype", dest, choices + ": " + what + " (default fp32)", kName);
}
template <class Dest>
CLI::Option* add_out_dtype(CLI::App& cmd, Dest& dest, const std::string& what) {
  return add_text(cmd, "--out-dtype", dest, "fp32 | bf16 | fp16: " + what + " (default fp32)", kName);
}

// ---- shapes: every matrix is --rows x --cols ----
template <class Dest>
CLI::Option* add_rows(CLI::App& cmd, Dest& dest, const std::string& what) {
  return add_text(cmd, "-M,--rows", dest, what, kInt);
}
template <class Dest>
CLI::Option* add_cols(CLI::App& cmd, Dest& dest, const std::string& what) {
  return add_text(cmd, "-K,--cols", dest, what, kInt);
}
inline CLI::Option* add_rows_per_expert(CLI::App& cmd, std::optional<std::string>& dest) {
  return add_text(cmd, "--rows-per-expert", dest, "grouped (MoE) rows: the row count of each expert, summing to --rows",
                  kCounts);
}

// ---- recipes and scales ----
inline CLI::Option* add_recipe(CLI::App& cmd, std::optional<std::string>& dest, const std::string& choices) {
  return add_text(cmd, "--recipe", dest, choices + " (default nvfp4_te)", kName);
}
inline CLI::Option* add_scale_layout(CLI::App& cmd, std::optional<std::string>& dest, const std::string& default_name) {
  return add_text(cmd, "--scale-layout", dest, "linear | swizzled (128x4 tiles) (default " + default_name + ")", kName);
}
inline CLI::Option* add_scale_per_expert(CLI::App& cmd, bool& dest) {
  return cmd.add_flag("--scale-per-expert", dest, "NVFP4: one global scale per expert (needs --rows-per-expert)");
}
inline CLI::Option* add_tensor_amax(CLI::App& cmd, std::optional<std::string>& dest, const std::string& fallback) {
  return add_text(cmd, "--tensor-amax", dest, "NVFP4: the tensor amax to use, finite and >= 0 (default " + fallback + ")",
                  kReal);
}

// ---- quantized outputs and their inputs: the same names in and out ----
inline void add_quantized_outputs(CLI::App& cmd, std::string& elements, std::string& scales) {
  add_text(cmd, "--out-elements", elements, "packed elements (required)", kFile);
  add_text(cmd, "--out-scales", scales, "block scales (required)", kFile);
}
template <class Dest>
CLI::Option* add_out_global(CLI::App& cmd, Dest& dest) {
  return add_text(cmd, "--out-global", dest, "NVFP4 only (required there): fp32 [G] decode scales s_dec", kFile);
}

// ---- help ----
/// The end of the description of a verb that checks cases (verify, fuzz): its exit codes
/// (docs/cli.md, "Exit codes"), `failure` saying what exit code 1 means for it.
inline std::string checking_exit_codes(const std::string& failure) {
  return "Exit codes: 0 every case passed, 1 " + failure + ", 2 a usage error";
}
/// The footer of a verb that reads and writes files: their layouts, then the rule every such verb
/// keeps (docs/cli.md, "Exit codes").
inline void add_files_footer(CLI::App& cmd, std::string_view layouts) {
  cmd.footer(std::string(layouts) + "Exit code 2 on bad options or input; then no output file is written.\n");
}

}  // namespace mxv::cli
