#include "relax/tir/stmt.h"

#include <sstream>

#include "relax/support/diagnostic.h"

namespace relax::tir {

const char* stmt_kind_name(uint32_t kind) {
  switch (StmtKind(kind)) {
#define RELAX_X(Name)     \
  case StmtKind::k##Name: \
    return #Name;
    RELAX_TIR_STMT_NODES(RELAX_X)
#undef RELAX_X
    default:
      return "<not a Stmt>";
  }
}

const char* for_kind_name(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unroll";
    case ForKind::kThreadBinding:
      return "thread_binding";
  }
  return "<unknown loop kind>";
}

char iter_var_type_letter(IterVarType type) {
  switch (type) {
    case IterVarType::kSpatial:
      return 'S';
    case IterVarType::kReduce:
      return 'R';
    case IterVarType::kOpaque:
      return 'O';
  }
  return '?';
}

const char* iter_var_type_name(IterVarType type) {
  switch (type) {
    case IterVarType::kSpatial:
      return "spatial";
    case IterVarType::kReduce:
      return "reduce";
    case IterVarType::kOpaque:
      return "opaque";
  }
  return "<unknown iter type>";
}

namespace {
void check_bool_scalar(const PrimExpr& e, const char* what) {
  RX_ICHECK(e.defined()) << what << " is undefined";
  RX_ICHECK(e->dtype.is_bool() && e->dtype.is_scalar())
      << what << " must be a bool scalar, got " << e->dtype.to_string() << " (" << to_string(e)
      << ")";
}
}  // namespace

LetStmt::LetStmt(Ref<Var> var_, PrimExpr value_, Stmt body_)
    : StmtNode(StmtKind::kLetStmt),
      var(std::move(var_)),
      value(std::move(value_)),
      body(std::move(body_)) {
  RX_ICHECK(var.defined() && value.defined() && body.defined())
      << "LetStmt with an undefined field";
  RX_ICHECK(var->dtype == value->dtype)
      << "LetStmt " << var->name << ": variable type " << var->dtype.to_string()
      << " differs from value type " << value->dtype.to_string();
}

AssertStmt::AssertStmt(PrimExpr condition_, std::string message_, Stmt body_)
    : StmtNode(StmtKind::kAssertStmt),
      condition(std::move(condition_)),
      message(std::move(message_)),
      body(std::move(body_)) {
  check_bool_scalar(condition, "assert condition");
  RX_ICHECK(body.defined()) << "AssertStmt without a body";
}

For::For(Ref<Var> loop_var_, PrimExpr min_, PrimExpr extent_, ForKind kind_, Stmt body_,
         std::string thread_tag_, Attrs annotations_)
    : StmtNode(StmtKind::kFor),
      loop_var(std::move(loop_var_)),
      min(std::move(min_)),
      extent(std::move(extent_)),
      kind(kind_),
      body(std::move(body_)),
      thread_tag(std::move(thread_tag_)),
      annotations(std::move(annotations_)) {
  RX_ICHECK(loop_var.defined() && min.defined() && extent.defined() && body.defined())
      << "For with an undefined field";
  const DataType t = loop_var->dtype;
  RX_ICHECK(t.is_integer_like() && !t.is_bool() && t.is_scalar())
      << "loop variable " << loop_var->name << " must be an integer scalar, got " << t.to_string();
  RX_ICHECK(min->dtype == t && extent->dtype == t)
      << "loop " << loop_var->name << " (" << t.to_string() << "): min " << to_string(min) << " ("
      << min->dtype.to_string() << ") and extent " << to_string(extent) << " ("
      << extent->dtype.to_string() << ") must have the loop variable's type";
  RX_ICHECK((kind == ForKind::kThreadBinding) == !thread_tag.empty())
      << "loop " << loop_var->name
      << ": a thread tag is required for, and only for, thread_binding loops";
}

BufferStore::BufferStore(Ref<Buffer> buffer_, PrimExpr value_, std::vector<PrimExpr> indices_)
    : StmtNode(StmtKind::kBufferStore),
      buffer(std::move(buffer_)),
      value(std::move(value_)),
      indices(std::move(indices_)) {
  RX_ICHECK(buffer.defined() && value.defined()) << "BufferStore with an undefined buffer or value";
  int lanes = access_lanes(*buffer, indices, "store");
  RX_ICHECK(value->dtype == buffer->dtype.with_lanes(lanes))
      << "store to buffer " << buffer->name << " (" << buffer->dtype.to_string() << ", " << lanes
      << (lanes == 1 ? " lane" : " lanes") << ") of a value of type " << value->dtype.to_string()
      << ": " << to_string(value);
}

