// Tests of the fiber primitive (emulation/src/fiber.cpp): resume/yield round trips, exceptions
// thrown and caught on a fiber stack, stack reuse, many live fibers, and the floating-point
// control state carried per fiber.
#include <gtest/gtest.h>

#include <cfenv>
#include <memory>
#include <stdexcept>
#include <vector>

#include "mxv/emulation/fiber.h"

namespace mxv::emu {
namespace {

struct Counter {
  Fiber* fiber;
  int steps = 0;
  int caught = 0;
};

void count_three_then_throw(void* arg) {
  auto* c = static_cast<Counter*>(arg);
  for (int i = 0; i < 3; ++i) {
    ++c->steps;
    c->fiber->yield();
  }
  try {
    throw std::runtime_error("on the fiber stack");
  } catch (const std::runtime_error&) {
    ++c->caught;
  }
  c->fiber->exit_to_scheduler();
}

TEST(Fiber, ResumeYieldAndExceptionsOnTheFiberStack) {
  Fiber f(Fiber::default_stack_bytes());
  Counter c{&f};
  f.prepare(&count_three_then_throw, &c);
  for (int i = 1; i <= 3; ++i) {
    f.resume();
    EXPECT_EQ(c.steps, i);
    EXPECT_EQ(c.caught, 0);
  }
  f.resume();
  EXPECT_EQ(c.caught, 1);
  // The stack is reusable after the fiber exits.
  Counter again{&f};
  f.prepare(&count_three_then_throw, &again);
  for (int i = 0; i < 4; ++i) f.resume();
  EXPECT_EQ(again.steps, 3);
  EXPECT_EQ(again.caught, 1);
}

struct Interleave {
  Fiber* fiber;
  int id;
  std::vector<int>* log;
};

void log_twice(void* arg) {
  auto* s = static_cast<Interleave*>(arg);
  s->log->push_back(s->id);
  s->fiber->yield();
  s->log->push_back(100 + s->id);
  s->fiber->exit_to_scheduler();
}

TEST(Fiber, ManyFibersInterleave) {
  constexpr int kN = 1024;
  std::vector<std::unique_ptr<Fiber>> fibers;
  std::vector<Interleave> states;
  std::vector<int> log;
  states.reserve(kN);
  for (int i = 0; i < kN; ++i) {
    fibers.push_back(std::make_unique<Fiber>(Fiber::default_stack_bytes()));
    states.push_back({fibers.back().get(), i, &log});
    fibers.back()->prepare(&log_twice, &states.back());
  }
  for (auto& f : fibers) f->resume();
  for (auto& f : fibers) f->resume();
  ASSERT_EQ(log.size(), 2u * kN);
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(log[static_cast<std::size_t>(i)], i);
    EXPECT_EQ(log[static_cast<std::size_t>(kN + i)], 100 + i);
  }
}

struct Rounding {
  Fiber* fiber;
  int seen_before = 0;
  int seen_after = 0;
};

void change_rounding(void* arg) {
  auto* r = static_cast<Rounding*>(arg);
  r->seen_before = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  r->fiber->yield();
  r->seen_after = std::fegetround();
  r->fiber->exit_to_scheduler();
}

TEST(Fiber, FloatingPointControlStateIsPerFiber) {
  Fiber f(Fiber::default_stack_bytes());
  Rounding r{&f};
  f.prepare(&change_rounding, &r);
  f.resume();
  EXPECT_EQ(r.seen_before, FE_TONEAREST) << "a new fiber inherits the creator's state";
  EXPECT_EQ(std::fegetround(), FE_TONEAREST) << "the fiber's change stays on the fiber";
  f.resume();
  EXPECT_EQ(r.seen_after, FE_TOWARDZERO);
}

}  // namespace
}  // namespace mxv::emu
