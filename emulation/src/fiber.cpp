// Fiber stacks and context switches (see fiber.h for the why; docs/design.md section 4.1).
// x86-64 System V: the switch saves rbp, rbx, r12-r15 (callee-saved), MXCSR and the x87 control
// word on the old stack, stores the old stack pointer, loads the new one and restores the same set.
// Everything else is caller-saved, so the C++ caller of the switch has already spilled it.
#include "mxv/emulation/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#define MXV_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MXV_EMU_ASAN 1
#endif
#endif
#ifndef MXV_EMU_ASAN
#define MXV_EMU_ASAN 0
#endif

#if MXV_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__) && !defined(MXV_EMU_FORCE_UCONTEXT)
#define MXV_EMU_ASM_SWITCH 1
#else
#define MXV_EMU_ASM_SWITCH 0
#include <ucontext.h>
#endif

#if MXV_EMU_ASM_SWITCH
extern "C" {
// void mxv_emu_switch_context(void** save_sp, void* load_sp)
void mxv_emu_switch_context(void** save_sp, void* load_sp);
// First instructions of a new fiber: r12 holds the argument, r13 the function to call.
void mxv_emu_fiber_trampoline();
}

asm(R"(
  .text
  .p2align 4
  .globl mxv_emu_switch_context
  .hidden mxv_emu_switch_context
  .type mxv_emu_switch_context, @function
mxv_emu_switch_context:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size mxv_emu_switch_context, .-mxv_emu_switch_context

  .p2align 4
  .globl mxv_emu_fiber_trampoline
  .hidden mxv_emu_fiber_trampoline
  .type mxv_emu_fiber_trampoline, @function
mxv_emu_fiber_trampoline:
  .cfi_startproc
  .cfi_undefined rip
  movq %r12, %rdi
  callq *%r13
  ud2
  .cfi_endproc
  .size mxv_emu_fiber_trampoline, .-mxv_emu_fiber_trampoline
)");
#endif

namespace mxv::emu {
namespace {

std::size_t page_bytes() {
  static const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return kPage;
}

#if !MXV_EMU_ASM_SWITCH
struct UcontextPair {
  ucontext_t scheduler;
  ucontext_t fiber;
};
// makecontext passes int arguments only; the fiber being started is handed over here instead.
thread_local void* g_starting_fiber = nullptr;
#endif

}  // namespace

std::size_t Fiber::default_stack_bytes() { return MXV_EMU_ASAN ? 512 * 1024 : 64 * 1024; }

Fiber::Fiber(std::size_t stack_bytes) {
  const std::size_t page = page_bytes();
  if (stack_bytes < 4 * page) stack_bytes = 4 * page;
  stack_bytes_ = (stack_bytes + page - 1) / page * page;
  mapping_bytes_ = stack_bytes_ + page;
  // MAP_NORESERVE: stacks are mostly untouched; pages appear on first use.
  void* m = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  mapping_ = m;
  // The guard page sits below the stack (stacks grow down): an overflow faults there.
  if (mprotect(m, page, PROT_NONE) != 0) {
    munmap(m, mapping_bytes_);
    throw std::runtime_error("Fiber: mprotect of the guard page failed");
  }
  stack_low_ = static_cast<char*>(m) + page;
#if !MXV_EMU_ASM_SWITCH
  ucontexts_ = new UcontextPair{};
#endif
}

Fiber::~Fiber() {
#if !MXV_EMU_ASM_SWITCH
  delete static_cast<UcontextPair*>(ucontexts_);
#endif
  if (mapping_ != nullptr) munmap(mapping_, mapping_bytes_);
}

void Fiber::fiber_main(void* self_arg) {
#if !MXV_EMU_ASM_SWITCH
  if (self_arg == nullptr) self_arg = g_starting_fiber;
#endif
  auto* self = static_cast<Fiber*>(self_arg);
#if MXV_EMU_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &self->sched_stack_low_, &self->sched_stack_bytes_);
#endif
  self->entry_(self->arg_);
  // The entry must end with exit_to_scheduler(); returning here has no frame to return to.
  std::abort();
}

void Fiber::prepare(Entry entry, void* arg) {
  entry_ = entry;
  arg_ = arg;
#if MXV_EMU_ASAN
  // Frames of the previous run may have left poisoned red zones on this stack.
  __asan_unpoison_memory_region(stack_low_, stack_bytes_);
#endif
#if MXV_EMU_ASM_SWITCH
  auto* top = reinterpret_cast<std::uintptr_t*>(static_cast<char*>(stack_low_) + stack_bytes_);
  std::uint32_t mxcsr = 0;
  std::uint16_t fpcw = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpcw));
  // The frame mxv_emu_switch_context pops, highest address first: return address (trampoline),
  // rbp, rbx, r12 (argument), r13 (function), r14, r15, then MXCSR and x87 control word. After the
  // `ret` the stack pointer equals `top` (16-byte aligned), so the trampoline's call leaves
  // fiber_main with the ABI's entry alignment.
  std::uintptr_t* sp = top;
  *--sp = reinterpret_cast<std::uintptr_t>(&mxv_emu_fiber_trampoline);
  *--sp = 0;                                         // rbp
  *--sp = 0;                                         // rbx
  *--sp = reinterpret_cast<std::uintptr_t>(this);    // r12
  *--sp = reinterpret_cast<std::uintptr_t>(&Fiber::fiber_main);  // r13
  *--sp = 0;                                         // r14
  *--sp = 0;                                         // r15
  *--sp = static_cast<std::uintptr_t>(mxcsr) | (static_cast<std::uintptr_t>(fpcw) << 32);
  fiber_sp_ = sp;