IfThenElse::IfThenElse(PrimExpr condition_, Stmt then_case_, Stmt else_case_)
    : StmtNode(StmtKind::kIfThenElse),
      condition(std::move(condition_)),
      then_case(std::move(then_case_)),
      else_case(std::move(else_case_)) {
  check_bool_scalar(condition, "if condition");
  RX_ICHECK(then_case.defined()) << "IfThenElse without a then branch";
}

SeqStmt::SeqStmt(std::vector<Stmt> seq_) : StmtNode(StmtKind::kSeqStmt), seq(std::move(seq_)) {
  for (const auto& s : seq) RX_ICHECK(s.defined()) << "SeqStmt with an undefined statement";
}

Allocate::Allocate(Ref<Var> buffer_var_, DataType dtype_, std::vector<PrimExpr> extents_,
                   std::string scope_, Stmt body_, Attrs annotations_)
    : StmtNode(StmtKind::kAllocate),
      buffer_var(std::move(buffer_var_)),
      dtype(dtype_),
      extents(std::move(extents_)),
      scope(std::move(scope_)),
      body(std::move(body_)),
      annotations(std::move(annotations_)) {
  RX_ICHECK(buffer_var.defined() && buffer_var->dtype.is_handle())
      << "Allocate needs a handle variable";
  RX_ICHECK(!dtype.is_void()) << "Allocate " << buffer_var->name << " of void";
  for (const auto& e : extents)
    RX_ICHECK(e.defined() && e->dtype.is_integer_like() && e->dtype.is_scalar())
        << "Allocate " << buffer_var->name << ": extents must be integer scalars";
  RX_ICHECK(is_valid_storage_scope(scope))
      << "Allocate " << buffer_var->name << ": unknown storage scope '" << scope << "'";
  RX_ICHECK(body.defined()) << "Allocate " << buffer_var->name << " without a body";
}

Evaluate::Evaluate(PrimExpr value_) : StmtNode(StmtKind::kEvaluate), value(std::move(value_)) {
  RX_ICHECK(value.defined()) << "Evaluate of an undefined expression";
}

IterVar::IterVar(Ref<Var> var_, Range dom_, IterVarType type_)
    : Object(kKind), var(std::move(var_)), dom(std::move(dom_)), type(type_) {
  RX_ICHECK(var.defined() && dom.min.defined() && dom.extent.defined())
      << "IterVar with an undefined field";
  RX_ICHECK(var->dtype.is_integer_like() && !var->dtype.is_bool() && var->dtype.is_scalar())
      << "iteration variable " << var->name << " must be an integer scalar, got "
      << var->dtype.to_string();
  RX_ICHECK(dom.min->dtype == var->dtype && dom.extent->dtype == var->dtype)
      << "iteration variable " << var->name << " (" << var->dtype.to_string()
      << "): domain must have the variable's type, got " << dom.min->dtype.to_string() << " and "
      << dom.extent->dtype.to_string();
}

Block::Block(std::string name_, std::vector<Ref<IterVar>> iter_vars_,
             std::vector<BufferRegion> reads_, std::vector<BufferRegion> writes_, Stmt body_,
             Stmt init_, std::vector<Ref<Buffer>> alloc_buffers_,
             std::vector<MatchBufferRegion> match_buffers_, Attrs annotations_)
    : StmtNode(StmtKind::kBlock),
      name(std::move(name_)),
      iter_vars(std::move(iter_vars_)),
      reads(std::move(reads_)),
      writes(std::move(writes_)),
      init(std::move(init_)),
      body(std::move(body_)),
      alloc_buffers(std::move(alloc_buffers_)),
      match_buffers(std::move(match_buffers_)),
      annotations(std::move(annotations_)) {
  RX_ICHECK(body.defined()) << "block " << name << " without a body";
  for (const auto& iv : iter_vars)
    RX_ICHECK(iv.defined()) << "block " << name << ": undefined iteration variable";
  auto check_regions = [&](const std::vector<BufferRegion>& regions, const char* what) {
    for (const auto& r : regions) {
      RX_ICHECK(r.buffer.defined())
          << "block " << name << ": " << what << " region of an undefined buffer";
      RX_ICHECK(r.region.size() == r.buffer->ndim())
          << "block " << name << ": " << what << " region of buffer " << r.buffer->name << " (rank "
          << r.buffer->ndim() << ") has " << r.region.size() << " ranges";
    }
  };
  check_regions(reads, "read");
  check_regions(writes, "write");
  for (const auto& b : alloc_buffers)
    RX_ICHECK(b.defined()) << "block " << name << ": undefined alloc_buffer";
  for (const auto& m : match_buffers) {
    RX_ICHECK(m.buffer.defined() && m.source.buffer.defined())
        << "block " << name << ": undefined match_buffer";
  }
}

