// The runner's output format as the judge reads it: every dtype decoded bit by bit, and every
// kind of malformed manifest refused with an error that names the source and the field.
#include "triton/outputs/tensor_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge::triton {
namespace {

using nlohmann::json;

double dec(DType d, std::initializer_list<unsigned> bytes) {
  unsigned char buf[8] = {};
  std::size_t i = 0;
  for (unsigned b : bytes) buf[i++] = static_cast<unsigned char>(b);
  return decode_element(d, buf);
}

TEST(TensorFile, DecodesHalf) {
  EXPECT_EQ(dec(DType::f16, {0x00, 0x3c}), 1.0);
  EXPECT_EQ(dec(DType::f16, {0x00, 0xc0}), -2.0);
  EXPECT_EQ(dec(DType::f16, {0x01, 0x00}), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_EQ(dec(DType::f16, {0xff, 0x7b}), 65504.0);               // largest normal
  EXPECT_TRUE(std::isinf(dec(DType::f16, {0x00, 0x7c})));
  EXPECT_TRUE(std::isnan(dec(DType::f16, {0x00, 0x7e})));
  EXPECT_EQ(dec(DType::f16, {0x55, 0x35}), 0.333251953125);
}

TEST(TensorFile, DecodesBfloat16AndFloat32AndFloat64) {
  EXPECT_EQ(dec(DType::bf16, {0x80, 0x3f}), 1.0);
  EXPECT_EQ(dec(DType::bf16, {0x49, 0x40}), 3.140625);
  EXPECT_TRUE(std::isnan(dec(DType::bf16, {0xc0, 0x7f})));
  float f = -0.1f;
  unsigned char b4[4];
  std::memcpy(b4, &f, 4);
  EXPECT_EQ(decode_element(DType::f32, b4), static_cast<double>(-0.1f));
  double d = 1e-300;
  unsigned char b8[8];
  std::memcpy(b8, &d, 8);
  EXPECT_EQ(decode_element(DType::f64, b8), 1e-300);
}

TEST(TensorFile, DecodesFloat8) {
  EXPECT_EQ(dec(DType::f8e4m3, {0x38}), 1.0);
  EXPECT_EQ(dec(DType::f8e4m3, {0x7e}), 448.0);  // the format's maximum
  EXPECT_EQ(dec(DType::f8e4m3, {0xfe}), -448.0);
  EXPECT_EQ(dec(DType::f8e4m3, {0x01}), std::ldexp(1.0, -9));
  EXPECT_TRUE(std::isnan(dec(DType::f8e4m3, {0x7f})));  // e4m3fn has no infinity
  EXPECT_EQ(dec(DType::f8e5m2, {0x3c}), 1.0);
  EXPECT_EQ(dec(DType::f8e5m2, {0x7b}), 57344.0);
  EXPECT_EQ(dec(DType::f8e5m2, {0x01}), std::ldexp(1.0, -16));
  EXPECT_TRUE(std::isinf(dec(DType::f8e5m2, {0x7c})));
  EXPECT_TRUE(std::isnan(dec(DType::f8e5m2, {0x7d})));
}

TEST(TensorFile, DecodesIntegersAndBool) {
  EXPECT_EQ(dec(DType::i8, {0xff}), -1.0);
  EXPECT_EQ(dec(DType::u8, {0xff}), 255.0);
  EXPECT_EQ(dec(DType::i16, {0x00, 0x80}), -32768.0);
  EXPECT_EQ(dec(DType::i32, {0xff, 0xff, 0xff, 0x7f}), 2147483647.0);
  EXPECT_EQ(dec(DType::i64, {0, 0, 0, 0, 0, 0, 0x20, 0}), 9007199254740992.0);  // 2^53
  EXPECT_EQ(dec(DType::boolean, {0x01}), 1.0);
  EXPECT_EQ(dec(DType::boolean, {0x00}), 0.0);
}

std::string floats(std::initializer_list<float> xs) {
  std::string s;
  for (float x : xs) s.append(reinterpret_cast<const char*>(&x), 4);
  return s;
}

json manifest() {
  return {{"entries",
           {{{"name", "test_case_1"},
             {"kind", "tensor"},
             {"dtype", "float32"},
             {"shape", {2, 1}},
             {"offset", 0},
             {"nbytes", 8}},
            {{"name", "test_case_2[0]"}, {"kind", "none"}},
            {{"name", "msg"}, {"kind", "text"}, {"text", "assert failed"}},
            {{"name", "obj"}, {"kind", "other"}, {"type", "Config"}, {"repr", "Config()"}},
            {{"name", "z"},
             {"kind", "tensor"},
             {"dtype", "float32"},
             {"shape", {1, 2}},
             {"complex", true},
             {"offset", 8},
             {"nbytes", 8}},
            {{"name", "n"},
             {"kind", "tensor"},
             {"dtype", "int64"},
             {"shape", json::array()},
             {"scalar", true},
             {"offset", 16},
             {"nbytes", 8}}}},
          {"data_bytes", 24}};
}

std::string blob() {
  std::string d = floats({1.5f, -2.0f, 0.5f, 0.25f});
  std::int64_t n = -7;
  d.append(reinterpret_cast<const char*>(&n), 8);
  return d;
}

TEST(TensorFile, ParsesEveryKind) {
  OutputSet s = parse_output_set(manifest(), blob(), "record");
  ASSERT_EQ(s.entries.size(), 6u);
  const OutputEntry* t = s.find("test_case_1");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kind, OutputKind::tensor);
  EXPECT_EQ(t->tensor.dtype, DType::f32);
  EXPECT_EQ(t->tensor.shape, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(t->tensor.values, (std::vector<double>{1.5, -2.0}));
  EXPECT_EQ(s.find("test_case_2[0]")->kind, OutputKind::none);
  EXPECT_EQ(s.find("msg")->text, "assert failed");
  EXPECT_EQ(s.find("obj")->text, "Config: Config()");
  EXPECT_TRUE(s.find("z")->complex);
  EXPECT_EQ(s.find("z")->tensor.values, (std::vector<double>{0.5, 0.25}));
  EXPECT_TRUE(s.find("n")->scalar);
  EXPECT_TRUE(s.find("n")->tensor.shape.empty());
  EXPECT_EQ(s.find("n")->tensor.values, (std::vector<double>{-7}));
  EXPECT_EQ(s.find("nope"), nullptr);
}

TEST(TensorFile, EmptyTensorAndEmptySet) {
  json m = {{"entries",
             {{{"name", "e"},
               {"kind", "tensor"},
               {"dtype", "float16"},
               {"shape", {0, 4}},
               {"offset", 0},
               {"nbytes", 0}}}},
            {"data_bytes", 0}};
  OutputSet s = parse_output_set(m, "", "r");
  EXPECT_TRUE(s.find("e")->tensor.values.empty());
  EXPECT_TRUE(
      parse_output_set({{"entries", json::array()}, {"data_bytes", 0}}, "", "r").entries.empty());
}

// The error of parsing `m` with `data`; fails the test when there is none.
InputError error_of(const json& m, const std::string& data, std::uint64_t max = 1u << 20) {
  try {
    parse_output_set(m, data, "the report", max);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "parsed without error: " << m.dump();
  return InputError("", 0, "", "");
}

void expect_error(const json& m, const std::string& data, const std::string& field,
                  const std::string& reason_part, std::uint64_t max = 1u << 20) {
  InputError e = error_of(m, data, max);
  EXPECT_EQ(e.file(), "the report");
  EXPECT_EQ(e.field(), field) << e.what();
  EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
}

TEST(TensorFile, RefusesMalformedManifests) {
  const std::string d = blob();
  expect_error(json::array(), d, "outputs", "not an object");
  json m = manifest();
  m.erase("entries");
  expect_error(m, d, "outputs.entries", "missing");
  m = manifest();
  m["data_bytes"] = 99;
  expect_error(m, d, "outputs.data_bytes", "says 99 bytes of data, 24 came");
  m = manifest();
  m["data_bytes"] = -1;
  expect_error(m, d, "outputs.data_bytes", "not a non-negative integer");
  m = manifest();
  m["entries"][0]["dtype"] = "complex64";
  expect_error(m, d, "outputs.entries[0].dtype", "not a dtype the judge reads");
  m = manifest();
  m["entries"][0]["dtype"] = "half";  // an alias: the runner writes torch's own names only
  expect_error(m, d, "outputs.entries[0].dtype", "not a dtype");
  m = manifest();
  m["entries"][0]["nbytes"] = 12;
  expect_error(m, d, "outputs.entries[0].nbytes", "12 bytes for 2 elements of float32");
  m = manifest();
  m["entries"][0]["offset"] = 20;
  expect_error(m, d, "outputs.entries[0].offset", "outside the 24 bytes");
  m = manifest();
  m["entries"][0]["shape"] = {2, -1};
  expect_error(m, d, "outputs.entries[0].shape[1]", "not a non-negative integer");
  m = manifest();
  m["entries"][0]["shape"] = "2x1";
  expect_error(m, d, "outputs.entries[0].shape", "not an array");
  m = manifest();
  m["entries"][0]["shape"] = {1ull << 40, 1ull << 40};
  expect_error(m, d, "outputs.entries[0].shape", "overflows");
  m = manifest();
  m["entries"][1]["name"] = "test_case_1";
  expect_error(m, d, "outputs.entries[1].name", "appears twice");
  m = manifest();
  m["entries"][1]["kind"] = "pickle";
  expect_error(m, d, "outputs.entries[1].kind", "unknown kind 'pickle'");
  m = manifest();
  m["entries"][2].erase("text");
  expect_error(m, d, "outputs.entries[2].text", "missing");
  m = manifest();
  m["entries"][4]["shape"] = {2, 1};
  expect_error(m, d, "outputs.entries[4].shape", "last axis of 2");
  m = manifest();
  m["entries"][0]["name"] = 5;
  expect_error(m, d, "outputs.entries[0].name", "not a string");
  // The element budget: a report cannot make the judge allocate without bound.
  expect_error(manifest(), d, "outputs.entries[4].shape", "more than the judge reads", 3);
}

// A timed call's tensor kept as a sample: its own shape, only the sampled elements' data.
TEST(TensorFile, ReadsASampleAndRefusesAMalformedOne) {
  json m = {{"entries",
             {{{"name", "result"},
               {"kind", "tensor"},
               {"dtype", "float32"},
               {"shape", {1000, 3}},
               {"sampled", {{"elements", 2}, {"seed", 77}}},
               {"offset", 0},
               {"nbytes", 8}}}},
            {"data_bytes", 8}};
  const std::string d = floats({1.5f, -2.0f});
  OutputSet s = parse_output_set(m, d, "r");
  const OutputEntry* e = s.find("result");
  ASSERT_TRUE(e->sample);
  EXPECT_EQ(e->sample->elements, 2u);
  EXPECT_EQ(e->sample->seed, 77u);
  EXPECT_EQ(e->tensor.shape, (std::vector<std::int64_t>{1000, 3}));
  EXPECT_EQ(e->tensor.values, (std::vector<double>{1.5, -2.0}));
  // The judge's element budget counts what it holds: the sample, not the tensor.
  EXPECT_NO_THROW(parse_output_set(m, d, "r", 2));
  expect_error(m, d, "outputs.entries[0].shape", "more than the judge reads", 1);
  EXPECT_FALSE(parse_output_set(manifest(), blob(), "r").find("test_case_1")->sample);

  json bad = m;
  bad["entries"][0]["nbytes"] = 12000;  // the whole tensor's bytes for a sample of 2
  expect_error(bad, d, "outputs.entries[0].nbytes", "12000 bytes for 2 elements");
  bad = m;
  bad["entries"][0]["sampled"] = true;
  expect_error(bad, d, "outputs.entries[0].sampled", "not an object");
  bad = m;
  bad["entries"][0]["sampled"].erase("seed");
  expect_error(bad, d, "outputs.entries[0].sampled.seed", "missing");
  bad = m;
  bad["entries"][0]["sampled"]["elements"] = 0;
  expect_error(bad, d, "outputs.entries[0].sampled.elements", "at least one element");
  bad = m;
  bad["entries"][0]["shape"] = {2};  // a sample of every element is the whole tensor
  expect_error(bad, d, "outputs.entries[0].sampled.elements", "fewer than the tensor");
}

TEST(TensorFile, ReadsTheRunnersFilePair) {
  kjudge::testing::TempDir dir;
  json record = {{"protocol", 1}, {"status", "ok"}, {"outputs", manifest()}};
  std::ofstream(dir / "record.json") << record.dump() << "\n";
  std::ofstream(dir / "outputs.bin", std::ios::binary) << blob();
  OutputSet s = read_output_files(dir / "record.json", dir / "outputs.bin");
  EXPECT_EQ(s.entries.size(), 6u);

  std::ofstream(dir / "bad.json") << "{not json";
  try {
    read_output_files(dir / "bad.json", dir / "outputs.bin");
    ADD_FAILURE() << "read a broken record";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
  }
  std::ofstream(dir / "short.bin", std::ios::binary) << blob().substr(0, 10);
  try {
    read_output_files(dir / "record.json", dir / "short.bin");
    ADD_FAILURE() << "read a cut data file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("short.bin"), std::string::npos) << e.what();
    EXPECT_EQ(e.field(), "outputs.data_bytes");
  }
  try {
    read_output_files(dir / "none.json", dir / "outputs.bin");
    ADD_FAILURE() << "read a missing file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("none.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kjudge::triton
