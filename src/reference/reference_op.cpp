// Dispatches one node to the reference implementation of its operator.
#include "src/reference/reference_op.h"

#include "src/reference/reference_internal.h"

#include <map>
#include <string>

namespace atl::reference {

namespace {

using detail::OpFn;

const std::map<std::string, OpFn> &op_map() {
  static const std::map<std::string, OpFn> table = [] {
    std::map<std::string, OpFn> m;
    for (const detail::OpTable *family :
         {&detail::elementwise_ops(), &detail::linalg_ops(), &detail::conv_ops(), &detail::pool_ops(),
          &detail::normalization_ops(), &detail::reduce_ops(), &detail::movement_ops(), &detail::resize_ops()})
      for (const auto &[name, fn] : *family) {
        bool fresh = m.emplace(name, fn).second;
        ATOLL_ASSERT(fresh, std::string("reference operator registered twice: ") + name);
      }
    return m;
  }();
  return table;
}

}  // namespace

bool has_reference_op(const std::string &op) { return op_map().count(op) != 0; }

std::vector<Tensor> reference_op(const Node &node, const std::vector<const Tensor *> &inputs,
                                 const std::vector<TensorType> &outputs) {
  detail::OpArgs args(node, inputs, outputs);
  auto it = op_map().find(node.op);
  if (it == op_map().end()) args.fail("the reference interpreter has no implementation of this operator");
  std::vector<Tensor> result = it->second(args);
  ATOLL_ASSERT(result.size() == outputs.size(),
               node.op + ": reference produced " + std::to_string(result.size()) + " outputs for " +
                   std::to_string(outputs.size()) + " declared");
  return result;
}

}  // namespace atl::reference
