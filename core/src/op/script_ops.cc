// Ops that TVMScript programs use for debugging and in-place calls (TVM's spellings):
//
//   R.print(x, y, format="x={} y={}")        Call(relax.print, [R.str(format), x, y])
//   R.assert_op(cond, [x], format="bad {}")  Call(relax.assert_op, [cond, R.str(format), x])
//   R.call_tir_inplace(f, (a, b), inplace_indices=[0, -1], out_sinfo=[..])
//                                           Call(relax.call_tir_inplace, [f, (a, b)],
//                                                attrs {inplace_indices}, sinfo_args=[out])
//
// print and assert_op are impure and return the empty tuple; legalize-ops turns them into
// R.call_packed("vm.builtin.print_format" / "vm.builtin.assert_format", ...) (runtime
// builtins_format.cc), which format with Python's `{}` placeholders as TVM's relax.run.print
// and relax.run.assert_op do. assert_op's condition is a bool scalar (a bool PrimValue or a
// bool tensor of rank 0, or of unknown rank and dtype, checked at run time).
//
// TVM's explicit memory-planning ops R.memory.alloc_storage(size, virtual_device_index,
// storage_scope, dtype) -> Object, R.memory.alloc_tensor(storage, offset, shape, dtype,
// runtime_device_index?) -> Tensor, R.memory.kill_storage / kill_tensor(x) -> () are
// registered so that their programs read, print and check.
//
// call_tir_inplace calls a PrimFunc that writes output i into argument inplace_indices[i] (-1:
// a fresh output, passed last as in call_tir). Output i with an index k >= 0 must have the
// struct info of argument k. The VM build lowers it in call-tir-rewrite (vm/call_tir_rewrite.cc).
#include "infer_utils.h"
#include "relax/ir/structural_equal.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax {
namespace op_detail {

namespace {

StructInfo void_result() { return tuple_sinfo({}); }

void expect_format(const Call& call, size_t i) {
  RX_CHECK(i < call.args.size() && call.args[i].is<StringImm>())
      << op_name(call) << ": argument " << i << " must be the format string (R.str(\"...\")), got "
      << (i < call.args.size() ? describe(call.args[i]) : std::string("nothing"));
}

StructInfo infer_print(const Call& call, BlockBuilder&) {
  expect_format(call, 0);
  return void_result();
}

StructInfo infer_assert(const Call& call, BlockBuilder&) {
  RX_CHECK(!call.args.empty()) << "relax.assert_op needs a condition";
  const StructInfo& c = get_struct_info(call.args[0]);
  bool ok = false;
  if (auto* p = c.as<PrimStructInfo>()) ok = p->dtype.is_bool();
  if (auto* t = c.as<TensorStructInfo>())
    ok = (t->dtype.is_bool() || t->dtype.is_void()) && (t->ndim == 0 || t->ndim < 0);
  RX_CHECK(ok) << "relax.assert_op: the condition must be a bool scalar (R.Prim(\"bool\") or "
                  "R.Tensor((), \"bool\")), got "
               << to_string(c);
  expect_format(call, 1);
  return void_result();
}

StructInfo infer_call_tir_inplace(const Call& call, BlockBuilder&) {
  RX_CHECK(call.args.size() == 2 || call.args.size() == 3)
      << "relax.call_tir_inplace takes (func, args, tir_vars?), got " << call.args.size()
      << " arguments";
  RX_CHECK(call.args[0].is<GlobalVar>())
      << "relax.call_tir_inplace: the callee must be a PrimFunc of the module, got "
      << describe(call.args[0]);
  auto* args = get_struct_info(call.args[1]).as<TupleStructInfo>();
  RX_CHECK(args != nullptr) << "relax.call_tir_inplace: arguments must be a tuple";
  RX_CHECK(call.sinfo_args.size() == 1) << "relax.call_tir_inplace needs one out_sinfo";
  std::vector<int64_t> idx = get_ints(call.attrs, "inplace_indices", {});
  const StructInfo& out = call.sinfo_args[0];
  auto* tuple = out.as<TupleStructInfo>();
  std::vector<StructInfo> outs = tuple ? tuple->fields : std::vector<StructInfo>{out};
  RX_CHECK(idx.size() == outs.size())
      << "relax.call_tir_inplace: inplace_indices has " << idx.size() << " entries but there are "
      << outs.size() << " outputs";
  bool any = false;
  for (size_t i = 0; i < idx.size(); ++i) {
    RX_CHECK(idx[i] >= -1 && idx[i] < int64_t(args->fields.size()))
        << "relax.call_tir_inplace: inplace index " << idx[i] << " of output " << i
        << " names no argument (there are " << args->fields.size() << "; -1 is a new output)";
    if (idx[i] < 0) continue;
    any = true;
    for (size_t j = 0; j < i; ++j)
      RX_CHECK(idx[j] != idx[i]) << "relax.call_tir_inplace: argument " << idx[i]
                                 << " is the in-place output of outputs " << j << " and " << i;
    const StructInfo& a = args->fields[size_t(idx[i])];
    RX_CHECK(a.is<TensorStructInfo>())
        << "relax.call_tir_inplace: argument " << idx[i] << " is written in place but is "
        << to_string(a) << ", not a tensor";
    RX_CHECK(structural_equal(a, outs[i]))
        << "relax.call_tir_inplace: output " << i << " is " << to_string(outs[i])
        << " but its in-place argument " << idx[i] << " is " << to_string(a);
  }
  RX_CHECK(any) << "relax.call_tir_inplace: no output is in place (every index is -1); use "
                   "R.call_tir";
  return out;
}

// R.memory.alloc_tensor(storage, offset, shape, dtype): a tensor of that shape and dtype.
StructInfo infer_memory_alloc_tensor(const Call& call, BlockBuilder&) {
  RX_CHECK(call.args.size() == 4 || call.args.size() == 5)
      << "relax.memory.alloc_tensor takes (storage, offset, shape, dtype, runtime_device_index?), "
         "got "
      << call.args.size() << " arguments";
  auto* dtype = call.args[3].as<DataTypeImm>();
  RX_CHECK(dtype != nullptr) << "relax.memory.alloc_tensor: argument 3 must be a dtype, got "
                             << describe(call.args[3]);
  int ndim = -1;
  auto values = shape_values(call.args[2], &ndim);
  if (values) return tensor_sinfo(*values, dtype->value);
  return tensor_sinfo(dtype->value, ndim);
}

Expr legalize_print(BlockBuilder&, const Call& call) {
  std::vector<Expr> args{make_extern("vm.builtin.print_format")};
  args.insert(args.end(), call.args.begin(), call.args.end());
  return call_op("relax.call_packed", std::move(args), {}, {void_result()});
}

Expr legalize_assert(BlockBuilder&, const Call& call) {
  std::vector<Expr> args{make_extern("vm.builtin.assert_format")};
  args.insert(args.end(), call.args.begin(), call.args.end());
  return call_op("relax.call_packed", std::move(args), {}, {void_result()});
}

}  // namespace

void register_script_ops(OpRegistry& reg) {
  {
    OpInfo& op = reg.register_op("relax.print");
    op.summary = "Print values with a Python format string ({} placeholders); for debugging.";
    op.arg_names = {"format", "vals"};
    op.variadic = true;
    op.infer = infer_print;
    op.pure = false;
    op.legalize = legalize_print;
  }
  {
    OpInfo& op = reg.register_op("relax.assert_op");
    op.summary = "Fail with the formatted message when the bool condition is false.";
    op.arg_names = {"condition", "format", "vals"};
    op.variadic = true;
    op.infer = infer_assert;
    op.pure = false;
    op.legalize = legalize_assert;
  }
  // TVM's explicit memory ops (static memory planning's output); call-tir-rewrite lowers them
  // to the VM's allocation ops (vm/call_tir_rewrite.cc).
  {
    OpInfo& op = reg.register_op("relax.memory.alloc_storage");
    op.summary = "Allocate a storage of `size` bytes (TVM's explicit memory planning).";
    op.arg_names = {"size", "virtual_device_index", "storage_scope", "dtype"};
    op.infer = [](const Call&, BlockBuilder&) { return object_sinfo(); };
  }
  {
    OpInfo& op = reg.register_op("relax.memory.alloc_tensor");
    op.summary = "A tensor in a storage at a byte offset (TVM's explicit memory planning).";
    op.arg_names = {"storage", "offset", "shape", "dtype", "runtime_device_index"};
    op.variadic = true;  // the device index is optional
    op.infer = infer_memory_alloc_tensor;
  }
  for (const char* name : {"relax.memory.kill_storage", "relax.memory.kill_tensor"}) {
    OpInfo& op = reg.register_op(name);
    op.summary = "End the lifetime of a storage or tensor (TVM's explicit memory planning).";
    op.arg_names = {"x"};
    op.infer = [](const Call&, BlockBuilder&) { return void_result(); };
    op.pure = false;
  }
  {
    OpInfo& op = reg.register_op("relax.call_tir_inplace");
    op.summary = "Call a TIR PrimFunc that writes some outputs into its arguments.";
    op.arg_names = {"func", "args", "tir_vars"};
    op.variadic = true;
    op.attrs = {{"inplace_indices", AttrSpec::Kind::kInts, std::monostate{}, false,
                 "per output, the argument it is written into (-1: a new output)"}};
    op.infer = infer_call_tir_inplace;
    op.pure = true;
  }
}

}  // namespace op_detail
}  // namespace relax
