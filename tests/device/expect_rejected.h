// A launcher's refusal, asserted: planning the problem throws std::invalid_argument and its
// message names the rule (docs/adding-a-kernel-family.md, checklist: the launcher rejects every
// shape it cannot take with a message naming the rule).
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace mxv::test {

/// Expects plan(problem) to throw std::invalid_argument whose message contains `needle`.
template <class Plan, class Problem>
void expect_rejected(Plan plan, const Problem& problem, const std::string& needle) {
  try {
    (void)plan(problem);
    ADD_FAILURE() << "accepted a problem that should be rejected (" << needle << ")";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace mxv::test
