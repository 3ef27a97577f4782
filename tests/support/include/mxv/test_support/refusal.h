// The message a refused call gives: the tests of bad input compare it whole, so a refusal that
// names the wrong option or value fails the test, and a call that is not refused reads as "".
#pragma once

#include <stdexcept>
#include <string>

namespace mxv::test_support {

/// The what() of the std::invalid_argument `call` throws; "" when it throws none. Any other
/// exception propagates (the test fails with it).
template <class Call>
std::string refusal(Call&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace mxv::test_support