BlockRealize::BlockRealize(std::vector<PrimExpr> iter_values_, PrimExpr predicate_,
                           Ref<Block> block_)
    : StmtNode(StmtKind::kBlockRealize),
      iter_values(std::move(iter_values_)),
      predicate(std::move(predicate_)),
      block(std::move(block_)) {
  RX_ICHECK(block.defined()) << "BlockRealize without a block";
  check_bool_scalar(predicate, "block predicate");
  RX_ICHECK(iter_values.size() == block->iter_vars.size())
      << "block " << block->name << " has " << block->iter_vars.size()
      << " iteration variables but is bound to " << iter_values.size() << " values";
  for (size_t i = 0; i < iter_values.size(); ++i) {
    const auto& iv = block->iter_vars[i];
    RX_ICHECK(iter_values[i].defined() && iter_values[i]->dtype == iv->var->dtype)
        << "block " << block->name << ": binding of " << iv->var->name << " ("
        << iv->var->dtype.to_string() << ") has type "
        << (iter_values[i].defined() ? iter_values[i]->dtype.to_string()
                                     : std::string("<undefined>"));
  }
}

// ---- Helpers.

Stmt buffer_store(const Ref<Buffer>& buffer, PrimExpr value, std::vector<PrimExpr> indices) {
  return make_ref<BufferStore>(buffer, std::move(value), std::move(indices));
}

Stmt no_op() { return make_ref<Evaluate>(int_imm(0, DataType::Int(32))); }

bool is_no_op(const Stmt& s) {
  auto* e = s.as<Evaluate>();
  return e && (e->value.is<IntImm>() || e->value.is<FloatImm>());
}

namespace {
void flatten_into(const Stmt& s, std::vector<Stmt>* out) {
  if (!s.defined() || is_no_op(s)) return;
  if (auto* seq = s.as<SeqStmt>()) {
    for (const auto& c : seq->seq) flatten_into(c, out);
    return;
  }
  out->push_back(s);
}
}  // namespace

Stmt seq_stmt(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  flat.reserve(stmts.size());
  for (const auto& s : stmts) flatten_into(s, &flat);
  if (flat.empty()) return no_op();
  if (flat.size() == 1) return flat.front();
  return make_ref<SeqStmt>(std::move(flat));
}

Ref<IterVar> make_iter_var(Ref<Var> v, PrimExpr extent, IterVarType type) {
  return make_ref<IterVar>(std::move(v), Range::upto(std::move(extent)), type);
}

Stmt block_realize(std::vector<PrimExpr> iter_values, Ref<Block> block) {
  return make_ref<BlockRealize>(std::move(iter_values), bool_imm(true), std::move(block));
}

// ---- to_string: a short TVMScript-like form for messages.

namespace {

class DebugPrinter {
 public:
  explicit DebugPrinter(std::ostream& os) : os_(os) {}

  void print(const Stmt& s, int indent) {
    if (!s.defined()) {
      line(indent) << "<null>\n";
      return;
    }
    switch (StmtKind(s->kind())) {
      case StmtKind::kLetStmt: {
        auto* n = s.as<LetStmt>();
        line(indent) << n->var->name << " = " << to_string(n->value) << "\n";
        print(n->body, indent);
        return;
      }
      case StmtKind::kAssertStmt: {
        auto* n = s.as<AssertStmt>();
        line(indent) << "assert " << to_string(n->condition) << ", \"" << n->message << "\"\n";
        print(n->body, indent);
        return;
      }
      case StmtKind::kFor: {
        auto* n = s.as<For>();
        auto& o = line(indent) << "for " << n->loop_var->name << " in T." << for_kind_name(n->kind)
                               << "(";
        if (!is_const_int(n->min, 0))
          o << to_string(n->min) << ", " << to_string(n->min + n->extent);
        else
          o << to_string(n->extent);
        if (!n->thread_tag.empty()) o << ", thread=\"" << n->thread_tag << "\"";
        if (n->annotations.defined() && !n->annotations->fields.empty()) {
          o << ", annotations={";
          for (size_t i = 0; i < n->annotations->fields.size(); ++i)
            o << (i ? ", " : "") << "\"" << n->annotations->fields[i].first << "\": ...";
          o << "}";
        }
        o << "):\n";
        print(n->body, indent + 1);
        return;
      }
      case StmtKind::kBufferStore: {
        auto* n = s.as<BufferStore>();
        line(indent) << n->buffer->name << "[" << join(n->indices) << "] = " << to_string(n->value)
                     << "\n";
        return;
      }
      case StmtKind::kIfThenElse: {
        auto* n = s.as<IfThenElse>();
        line(indent) << "if " << to_string(n->condition) << ":\n";
        print(n->then_case, indent + 1);
        if (n->else_case.defined()) {
          line(indent) << "else:\n";
          print(n->else_case, indent + 1);
        }
        return;
      }
      case StmtKind::kSeqStmt:
        for (const auto& c : s.as<SeqStmt>()->seq) print(c, indent);
        return;
      case StmtKind::kAllocate: {
        auto* n = s.as<Allocate>();
        line(indent) << n->buffer_var->name << " = T.allocate([" << join(n->extents) << "], \""
                     << n->dtype.to_string() << "\", \"" << n->scope << "\")\n";
        print(n->body, indent);
        return;
      }
      case StmtKind::kEvaluate:
        line(indent) << "T.evaluate(" << to_string(s.as<Evaluate>()->value) << ")\n";
        return;
      case StmtKind::kBlock:
        print_block(s.as<Block>(), nullptr, indent);
        return;
      case StmtKind::kBlockRealize: {
        auto* n = s.as<BlockRealize>();
        print_block(n->block.get(), n, indent);
        return;
      }
      default:
        line(indent) << "<" << stmt_kind_name(s->kind()) << ">\n";
    }
  }

