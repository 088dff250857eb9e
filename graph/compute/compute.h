// The Compute tensor-comprehension language: entry points for parsing,
// semantic analysis (index ranges, shapes, affinity, bounds) and direct
// evaluation. The AST itself is in ast.h.
#pragma once

#include <atoll/dtype.h>
#include <atoll/tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace atl::compute {

struct Program;  // ast.h

/// Parses Compute source (one statement per line; see batch-format.md).
/// Throws atl::UserError whose Location has line and column inside `text`.
std::shared_ptr<const Program> parse(std::string_view text);

/// Role of a tensor named in a program.
enum class TensorRole { Input, Output, Temporary };

struct TensorUse {
  TensorRole role;
  DType dtype;
  Shape shape;
};

/// Result of semantic analysis against concrete shapes and parameter values.
struct Analysis {
  struct Index {
    std::string name;
    std::int64_t lo = 0, hi = 0;  ///< half-open range
    bool reduction = false;       ///< appears on the right only
  };
  struct Statement {
    std::string name;             ///< NODE_k, or NODE_k_init for an op=! initialisation
    std::vector<Index> indices;   ///< loop-nest order: lhs indices, then reduction indices
    int source = -1;              ///< position of the statement in Program::statements
    bool init = false;            ///< the identity initialisation of an op=! statement
  };
  std::vector<Statement> statements;
  std::map<std::string, TensorUse> tensors;  ///< every tensor the program names
  std::map<std::string, std::int64_t> params;  ///< parameter values analysis used
};

/// What analysis is given.
struct Signature {
  std::string node = "n0";                          ///< prefix of statement names
  std::map<std::string, TensorUse> inputs;          ///< role Input; shapes concrete
  std::vector<std::string> outputs;                 ///< names written that leave the node
  std::map<std::string, Shape> output_shapes;       ///< known output shapes (may be empty)
  std::map<std::string, std::int64_t> params;       ///< values of symbolic dimensions
};

/// Resolves index ranges, infers output and temporary shapes and dtypes,
/// and checks that subscripts are quasi-affine (or indirect) and stay in
/// bounds. Throws atl::UserError (line/column where the problem is).
/// A tensor that is neither an input nor an output but is written is a
/// temporary. Reading an output or temporary before a statement writes it is
/// allowed: both start at zero. A read of any other unknown name is an error.
Analysis analyze(const Program &program, const Signature &signature);

/// Runs the statements in order with the batch format's semantics and
/// returns the outputs (and temporaries, which callers may ignore). Outputs
/// and temporaries start at zero, so a statement may read one before any
/// statement writes it. Every store rounds to the destination's dtype.
/// `inputs` must hold every input the program reads, with the analysed
/// shapes; `params`, when given, must agree with the values analysis used.
/// Throws atl::UserError for an indirect subscript whose run-time value is
/// not an integer inside the tensor's extent.
std::map<std::string, Tensor> evaluate(const Program &program, const Analysis &analysis,
                                       const std::map<std::string, const Tensor *> &inputs,
                                       const std::map<std::string, std::int64_t> &params = {});

}  // namespace atl::compute
