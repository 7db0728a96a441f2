// Statements, buffers and the kernel signature of the OpenCL code generator (opencl_codegen.h).
#include <algorithm>

#include "codegen_internal.h"
#include "relax/support/diagnostic.h"
#include "relax/tir/intrin.h"

namespace relax::opencl {

using namespace relax::tir;
using tir::Buffer;
using tir::Call;
using tir::Evaluate;
using tir::Let;
using tir::PrimFunc;
using tir::Var;

namespace {

/// The data vars the kernel stores to (the other buffers are declared const).
std::unordered_set<const Var*> stored_vars(const Stmt& body) {
  std::unordered_set<const Var*> out;
  post_order_visit(body, [&](const Stmt& s) {
    if (auto* st = s.as<BufferStore>()) out.insert(st->buffer->data.get());
  });
  return out;
}

int thread_dim(const std::string& tag) { return tag.back() - 'x'; }

}  // namespace

void KernelWriter::line(const std::string& text) {
  body_ << std::string(size_t(indent_) * 2, ' ') << text << "\n";
}

std::string KernelWriter::fresh(const std::string& hint) {
  // Every name gets a prefix so that none shadows a built-in function (exp, min, ...).
  std::string base = cl_identifier(hint.empty() ? "v" : hint);
  std::string name = base;
  for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
  names_.insert(name);
  return name;
}

const BufferSlot& KernelWriter::slot_of(const Buffer& b, const char* what) {
  auto it = buffers_.find(b.data.get());
  if (it == buffers_.end())
    unsupported(std::string("a ") + what + " buffer " + b.name + " whose memory (" + b.data->name +
                ") is neither a parameter nor allocated in the kernel");
  if (it->second.dtype != b.dtype.element_of())
    unsupported("buffer " + b.name + " viewed as " + b.dtype.to_string() + " over memory of " +
                it->second.dtype.to_string());
  return it->second;
}

std::string KernelWriter::index_of(const Buffer& b, const std::vector<PrimExpr>& indices,
                                   int lane) {
  if (b.ndim() == 1 && b.strides.empty() && is_const_int(b.elem_offset, 0))
    return expr(indices.at(0), lane);
  std::vector<PrimExpr> strides = effective_strides(b);
  std::string out = "(" + expr(b.elem_offset);
  for (size_t d = 0; d < indices.size(); ++d)
    out += " + " + expr(indices[d], lane) + " * " + expr(strides[d]);
  return out + ")";
}

std::string KernelWriter::load(const BufferSlot& s, DataType t, const std::string& index) {
  std::string i = s.space == BufferSlot::Space::kGlobal ? s.offset + " + " + index : index;
  if (is_soft_half(t, opt_)) {
    std::string p = s.space == BufferSlot::Space::kGlobal  ? s.name
                    : s.space == BufferSlot::Space::kLocal ? "(__local half*)" + s.name
                                                           : "(half*)" + s.name;
    return "vload_half(" + i + ", " + p + ")";
  }
  std::string elem = s.name + "[" + i + "]";
  if (is_bf16(t)) return "rx_bf2f(" + elem + ")";
  if (t.is_bool()) return "(" + elem + " != 0)";
  return elem;
}

std::string KernelWriter::store(const BufferSlot& s, DataType t, const std::string& index,
                                const std::string& value) {
  std::string i = s.space == BufferSlot::Space::kGlobal ? s.offset + " + " + index : index;
  if (is_soft_half(t, opt_)) {
    std::string p = s.space == BufferSlot::Space::kGlobal  ? s.name
                    : s.space == BufferSlot::Space::kLocal ? "(__local half*)" + s.name
                                                           : "(half*)" + s.name;
    return "vstore_half_rte(" + value + ", " + i + ", " + p + ");";
  }
  std::string elem = s.name + "[" + i + "]";
  if (is_bf16(t)) return elem + " = rx_f2bf(" + value + ");";
  if (t.is_bool()) return elem + " = (uchar)(" + value + ");";
  return elem + " = " + value + ";";
}

void KernelWriter::stmt(const Stmt& s) {
  if (auto* seq = s.as<SeqStmt>()) {
    for (const Stmt& x : seq->seq) stmt(x);
  } else if (auto* let = s.as<LetStmt>()) {
    DataType t = let->var->dtype;
    if (t.is_handle()) unsupported("a LetStmt of the handle " + let->var->name);
    std::vector<std::string> names;
    line("{");
    ++indent_;
    for (int l = 0; l < t.lanes; ++l) {
      std::string n = fresh("v_" + let->var->name + (t.lanes > 1 ? "_" + std::to_string(l) : ""));
      line("const " + value_type(t) + " " + n + " = " + expr(let->value, l) + ";");
      names.push_back(n);
    }
    vars_[let->var.get()] = names;
    stmt(let->body);
    vars_.erase(let->var.get());
    --indent_;
    line("}");
  } else if (auto* f = s.as<For>()) {
    std::string ty = value_type(f->loop_var->dtype);
    std::string v = fresh("v_" + f->loop_var->name);
    vars_[f->loop_var.get()] = {v};
    if (f->kind == ForKind::kThreadBinding) {
      const std::string& tag = f->thread_tag;
      bool block = tag.rfind("blockIdx.", 0) == 0;
      if ((!block && tag.rfind("threadIdx.", 0) != 0) || tag.size() < 2 || thread_dim(tag) < 0 ||
          thread_dim(tag) > 2)
        unsupported("the thread binding " + tag);
      int d = thread_dim(tag);
      line("{");
      ++indent_;
      line("const " + ty + " " + v + " = " + expr(f->min) + " + (" + ty + ")" +
           (block ? "get_group_id(" : "get_local_id(") + std::to_string(d) + ");");
      const PrimExpr& launch = block ? kernel_.grid[size_t(d)] : kernel_.block[size_t(d)];
      const int64_t* ext = as_const_int(f->extent);
      const int64_t* full = as_const_int(launch);
      bool guard = !(ext && full && *ext == *full) && !f->extent.same_as(launch);
      if (guard) line("if (" + v + " < " + expr(f->min) + " + " + expr(f->extent) + ") {");
      if (guard) ++indent_;
      stmt(f->body);
      if (guard) --indent_;
      if (guard) line("}");
      --indent_;
      line("}");
    } else {
      // Serial, unrolled, vectorised (scalarised) and parallel loops run in order on the thread.
      std::string end = fresh("v_" + f->loop_var->name + "_end");
      line("for (" + ty + " " + v + " = " + expr(f->min) + ", " + end + " = " + v + " + " +
           expr(f->extent) + "; " + v + " < " + end + "; ++" + v + ") {");
      ++indent_;
      stmt(f->body);
      --indent_;
      line("}");
    }
    vars_.erase(f->loop_var.get());
  } else if (auto* st = s.as<BufferStore>()) {
    const BufferSlot& slot = slot_of(*st->buffer, "store to");
    int lanes = st->value->dtype.lanes;
    for (int l = 0; l < lanes; ++l)
      line(store(slot, st->buffer->dtype, index_of(*st->buffer, st->indices, l),
                 expr(st->value, l)));
  } else if (auto* ite = s.as<IfThenElse>()) {
    line("if (" + expr(ite->condition) + ") {");
    ++indent_;
    stmt(ite->then_case);
    --indent_;
    if (ite->else_case.defined()) {
      line("} else {");
      ++indent_;
      stmt(ite->else_case);
      --indent_;
    }
    line("}");
  } else if (auto* ev = s.as<Evaluate>()) {
    if (is_storage_sync(ev->value)) {
      line("barrier(CLK_LOCAL_MEM_FENCE);");
    } else if (!ev->value.as<IntImm>()) {
      line("(void)" + expr(ev->value) + ";");
    }
  } else if (auto* a = s.as<Allocate>()) {
    int64_t n = 1;
    for (const PrimExpr& e : a->extents) {
      const int64_t* c = as_const_int(e);
      if (!c)
        unsupported("the " + a->scope + " array " + a->buffer_var->name + " of non-constant size " +
                    to_string(e));
      n *= *c;
    }
    BufferSlot slot;
    slot.name = fresh("s_" + a->buffer_var->name);
    slot.dtype = a->dtype.element_of();
    // float16 without fp16: ushort arrays read and written through vload/vstore_half.
    std::string ty = is_soft_half(slot.dtype, opt_) ? "ushort" : storage_type(slot.dtype);
    std::string decl = ty + " " + slot.name + "[" + std::to_string(std::max<int64_t>(n, 1)) + "];";
    if (a->scope == "shared") {
      slot.space = BufferSlot::Space::kLocal;
      shared_decls_ << "  __local " << decl << "\n";
    } else if (a->scope == "local") {
      slot.space = BufferSlot::Space::kPrivate;
      line(decl);
    } else {
      unsupported("a \"" + a->scope + "\" allocation (" + a->buffer_var->name +
                  ") inside the kernel");
    }
    buffers_[a->buffer_var.get()] = slot;
    stmt(a->body);
  } else if (s.as<AssertStmt>()) {
    unsupported("an assert inside the kernel");
  } else {
    unsupported(std::string("the statement ") + stmt_kind_name(s->kind()));
  }
}

std::string KernelWriter::write() {
  const PrimFunc& f = *kernel_.func;
  std::string name = cl_identifier(kernel_.name);
  names_.insert(name);
  std::unordered_set<const Var*> stored = stored_vars(f.body);
  std::vector<std::string> buffer_params, scalar_params, offset_params;
  for (const Ref<Var>& p : f.params) {
    Ref<Buffer> b = f.buffer_of(p);
    if (b.defined()) {
      BufferSlot slot;
      slot.name = fresh("b_" + b->name);
      slot.offset = fresh("o_" + b->name);
      slot.dtype = b->dtype.element_of();
      std::string cst = stored.count(p.get()) ? "" : "const ";
      buffer_params.push_back(cst + "__global " + storage_type(slot.dtype) + "* restrict " +
                              slot.name);
      offset_params.push_back("int " + slot.offset);
      buffers_[p.get()] = slot;
      continue;
    }
    DataType t = p->dtype;
    if (!t.is_int() || (t.bits != 32 && t.bits != 64) || t.lanes != 1)
      unsupported("the scalar parameter " + p->name + " of type " + t.to_string() +
                  " (kernel scalars are int32 or int64)");
    std::string n = fresh("v_" + p->name);
    vars_[p.get()] = {n};
    scalar_params.push_back(value_type(t) + " " + n);
  }
  stmt(f.body);

  std::ostringstream out;
  int64_t block[3];
  for (int d = 0; d < 3; ++d) {
    const int64_t* c = as_const_int(kernel_.block[size_t(d)]);
    if (!c)
      unsupported("a work-group size that is not constant (" + to_string(kernel_.block[size_t(d)]) +
                  ")");
    block[d] = *c;
  }
  out << "__kernel __attribute__((reqd_work_group_size(" << block[0] << ", " << block[1] << ", "
      << block[2] << ")))\nvoid " << name << "(";
  std::vector<std::string> all = buffer_params;
  all.insert(all.end(), scalar_params.begin(), scalar_params.end());
  all.insert(all.end(), offset_params.begin(), offset_params.end());
  for (size_t i = 0; i < all.size(); ++i) out << (i ? ",\n    " : "") << all[i];
  if (all.empty()) out << "void";
  out << ") {\n" << shared_decls_.str() << body_.str() << "}\n";
  return out.str();
}

std::string kernel_source(const GpuKernel& kernel, const CodegenOptions& options,
                          KernelFeatures* features) {
  KernelWriter w(kernel, options);
  std::string s = w.write();
  if (features) *features = w.features;
  return s;
}

}  // namespace relax::opencl
