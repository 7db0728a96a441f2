// static-plan-block-memory{upper-bound=""}: plans the explicit allocations of each Relax
// function into a few storages allocated once at function entry, so that tensors whose
// lifetimes do not overlap share memory.
//
//   a = R.builtin.alloc_tensor(R.shape([n, 64]), R.dtype("float32"), R.prim_value(0))
// becomes, with `storage0 = R.vm.alloc_storage(R.shape([8192]), R.prim_value(0))` bound at
// function entry (n <= 32),
//   a = R.vm.alloc_tensor(storage0, R.prim_value(1024), R.shape([n, 64]), R.dtype("float32"))
//
// Lifetimes come from the top-level bindings: a tensor lives from its allocation to the last
// use of any value that may alias it. Everything but R.vm.call_dps (which only writes into its
// output arguments) is assumed to alias its operands: `y = a`, tuples and tuple projections,
// reshapes and other views, calls of functions. A tensor that may reach the function's result
// is an output and is not planned (its bytes are never shared), nor is one whose size mentions
// a symbolic variable that the parameters do not define. Parameters are never allocated here.
//
// Two tensors live at once interfere (an edge of the interference graph) and never share
// bytes. Sizes are in bytes (dtypes may share memory), per device, and each is a constant
// times a scale: 1 for constant sizes (and sizes whose variables all have upper bounds,
// planned at their largest value), else the product of its non-constant factors (`batch *
// 602112` is 602112 times `batch`; `(h // 2) * w * 64` is 64 times `(h // 2) * w`). Tensors of
// one device and one scale share an arena (never shared between devices or scales) in which
// each tensor gets an offset, the scale times a multiple of the device's alignment (the module
// attribute vdevice_alignment by VM device index, else the option alignment, default 64), such
// that no two tensors live at once overlap; the arena is the scale times its constant extent.
// A scale is a size, so never negative: offsets that separate the constants separate the
// scaled tensors whatever the scale's value at run time. (A model whose batch is symbolic
// plans as it would for batch 1, scaled: reusing only storages of provably equal size gave
// MobileNetV2 29 storages, 4x the memory of the bounded plan, and kernels writing memory no
// cache held: 22% slower.) The offsets come from greedy best-fit packing — each tensor in turn
// goes to the tightest gap between the already placed tensors whose lifetimes meet its own —
// tried in four orders (decreasing size, allocation order, decreasing lifetime, decreasing
// size × lifetime), the smallest arena kept. A scaled offset is a symbolic R.prim_value,
// which vm-shape-lower computes on the shape heap.
// Upper bounds come from the function attribute `tir_var_upper_bound` (in C++ an Attrs object
// {"n": 128}; in text a list of strings ["n=128"]) and, for variables it does not name, from
// the option upper-bound ("n=128,m=64"; relax-driver compile --upper-bound sets the attribute).
// A bound is a promise: a run with a larger value may make live tensors overlap (the runtime
// checks only that each view fits in its storage). Storages are not killed here:
// kill-after-last-use drops each storage's register after its last R.vm.alloc_tensor, and the
// tensors keep it alive as long as needed.
//
// When every planned size is constant the function records the attributes
// `memory_planned_bytes` (the storages plus the outputs' own allocations),
// `memory_unplanned_bytes` (one allocation per tensor, all alive at once) and
// `memory_live_bytes_bound` (the maximum over program points of the bytes live then, a lower
// bound of any plan; the outputs count as live throughout, since they are never reused: a
// plan may not share their bytes with any other tensor).
//
// Expects: after call-tir-rewrite, before vm-shape-lower. Guarantees: the same values; no
// two tensors live at once share bytes.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "relax/arith/analyzer.h"
#include "relax/ir/expr_functor.h"
#include "relax/ir/struct_info_analysis.h"
#include "relax/sdk/plugin.h"
#include "relax/vm/vm_ops.h"