 private:
  std::ostream& line(int indent) {
    for (int i = 0; i < indent; ++i) os_ << "    ";
    return os_;
  }

  static std::string join(const std::vector<PrimExpr>& es) {
    std::string s;
    for (size_t i = 0; i < es.size(); ++i) s += (i ? ", " : "") + to_string(es[i]);
    return s;
  }

  static std::string region(const BufferRegion& r) {
    std::string s = r.buffer->name + "[";
    for (size_t i = 0; i < r.region.size(); ++i) {
      const Range& range = r.region[i];
      s += i ? ", " : "";
      if (is_const_int(range.extent, 1)) {
        s += to_string(range.min);
      } else {
        s += to_string(range.min) + ":" + to_string(range.min + range.extent);
      }
    }
    return s + "]";
  }

  static std::string regions(const std::vector<BufferRegion>& rs) {
    std::string s;
    for (size_t i = 0; i < rs.size(); ++i) s += (i ? ", " : "") + region(rs[i]);
    return s;
  }

  void print_block(const Block* b, const BlockRealize* realize, int indent) {
    line(indent) << "with T.block(\"" << b->name << "\"):\n";
    const int in = indent + 1;
    bool all_vars = realize != nullptr && !b->iter_vars.empty();
    if (realize)
      for (const auto& v : realize->iter_values) all_vars &= v.is<Var>();
    if (all_vars) {
      std::string names, kinds;
      for (const auto& iv : b->iter_vars) {
        names += (names.empty() ? "" : ", ") + iv->var->name;
        kinds += iter_var_type_letter(iv->type);
      }
      line(in) << names << " = T.axis.remap(\"" << kinds << "\", [" << join(realize->iter_values)
               << "])\n";
    } else {
      for (size_t i = 0; i < b->iter_vars.size(); ++i) {
        const auto& iv = b->iter_vars[i];
        auto& o = line(in) << iv->var->name << " = T.axis." << iter_var_type_name(iv->type) << "(";
        if (is_const_int(iv->dom.min, 0))
          o << to_string(iv->dom.extent);
        else
          o << "(" << to_string(iv->dom.min) << ", " << to_string(iv->dom.min + iv->dom.extent)
            << ")";
        if (realize) o << ", " << to_string(realize->iter_values[i]);
        o << ")\n";
      }
    }
    if (realize && !is_const_int(realize->predicate, 1))
      line(in) << "T.where(" << to_string(realize->predicate) << ")\n";
    line(in) << "T.reads(" << regions(b->reads) << ")\n";
    line(in) << "T.writes(" << regions(b->writes) << ")\n";
    for (const auto& buf : b->alloc_buffers)
      line(in) << buf->name << " = T.alloc_buffer((" << join(buf->shape)
               << (buf->shape.size() == 1 ? "," : "") << "), \"" << buf->dtype.to_string() << "\""
               << (buf->scope != "global" ? ", scope=\"" + buf->scope + "\"" : "") << ")\n";
    for (const auto& m : b->match_buffers)
      line(in) << m.buffer->name << " = T.match_buffer(" << region(m.source) << ", ("
               << join(m.buffer->shape) << "))\n";
    if (b->init.defined()) {
      line(in) << "with T.init():\n";
      print(b->init, in + 1);
    }
    print(b->body, in);
  }

  std::ostream& os_;
};

}  // namespace

std::string to_string(const Stmt& s) {
  std::ostringstream os;
  DebugPrinter(os).print(s, 0);
  return os.str();
}

}  // namespace relax::tir
