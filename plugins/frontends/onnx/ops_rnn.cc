// ONNX converters: the recurrent layers RNN, GRU and LSTM.
//
// The recurrence is unrolled at import time over the static sequence length (dimension 0 of
// X, or 1 with layout=1); a symbolic sequence length is refused with an error saying so (the
// batch may be symbolic). Per direction, the input projection X·Wᵀ (+ Wb) is one matmul for
// all steps; each step slices its row, adds H·Rᵀ (+ Rb) and applies the gates:
//   RNN:  H = f(x·Wiᵀ + H·Riᵀ + Wbi + Rbi)
//   GRU:  z = f(.. z ..), r = f(.. r ..),
//         h~ = g(x·Whᵀ + (r ⊙ H)·Rhᵀ + Rbh + Wbh)          (linear_before_reset = 0)
//         h~ = g(x·Whᵀ + r ⊙ (H·Rhᵀ + Rbh) + Wbh)          (linear_before_reset = 1)
//         H = (1 - z) ⊙ h~ + z ⊙ H
//   LSTM: i = f(.. i .. + Pi ⊙ C), f = f(.. f .. + Pf ⊙ C) (1 - i with input_forget),
//         c~ = g(.. c ..), C = f ⊙ C + i ⊙ c~, o = f(.. o .. + Po ⊙ C), H = o ⊙ h(C)
// Gate blocks of W/R/B are in ONNX order (RNN: i; GRU: z r h; LSTM: i o f c; peepholes i o f).
// `clip` clips the gate pre-activations. Activations (Relu, Tanh, Sigmoid, Affine, LeakyRelu,
// ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus) take their alpha/beta from
// activation_alpha/activation_beta in order, each consumed only by the activations that use
// one (ONNX Runtime's reading); absent values take the ONNX operators' defaults.
// sequence_lens (per batch entry): steps at or beyond a sequence's length leave its state
// unchanged and output zeros in Y (ONNX Runtime's semantics), so Y_h/Y_c are the states after
// each sequence's last step; the reverse direction then starts at each sequence's last step.
#include <algorithm>
#include <cctype>

#include "importer.h"
#include "relax/op/nn.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

enum class Cell { kRnn, kGru, kLstm };

int gate_count(Cell c) { return c == Cell::kRnn ? 1 : c == Cell::kGru ? 3 : 4; }
int activation_count(Cell c) { return c == Cell::kRnn ? 1 : c == Cell::kGru ? 2 : 3; }

struct Activation {
  std::string name;  ///< lower case
  double alpha = 0, beta = 0;
};

/// The activations of every direction, with their alpha/beta resolved.
std::vector<Activation> read_activations(Context& ctx, const Node& node, Cell cell, int dirs) {
  std::vector<std::string> names;
  if (const auto* a = find_attr(node, "activations")) {
    for (const auto& s : a->strings()) names.push_back(s);
  }
  size_t per_dir = size_t(activation_count(cell));
  if (names.empty()) {
    for (int d = 0; d < dirs; ++d) {
      if (cell == Cell::kRnn)
        names.insert(names.end(), {"Tanh"});
      else if (cell == Cell::kGru)
        names.insert(names.end(), {"Sigmoid", "Tanh"});
      else
        names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
    }
  }
  RX_CHECK(names.size() == per_dir * size_t(dirs))
      << ctx.where(node) << ": activations lists " << names.size() << " functions; expected "
      << per_dir * size_t(dirs) << " (" << per_dir << " per direction, " << dirs << " direction"
      << (dirs > 1 ? "s" : "") << ")";
  std::vector<double> alphas =
      attr_floats(node, "activation_alpha").value_or(std::vector<double>{});
  std::vector<double> betas = attr_floats(node, "activation_beta").value_or(std::vector<double>{});
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> out;
  for (const std::string& n : names) {
    Activation a;
    for (char c : n) a.name += char(std::tolower(static_cast<unsigned char>(c)));
    double alpha_default = 0, beta_default = 0;
    bool uses_alpha = true, uses_beta = false;
    if (a.name == "affine")
      alpha_default = 1, beta_default = 0, uses_beta = true;
    else if (a.name == "leakyrelu")
      alpha_default = 0.01;
    else if (a.name == "thresholdedrelu")
      alpha_default = 1;
    else if (a.name == "scaledtanh")
      alpha_default = 1, beta_default = 1, uses_beta = true;
    else if (a.name == "hardsigmoid")
      alpha_default = 0.2, beta_default = 0.5, uses_beta = true;
    else if (a.name == "elu")
      alpha_default = 1;
    else if (a.name == "relu" || a.name == "tanh" || a.name == "sigmoid" || a.name == "softsign" ||
             a.name == "softplus")
      uses_alpha = false;
    else
      RX_THROW() << ctx.where(node) << ": activation '" << n << "' is not one of Relu, Tanh, "
                 << "Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, "
                 << "Elu, Softsign, Softplus";
    a.alpha = uses_alpha && next_alpha < alphas.size() ? alphas[next_alpha++] : alpha_default;
    a.beta = uses_beta && next_beta < betas.size() ? betas[next_beta++] : beta_default;
    out.push_back(a);
  }
  return out;
}

