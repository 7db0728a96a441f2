// einsum: Einstein summation with NumPy subscripts.
//
// "ij,jk->ik" names each operand axis with a letter; letters of the output (after "->") index
// the result, every other letter is summed over. Without "->" the output is the letters that
// occur once, in alphabetical order (NumPy's implicit mode). A letter repeated within one
// operand reads its diagonal ("ii->i", and "ii" is the trace). "..." stands for the axes not
// named, broadcast across operands with NumPy rules and placed first in an implicit output.
//
// Legalisation: one kernel whose spatial axes are the output letters and whose reduce axes are
// the summed letters, of the product of the operands (all of one dtype).
#include <algorithm>
#include <cctype>
#include <map>

#include "infer_utils.h"
#include "legalize_utils.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"
#include "tensor_ops.h"

namespace relax {
namespace op_detail {

namespace {

/// Labels are letters; the k-th broadcast ("...") axis, counted over the widest ellipsis, is the
/// label "#k" so that it sorts apart from letters.
using Label = std::string;

struct Einsum {
  /// Per operand, one label per axis.
  std::vector<std::vector<Label>> inputs;
  std::vector<Label> output;
  /// Summed labels (not in the output), in first-appearance order.
  std::vector<Label> reduced;
  /// The size of every label.
  std::map<Label, PrimExpr> size;
};

/// Parses `subscripts` for operands of the given ranks and shapes; throws relax::Error naming
/// the problem. Shapes may be null (only ranks known): sizes are then not filled.
Einsum parse_einsum(const std::string& subscripts,
                    const std::vector<const TensorStructInfo*>& ops, arith::Analyzer* ana) {
  std::string s;
  for (char c : subscripts)
    if (c != ' ') s += c;
  auto fail = [&]() { return "relax.einsum: subscripts '" + subscripts + "': "; };
  size_t arrow = s.find("->");
  std::string lhs = arrow == std::string::npos ? s : s.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t b = 0;;) {
    size_t e = lhs.find(',', b);
    terms.push_back(lhs.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  RX_CHECK(terms.size() == ops.size()) << fail() << terms.size() << " operand terms for "
                                       << ops.size() << " operands";
  // Letters and the ellipsis width of each term.
  struct Term {
    std::vector<char> before, after;  // letters before and after "..."
    bool ellipsis = false;
  };
  auto split_term = [&](const std::string& t) {
    Term out;
    for (size_t i = 0; i < t.size();) {
      if (t.compare(i, 3, "...") == 0) {
        RX_CHECK(!out.ellipsis) << fail() << "'...' appears twice in '" << t << "'";
        out.ellipsis = true;
        i += 3;
        continue;
      }
      RX_CHECK(std::isalpha(static_cast<unsigned char>(t[i])))
          << fail() << "unexpected character '" << t[i] << "'";
      (out.ellipsis ? out.after : out.before).push_back(t[i]);
      ++i;
    }
    return out;
  };
  Einsum e;
  std::vector<Term> parsed;
  size_t widest = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    Term t = split_term(terms[k]);
    int nd = ops[k]->ndim;
    RX_CHECK(nd >= 0) << "relax.einsum: operand " << k << " has unknown rank";
    size_t named = t.before.size() + t.after.size();
    RX_CHECK(t.ellipsis ? named <= size_t(nd) : named == size_t(nd))
        << fail() << "term '" << terms[k] << "' names " << named << " axes but operand " << k
        << " has rank " << nd;
    widest = std::max(widest, size_t(nd) - named);
    parsed.push_back(t);
  }
  std::map<Label, int> count;
  for (size_t k = 0; k < parsed.size(); ++k) {
    const Term& t = parsed[k];
    size_t ell = size_t(ops[k]->ndim) - t.before.size() - t.after.size();
    std::vector<Label> labels;
    for (char c : t.before) labels.emplace_back(1, c);
    for (size_t j = 0; j < ell; ++j) labels.push_back("#" + std::to_string(widest - ell + j));
    for (char c : t.after) labels.emplace_back(1, c);
    for (size_t a = 0; a < labels.size(); ++a) {
      const Label& l = labels[a];
      if (l[0] != '#') ++count[l];
      if (!ops[k]->shape) continue;
      PrimExpr d = (*ops[k]->shape)[a];
      auto it = e.size.find(l);
      if (it == e.size.end()) {
        e.size[l] = d;
      } else if (l[0] == '#') {
        // Broadcast: a dim of 1 yields to the other.
        if (tir::is_const_int(it->second, 1)) {
          it->second = d;
        } else if (!tir::is_const_int(d, 1)) {
          RX_CHECK(!ana->can_prove(tir::ne(it->second, d)))
              << fail() << "broadcast axes of sizes " << tir::to_string(it->second) << " and "
              << tir::to_string(d) << " do not match";
        }
      } else {
        RX_CHECK(!ana->can_prove(tir::ne(it->second, d)))
            << fail() << "label '" << l << "' has size " << tir::to_string(it->second)
            << " in one place and " << tir::to_string(d) << " in operand " << k;
      }
    }
    e.inputs.push_back(labels);
  }
  if (arrow != std::string::npos) {
    Term t = split_term(s.substr(arrow + 2));
    for (char c : t.before) e.output.emplace_back(1, c);
    if (t.ellipsis)
      for (size_t j = 0; j < widest; ++j) e.output.push_back("#" + std::to_string(j));
    for (char c : t.after) e.output.emplace_back(1, c);
    for (size_t a = 0; a < e.output.size(); ++a) {
      const Label& l = e.output[a];
      RX_CHECK(l[0] == '#' || count.count(l))
          << fail() << "output label '" << l << "' appears in no operand";
      RX_CHECK(std::count(e.output.begin(), e.output.end(), l) == 1)
          << fail() << "output label '" << l << "' appears twice";
    }
    RX_CHECK(widest == 0 || t.ellipsis)
        << fail() << "the operands have '...' axes, so the output needs '...' too";
  } else {
    for (size_t j = 0; j < widest; ++j) e.output.push_back("#" + std::to_string(j));
    for (const auto& [l, c] : count)
      if (c == 1) e.output.push_back(l);
  }
  for (const auto& labels : e.inputs)
    for (const Label& l : labels)
      if (std::find(e.output.begin(), e.output.end(), l) == e.output.end() &&
          std::find(e.reduced.begin(), e.reduced.end(), l) == e.reduced.end())
        e.reduced.push_back(l);
  return e;
}

std::vector<const TensorStructInfo*> operand_sinfos(const Call& call, DataType* dtype) {
  auto* ts = get_struct_info(call.args[0]).as<TupleStructInfo>();
  RX_CHECK(ts != nullptr) << "relax.einsum: 'operands' should be a tuple of tensors, got "
                          << to_string(get_struct_info(call.args[0]));
  RX_CHECK(!ts->fields.empty()) << "relax.einsum: needs at least one operand";
  std::vector<const TensorStructInfo*> ops;
  *dtype = DataType::Void();
  for (size_t i = 0; i < ts->fields.size(); ++i) {
    auto* t = ts->fields[i].as<TensorStructInfo>();
    RX_CHECK(t != nullptr) << "relax.einsum: operand " << i << " should be a tensor, got "
                           << to_string(ts->fields[i]);
    *dtype = unify_dtype(call, *dtype, t->dtype);
    ops.push_back(t);
  }
  return ops;
}

StructInfo infer_einsum(const Call& call, BlockBuilder& ctx) {
  DataType dtype;
  auto ops = operand_sinfos(call, &dtype);
  std::string subscripts = get_string(call.attrs, "subscripts", "");
  for (auto* t : ops)
    if (t->ndim < 0) return tensor_sinfo(dtype, -1);
  Einsum e = parse_einsum(subscripts, ops, &ctx.analyzer());
  for (auto* t : ops)
    if (!t->shape) return tensor_sinfo(dtype, int(e.output.size()));
  std::vector<PrimExpr> out;
  for (const Label& l : e.output) out.push_back(e.size.at(l));
  return tensor_sinfo(out, dtype);
}

Expr legalize_einsum(BlockBuilder& bb, const Call& call) {
  const TensorStructInfo& out = legal_out(call);
  DataType dtype;
  auto ops = operand_sinfos(call, &dtype);
  for (size_t i = 0; i < ops.size(); ++i) {
    RX_CHECK(ops[i]->shape) << "relax.einsum: cannot legalise: operand " << i << " is "
                            << to_string(StructInfo(ops[i])) << "; the kernel needs a known shape";
  }
  Einsum e = parse_einsum(get_string(call.attrs, "subscripts", ""), ops, &bb.analyzer());
  std::vector<Expr> args = tuple_fields_of(call.args[0]);
  return te::call_te(
      bb, args,
      [&](const std::vector<te::Tensor>& a) {
        return te::compute(
            *out.shape,
            [&](const std::vector<PrimExpr>& i) -> te::Body {
              std::map<Label, PrimExpr> at;
              for (size_t k = 0; k < e.output.size(); ++k) at[e.output[k]] = i[k];
              std::vector<te::Axis> rs;
              for (const Label& l : e.reduced) {
                rs.push_back(te::reduce_axis(e.size.at(l), l[0] == '#' ? "b" + l.substr(1) : l));
                at[l] = rs.back();
              }
              PrimExpr prod;
              for (size_t k = 0; k < a.size(); ++k) {
                std::vector<PrimExpr> idx;
                for (size_t d = 0; d < e.inputs[k].size(); ++d) {
                  const Label& l = e.inputs[k][d];
                  bool bcast = l[0] == '#' && tir::is_const_int(a[k].shape()[d], 1);
                  idx.push_back(bcast ? tir::int_imm(0) : at.at(l));
                }
                PrimExpr v = a[k](idx);
                prod = prod.defined() ? prod * v : v;
              }
              if (rs.empty()) return prod;
              return te::sum(prod, rs);
            },
            "einsum");
      },
      "einsum");
}

}  // namespace

void register_einsum_ops(OpRegistry& reg) {
  OpInfo& op = reg.register_op("relax.einsum");
  op.summary = "Einstein summation over a tuple of tensors (NumPy subscripts).";
  op.arg_names = {"operands"};
  op.attrs = {{"subscripts", AttrSpec::Kind::kString, std::monostate{}, false,
               "e.g. \"ij,jk->ik\"; implicit output without \"->\"; \"...\" broadcasts"}};
  op.infer = infer_einsum;
  op.pattern = OpPattern::kOutEWiseFusable;
  op.legalize = legalize_einsum;
}

}  // namespace op_detail

namespace op {
Expr einsum(std::vector<Expr> operands, const std::string& subscripts) {
  return call_op("relax.einsum", {make_tuple(std::move(operands))},
                 make_attrs({{"subscripts", subscripts}}));
}
}  // namespace op
}  // namespace relax
