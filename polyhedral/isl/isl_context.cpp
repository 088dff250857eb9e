// Raw isl calls behind RAII wrappers: context, quota guard, scheduler
// options, YAML printing, the AST build hooks and the queries isl/cpp.h
// lacks (every isl_* pointer taken here is freed or managed here).
#include "polyhedral/isl/isl_context.h"

#include <isl/aff.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/mat.h>
#include <isl/options.h>
#include <isl/printer.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <cstdlib>
#include <string>

namespace atl::poly {

IslContext::IslContext() : ctx_(isl_ctx_alloc()) {
  isl_options_set_on_error(ctx_.get(), ISL_ON_ERROR_CONTINUE);
}

IslContext::~IslContext() { isl_ctx_free(ctx_.release()); }

QuotaGuard::QuotaGuard(isl::ctx ctx, unsigned long max_operations, double seconds)
    : ctx_(ctx), saved_(isl_ctx_get_max_operations(ctx.get())) {
  isl_ctx_reset_error(ctx_.get());
  isl_ctx_set_max_operations(ctx_.get(), max_operations);
  isl_ctx_reset_operations(ctx_.get());
  // isl_ctx_abort: isl's way to stop a computation from another thread.
  if (seconds > 0) watchdog_.emplace(seconds, [this] { isl_ctx_abort(ctx_.get()); });
}

QuotaGuard::~QuotaGuard() {
  if (watchdog_) {
    watchdog_->stop();
    isl_ctx_resume(ctx_.get());
  }
  isl_ctx_set_max_operations(ctx_.get(), saved_);
  isl_ctx_reset_operations(ctx_.get());
  // Leave no quota error behind: later isl calls must not see it.
  isl_ctx_reset_error(ctx_.get());
}

bool QuotaGuard::hit() const { return isl_ctx_last_error(ctx_.get()) == isl_error_quota; }

std::string time_limit_reason(double seconds) {
  std::ostringstream s;
  s << "time limit of " << seconds << " s reached";
  return s.str();
}

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

// ---- Schedule-tree nodes ----

namespace {

AstLoopType from_isl(isl_ast_loop_type t) {
  switch (t) {
    case isl_ast_loop_atomic: return AstLoopType::Atomic;
    case isl_ast_loop_unroll: return AstLoopType::Unroll;
    case isl_ast_loop_separate: return AstLoopType::Separate;
    case isl_ast_loop_default: return AstLoopType::Default;
    case isl_ast_loop_error: break;
  }
  return AstLoopType::Default;
}

isl_ast_loop_type to_isl(AstLoopType t) {
  switch (t) {
    case AstLoopType::Atomic: return isl_ast_loop_atomic;
    case AstLoopType::Unroll: return isl_ast_loop_unroll;
    case AstLoopType::Separate: return isl_ast_loop_separate;
    case AstLoopType::Default: return isl_ast_loop_default;
  }
  return isl_ast_loop_default;
}

/// A band from an isl result, or the context's last error as an exception.
isl::schedule_node_band band_or_throw(isl_schedule_node *node, isl::ctx ctx) {
  if (!node) isl::exception::throw_last_error(ctx);
  return isl::manage(node).as<isl::schedule_node_band>();
}

/// The member's loop type, or isl's error as an exception.
AstLoopType checked_type(isl_ast_loop_type t, isl::ctx ctx) {
  if (t == isl_ast_loop_error) isl::exception::throw_last_error(ctx);
  return from_isl(t);
}

std::string name_or_empty(const char *s) { return s ? s : ""; }

}  // namespace

AstLoopType member_ast_loop_type(const isl::schedule_node_band &band, int member) {
  return checked_type(isl_schedule_node_band_member_get_ast_loop_type(band.get(), member), band.ctx());
}

isl::schedule_node_band member_set_ast_loop_type(const isl::schedule_node_band &band, int member, AstLoopType type) {
  return band_or_throw(isl_schedule_node_band_member_set_ast_loop_type(band.copy(), member, to_isl(type)), band.ctx());
}

AstLoopType member_isolate_ast_loop_type(const isl::schedule_node_band &band, int member) {
  return checked_type(isl_schedule_node_band_member_get_isolate_ast_loop_type(band.get(), member), band.ctx());
}

isl::schedule_node_band member_set_isolate_ast_loop_type(const isl::schedule_node_band &band, int member,
                                                         AstLoopType type) {
  return band_or_throw(isl_schedule_node_band_member_set_isolate_ast_loop_type(band.copy(), member, to_isl(type)),
                       band.ctx());
}

isl::id mark_id(const isl::schedule_node_mark &mark) {
  isl_id *id = isl_schedule_node_mark_get_id(mark.get());
  if (!id) isl::exception::throw_last_error(mark.ctx());
  return isl::manage(id);
}

isl::schedule_node delete_node(const isl::schedule_node &node) {
  isl_schedule_node *n = isl_schedule_node_delete(node.copy());
  if (!n) isl::exception::throw_last_error(node.ctx());
  return isl::manage(n);
}

bool is_subtree_anchored(const isl::schedule_node &node) {
  isl_bool b = isl_schedule_node_is_subtree_anchored(node.get());
  if (b == isl_bool_error) isl::exception::throw_last_error(node.ctx());
  return b == isl_bool_true;
}

// ---- Names, coefficients and constraints ----

std::vector<std::string> param_names(const isl::space &space) {
  std::vector<std::string> out;
  isl_size n = isl_space_dim(space.get(), isl_dim_param);
  if (n < 0) isl::exception::throw_last_error(space.ctx());
  for (isl_size i = 0; i < n; ++i) out.push_back(name_or_empty(isl_space_get_dim_name(space.get(), isl_dim_param, i)));
  return out;
}

std::vector<std::string> set_dim_names(const isl::set &set) {
  std::vector<std::string> out;
  isl_size n = isl_set_dim(set.get(), isl_dim_set);
  if (n < 0) isl::exception::throw_last_error(set.ctx());
  for (isl_size i = 0; i < n; ++i) out.push_back(name_or_empty(isl_set_get_dim_name(set.get(), isl_dim_set, i)));
  return out;
}

bool is_params(const isl::set &set) {
  isl_bool b = isl_set_is_params(set.get());
  if (b == isl_bool_error) isl::exception::throw_last_error(set.ctx());
  return b == isl_bool_true;
}

std::string domain_tuple_name(const isl::map &map) {
  return name_or_empty(isl_map_get_tuple_name(map.get(), isl_dim_in));
}

std::string range_tuple_name(const isl::map &map) {
  return name_or_empty(isl_map_get_tuple_name(map.get(), isl_dim_out));
}

bool involves_in_dim(const isl::map &map, int pos) {
  isl_bool b = isl_map_involves_dims(map.get(), isl_dim_in, static_cast<unsigned>(pos), 1);
  if (b == isl_bool_error) isl::exception::throw_last_error(map.ctx());
  return b == isl_bool_true;
}

AffCoefficients aff_coefficients(const isl::aff &aff) {
  AffCoefficients c;
  isl_aff *a = aff.get();
  isl_size n_in = isl_aff_dim(a, isl_dim_in), n_param = isl_aff_dim(a, isl_dim_param), n_div = isl_aff_dim(a, isl_dim_div);
  if (n_in < 0 || n_param < 0 || n_div < 0) isl::exception::throw_last_error(aff.ctx());
  auto take = [&](isl_val *v) {
    if (!v) isl::exception::throw_last_error(aff.ctx());
    return isl::manage(v);
  };
  for (isl_size d = 0; d < n_in; ++d) c.in.push_back(take(isl_aff_get_coefficient_val(a, isl_dim_in, d)));
  for (isl_size p = 0; p < n_param; ++p) c.params.push_back(take(isl_aff_get_coefficient_val(a, isl_dim_param, p)));
  c.constant = take(isl_aff_get_constant_val(a));
  c.has_divs = n_div > 0;
  return c;
}

namespace {

/// The rows of an isl matrix (taken) as isl values.
std::vector<std::vector<isl::val>> rows_of(isl_mat *mat, isl::ctx ctx) {
  if (!mat) isl::exception::throw_last_error(ctx);
  std::vector<std::vector<isl::val>> rows;
  isl_size n = isl_mat_rows(mat), m = isl_mat_cols(mat);
  for (isl_size r = 0; r < n && m >= 0; ++r) {
    std::vector<isl::val> row;
    for (isl_size c = 0; c < m; ++c) {
      isl_val *v = isl_mat_get_element_val(mat, r, c);
      if (!v) {
        isl_mat_free(mat);
        isl::exception::throw_last_error(ctx);
      }
      row.push_back(isl::manage(v));
    }
    rows.push_back(std::move(row));
  }
  isl_mat_free(mat);
  if (n < 0 || m < 0) isl::exception::throw_last_error(ctx);
  return rows;
}

}  // namespace

ConstraintRows lifted_constraints(const isl::basic_map &bmap) {
  isl::ctx ctx = bmap.ctx();
  isl_basic_set *set = isl_basic_set_lift(isl_basic_map_wrap(bmap.copy()));
  if (!set) isl::exception::throw_last_error(ctx);
  ConstraintRows out;
  isl_size np = isl_basic_set_dim(set, isl_dim_param), ns = isl_basic_set_dim(set, isl_dim_set);
  isl_size nd = isl_basic_set_dim(set, isl_dim_div);
  if (np < 0 || ns < 0 || nd != 0) {
    isl_basic_set_free(set);
    isl::exception::throw_last_error(ctx);
  }
  out.n_param = np;
  out.n_set = ns;
  // isl_basic_set_*_matrix keep `set`; rows_of frees the matrices.
  isl_mat *eq = isl_basic_set_equalities_matrix(set, isl_dim_cst, isl_dim_param, isl_dim_set, isl_dim_div);
  isl_mat *ineq = isl_basic_set_inequalities_matrix(set, isl_dim_cst, isl_dim_param, isl_dim_set, isl_dim_div);
  isl_basic_set_free(set);
  if (!eq || !ineq) {
    isl_mat_free(eq);
    isl_mat_free(ineq);
    isl::exception::throw_last_error(ctx);
  }
  try {
    out.equalities = rows_of(eq, ctx);
  } catch (...) {
    isl_mat_free(ineq);
    throw;
  }
  out.inequalities = rows_of(ineq, ctx);
  return out;
}

}  // namespace atl::poly