class Unroller {
 public:
  Unroller(Context& ctx, const Node& node, Cell cell)
      : ctx_(ctx), node_(node), cell_(cell), bb_(ctx.bb()) {}

  std::vector<OnnxValue> run() {
    read_inputs();
    std::vector<Expr> ys, hs, cs;
    for (int d = 0; d < dirs_; ++d) {
      bool reverse = direction_ == "reverse" || (direction_ == "bidirectional" && d == 1);
      auto [y, h, c] =
          direction(d, reverse,
                    std::vector<Activation>(acts_.begin() + d * activation_count(cell_),
                                            acts_.begin() + (d + 1) * activation_count(cell_)));
      ys.push_back(y);
      hs.push_back(h);
      cs.push_back(c);
    }
    // Y: [T, D, B, H]; Y_h, Y_c: [D, B, H]. layout=1: [B, T, D, H] and [B, D, H].
    Expr y = bb_.emit(op::stack(ys, 1));
    Expr yh = bb_.emit(op::stack(hs, 0));
    if (layout_ == 1) {
      y = bb_.emit(op::permute_dims(y, std::vector<int64_t>{2, 0, 1, 3}));
      yh = bb_.emit(op::permute_dims(yh, std::vector<int64_t>{1, 0, 2}));
    }
    std::vector<OnnxValue> out = {Context::tensor_value(ctx_.emit(y, node_, 0)),
                                  Context::tensor_value(ctx_.emit(yh, node_, 1))};
    if (cell_ == Cell::kLstm) {
      Expr yc = bb_.emit(op::stack(cs, 0));
      if (layout_ == 1) yc = bb_.emit(op::permute_dims(yc, std::vector<int64_t>{1, 0, 2}));
      out.push_back(Context::tensor_value(ctx_.emit(yc, node_, 2)));
    }
    return out;
  }

 private:
  int64_t static_dim(const Expr& e, int axis, const std::string& what) {
    std::vector<PrimExpr> shape = ctx_.shape_of(node_, e, what);
    const int64_t* c = tir::as_const_int(shape[size_t(axis)]);
    RX_CHECK(c) << ctx_.where(node_) << ": " << what << " (" << tir::to_string(shape[size_t(axis)])
                << ") must be static";
    return *c;
  }

  /// x[i] along axis 0, with that axis removed.
  Expr row(const Expr& x, int64_t i) {
    return bb_.emit(
        op::squeeze(bb_.emit(op::strided_slice(x, {0}, {i}, {i + 1})), std::vector<int64_t>{0}));
  }
  /// Columns [k*H, (k+1)*H) of the last axis of x (rank 1 or 2).
  Expr block(const Expr& x, int k, int axis) {
    return bb_.emit(op::strided_slice(x, {axis}, {k * hidden_}, {(k + 1) * hidden_}));
  }
  Expr scalar(double v) { return scalar_constant(v, dtype_); }

