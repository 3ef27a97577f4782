// Property runs and the `mxv fuzz` campaign (campaign.h; docs/fuzzing.md "mxv fuzz").
#include "mxv/fuzz/campaign.h"

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "mxv/emulation/emulated_backend.h"
#include "mxv/fuzz/failure_record.h"
#include "mxv/fuzz/values.h"

namespace mxv::fuzz {

namespace {

/// Counts cases and shrinks for the progress callback.
class Listener final : public rc::detail::TestListener {
 public:
  Listener(CheckOutcome& o, const std::function<void(const CheckOutcome&)>& progress) : o_(o), progress_(progress) {}
  void onTestCaseFinished(const rc::detail::CaseDescription& d) override {
    if (d.result.type == rc::detail::CaseResult::Type::Discard) {
      ++o_.discarded;
    } else {
      ++o_.cases;
    }
    if (progress_) progress_(o_);
  }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    if (accepted) ++o_.shrinks;
    if (progress_) progress_(o_);
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}

 private:
  CheckOutcome& o_;
  const std::function<void(const CheckOutcome&)>& progress_;
};

}  // namespace

std::uint64_t property_seed(std::uint64_t seed, std::string_view property) { return mix_seed(seed, name_hash(property)); }

CheckOutcome check_property(const Property& property, device::Backend& backend, const CheckParams& params,
                            const Tamper& tamper, const std::function<void(const CheckOutcome&)>& progress) {
  CheckOutcome o;
  Listener listener(o, progress);
  clear_failing_calls();
  rc::detail::TestParams tp;
  tp.seed = property_seed(params.seed, property.name);
  tp.maxSuccess = params.cases;
  tp.maxSize = 100;
  tp.maxDiscardRatio = 10;
  tp.disableShrinking = !params.shrink;
  rc::detail::TestMetadata meta;
  meta.id = std::string(property.name);
  meta.description = std::string(property.statement);
  const auto body = property.body;
  // An explicit (empty) reproduce map: rapidcheck then never loads its global configuration
  // (RC_PARAMS), whose random seed it would print although this run does not use it.
  const std::unordered_map<std::string, rc::detail::Reproduce> no_reproduce;
  const rc::detail::TestResult result = rc::detail::checkTestable(
      [&backend, &tamper, body] { body(backend, tamper); }, meta, tp, listener, no_reproduce);
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(failure)) {
    o.ok = false;
    o.failure = failure.description;
    for (const auto& [type, value] : failure.counterExample) o.counterexample += type + ": " + value + "\n";
    o.failing_calls = failing_calls();
  } else if (result.match(gave_up)) {
    o.ok = false;
    o.gave_up = true;
    o.failure = "gave up: " + gave_up.description;
  } else if (result.match(error)) {
    o.ok = false;
    o.failure = "rapidcheck error: " + error.description;
  }
  return o;
}

std::string replay_command(std::string_view property, std::string_view backend, std::uint64_t seed, int cases) {
  std::ostringstream os;
  os << "mxv fuzz --property " << property << " --backend " << backend << " --seed " << seed << " --cases " << cases;
  return os.str();
}

namespace {

struct Tally {
  int cases = 0;
  int shrinks = 0;
};

class Campaign {
 public:
  Campaign(const FuzzOptions& o, std::ostream& out, std::ostream& err) : o_(o), out_(out), err_(err) {}

  int run() {
    std::vector<const Property*> chosen;
    try {
      if (o_.properties.empty()) {
        for (const Property& p : properties()) chosen.push_back(&p);
      } else {
        for (const std::string& n : o_.properties) {
          const Property* p = &property_by_name(n);
          if (std::find(chosen.begin(), chosen.end(), p) == chosen.end()) chosen.push_back(p);  // named twice: once
        }
      }
      backends_ = emu::make_backends(o_.backend);
    } catch (const std::exception& e) {
      err_ << "mxv fuzz: " << e.what() << "\n";
      return 2;
    }
    if (o_.list) {
      for (const Property* p : chosen) out_ << std::left << std::setw(36) << p->name << p->statement << "\n";
      return 0;
    }
    if (o_.minutes < 0 || o_.cases < 0 || o_.round_cases < 1) {
      err_ << "mxv fuzz: --minutes and --cases must be >= 0\n";
      return 2;
    }
    // A timed run's first round runs whole however short the time: a run always checks every
    // chosen property, never ends with "0 cases, 0 failures".
    start_ = std::chrono::steady_clock::now();
    const bool timed = o_.minutes > 0;
    const int per_round = timed ? o_.round_cases : (o_.cases > 0 ? o_.cases : 50);
    for (int round = 0;; ++round) {
      // A timed run's round r uses its own seed, so each failing round replays on its own.
      const std::uint64_t seed = timed ? mix_seed(o_.seed, static_cast<std::uint64_t>(round)) : o_.seed;
      for (auto& be : backends_) {
        for (const Property* p : chosen) {
          if (timed && round > 0 && elapsed() >= o_.minutes * 60.0) return finish(0);
          if (!run_one(*p, *be, seed, per_round)) return finish(1);
        }
      }
      if (!timed) return finish(0);
    }
  }

