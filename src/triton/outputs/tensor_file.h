#pragma once
// The outputs of one Triton runner pass, as the runner encodes them (docs/triton.md, "The
// output format"): a manifest of named entries (kind, dtype, shape, offset, nbytes) and one blob
// of raw little-endian data the offsets point into. Reading decodes every tensor to doubles for
// compare_tensors. Anything malformed is an InputError naming the source and the field
// (`outputs.entries[3].nbytes`): the runner runs untrusted code in its own process, so its
// report is checked as strictly as any user input. A timed call's tensor too large to keep whole
// may come as a sample of its elements ("sampled": docs/triton.md, "Every timed output
// checked").
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "triton/outputs/tolerance.h"

namespace kjudge::triton {

enum class OutputKind {
  tensor,  // a tensor, numpy array or Python number (a 0-d tensor, `scalar`)
  none,    // None
  text,    // a str (compared by presence only: docs/triton.md says why)
  other,   // anything else (an object, a tensor of a dtype the judge does not read)
};

std::string_view output_kind_name(OutputKind k);

// A tensor kept as a sample of its elements (the runner's sampled timed calls): `elements` of
// them, at row-major positions the runner drew from a generator seeded `seed` (from the job's
// secret, the call site, the call and the entry's name: the same in every process of a job).
struct TensorSample {
  std::uint64_t elements = 0;
  std::uint64_t seed = 0;
};

struct OutputEntry {
  std::string name;  // the path in the test's result: test_case_1, test_case_2[0], a.b
  OutputKind kind = OutputKind::tensor;
  // kind == tensor. With `sample`, tensor.shape is the tensor's own and tensor.values holds only
  // the sampled elements, in the order drawn.
  TensorValues tensor;
  std::optional<TensorSample> sample;
  bool complex = false;  // a complex tensor stored as (real, imaginary) in a last axis of 2
  bool scalar = false;   // a Python number rather than a tensor
  std::string text;      // text: the string (cut at 4096 characters); other: its type and repr
};

struct OutputSet {
  std::vector<OutputEntry> entries;
  const OutputEntry* find(std::string_view name) const;
};

// Bytes per element of a dtype.
std::size_t dtype_size(DType d);

// The raw element at `p` (little-endian) widened to double. Exposed for tests: half, bfloat16
// and the two float8 formats are decoded here bit by bit, without relying on a compiler type.
double decode_element(DType d, const unsigned char* p);

// `outputs` is the runner's {"entries": [...], "data_bytes": N}; `data` the blob. `source`
// names where both came from, for errors. At most `max_elements` elements in all (the judge
// holds each as a double).
OutputSet parse_output_set(const nlohmann::json& outputs, std::string_view data,
                           const std::string& source,
                           std::uint64_t max_elements = std::uint64_t{1} << 28);

// The pair of files `kjudge_triton_runner.py --output-dir DIR` writes: record.json (whose
// "outputs" is the manifest) and outputs.bin.
OutputSet read_output_files(const std::filesystem::path& record_json,
                            const std::filesystem::path& data_bin);

}  // namespace kjudge::triton