  void read_inputs() {
    std::string w = ctx_.where(node_);
    x_ = ctx_.input(node_, 0);
    RX_CHECK(ctx_.ndim(node_, x_) == 3)
        << w << ": X must have rank 3, got " << ctx_.ndim(node_, x_);
    dtype_ = ctx_.tensor(node_, x_).dtype;
    layout_ = attr_int(node_, "layout", 0);
    RX_CHECK(layout_ == 0 || layout_ == 1) << w << ": layout must be 0 or 1, got " << layout_;
    if (layout_ == 1) x_ = bb_.emit(op::permute_dims(x_, std::vector<int64_t>{1, 0, 2}));
    std::vector<PrimExpr> xs = ctx_.shape_of(node_, x_, "unrolling the recurrence");
    const int64_t* t = tir::as_const_int(xs[0]);
    RX_CHECK(t) << w << ": the sequence length (" << tir::to_string(xs[0]) << ") must be static: "
                << "the recurrence is unrolled at import time";
    steps_ = *t;
    batch_ = xs[1];
    direction_ = attr_string(node_, "direction", "forward");
    RX_CHECK(direction_ == "forward" || direction_ == "reverse" || direction_ == "bidirectional")
        << w << ": direction '" << direction_ << "' is not forward, reverse or bidirectional";
    dirs_ = direction_ == "bidirectional" ? 2 : 1;
    w_ = ctx_.input(node_, 1);
    r_ = ctx_.input(node_, 2);
    RX_CHECK(ctx_.ndim(node_, w_) == 3 && ctx_.ndim(node_, r_) == 3)
        << w << ": W and R must have rank 3 ([directions, gates * hidden_size, ...])";
    int64_t r_hidden = static_dim(r_, 2, "R's dimension 2 (hidden_size)");
    hidden_ = attr_int(node_, "hidden_size", r_hidden);
    RX_CHECK(hidden_ == r_hidden) << w << ": hidden_size " << hidden_
                                  << " disagrees with R's shape (" << r_hidden << ")";
    int gates = gate_count(cell_);
    for (const auto& [e, name] : {std::pair{w_, "W"}, std::pair{r_, "R"}}) {
      RX_CHECK(static_dim(e, 0, std::string(name) + "'s dimension 0") == dirs_)
          << w << ": " << name << " has " << static_dim(e, 0, name) << " directions; direction '"
          << direction_ << "' needs " << dirs_;
      RX_CHECK(static_dim(e, 1, std::string(name) + "'s dimension 1") == gates * hidden_)
          << w << ": " << name << "'s dimension 1 is " << static_dim(e, 1, name) << "; expected "
          << gates << " * hidden_size = " << gates * hidden_;
    }
    if (Context::has_input(node_, 3)) b_ = ctx_.input(node_, 3);
    if (Context::has_input(node_, 4)) {
      Expr lens = bb_.emit(op::astype(ctx_.input(node_, 4), DataType::Int(64)));
      lens_ = bb_.emit(op::expand_dims(lens, {1}));  // [B, 1], against the state [B, H]
    }
    if (Context::has_input(node_, 5)) {
      init_h_ = ctx_.input(node_, 5);
      if (layout_ == 1)
        init_h_ = bb_.emit(op::permute_dims(*init_h_, std::vector<int64_t>{1, 0, 2}));
    }
    if (cell_ == Cell::kLstm && Context::has_input(node_, 6)) {
      init_c_ = ctx_.input(node_, 6);
      if (layout_ == 1)
        init_c_ = bb_.emit(op::permute_dims(*init_c_, std::vector<int64_t>{1, 0, 2}));
    }
    if (cell_ == Cell::kLstm && Context::has_input(node_, 7)) p_ = ctx_.input(node_, 7);
    if (const auto* c = find_attr(node_, "clip")) clip_ = double(c->f());
    input_forget_ = cell_ == Cell::kLstm && attr_int(node_, "input_forget", 0) != 0;
    linear_before_reset_ = cell_ == Cell::kGru && attr_int(node_, "linear_before_reset", 0) != 0;
    acts_ = read_activations(ctx_, node_, cell_, dirs_);
  }

