#include "core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <cstdint>

namespace assay {

namespace {

// One slot per child group alive: the group id and its signal packed into one atomic word, so
// that the handler never sees a group without its signal. 0: a free slot.
constexpr int kSlots = 256;
std::atomic<std::int64_t> g_slots[kSlots];
std::atomic<int> g_interrupt{0};
std::atomic<bool> g_exit_at_once{false};

std::int64_t pack(pid_t pgid, int sig) { return (static_cast<std::int64_t>(pgid) << 8) | (sig & 0xff); }

void on_signal(int sig) {
  if (g_exit_at_once.load()) ::_exit(128 + sig);  // nothing written yet, nothing to save
  int none = 0;
  g_interrupt.compare_exchange_strong(none, sig);
  for (auto& slot : g_slots)
    if (const std::int64_t v = slot.load(); v != 0) ::kill(-static_cast<pid_t>(v >> 8), static_cast<int>(v & 0xff));
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  // A closed terminal or ssh session (SIGHUP) ends a run as SIGTERM does, with its document
  // finished; unless the hangup is ignored (nohup), which stays so.
  struct sigaction old {};
  if (::sigaction(SIGHUP, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) ::sigaction(SIGHUP, &sa, nullptr);
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

int interrupt_signal() { return g_interrupt.load(); }

ExitAtOnceOnInterrupt::ExitAtOnceOnInterrupt() {
  if (const int sig = g_interrupt.load()) ::_exit(128 + sig);
  g_exit_at_once.store(true);
}

ExitAtOnceOnInterrupt::~ExitAtOnceOnInterrupt() { g_exit_at_once.store(false); }

void register_child_group(pid_t pgid, int signal_on_interrupt) {
  const std::int64_t v = pack(pgid, signal_on_interrupt);
  for (auto& slot : g_slots) {
    std::int64_t free = 0;
    if (slot.compare_exchange_strong(free, v)) break;
  }
  // An interruption that came before the registration: the child is signalled here instead.
  if (g_interrupt.load() != 0) ::kill(-pgid, signal_on_interrupt);
}

void unregister_child_group(pid_t pgid) {
  for (auto& slot : g_slots) {
    std::int64_t v = slot.load();
    if (v != 0 && (v >> 8) == pgid && slot.compare_exchange_strong(v, 0)) return;
  }
}

}  // namespace assay
