// A "host compiler" embedding Atoll through the C++ module API alone
// (<atoll/module.h>): it lowers its own layer, y = Relu(x @ w + b), to a graph
// built in code (atl::GraphBuilder), compiles it once, and calls the module from two
// threads, each on its own buffers, checking every result against a plain
// loop. Exits non-zero on any mismatch or error.
#include <atoll/module.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

/// The host's own IR of a dense layer.
struct DenseLayer {
  std::string name;
  int in = 0, out = 0;       // features
  int max_batch = 0;         // the batch is a symbolic dimension 1..max_batch
  std::vector<float> bias;   // baked into the module (inline data)
};

/// The layer as a graph object (batch-format.md): MatMul, bias Add, Relu.
/// x [N, in] and w [in, out] are the caller's buffers; b is the module's own.
/// Lowers the host's layer to an Atoll graph, built in code: the batch is
/// the symbolic dimension N, the bias the module's own data.
atl::GraphBuilder to_graph(const DenseLayer &l) {
  atl::GraphBuilder g(l.name);
  g.add_param("N", 1, l.max_batch);
  g.add_input("x", {atl::DType::F32, {atl::Dim::sym("N"), l.in}});
  g.add_weight("w", {atl::DType::F32, {l.in, l.out}});
  g.add_weight_data("b", {atl::DType::F32, {l.out}}, std::vector<double>(l.bias.begin(), l.bias.end()));
  g.add_node("MatMul", {"x", "w"}, {"h"}, {}, "matmul");
  g.add_node("Add", {"h", "b"}, {"a"}, {}, "bias");
  g.add_node("Relu", {"a"}, {"y"}, {}, "relu");
  g.add_output("y");
  g.finalize();
  return g;
}

std::vector<float> reference(const DenseLayer &l, const std::vector<float> &x, const std::vector<float> &w, int n) {
  std::vector<float> y(static_cast<std::size_t>(n * l.out));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < l.out; ++j) {
      float s = 0;
      for (int k = 0; k < l.in; ++k)
        s += x[static_cast<std::size_t>(i * l.in + k)] * w[static_cast<std::size_t>(k * l.out + j)];
      s += l.bias[static_cast<std::size_t>(j)];
      y[static_cast<std::size_t>(i * l.out + j)] = s > 0 ? s : 0;
    }
  return y;
}

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (float &x : v) {
    seed = seed * 1103515245u + 12345u;
    x = static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f;
  }
  return v;
}

/// Elements that differ from the reference beyond float rounding.
int mismatches(const std::vector<float> &got, const std::vector<float> &want) {
  int bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-4f * (1.0f + std::fabs(want[i]))) ++bad;
  return bad;
}

}  // namespace

int main() {
  DenseLayer layer{"host_dense", 64, 32, 128, {}};
  for (int j = 0; j < layer.out; ++j) layer.bias.push_back(0.01f * static_cast<float>(j % 7) - 0.03f);
  const int batch = 24;

  atl::Module module;
  try {
    atl::ModuleOptions options;  // target "cpu": the LLVM JIT
    options.params = {{"N", batch}};
    module = atl::compile(to_graph(layer), options);
  } catch (const atl::UserError &e) {
    std::fprintf(stderr, "host_compiler: %s\n", e.what());
    return 1;
  }
  std::printf("compiled %s: %zu kernel(s), inputs", module.name().c_str(), module.num_kernels());
  for (const std::string &t : module.inputs()) std::printf(" %s", t.c_str());
  std::printf(", y is %s[%lld, %lld]\n", module.dtype("y").c_str(), static_cast<long long>(module.shape("y")[0]),
              static_cast<long long>(module.shape("y")[1]));

  // A wrong call is an error, not a crash.
  try {
    module.run({{"x", nullptr}}, {});
    std::fprintf(stderr, "host_compiler: a call without buffers ran\n");
    return 1;
  } catch (const atl::UserError &e) {
    std::printf("rejected as expected: %s\n", e.what());
  }

  // One module, two threads, each with its own buffers and many calls.
  const std::vector<float> w = random_values(static_cast<std::size_t>(layer.in * layer.out), 7);
  int bad[2] = {0, 0};
  std::string errors[2];
  auto worker = [&](int t) {
    try {
      for (int call = 0; call < 20; ++call) {
        std::vector<float> x = random_values(static_cast<std::size_t>(batch * layer.in), 1000u * (t + 1) + call);
        std::vector<float> y(static_cast<std::size_t>(batch * layer.out), -1.0f);
        module.run({{"x", x.data()}, {"w", w.data()}}, {{"y", y.data()}});
        bad[t] += mismatches(y, reference(layer, x, w, batch));
      }
    } catch (const std::exception &e) {
      errors[t] = e.what();
    }
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  int status = 0;
  for (int t = 0; t < 2; ++t) {
    if (!errors[t].empty()) {
      std::fprintf(stderr, "thread %d: %s\n", t, errors[t].c_str());
      status = 1;
    } else if (bad[t] != 0) {
      std::fprintf(stderr, "thread %d: %d element(s) differ from the reference loop\n", t, bad[t]);
      status = 1;
    } else {
      std::printf("thread %d: 20 calls match the reference loop\n", t);
    }
  }
  return status;
}