  Expr activate(const Activation& a, Expr x) {
    if (clip_) {
      x = bb_.emit(op::maximum(x, scalar(-*clip_)));
      x = bb_.emit(op::minimum(x, scalar(*clip_)));
    }
    const std::string& n = a.name;
    if (n == "relu") return bb_.emit(op::relu(x));
    if (n == "tanh") return bb_.emit(op::tanh(x));
    if (n == "sigmoid") return bb_.emit(op::sigmoid(x));
    if (n == "affine")
      return bb_.emit(op::add(bb_.emit(op::multiply(x, scalar(a.alpha))), scalar(a.beta)));
    if (n == "leakyrelu") return bb_.emit(op::leakyrelu(x, a.alpha));
    if (n == "thresholdedrelu") {
      return bb_.emit(op::where(bb_.emit(op::greater(x, scalar(a.alpha))), x, scalar(0)));
    }
    if (n == "scaledtanh") {
      Expr t = bb_.emit(op::tanh(bb_.emit(op::multiply(x, scalar(a.beta)))));
      return bb_.emit(op::multiply(t, scalar(a.alpha)));
    }
    if (n == "hardsigmoid") return bb_.emit(op::hardsigmoid(x, a.alpha, a.beta));
    if (n == "elu") return bb_.emit(op::elu(x, a.alpha));
    if (n == "softsign") {
      return bb_.emit(op::divide(x, bb_.emit(op::add(bb_.emit(op::abs(x)), scalar(1)))));
    }
    return bb_.emit(op::softplus(x));
  }

  /// The initial state of direction d: row d of `init`, or zeros [B, H].
  Expr initial(const std::optional<Expr>& init, int d) {
    if (init) return row(*init, d);
    return bb_.emit(op::zeros({batch_, tir::int_imm(hidden_)}, dtype_));
  }

  /// `fresh` where step t is inside the sequence (with sequence_lens), else `old`.
  Expr masked(int64_t t, const Expr& fresh, const Expr& old) {
    if (!lens_) return fresh;
    Expr inside = bb_.emit(op::less(scalar_constant(double(t), DataType::Int(64)), *lens_));
    return bb_.emit(op::where(inside, fresh, old));
  }

