// fuse-ops{max-depth=256,max-args=64} (module pass): groups the call_tir bindings of each
// dataflow block into private Relax functions marked `Primitive` = 1, following TVM's
// GraphPartitioner.
//
// Input: legalised IR whose PrimFuncs carry `op_pattern` (run after legalize-ops and
// annotate-op-pattern, before call-tir-rewrite). A call_tir of a PrimFunc without the
// attribute, of several outputs, and every other binding are opaque: they never fuse.
//
// First, per dataflow block, a call_tir of several outputs that the block reads one of (through
// a single `x = lv[k]`, lv used nowhere else) is replaced by `x = call_tir(f_out<k>, ...)`, a
// copy of the PrimFunc without the other outputs and the root-block statements that only
// compute them (batch_norm in inference also returns the moving mean and variance); the copy
// is classified like annotate-op-pattern does, and the original goes when nothing calls it
// (prune_outputs.cc).
//
// Per dataflow block: every binding is a node of a DAG whose edges go from a binding to the
// bindings that use its variable; an edge's pattern is the consumer's kind, except that a
// broadcast consumer whose argument already has the result's shape is an elementwise edge. A
// node whose variable is visible after the block (an R.output Var) is an external reference:
// it has no post-dominator, so it can end a group (as its output) but never joins a group
// through one of its consumers. The post-dominator tree is Boost's dominator tree
// (Lengauer-Tarjan) of the reversed graph entered from a virtual exit; the combined pattern of
// the edges from each node up to its immediate post-dominator is TVM's: its out-edges' and
// those met climbing the tree from each consumer. Then three phases, as in TVM:
//   0. an out-elemwise-fusable node (matmul, conv2d) absorbs its post-dominator when the path
//      pattern is elementwise and every node on the way is at most broadcast;
//      an elementwise/broadcast node fuses into a post-dominator reached through injective or
//      reduction edges when the nodes on the way are at most injective (the sink may be a
//      reduction or an already fused out-elemwise-fusable group);
//   1. an injective node fuses into a post-dominator reached through injective edges whose
//      nodes are at most injective, the sink also a reduction (a reduction absorbs its
//      injective producers);
//   2. (tuples: none are built, tuple bindings are opaque).
// Merging keeps the anchor's kind as the group's, so two complex (out-elemwise-fusable or
// reduction) ops never meet in a group. `max-depth` bounds the nodes of a group and
// `max-args` its distinct inputs.
//
// Output: each group of two or more calls becomes a private function `fused_<callees>` (a
// Primitive function with one dataflow block ending in R.output of the group's value) whose
// parameters are the group's inputs (variables and constants) with their struct info, plus a
// shape parameter for symbolic variables no tensor parameter defines; the group's last
// binding becomes the call of that function and the other bindings disappear. Only the
// group's last value can be used outside the group (post-dominance guarantees it).
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/dominator_tree.hpp>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "fusion.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/ir/structural_equal.h"
#include "relax/tir/expr_functor.h"
#include "relax/transform/pass.h"