namespace relax::memory {

namespace {

using transform::PassArgs;

constexpr const char* kUpperBound = "tir_var_upper_bound";
/// Offsets in an arena are multiples of the device's alignment: the module attribute
/// `vdevice_alignment` (bytes per VM device index, e.g. [64, 256]) or else the option
/// `alignment` (default 64, the CPU runtime's allocation alignment).
constexpr const char* kAlignmentAttr = "vdevice_alignment";

/// The arena alignment of every device of `mod` (missing entries: `fallback`).
std::vector<int64_t> device_alignments(const IRModule& mod, int64_t fallback) {
  RX_CHECK(fallback > 0) << "static-plan-block-memory: alignment " << fallback
                         << " must be positive";
  std::vector<int64_t> out;
  const AttrValue* v = mod.attrs().defined() ? mod.attrs()->find(kAlignmentAttr) : nullptr;
  if (auto* list = v ? std::get_if<std::vector<int64_t>>(v) : nullptr) out = *list;
  else if (auto* one = v ? std::get_if<int64_t>(v) : nullptr) out = {*one};
  for (int64_t a : out)
    RX_CHECK(a > 0) << "static-plan-block-memory: module attribute " << kAlignmentAttr
                    << " holds alignment " << a << "; alignments must be positive";
  out.resize(std::max<size_t>(out.size(), mod.vdevices().size() + 1), fallback);
  return out;
}

/// Parses "name=bound" (a non-negative integer) into `out`; `where` names the place for errors.
void parse_bound(const std::string& item, const std::string& where,
                 std::map<std::string, int64_t>* out) {
  size_t eq = item.find('=');
  char* end = nullptr;
  int64_t bound = eq == std::string::npos ? 0 : std::strtoll(item.c_str() + eq + 1, &end, 10);
  RX_CHECK(eq != std::string::npos && eq > 0 && end != nullptr && end != item.c_str() + eq + 1 &&
           *end == '\0' && bound >= 0)
      << "static-plan-block-memory: " << where << " entry \"" << item
      << "\" is not of the form \"name=bound\" with a non-negative integer bound";
  (*out)[item.substr(0, eq)] = bound;
}

/// The bounds of the pass option `upper-bound`: "name=bound" items separated by commas or
/// spaces.
std::map<std::string, int64_t> option_bounds(const std::string& text) {
  std::map<std::string, int64_t> out;
  std::string item;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',' || text[i] == ' ') {
      if (!item.empty()) parse_bound(item, "option upper-bound", &out);
      item.clear();
    } else {
      item += text[i];
    }
  }
  return out;
}

/// The upper bounds named by `tir_var_upper_bound`, by variable name, over `defaults`.
std::map<std::string, int64_t> upper_bounds(const Function& func, const std::string& name,
                                            std::map<std::string, int64_t> defaults) {
  std::map<std::string, int64_t> out = std::move(defaults);
  const AttrValue* v = func.attrs.defined() ? func.attrs->find(kUpperBound) : nullptr;
  if (v == nullptr) return out;
  if (auto* obj = std::get_if<Ref<Object>>(v); obj && obj->as<AttrsNode>()) {
    for (const auto& [k, b] : obj->as<AttrsNode>()->fields) {
      auto* i = std::get_if<int64_t>(&b);
      RX_CHECK(i != nullptr) << "static-plan-block-memory: function '" << name << "': "
                             << kUpperBound << "[\"" << k << "\"] must be an integer, got "
                             << to_string(b);
      out[k] = *i;
    }
    return out;
  }
  auto* list = std::get_if<std::vector<std::string>>(v);
  RX_CHECK(list != nullptr) << "static-plan-block-memory: function '" << name << "': "
                            << kUpperBound
                            << " must be a dict {\"n\": 128} or a list [\"n=128\"], got "
                            << to_string(*v);
  for (const std::string& item : *list)
    parse_bound(item, "function '" + name + "': " + kUpperBound, &out);
  return out;
}

