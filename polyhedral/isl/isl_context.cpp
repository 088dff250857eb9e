// Raw isl calls behind RAII wrappers: context, quota guard, scheduler
// options, YAML printing and the AST build hooks.
#include "polyhedral/isl/isl_context.h"

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/printer.h>
#include <isl/schedule.h>
#include <isl/set.h>

#include <cstdlib>
#include <string>

namespace atl::poly {

IslContext::IslContext() : ctx_(isl_ctx_alloc()) {
  isl_options_set_on_error(ctx_.get(), ISL_ON_ERROR_CONTINUE);
}

IslContext::~IslContext() { isl_ctx_free(ctx_.release()); }

QuotaGuard::QuotaGuard(isl::ctx ctx, unsigned long max_operations)
    : ctx_(ctx), saved_(isl_ctx_get_max_operations(ctx.get())) {
  isl_ctx_reset_error(ctx_.get());
  isl_ctx_set_max_operations(ctx_.get(), max_operations);
  isl_ctx_reset_operations(ctx_.get());
}

QuotaGuard::~QuotaGuard() {
  isl_ctx_set_max_operations(ctx_.get(), saved_);
  isl_ctx_reset_operations(ctx_.get());
  // Leave no quota error behind: later isl calls must not see it.
  isl_ctx_reset_error(ctx_.get());
}

bool QuotaGuard::hit() const { return isl_ctx_last_error(ctx_.get()) == isl_error_quota; }

ScopedSchedulerOptions::ScopedSchedulerOptions(isl::ctx ctx, const SchedulerOptions &o)
    : ctx_(ctx), algorithm_(isl_options_get_schedule_algorithm(ctx.get())),
      serialize_(isl_options_get_schedule_serialize_sccs(ctx.get())),
      whole_(isl_options_get_schedule_whole_component(ctx.get())),
      outer_(isl_options_get_schedule_outer_coincidence(ctx.get())),
      max_coef_(isl_options_get_schedule_max_coefficient(ctx.get())) {
  isl_ctx *c = ctx.get();
  isl_options_set_schedule_algorithm(c, o.feautrier ? ISL_SCHEDULE_ALGORITHM_FEAUTRIER : ISL_SCHEDULE_ALGORITHM_ISL);
  isl_options_set_schedule_serialize_sccs(c, o.serialize_sccs ? 1 : 0);
  isl_options_set_schedule_whole_component(c, o.whole_component ? 1 : 0);
  isl_options_set_schedule_outer_coincidence(c, o.outer_coincidence ? 1 : 0);
  isl_options_set_schedule_max_coefficient(c, o.max_coefficient);
}

ScopedSchedulerOptions::~ScopedSchedulerOptions() {
  isl_ctx *c = ctx_.get();
  isl_options_set_schedule_algorithm(c, algorithm_);
  isl_options_set_schedule_serialize_sccs(c, serialize_);
  isl_options_set_schedule_whole_component(c, whole_);
  isl_options_set_schedule_outer_coincidence(c, outer_);
  isl_options_set_schedule_max_coefficient(c, max_coef_);
}

std::string schedule_to_yaml(const isl::schedule &schedule) {
  isl_printer *p = isl_printer_to_str(schedule.ctx().get());
  p = isl_printer_set_yaml_style(p, ISL_YAML_STYLE_BLOCK);
  p = isl_printer_print_schedule(p, schedule.get());
  char *s = isl_printer_get_str(p);
  std::string out = s ? s : "";
  free(s);
  isl_printer_free(p);
  return out;
}

std::string tuple_name(const isl::set &set) {
  const char *n = isl_set_get_tuple_name(set.get());
  return n ? n : "";
}

isl::schedule intersect_schedule_domain(const isl::schedule &schedule, const isl::union_set &domain) {
  isl_schedule *s = isl_schedule_intersect_domain(schedule.copy(), domain.copy());
  if (!s) isl::exception::throw_last_error(schedule.ctx());
  return isl::manage(s);
}

namespace {

struct HookData {
  const std::function<int(const isl::union_map &)> *before_for;
};

isl_id *before_each_for(isl_ast_build *build, void *user) {
  auto *data = static_cast<HookData *>(user);
  isl_union_map *raw = isl_ast_build_get_schedule(build);
  if (!raw) return nullptr;
  int tag = -1;
  try {
    tag = (*data->before_for)(isl::manage(raw));
  } catch (...) {
    tag = -1;
  }
  std::string name = "for" + std::to_string(tag);
  return isl_id_alloc(isl_ast_build_get_ctx(build), name.c_str(), nullptr);
}

isl_ast_node *at_each_domain(isl_ast_node *node, isl_ast_build *build, void *) {
  // The statement's indices as expressions of the loop iterators:
  // S(i, j) where the schedule maps S[i, j] to the current iterators.
  isl_union_map *sched = isl_ast_build_get_schedule(build);
  isl_map *m = isl_map_from_union_map(sched);
  isl_pw_multi_aff *iterators = isl_pw_multi_aff_from_map(isl_map_reverse(m));
  isl_ast_expr *call = isl_ast_build_call_from_pw_multi_aff(build, iterators);
  if (!call) return node;
  isl_ast_node_free(node);
  return isl_ast_node_alloc_user(call);
}

}  // namespace

isl::ast_node build_ast_with_hooks(isl::ast_build build, const isl::schedule &schedule,
                                   const std::function<int(const isl::union_map &)> &before_for) {
  HookData data{&before_for};
  isl_ast_build *b = build.release();
  b = isl_ast_build_set_before_each_for(b, &before_each_for, &data);
  b = isl_ast_build_set_at_each_domain(b, &at_each_domain, nullptr);
  isl_ast_node *tree = isl_ast_build_node_from_schedule(b, schedule.copy());
  isl_ast_build_free(b);
  if (!tree) isl::exception::throw_last_error(schedule.ctx());
  return isl::manage(tree);
}

int for_tag(const isl::ast_node &node) {
  isl_id *id = isl_ast_node_get_annotation(node.get());
  if (!id) return -1;
  const char *name = isl_id_get_name(id);
  int tag = -1;
  if (name && std::string(name).rfind("for", 0) == 0) tag = std::atoi(name + 3);
  isl_id_free(id);
  return tag;
}

}  // namespace atl::poly