namespace relax::fusion {

const std::vector<Expr>& call_tir_args(const Expr& value) {
  const Call* call = value.as<Call>();
  auto* tuple = call->args.at(1).as<Tuple>();
  RX_ICHECK(tuple) << "call_tir arguments are not a tuple: " << describe(call->args[1]);
  return tuple->fields;
}

namespace {

/// TVM's CombinePattern: two kinds beyond broadcast cannot be combined.
OpPattern combine(OpPattern a, OpPattern b) {
  if (a > OpPattern::kBroadcast && b > OpPattern::kBroadcast) return OpPattern::kOpaque;
  return std::max(a, b);
}

/// The PrimFunc a binding's value calls through call_tir with one tensor output, or null.
const tir::PrimFunc* call_tir_callee(const Expr& value, const IRModule& mod) {
  auto* call = value.as<Call>();
  if (!call) return nullptr;
  auto* op = call->op.as<Op>();
  if (!op || op->name != "relax.call_tir" || call->args.empty()) return nullptr;
  auto* gv = call->args[0].as<GlobalVar>();
  if (!gv || !call->struct_info.is<TensorStructInfo>()) return nullptr;
  BaseFunc f = mod.find(gv->name);
  return f.defined() ? f.as<tir::PrimFunc>() : nullptr;
}

bool same_shape(const StructInfo& a, const StructInfo& b) {
  auto* ta = a.as<TensorStructInfo>();
  auto* tb = b.as<TensorStructInfo>();
  if (!ta || !tb || !ta->shape || !tb->shape || ta->shape->size() != tb->shape->size()) return false;
  for (size_t i = 0; i < ta->shape->size(); ++i)
    if (!structural_equal((*ta->shape)[i], (*tb->shape)[i], false)) return false;
  return true;
}

/// An edge of the dataflow graph: its pattern (see the file comment).
struct Edge {
  OpPattern pattern = OpPattern::kOpaque;
};
/// The dataflow graph of a block: vertex i is binding i, an edge goes from a binding to each
/// binding of the block that uses its variable; a vertex's out-edges are in the order of the
/// consumers (bidirectional: the limits read a node's producers).
using DataflowGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS,
                                            boost::no_property, Edge>;
using Vertex = DataflowGraph::vertex_descriptor;

struct Node {
  Binding binding;
  OpPattern pattern = OpPattern::kOpaque;
  bool extern_ref = false;
  // Post-dominator tree: the immediate post-dominator (-1: none in the block), the depth in
  // the tree, and the combined pattern of the edges up to the post-dominator.
  int pdom = -1;
  int depth = 1;
  OpPattern pdom_pattern = OpPattern::kOpaque;
};

struct Group {
  int parent = -1;
  OpPattern pattern;
  int num_nodes = 1;
  bool anchor = false;
};

class Partitioner {
 public:
  Partitioner(const Block& block, const IRModule& mod, int64_t max_depth, int64_t max_args)
      : mod_(mod), max_depth_(max_depth), max_args_(max_args) {
    build_graph(block);
    build_post_dominators();
    groups_.resize(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      groups_[i].pattern = nodes_[i].pattern;
      groups_[i].anchor = nodes_[i].pattern == OpPattern::kOutEWiseFusable;
    }
    for (int phase = 0; phase < 2; ++phase) run_fuse(phase);
  }

  const std::vector<Node>& nodes() const { return nodes_; }
  int root(int n) {
    while (groups_[n].parent >= 0) n = groups_[n].parent;
    return n;
  }

 private:
  void build_graph(const Block& block) {
    graph_ = DataflowGraph(block->bindings.size());
    color_.assign(block->bindings.size(), boost::white_color);
    std::unordered_map<const VarNode*, int> index;
    for (const Binding& b : block->bindings) {
      int id = int(nodes_.size());
      Node node;
      node.binding = b;
      node.extern_ref = !b->var.is<DataflowVar>();
      const tir::PrimFunc* callee =
          b.is<VarBinding>() ? call_tir_callee(b->value, mod_) : nullptr;
      if (callee && callee->attrs.defined() && callee->attrs->has(kAttrOpPattern))
        node.pattern = OpPattern(get_int(callee->attrs, kAttrOpPattern, int64_t(OpPattern::kOpaque)));
      nodes_.push_back(std::move(node));
      // Edges from every producer in this block that the value mentions.
      std::vector<int> producers;
      std::unordered_map<int, StructInfo> arg_sinfo;
      post_order_visit(b->value, [&](const Expr& e) {
        auto* v = e.as<VarNode>();
        if (!v) return;
        auto it = index.find(v);
        if (it == index.end()) return;
        if (std::find(producers.begin(), producers.end(), it->second) == producers.end())
          producers.push_back(it->second);
        arg_sinfo[it->second] = v->struct_info;
      });
      for (int p : producers) {
        OpPattern edge = nodes_[id].pattern;
        if (edge == OpPattern::kBroadcast && same_shape(arg_sinfo[p], b->var->struct_info))
          edge = OpPattern::kElemWise;
        boost::add_edge(Vertex(p), Vertex(id), Edge{edge}, graph_);
      }
      index[b->var.get()] = id;
    }
  }

