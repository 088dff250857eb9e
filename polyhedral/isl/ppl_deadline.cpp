// A wall-clock limit on PPL's computations through abandon_expensive_computations.
#include "polyhedral/isl/ppl_deadline.h"

#include "polyhedral/isl/isl_context.h"

#include <ppl.hh>

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

PplDeadline::PplDeadline(double seconds)
    : hook_(seconds > 0 ? std::make_unique<Abandon>(seconds) : nullptr),
      watchdog_(seconds, [this] { Parma_Polyhedra_Library::abandon_expensive_computations = hook_.get(); }) {}

PplDeadline::~PplDeadline() {
  // PPL may read the pointer until here; `hook_` lives until the pointer is cleared.
  watchdog_.stop();
  if (watchdog_.expired()) Parma_Polyhedra_Library::abandon_expensive_computations = nullptr;
}

}  // namespace atl::poly
