// Atoll's polyhedral layer for another compiler that has its own SCoP: hand
// Atoll the SCoP as isl strings (domains, access maps) plus statement
// bodies, read its dependences and schedule trees, give it a schedule tree
// of your own (checked against every dependence), then generate code for
// it and run it on buffers the caller owns. Reference: docs/api.md, "The
// SCoP-level API"; example: samples/api/scop_from_isl.cpp.
//
// This header needs only the standard library, <atoll/diagnostics.h>
// (atl::UserError) and <atoll/dtype.h> (atl::DType): no isl, Boost,
// nlohmann or LLVM type appears in it. Schedule trees are isl's YAML text
// (what isl_schedule_to_str prints and isl_schedule_read_from_str reads).
//
// Errors: everything the caller gets wrong (isl text that does not parse, an
// access to an array the SCoP does not declare, a body that does not match
// its maps, a tree for other statements, an illegal tree, an unknown
// scheduler or target, a wrong, missing or null buffer, a missing parameter)
// is an atl::UserError whose what() names it; nothing the caller passes
// makes Atoll crash.
#pragma once

#include <atoll/diagnostics.h>
#include <atoll/dtype.h>

#include <concepts>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace atl {

/// One extent of a SCoP array: a positive constant, or the name of an isl
/// parameter of the SCoP ("N"). Converts from integers and strings, so a
/// shape reads `{4, 6}` or `{"N", 8}`.
struct ScopExtent {
  std::int64_t value = 0;  ///< the constant (when `param` is empty)
  std::string param;       ///< the parameter's name, or "" for a constant

  ScopExtent() = default;
  template <std::integral I>
  ScopExtent(I v) : value(static_cast<std::int64_t>(v)) {}  // NOLINT: implicit, for shape lists
  ScopExtent(const char *name) : param(name ? name : "") {}  // NOLINT
  ScopExtent(std::string name) : param(std::move(name)) {}   // NOLINT
  bool is_param() const { return !param.empty(); }
};

/// What an array is to the SCoP.
enum class ScopRole {
  Input,      ///< read only: the caller fills it
  Output,     ///< written (and maybe read): the caller reads it after a run
  Temporary,  ///< local to the SCoP: starts zero-filled; run() allocates it when the caller gives none
};

/// An array of a SCoP: dense, row-major, of `dtype` elements.
struct ScopArray {
  std::string name;  ///< a C identifier: the isl tuple name in access maps and the name in bodies
  DType dtype = DType::F32;
  std::vector<ScopExtent> shape;
  ScopRole role = ScopRole::Input;
};

/// The assignment operator of a statement whose body is only a right-hand side.
enum class ScopAssign {
  Assign,  ///< =
  Add,     ///< +=
  Mul,     ///< *=
  Max,     ///< max=
  Min,     ///< min=
};

/// One statement of a SCoP, in original execution order.
struct ScopStatement {
  std::string domain;              ///< isl set "[N] -> { S[i, j] : ... }"; its tuple names the statement
  std::string write;               ///< isl map "{ S[i, j] -> C[i, j] }" (one element per instance, affine)
  std::vector<std::string> reads;  ///< isl maps, in the order the body reads its arrays
  /// Either a full statement in Compute syntax, "C(i, j) += A(i, k) * B(k, j)"
  /// (its reads in the order of `reads`, its left-hand side the array of
  /// `write`), or only the right-hand side "A(i, k) * B(k, j)": the
  /// left-hand side then comes from `write` and the operator is `op`. Index
  /// names are the domain's dimension names; parameters are isl parameters.
  std::string body;
  ScopAssign op = ScopAssign::Assign;  ///< for a right-hand-side body
};

/// A whole SCoP.
struct ScopDescription {
  std::string name = "scop";  ///< the kernel's name (made a C identifier)
  std::string context;        ///< isl parameter set "[N] -> { : 1 <= N <= 64 }" ("" = none)
  std::vector<ScopArray> arrays;
  std::vector<ScopStatement> statements;
};

/// A dependence a schedule tree violates.
struct ScheduleViolation {
  std::string kind;      ///< "flow", "anti", "output" or "reduction-order"
  std::string source;    ///< statement name
  std::string target;    ///< statement name
  std::string relation;  ///< the dependence relation from source to target (isl text)
  int dimension = 0;     ///< first dimension of the flattened schedule where the target runs
                         ///< before the source; the number of dimensions when both run at once
  bool simultaneous = false;  ///< source and target instances get the same time
  std::string message;        ///< one sentence saying all of the above
};

/// A schedule tree refused because it violates dependences: what() names
/// the first one, violations() lists every one (ScopProgram::violations).
class IllegalScheduleError : public UserError {
public:
  explicit IllegalScheduleError(std::vector<ScheduleViolation> violations);
  const std::vector<ScheduleViolation> &violations() const { return violations_; }

private:
  std::vector<ScheduleViolation> violations_;
};

/// A schedule tree made by one of Atoll's schedulers.
struct ScopSchedule {
  std::string tree;                    ///< isl YAML
  std::string algorithm;               ///< what made it: "isl", "isl-serialize-sccs", "feautrier", "pluto", "original"
  std::vector<std::string> fallbacks;  ///< one line per fallback the scheduler took (empty when none)
};

class ScopKernel;

