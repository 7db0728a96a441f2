// ONNX TfIdfVectorizer (opset 9) over integer tokens, composed from core ops.
//
// The pool (pool_int64s) holds the n-grams of each size n, from offset ngram_counts[n-1]; the
// k-th n-gram of the pool (all 1-grams first, then 2-grams...) is counted into output column
// ngram_indexes[k]. For each n in [min_gram_length, max_gram_length] and each skip s in
// [0, max_skip_count] (unigrams once), an n-gram occurs at position i when token i + j (s + 1)
// equals its j-th element for every j: per n, one comparison of n shifted slices of the input
// against the pool's column j (all the pool's n-grams at once), ANDed, summed over positions.
// mode TF gives the counts, IDF the weight where the count is non-zero, TFIDF count * weight
// (weights per pool n-gram, 1 by default). Input (C) or (B, C) of static length C; output (O) or
// (B, O) float32, O = max(ngram_indexes) + 1. String pools (pool_strings) are not supported
// (Relax has no string tensors).
#include <algorithm>

#include "importer.h"
#include "relax/op/op.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

using Node = onnx::NodeProto;

std::vector<OnnxValue> convert_tfidf(Context& ctx, const Node& node) {
  RX_CHECK(!find_attr(node, "pool_strings"))
      << ctx.where(node) << ": string pools (pool_strings) are not supported; only integer "
      << "tokens (pool_int64s)";
  Expr x = ctx.input(node, 0);
  DataType xdt = ctx.tensor(node, x).dtype;
  RX_CHECK(xdt == DataType::Int(32) || xdt == DataType::Int(64))
      << ctx.where(node) << ": int32 or int64 tokens expected, got " << xdt.to_string();
  std::vector<PrimExpr> shape = ctx.shape_of(node, x, "TfIdfVectorizer");
  RX_CHECK(shape.size() == 1 || shape.size() == 2)
      << ctx.where(node) << ": the input must be (C) or (B, C), got "
      << to_string(get_struct_info(x));
  const int64_t* cp = tir::as_const_int(shape.back());
  RX_CHECK(cp) << ctx.where(node) << ": needs a static number of tokens, got "
               << tir::to_string(shape.back());
  int64_t C = *cp;
  std::vector<int64_t> pool = attr_ints(node, "pool_int64s").value_or(std::vector<int64_t>{});
  std::vector<int64_t> starts = attr_ints(node, "ngram_counts").value_or(std::vector<int64_t>{});
  std::vector<int64_t> columns = attr_ints(node, "ngram_indexes").value_or(std::vector<int64_t>{});
  int64_t min_n = attr_int(node, "min_gram_length", 1), max_n = attr_int(node, "max_gram_length", 1);
  int64_t max_skip = attr_int(node, "max_skip_count", 0);
  std::string mode = attr_string(node, "mode", "TF");
  RX_CHECK(mode == "TF" || mode == "IDF" || mode == "TFIDF")
      << ctx.where(node) << ": mode '" << mode << "' is not valid (expected TF, IDF or TFIDF)";
  RX_CHECK(min_n >= 1 && min_n <= max_n && max_skip >= 0)
      << ctx.where(node) << ": needs 1 <= min_gram_length <= max_gram_length and "
      << "max_skip_count >= 0";
  RX_CHECK(!columns.empty() && !starts.empty())
      << ctx.where(node) << ": ngram_counts and ngram_indexes are required";
  // The pool's n-grams, in order: (n, offset in pool).
  std::vector<std::pair<int64_t, int64_t>> grams;
  for (size_t n = 1; n <= starts.size(); ++n) {
    int64_t begin = starts[n - 1];
    int64_t end = n < starts.size() ? starts[n] : int64_t(pool.size());
    RX_CHECK(begin >= 0 && begin <= end && end <= int64_t(pool.size()) && (end - begin) % int64_t(n) == 0)
        << ctx.where(node) << ": ngram_counts[" << n - 1 << "] = " << begin << " does not "
        << "delimit whole " << n << "-grams in a pool of " << pool.size();
    for (int64_t at = begin; at < end; at += int64_t(n)) grams.emplace_back(int64_t(n), at);
  }
  RX_CHECK(grams.size() == columns.size())
      << ctx.where(node) << ": the pool holds " << grams.size() << " n-grams but ngram_indexes has "
      << columns.size() << " entries";
  int64_t outputs = *std::max_element(columns.begin(), columns.end()) + 1;
  RX_CHECK(*std::min_element(columns.begin(), columns.end()) >= 0)
      << ctx.where(node) << ": ngram_indexes must be >= 0";
  std::vector<double> weights = attr_floats(node, "weights").value_or(std::vector<double>{});
  RX_CHECK(weights.empty() || weights.size() == grams.size())
      << ctx.where(node) << ": weights has " << weights.size() << " entries for "
      << grams.size() << " n-grams";

  BlockBuilder& bb = ctx.bb();
  DataType f32 = DataType::Float(32);
  bool batched = shape.size() == 2;
  Expr rows = batched ? x : bb.emit(op::expand_dims(x, {0}));
  PrimExpr B = batched ? shape[0] : tir::int_imm(1);
  Expr total = bb.emit(op::zeros({B, tir::int_imm(outputs)}, f32));
  for (int64_t n = min_n; n <= max_n; ++n) {
    // The pool's n-grams: their tokens (P, n) and (P, outputs) one-hot columns, scaled by weight.
    std::vector<int64_t> ids;
    for (size_t k = 0; k < grams.size(); ++k)
      if (grams[k].first == n) ids.push_back(int64_t(k));
    if (ids.empty()) continue;
    int64_t P = int64_t(ids.size());
    runtime::NDArray place = runtime::NDArray::empty({P, outputs}, f32);
    std::fill(place.data_as<float>(), place.data_as<float>() + P * outputs, 0.f);
    for (int64_t p = 0; p < P; ++p) place.data_as<float>()[p * outputs + columns[size_t(ids[size_t(p)])]] = 1;
    Expr counts;  // (B, P)
    for (int64_t s = 0; s <= (n == 1 ? 0 : max_skip); ++s) {
      int64_t d = s + 1, L = C - (n - 1) * d;
      if (L <= 0) break;
      Expr match;
      for (int64_t j = 0; j < n; ++j) {
        runtime::NDArray tok = runtime::NDArray::empty({P, 1}, xdt);
        for (int64_t p = 0; p < P; ++p) {
          int64_t v = pool[size_t(grams[size_t(ids[size_t(p)])].second + j)];
          if (xdt == DataType::Int(32)) tok.data_as<int32_t>()[p] = int32_t(v);
          else tok.data_as<int64_t>()[p] = v;
        }
        Expr slice = bb.emit(op::strided_slice(rows, {1}, {j * d}, {j * d + L}));  // (B, L)
        Expr eq = bb.emit(op::equal(bb.emit(op::expand_dims(slice, {1})), make_constant(tok)));
        match = match.defined() ? bb.emit(op::logical_and(match, eq)) : eq;  // (B, P, L)
      }
      Expr c = bb.emit(op::sum(bb.emit(op::astype(match, f32)), std::vector<int64_t>{2}));
      counts = counts.defined() ? bb.emit(op::add(counts, c)) : c;
    }
    if (!counts.defined()) continue;
    if (mode != "TF") {
      runtime::NDArray w = runtime::NDArray::empty({P}, f32);
      for (int64_t p = 0; p < P; ++p)
        w.data_as<float>()[p] = weights.empty() ? 1.f : float(weights[size_t(ids[size_t(p)])]);
      Expr scale = make_constant(w);
      counts = mode == "IDF"
                   ? bb.emit(op::multiply(bb.emit(op::astype(bb.emit(op::greater(
                                              counts, scalar_constant(0, f32))), f32)), scale))
                   : bb.emit(op::multiply(counts, scale));
    }
    total = bb.emit(op::add(total, bb.emit(op::matmul(counts, make_constant(place)))));
  }
  Expr y = batched ? total : op::reshape(total, std::vector<PrimExpr>{tir::int_imm(outputs)});
  return {Context::tensor_value(ctx.emit(y, node))};
}

}  // namespace

void register_tfidf_ops(std::map<std::string, ConverterEntry>& t) {
  t["TfIdfVectorizer"] = {convert_tfidf, 9};
}

}  // namespace relax::onnx_frontend
