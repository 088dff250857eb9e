// The Pluto-style scheduler proper: per-level ILPs on PPL's MIP_Problem over
// Farkas-linearised constraints, permutable bands, cuts between strongly
// connected components, then the isl schedule tree with coincidence marks.
#include "polyhedral/isl/isl_context.h"
#include "polyhedral/schedule/farkas.h"
#include "polyhedral/schedule/schedule_pluto.h"

#include <atoll/diagnostics.h>

#include <gmpxx.h>
#include "polyhedral/isl/ppl_deadline.h"
#include "polyhedral/isl/ppl_init.h"

#include <ppl.hh>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

namespace atl::poly {

namespace {

namespace PPL = Parma_Polyhedra_Library;
using Vec = std::vector<long>;

/// Thrown inside the scheduler when it gives up; becomes a fallback.
struct Failure {
  std::string reason;
};

struct Stmt {
  std::string name;
  int dims = 0;
  isl::set domain;
  std::vector<Vec> rows;  ///< linearly independent hyperplanes found so far
  bool complete() const { return static_cast<int>(rows.size()) >= dims; }
};

struct Edge {
  int src = 0, dst = 0;
  isl::map rel;
  pluto::EdgeSpace space;
  PPL::Constraint_System legal, bound;
};

/// One statement's hyperplane at one level: c . x + c0.
struct Row {
  Vec c;
  long c0 = 0;
};
using Level = std::map<int, Row>;  ///< statement index -> its row

/// The result before it becomes an isl tree.
struct Node {
  enum class Kind { Band, Sequence, Leaf } kind = Kind::Leaf;
  std::vector<int> stmts;
  std::vector<Level> members;  ///< Band
  std::vector<Node> children;  ///< Band: one; Sequence: one per group
};

// An integer basis of the vectors orthogonal to every row of `h` (d columns).
std::vector<Vec> orthogonal_complement(const std::vector<Vec> &h, int d) {
  std::vector<std::vector<mpq_class>> m;
  for (const Vec &r : h) m.emplace_back(r.begin(), r.end());
  std::vector<int> pivot_col;
  size_t rank = 0;
  for (int col = 0; col < d && rank < m.size(); ++col) {
    size_t p = rank;
    while (p < m.size() && m[p][static_cast<size_t>(col)] == 0) ++p;
    if (p == m.size()) continue;
    std::swap(m[p], m[rank]);
    mpq_class inv = 1 / m[rank][static_cast<size_t>(col)];
    for (auto &x : m[rank]) x *= inv;
    for (size_t r = 0; r < m.size(); ++r) {
      if (r == rank || m[r][static_cast<size_t>(col)] == 0) continue;
      mpq_class f = m[r][static_cast<size_t>(col)];
      for (int k = 0; k < d; ++k) m[r][static_cast<size_t>(k)] -= f * m[rank][static_cast<size_t>(k)];
    }
    pivot_col.push_back(col);
    ++rank;
  }
  std::vector<Vec> basis;
  for (int f = 0; f < d; ++f) {
    if (std::find(pivot_col.begin(), pivot_col.end(), f) != pivot_col.end()) continue;
    std::vector<mpq_class> v(static_cast<size_t>(d), 0);
    v[static_cast<size_t>(f)] = 1;
    for (size_t r = 0; r < pivot_col.size(); ++r) v[static_cast<size_t>(pivot_col[r])] = -m[r][static_cast<size_t>(f)];
    mpz_class l = 1;
    for (auto &x : v) mpz_lcm(l.get_mpz_t(), l.get_mpz_t(), x.get_den_mpz_t());
    Vec iv;
    for (auto &x : v) {
      mpq_class s = x * l;
      iv.push_back(mpz_class(s.get_num()).get_si());
    }
    basis.push_back(iv);
  }
  return basis;
}

long value_of(const PPL::Generator &point, int var) {
  mpz_class q = point.coefficient(PPL::Variable(static_cast<PPL::dimension_type>(var))) / point.divisor();
  return q.get_si();
}

// "{ S[i0, i1] -> [(c0 + c_0*i0 + c_1*i1)] }" pieces for one statement.
std::string affine_text(const Stmt &s, const Row &r) {
  std::ostringstream os;
  os << s.name << "[";
  for (int k = 0; k < s.dims; ++k) os << (k ? ", " : "") << "i" << k;
  os << "] -> [(" << r.c0;
  for (int k = 0; k < s.dims; ++k)
    if (r.c[static_cast<size_t>(k)]) os << " + " << r.c[static_cast<size_t>(k)] << "*i" << k;
  os << ")]";
  return os.str();
}

class Scheduler {
public:
  Scheduler(const PlutoProblem &problem, const PlutoOptions &options) : options_(options) {
    ctx_ = problem.validity.ctx();
    for (const isl::set &d : problem.statements) {
      Stmt s;
      s.name = d.identity().domain_tuple_id().name();
      s.dims = static_cast<int>(d.tuple_dim());
      s.domain = d;
      index_[s.name] = static_cast<int>(stmts_.size());
      stmts_.push_back(s);
    }
    isl::union_map validity = problem.validity;
    if (!problem.context.is_null()) validity = validity.intersect_params(problem.context);
    validity.foreach_map([&](isl::map m) {
      m.foreach_basic_map([&](isl::basic_map bm) { add_edge(bm); });
    });
  }

