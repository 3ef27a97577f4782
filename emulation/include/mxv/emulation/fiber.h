// A minimal fiber: a stack of its own and a hand-written x86-64 context switch (docs/design.md
// section 4.1, "Execution": glibc swapcontext costs ~250 ns per switch because it makes a
// sigprocmask system call; _setjmp/_longjmp aborts under _FORTIFY_SOURCE; so a small assembly
// switch that saves the callee-saved registers, MXCSR and the x87 control word, ~10 ns). Stacks
// come from mmap with a PROT_NONE guard page below them, so an overflow is a clean SIGSEGV rather
// than silent corruption. Under AddressSanitizer every switch is annotated with
// __sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber. On other architectures the
// switch falls back to ucontext (slower, same behaviour). Not thread-safe: one scheduler thread
// drives its fibers.
#pragma once

#include <cstddef>

namespace mxv::emu {

class Fiber {
 public:
  using Entry = void (*)(void* arg);

  /// Reserves a stack of `stack_bytes` (rounded up to pages) plus a guard page.
  explicit Fiber(std::size_t stack_bytes);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  /// (Re)starts the fiber at entry(arg) on the next resume(); the stack is reused. The entry must
  /// not return: it ends with exit_to_scheduler().
  void prepare(Entry entry, void* arg);
  /// Scheduler side: run the fiber until it calls yield() or exit_to_scheduler().
  void resume();
  /// Fiber side: switch back to the scheduler; returns at the next resume().
  void yield();
  /// Fiber side, last call of the entry: switch back for good (the stack may then be reused).
  [[noreturn]] void exit_to_scheduler();

  std::size_t stack_bytes() const { return stack_bytes_; }
  /// Default stack size: 64 KiB, or 512 KiB when built with AddressSanitizer (bigger frames).
  static std::size_t default_stack_bytes();

 private:
  static void fiber_main(void* self);  // first frame on the fiber stack (fiber.cpp)
  // Fiber side: the switch to the scheduler that yield() and exit_to_scheduler() share;
  // `fake_stack` receives AddressSanitizer's fake stack of this fiber (nullptr: released).
  void switch_to_scheduler(void** fake_stack);
  Entry entry_ = nullptr;
  void* arg_ = nullptr;
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  void* stack_low_ = nullptr;   // lowest usable address (just above the guard page)
  std::size_t stack_bytes_ = 0;
  void* fiber_sp_ = nullptr;    // saved stack pointer of the suspended fiber
  void* sched_sp_ = nullptr;    // saved stack pointer of the suspended scheduler
  void* ucontexts_ = nullptr;   // fallback only: two ucontext_t
  // AddressSanitizer bookkeeping (unused otherwise).
  void* fake_stack_sched_ = nullptr;
  void* fake_stack_fiber_ = nullptr;
  const void* sched_stack_low_ = nullptr;
  std::size_t sched_stack_bytes_ = 0;
};

}  // namespace mxv::emu
