// Decoding the Triton runner's output files (manifest and blob) into tensors.
// Declared, and explained, in triton/outputs/tensor_file.h.
#include "triton/outputs/tensor_file.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/input_error.h"
#include "core/read_file.h"

namespace kjudge::triton {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the runner's data is little-endian and is read in place");

// A float with `mantissa_bits` and an exponent `exp` already unbiased by the caller's format.
double ldexp_fraction(unsigned mantissa, int mantissa_bits, int exponent, bool normal) {
  const double m = static_cast<double>(mantissa) / static_cast<double>(1u << mantissa_bits);
  return std::ldexp(normal ? 1.0 + m : m, exponent);
}

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

const nlohmann::json& field(const nlohmann::json& obj, const char* key, const std::string& source,
                            const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw InputError(source, 0, where + "." + key, "missing");
  return *it;
}

std::uint64_t unsigned_field(const nlohmann::json& obj, const char* key, const std::string& source,
                             const std::string& where) {
  const nlohmann::json& v = field(obj, key, source, where);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    throw InputError(source, 0, where + "." + key, "not a non-negative integer: " + v.dump());
  return v.get<std::uint64_t>();
}

std::string string_field(const nlohmann::json& obj, const char* key, const std::string& source,
                         const std::string& where) {
  const nlohmann::json& v = field(obj, key, source, where);
  if (!v.is_string()) throw InputError(source, 0, where + "." + key, "not a string: " + v.dump());
  return v.get<std::string>();
}

OutputKind parse_kind(const std::string& s, const std::string& source, const std::string& where) {
  if (s == "tensor") return OutputKind::tensor;
  if (s == "none") return OutputKind::none;
  if (s == "text") return OutputKind::text;
  if (s == "other") return OutputKind::other;
  throw InputError(source, 0, where + ".kind", "unknown kind '" + s + "'");
}

// Shape, element count and the decoded values of one tensor entry.
void read_tensor(const nlohmann::json& e, std::string_view data, const std::string& source,
                 const std::string& where, std::uint64_t& budget, OutputEntry& out) {
  const std::string dtype_text = string_field(e, "dtype", source, where);
  std::optional<DType> dtype = parse_dtype(dtype_text);
  if (!dtype || dtype_name(*dtype) != dtype_text)
    throw InputError(source, 0, where + ".dtype", "not a dtype the judge reads: " + dtype_text);
  out.tensor.dtype = *dtype;
  const nlohmann::json& shape = field(e, "shape", source, where);
  if (!shape.is_array()) throw InputError(source, 0, where + ".shape", "not an array");
  std::uint64_t numel = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const nlohmann::json& d = shape[i];
    const std::string f = fmt::format("{}.shape[{}]", where, i);
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0)
      throw InputError(source, 0, f, "not a non-negative integer: " + d.dump());
    const auto n = d.get<std::uint64_t>();
    if (n != 0 && numel > std::numeric_limits<std::uint64_t>::max() / n)
      throw InputError(source, 0, where + ".shape", "the element count overflows");
    numel *= n;
    out.tensor.shape.push_back(static_cast<std::int64_t>(n));
  }
  // What the data holds: every element, or the sample's.
  std::uint64_t kept = numel;
  if (auto s = e.find("sampled"); s != e.end()) {
    const std::string at = where + ".sampled";
    if (!s->is_object()) throw InputError(source, 0, at, "not an object");
    TensorSample sample;
    sample.elements = unsigned_field(*s, "elements", source, at);
    sample.seed = unsigned_field(*s, "seed", source, at);
    if (sample.elements == 0 || sample.elements >= numel)
      throw InputError(source, 0, at + ".elements",
                       fmt::format("{} elements of {}: a sample holds at least one element and "
                                   "fewer than the tensor",
                                   sample.elements, numel));
    kept = sample.elements;
    out.sample = sample;
  }
  if (kept > budget)
    throw InputError(source, 0, where + ".shape",
                     fmt::format("{} elements: more than the judge reads from one run", kept));
  budget -= kept;
  const std::uint64_t offset = unsigned_field(e, "offset", source, where);
  const std::uint64_t nbytes = unsigned_field(e, "nbytes", source, where);
  const std::size_t size = dtype_size(*dtype);
  if (nbytes != kept * size)
    throw InputError(source, 0, where + ".nbytes",
                     fmt::format("{} bytes for {} elements of {} ({} expected)", nbytes, kept,
                                 dtype_text, kept * size));
  if (offset > data.size() || nbytes > data.size() - offset)
    throw InputError(source, 0, where + ".offset",
                     fmt::format("bytes {}..{} lie outside the {} bytes of data", offset,
                                 offset + nbytes, data.size()));
  if (e.contains("complex") && !e["complex"].is_boolean())
    throw InputError(source, 0, where + ".complex", "not a boolean");
  out.complex = e.value("complex", false);
  if (out.complex && (shape.empty() || out.tensor.shape.back() != 2))
    throw InputError(source, 0, where + ".shape", "a complex tensor needs a last axis of 2");
  out.scalar = e.contains("scalar") && e["scalar"].is_boolean() && e["scalar"].get<bool>();
  out.tensor.values.resize(kept);
  const auto* p = reinterpret_cast<const unsigned char*>(data.data()) + offset;
  for (std::uint64_t i = 0; i < kept; ++i)
    out.tensor.values[i] = decode_element(*dtype, p + i * size);
}

}  // namespace

std::string_view output_kind_name(OutputKind k) {
  switch (k) {
    case OutputKind::tensor:
      return "tensor";
    case OutputKind::none:
      return "none";
    case OutputKind::text:
      return "text";
    case OutputKind::other:
      return "other";
  }
  return "?";
}

