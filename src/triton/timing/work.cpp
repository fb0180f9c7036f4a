// Per-operator work counts (bytes, FLOPs) for GPU efficiency, from the formula families.
// Declared, and explained, in triton/timing/work.h.
#include "triton/timing/work.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace kjudge::triton {

namespace {

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string shape_text(const TritonCallValue& t) {
  std::string s = "[";
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(t.shape[i]);
  return s + "]";
}

// The tensors one name of a formula stands for: "x" exactly one, "x?" none or one, "x*" x and
// everything inside it.
std::vector<const TritonCallValue*> resolve(const TritonCallView& call, const std::string& word) {
  if (word.ends_with("*")) return call.tensors_in(word.substr(0, word.size() - 1));
  if (word.ends_with("?")) {
    // Optional: absent, None, or given as a number (an offset that may be a tensor or an int).
    const TritonCallValue* v = call.find(word.substr(0, word.size() - 1));
    if (!v || v->kind != TritonCallValue::Kind::tensor) return {};
    return {v};
  }
  return {&call.tensor(word)};
}

double bytes_of(const TritonCallView& call, const std::string& names) {
  double sum = 0;
  for (const std::string& w : words(names))
    for (const TritonCallValue* t : resolve(call, w)) sum += tensor_nbytes(*t);
  return sum;
}

void need_rank(const TritonCallValue& t, std::size_t rank, bool at_least = false) {
  if (t.shape.size() == rank || (at_least && t.shape.size() > rank)) return;
  throw TritonWorkError(fmt::format("{} has shape {}, not {}{} dimensions", t.name, shape_text(t),
                                    at_least ? "at least " : "", rank));
}

double dim(const TritonCallValue& t, int i) {
  const auto n = static_cast<int>(t.shape.size());
  return static_cast<double>(t.shape[static_cast<std::size_t>(i < 0 ? n + i : i)]);
}

}  // namespace

std::optional<std::int64_t> dtype_size(std::string_view dtype) {
  static const std::map<std::string_view, std::int64_t> sizes = {
      {"float64", 8},       {"float32", 4},     {"float16", 2},         {"bfloat16", 2},
      {"float8_e4m3fn", 1}, {"float8_e5m2", 1}, {"float8_e4m3fnuz", 1}, {"float8_e5m2fnuz", 1},
      {"int64", 8},         {"int32", 4},       {"int16", 2},           {"int8", 1},
      {"uint8", 1},         {"uint16", 2},      {"uint32", 4},          {"uint64", 8},
      {"bool", 1},          {"complex64", 8},   {"complex128", 16}};
  auto it = sizes.find(dtype);
  if (it == sizes.end()) return std::nullopt;
  return it->second;
}

const TritonCallValue* TritonCallView::find(std::string_view name) const {
  for (const TritonCallValue& v : values_)
    if (v.name == name) return &v;
  return nullptr;
}

const TritonCallValue& TritonCallView::tensor(std::string_view name) const {
  const TritonCallValue* v = find(name);
  if (!v) throw TritonWorkError(fmt::format("the call has no value '{}'", name));
  if (v->kind != TritonCallValue::Kind::tensor)
    throw TritonWorkError(fmt::format("'{}' is not a tensor", name));
  return *v;
}

std::vector<const TritonCallValue*> TritonCallView::tensors_in(std::string_view name) const {
  std::vector<const TritonCallValue*> out;
  for (const TritonCallValue& v : values_) {
    if (v.kind != TritonCallValue::Kind::tensor) continue;
    const std::string_view n = v.name;
    if (n == name || (n.starts_with(name) && n.size() > name.size() &&
                      (n[name.size()] == '[' || n[name.size()] == '.')))
      out.push_back(&v);
  }
  return out;
}

std::optional<double> TritonCallView::number(std::string_view name) const {
  const TritonCallValue* v = find(name);
  if (!v || v->kind != TritonCallValue::Kind::scalar) return std::nullopt;
  return v->number;
}

double tensor_numel(const TritonCallValue& t) {
  double n = 1;
  for (std::int64_t d : t.shape) n *= static_cast<double>(d);
  return n;
}

double tensor_nbytes(const TritonCallValue& t) {
  const auto size = dtype_size(t.dtype);
  if (!size)
    throw TritonWorkError(fmt::format("{} has dtype {}, of unknown size", t.name, t.dtype));
  return tensor_numel(t) * static_cast<double>(*size);
}

TritonWorkFamily work_stream(std::string reads, std::string writes) {
  return {fmt::format("stream: bytes = read {} + write {}", reads, writes),
          [reads, writes](const TritonCallView& c) {
            return TritonCallWork{bytes_of(c, reads) + bytes_of(c, writes), {}, ""};
          }};
}

TritonWorkFamily work_copy_of(std::string out) {
  return {fmt::format("copy: bytes = 2 x {} (an input of its size read, it written)", out),
          [out](const TritonCallView& c) {
            return TritonCallWork{2 * bytes_of(c, out), {}, ""};
          }};
}