  /// Immediate post-dominators: the dominator tree of the reversed graph entered from a
  /// virtual exit (what follows the block). The exit leads to each node nothing uses and to
  /// each external reference, whose consumers do not count: its value escapes, so nothing in
  /// the block post-dominates it.
  void build_post_dominators() {
    const Vertex n = boost::num_vertices(graph_), exit = n;
    using ReversedGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
    ReversedGraph reversed(n + 1);
    for (Vertex v = 0; v < n; ++v) {
      if (nodes_[v].extern_ref || boost::out_degree(v, graph_) == 0) {
        boost::add_edge(exit, v, reversed);
        continue;
      }
      for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph_)))
        boost::add_edge(boost::target(e, graph_), v, reversed);
    }
    std::vector<Vertex> idom(n + 1, boost::graph_traits<ReversedGraph>::null_vertex());
    boost::lengauer_tarjan_dominator_tree(
        reversed, exit,
        boost::make_iterator_property_map(idom.begin(), boost::get(boost::vertex_index, reversed)));
    // A post-dominator comes later in the block: in reverse order, its depth and pattern are
    // known when a node needs them.
    for (Vertex v = n; v-- > 0;) {
      Node& node = nodes_[v];
      node.pdom = idom[v] == exit ? -1 : int(idom[v]);
      node.depth = node.pdom < 0 ? 1 : nodes_[size_t(node.pdom)].depth + 1;
      node.pdom_pattern = node.pdom < 0 ? OpPattern::kOpaque : path_pattern(v);
    }
  }

  /// The combined pattern of the paths from `v` to its post-dominator, computed as TVM does:
  /// its out-edges' patterns and those met climbing the tree from each consumer in turn to
  /// where it meets the ones before. `combine` is not idempotent (two complex kinds make an
  /// opaque one), so a tree node reached from two consumers counts twice, as in TVM.
  OpPattern path_pattern(Vertex v) {
    OpPattern pattern = OpPattern::kElemWise;
    int meet = -1;
    bool first = true;
    for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph_))) {
      int consumer = int(boost::target(e, graph_));
      meet = first ? consumer : lca(meet, consumer, &pattern);
      first = false;
      pattern = combine(pattern, graph_[e].pattern);
    }
    RX_ICHECK(meet == nodes_[v].pdom)
        << "fuse-ops: the consumers of binding '" << nodes_[v].binding->var->name
        << "' meet away from its post-dominator";
    return pattern;
  }

  /// TVM's LeastCommonAncestor over the post-dominator tree, combining patterns on the way.
  int lca(int a, int b, OpPattern* pattern) {
    while (a != b) {
      if (a < 0 || b < 0) return -1;
      if (nodes_[a].depth < nodes_[b].depth) {
        *pattern = combine(*pattern, nodes_[b].pdom_pattern);
        b = nodes_[b].pdom;
      } else if (nodes_[b].depth < nodes_[a].depth) {
        *pattern = combine(*pattern, nodes_[a].pdom_pattern);
        a = nodes_[a].pdom;
      } else {
        *pattern = combine(*pattern, nodes_[a].pdom_pattern);
        *pattern = combine(*pattern, nodes_[b].pdom_pattern);
        a = nodes_[a].pdom;
        b = nodes_[b].pdom;
      }
    }
    return a;
  }

  /// The nodes strictly between `src` and `sink` on some path, plus `src` (what a commit
  /// merges besides the sink's group): a depth-first search from `src` that stops at the sink.
  std::vector<int> path_nodes(int src, int sink) {
    struct Reached : boost::default_dfs_visitor {
      explicit Reached(std::vector<Vertex>* out) : out(out) {}
      void discover_vertex(Vertex v, const DataflowGraph&) const { out->push_back(v); }
      std::vector<Vertex>* out;
    };
    std::vector<Vertex> reached;
    boost::depth_first_visit(
        graph_, Vertex(src), Reached(&reached),
        boost::make_iterator_property_map(color_.begin(), boost::get(boost::vertex_index, graph_)),
        [sink](Vertex v, const DataflowGraph&) { return int(v) == sink; });
    std::vector<int> out;
    for (Vertex v : reached) {
      color_[v] = boost::white_color;  // ready for the next search, without clearing them all
      if (int(v) != sink) out.push_back(int(v));
    }
    return out;
  }

  /// TVM's CheckPath: every node reached from `src` before `sink` (and the sink) satisfies
  /// `cond(kind of its group, is_sink)`.
  bool check_path(int src, int sink, const std::function<bool(OpPattern, bool)>& cond) {
    for (int n : path_nodes(src, sink))
      if (n != src && !cond(groups_[size_t(root(n))].pattern, false)) return false;
    return cond(groups_[size_t(root(sink))].pattern, true);
  }

  /// The limits: nodes and distinct inputs of the group a commit would make.
  bool within_limits(int src, int sink) {
    std::unordered_set<int> roots;
    for (int n : path_nodes(src, sink)) roots.insert(root(n));
    roots.insert(root(sink));
    int64_t count = 0;
    std::unordered_set<int> members;
    for (size_t n = 0; n < nodes_.size(); ++n)
      if (roots.count(root(int(n)))) members.insert(int(n));
    count = int64_t(members.size());
    if (count > max_depth_) return false;
    std::unordered_set<const Object*> args;
    for (int m : members) {
      if (!call_tir_callee(nodes_[size_t(m)].binding->value, mod_)) continue;
      for (const Expr& a : call_tir_args(nodes_[size_t(m)].binding->value)) {
        bool internal = false;
        for (const auto& e : boost::make_iterator_range(boost::in_edges(Vertex(m), graph_))) {
          int p = int(boost::source(e, graph_));
          internal |= members.count(p) && nodes_[size_t(p)].binding->var.same_as(a);
        }
        if (!internal) args.insert(a.get());
      }
    }
    return int64_t(args.size()) + 1 <= max_args_;  // + 1: the output
  }

  void merge(int child, int parent) {
    child = root(child);
    parent = root(parent);
    if (child == parent) return;
    groups_[size_t(parent)].num_nodes += groups_[size_t(child)].num_nodes;
    groups_[size_t(child)].parent = parent;
    if (groups_[size_t(child)].anchor) {
      groups_[size_t(parent)].anchor = true;
      groups_[size_t(parent)].pattern =
          combine(groups_[size_t(child)].pattern, groups_[size_t(parent)].pattern);
    }
  }

  void commit(int src, int sink) {
    for (int n : path_nodes(src, sink)) merge(n, sink);
  }

  void run_fuse(int phase) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      OpPattern kind = groups_[i].pattern;  // the node's own group record, as in TVM
      if (kind == OpPattern::kOpaque || n.pdom < 0) continue;
      int sink = n.pdom;
      if (root(int(i)) == root(sink)) continue;
      if (!within_limits(int(i), sink)) continue;
      OpPattern path = n.pdom_pattern;
      if (kind == OpPattern::kOutEWiseFusable) {
        if (phase != 0 || path != OpPattern::kElemWise) continue;
        if (check_path(int(i), sink, [](OpPattern k, bool) { return k <= OpPattern::kBroadcast; }))
          commit(int(i), sink);
      } else if (kind <= OpPattern::kBroadcast) {
        if (path > OpPattern::kInjective && path != OpPattern::kCommReduce) continue;
        auto cond = [](OpPattern k, bool is_sink) {
          if (!is_sink) return k <= OpPattern::kInjective;
          return k <= OpPattern::kInjective || k == OpPattern::kCommReduce ||
                 k == OpPattern::kOutEWiseFusable;
        };
        if (check_path(int(i), sink, cond)) commit(int(i), sink);
      } else if (kind == OpPattern::kInjective) {
        if (phase != 1) continue;
        if (path > OpPattern::kInjective && path != OpPattern::kCommReduce) continue;
        auto cond = [](OpPattern k, bool is_sink) {
          return k <= OpPattern::kInjective || (is_sink && k == OpPattern::kCommReduce);
        };
        if (check_path(int(i), sink, cond)) commit(int(i), sink);
      }
      // A reduction never fuses into its consumers.
    }
  }

  const IRModule& mod_;
  int64_t max_depth_;
  int64_t max_args_;
  std::vector<Node> nodes_;
  DataflowGraph graph_;
  std::vector<boost::default_color_type> color_;  ///< path_nodes' search, white between calls
  std::vector<Group> groups_;
};

