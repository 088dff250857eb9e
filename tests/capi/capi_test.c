/* The C API (include/atoll/atoll.h) from C99: compile a graph with a symbolic
 * batch, run it on our own buffers against a plain C loop, the error cases
 * (never a crash), and two threads running one module at once. */
#include <atoll/atoll.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                      \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

/* y = Relu(x @ w + b): x [N, K] (N symbolic), w [K, M] passed by the caller,
 * b [M] inline data (the module's own). */
#define K 8
#define M 4
#define BATCH 5
static const float bias[M] = {0.5f, -0.25f, 0.125f, -1.0f};

static const char *graph_json =
    "{\"name\": \"mlp\",\n"
    " \"params\": {\"N\": {\"min\": 1, \"max\": 64}},\n"
    " \"inputs\": [{\"name\": \"x\", \"shape\": [\"N\", 8]}],\n"
    " \"weights\": [{\"name\": \"w\", \"shape\": [8, 4]},\n"
    "             {\"name\": \"b\", \"shape\": [4], \"data\": [0.5, -0.25, 0.125, -1.0]}],\n"
    " \"outputs\": [\"y\"],\n"
    " \"nodes\": [{\"op\": \"MatMul\", \"name\": \"mm\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"h\"]},\n"
    "           {\"op\": \"Add\", \"inputs\": [\"h\", \"b\"], \"outputs\": [\"a\"]},\n"
    "           {\"op\": \"Relu\", \"inputs\": [\"a\"], \"outputs\": [\"y\"]}]}";

static void reference(const float *x, const float *w, float *y) {
  int n, j, k;
  for (n = 0; n < BATCH; ++n)
    for (j = 0; j < M; ++j) {
      float s = 0;
      for (k = 0; k < K; ++k) s += x[n * K + k] * w[k * M + j];
      s += bias[j];
      y[n * M + j] = s > 0 ? s : 0;
    }
}

static int close_to(const float *a, const float *b, int count) {
  int i;
  for (i = 0; i < count; ++i)
    if (fabsf(a[i] - b[i]) > 1e-5f * (1.0f + fabsf(b[i]))) {
      fprintf(stderr, "element %d: %g, expected %g\n", i, (double)a[i], (double)b[i]);
      return 0;
    }
  return 1;
}

static void fill(float *p, int count, unsigned seed) {
  int i;
  for (i = 0; i < count; ++i) {
    seed = seed * 1103515245u + 12345u;
    p[i] = (float)((seed >> 8) % 2001) / 1000.0f - 1.0f;
  }
}

/* Whether `text` holds `part` (a NULL text holds nothing). */
static int has(const char *text, const char *part) { return text && strstr(text, part) != NULL; }

/* Compiles and expects failure: returns the message (to free) or NULL. */
static char *compile_error(const char *graph, const char *options) {
  char *error = NULL;
  atoll_module *m = atoll_compile_json(graph, options, &error);
  CHECK(m == NULL);
  CHECK(error != NULL);
  atoll_module_free(m);
  if (error) printf("expected error: %s\n", error);
  return error;
}

/* One thread's work: its own x and y, the shared w, several runs. */
struct job {
  atoll_module *m;
  const float *w;
  unsigned seed;
  int ok;
};

static void *run_job(void *arg) {
  struct job *j = (struct job *)arg;
  float x[BATCH * K], y[BATCH * M], expect[BATCH * M];
  const char *names[3] = {"x", "w", "y"};
  void *buffers[3];
  int r;
  j->ok = 1;
  for (r = 0; r < 50; ++r) {
    fill(x, BATCH * K, j->seed + (unsigned)r);
    memset(y, 0xff, sizeof y);
    buffers[0] = x;
    buffers[1] = (void *)j->w;
    buffers[2] = y;
    if (atoll_module_run(j->m, 3, names, buffers, NULL) != 0) {
      j->ok = 0;
      break;
    }
    reference(x, j->w, expect);
    if (!close_to(y, expect, BATCH * M)) {
      j->ok = 0;
      break;
    }
  }
  return NULL;
}