TritonWorkFamily work_gather(std::string index, std::string out) {
  return {fmt::format("gather: bytes = read {} + rows of {}'s size + write {}", index, out, out),
          [index, out](const TritonCallView& c) {
            return TritonCallWork{bytes_of(c, index) + 2 * bytes_of(c, out), {}, ""};
          }};
}

TritonWorkFamily work_scatter(std::string pairs, std::string index, std::string scales) {
  std::string text = fmt::format(
      "scatter: bytes = read {} + each src of {} read and its elements written in dst's dtype",
      index, pairs);
  if (!scales.empty()) text += fmt::format(" + one {} element per row of src", scales);
  return {text, [pairs, index, scales](const TritonCallView& c) {
            double bytes = bytes_of(c, index);
            for (const std::string& pair : words(pairs)) {
              const auto gt = pair.find('>');
              const TritonCallValue& src = c.tensor(pair.substr(0, gt));
              const TritonCallValue& dst = c.tensor(pair.substr(gt + 1));
              bytes += tensor_nbytes(src) +
                       tensor_numel(src) * (tensor_nbytes(dst) / std::max(1.0, tensor_numel(dst)));
              if (!scales.empty()) {
                need_rank(src, 1, true);
                const TritonCallValue& s = c.tensor(scales);
                bytes += tensor_numel(src) / std::max(1.0, dim(src, -1)) *
                         static_cast<double>(dtype_size(s.dtype).value_or(0));
              }
            }
            return TritonCallWork{bytes, {}, ""};
          }};
}

TritonWorkFamily work_gemm(std::string a, std::string out, std::string other_reads) {
  return {fmt::format("gemm: flops = 2*batch*M*N*K ({} [..., M, K], {} [..., M, N]); bytes = "
                      "read {} {} + write {}",
                      a, out, a, other_reads, out),
          [a, out, other_reads](const TritonCallView& c) {
            const TritonCallValue& ta = c.tensor(a);
            const TritonCallValue& to = c.tensor(out);
            need_rank(ta, 2, true);
            need_rank(to, 2, true);
            const double m = dim(ta, -2), k = dim(ta, -1), n = dim(to, -1);
            if (dim(to, -2) != m)
              throw TritonWorkError(fmt::format("{} {} and {} {} differ in M", a, shape_text(ta),
                                                out, shape_text(to)));
            const double batch = tensor_numel(to) / std::max(1.0, m * n);
            if (tensor_numel(ta) != batch * m * k)
              throw TritonWorkError(fmt::format("{} {} and {} {} differ in their batch", a,
                                                shape_text(ta), out, shape_text(to)));
            TritonCallWork w;
            w.bytes = tensor_nbytes(ta) + bytes_of(c, other_reads) + tensor_nbytes(to);
            w.flops = 2 * batch * m * n * k;
            w.flops_dtype = ta.dtype;
            return w;
          }};
}

TritonWorkFamily work_gemv(std::string mat, std::string vec, std::string out) {
  return {fmt::format("gemv: flops = 2*N*M ({} [N, M], {} [M]); bytes = read {} {} + write {}", mat,
                      vec, mat, vec, out),
          [mat, vec, out](const TritonCallView& c) {
            const TritonCallValue& tm = c.tensor(mat);
            const TritonCallValue& tv = c.tensor(vec);
            need_rank(tm, 2);
            if (tensor_numel(tv) != dim(tm, 1))
              throw TritonWorkError(fmt::format("{} {} does not fit {} {}", vec, shape_text(tv),
                                                mat, shape_text(tm)));
            TritonCallWork w;
            w.bytes = tensor_nbytes(tm) + tensor_nbytes(tv) + bytes_of(c, out);
            w.flops = 2 * tensor_numel(tm);
            w.flops_dtype = tm.dtype;
            return w;
          }};
}

TritonWorkFamily work_attention(std::string q, std::string k, std::string v, std::string o,
                                std::string causal) {
  return {
      fmt::format("attention: flops = 2*B*H*pairs*(D + Dv) ({} [B, H, Sq, D], {} [B, Hk, Sk, "
                  "D], {} [B, Hk, Sk, Dv]; pairs = Sq*Sk, or Sq*(Sq+1)/2 causal: {}); bytes "
                  "= read {} {} {} + write {}",
                  q, k, v, causal, q, k, v, o),
      [q, k, v, o, causal](const TritonCallView& c) {
        const TritonCallValue& tq = c.tensor(q);
        const TritonCallValue& tk = c.tensor(k);
        const TritonCallValue& tv = c.tensor(v);
        for (const TritonCallValue* t : {&tq, &tk, &tv}) need_rank(*t, 4);
        const double b = dim(tq, 0), h = dim(tq, 1), sq = dim(tq, 2), d = dim(tq, 3);
        const double sk = dim(tk, 2), dv = dim(tv, 3);
        if (dim(tk, 3) != d || dim(tv, 2) != sk || dim(tk, 0) != b)
          throw TritonWorkError(fmt::format("{} {}, {} {}, {} {} do not fit together", q,
                                            shape_text(tq), k, shape_text(tk), v, shape_text(tv)));
        bool is_causal = causal == "yes";
        if (causal != "yes" && causal != "no") {
          const auto flag = c.number(causal);
          if (!flag) throw TritonWorkError("the call does not say '" + causal + "'");
          is_causal = *flag != 0;
        }
        if (is_causal && sq != sk)
          throw TritonWorkError("causal attention with Sq != Sk: the mask's offset is unknown");
        const double pairs = is_causal ? sq * (sq + 1) / 2 : sq * sk;
        TritonCallWork w;
        w.bytes = tensor_nbytes(tq) + tensor_nbytes(tk) + tensor_nbytes(tv) + bytes_of(c, o);
        w.flops = 2 * b * h * pairs * (d + dv);
        w.flops_dtype = tq.dtype;
        return w;
      }};
}