  /// The schedule as a tree of bands and sequences; throws Failure.
  Node run() {
    std::vector<int> all(stmts_.size()), edges(edges_.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    for (size_t i = 0; i < edges.size(); ++i) edges[i] = static_cast<int>(i);
    return build(all, edges);
  }

  const std::vector<Stmt> &statements() const { return stmts_; }
  int solves() const { return solves_; }

private:
  void add_edge(const isl::basic_map &bm) {
    if (bm.is_empty()) return;
    auto src = index_.find(bm.domain_tuple_id().name()), dst = index_.find(bm.range_tuple_id().name());
    ATOLL_ASSERT(src != index_.end() && dst != index_.end(), "dependence on an unknown statement");
    Edge e;
    e.src = src->second;
    e.dst = dst->second;
    e.rel = isl::map(bm);
    pluto::DependencePolyhedron poly = pluto::dependence_polyhedron(bm);
    if (n_param_ < 0) n_param_ = poly.n_param;
    ATOLL_ASSERT(n_param_ == poly.n_param, "dependences with different parameters");
    e.space.n_param = poly.n_param;
    e.space.n_src = poly.n_in;
    e.space.n_dst = poly.n_out;
    e.space.self = e.src == e.dst;
    e.legal = pluto::farkas_legality(poly, e.space);
    e.bound = pluto::farkas_bounding(poly, e.space);
    edges_.push_back(std::move(e));
  }

  Node build(const std::vector<int> &group, const std::vector<int> &edges);
  Node cut(const std::vector<int> &group, const std::vector<int> &edges, const std::vector<std::vector<int>> &sccs);
  std::vector<std::vector<int>> components(const std::vector<int> &group, const std::vector<int> &edges) const;
  std::optional<Level> solve(const std::vector<int> &group, const std::vector<int> &edges,
                             const std::vector<char> &satisfied, bool exact);
  bool satisfies(const Edge &e, const Row &src, const Row &dst) const;

  PlutoOptions options_;
  isl::ctx ctx_{nullptr};
  std::vector<Stmt> stmts_;
  std::map<std::string, int> index_;
  std::vector<Edge> edges_;
  int n_param_ = -1;
  int solves_ = 0;
};

Node Scheduler::build(const std::vector<int> &group, const std::vector<int> &edges) {
  auto count_complete = [&] {
    return std::count_if(group.begin(), group.end(), [&](int s) { return stmts_[static_cast<size_t>(s)].complete(); });
  };
  const auto n = static_cast<long>(group.size());
  long done = count_complete();
  if (done == n) {
    if (group.size() == 1) return Node{Node::Kind::Leaf, group, {}, {}};
    auto sccs = components(group, edges);
    if (sccs.size() != group.size()) throw Failure{"statements cyclically dependent at the same time"};
    return cut(group, edges, sccs);
  }
  if (done > 0) {  // finished statements leave the band of the others when possible
    auto sccs = components(group, edges);
    if (sccs.size() > 1) return cut(group, edges, sccs);
  }
  Node band{Node::Kind::Band, group, {}, {}};
  std::vector<char> satisfied(edges.size(), 0);
  while (true) {
    done = count_complete();
    if (done == n || (done > 0 && !band.members.empty())) break;
    std::optional<Level> level = solve(group, edges, satisfied, false);
    if (!level) level = solve(group, edges, satisfied, true);
    if (!level) break;
    for (int s : group) {
      Stmt &st = stmts_[static_cast<size_t>(s)];
      if (!st.complete()) st.rows.push_back(level->at(s).c);
    }
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge &e = edges_[static_cast<size_t>(edges[i])];
      if (!satisfied[i] && satisfies(e, level->at(e.src), level->at(e.dst))) satisfied[i] = 1;
    }
    band.members.push_back(std::move(*level));
  }
  if (band.members.empty()) {
    auto sccs = components(group, edges);
    if (sccs.size() <= 1) {
      std::string names;
      for (int s : group) names += (names.empty() ? "" : ", ") + stmts_[static_cast<size_t>(s)].name;
      throw Failure{"no legal hyperplane for {" + names + "} and no component to cut"};
    }
    return cut(group, edges, sccs);
  }
  std::vector<int> rest;
  for (size_t i = 0; i < edges.size(); ++i)
    if (!satisfied[i]) rest.push_back(edges[i]);
  band.children.push_back(build(group, rest));
  return band;
}

Node Scheduler::cut(const std::vector<int> &group, const std::vector<int> &edges,
                    const std::vector<std::vector<int>> &sccs) {
  Node seq{Node::Kind::Sequence, group, {}, {}};
  for (const auto &scc : sccs) {
    std::vector<int> inside;
    for (int i : edges) {
      const Edge &e = edges_[static_cast<size_t>(i)];
      if (std::count(scc.begin(), scc.end(), e.src) && std::count(scc.begin(), scc.end(), e.dst)) inside.push_back(i);
    }
    seq.children.push_back(build(scc, inside));
  }
  return seq;
}

// Strongly connected components of the statements under `edges`, in a
// topological order that keeps the original order where it is free.
std::vector<std::vector<int>> Scheduler::components(const std::vector<int> &group, const std::vector<int> &edges) const {
  const size_t n = group.size();
  std::map<int, size_t> pos;
  for (size_t i = 0; i < n; ++i) pos[group[i]] = i;
  std::vector<std::vector<char>> reach(n, std::vector<char>(n, 0));
  for (size_t i = 0; i < n; ++i) reach[i][i] = 1;
  for (int i : edges) {
    const Edge &e = edges_[static_cast<size_t>(i)];
    reach[pos.at(e.src)][pos.at(e.dst)] = 1;
  }
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < n; ++i)
      if (reach[i][k])
        for (size_t j = 0; j < n; ++j)
          if (reach[k][j]) reach[i][j] = 1;
  std::vector<int> comp(n, -1);
  std::vector<std::vector<int>> sccs;
  for (size_t i = 0; i < n; ++i) {
    if (comp[i] >= 0) continue;
    sccs.emplace_back();
    for (size_t j = i; j < n; ++j)
      if (comp[j] < 0 && reach[i][j] && reach[j][i]) {
        comp[j] = static_cast<int>(sccs.size() - 1);
        sccs.back().push_back(group[j]);
      }
  }
  // Kahn's algorithm, smallest original position first.
  std::vector<std::vector<int>> order;
  std::vector<char> placed(sccs.size(), 0);
  for (size_t round = 0; round < sccs.size(); ++round) {
    for (size_t c = 0; c < sccs.size(); ++c) {
      if (placed[c]) continue;
      bool ready = true;
      for (size_t i = 0; i < n && ready; ++i)
        for (size_t j = 0; j < n && ready; ++j)
          if (comp[j] == static_cast<int>(c) && comp[i] != comp[j] && !placed[static_cast<size_t>(comp[i])] &&
              reach[i][j])
            ready = false;
      if (ready) {
        placed[c] = 1;
        order.push_back(sccs[c]);
        break;
      }
    }
  }
  ATOLL_ASSERT(order.size() == sccs.size(), "cyclic component graph");
  return order;
}

bool Scheduler::satisfies(const Edge &e, const Row &src, const Row &dst) const {
  isl::map ps(ctx_, "{ " + affine_text(stmts_[static_cast<size_t>(e.src)], src) + " }");
  isl::map pt(ctx_, "{ " + affine_text(stmts_[static_cast<size_t>(e.dst)], dst) + " }");
  isl::set d = e.rel.apply_domain(ps).apply_range(pt).deltas();
  return d.is_subset(isl::set(ctx_, "{ [d] : d >= 1 }"));
}

// One hyperplane for every statement of `group`: the lexicographic minimum
// of (u, w, coefficients, shifts) as one weighted objective. `exact` makes
// linear independence a disjunction (binary variables) instead of Pluto's
// non-negative orthant of the orthogonal complement.
std::optional<Level> Scheduler::solve(const std::vector<int> &group, const std::vector<int> &edges,
                                      const std::vector<char> &satisfied, bool exact) {
  if (++solves_ > options_.max_solves) throw Failure{"ILP solve cap reached"};
  const int np = std::max(n_param_, 0);
  std::map<int, int> base;  // statement -> index of its first coefficient
  int nvar = np + 1, max_dims = 0;
  for (int s : group) {
    base[s] = nvar;
    nvar += stmts_[static_cast<size_t>(s)].dims + 1;
    max_dims = std::max(max_dims, stmts_[static_cast<size_t>(s)].dims);
  }
  auto var = [](int i) { return PPL::Variable(static_cast<PPL::dimension_type>(i)); };
  const int w = np;
  PPL::Constraint_System cs;
  const long wmax = 1L << 24, umax = 1L << 10;
  for (int p = 0; p < np; ++p) {
    cs.insert(var(p) >= 0);
    cs.insert(var(p) <= umax);
  }
  cs.insert(var(w) >= 0);
  cs.insert(var(w) <= wmax);
  for (int s : group) {
    const Stmt &st = stmts_[static_cast<size_t>(s)];
    for (int k = 0; k <= st.dims; ++k) {
      cs.insert(var(base[s] + k) >= 0);
      cs.insert(var(base[s] + k) <= (k < st.dims ? options_.max_coefficient : options_.max_shift));
    }
  }
  auto add_mapped = [&](const Edge &e, const PPL::Constraint_System &local) {
    std::vector<int> to(static_cast<size_t>(e.space.size()));
    for (int p = 0; p < np; ++p) to[static_cast<size_t>(e.space.u(p))] = p;
    to[static_cast<size_t>(e.space.w())] = w;
    for (int k = 0; k < e.space.n_src; ++k) to[static_cast<size_t>(e.space.src(k))] = base[e.src] + k;
    to[static_cast<size_t>(e.space.src0())] = base[e.src] + e.space.n_src;
    for (int k = 0; k < e.space.n_dst; ++k) to[static_cast<size_t>(e.space.dst(k))] = base[e.dst] + k;
    to[static_cast<size_t>(e.space.dst0())] = base[e.dst] + e.space.n_dst;
    for (const PPL::Constraint &c : local) {
      PPL::Linear_Expression le(c.inhomogeneous_term());
      for (PPL::dimension_type i = 0; i < c.space_dimension(); ++i)
        if (c.coefficient(PPL::Variable(i)) != 0) le += c.coefficient(PPL::Variable(i)) * var(to[i]);
      if (c.is_equality())
        cs.insert(le == 0);
      else
        cs.insert(le >= 0);
    }
  };
  for (size_t i = 0; i < edges.size(); ++i) {
    const Edge &e = edges_[static_cast<size_t>(edges[i])];
    add_mapped(e, e.legal);
    if (!satisfied[i]) add_mapped(e, e.bound);
  }
  std::vector<int> binaries;
  for (int s : group) {
    const Stmt &st = stmts_[static_cast<size_t>(s)];
    if (st.complete()) continue;
    std::vector<Vec> comp = orthogonal_complement(st.rows, st.dims);
    if (!exact) {
      PPL::Linear_Expression sum;
      for (const Vec &v : comp) {
        PPL::Linear_Expression dot;
        for (int k = 0; k < st.dims; ++k) dot += v[static_cast<size_t>(k)] * var(base[s] + k);
        cs.insert(dot >= 0);
        sum += dot;
      }
      cs.insert(sum >= 1);
      continue;
    }
    PPL::Linear_Expression any;
    for (const Vec &v : comp) {
      PPL::Linear_Expression dot;
      long big = 1;
      for (int k = 0; k < st.dims; ++k) {
        dot += v[static_cast<size_t>(k)] * var(base[s] + k);
        big += std::abs(v[static_cast<size_t>(k)]) * options_.max_coefficient;
      }
      for (int sign : {+1, -1}) {
        int b = nvar++;
        binaries.push_back(b);
        cs.insert(var(b) >= 0);
        cs.insert(var(b) <= 1);
        cs.insert(sign * dot + big * (1 - var(b)) >= 1);
        any += var(b);
      }
    }
    cs.insert(any >= 1);
  }
  // Weights: shifts < coefficient tie-break by position < sum of coefficients < w < u.
  mpz_class shift_total = mpz_class(options_.max_shift) * static_cast<long>(group.size()) + 1;
  mpz_class coef_total = 0;
  PPL::Linear_Expression objective;
  for (int s : group) {
    const Stmt &st = stmts_[static_cast<size_t>(s)];
    for (int k = 0; k < st.dims; ++k) {
      mpz_class weight = shift_total * (max_dims + 1 + k);
      objective += PPL::Coefficient(weight) * var(base[s] + k);
      coef_total += weight * options_.max_coefficient;
    }
    objective += var(base[s] + st.dims);
  }
  mpz_class w_weight = coef_total + shift_total + 1;
  objective += PPL::Coefficient(w_weight) * var(w);
  mpz_class u_weight = w_weight * (wmax + 1);
  for (int p = 0; p < np; ++p) objective += PPL::Coefficient(u_weight) * var(p);

  PPL::MIP_Problem mip(static_cast<PPL::dimension_type>(nvar), cs, objective, PPL::MINIMIZATION);
  PPL::Variables_Set integers;
  for (int i = 0; i < nvar; ++i) integers.insert(var(i));
  mip.add_to_integer_space_dimensions(integers);
  if (mip.solve() != PPL::OPTIMIZED_MIP_PROBLEM) return std::nullopt;
  const PPL::Generator &point = mip.optimizing_point();
  Level level;
  for (int s : group) {
    const Stmt &st = stmts_[static_cast<size_t>(s)];
    Row r;
    for (int k = 0; k < st.dims; ++k) r.c.push_back(value_of(point, base[s] + k));
    r.c0 = value_of(point, base[s] + st.dims);
    level[s] = std::move(r);
  }
  return level;
}

// ---- isl schedule tree ----

class TreeBuilder {
public:
  TreeBuilder(isl::ctx ctx, const std::vector<Stmt> &stmts, isl::union_map coincidence)
      : ctx_(ctx), stmts_(stmts), coincidence_(std::move(coincidence)) {}

