// Internals of the OpenCL code generator (opencl_codegen.h): the type table and the writer of
// one kernel (expressions in codegen_expr.cc, statements and the signature in codegen_stmt.cc).
#pragma once

#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "opencl_codegen.h"
#include "relax/tir/buffer.h"
#include "relax/tir/expr_functor.h"
#include "relax/tir/stmt_functor.h"

namespace relax::opencl {

/// How values of a scalar dtype are held in expressions ("int" for bool, "float" for float16
/// without fp16 and for bfloat16). A relax::Error naming `kernel` for a type OpenCL C lacks.
std::string cl_value_type(DataType t, const CodegenOptions& o, const std::string& kernel);
/// How elements of a dtype are held in memory ("uchar" for bool, "half" for float16, "ushort"
/// for bfloat16).
std::string cl_storage_type(DataType t, const CodegenOptions& o, const std::string& kernel);
/// The suffix of the typed helpers (rx_min_<suffix>, rx_div_<suffix>) for a value type.
inline std::string helper_suffix(const std::string& value_type) { return value_type; }
/// True when values of `t` are float16 computed in float (fp16 off).
inline bool is_soft_half(DataType t, const CodegenOptions& o) {
  return t.code == DataType::kFloat && t.bits == 16 && !o.fp16;
}
inline bool is_bf16(DataType t) { return t.code == DataType::kBFloat && t.bits == 16; }

/// Where a buffer's memory lives in the kernel.
struct BufferSlot {
  enum class Space { kGlobal, kLocal, kPrivate };
  std::string name;    ///< the array or pointer
  std::string offset;  ///< the element-offset argument (global buffers)
  Space space = Space::kGlobal;
  DataType dtype;  ///< element type of the storage
};

/// Writes one kernel. Not reusable: one instance per kernel_source call.
class KernelWriter : public tir::ExprFunctor<std::string(const tir::PrimExpr&, int)> {
 public:
  KernelWriter(const tir::GpuKernel& kernel, const CodegenOptions& options)
      : kernel_(kernel), opt_(options) {}

  std::string write();
  KernelFeatures features;

  using ExprFunctor::visit_;
  std::string visit_(const tir::IntImm* op, int lane) override;
  std::string visit_(const tir::FloatImm* op, int lane) override;
  std::string visit_(const tir::Var* op, int lane) override;
  std::string visit_(const tir::Add* op, int lane) override;
  std::string visit_(const tir::Sub* op, int lane) override;
  std::string visit_(const tir::Mul* op, int lane) override;
  std::string visit_(const tir::Div* op, int lane) override;
  std::string visit_(const tir::Mod* op, int lane) override;
  std::string visit_(const tir::FloorDiv* op, int lane) override;
  std::string visit_(const tir::FloorMod* op, int lane) override;
  std::string visit_(const tir::Min* op, int lane) override;
  std::string visit_(const tir::Max* op, int lane) override;
  std::string visit_(const tir::EQ* op, int lane) override;
  std::string visit_(const tir::NE* op, int lane) override;
  std::string visit_(const tir::LT* op, int lane) override;
  std::string visit_(const tir::LE* op, int lane) override;
  std::string visit_(const tir::GT* op, int lane) override;
  std::string visit_(const tir::GE* op, int lane) override;
  std::string visit_(const tir::And* op, int lane) override;
  std::string visit_(const tir::Or* op, int lane) override;
  std::string visit_(const tir::Not* op, int lane) override;
  std::string visit_(const tir::Select* op, int lane) override;
  std::string visit_(const tir::Cast* op, int lane) override;
  std::string visit_(const tir::Let* op, int lane) override;
  std::string visit_(const tir::BufferLoad* op, int lane) override;
  std::string visit_(const tir::Ramp* op, int lane) override;
  std::string visit_(const tir::Broadcast* op, int lane) override;
  std::string visit_(const tir::Call* op, int lane) override;
  std::string visit_expr_default(const tir::PrimExprNode* op, int lane) override;

  // ---- shared by the expression and statement halves
  /// Lane `lane` of `e` (lane 0 of a scalar).
  std::string expr(const tir::PrimExpr& e, int lane = 0) {
    return visit_expr(e, e->dtype.lanes > 1 ? lane : 0);
  }
  std::string value_type(DataType t) {
    return note(cl_value_type(t.element_of(), opt_, kernel_.name), t);
  }
  std::string storage_type(DataType t) {
    return note(cl_storage_type(t.element_of(), opt_, kernel_.name), t);
  }
  /// `text` (a value of type t computed in its value type, possibly wider) brought back to t:
  /// wrapped to 8/16 bits, rounded to half/bfloat16, masked to one bit for bool.
  std::string fix(DataType t, const std::string& text);
  /// The scalar cast of `x` (a value of type `from`) to `to`.
  std::string cast(DataType from, DataType to, const std::string& x);
  /// A literal of scalar dtype t.
  std::string literal_int(DataType t, int64_t v);
  std::string literal_float(DataType t, double v);
  /// The element index of buffer[indices] at `lane`, as OpenCL C.
  std::string index_of(const tir::Buffer& b, const std::vector<tir::PrimExpr>& indices, int lane);
  const BufferSlot& slot_of(const tir::Buffer& b, const char* what);
  /// The value of element `index` (already offset for globals) of the slot's storage.
  std::string load(const BufferSlot& s, DataType t, const std::string& index);
  std::string store(const BufferSlot& s, DataType t, const std::string& index,
                    const std::string& value);
  /// A fresh identifier for a variable named `hint`.
  std::string fresh(const std::string& hint);
  [[noreturn]] void unsupported(const std::string& what);

  const tir::GpuKernel& kernel_;
  const CodegenOptions& opt_;
  std::unordered_map<const tir::Var*, std::vector<std::string>> vars_;  // one name per lane
  std::unordered_map<const tir::Var*, BufferSlot> buffers_;             // by data var
  std::unordered_set<std::string> names_;
  std::ostringstream shared_decls_;  // __local arrays, hoisted to kernel scope
  std::ostringstream body_;
  int indent_ = 1;

 private:
  std::string note(std::string type, DataType t) {
    if (t.code == DataType::kFloat && t.bits == 64) features.fp64 = true;
    if (t.code == DataType::kFloat && t.bits == 16 && opt_.fp16) features.fp16 = true;
    return type;
  }
  std::string binary(const tir::BinaryOp* op, int lane, const char* sym);
  std::string compare(const tir::BinaryOp* op, int lane, const char* sym);
  std::string helper(const char* fn, const tir::BinaryOp* op, int lane);
  std::string intrinsic(const tir::Call* op, int lane);

  // statements (codegen_stmt.cc)
 public:
  void stmt(const tir::Stmt& s);
  void line(const std::string& text);
};

}  // namespace relax::opencl