/// Collects the symbolic variables of PrimExprs.
void collect_prim_vars(const tir::PrimExpr& e, std::vector<Ref<tir::Var>>* out) {
  struct V : tir::ExprVisitor {
    std::vector<Ref<tir::Var>>* out;
    using tir::ExprVisitor::visit_;
    void visit_(const tir::Var* op) override {
      for (const auto& v : *out)
        if (v.get() == op) return;
      out->push_back(Ref<tir::Var>(op));
    }
  } v;
  v.out = out;
  v.visit_expr(e);
}

/// Rewrites dataflow blocks, adding the fused functions to `fused_`.
class FuseMutator : public BranchKeepingMutator {
 public:
  FuseMutator(IRModule* mod, int64_t max_depth, int64_t max_args)
      : mod_(mod), max_depth_(max_depth), max_args_(max_args) {}
  using BranchKeepingMutator::visit_;

  Block visit_binding_block(const Block& block) override {
    if (!block->is_dataflow()) return ExprMutatorBase::visit_binding_block(block);
    Block pruned = prune_unused_outputs(block, mod_, &reduced_);
    Partitioner part(pruned, *mod_, max_depth_, max_args_);
    const std::vector<Node>& nodes = part.nodes();
    std::map<int, std::vector<int>> members;  // group root -> members in binding order
    for (size_t i = 0; i < nodes.size(); ++i) members[part.root(int(i))].push_back(int(i));
    std::vector<Binding> out;
    bool changed = false;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const std::vector<int>& group = members[part.root(int(i))];
      if (group.size() < 2) {
        out.push_back(nodes[i].binding);
        continue;
      }
      changed = true;
      RX_ICHECK(part.root(int(i)) == group.back())
          << "fuse-ops: a group's root is not its last binding";
      if (int(i) == group.back()) out.push_back(make_group_call(nodes, group));
    }
    if (!changed) return pruned;
    return make_block(std::move(out), true);
  }

 private:
  Binding make_group_call(const std::vector<Node>& nodes, const std::vector<int>& group) {
    std::unordered_set<const VarNode*> defined;
    for (int m : group) defined.insert(nodes[size_t(m)].binding->var.get());
    std::vector<Ref<Var>> params;
    std::vector<Expr> args;
    std::unordered_map<const Object*, Expr> remap;  // outer value -> parameter
    auto param_for = [&](const Expr& a) -> Expr {
      if (auto* v = a.as<VarNode>(); v && defined.count(v)) return a;
      if (!a.is<VarNode>() && !a.is<Constant>()) return a;
      auto it = remap.find(a.get());
      if (it != remap.end()) return it->second;
      auto* v = a.as<VarNode>();
      Ref<Var> p = make_var(v ? v->name : "param_" + std::to_string(params.size()), a->struct_info);
      params.push_back(p);
      args.push_back(a);
      remap[a.get()] = p;
      return p;
    };
    // The members' bindings with inputs replaced by parameters; the last binds the output.
    std::vector<Binding> bindings;
    std::vector<std::string> names;
    Ref<Var> result;
    std::vector<Ref<tir::Var>> used_syms;
    for (int m : group) {
      const Binding& b = nodes[size_t(m)].binding;
      auto* call = b->value.as<Call>();
      std::vector<Expr> fields;
      for (const Expr& a : call_tir_args(b->value)) fields.push_back(param_for(a));
      std::vector<Expr> call_args = call->args;
      call_args[1] = make_ref<Tuple>(std::move(fields), call->args[1]->struct_info);
      for (size_t k = 2; k < call_args.size(); ++k)
        if (auto* s = call_args[k].as<ShapeExpr>())
          for (const auto& v : s->values) collect_prim_vars(v, &used_syms);
      for (const auto& v : symbolic_vars(b->var->struct_info))
        if (std::find_if(used_syms.begin(), used_syms.end(),
                         [&](const Ref<tir::Var>& u) { return u.same_as(v); }) == used_syms.end())
          used_syms.push_back(v);
      Expr value = make_ref<Call>(call->op, std::move(call_args), call->attrs, call->sinfo_args,
                                  call->struct_info);
      Ref<VarNode> var = b->var;
      if (m == group.back()) {
        result = make_var(b->var->name, b->var->struct_info);
        var = result;
      }
      bindings.push_back(make_ref<VarBinding>(var, value));
      names.push_back(call->args[0].as<GlobalVar>()->name);
    }
    // Symbolic variables no parameter defines come in through one shape parameter.
    std::unordered_set<const tir::Var*> defined_syms;
    for (const auto& p : params)
      for (const auto& v : defined_symbolic_vars(p->struct_info)) defined_syms.insert(v.get());
    std::vector<tir::PrimExpr> extra;
    for (const auto& v : used_syms)
      if (!defined_syms.count(v.get())) extra.push_back(v);
    if (!extra.empty()) {
      params.push_back(make_var("shape_vars", make_ref<ShapeStructInfo>(extra)));
      args.push_back(make_shape(extra));
    }
    std::string name = "fused";
    for (const auto& n : names) name += "_" + n;
    std::string unique = name;
    for (int k = 1; mod_->contains(unique); ++k) unique = name + "_" + std::to_string(k);
    const Binding& last = nodes[size_t(group.back())].binding;
    auto body = make_ref<SeqExpr>(std::vector<Block>{make_block(std::move(bindings), true)}, result);
    auto func = make_ref<Function>(std::move(params), body, last->var->struct_info, true,
                                   make_attrs({{kAttrPrimitive, int64_t(1)}}));
    Ref<GlobalVar> gv = mod_->add(unique, func);
    return make_ref<VarBinding>(last->var,
                                make_ref<Call>(gv, std::move(args), Attrs(),
                                               std::vector<StructInfo>{}, last->var->struct_info));
  }

  IRModule* mod_;
  int64_t max_depth_;
  int64_t max_args_;

 public:
  /// The single-output PrimFuncs prune_unused_outputs added, by "callee/output".
  std::map<std::string, Ref<GlobalVar>> reduced_;
};

