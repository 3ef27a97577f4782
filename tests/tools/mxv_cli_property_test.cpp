// Property: for a random valid `mxv` invocation with exactly one argument corrupted, the program
// exits with code 2 and the folder is unchanged (no output, no temporary file, every input
// byte-identical). The uncorrupted invocation is then run in the same folder and must succeed,
// so each corruption is what the program refused. rapidcheck prints its seed ("Using
// configuration: seed=N") at the start and the shrunk failing invocation on failure; replay a
// run with RC_PARAMS="seed=N" ./mxv_cli_property_test.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli_fixture.h"

namespace mxv::cli_test {
namespace {

// One option and its value ("" for a flag without value).
struct Arg {
  std::string flag;
  std::string value;
  enum Kind { kNumber, kName, kInput, kOutput, kFlag } kind;
  bool required = false;
};

struct Invocation {
  std::string verb;
  std::vector<Arg> args;
  std::string inapplicable;  // an option that does not apply to this invocation, with its value

  std::string command() const {
    std::string s = "mxv " + verb;
    for (const Arg& a : args) s += " " + a.flag + (a.value.empty() && a.kind == Arg::kFlag ? "" : " " + shell_word(a.value));
    return s;
  }
  static std::string shell_word(const std::string& v) { return v.empty() ? "\"\"" : v; }
};

// A uniform choice: rapidcheck's generators start small and grow with the test's size, which
// would favour the first entries; resize() draws at full size from the first test on.
int uniform(int n) { return *rc::gen::resize(100, rc::gen::inRange(0, n)); }
bool coin() { return uniform(2) == 1; }

template <class T>
T pick(const std::vector<T>& v) {
  return v[static_cast<std::size_t>(uniform(static_cast<int>(v.size())))];
}

Invocation random_quantize() {
  Invocation q{"quantize", {}, ""};
  const bool nvfp4 = coin();
  const std::string recipe = nvfp4 ? pick<std::string>({"nvfp4_te", "nvfp4_cutlass_ref", "nvfp4_modelopt", "nvfp4_torchao"})
                                   : pick<std::string>({"mxfp4_ocp", "mxfp4_nvidia", "mxfp8_ocp", "ort_qmoe"});
  const bool bf16 = coin();
  q.args.push_back({"--recipe", recipe, Arg::kName});
  q.args.push_back({"-i", bf16 ? "act.bf16" : "act.f32", Arg::kInput, true});
  if (bf16) q.args.push_back({"--dtype", "bf16", Arg::kName});
  q.args.push_back({"--cols", "32", Arg::kNumber, true});
  if (coin()) q.args.push_back({"--rows", "2", Arg::kNumber});
  q.args.push_back({"--scale-layout", pick<std::string>({"linear", "swizzled"}), Arg::kName});
  if (nvfp4 && coin()) q.args.push_back({"--tensor-amax", pick<std::string>({"0", "8", "2688.5", "1e-3"}), Arg::kNumber});
  q.args.push_back({"--out-elements", "o.e", Arg::kOutput, true});
  q.args.push_back({"--out-scales", "o.s", Arg::kOutput, true});
  if (nvfp4) q.args.push_back({"--out-global", "o.g", Arg::kOutput, true});
  q.inapplicable = nvfp4 ? "--rcp-table act.f32" : "--tensor-amax 1";
  return q;
}

Invocation random_dequantize() {
  Invocation d{"dequantize", {}, "--experts 1"};
  const bool nvfp4 = coin();
  d.args.push_back({"--recipe", nvfp4 ? pick<std::string>({"nvfp4_te", "nvfp4_modelopt"}) : "mxfp4_ocp", Arg::kName});
  d.args.push_back({"--elements", nvfp4 ? "q.e" : "mx.e", Arg::kInput, true});
  d.args.push_back({"--scales", nvfp4 ? "q.s" : "mx.s", Arg::kInput, true});
  if (nvfp4) d.args.push_back({"--global", "q.g", Arg::kInput, true});
  d.args.push_back({"--rows", "2", Arg::kNumber, true});
  d.args.push_back({"--cols", "32", Arg::kNumber, true});
  if (coin()) d.args.push_back({"--out-dtype", pick<std::string>({"fp32", "bf16", "fp16"}), Arg::kName});
  d.args.push_back({"-o", "o.out", Arg::kOutput, true});
  return d;
}

Invocation random_swiglu() {
  Invocation s{"swiglu-quantize", {}, ""};
  s.args.push_back({"-i", "gemm.f32", Arg::kInput, true});
  s.args.push_back({"-I", "16", Arg::kNumber, true});
  const bool clamped = coin();
  s.args.push_back({"--activation", clamped ? "swiglu-clamped" : "silu", Arg::kName});
  if (clamped) {
    s.args.push_back({"--alpha", pick<std::string>({"1.702", "0.5"}), Arg::kNumber});
    s.args.push_back({"--limit", pick<std::string>({"7", "10"}), Arg::kNumber});
  }
  s.args.push_back({"--layout", pick<std::string>({"halves", "interleaved:8", "interleaved:16"}), Arg::kName});
  s.args.push_back({"--recipe", pick<std::string>({"nvfp4_te", "nvfp4_trtllm"}), Arg::kName});
  s.args.push_back({"--scale-layout", pick<std::string>({"linear", "swizzled"}), Arg::kName});
  s.args.push_back({"--out-elements", "o.e", Arg::kOutput, true});
  s.args.push_back({"--out-scales", "o.s", Arg::kOutput, true});
  s.args.push_back({"--out-global", "o.g", Arg::kOutput, true});
  if (coin()) s.args.push_back({"--out-activated", "o.a", Arg::kOutput});
  s.inapplicable = clamped ? "--unfused --activated-dtype bf16" : "--alpha 1";
  return s;
}

Invocation random_convert() {
  Invocation c{"convert", {}, ""};
  if (coin()) {
    c.args.push_back({"--format", "e2m1", Arg::kName, true});
    c.args.push_back({"--decode", "", Arg::kFlag});
    c.args.push_back({"-i", "codes.e2m1", Arg::kInput, true});
    c.args.push_back({"--out-dtype", pick<std::string>({"fp32", "bf16", "fp16"}), Arg::kName});
    c.inapplicable = "--rounding up";
  } else {
    c.args.push_back({"--format", pick<std::string>({"e2m1", "e4m3", "e8m0"}), Arg::kName, true});
    c.args.push_back({"-i", "act.f32", Arg::kInput, true});
    c.inapplicable = "--out-dtype fp16";
  }
  c.args.push_back({"-o", "o.out", Arg::kOutput, true});
  return c;
}

// Replaces one argument with a value or a shape that no verb accepts; returns what it did.
std::string corrupt(Invocation& inv) {
  const auto i = static_cast<std::size_t>(uniform(static_cast<int>(inv.args.size())));
  Arg& a = inv.args[i];
  const int how = uniform(4);
  if (how == 0 && !inv.inapplicable.empty()) {
    inv.args.push_back({inv.inapplicable, "", Arg::kFlag});
    return "added the inapplicable " + inv.inapplicable;
  }
  if (how == 1) {
    inv.args.push_back({pick<std::string>({"--bogus", "--type", "--out", "--n"}), "1", Arg::kName});
    return "added an unknown option";
  }
  if (how == 2 && a.required) {
    const std::string flag = a.flag;
    inv.args.erase(inv.args.begin() + static_cast<std::ptrdiff_t>(i));
    return "dropped the required " + flag;
  }
  switch (a.kind) {
    // Invalid for an integer and for a real alike ("1e23" would be a valid fp32 amax or alpha).
    case Arg::kNumber: a.value = pick<std::string>({"-1", "-0.5", "nan", "inf", "abc", "0x10", "1e39"}); break;
    case Arg::kName: a.value = pick<std::string>({"bogus", "NVFP4", "fp64"}); break;
    case Arg::kInput: a.value = pick<std::string>({"missing.f32", "dir", "empty.bin", "/dev/zero"}); break;
    case Arg::kOutput: {
      std::vector<std::string> clashes = {"dir", "nodir/o.x", "/dev/null"};
      for (const Arg& other : inv.args) {
        if (&other != &a && (other.kind == Arg::kInput || other.kind == Arg::kOutput)) clashes.push_back(other.value);
      }
      a.value = pick(clashes);
      break;
    }
    case Arg::kFlag: a.flag = "--decode=maybe"; break;
  }
  return "set " + a.flag + " to '" + a.value + "'";
}

RC_GTEST_PROP(MxvCli, OneCorruptedArgumentExitsTwoAndChangesNothing, ()) {
  static const bool said = [] {
    std::printf("replay: RC_PARAMS=\"seed=N\" ./mxv_cli_property_test, N from the seed line above\n");
    return true;
  }();
  (void)said;
  const int verb = uniform(4);
  const Invocation valid = verb == 0   ? random_quantize()
                           : verb == 1 ? random_dequantize()
                           : verb == 2 ? random_swiglu()
                                       : random_convert();
  Invocation bad = valid;
  const std::string what = corrupt(bad);
  RC_TAG(valid.verb);
  const CliFolder folder("property");
  const Snapshot before = folder.snapshot();
  const CliFolder::Result r = folder.run(bad.command());
  RC_LOG() << "valid:     " << valid.command() << "\ncorrupted: " << bad.command() << " (" << what << ")\n" << r.output;
  RC_ASSERT(r.exit_code == 2);
  RC_ASSERT(changes(before, folder.snapshot(), {}).empty());
  const CliFolder::Result ok = folder.run(valid.command());
  RC_LOG() << ok.output;
  RC_ASSERT(ok.exit_code == 0);
}

}  // namespace
}  // namespace mxv::cli_test