#else
  auto* u = static_cast<UcontextPair*>(ucontexts_);
  getcontext(&u->fiber);
  u->fiber.uc_stack.ss_sp = stack_low_;
  u->fiber.uc_stack.ss_size = stack_bytes_;
  u->fiber.uc_link = nullptr;
  makecontext(&u->fiber, +[]() { fiber_main(nullptr); }, 0);
  fiber_sp_ = nullptr;  // marks "not yet started" for resume()
#endif
}

void Fiber::resume() {
#if MXV_EMU_ASAN
  __sanitizer_start_switch_fiber(&fake_stack_sched_, stack_low_, stack_bytes_);
#endif
#if MXV_EMU_ASM_SWITCH
  mxv_emu_switch_context(&sched_sp_, fiber_sp_);
#else
  if (fiber_sp_ == nullptr) {
    g_starting_fiber = this;
    fiber_sp_ = this;
  }
  auto* u = static_cast<UcontextPair*>(ucontexts_);
  swapcontext(&u->scheduler, &u->fiber);
#endif
#if MXV_EMU_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_sched_, nullptr, nullptr);
#endif
}

inline void Fiber::switch_to_scheduler(void** fake_stack) {
#if MXV_EMU_ASAN
  __sanitizer_start_switch_fiber(fake_stack, sched_stack_low_, sched_stack_bytes_);
#else
  (void)fake_stack;
#endif
#if MXV_EMU_ASM_SWITCH
  mxv_emu_switch_context(&fiber_sp_, sched_sp_);
#else
  auto* u = static_cast<UcontextPair*>(ucontexts_);
  swapcontext(&u->fiber, &u->scheduler);
#endif
}

void Fiber::yield() {
  switch_to_scheduler(&fake_stack_fiber_);
#if MXV_EMU_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_fiber_, &sched_stack_low_, &sched_stack_bytes_);
#endif
}

void Fiber::exit_to_scheduler() {
  // nullptr: this fiber's fake stack is released, its frames are gone for good.
  switch_to_scheduler(nullptr);
  std::abort();  // never resumed without prepare()
}

}  // namespace mxv::emu