const OutputEntry* OutputSet::find(std::string_view name) const {
  for (const OutputEntry& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::size_t dtype_size(DType d) {
  switch (d) {
    case DType::f64:
    case DType::i64:
      return 8;
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::f16:
    case DType::bf16:
    case DType::i16:
      return 2;
    case DType::f8e4m3:
    case DType::f8e5m2:
    case DType::i8:
    case DType::u8:
    case DType::boolean:
      return 1;
  }
  return 1;
}

double decode_element(DType d, const unsigned char* p) {
  switch (d) {
    case DType::f64:
      return load<double>(p);
    case DType::f32:
      return load<float>(p);
    case DType::f16: {
      const auto bits = load<std::uint16_t>(p);
      const double sign = (bits & 0x8000) ? -1.0 : 1.0;
      const unsigned exp = (bits >> 10) & 0x1f, man = bits & 0x3ff;
      if (exp == 0x1f)
        return man ? std::numeric_limits<double>::quiet_NaN()
                   : sign * std::numeric_limits<double>::infinity();
      return sign * (exp == 0 ? ldexp_fraction(man, 10, -14, false)
                              : ldexp_fraction(man, 10, static_cast<int>(exp) - 15, true));
    }
    case DType::bf16: {
      // bfloat16 is the top half of a float32.
      const std::uint32_t bits = static_cast<std::uint32_t>(load<std::uint16_t>(p)) << 16;
      return std::bit_cast<float>(bits);
    }
    case DType::f8e4m3: {
      // e4m3fn: bias 7, no infinities, NaN only at S.1111.111; max 448.
      const unsigned b = *p;
      const double sign = (b & 0x80) ? -1.0 : 1.0;
      const unsigned exp = (b >> 3) & 0xf, man = b & 0x7;
      if (exp == 0xf && man == 0x7) return std::numeric_limits<double>::quiet_NaN();
      return sign * (exp == 0 ? ldexp_fraction(man, 3, -6, false)
                              : ldexp_fraction(man, 3, static_cast<int>(exp) - 7, true));
    }
    case DType::f8e5m2: {
      // e5m2: bias 15, IEEE-like infinities and NaNs.
      const unsigned b = *p;
      const double sign = (b & 0x80) ? -1.0 : 1.0;
      const unsigned exp = (b >> 2) & 0x1f, man = b & 0x3;
      if (exp == 0x1f)
        return man ? std::numeric_limits<double>::quiet_NaN()
                   : sign * std::numeric_limits<double>::infinity();
      return sign * (exp == 0 ? ldexp_fraction(man, 2, -14, false)
                              : ldexp_fraction(man, 2, static_cast<int>(exp) - 15, true));
    }
    case DType::i8:
      return load<std::int8_t>(p);
    case DType::i16:
      return load<std::int16_t>(p);
    case DType::i32:
      return load<std::int32_t>(p);
    case DType::i64:
      return static_cast<double>(load<std::int64_t>(p));
    case DType::u8:
      return *p;
    case DType::boolean:
      return *p != 0 ? 1.0 : 0.0;
  }
  return 0;
}

OutputSet parse_output_set(const nlohmann::json& outputs, std::string_view data,
                           const std::string& source, std::uint64_t max_elements) {
  if (!outputs.is_object()) throw InputError(source, 0, "outputs", "not an object");
  const std::uint64_t declared = unsigned_field(outputs, "data_bytes", source, "outputs");
  if (declared != data.size())
    throw InputError(source, 0, "outputs.data_bytes",
                     fmt::format("says {} bytes of data, {} came", declared, data.size()));
  const nlohmann::json& entries = field(outputs, "entries", source, "outputs");
  if (!entries.is_array()) throw InputError(source, 0, "outputs.entries", "not an array");
  OutputSet set;
  std::uint64_t budget = max_elements;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string where = fmt::format("outputs.entries[{}]", i);
    const nlohmann::json& e = entries[i];
    if (!e.is_object()) throw InputError(source, 0, where, "not an object");
    OutputEntry out;
    out.name = string_field(e, "name", source, where);
    if (set.find(out.name))
      throw InputError(source, 0, where + ".name", "'" + out.name + "' appears twice");
    out.kind = parse_kind(string_field(e, "kind", source, where), source, where);
    switch (out.kind) {
      case OutputKind::tensor:
        read_tensor(e, data, source, where, budget, out);
        break;
      case OutputKind::text:
        out.text = string_field(e, "text", source, where);
        break;
      case OutputKind::other: {
        // Only for the reader's eyes: the type, and the repr where the runner gave one.
        std::string type =
            e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() : "?";
        std::string repr =
            e.contains("repr") && e["repr"].is_string() ? e["repr"].get<std::string>() : "";
        out.text = repr.empty() ? type : type + ": " + repr;
        break;
      }
      case OutputKind::none:
        break;
    }
    set.entries.push_back(std::move(out));
  }
  return set;
}

OutputSet read_output_files(const std::filesystem::path& record_json,
                            const std::filesystem::path& data_bin) {
  const std::string text = read_input_file(record_json);
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(record_json.string(), 0, "", std::string("not JSON: ") + e.what());
  }
  if (!record.is_object() || !record.contains("outputs"))
    throw InputError(record_json.string(), 0, "outputs", "missing (the run reported no outputs)");
  const std::string data = read_input_file(data_bin);
  return parse_output_set(record["outputs"], data,
                          record_json.string() + " + " + data_bin.filename().string());
}

}  // namespace kjudge::triton