/// `bytes` as a positive constant times a scale: the product of its other factors (sorted by
/// their text, so that `n * m` and `m * n` are one scale), or null when it is constant.
std::pair<int64_t, PrimExpr> split_scale(const PrimExpr& bytes) {
  if (auto* c = bytes.as<tir::IntImm>()) return {c->value, PrimExpr()};
  int64_t units = 1;
  std::vector<std::pair<std::string, PrimExpr>> factors;
  std::function<void(const PrimExpr&)> walk = [&](const PrimExpr& e) {
    if (auto* m = e.as<tir::Mul>()) {
      walk(m->a);
      walk(m->b);
    } else if (auto* c = e.as<tir::IntImm>(); c && c->value > 0 &&
                                               units <= (int64_t(1) << 62) / c->value) {
      units *= c->value;
    } else {
      factors.emplace_back(tir::to_string(e), e);
    }
  };
  walk(bytes);
  std::stable_sort(factors.begin(), factors.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  PrimExpr scale = factors.at(0).second;
  for (size_t i = 1; i < factors.size(); ++i) scale = scale * factors[i].second;
  return {units, scale};
}

/// One allocation to plan.
struct Token {
  const BindingNode* binding;
  size_t index;        // binding position
  PrimExpr bytes;      // simplified; an IntImm when constant (or bounded)
  int64_t device;
  size_t last_use;
  bool output = false;
  int storage = -1;
  int64_t offset = 0;  // in its storage, in units of its scale
  int64_t units = 0;   // bytes = units * scale
  PrimExpr scale{};    // null: 1 (a constant size)

  bool overlaps(const Token& o) const { return index <= o.last_use && o.index <= last_use; }
  /// The scale's text ("" for constant sizes): tokens of one device and scale share an arena.
  std::string scale_key() const { return scale.defined() ? tir::to_string(scale) : ""; }
};

struct Storage {
  PrimExpr bytes;
  int64_t device;
  PrimExpr scale;  // null: 1
};

/// The interference graph: vertex t is token t, an edge joins two planned tokens live at once
/// (they may not share bytes). Out-edge sets make "do these two interfere" a lookup.
using InterferenceGraph = boost::adjacency_list<boost::setS, boost::vecS, boost::undirectedS>;

class Planner {
 public:
  Planner(const Function& func, const std::string& name, std::map<std::string, int64_t> bounds,
          std::vector<int64_t> alignments)
      : func_(func), name_(name), default_bounds_(std::move(bounds)),
        alignments_(std::move(alignments)) {}

  /// The planned function; null when there is nothing to plan.
  Ref<Function> run() {
    auto* seq = func_.body.as<SeqExpr>();
    if (seq == nullptr) return {};
    std::unordered_map<std::string, Ref<tir::Var>> param_vars;
    for (const Ref<Var>& p : func_.params)
      for (const auto& v : defined_symbolic_vars(p->struct_info)) {
        param_vars.emplace(v->name, v);
        defined_.insert(v.get());
        analyzer_.assume_nonnegative(v);
      }
    for (const auto& [n, bound] : upper_bounds(func_, name_, default_bounds_)) {
      auto it = param_vars.find(n);
      if (it != param_vars.end()) {
        analyzer_.set_bound(it->second, 0, bound);
        bounded_.insert(it->second.get());
      }
    }
    collect(*seq);
    if (tokens_.empty()) return {};
    plan();
    return rewrite(*seq);
  }

 private:
  /// Variables used by `e`, and the aliases in it.
  static std::vector<const VarNode*> uses_of(const Expr& e) {
    std::vector<const VarNode*> uses;
    post_order_visit(e, [&](const Expr& x) {
      if (auto* v = x.as<VarNode>()) uses.push_back(v);
    });
    return uses;
  }

  static bool is_op(const Expr& e, std::string_view name) {
    auto* c = e.as<Call>();
    auto* op = c ? c->op.as<Op>() : nullptr;
    return op && op->name == name;
  }

  /// The planned size of an allocation, or null when it cannot be planned.
  PrimExpr size_of(const Call& call) {
    auto* shape = call.args.at(0).as<ShapeExpr>();
    auto* dtype = call.args.at(1).as<DataTypeImm>();
    if (shape == nullptr || dtype == nullptr) return {};
    PrimExpr bytes = tir::int_imm(int64_t(dtype->value.bytes()));
    for (const PrimExpr& d : shape->values) {
      for (const auto& v : symbolic_vars(tensor_sinfo(std::vector<PrimExpr>{d}, dtype->value)))
        if (!defined_.count(v.get())) return {};
      bytes = bytes * (d->dtype == DataType::Int(64) ? d : tir::cast(DataType::Int(64), d));
    }
    bytes = analyzer_.simplify(bytes);
    if (bytes.is<tir::IntImm>()) return bytes;
    // Variables with an upper bound: plan the largest size they allow.
    bool all_bounded = true;
    for (const auto& v : symbolic_vars(call.struct_info)) all_bounded &= bounded_.count(v.get()) != 0;
    if (all_bounded) {
      auto bound = analyzer_.const_int_bound(bytes);
      if (bound.max_value != arith::ConstIntBound::kPosInf) return tir::int_imm(bound.max_value);
    }
    return bytes;
  }

  void collect(const SeqExpr& seq) {
    std::unordered_map<const VarNode*, std::vector<int>> alias;  // var -> tokens it may hold
    size_t index = 0;
    for (const Block& block : seq.blocks) {
      for (const Binding& b : block->bindings) {
        if (is_op(b->value, "relax.builtin.alloc_tensor")) {
          const Call& call = *b->value.as<Call>();
          PrimExpr bytes = size_of(call);
          auto* dev = call.args.at(2).as<PrimValue>();
          auto* dev_imm = dev ? dev->value.as<tir::IntImm>() : nullptr;
          if (bytes.defined() && dev_imm != nullptr) {
            alias[b->var.get()].push_back(int(tokens_.size()));
            tokens_.push_back({b.get(), index, bytes, dev_imm->value, index});
            std::tie(tokens_.back().units, tokens_.back().scale) = split_scale(bytes);
          }
        } else {
          std::vector<int> held;
          for (const VarNode* v : uses_of(b->value)) {
            auto it = alias.find(v);
            if (it == alias.end()) continue;
            for (int t : it->second) {
              tokens_[t].last_use = index;
              held.push_back(t);
            }
          }
          if (!is_op(b->value, "relax.vm.call_dps") && !held.empty())
            alias[b->var.get()] = std::move(held);
        }
        ++index;
      }
    }
    num_bindings_ = index;
    for (const VarNode* v : uses_of(seq.body)) {
      auto it = alias.find(v);
      if (it == alias.end()) continue;
      for (int t : it->second) tokens_[t].output = true;
    }
  }

  void plan() {
    interference_ = interference();
    // One arena per device and scale, packed by offsets: the constant sizes' first (by
    // device), then the scaled ones in the order of their first allocation.
    std::map<int64_t, std::vector<int>> constant;  // by device
    std::map<std::pair<std::string, int64_t>, size_t> group_of;
    std::vector<std::vector<int>> scaled;
    for (size_t t = 0; t < tokens_.size(); ++t) {
      const Token& tok = tokens_[t];
      if (tok.output) continue;
      if (!tok.scale.defined()) {
        constant[tok.device].push_back(int(t));
        continue;
      }
      auto [it, added] = group_of.emplace(std::pair{tok.scale_key(), tok.device}, scaled.size());
      if (added) scaled.emplace_back();
      scaled[it->second].push_back(int(t));
    }
    for (const auto& [device, members] : constant) pack_arena(device, members, PrimExpr());
    for (const std::vector<int>& members : scaled)
      pack_arena(tokens_[size_t(members[0])].device, members, tokens_[size_t(members[0])].scale);
  }

  /// The interference graph of the tokens not among the outputs. Tokens are in allocation
  /// order, so the later tokens that token a interferes with are those allocated up to its
  /// last use: the inner loop stops at the first one that is not.
  InterferenceGraph interference() const {
    InterferenceGraph g(tokens_.size());
    for (size_t a = 0; a < tokens_.size(); ++a)
      for (size_t b = a + 1; b < tokens_.size() && tokens_[b].overlaps(tokens_[a]); ++b)
        if (!tokens_[a].output && !tokens_[b].output) boost::add_edge(a, b, g);
    return g;
  }

  /// Offsets for `members` (one device, one `scale`; null: constant sizes) in one new storage,
  /// in units of the scale: the smallest of four greedy packings, by decreasing size,
  /// allocation order, decreasing lifetime and decreasing size × lifetime. Each places a
  /// tensor in the tightest gap left by the already placed tensors it interferes with (above
  /// them all when none fits); offsets are multiples of the device's alignment.
  void pack_arena(int64_t device, const std::vector<int>& members, const PrimExpr& scale) {
    int64_t align = device >= 0 && size_t(device) < alignments_.size() ? alignments_[size_t(device)]
                                                                        : alignments_.back();
    auto aligned = [align](int64_t b) { return (b + align - 1) / align * align; };
    auto pack = [&](std::vector<int> order, std::vector<int64_t>* offsets) {
      offsets->assign(tokens_.size(), 0);
      std::vector<bool> placed(tokens_.size(), false);
      int64_t total = 0;
      for (int t : order) {
        const Token& tok = tokens_[size_t(t)];
        int64_t want = aligned(tok.units);
        std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) of interfering tensors
        for (size_t p :
             boost::make_iterator_range(boost::adjacent_vertices(size_t(t), interference_)))
          if (placed[p])
            busy.emplace_back((*offsets)[p], (*offsets)[p] + aligned(tokens_[p].units));
        std::sort(busy.begin(), busy.end());
        int64_t end = 0, best = -1, best_gap = 0;
        for (const auto& [b, e] : busy) {
          if (b - end >= want && (best < 0 || b - end < best_gap)) {
            best = end;
            best_gap = b - end;
          }
          end = std::max(end, e);
        }
        (*offsets)[size_t(t)] = best >= 0 ? best : end;
        // The arena ends where its last tensor does (a scaled arena of one tensor of `n * 4`
        // bytes is `n * 4`, not `n * 64`).
        total = std::max(total, (*offsets)[size_t(t)] + (scale.defined() ? tok.units : want));
        placed[size_t(t)] = true;
      }
      return total;
    };
    auto sorted = [&](auto key) {
      std::vector<int> order = members;
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return key(tokens_[size_t(a)]) > key(tokens_[size_t(b)]);
      });
      return order;
    };
    auto length = [](const Token& t) { return int64_t(t.last_use - t.index + 1); };
    std::vector<std::vector<int>> orders = {
        sorted([](const Token& t) { return t.units; }),
        members,
        sorted([&](const Token& t) { return length(t); }),
        sorted([&](const Token& t) { return t.units * length(t); }),
    };
    std::vector<int64_t> offsets, candidate;
    int64_t total = -1;
    for (const std::vector<int>& order : orders) {
      int64_t size = pack(order, &candidate);
      if (total < 0 || size < total) {
        total = size;
        offsets = candidate;
      }
    }
    PrimExpr bytes = scale.defined() ? analyzer_.simplify(scale * tir::int_imm(total))
                                     : tir::int_imm(total);
    storages_.push_back({bytes, device, scale});
    for (int t : members) {
      tokens_[size_t(t)].storage = int(storages_.size() - 1);
      tokens_[size_t(t)].offset = offsets[size_t(t)];
    }
  }

  Ref<Function> rewrite(const SeqExpr& seq) {
    vm::register_vm_ops();
    std::vector<Ref<VarNode>> storage_vars;
    std::vector<Binding> entry;
    for (size_t i = 0; i < storages_.size(); ++i) {
      Ref<Var> v = make_var("storage" + std::to_string(i), object_sinfo());
      Expr call = vm::vm_alloc_storage(make_shape({storages_[i].bytes}), storages_[i].device);
      auto* c = call.as<Call>();
      entry.push_back(make_ref<VarBinding>(
          v, make_ref<Call>(c->op, c->args, c->attrs, c->sinfo_args, object_sinfo())));
      storage_vars.push_back(v);
    }
    std::unordered_map<const BindingNode*, const Token*> planned;
    for (const Token& t : tokens_)
      if (t.storage >= 0) planned[t.binding] = &t;
    std::vector<Block> blocks;
    if (!entry.empty()) blocks.push_back(make_ref<BindingBlock>(std::move(entry)));
    for (const Block& block : seq.blocks) {
      std::vector<Binding> bindings;
      for (const Binding& b : block->bindings) {
        auto it = planned.find(b.get());
        if (it == planned.end()) {
          bindings.push_back(b);
          continue;
        }
        const Call& alloc = *b->value.as<Call>();
        const Token& tok = *it->second;
        const Storage& storage = storages_[size_t(tok.storage)];
        PrimExpr offset = tir::int_imm(tok.offset);
        if (storage.scale.defined() && tok.offset != 0)
          offset = analyzer_.simplify(storage.scale * offset);
        Expr call = vm::vm_alloc_tensor(Expr(storage_vars[size_t(tok.storage)]), offset,
                                        alloc.args[0], alloc.args[1].as<DataTypeImm>()->value);
        auto* c = call.as<Call>();
        bindings.push_back(make_ref<VarBinding>(
            b->var, make_ref<Call>(c->op, c->args, c->attrs, c->sinfo_args, b->var->struct_info)));
      }
      blocks.push_back(make_block(std::move(bindings), block->is_dataflow()));
    }
    Expr body = make_ref<SeqExpr>(std::move(blocks), seq.body, seq.struct_info);
    return make_ref<Function>(func_.params, body, func_.ret_struct_info, func_.is_pure,
                              statistics());
  }

  /// The byte counts of the file comment, when every planned size is constant.
  Attrs statistics() {
    for (const Token& t : tokens_)
      if (!t.bytes.is<tir::IntImm>()) return func_.attrs;
    auto value = [](const PrimExpr& e) { return e.as<tir::IntImm>()->value; };
    int64_t planned = 0, unplanned = 0, bound = 0;
    for (const Storage& s : storages_) planned += value(s.bytes);
    for (const Token& t : tokens_) {
      unplanned += value(t.bytes);
      if (t.output) planned += value(t.bytes);
    }
    int64_t outputs = 0;
    for (const Token& t : tokens_)
      if (t.output) outputs += value(t.bytes);
    for (size_t i = 0; i < num_bindings_; ++i) {
      int64_t live = 0;
      for (const Token& t : tokens_)
        if (!t.output && t.index <= i && i <= t.last_use) live += value(t.bytes);
      bound = std::max(bound, live);
    }
    bound += outputs;
    Attrs attrs = with_attr(func_.attrs, "memory_planned_bytes", planned);
    attrs = with_attr(attrs, "memory_unplanned_bytes", unplanned);
    return with_attr(attrs, "memory_live_bytes_bound", bound);
  }

  const Function& func_;
  const std::string& name_;
  std::map<std::string, int64_t> default_bounds_;
  std::vector<int64_t> alignments_;  // per VM device index
  arith::Analyzer analyzer_;
  std::unordered_set<const tir::Var*> defined_;
  std::unordered_set<const tir::Var*> bounded_;
  std::vector<Token> tokens_;
  InterferenceGraph interference_;
  std::vector<Storage> storages_;
  size_t num_bindings_ = 0;
};

Ref<Function> static_plan_block_memory(const Ref<Function>& func, const PassArgs& args) {
  Planner planner(*func, args.function_name,
                  option_bounds(args.options.get_string("upper-bound")),
                  device_alignments(args.module, args.options.get_int("alignment")));
  Ref<Function> planned = planner.run();
  return planned.defined() ? planned : func;
}

void register_passes(transform::PluginRegistrar& r) {
  r.add_pass({"static-plan-block-memory",
              "Plan the explicit allocations of each function into reused storages",
              transform::Granularity::kFunction,
              {{"upper-bound", transform::OptionType::kString, std::string(),
                "upper bounds of symbolic variables, \"name=bound\" separated by commas or "
                "spaces, for functions whose tir_var_upper_bound does not name them"},
               {"alignment", transform::OptionType::kInt, int64_t(64),
                "byte alignment of offsets in an arena, for devices the module attribute "
                "vdevice_alignment (a list by VM device index) does not give"}}},
             transform::FunctionTransform(static_plan_block_memory));
}

}  // namespace

}  // namespace relax::memory

RELAX_PLUGIN("memory", "0.1.0", relax::memory::register_passes)