static void test_module(const char *target) {
  char options[128];
  char *error = NULL;
  atoll_module *m;
  float x[BATCH * K], w[K * M], y[BATCH * M], expect[BATCH * M];
  int64_t dims[4] = {0, 0, 0, 0};
  const char *names[3] = {"x", "w", "y"};
  void *buffers[3];
  const char *text;

  snprintf(options, sizeof options, "{\"target\": \"%s\", \"threads\": 1, \"params\": {\"N\": %d}}", target, BATCH);
  m = atoll_compile_json(graph_json, options, &error);
  if (!m) {
    fprintf(stderr, "compile (%s) failed: %s\n", target, error ? error : "(no message)");
    atoll_string_free(error);
    ++failures;
    return;
  }
  CHECK(error == NULL);

  /* What the module takes: x and w (b has inline data), and gives: y. */
  CHECK(atoll_module_num_inputs(m) == 2);
  CHECK(atoll_module_num_outputs(m) == 1);
  CHECK(has(atoll_module_input_name(m, 0), "x"));
  CHECK(has(atoll_module_input_name(m, 1), "w"));
  CHECK(atoll_module_input_name(m, 2) == NULL);
  CHECK(atoll_module_input_name(m, -1) == NULL);
  CHECK(has(atoll_module_output_name(m, 0), "y"));
  CHECK(atoll_module_tensor_shape(m, "x", dims, 4) == 2 && dims[0] == BATCH && dims[1] == K);
  CHECK(atoll_module_tensor_shape(m, "y", dims, 1) == 2 && dims[0] == BATCH);
  CHECK(atoll_module_tensor_shape(m, "y", NULL, 0) == 2);
  CHECK(atoll_module_tensor_shape(m, "b", dims, 4) == -1);
  CHECK(atoll_module_tensor_shape(m, "h", dims, 4) == -1);
  CHECK(atoll_module_tensor_shape(m, NULL, dims, 4) == -1);
  CHECK(has(atoll_module_tensor_dtype(m, "w"), "f32"));
  CHECK(atoll_module_tensor_dtype(m, "nope") == NULL);
  CHECK(atoll_module_tensor_bytes(m, "y") == (int64_t)sizeof y);

  /* A run on our buffers against the C loop. */
  fill(x, BATCH * K, 1);
  fill(w, K * M, 2);
  buffers[0] = x;
  buffers[1] = w;
  buffers[2] = y;
  memset(y, 0xff, sizeof y);
  CHECK(atoll_module_run(m, 3, names, buffers, &error) == 0);
  CHECK(error == NULL);
  atoll_string_free(error);
  error = NULL;
  reference(x, w, expect);
  CHECK(close_to(y, expect, BATCH * M));
  {
    /* Any order of the names. */
    const char *reversed[3] = {"y", "w", "x"};
    void *reversed_buffers[3];
    reversed_buffers[0] = y;
    reversed_buffers[1] = w;
    reversed_buffers[2] = x;
    memset(y, 0, sizeof y);
    CHECK(atoll_module_run(m, 3, reversed, reversed_buffers, NULL) == 0);
    CHECK(close_to(y, expect, BATCH * M));
  }

  /* Bad calls: non-zero and a message, never a crash. */
  {
    const char *wrong[3] = {"x", "w", "nope"};
    const char *own[4] = {"x", "w", "y", "b"};
    const char *twice[4] = {"x", "w", "y", "x"};
    const char *with_null[3] = {"x", NULL, "y"};
    void *four[4];
    void *null_buffer[3];
    four[0] = x;
    four[1] = w;
    four[2] = y;
    four[3] = x;
    null_buffer[0] = x;
    null_buffer[1] = NULL;
    null_buffer[2] = y;

    CHECK(atoll_module_run(m, 3, wrong, buffers, &error) != 0);
    CHECK(has(error, "'nope'"));
    if (error) printf("expected error: %s\n", error);
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 4, own, four, &error) != 0);
    CHECK(has(error, "'b'") && has(error, "inline data"));
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 4, twice, four, &error) != 0);
    CHECK(has(error, "'x' is given twice"));
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 2, names, buffers, &error) != 0); /* y missing */
    CHECK(has(error, "no buffer for: y"));
    if (error) printf("expected error: %s\n", error);
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 0, NULL, NULL, &error) != 0); /* everything missing */
    CHECK(has(error, "no buffer for: x, w, y"));
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 3, names, null_buffer, &error) != 0);
    CHECK(has(error, "buffers[1]") && has(error, "NULL"));
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 3, with_null, buffers, &error) != 0);
    CHECK(has(error, "names[1] is NULL"));
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 3, NULL, buffers, &error) != 0);
    CHECK(has(error, "names is NULL"));
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 3, names, NULL, &error) != 0);
    CHECK(has(error, "buffers is NULL"));
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, -1, names, buffers, &error) != 0);
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(NULL, 3, names, buffers, &error) != 0);
    CHECK(has(error, "NULL"));
    atoll_string_free(error);
    error = NULL;

    CHECK(atoll_module_run(m, 3, wrong, buffers, NULL) != 0); /* no message wanted */

    /* The module still runs after the failed calls. */
    memset(y, 0, sizeof y);
    CHECK(atoll_module_run(m, 3, names, buffers, NULL) == 0);
    CHECK(close_to(y, expect, BATCH * M));
  }

  /* Explain: the texts of the stages, owned by the module, stable. */
  text = atoll_module_explain(m, "ast");
  CHECK(text != NULL && strlen(text) > 0);
  CHECK(has(text, "// cluster"));
  CHECK(atoll_module_explain(m, "ast") == text);
  CHECK(has(atoll_module_explain(m, "scop"), "mm"));
  CHECK(atoll_module_explain(m, "deps") != NULL);
  CHECK(has(atoll_module_explain(m, "schedule"), "scheduler"));
  CHECK(has(atoll_module_explain(m, "llvm"), "define"));
  CHECK(has(atoll_module_explain(m, "c"), "void"));
  CHECK(atoll_module_explain(m, "graph") == NULL);
  CHECK(atoll_module_explain(m, "bogus") == NULL);
  CHECK(atoll_module_explain(m, NULL) == NULL);
  CHECK(atoll_module_explain(NULL, "ast") == NULL);

  /* Two threads on one module, each with its own buffers. */
  {
    pthread_t threads[2];
    struct job jobs[2];
    int t;
    for (t = 0; t < 2; ++t) {
      jobs[t].m = m;
      jobs[t].w = w;
      jobs[t].seed = 100u * (unsigned)(t + 1);
      jobs[t].ok = 0;
      CHECK(pthread_create(&threads[t], NULL, run_job, &jobs[t]) == 0);
    }
    for (t = 0; t < 2; ++t) CHECK(pthread_join(threads[t], NULL) == 0);
    CHECK(jobs[0].ok);
    CHECK(jobs[1].ok);
  }
  atoll_module_free(m);
}

