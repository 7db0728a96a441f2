// The compute DSL's tensors, stages and reductions (tir/compute.h). create_prim_func lives in
// compute_prim_func.cc.
//
// A stage learns which tensors it reads by recording them while its compute function runs:
// Tensor::operator() reports itself to the innermost compute() on this thread.
#include "relax/op/compute.h"

#include <cfloat>
#include <limits>

#include "relax/support/diagnostic.h"

namespace relax::te {

namespace {

thread_local std::vector<Tensor>* g_reads = nullptr;

/// Collects the tensors a compute function reads, for the duration of one compute() call.
class ReadRecorder {
 public:
  ReadRecorder() : prev_(g_reads) { g_reads = &reads; }
  ~ReadRecorder() { g_reads = prev_; }
  ReadRecorder(const ReadRecorder&) = delete;
  ReadRecorder& operator=(const ReadRecorder&) = delete;
  std::vector<Tensor> reads;

 private:
  std::vector<Tensor>* prev_;
};

void record_read(const Tensor& t) {
  if (g_reads == nullptr) return;
  for (const auto& r : *g_reads)
    if (r.same_as(t)) return;
  g_reads->push_back(t);
}

PrimExpr to_int64(const PrimExpr& e, const char* what) {
  RX_CHECK(e.defined()) << what << " is undefined";
  RX_CHECK(e->dtype.is_integer_like() && e->dtype.is_scalar() && !e->dtype.is_bool())
      << what << " must be an integer scalar, got " << e->dtype.to_string() << " ("
      << tir::to_string(e) << ")";
  return tir::cast(DataType::Int(64), e);
}

PrimExpr make_const(DataType t, double value) {
  if (t.is_float()) return tir::float_imm(value, t);
  if (t.is_bool()) return tir::bool_imm(value != 0);
  return tir::int_imm(int64_t(value), t);
}

Reducer binary_reducer(DataType t, PrimExpr identity, PrimExpr (*fn)(PrimExpr, PrimExpr)) {
  RX_ICHECK(t.is_scalar()) << "reductions take scalar values, got " << t.to_string();
  return make_reducer(
      [fn](const std::vector<PrimExpr>& l, const std::vector<PrimExpr>& r) {
        return std::vector<PrimExpr>{fn(l[0], r[0])};
      },
      {std::move(identity)});
}

PrimExpr add_fn(PrimExpr a, PrimExpr b) { return std::move(a) + std::move(b); }
PrimExpr mul_fn(PrimExpr a, PrimExpr b) { return std::move(a) * std::move(b); }
PrimExpr max_fn(PrimExpr a, PrimExpr b) { return tir::max(std::move(a), std::move(b)); }
PrimExpr min_fn(PrimExpr a, PrimExpr b) { return tir::min(std::move(a), std::move(b)); }

/// (index, value) pairs ordered by value (`better` decides), ties to the smaller index. The
/// identity's index is INT64_MAX so that a real element always wins a tie with it.
Reduction arg_reduce(PrimExpr value, const Axis& axis, PrimExpr where, bool is_max) {
  RX_CHECK(value.defined()) << (is_max ? "argmax" : "argmin") << " of an undefined value";
  DataType t = value->dtype;
  Reducer r = make_reducer(
      [is_max](const std::vector<PrimExpr>& l, const std::vector<PrimExpr>& r) {
        PrimExpr better = is_max ? tir::gt(l[1], r[1]) : tir::lt(l[1], r[1]);
        PrimExpr take_l =
            tir::logical_or(better, tir::logical_and(tir::eq(l[1], r[1]), tir::lt(l[0], r[0])));
        return std::vector<PrimExpr>{tir::select(take_l, l[0], r[0]),
                                     tir::select(take_l, l[1], r[1])};
      },
      {tir::int_imm(std::numeric_limits<int64_t>::max()), is_max ? min_value(t) : max_value(t)});
  return reduce(std::move(r), {PrimExpr(axis.var), std::move(value)}, {axis}, std::move(where));
}

}  // namespace

Shape::Shape(std::initializer_list<Dim> d) {
  for (const auto& x : d) dims.push_back(to_int64(x.value, "a shape dimension"));
}
Shape::Shape(std::vector<PrimExpr> d) {
  for (auto& x : d) dims.push_back(to_int64(x, "a shape dimension"));
}

Axis reduce_axis(Dim extent, std::string name) {
  return reduce_axis(Dim(0), std::move(extent), std::move(name));
}

Axis reduce_axis(Dim min, Dim extent, std::string name) {
  return Axis{tir::var(std::move(name)),
              tir::Range::from_min_extent(to_int64(min.value, "a reduce axis start"),
                                          to_int64(extent.value, "a reduce axis extent"))};
}

Reducer make_reducer(const std::function<std::vector<PrimExpr>(
                         const std::vector<PrimExpr>&, const std::vector<PrimExpr>&)>& combine,
                     std::vector<PrimExpr> identity) {
  RX_CHECK(!identity.empty()) << "a reducer needs at least one value";
  Reducer r;
  std::vector<PrimExpr> l, rr;
  for (size_t i = 0; i < identity.size(); ++i) {
    RX_CHECK(identity[i].defined()) << "reducer identity " << i << " is undefined";
    r.lhs.push_back(tir::var("x" + std::to_string(i), identity[i]->dtype));
    r.rhs.push_back(tir::var("y" + std::to_string(i), identity[i]->dtype));
    l.push_back(r.lhs.back());
    rr.push_back(r.rhs.back());
  }
  r.result = combine(l, rr);
  RX_CHECK(r.result.size() == identity.size())
      << "reducer combiner returns " << r.result.size() << " values for " << identity.size()
      << " identities";
  for (size_t i = 0; i < identity.size(); ++i)
    RX_CHECK(r.result[i]->dtype == identity[i]->dtype)
        << "reducer value " << i << " combines to " << r.result[i]->dtype.to_string()
        << " but its identity is " << identity[i]->dtype.to_string();
  r.identity = std::move(identity);
  return r;
}

Reduction reduce(Reducer reducer, std::vector<PrimExpr> sources, std::vector<Axis> axes,
                 PrimExpr where) {
  RX_CHECK(sources.size() == reducer.identity.size())
      << "a reduction of " << reducer.identity.size() << " values given " << sources.size()
      << " sources";
  for (size_t i = 0; i < sources.size(); ++i) {
    RX_CHECK(sources[i].defined()) << "reduction source " << i << " is undefined";
    RX_CHECK(sources[i]->dtype == reducer.identity[i]->dtype)
        << "reduction source " << i << " is " << sources[i]->dtype.to_string() << " ("
        << tir::to_string(sources[i]) << ") but the reducer combines "
        << reducer.identity[i]->dtype.to_string();
  }
  RX_CHECK(!axes.empty()) << "a reduction needs at least one reduce axis";
  for (const auto& a : axes) RX_CHECK(a.var.defined()) << "a reduce axis is undefined";
  if (where.defined()) {
    RX_CHECK(where->dtype.is_bool() && where->dtype.is_scalar())
        << "a reduction condition must be a bool, got " << where->dtype.to_string();
  }
  return Reduction{std::move(reducer), std::move(sources), std::move(axes), std::move(where)};
}

PrimExpr min_value(DataType t) {
  RX_ICHECK(t.is_scalar()) << "min_value of " << t.to_string();
  if (t.is_bool()) return tir::bool_imm(false);
  if (t.is_float()) {
    if (t.code == DataType::kBFloat) return tir::float_imm(-3.38953139e38, t);
    if (t.bits == 16) return tir::float_imm(-65504.0, t);
    if (t.bits == 32) return tir::float_imm(-double(FLT_MAX), t);
    return tir::float_imm(-DBL_MAX, t);
  }
  if (t.is_uint()) return tir::int_imm(0, t);
  if (t.bits >= 64) return tir::int_imm(std::numeric_limits<int64_t>::min(), t);
  return tir::int_imm(-(int64_t(1) << (t.bits - 1)), t);
}

PrimExpr max_value(DataType t) {
  RX_ICHECK(t.is_scalar()) << "max_value of " << t.to_string();
  if (t.is_bool()) return tir::bool_imm(true);
  if (t.is_float()) {
    if (t.code == DataType::kBFloat) return tir::float_imm(3.38953139e38, t);
    if (t.bits == 16) return tir::float_imm(65504.0, t);
    if (t.bits == 32) return tir::float_imm(double(FLT_MAX), t);
    return tir::float_imm(DBL_MAX, t);
  }
  // uint64's largest value is stored as its bit pattern (-1), like every uint64 constant.
  if (t.bits >= 64) return tir::int_imm(t.is_uint() ? -1 : std::numeric_limits<int64_t>::max(), t);
  if (t.is_uint()) return tir::int_imm((int64_t(1) << t.bits) - 1, t);
  return tir::int_imm((int64_t(1) << (t.bits - 1)) - 1, t);
}

Reduction sum(PrimExpr source, std::vector<Axis> axes, PrimExpr where) {
  RX_CHECK(source.defined()) << "sum of an undefined value";
  DataType t = source->dtype;
  return reduce(binary_reducer(t, make_const(t, 0), add_fn), {std::move(source)}, std::move(axes),
                std::move(where));
}
Reduction prod(PrimExpr source, std::vector<Axis> axes, PrimExpr where) {
  RX_CHECK(source.defined()) << "prod of an undefined value";
  DataType t = source->dtype;
  return reduce(binary_reducer(t, make_const(t, 1), mul_fn), {std::move(source)}, std::move(axes),
                std::move(where));
}
Reduction max(PrimExpr source, std::vector<Axis> axes, PrimExpr where) {
  RX_CHECK(source.defined()) << "max of an undefined value";
  DataType t = source->dtype;
  return reduce(binary_reducer(t, min_value(t), max_fn), {std::move(source)}, std::move(axes),
                std::move(where));
}
Reduction min(PrimExpr source, std::vector<Axis> axes, PrimExpr where) {
  RX_CHECK(source.defined()) << "min of an undefined value";
  DataType t = source->dtype;
  return reduce(binary_reducer(t, max_value(t), min_fn), {std::move(source)}, std::move(axes),
                std::move(where));
}
Reduction argmax(PrimExpr value, const Axis& axis, PrimExpr where) {
  return arg_reduce(std::move(value), axis, std::move(where), true);
}
Reduction argmin(PrimExpr value, const Axis& axis, PrimExpr where) {
  return arg_reduce(std::move(value), axis, std::move(where), false);
}

PrimExpr if_then_else(PrimExpr cond, PrimExpr t, PrimExpr f) {
  RX_CHECK(cond.defined() && t.defined() && f.defined()) << "if_then_else of an undefined operand";
  RX_CHECK(cond->dtype.is_bool()) << "if_then_else condition must be bool, got "
                                  << cond->dtype.to_string();
  RX_CHECK(t->dtype == f->dtype) << "if_then_else arms differ in type: " << t->dtype.to_string()
                                 << " vs " << f->dtype.to_string();
  if (auto* c = cond.as<tir::IntImm>()) return c->value ? t : f;
  DataType dt = t->dtype;
  return make_ref<tir::Call>(dt, tir::Intrinsic::kIfThenElse,
                             std::vector<PrimExpr>{std::move(cond), std::move(t), std::move(f)});
}

// ---- Tensors and stages.

const Ref<tir::Buffer>& Tensor::buffer() const {
  RX_ICHECK(op_ != nullptr) << "use of an undefined tensor";
  return op_->outputs.at(size_t(index_));
}
const std::vector<PrimExpr>& Tensor::shape() const { return buffer()->shape; }
DataType Tensor::dtype() const { return buffer()->dtype; }
const std::string& Tensor::name() const { return buffer()->name; }

PrimExpr Tensor::operator()(const std::vector<PrimExpr>& indices) const {
  RX_CHECK(op_ != nullptr) << "indexing an undefined tensor";
  const auto& buf = buffer();
  RX_CHECK(indices.size() == buf->ndim()) << "tensor " << buf->name << " has " << buf->ndim()
                                          << " dimensions but is indexed with " << indices.size();
  std::vector<PrimExpr> idx;
  idx.reserve(indices.size());
  for (const auto& i : indices) idx.push_back(to_int64(i, "a tensor index"));
  record_read(*this);
  return tir::buffer_load(buf, std::move(idx));
}

Tensor placeholder(Shape shape, DataType dtype, std::string name) {
  RX_CHECK(dtype.is_scalar() && !dtype.is_void() && !dtype.is_handle())
      << "placeholder " << name << " needs a scalar element type, got " << dtype.to_string();
  auto op = std::make_shared<Operation>();
  op->name = name;
  op->shape = shape.dims;
  op->outputs.push_back(tir::decl_buffer(std::move(shape.dims), dtype, std::move(name)));
  return Tensor(std::move(op), 0);
}

std::vector<Tensor> compute_multi(Shape shape, const FCompute& fcompute, std::string name) {
  RX_CHECK(fcompute != nullptr) << "compute " << name << " without a compute function";
  auto op = std::make_shared<Operation>();
  op->name = name;
  op->shape = shape.dims;
  std::vector<PrimExpr> indices;
  for (size_t d = 0; d < shape.dims.size(); ++d) {
    op->axes.push_back(tir::var("i" + std::to_string(d)));
    indices.push_back(op->axes.back());
  }
  std::vector<DataType> dtypes;
  {
    ReadRecorder recorder;
    op->body = fcompute(indices);
    op->inputs = std::move(recorder.reads);
  }
  if (op->body.reduction) {
    for (const auto& id : op->body.reduction->reducer.identity) dtypes.push_back(id->dtype);
  } else {
    RX_CHECK(!op->body.values.empty()) << "compute " << name << " returns no values";
    for (const auto& v : op->body.values) {
      RX_CHECK(v.defined()) << "compute " << name << " returns an undefined value";
      dtypes.push_back(v->dtype);
    }
  }
  for (size_t j = 0; j < dtypes.size(); ++j) {
    RX_CHECK(dtypes[j].is_scalar() && !dtypes[j].is_handle())
        << "compute " << name << " returns a " << dtypes[j].to_string()
        << " value; elements are scalars";
    std::string out_name = j == 0 ? name : name + "_v" + std::to_string(j);
    op->outputs.push_back(tir::decl_buffer(shape.dims, dtypes[j], out_name));
  }
  std::shared_ptr<const Operation> cop = std::move(op);
  std::vector<Tensor> out;
  for (size_t j = 0; j < dtypes.size(); ++j) out.emplace_back(cop, int(j));
  return out;
}

Tensor compute(Shape shape, const FCompute& fcompute, std::string name) {
  std::vector<Tensor> out = compute_multi(std::move(shape), fcompute, name);
  RX_CHECK(out.size() == 1) << "compute " << name << " has " << out.size()
                            << " outputs; use compute_multi for several";
  return out[0];
}

}  // namespace relax::te