  isl::schedule build(const Node &root) {
    isl::union_set domain = domain_of(root.stmts);
    isl::schedule_node leaf = isl::schedule::from_domain(domain).root().child(0);
    return insert(leaf, root).root().get_schedule();
  }

private:
  isl::union_set domain_of(const std::vector<int> &group) const {
    isl::union_set d = isl::union_set(stmts_[static_cast<size_t>(group.front())].domain);
    for (size_t i = 1; i < group.size(); ++i) d = d.unite(isl::union_set(stmts_[static_cast<size_t>(group[i])].domain));
    return d;
  }

  // The members as isl text: a union map "{ S[i0] -> [(e)]; ... }" for one
  // member, "[{ ... }, { ... }]" (a multi_union_pw_aff) for several.
  std::string member_text(const Node &n, const std::vector<size_t> &members) const {
    std::ostringstream os;
    if (members.size() > 1) os << "[";
    for (size_t m = 0; m < members.size(); ++m) {
      os << (m ? ", " : "") << "{ ";
      bool first = true;
      for (int s : n.stmts) {
        const Stmt &st = stmts_[static_cast<size_t>(s)];
        os << (first ? "" : "; ") << affine_text(st, n.members[members[m]].at(s));
        first = false;
      }
      os << " }";
    }
    if (members.size() > 1) os << "]";
    return os.str();
  }

