/* Atoll's C API: compile one graph of the batch format (batch-format.md) and
 * run it on the caller's buffers, from C or any language with a C FFI (Rust,
 * Python ctypes). Reference: docs/c-api.md.
 *
 * - Handles are opaque (atoll_module). No C++ exception crosses this API:
 *   every failure is a return value (NULL or non-zero) and, where the
 *   function takes `char **error`, a message in *error (allocated by Atoll,
 *   freed with atoll_string_free; `error` may be NULL when the caller does not
 *   want it; on success *error is set to NULL).
 * - Messages name the place as Atoll's command line does: the graph, the node,
 *   the JSON pointer into the graph object ("at /nodes/1/op"), or the line and
 *   column of a JSON syntax error.
 * - Buffers are dense row-major arrays of the tensor's dtype: f32 = float,
 *   f16 and bf16 = uint16_t (IEEE binary16 / bfloat16 bits), i8 = int8_t,
 *   i32 = int32_t, i64 = int64_t, bool = uint8_t (0 or 1), u8 = uint8_t,
 *   f64 = double.
 * - No copies: the kernels read the caller's input buffers and write the
 *   output buffers in place (atl::Module, <atoll/module.h>); a call
 *   allocates only its arena of intermediates. An output the kernels leave
 *   in another tensor's storage (a view of an input) is copied into place.
 * - Threads: atoll_module_run may be called on the same module from several
 *   threads at once (each call on its own buffers); atoll_module_explain and
 *   the queries are safe to call concurrently too. atoll_module_free must not
 *   race with any other call on that module.
 */
#ifndef ATOLL_ATOLL_H
#define ATOLL_ATOLL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATOLL_C_API_VERSION 1

/** A compiled graph: its code, its own weights (those with inline data), the
 *  values of its symbolic dimensions and its explain texts. */
typedef struct atoll_module atoll_module;

/** Compiles one graph. `graph_json` is one graph object of the batch format
 *  (an element of a batch's "graphs" array, with its "name"); f32 is the
 *  default dtype. `options_json` (NULL or "" = defaults) is a JSON object with
 *  these keys, all optional (any other key is an error):
 *    "target":    "cpu" (LLVM JIT, default) or "cpu-c" (C99 through the
 *                 system C compiler, loaded as a shared object);
 *    "threads":   integer >= 0: the threads parallel loops use, a setting of
 *                 the whole process (as `atoll --threads`) made now; 0 = all
 *                 cores; absent = leave the current setting;
 *    "params":    {"N": 16, ...}: a value for every symbolic dimension of the
 *                 graph (required when it has any); the module runs at them;
 *    "scheduler": "isl", "pluto" or "feautrier": overrides the graph's hint.
 *  Returns NULL on failure, with the message in *error. */
atoll_module *atoll_compile_json(const char *graph_json, const char *options_json, char **error);

/** Runs the module once. names[i] names a tensor and buffers[i] is its
 *  buffer, for i < n: every input (atoll_module_input_name) and every output
 *  (atoll_module_output_name), each exactly once, in any order. Inputs are
 *  read, outputs written whole. Returns 0 on success; non-zero, with a
 *  message in *error, for a NULL module/names/buffers, a NULL or unknown or
 *  repeated name, a NULL buffer, a missing tensor, or a failure while running
 *  (no output is then guaranteed to be written). */
int atoll_module_run(atoll_module *m, int n, const char *const *names, void *const *buffers, char **error);

/** The text of one compilation stage: "scop", "deps", "schedule", "ast"
 *  (per kernel, after a header line), "llvm" (the LLVM IR as lowered) or "c"
 *  (the C99 source). The string is owned by the module and valid until
 *  atoll_module_free. NULL for a NULL module, a NULL or unknown stage, or a
 *  failure making the text (no message is kept: the stage names are the
 *  list above). */
const char *atoll_module_explain(atoll_module *m, const char *stage);

/** The tensors the caller passes to atoll_module_run besides the outputs:
 *  the graph's inputs in declaration order, then its weights without inline
 *  "data" (weights with data are the module's own). 0 / NULL for a NULL
 *  module or an index out of range. Names are owned by the module. */
int atoll_module_num_inputs(const atoll_module *m);
const char *atoll_module_input_name(const atoll_module *m, int i);
/** The graph's outputs, in the graph's order. */
int atoll_module_num_outputs(const atoll_module *m);
const char *atoll_module_output_name(const atoll_module *m, int i);

/** The shape of an input or output (at the module's parameter values): returns
 *  its rank and writes min(rank, max_dims) dimensions into dims (dims may be
 *  NULL when max_dims is 0); -1 for a NULL module or name, or a name that is
 *  neither an input nor an output of the module. */
int atoll_module_tensor_shape(const atoll_module *m, const char *name, int64_t *dims, int max_dims);
/** The dtype of an input or output: "f32", "f16", "bf16", "i8", "i32", "i64",
 *  "bool", "u8" or "f64" (a static string); NULL as for atoll_module_tensor_shape. */
const char *atoll_module_tensor_dtype(const atoll_module *m, const char *name);
/** Bytes of an input's or output's buffer (elements times the dtype's size);
 *  -1 as for atoll_module_tensor_shape. */
int64_t atoll_module_tensor_bytes(const atoll_module *m, const char *name);

/** Frees a module and every string it owns. NULL is allowed. */
void atoll_module_free(atoll_module *m);
/** Frees an error message. NULL is allowed. */
void atoll_string_free(char *s);

#ifdef __cplusplus
}
#endif

#endif /* ATOLL_ATOLL_H */