IRModule fuse_ops(const IRModule& mod, const transform::PassOptions& options,
                  transform::PassContext&) {
  int64_t max_depth = options.get_int("max-depth");
  int64_t max_args = options.get_int("max-args");
  if (max_depth < 1) RX_THROW() << "fuse-ops: option max-depth must be at least 1, got " << max_depth;
  if (max_args < 2) RX_THROW() << "fuse-ops: option max-args must be at least 2, got " << max_args;
  IRModule out = mod;
  FuseMutator mutator(&out, max_depth, max_args);
  for (const auto& e : mod.functions()) {
    auto* f = e.func.as<Function>();
    if (!f || get_int(f->attrs, kAttrPrimitive, 0) != 0) continue;
    Expr nf = mutator.visit_expr(e.func);
    if (!nf.same_as(e.func)) out.update(e.gv->name, nf.as_ref<Function>());
  }
  // The multi-output PrimFuncs replaced everywhere by a reduced copy go.
  std::unordered_set<std::string> called;
  for (const auto& e : out.functions())
    if (e.func.is<Function>())
      post_order_visit(e.func, [&](const Expr& x) {
        if (auto* gv = x.as<GlobalVar>()) called.insert(gv->name);
      });
  for (const auto& [key, gv] : mutator.reduced_) {
    std::string original = key.substr(0, key.rfind('/'));
    if (!called.count(original)) out.remove(original);
  }
  return out;
}

}  // namespace

void register_fuse_ops(transform::PluginRegistrar& r) {
  r.add_pass({"fuse-ops",
              "Group call_tir bindings of each dataflow block into Primitive functions",
              transform::Granularity::kModule,
              {{"max-depth", transform::OptionType::kInt, int64_t(256),
                "the most calls one fused function may hold"},
               {"max-args", transform::OptionType::kInt, int64_t(64),
                "the most tensor arguments (inputs and output) of one fused function"}}},
             transform::ModuleTransform(fuse_ops));
}

}  // namespace relax::fusion