 private:
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

  int total_cases() const {
    int n = 0;
    for (const auto& [name, t] : tally_) n += t.cases;
    return n;
  }

  void live(const std::string& running, const CheckOutcome& now) {
    if (!o_.live) return;
    const double s = elapsed();
    const int cases = total_cases() + now.cases;
    std::ostringstream os;
    os << "\r\033[K" << std::fixed << std::setprecision(0) << s << " s  " << cases << " cases ("
       << std::setprecision(1) << (s > 0 ? cases / s : 0.0) << "/s)  shrinks " << shrinks_ + now.shrinks
       << "  failures " << failures_ << "  | " << running << " " << now.cases;
    for (const auto& [name, t] : tally_) {
      if (name != running) os << "  " << name << " " << t.cases;
    }
    std::string line = os.str();
    if (line.size() > 220) line = line.substr(0, 217) + "...";
    err_ << line << std::flush;
  }

  bool run_one(const Property& p, device::Backend& be, std::uint64_t seed, int cases) {
    const std::string name(p.name);
    const CheckOutcome o = check_property(p, be, {seed, cases, true}, o_.tamper,
                                          [&](const CheckOutcome& now) { live(name, now); });
    tally_[name].cases += o.cases;
    shrinks_ += o.shrinks;
    if (o.ok) return true;
    ++failures_;
    if (o_.live) err_ << "\n";
    const std::string replay = replay_command(p.name, be.name(), seed, cases);
    out_ << "FAIL " << p.name << " on " << be.name() << " after " << o.cases << " case(s), " << o.shrinks
         << " shrink(s)\n"
         << "statement: " << p.statement << "\n"
         << "minimal counterexample:\n"
         << o.counterexample << "report:\n"
         << o.failure << "\n"
         << "replay: " << replay << "\n";
    if (!o_.save_failure.empty()) save(p, be, seed, cases, o, replay);
    return false;
  }

  void save(const Property& p, device::Backend& be, std::uint64_t seed, int cases, const CheckOutcome& o,
            const std::string& replay) {
    const FailureRecord rec{std::string(p.name), std::string(be.name()), seed, cases, replay, o.counterexample, o.failure};
    try {
      const std::string kind = save_failure(o_.save_failure, rec, o.failing_calls);
      out_ << "saved: " << o_.save_failure << " (" << (kind == "golden" ? "golden file; replay with: mxv golden check " + o_.save_failure : "text record") << ")\n";
    } catch (const std::exception& e) {
      err_ << "mxv fuzz: --save-failure: " << e.what() << "\n";
    }
  }

  int finish(int code) {
    if (o_.live) err_ << "\n";
    const double s = elapsed();
    std::string on;
    for (const auto& be : backends_) on += (on.empty() ? "" : ", ") + std::string(be->name());
    out_ << "mxv fuzz: " << total_cases() << " cases on " << (on.empty() ? "no backend" : on) << " in " << std::fixed
         << std::setprecision(1) << s << " s (" << (s > 0 ? total_cases() / s : 0.0) << " cases/s), " << shrinks_
         << " shrinks, " << failures_ << " failure(s)\n";
    for (const auto& [name, t] : tally_) out_ << "  " << std::left << std::setw(36) << name << t.cases << "\n";
    return code;
  }

  const FuzzOptions& o_;
  std::ostream& out_;
  std::ostream& err_;
  std::vector<std::unique_ptr<device::Backend>> backends_;
  std::map<std::string, Tally> tally_;
  int shrinks_ = 0;
  int failures_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

int run_fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err) {
  return Campaign(options, out, err).run();
}

}  // namespace mxv::fuzz
