/* C API example (include/atoll/atoll.h, docs/c-api.md): compile a graph from
 * a JSON string (Gemm -> Relu, a symbolic batch N), run it on our buffers,
 * print the result and the kernel's loop AST. */
#include <atoll/atoll.h>

#include <stdio.h>

static const char *graph =
    "{\"name\": \"dense_relu\","
    " \"params\": {\"N\": {\"min\": 1, \"max\": 32}},"
    " \"inputs\": [{\"name\": \"x\", \"shape\": [\"N\", 3]}],"
    " \"weights\": [{\"name\": \"w\", \"shape\": [2, 3], \"data\": [[1, 0, -1], [0.5, 0.5, 0.5]]},"
    "             {\"name\": \"b\", \"shape\": [2], \"data\": [0, -1]}],"
    " \"outputs\": [\"y\"],"
    " \"nodes\": [{\"op\": \"Gemm\", \"inputs\": [\"x\", \"w\", \"b\"], \"outputs\": [\"h\"], \"attrs\": {\"transB\": 1}},"
    "           {\"op\": \"Relu\", \"inputs\": [\"h\"], \"outputs\": [\"y\"]}]}";

int main(void) {
  char *error = NULL;
  atoll_module *m = atoll_compile_json(graph, "{\"target\": \"cpu\", \"threads\": 1, \"params\": {\"N\": 2}}", &error);
  if (!m) {
    fprintf(stderr, "compile failed: %s\n", error);
    atoll_string_free(error);
    return 1;
  }

  float x[2][3] = {{1, 2, 3}, {-1, 0, 4}};
  float y[2][2];
  const char *names[] = {"x", "y"};
  void *buffers[] = {x, y};
  if (atoll_module_run(m, 2, names, buffers, &error) != 0) {
    fprintf(stderr, "run failed: %s\n", error);
    atoll_string_free(error);
    atoll_module_free(m);
    return 1;
  }
  /* y = relu(x w^T + b): [[0, 2], [0, 0.5]] */
  for (int n = 0; n < 2; ++n) printf("y[%d] = [%g, %g]\n", n, (double)y[n][0], (double)y[n][1]);
  int ok = y[0][0] == 0 && y[0][1] == 2 && y[1][0] == 0 && y[1][1] == 0.5f;

  printf("%s", atoll_module_explain(m, "ast"));
  atoll_module_free(m);
  return ok ? 0 : 1;
}