  /// One direction: (Y [T, B, H], final H, final C).
  std::tuple<Expr, Expr, Expr> direction(int d, bool reverse, const std::vector<Activation>& acts) {
    int gates = gate_count(cell_);
    Expr wt = bb_.emit(op::permute_dims(row(w_, d)));  // [I, G*H]
    Expr rt = bb_.emit(op::permute_dims(row(r_, d)));  // [H, G*H]
    Expr xw = bb_.emit(op::matmul(x_, wt));            // [T, B, G*H]
    std::optional<Expr> rb;
    if (b_) {
      Expr bd = row(*b_, d);  // [2*G*H]: Wb then Rb
      Expr wb = bb_.emit(op::strided_slice(bd, {0}, {0}, {gates * hidden_}));
      rb = bb_.emit(op::strided_slice(bd, {0}, {gates * hidden_}, {2 * gates * hidden_}));
      xw = bb_.emit(op::add(xw, wb));
    }
    std::optional<Expr> pi, po, pf;
    if (p_) {
      Expr pd = row(*p_, d);
      pi = block(pd, 0, 0);
      po = block(pd, 1, 0);
      pf = block(pd, 2, 0);
    }
    Expr h = initial(init_h_, d);
    Expr c = cell_ == Cell::kLstm ? initial(init_c_, d) : Expr();
    Expr zero_state = lens_ ? bb_.emit(op::zeros({batch_, tir::int_imm(hidden_)}, dtype_)) : Expr();
    std::vector<Expr> outputs(static_cast<size_t>(steps_));
    for (int64_t k = 0; k < steps_; ++k) {
      int64_t t = reverse ? steps_ - 1 - k : k;
      Expr xt = row(xw, t);  // [B, G*H]
      Expr hr = bb_.emit(op::matmul(h, rt));
      if (rb) hr = bb_.emit(op::add(hr, *rb));
      auto pre = [&](int g) { return bb_.emit(op::add(block(xt, g, 1), block(hr, g, 1))); };
      Expr h_new, c_new;
      if (cell_ == Cell::kRnn) {
        h_new = activate(acts[0], pre(0));
      } else if (cell_ == Cell::kGru) {
        Expr z = activate(acts[0], pre(0));
        Expr r = activate(acts[0], pre(1));
        Expr cand;
        if (linear_before_reset_) {
          cand = bb_.emit(op::add(block(xt, 2, 1), bb_.emit(op::multiply(r, block(hr, 2, 1)))));
        } else {
          Expr rh = bb_.emit(op::matmul(bb_.emit(op::multiply(r, h)), block(rt, 2, 1)));
          if (rb) rh = bb_.emit(op::add(rh, block(*rb, 2, 0)));
          cand = bb_.emit(op::add(block(xt, 2, 1), rh));
        }
        Expr ht = activate(acts[1], cand);
        Expr keep = bb_.emit(op::multiply(z, h));
        Expr take = bb_.emit(op::multiply(bb_.emit(op::subtract(scalar(1), z)), ht));
        h_new = bb_.emit(op::add(take, keep));
      } else {
        Expr i_pre = pre(0), o_pre = pre(1), f_pre = pre(2), c_pre = pre(3);
        if (pi) i_pre = bb_.emit(op::add(i_pre, bb_.emit(op::multiply(*pi, c))));
        Expr i = activate(acts[0], i_pre);
        Expr f;
        if (input_forget_) {
          f = bb_.emit(op::subtract(scalar(1), i));
        } else {
          if (pf) f_pre = bb_.emit(op::add(f_pre, bb_.emit(op::multiply(*pf, c))));
          f = activate(acts[0], f_pre);
        }
        Expr cand = activate(acts[1], c_pre);
        c_new = bb_.emit(op::add(bb_.emit(op::multiply(f, c)), bb_.emit(op::multiply(i, cand))));
        if (po) o_pre = bb_.emit(op::add(o_pre, bb_.emit(op::multiply(*po, c_new))));
        Expr o = activate(acts[0], o_pre);
        h_new = bb_.emit(op::multiply(o, activate(acts[2], c_new)));
      }
      outputs[size_t(t)] = lens_ ? masked(t, h_new, zero_state) : h_new;
      h = masked(t, h_new, h);
      if (cell_ == Cell::kLstm) c = masked(t, c_new, c);
    }
    Expr y = bb_.emit(op::stack(outputs, 0));
    return {y, h, c.defined() ? c : h};
  }

  Context& ctx_;
  const Node& node_;
  Cell cell_;
  BlockBuilder& bb_;
  Expr x_, w_, r_;
  std::optional<Expr> b_, lens_, init_h_, init_c_, p_;
  DataType dtype_;
  int64_t layout_ = 0, steps_ = 0, hidden_ = 0;
  PrimExpr batch_;
  std::string direction_;
  int dirs_ = 1;
  std::optional<double> clip_;
  bool input_forget_ = false, linear_before_reset_ = false;
  std::vector<Activation> acts_;
};

}  // namespace

void register_rnn_ops(std::map<std::string, ConverterEntry>& t) {
  t["RNN"] = {[](Context& ctx, const Node& node) { return Unroller(ctx, node, Cell::kRnn).run(); },
              7};
  t["GRU"] = {[](Context& ctx, const Node& node) { return Unroller(ctx, node, Cell::kGru).run(); },
              7};
  t["LSTM"] = {
      [](Context& ctx, const Node& node) { return Unroller(ctx, node, Cell::kLstm).run(); }, 7};
}

}  // namespace relax::onnx_frontend
