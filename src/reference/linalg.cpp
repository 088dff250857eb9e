// Reference MatMul (numpy matmul with batch broadcasting) and Gemm.
#include "src/reference/reference_internal.h"

namespace atl::reference::detail {

namespace {

/// C[M,N] = sum_k A[M,K] * B[K,N] for one batch, A and B row-major at offsets.
void matmul_block(const Tensor &A, std::int64_t offA, const Tensor &B, std::int64_t offB, std::int64_t M,
                  std::int64_t K, std::int64_t N, std::vector<double> &acc) {
  acc.assign(static_cast<std::size_t>(M * N), 0.0);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t k = 0; k < K; ++k) {
      double aik = A.get(offA + i * K + k);
      const double *brow = B.data.data() + offB + k * N;
      double *crow = acc.data() + i * N;
      for (std::int64_t j = 0; j < N; ++j) crow[j] += aik * brow[j];
    }
}

std::vector<Tensor> op_matmul(const OpArgs &a) {
  const Tensor &A = a.input(0), &B = a.input(1);
  if (A.rank() == 0 || B.rank() == 0) a.fail("operands must have rank 1 or more (rank-0 operands are not allowed)");
  // numpy: a 1-D A is [1, K] and a 1-D B is [K, 1]; the added dim is removed after.
  Shape sa = A.shape, sb = B.shape;
  bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  std::int64_t M = sa[sa.size() - 2], K = sa.back(), N = sb.back();
  if (sb[sb.size() - 2] != K)
    a.fail("inner dimensions differ: " + shape_to_string(A.shape) + " x " + shape_to_string(B.shape));
  Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  Shape batch = broadcast_shapes(a, {batch_a, batch_b});
  Shape out_shape = batch;
  if (!a_vec) out_shape.push_back(M);
  if (!b_vec) out_shape.push_back(N);
  Tensor out = a.make_output(0, out_shape);

  std::vector<std::int64_t> stride_a = broadcast_strides(batch_a, batch), stride_b = broadcast_strides(batch_b, batch);
  std::vector<std::int64_t> index(batch.size(), 0);
  std::int64_t nbatch = shape_numel(batch);
  std::vector<double> acc;
  for (std::int64_t b = 0; b < nbatch; ++b) {
    std::int64_t ia = 0, ib = 0;
    for (std::size_t d = 0; d < batch.size(); ++d) {
      ia += index[d] * stride_a[d];
      ib += index[d] * stride_b[d];
    }
    matmul_block(A, ia * M * K, B, ib * K * N, M, K, N, acc);
    for (std::int64_t e = 0; e < M * N; ++e) out.set(b * M * N + e, acc[static_cast<std::size_t>(e)]);
    next_index(index, batch);
  }
  return {std::move(out)};
}

std::vector<Tensor> op_gemm(const OpArgs &a) {
  const Tensor &A = a.input(0), &B = a.input(1);
  const Tensor *C = a.optional_input(2);
  if (A.rank() != 2 || B.rank() != 2)
    a.fail("A and B must be 2-D, got " + shape_to_string(A.shape) + " and " + shape_to_string(B.shape));
  double alpha = a.attr_float("alpha", 1.0), beta = a.attr_float("beta", 1.0);
  bool ta = a.attr_int("transA", 0) != 0, tb = a.attr_int("transB", 0) != 0;
  std::int64_t M = ta ? A.shape[1] : A.shape[0], K = ta ? A.shape[0] : A.shape[1];
  std::int64_t KB = tb ? B.shape[1] : B.shape[0], N = tb ? B.shape[0] : B.shape[1];
  if (K != KB)
    a.fail("inner dimensions differ: A " + shape_to_string(A.shape) + (ta ? " (transposed)" : "") + ", B " +
           shape_to_string(B.shape) + (tb ? " (transposed)" : ""));
  Shape out_shape{M, N};
  std::vector<std::int64_t> c_strides;
  if (C) {
    if (C->rank() > 2 || broadcast_shapes(a, {C->shape, out_shape}) != out_shape)
      a.fail("C of shape " + shape_to_string(C->shape) + " does not broadcast to " + shape_to_string(out_shape));
    c_strides = broadcast_strides(C->shape, out_shape);
  }
  Tensor out = a.make_output(0, out_shape);
  auto a_at = [&](std::int64_t i, std::int64_t k) { return ta ? A.get(k * M + i) : A.get(i * K + k); };
  auto b_at = [&](std::int64_t k, std::int64_t j) { return tb ? B.get(j * K + k) : B.get(k * N + j); };
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      double sum = 0;
      for (std::int64_t k = 0; k < K; ++k) sum += a_at(i, k) * b_at(k, j);
      double y = alpha * sum;
      if (C) y += beta * C->get(i * c_strides[0] + j * c_strides[1]);
      out.set(i * N + j, y);
    }
  return {std::move(out)};
}

}  // namespace

const OpTable &linalg_ops() {
  static const OpTable table = {{"MatMul", op_matmul}, {"Gemm", op_gemm}};
  return table;
}

}  // namespace atl::reference::detail