/// A SCoP read from its description, with its dependences (computed once,
/// at construction, against the original order; reductions may be
/// re-associated, so a tree may reorder a reduction loop).
///
/// Threads: each ScopProgram owns its own isl context, so different objects
/// may be used from different threads at once. One object is NOT
/// thread-safe: call its methods (const ones included: they all work in
/// its isl context) from one thread at a time. The ScopKernels it compiles
/// are independent of it (they outlive it and may be run from any thread).
class ScopProgram {
public:
  /// Reads and checks the SCoP and computes its dependences. Every problem
  /// is a UserError naming the statement, array or field: isl text that
  /// does not parse, an access to an unknown array or of the wrong rank, an
  /// out-of-bounds write, a body that does not match its maps.
  explicit ScopProgram(const ScopDescription &description);
  /// Moving leaves the source empty: every call on it is then a UserError.
  ~ScopProgram();
  ScopProgram(ScopProgram &&) noexcept;
  ScopProgram &operator=(ScopProgram &&) noexcept;
  ScopProgram(const ScopProgram &) = delete;
  ScopProgram &operator=(const ScopProgram &) = delete;

  /// The kernel's name (the description's, made a C identifier).
  const std::string &name() const;
  /// The isl parameters, sorted: run() needs a value for each.
  const std::vector<std::string> &params() const;
  /// The statement names, in original execution order.
  const std::vector<std::string> &statements() const;

  /// The SCoP as `atoll explain --stage scop` prints it: parameters, arrays,
  /// then per statement its domain, accesses and body.
  std::string scop_text() const;
  /// The dependences as `atoll explain --stage deps` prints them.
  std::string dependences_text() const;

  /// The original order as a schedule tree: the statements in sequence,
  /// each a band over its indices.
  std::string original_tree() const;
  /// The tree of one of Atoll's schedulers: "isl" (isl's scheduler, with a
  /// fallback ladder), "feautrier", "pluto" (the Pluto-style scheduler on PPL)
  /// or "original". Another name is a UserError.
  ScopSchedule schedule(const std::string &scheduler = "isl") const;

  /// Every dependence `tree` violates (one per kind and pair of statements:
  /// by kind, then source and target in statement order); empty when the
  /// tree is legal. A tree that is not isl YAML, or that does not schedule
  /// exactly the SCoP's statement instances, is a UserError.
  std::vector<ScheduleViolation> violations(const std::string &tree) const;

  /// Generates the kernel of `tree` for `target`: "cpu" (LLVM, compiled
  /// in-process by LLVM's JIT) or "cpu-c" (C99 built by the system C
  /// compiler and loaded as a shared object). The tree is checked first as
  /// violations() does: an illegal tree is an IllegalScheduleError listing
  /// every violation; a tree for other instances, another target, a UserError.
  ScopKernel compile(const std::string &tree, const std::string &target = "cpu") const;

private:
  struct Impl;
  const Impl &impl(const char *what) const;
  std::unique_ptr<Impl> impl_;
};

/// The code of one schedule tree of a SCoP, ready to run. Copies share the
/// same code (a ScopKernel is a handle). A ScopKernel is read-only: run() and
/// the queries may be called from several threads at once.
class ScopKernel {
public:
  /// An empty kernel (not compiled): every call but name() is a UserError.
  ScopKernel();

  const std::string &name() const;
  /// "cpu" or "cpu-c".
  const std::string &target() const;
  /// Every array of the SCoP, in the kernel's call order (inputs, outputs,
  /// then temporaries).
  const std::vector<ScopArray> &arrays() const;
  /// The isl parameters, sorted (the kernel's integer arguments, in this order).
  const std::vector<std::string> &params() const;
  /// An array's extents at the parameters' values; a UserError for a name
  /// that is not an array, or a missing parameter.
  std::vector<std::int64_t> shape(const std::string &array,
                                  const std::map<std::string, std::int64_t> &params = {}) const;
  /// Bytes of its buffer: elements times the dtype's size.
  std::int64_t bytes(const std::string &array, const std::map<std::string, std::int64_t> &params = {}) const;

  /// The loop AST, as `atoll explain --stage ast` prints it (pseudo-C with
  /// parallel, vector and reduction marks).
  std::string loop_ast() const;
  /// The kernel as C99 (what the cpu-c target builds).
  std::string c_source() const;
  /// The kernel as LLVM IR, as lowered (before LLVM's optimizations).
  std::string llvm_ir() const;

  /// Runs the kernel once on the caller's buffers: `arrays` maps every
  /// input and output (and optionally temporaries) by name to its dense
  /// row-major buffer of bytes(name) bytes (f32 = float, f16 and bf16 =
  /// uint16_t bits, i8 = int8_t, i32 = int32_t, i64 = int64_t, bool = uint8_t
  /// 0 or 1); `params` gives a value to every parameter. A temporary the
  /// caller does not give gets a zero-filled buffer of this call. Inputs are
  /// only read. A name that is not an array, a missing input or output, a
  /// null pointer, a missing or unknown parameter, or parameter values
  /// outside the SCoP's context are UserErrors naming it; then nothing ran.
  /// Rounding is round-to-nearest during the call.
  void run(const std::map<std::string, void *> &arrays, const std::map<std::string, std::int64_t> &params = {}) const;

private:
  struct Impl;
  explicit ScopKernel(std::shared_ptr<const Impl> impl);
  friend class ScopProgram;
  const Impl &impl(const char *what) const;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace atl