  // True when the member gives every statement of the node the same constant.
  static bool trivial(const Node &n, const Level &level) {
    const Row &r0 = level.at(n.stmts.front());
    for (int s : n.stmts) {
      const Row &r = level.at(s);
      if (r.c0 != r0.c0 || std::any_of(r.c.begin(), r.c.end(), [](long c) { return c != 0; })) return false;
    }
    return true;
  }

  isl::schedule_node insert(isl::schedule_node leaf, const Node &n) {
    switch (n.kind) {
    case Node::Kind::Leaf:
      return leaf;
    case Node::Kind::Band: {
      std::vector<size_t> keep;
      for (size_t m = 0; m < n.members.size(); ++m)
        if (!trivial(n, n.members[m])) keep.push_back(m);
      if (keep.empty()) return insert(leaf, n.children.front());
      isl::multi_union_pw_aff mupa = keep.size() == 1
                                           ? isl::multi_union_pw_aff(isl::union_pw_aff(ctx_, member_text(n, keep)))
                                           : isl::multi_union_pw_aff(ctx_, member_text(n, keep));
      isl::schedule_node node = leaf.insert_partial_schedule(mupa);
      isl::schedule_node_band band = node.as<isl::schedule_node_band>().set_permutable(1);
      // Coincident: no coincidence dependence between instances with the same
      // prefix has a non-zero distance on the member.
      isl::union_map prefix = band.prefix_schedule_union_map();
      isl::union_map same = prefix.apply_range(prefix.reverse());
      isl::union_map deps = coincidence_.intersect(same);
      for (size_t m = 0; m < keep.size(); ++m) {
        isl::union_map sched(ctx_, member_text(n, {keep[m]}));
        isl::union_set d = deps.apply_domain(sched).apply_range(sched).deltas();
        bool zero = d.is_subset(isl::union_set(ctx_, "{ [0] }"));
        band = band.member_set_coincident(static_cast<int>(m), zero ? 1 : 0);
      }
      isl::schedule_node child = insert(band.child(0), n.children.front());
      return child.parent();
    }
    case Node::Kind::Sequence: {
      isl::union_set_list filters(ctx_, static_cast<int>(n.children.size()));
      for (const Node &c : n.children) filters = filters.add(domain_of(c.stmts));
      isl::schedule_node node = leaf.insert_sequence(filters);
      for (size_t i = 0; i < n.children.size(); ++i) {
        isl::schedule_node child = insert(node.child(static_cast<int>(i)).child(0), n.children[i]);
        node = child.parent().parent();
      }
      return node;
    }
    }
    ATOLL_ASSERT(false, "unknown node kind");
    return leaf;
  }

