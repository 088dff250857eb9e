// A wall-clock limit on PPL's computations through abandon_expensive_computations.
#include "polyhedral/isl/ppl_deadline.h"

#include "polyhedral/isl/isl_context.h"

#include <ppl.hh>

#include <chrono>

namespace atl::poly {

namespace {

/// PPL's hook object: its throw_me is called at PPL's next check.
class Abandon : public Parma_Polyhedra_Library::Throwable {
public:
  explicit Abandon(double seconds) : what_(time_limit_reason(seconds)) {}
  void throw_me() const override { throw PplTimeout(what_); }

private:
  std::string what_;
};

}  // namespace

PplDeadline::PplDeadline(double seconds) {
  if (seconds <= 0) return;
  watchdog_ = std::thread([this, seconds] {
    const Abandon abandon(seconds);
    std::unique_lock<std::mutex> lock(mutex_);
    if (!done_cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) {
      expired_ = true;
      Parma_Polyhedra_Library::abandon_expensive_computations = &abandon;
      // PPL may read the pointer until the owner is done: `abandon` must live until then.
      done_cv_.wait(lock, [this] { return done_; });
      Parma_Polyhedra_Library::abandon_expensive_computations = nullptr;
    }
  });
}

PplDeadline::~PplDeadline() {
  if (!watchdog_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  done_cv_.notify_one();
  watchdog_.join();
}

}  // namespace atl::poly
