/* A C program outside the Atoll tree that uses an installed Atoll through its
 * C API alone (<atoll/atoll.h>): compile a graph from JSON, run, check. */
#include <atoll/atoll.h>

#include <stdio.h>

int main(void) {
  char *error = NULL;
  atoll_module *m = atoll_compile_json(
      "{\"name\": \"axpy\", \"inputs\": [{\"name\": \"x\", \"shape\": [4]}, {\"name\": \"y\", \"shape\": [4]}],"
      " \"outputs\": [\"z\"], \"nodes\": [{\"op\": \"Compute\", \"inputs\": [\"x\", \"y\"], \"outputs\": [\"z\"],"
      " \"attrs\": {\"expr\": \"z(i) = 2 * x(i) + y(i)\"}}]}",
      NULL, &error);
  if (!m) {
    fprintf(stderr, "consumer_c: %s\n", error);
    atoll_string_free(error);
    return 1;
  }
  float x[4] = {1, 2, 3, 4}, y[4] = {10, 20, 30, 40}, z[4] = {0, 0, 0, 0};
  const char *names[] = {"x", "y", "z"};
  void *buffers[] = {x, y, z};
  int rc = atoll_module_run(m, 3, names, buffers, &error);
  if (rc != 0) {
    fprintf(stderr, "consumer_c: %s\n", error);
    atoll_string_free(error);
  }
  atoll_module_free(m);
  int ok = rc == 0 && z[0] == 12 && z[1] == 24 && z[2] == 36 && z[3] == 48;
  printf("axpy through the C API: [%g, %g, %g, %g] %s\n", (double)z[0], (double)z[1], (double)z[2], (double)z[3],
         ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