  isl::ctx ctx_;
  const std::vector<Stmt> &stmts_;
  isl::union_map coincidence_;
};

// The original order: a sequence of the statements, each a band over its
// indices (the fallback).
Node original_order(const std::vector<Stmt> &stmts) {
  Node seq{Node::Kind::Sequence, {}, {}, {}};
  for (size_t i = 0; i < stmts.size(); ++i) {
    int s = static_cast<int>(i);
    seq.stmts.push_back(s);
    Node band{Node::Kind::Band, {s}, {}, {Node{Node::Kind::Leaf, {s}, {}, {}}}};
    for (int k = 0; k < stmts[i].dims; ++k) {
      Row r;
      r.c.assign(static_cast<size_t>(stmts[i].dims), 0);
      r.c[static_cast<size_t>(k)] = 1;
      band.members.push_back(Level{{s, r}});
    }
    seq.children.push_back(std::move(band));
  }
  if (seq.children.size() == 1) return seq.children.front();
  return seq;
}

}  // namespace

ScheduleResult schedule_pluto_problem(const PlutoProblem &problem, const PlutoOptions &options) {
  static std::mutex ppl_mutex;  // PPL is not thread safe (and PplDeadline's hook is global): one problem at a time
  std::lock_guard<std::mutex> lock(ppl_mutex);
  ensure_ppl_initialized();
  ATOLL_ASSERT(!problem.statements.empty(), "scheduling an empty SCoP");
  isl::ctx ctx = problem.statements.front().ctx();
  isl::union_map coincidence = problem.coincidence.is_null() ? problem.validity : problem.coincidence;
  ScheduleResult result;
  std::string failure;
  try {
    QuotaGuard quota(ctx, options.quota, options.seconds);
    PplDeadline deadline(options.seconds);
    try {
      Scheduler scheduler(problem, options);
      Node root = scheduler.run();
      result.schedule = TreeBuilder(ctx, scheduler.statements(), coincidence).build(root);
      result.algorithm = "pluto";
      return result;
    } catch (const isl::exception &) {
      if (!quota.timed_out()) throw;
      throw PplTimeout(time_limit_reason(options.seconds));  // isl aborted by the same limit
    }
  } catch (const Failure &f) {
    failure = f.reason;
  } catch (const PplTimeout &e) {
    failure = e.what();
  } catch (const isl::exception &e) {
    failure = std::string("isl: ") + e.what();
  } catch (const std::exception &e) {
    failure = std::string("PPL: ") + e.what();
  }
  std::vector<Stmt> stmts;
  for (const isl::set &d : problem.statements) stmts.push_back(Stmt{d.identity().domain_tuple_id().name(), static_cast<int>(d.tuple_dim()), d, {}});
  result.schedule = TreeBuilder(ctx, stmts, coincidence).build(original_order(stmts));
  result.algorithm = "original";
  result.fallbacks.push_back("pluto: " + failure + "; original order used");
  return result;
}

}  // namespace atl::poly