TritonWorkFamily work_conv2d(std::string input, std::string weight, std::string out) {
  return {fmt::format("conv2d: flops = 2*numel({})*Cin/groups*KH*KW ({} [Cout, Cin/groups, KH, "
                      "KW]); bytes = read {} {} + write {}",
                      out, weight, input, weight, out),
          [input, weight, out](const TritonCallView& c) {
            const TritonCallValue& ti = c.tensor(input);
            const TritonCallValue& tw = c.tensor(weight);
            const TritonCallValue& to = c.tensor(out);
            for (const TritonCallValue* t : {&ti, &tw, &to}) need_rank(*t, 4);
            if (dim(to, 1) != dim(tw, 0))
              throw TritonWorkError(fmt::format("{} {} and {} {} differ in Cout", weight,
                                                shape_text(tw), out, shape_text(to)));
            TritonCallWork w;
            w.bytes = tensor_nbytes(ti) + tensor_nbytes(tw) + tensor_nbytes(to);
            w.flops = 2 * tensor_numel(to) * dim(tw, 1) * dim(tw, 2) * dim(tw, 3);
            w.flops_dtype = ti.dtype;
            return w;
          }};
}

TritonWork triton_operator_work(const std::string& op, const std::vector<TritonCallSite>& sites,
                                const std::vector<TritonWorkRule>& rules) {
  TritonWork w;
  // The runner's lower bound first: what the operator falls back to.
  std::int64_t lower = 0;
  for (const TritonCallSite& s : sites) {
    if (s.bytes < 0) {
      lower = -1;
      break;
    }
    lower += s.bytes;
  }
  if (sites.empty()) lower = -1;
  auto fall_back = [&](std::string why) {
    w = TritonWork{};
    w.basis = lower >= 0 ? "lower_bound" : "none";
    w.bytes = lower;
    w.note = std::move(why);
    return w;
  };
  bool any_rule = false;
  for (const TritonWorkRule& r : rules) any_rule |= r.op == op;
  if (!any_rule) return fall_back("no stated work for this operator");
  if (sites.empty()) return fall_back("no call sites");

  double bytes = 0, flops = 0;
  bool has_flops = false, flops_everywhere = true, one_dtype = true;
  std::string dtype;
  for (std::size_t i = 0; i < sites.size(); ++i) {
    const TritonCallSite& s = sites[i];
    const TritonWorkRule* rule = nullptr;
    for (const TritonWorkRule& r : rules)
      if (r.op == op && (r.entry.empty() || r.entry == s.entry)) {
        rule = &r;
        break;
      }
    if (!rule) return fall_back(fmt::format("call {} ({}) has no stated formula", i, s.entry));
    if (s.values.empty())
      return fall_back(
          fmt::format("call {} ({}): the runner did not describe its values", i, s.entry));
    TritonCallWork cw;
    try {
      cw = rule->family.formula(TritonCallView(s.values));
    } catch (const TritonWorkError& e) {
      return fall_back(fmt::format("call {} ({}) does not fit '{}': {}", i, s.entry,
                                   rule->family.text, e.what()));
    }
    bytes += cw.bytes;
    if (cw.flops) {
      has_flops = true;
      flops += *cw.flops;
      if (dtype.empty()) dtype = cw.flops_dtype;
      one_dtype &= cw.flops_dtype == dtype;
    } else {
      flops_everywhere = false;
    }
    if (std::find(w.formulas.begin(), w.formulas.end(), rule->family.text) == w.formulas.end())
      w.formulas.push_back(rule->family.text);
  }
  w.basis = "stated";
  w.bytes = static_cast<std::int64_t>(bytes);
  if (has_flops) {
    w.flops = flops;
    if (one_dtype) w.flops_dtype = dtype;
    if (!flops_everywhere)
      w.note = "some calls have no FLOP count (memory-bound entries): the FLOPs are theirs only";
    else if (!one_dtype)
      w.note = "the calls compute in several dtypes: no single matmul peak applies";
  }
  return w;
}

}  // namespace kjudge::triton