static void test_compile_errors(void) {
  char *e;
  /* Not JSON: the line and column of the error. */
  e = compile_error("{\"name\": \"g\",\n \"inputs\": [}", NULL);
  CHECK(has(e, "line 2") && has(e, "column"));
  atoll_string_free(e);

  /* An unknown operator: the node and the pointer into the graph object. */
  e = compile_error(
      "{\"name\": \"g\", \"inputs\": [{\"name\": \"x\", \"shape\": [4]}], \"outputs\": [\"y\"],\n"
      " \"nodes\": [{\"op\": \"Frobnicate\", \"name\": \"bad_node\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}",
      "");
  CHECK(has(e, "node 'bad_node'") && has(e, "Frobnicate") && has(e, "at /nodes/0/op"));
  CHECK(!has(e, "/graphs/"));
  atoll_string_free(e);

  /* A graph that is not a graph object. */
  e = compile_error("[1, 2]", NULL);
  atoll_string_free(e);
  e = compile_error("{\"name\": \"g\", \"inputs\": [], \"outputs\": [\"y\"], \"nodes\": [], \"extra\": 1}", NULL);
  CHECK(has(e, "extra"));
  atoll_string_free(e);

  /* Options: unknown keys, targets, params. */
  e = compile_error(graph_json, "{\"params\": {\"N\": 4}, \"optimise\": true}");
  CHECK(has(e, "unknown option 'optimise'"));
  atoll_string_free(e);
  e = compile_error(graph_json, "{\"params\": {\"N\": 4}, \"target\": \"cuda\"}");
  CHECK(has(e, "cuda"));
  atoll_string_free(e);
  e = compile_error(graph_json, "{\"params\": {\"N\": 4}, \"target\": \"tpu\"}");
  CHECK(has(e, "tpu"));
  atoll_string_free(e);
  e = compile_error(graph_json, NULL); /* N has no value */
  CHECK(has(e, "'N'"));
  atoll_string_free(e);
  e = compile_error(graph_json, "{\"params\": {\"N\": 4, \"M\": 2}}");
  CHECK(has(e, "'M'"));
  atoll_string_free(e);
  e = compile_error(graph_json, "{\"params\": {\"N\": 65}}"); /* outside 1..64 */
  atoll_string_free(e);
  e = compile_error(graph_json, "{\"params\": {\"N\": 4}, \"threads\": -2}");
  CHECK(has(e, "threads"));
  atoll_string_free(e);
  e = compile_error(graph_json, "{\"params\": ");
  CHECK(has(e, "options") && has(e, "line 1"));
  atoll_string_free(e);
  e = compile_error(NULL, NULL);
  CHECK(has(e, "NULL"));
  atoll_string_free(e);

  /* No error pointer: still NULL, no crash. */
  CHECK(atoll_compile_json("not json", NULL, NULL) == NULL);

  /* NULL handles everywhere. */
  atoll_module_free(NULL);
  atoll_string_free(NULL);
  CHECK(atoll_module_num_inputs(NULL) == 0);
  CHECK(atoll_module_num_outputs(NULL) == 0);
  CHECK(atoll_module_input_name(NULL, 0) == NULL);
  CHECK(atoll_module_output_name(NULL, 0) == NULL);
  CHECK(atoll_module_tensor_shape(NULL, "x", NULL, 0) == -1);
  CHECK(atoll_module_tensor_dtype(NULL, "x") == NULL);
  CHECK(atoll_module_tensor_bytes(NULL, "x") == -1);
}

int main(void) {
  test_compile_errors();
  test_module("cpu");
  test_module("cpu-c");
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("capi_test: all checks passed\n");
  return 0;
}
