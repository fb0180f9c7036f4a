// The runner protocol from the judge's side: the request it builds, the report it accepts or
// refuses, every way a run can end (with a fake runner that misbehaves on cue:
// tests/fixtures/fake_triton_runner.py), and the real runner end to end on pure-Python
// operators (no torch on this machine: the request says so), in and out of the sandbox.
#include "triton/runner/run.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>

#include "core/input_error.h"
#include "run/result_channel.h"
#include "run/sandbox.h"
#include "schema_validator.h"
#include "test_util.h"
#include "triton/judge/eval.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::TempDir;
using nlohmann::json;

const fs::path kFake = fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/fake_triton_runner.py";
const fs::path kRunner = fs::path(KJUDGE_SOURCE_DIR) / "python/kjudge_triton_runner.py";

TritonRunner runner_with(const fs::path& script, bool sandbox = false,
                         const std::string& python = "/usr/bin/python3") {
  TritonRunner r;
  r.python = probe_python(python);
  r.script = script;
  r.step.sandbox = sandbox;
  r.step.bwrap = locate_bwrap();
  r.step.memory_limit_bytes = 2ull << 30;
  r.timeout_s = 20;
  return r;
}

TritonRunRequest request(const std::string& code, bool torch_free = true) {
  TritonRunRequest q;
  q.code = code;
  q.test_code =
      "import random\n"
      "def test_op():\n"
      "    x = random.random()\n"
      "    return {'test_case_1': op(x), 'test_case_2': (op(2.0), None)}\n"
      "result_gold = test_op()\n";
  q.seed = 42;
  q.require_torch = !torch_free;
  return q;
}

TEST(TritonRequest, CarriesEverythingTheRunnerReads) {
  TritonRunRequest q = request("def op(x): return x\n");
  q.time = true;
  q.timing.reps = 7;
  json j = triton_request_json(q, "/ws/candidate.py", "/ws/test.py", "n1");
  EXPECT_EQ(j["protocol"], 1);
  EXPECT_EQ(j["nonce"], "n1");
  EXPECT_EQ(j["candidate_path"], "/ws/candidate.py");
  EXPECT_EQ(j["test_path"], "/ws/test.py");
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["modes"], json({"test", "time"}));
  EXPECT_EQ(j["require_torch"], false);
  EXPECT_EQ(j["timing"]["reps"], 7);
  EXPECT_EQ(j["timing"]["warmup"], 3);
  EXPECT_EQ(j["timing"]["flush_bytes"], 0);
  EXPECT_EQ(j["timing"]["cupti"], false);
  // The timed calls' check: no plan yet (the reference's first process decides), the secret,
  // and the judge's own tolerances (tolerance.h), floating-point dtypes only.
  const json& check = j["timing"]["check"];
  EXPECT_TRUE(check["plan"].is_null());
  EXPECT_EQ(check["perturb"], true);
  EXPECT_EQ(check["perturb_relative"], 0.125);
  // Issue 31: the job's secret never enters the runner; the request's seed is only the
  // probe's (derived from it), and each timed call's key comes over the per-call channel.
  EXPECT_EQ(check["seed"], triton_probe_seed(0));
  EXPECT_EQ(check["max_bytes_per_site"], 16 << 20);
  EXPECT_EQ(check["max_bytes"], 128 << 20);
  EXPECT_EQ(check["tolerances"]["float32"]["rtol"], tolerance_for(DType::f32).rtol);
  EXPECT_EQ(check["tolerances"]["bfloat16"]["atol"], tolerance_for(DType::bf16).atol);
  EXPECT_FALSE(check["tolerances"].contains("int32"));
  q.timing.perturb_seed = 99;
  q.plan = json::array({{{"entry", "op"}, {"mode", "perturbed"}}});
  j = triton_request_json(q, "/ws/candidate.py", "/ws/test.py", "n1");
  EXPECT_EQ(j["timing"]["check"]["seed"], triton_probe_seed(99));
  EXPECT_NE(j["timing"]["check"]["seed"], 99);
  EXPECT_NE(triton_probe_seed(99), triton_probe_seed(98));
  EXPECT_EQ(j["timing"]["check"]["plan"][0]["mode"], "perturbed");
  // The keys the channel streams: per call, unrelated to each other and to the sample keys.
  EXPECT_EQ(triton_call_key(99, 0, 1).size(), 32u);
  EXPECT_NE(triton_call_key(99, 0, 1), triton_call_key(99, 0, 2));
  EXPECT_NE(triton_call_key(99, 0, 1), triton_call_key(99, 1, 0));
  EXPECT_NE(triton_call_key(99, 0, 1), triton_sample_key(99, 0, 1));
  EXPECT_NE(triton_call_key(99, 0, 1), triton_call_key(98, 0, 1));
  EXPECT_EQ(triton_call_sample_key(5, 3), triton_call_sample_key(5, 3));
}

// The judge's end of the per-call channel, against a runner that speaks it out of turn (the
// fake runner's `#fake forgeack`) and one that reports what it committed: the messages come
// back with the judge's clock, in order.
TEST(TritonStream, TheJudgeServesInOrderAndTimesEveryMessage) {
  TempDir dir;
  TritonRunRequest q = request("#fake ok\n#fake time 0.5\n");
  q.time = true;
  q.test = false;
  q.timing.reps = 3;
  q.timing.perturb_seed = 77;
  TritonRunOutcome o = run_triton(runner_with(kFake), q, dir / "ws");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << "\n" << o.log;
  ASSERT_TRUE(o.stream.served);
  EXPECT_TRUE(o.stream.violation.empty()) << o.stream.violation;
  ASSERT_EQ(o.stream.events.size(), 2u * 3u * 3u);  // 2 sites x 3 calls x key, done, kept
  std::int64_t last = o.stream.spawn_ns;
  for (const TritonStreamEvent& e : o.stream.events) {
    EXPECT_GE(e.at_ns, last);
    last = e.at_ns;
  }
  EXPECT_EQ(o.stream.events[1].kind, TritonStreamEvent::Kind::done);
  EXPECT_EQ(o.stream.events[1].stream_ms, o.sites[0].samples_ms[0]);
  EXPECT_EQ(o.stream.events[2].digest, o.sites[0].check.digests[0]);
  EXPECT_EQ(triton_stream_mismatch(o, true), "");
  // The report edited after the fact: what it says is checked against the log.
  TritonRunOutcome edited = o;
  edited.sites[1].samples_ms[2] *= 0.5;
  EXPECT_NE(triton_stream_mismatch(edited, true).find("site 1 (op) call 2 reports"),
            std::string::npos);
  edited = o;
  edited.sites[0].check.digests[1] = std::string(64, '0');
  EXPECT_NE(triton_stream_mismatch(edited, true).find("site 0 (op) call 1: the output"),
            std::string::npos);
  edited = o;
  edited.sites.pop_back();
  EXPECT_NE(triton_stream_mismatch(edited, true).find("site 1, which its report does not hold"),
            std::string::npos);
  edited = o;
  edited.stream.events.pop_back();  // the last call never committed whole
  EXPECT_NE(triton_stream_mismatch(edited, true).find("never committed whole"), std::string::npos);

  q.code = "#fake ok\n#fake time 0.5\n#fake forgeack\n";
  TritonRunOutcome forged = run_triton(runner_with(kFake), q, dir / "ws2");
  EXPECT_EQ(forged.status, TritonRunStatus::refused);
  EXPECT_NE(forged.detail.find("the key of site 0 call 5 asked for out of turn (first)"),
            std::string::npos)
      << forged.detail;
}

// ---- the report ----

std::string report(json rec, const std::string& data = "") {
  rec["data_bytes"] = data.size();
  return rec.dump() + "\n" + data;
}

// A timed call site as the runner reports it: its samples, and one output per sample (a
// float32 "result" of one element each, at `offset` and on), in the blob `data` grows by.
json timed_site(std::vector<double> samples, std::size_t offset, std::string& data) {
  json outputs = json::array();
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const float v = 1.5f + static_cast<float>(i);
    data.append(reinterpret_cast<const char*>(&v), 4);
    outputs.push_back({{"entries",
                        {{{"name", "result"},
                          {"kind", "tensor"},
                          {"dtype", "float32"},
                          {"shape", {1}},
                          {"offset", 0},
                          {"nbytes", 4}}}},
                       {"offset", offset + 4 * i},
                       {"data_bytes", 4}});
  }
  return {{"entry", "op"},
          {"samples_ms", samples},
          {"check",
           {{"mode", "perturbed"},
            {"reason", ""},
            {"perturbed", {"args[0]"}},
            {"observed", json::array()},
            {"probe", json::parse(R"([[], ["args[0]"], ["args[0]"]])")},
            {"outputs", outputs}}}};
}

json ok_record() {
  return {{"protocol", 1},
          {"nonce", "N"},
          {"status", "ok"},
          {"outputs",
           {{"entries",
             {{{"name", "a"},
               {"kind", "tensor"},
               {"dtype", "int32"},
               {"shape", {1}},
               {"offset", 0},
               {"nbytes", 4}}}},
            {"data_bytes", 4}}},
          {"calls", {{"op", 2}}},
          {"entries", {"op"}},
          {"result_source", "result_gold = test_op()"},
          {"env", {{"torch", "2.11"}, {"ignored", 5}}},
          {"seconds", {{"setup", 2.5}, {"test", 0.75}, {"odd", "x"}}}};
}

TEST(TritonReport, ParsesAGoodOne) {
  TritonRunOutcome o;
  parse_runner_record(report(ok_record(), std::string("\x07\0\0\0", 4)), "N", "r", o);
  EXPECT_EQ(o.status, TritonRunStatus::ok);
  ASSERT_TRUE(o.has_outputs);
  EXPECT_EQ(o.outputs.find("a")->tensor.values, std::vector<double>{7});
  EXPECT_EQ(o.calls["op"], 2);
  EXPECT_EQ(o.entries, std::vector<std::string>{"op"});
  // The runner's phases, what is not a number left out.
  EXPECT_EQ(o.phase_seconds, (std::map<std::string, double>{{"setup", 2.5}, {"test", 0.75}}));
  EXPECT_EQ(o.result_source, "result_gold = test_op()");
  EXPECT_EQ(o.env.size(), 1u);  // strings only
}

TEST(TritonReport, ParsesAnErrorAndTimings) {
  json e = {{"protocol", 1},
            {"nonce", "N"},
            {"status", "error"},
            {"error",
             {{"stage", "import"},
              {"exception_type", "ModuleNotFoundError"},
              {"message", "No module named 'triton.ops'"},
              {"traceback", "Traceback ..."}}}};
  TritonRunOutcome o;
  parse_runner_record(report(e), "N", "r", o);
  EXPECT_EQ(o.status, TritonRunStatus::error);
  EXPECT_EQ(o.error.stage, "import");
  EXPECT_EQ(o.error.exception_type, "ModuleNotFoundError");
  EXPECT_NE(o.detail.find("ModuleNotFoundError at stage import"), std::string::npos);

  std::string data;
  json t = {{"protocol", 1},
            {"nonce", "N"},
            {"status", "ok"},
            {"timing", {{"sites", {timed_site({0.5, 0.25}, 0, data)}}}}};
  TritonRunOutcome ot;
  parse_runner_record(report(t, data), "N", "r", ot);
  ASSERT_EQ(ot.sites.size(), 1u);
  EXPECT_EQ(ot.sites[0].samples_ms, (std::vector<double>{0.5, 0.25}));
  const TritonSiteCheck& c = ot.sites[0].check;
  EXPECT_EQ(c.mode, "perturbed");
  EXPECT_EQ(c.perturbed, std::vector<std::string>{"args[0]"});
  ASSERT_EQ(c.outputs.size(), 2u);
  EXPECT_EQ(c.outputs[1].find("result")->tensor.values, std::vector<double>{2.5});
  const json plan = triton_check_plan(ot.sites);
  EXPECT_EQ(plan, json::parse(R"([{"entry": "op", "mode": "perturbed", "reason": "",
                                   "perturb": ["args[0]"], "observe": [],
                                   "probe": [[], ["args[0]"], ["args[0]"]], "reps": 2,
                                   "whole": 2, "sample": 0}])"));
}

void expect_refused(const std::string& channel, const std::string& field,
                    const std::string& reason_part) {
  TritonRunOutcome o;
  try {
    parse_runner_record(channel, "N", "the report", o);
    ADD_FAILURE() << "accepted: " << channel.substr(0, 200);
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
  }
}

TEST(TritonReport, RefusesWhatDoesNotAddUp) {
  const std::string four("\x07\0\0\0", 4);
  expect_refused("", "", "no report");
  expect_refused("{\"protocol\": 1}", "", "no end of line");
  expect_refused("not json\n", "", "not JSON");
  expect_refused("[1]\n", "", "not a JSON object");
  json r = ok_record();
  r["protocol"] = 2;
  expect_refused(report(r, four), "protocol", "expected 1, got 2");
  r = ok_record();
  r["nonce"] = "M";
  expect_refused(report(r, four), "nonce", "not the nonce of this run");
  expect_refused(ok_record().dump() + "\n" + four, "data_bytes", "says nothing");
  json cut = ok_record();
  cut["data_bytes"] = 8;
  expect_refused(cut.dump() + "\n" + four, "data_bytes", "says 8, 4 bytes follow");
  r = ok_record();
  r["status"] = "maybe";
  expect_refused(report(r, four), "status", "neither ok nor error");
  r = ok_record();
  r["status"] = "error";
  expect_refused(report(r, four), "error", "missing");
  r = ok_record();
  r["outputs"]["entries"][0]["dtype"] = "float32";  // 4 bytes still, but then shape says 1: ok
  r["outputs"]["entries"][0]["shape"] = {2};
  expect_refused(report(r, four), "outputs.entries[0].nbytes", "4 bytes for 2 elements");
  r = ok_record();
  r.erase("outputs");
  expect_refused(report(r, four), "outputs", "data follows");
  expect_refused(report(r), "", "neither outputs nor timing");
  json t = {{"protocol", 1},
            {"nonce", "N"},
            {"status", "ok"},
            {"timing", {{"sites", {{{"entry", "op"}, {"samples_ms", {1.0, 0}}}}}}}};
  expect_refused(report(t), "timing.sites[0].samples_ms", "not a positive time");
  t["timing"]["sites"][0]["samples_ms"] = json::array();
  expect_refused(report(t), "timing.sites[0].samples_ms", "non-empty");
  t["timing"]["sites"][0]["samples_ms"] = {1.0};
  t["timing"]["sites"][0]["bytes"] = -8;
  expect_refused(report(t), "timing.sites[0].bytes", "not a non-negative integer");
  t["timing"]["sites"][0]["bytes"] = 1.5;
  expect_refused(report(t), "timing.sites[0].bytes", "not a non-negative integer");
  t["timing"]["sites"][0]["bytes"] = 4096;
  t["timing"]["sites"][0]["values"] = json::array({{{"name", "a"}, {"kind", "tensor"}}});
  expect_refused(report(t), "timing.sites[0].values[0].dtype", "missing");
  t["timing"]["sites"][0]["values"] =
      json::array({{{"name", "a"}, {"kind", "tensor"}, {"dtype", "float16"}, {"shape", {2, -1}}}});
  expect_refused(report(t), "timing.sites[0].values[0].shape", "not a size");
  t["timing"]["sites"][0]["values"] = json::array({{{"name", "n"}, {"kind", "blob"}}});
  expect_refused(report(t), "timing.sites[0].values[0].kind", "is not tensor");
  t["timing"]["sites"][0]["values"] =
      json::array({{{"name", "n"}, {"kind", "scalar"}, {"value", "7"}}});
  expect_refused(report(t), "timing.sites[0].values[0].value", "not a number");
  t["timing"]["sites"][0]["values"] = json::array(
      {{{"name", "a"}, {"kind", "tensor"}, {"dtype", "float16"}, {"shape", {2, 3}}, {"cuda", true}},
       {{"name", "causal"}, {"kind", "scalar"}, {"value", true}},
       {{"name", "eps"}, {"kind", "scalar"}, {"value", nullptr}},
       {{"name", "act"}, {"kind", "text"}, {"value", "relu"}},
       {{"name", "result"}, {"kind", "none"}}});
  t["timing"]["sites"][0]["bytes"] = 4096;
  std::string timed;
  t["timing"]["sites"][0]["check"] = timed_site({1.0}, 0, timed)["check"];
  TritonRunOutcome with_bytes;
  parse_runner_record(report(t, timed), "N", "r", with_bytes);
  ASSERT_EQ(with_bytes.sites.size(), 1u);
  EXPECT_EQ(with_bytes.sites[0].bytes, 4096);
  const auto& v = with_bytes.sites[0].values;
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_TRUE(v[0].cuda);
  EXPECT_EQ(v[1].number, 1.0);
  EXPECT_FALSE(v[2].number);
  EXPECT_EQ(v[3].text, "relu");
  EXPECT_EQ(v[4].kind, TritonCallValue::Kind::none);
  r = ok_record();
  r["calls"]["op"] = "two";
  expect_refused(report(r, four), "calls.op", "not a count");
  r = ok_record();
  r["entries"] = {1};
  expect_refused(report(r, four), "entries[0]", "not a string");
}

// The timed calls' outputs: one per sample, each in its own slice of the blob, the slices one
// after the other after the test's outputs; anything else is refused.
TEST(TritonReport, EveryTimedCallHasItsOutput) {
  const std::string four("\x07\0\0\0", 4);
  // The test's outputs and the timed calls' in one blob.
  std::string data = four;
  json both = ok_record();
  both["timing"] = {{"sites", {timed_site({1.0, 1.0}, 4, data), timed_site({2.0}, 12, data)}}};
  TritonRunOutcome o;
  parse_runner_record(report(both, data), "N", "r", o);
  EXPECT_EQ(o.outputs.find("a")->tensor.values, std::vector<double>{7});
  ASSERT_EQ(o.sites.size(), 2u);
  EXPECT_EQ(o.sites[1].check.outputs[0].find("result")->tensor.values, std::vector<double>{1.5});

  auto timing = [](json site) {
    return json{{"protocol", 1},
                {"nonce", "N"},
                {"status", "ok"},
                {"timing", {{"sites", {std::move(site)}}}}};
  };
  // What the test's calls gave (test mode) sits between the test's outputs and the timed ones.
  std::string withcalls = four + std::string("\x09\0\0\0", 4);
  json calls = ok_record();
  calls["call_outputs"] = {{{"entry", "op"}, {"outputs", nullptr}},
                           {{"entry", "op"},
                            {"outputs",
                             {{"entries",
                               {{{"name", "result"},
                                 {"kind", "tensor"},
                                 {"dtype", "int32"},
                                 {"shape", {1}},
                                 {"offset", 0},
                                 {"nbytes", 4}}}},
                              {"offset", 4},
                              {"data_bytes", 4}}}}};
  TritonRunOutcome oc;
  parse_runner_record(report(calls, withcalls), "N", "r", oc);
  ASSERT_EQ(oc.call_outputs.size(), 2u);
  EXPECT_FALSE(oc.call_outputs[0].outputs);
  EXPECT_EQ(oc.call_outputs[1].outputs->find("result")->tensor.values, std::vector<double>{9});
  calls["call_outputs"][1]["outputs"]["offset"] = 0;
  expect_refused(report(calls, withcalls), "call_outputs[1].outputs.offset", "not 4");

  std::string d;
  json site = timed_site({1.0, 1.0}, 0, d);
  json t = site;
  t.erase("check");
  expect_refused(report(timing(t), d), "timing.sites[0].check", "missing");
  t = site;
  t["check"]["outputs"].erase(1);
  expect_refused(report(timing(t), d.substr(0, 4)), "timing.sites[0].check.outputs",
                 "1 outputs for 2 timed calls");
  t = site;
  t["check"]["outputs"][1]["offset"] = 0;  // the first call's bytes again
  expect_refused(report(timing(t), d), "timing.sites[0].check.outputs[1].offset", "not 4");
  t = site;
  t["check"]["outputs"][1]["data_bytes"] = 8;
  expect_refused(report(timing(t), d), "timing.sites[0].check.outputs[1].data_bytes",
                 "4 bytes left");
  t = site;
  t["check"]["mode"] = "maybe";
  expect_refused(report(timing(t), d), "timing.sites[0].check.mode", "neither perturbed");
  t = site;
  t["check"]["probe"] = json::array({json::array({"args[0]", 2})});
  expect_refused(report(timing(t), d), "timing.sites[0].check.probe[0][1]", "not a string");
  t = site;
  t["check"]["observed"] = {1};
  expect_refused(report(timing(t), d), "timing.sites[0].check.observed[0]", "not a string");
  expect_refused(report(timing(site), d + four), "data_bytes", "4 bytes of data are nobody's");
  t = site;
  t["check"]["outputs"][0]["entries"][0]["nbytes"] = 8;
  expect_refused(report(timing(t), d), "outputs.entries[0].nbytes", "8 bytes for 1 elements");
}

// Timed calls too large to keep whole: the site says how many are whole and how many elements
// the others keep of each tensor, the plan hands both on, and each sampled entry is read as
// the sample it says it is.
TEST(TritonReport, SampledTimedCallsAndTheSplitOfTheirSite) {
  std::string data;
  json outputs = json::array();
  for (int i = 0; i < 3; ++i) {
    const int n = i == 0 ? 4 : 2;  // the first call whole, the others 2 of the 4 elements
    json e = {{"name", "result"}, {"kind", "tensor"}, {"dtype", "float32"}, {"shape", {4}}};
    if (i > 0) e["sampled"] = {{"elements", 2}, {"seed", 10 + i}};
    e["offset"] = 0;
    e["nbytes"] = 4 * n;
    outputs.push_back({{"entries", {e}}, {"offset", data.size()}, {"data_bytes", 4 * n}});
    for (int k = 0; k < n; ++k) {
      const float v = static_cast<float>(10 * i + k);
      data.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  json site = {{"entry", "op"},
               {"samples_ms", {1.0, 1.0, 1.0}},
               {"check",
                {{"mode", "unperturbed"},
                 {"reason", "no floating-point tensor argument holds a fraction"},
                 {"perturbed", json::array()},
                 {"observed", json::array()},
                 {"whole", 1},
                 {"sample", 2},
                 {"outputs", outputs}}}};
  auto timing = [](json s) {
    return json{{"protocol", 1}, {"nonce", "N"}, {"status", "ok"}, {"timing", {{"sites", {s}}}}};
  };
  TritonRunOutcome o;
  parse_runner_record(report(timing(site), data), "N", "r", o);
  ASSERT_EQ(o.sites.size(), 1u);
  const TritonSiteCheck& c = o.sites[0].check;
  EXPECT_EQ(c.whole, 1u);
  EXPECT_EQ(c.sample, 2u);
  const OutputEntry* whole = c.outputs[0].find("result");
  EXPECT_FALSE(whole->sample);
  EXPECT_EQ(whole->tensor.values, (std::vector<double>{0, 1, 2, 3}));
  const OutputEntry* sampled = c.outputs[2].find("result");
  ASSERT_TRUE(sampled->sample);
  EXPECT_EQ(sampled->sample->elements, 2u);
  EXPECT_EQ(sampled->sample->seed, 12u);
  EXPECT_EQ(sampled->tensor.shape, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(sampled->tensor.values, (std::vector<double>{20, 21}));
  const json plan = triton_check_plan(o.sites);
  EXPECT_EQ(plan[0]["reps"], 3);
  EXPECT_EQ(plan[0]["whole"], 1);
  EXPECT_EQ(plan[0]["sample"], 2);
  // The plan reaches the runner's request as it is.
  TritonRunRequest q = request("def op(x): return x\n");
  q.time = true;
  q.plan = plan;
  EXPECT_EQ(triton_request_json(q, "c.py", "t.py", "n")["timing"]["check"]["plan"][0]["whole"], 1);

  json t = site;
  t["check"]["whole"] = 4;
  expect_refused(report(timing(t), data), "timing.sites[0].check.whole",
                 "not a count of at most 3");
  t = site;
  t["check"]["whole"] = -1;
  expect_refused(report(timing(t), data), "timing.sites[0].check.whole", "not a count");
  t = site;
  t["check"]["sample"] = 0;
  expect_refused(report(timing(t), data), "timing.sites[0].check.sample", "not a positive count");
  t = site;
  t["check"]["outputs"][1]["entries"][0]["sampled"]["elements"] = 4;  // all: not a sample
  expect_refused(report(timing(t), data), "outputs.entries[0].sampled.elements",
                 "fewer than the tensor");
}

// ---- every way a run ends, with the fake runner ----

class FakeRunner : public ::testing::Test {
 protected:
  TritonRunOutcome run(const std::string& first_line, bool time = false) {
    TritonRunRequest q = request(first_line + "\ndef op(x): return x\n");
    q.test = !time;
    q.time = time;
    q.timing.reps = 4;
    return run_triton(runner_, q, dir_ / "ws");
  }
  TempDir dir_;
  TritonRunner runner_ = runner_with(kFake);
};

TEST_F(FakeRunner, OkCarriesOutputsAndTheLog) {
  TritonRunOutcome o = run("#fake ok 3.5");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  EXPECT_EQ(o.outputs.find("test_case_1")->tensor.values, (std::vector<double>{3.5, 2.0}));
  // The request arrived whole: the fake prints what it read.
  EXPECT_NE(o.log.find("mode ok, seed 42, modes ['test']"), std::string::npos) << o.log;
  EXPECT_EQ(o.env["torch"], "fake");
  // The judge wrote the code where the request says.
  EXPECT_TRUE(fs::exists(dir_ / "ws/candidate.py"));
}

// A run started ahead of its turn sees the request written when it is let go, not before, and
// one that is cancelled ends without a report; the C++ side of python/kjudge_triton_runner.py's
// --go-fd.
TEST_F(FakeRunner, AGatedRunWaitsForItsRequest) {
  TritonRunRequest q = request("#fake sites 2\n#fake time 2.0\ndef op(x): return x\n");
  q.test = false;
  q.time = true;
  q.timing.reps = 4;
  TritonGate gate(dir_ / "gated", q.code, q.test_code);
  auto out = std::async(std::launch::async, [&] { return run_triton_gated(runner_, gate); });
  // Still waiting after a while: nothing to read yet.
  EXPECT_EQ(out.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
  q.seed = 77;  // decided late, as the check plan is
  ASSERT_TRUE(gate.release(q));
  TritonRunOutcome o = out.get();
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  EXPECT_EQ(o.sites.size(), 2u);
  EXPECT_NE(o.log.find("seed 77"), std::string::npos) << o.log;
  EXPECT_EQ(o.phase_seconds.count("wait"), 1u);
  EXPECT_FALSE(gate.release(q));  // a gate opens once

  TritonGate cancelled(dir_ / "cancelled", q.code, q.test_code);
  auto gone = std::async(std::launch::async, [&] { return run_triton_gated(runner_, cancelled); });
  cancelled.cancel();
  TritonRunOutcome c = gone.get();
  EXPECT_EQ(c.status, TritonRunStatus::crashed) << c.detail;
  EXPECT_NE(c.detail.find("without a report"), std::string::npos) << c.detail;
}

TEST_F(FakeRunner, TimingSites) {
  TritonRunOutcome o = run("#fake sites 3\n#fake time 2.0", true);
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail;
  ASSERT_EQ(o.sites.size(), 3u);
  EXPECT_EQ(o.sites[0].samples_ms.size(), 4u);
  EXPECT_DOUBLE_EQ(o.sites[0].samples_ms[1], 2.0);
  EXPECT_FALSE(o.has_outputs);
  EXPECT_EQ(o.sites[2].check.outputs.size(), 4u);  // one per timed call
  EXPECT_EQ(o.sites[0].end, "stream");
  o = run("#fake ok\n#fake sidework 0.75", true);
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail;
  EXPECT_EQ(o.sites[0].end, "device");
  EXPECT_DOUBLE_EQ(o.sites[0].tail_ms, 0.75);
  EXPECT_NE(o.log.find("plan none"), std::string::npos) << o.log;
  o = run("#fake ok\n#fake watch thread 'late-launcher'", true);
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail;
  EXPECT_EQ(o.sites[0].watch, std::vector<std::string>{"thread 'late-launcher'"});
  EXPECT_TRUE(run("#fake ok", true).sites[0].watch.empty());
  o = run("#fake ok\n#fake hold 0.25 host_bound", true);
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail;
  EXPECT_DOUBLE_EQ(o.sites[0].hold_ms, 0.25);
  EXPECT_TRUE(o.sites[0].host_bound);
  // A hold is a time: a negative one is a forged report.
  o = run("#fake ok\n#fake hold -1", true);
  EXPECT_EQ(o.status, TritonRunStatus::refused);
  EXPECT_NE(o.detail.find("hold_ms"), std::string::npos) << o.detail;
  // A timing without its calls' outputs is no timing.
  o = run("#fake ok\n#fake nocheck", true);
  EXPECT_EQ(o.status, TritonRunStatus::refused);
  EXPECT_NE(o.detail.find("timing.sites[0].check"), std::string::npos) << o.detail;
}

TEST_F(FakeRunner, ExceptionsTimeoutsCrashesAndForgeries) {
  TritonRunOutcome o = run("#fake error");
  EXPECT_EQ(o.status, TritonRunStatus::error);
  EXPECT_EQ(o.error.stage, "call");
  EXPECT_EQ(o.error.exception_type, "NameError");

  runner_.timeout_s = 1.5;
  o = run("#fake sleep");
  EXPECT_EQ(o.status, TritonRunStatus::timeout);
  EXPECT_LT(o.seconds, 10);
  runner_.timeout_s = 20;

  o = run("#fake exit3");
  EXPECT_EQ(o.status, TritonRunStatus::crashed);
  EXPECT_NE(o.detail.find("exit 3 without a report"), std::string::npos) << o.detail;

  o = run("#fake segv");
  EXPECT_EQ(o.status, TritonRunStatus::crashed);
  EXPECT_NE(o.detail.find("signal 11"), std::string::npos) << o.detail;

  // A report printed to stdout is only log: the judge reads its own channel.
  o = run("#fake silent");
  EXPECT_EQ(o.status, TritonRunStatus::crashed);
  EXPECT_NE(o.detail.find("without a report"), std::string::npos) << o.detail;

  o = run("#fake badnonce");
  EXPECT_EQ(o.status, TritonRunStatus::refused);
  EXPECT_NE(o.detail.find("nonce"), std::string::npos) << o.detail;
  EXPECT_FALSE(o.has_outputs);

  o = run("#fake short");
  EXPECT_EQ(o.status, TritonRunStatus::refused);
  o = run("#fake garbage");
  EXPECT_EQ(o.status, TritonRunStatus::refused);
}

TEST_F(FakeRunner, AMissingInterpreterEndsTheRunWithoutAReport) {
  runner_.python.executable = "/nonexistent/python3";
  TritonRunOutcome o = run("#fake ok");
  EXPECT_EQ(o.status, TritonRunStatus::crashed);  // exec failed in the child: exit 127
  EXPECT_EQ(o.exit_code, 127);
  EXPECT_THROW(probe_python("/nonexistent/python3"), std::runtime_error);
}

// ---- the real runner, torch-free ----

TEST(RealRunner, APurePythonOperatorEndToEnd) {
  TempDir dir;
  TritonRunner r = runner_with(kRunner);
  TritonRunOutcome o = run_triton(r, request("def op(x):\n    return x * 2\n"), dir / "a");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  EXPECT_EQ(o.result_source, "result_gold = test_op()");
  EXPECT_EQ(o.calls["op"], 2);
  ASSERT_EQ(o.outputs.entries.size(), 3u);
  const OutputEntry* a = o.outputs.find("test_case_1");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->tensor.dtype, DType::f64);
  EXPECT_TRUE(a->scalar);
  EXPECT_EQ(o.outputs.find("test_case_2[1]")->kind, OutputKind::none);

  // Same seed, separate process, same inputs: the comparison passes; a wrong operator fails.
  TritonRunOutcome b = run_triton(r, request("def op(x):\n    return x + x\n"), dir / "b");
  ASSERT_EQ(b.status, TritonRunStatus::ok) << b.detail;
  EXPECT_TRUE(compare_outputs(o.outputs, b.outputs).passed);
  TritonRunOutcome c = run_triton(r, request("def op(x):\n    return x * 2.01\n"), dir / "c");
  OutputsVerdict v = compare_outputs(o.outputs, c.outputs);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.failed, 2u);

  TritonRunOutcome d = run_triton(r, request("def op(x:\n"), dir / "d");
  EXPECT_EQ(d.status, TritonRunStatus::error);
  EXPECT_EQ(d.error.stage, "syntax");
  EXPECT_EQ(d.error.exception_type, "SyntaxError");
  EXPECT_NE(d.error.message.find("candidate.py, line 1"), std::string::npos) << d.error.message;
}

TEST(RealRunner, WithoutTorchARealRequestIsASetupError) {
  TempDir dir;
  TritonRunOutcome o =
      run_triton(runner_with(kRunner), request("def op(x): return x\n", false), dir / "a");
  if (o.status == TritonRunStatus::ok) GTEST_SKIP() << "torch is installed for /usr/bin/python3";
  ASSERT_EQ(o.status, TritonRunStatus::error) << o.detail << o.log;
  EXPECT_EQ(o.error.stage, "setup");
}

// With torch (KJUDGE_TEST_TORCH_PYTHON names a Python that has it; CPU tensors are enough):
// the test's outputs and what each call gave (its result, and its tensor arguments after it)
// reach the judge in one report.
TEST(RealRunner, WithTorchWhatEachCallGaveReachesTheJudge) {
  const char* py = std::getenv("KJUDGE_TEST_TORCH_PYTHON");
  if (!py || !*py) GTEST_SKIP() << "KJUDGE_TEST_TORCH_PYTHON is not set";
  TempDir dir;
  TritonRunRequest q;
  q.code = "def op(x, out):\n    out.copy_(x * 2)\n    return x + 1\n";
  q.test_code =
      "import torch\n"
      "def test_op():\n"
      "    x = torch.randn(8)\n"
      "    out = torch.empty(8)\n"
      "    return {'a': op(x, out), 'b': out}\n"
      "result_gold = test_op()\n";
  q.seed = 3;
  TritonRunOutcome o = run_triton(runner_with(kRunner, false, py), q, dir / "t");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  ASSERT_EQ(o.call_outputs.size(), 1u);
  ASSERT_TRUE(o.call_outputs[0].outputs);
  const OutputSet& c = *o.call_outputs[0].outputs;
  ASSERT_EQ(c.entries.size(), 3u);
  const auto& x = c.find("args[0]")->tensor.values;
  const auto& out = c.find("args[1]")->tensor.values;
  EXPECT_EQ(c.find("result")->tensor.values, o.outputs.find("a")->tensor.values);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(out[i], 2 * x[i]);
}

TEST(RealRunner, InTheSandboxWithTheInterpreterOnPath) {
  SandboxPolicy probe;
  probe.bwrap = locate_bwrap();
  std::string why;
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "no sandbox here: " << why;
  TempDir dir;
  // python3 from PATH: here a pyenv interpreter under /root, bound read-only by the judge.
  TritonRunner r = runner_with(kRunner, true, "python3");
  // The sandbox: the judge's sources are not there (only the runner's folder is), nor the
  // host's /etc beyond the few files steps need.
  TritonRunRequest q =
      request("import os\ndef op(x):\n    return float(os.path.exists('" +
              std::string(KJUDGE_SOURCE_DIR) + "/src') or os.path.exists('/etc/shadow'))\n");
  TritonRunOutcome o = run_triton(r, q, dir / "s");
  ASSERT_EQ(o.status, TritonRunStatus::ok) << o.detail << o.log;
  EXPECT_EQ(o.outputs.find("test_case_1")->tensor.values, std::vector<double>{0.0});
}

TEST(PythonBindPaths, OutsideUsrOutermostAndExisting) {
  TempDir dir;
  fs::create_directories(dir / "venv/lib/site-packages");
  fs::create_directories(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "link");
  std::vector<fs::path> p = python_bind_paths(
      {(dir / "venv").string(), (dir / "venv/lib/site-packages").string(), "/usr/lib/python3.11",
       "/usr", "/", "relative/path", (dir / "missing").string(), (dir / "link").string() + "/",
       (dir / "venv/lib/python311.zip").string()});
  std::vector<fs::path> expected = {dir / "link", dir / "real", dir / "venv"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(p, expected);
}

TEST(TritonRunnerScript, FoundWhereGivenOrBesideTheBinary) {
  EXPECT_EQ(locate_triton_runner(kRunner.string()), kRunner);
  EXPECT_THROW(locate_triton_runner("/nonexistent/runner.py"), std::runtime_error);
}

// ---- the whole evaluation, with the real runner ----

TritonOperator make_op(const std::string& name, const std::string& ref, int difficulty) {
  TritonOperator op;
  op.channel = TritonChannel::G;
  op.name = name;
  op.file = name + ".py";
  op.difficulty = difficulty;
  op.reference_code = ref;
  op.test_code = request("").test_code;
  return op;
}

TEST(TritonEval, ReferencesCandidatesVerdictsAndScores) {
  TempDir dir;
  TritonOperator good = make_op("double", "def op(x):\n    return 2 * x\n", 2);
  TritonOperator broken = make_op("broken", "import no_such_module_kjudge\n", 3);
  TritonEvalOptions opt;
  opt.runner = runner_with(kRunner);
  opt.work_dir = dir / "work";
  opt.require_torch = false;
  opt.workers = 3;
  std::vector<std::string> lines;
  opt.progress = [&](const std::string& l) { lines.push_back(l); };
  std::vector<TritonJob> jobs = {
      {&good, good.reference_code, 0, "self"},
      {&good, "def op(x):\n    return 3 * x\n", 1, "s:2"},
      {&good, "def op(x):\n    raise ValueError('nope')\n", 2, "s:3"},
      {&broken, "def op(x):\n    return x\n", 0, "s:4"},
  };
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_EQ(res.results.size(), 4u);
  EXPECT_EQ(res.results[0].graded.verdict, TritonVerdict::pass) << res.results[0].detail;
  EXPECT_EQ(res.results[1].graded.verdict, TritonVerdict::mismatch);
  EXPECT_TRUE(res.results[1].graded.call_ok);
  EXPECT_EQ(res.results[2].graded.verdict, TritonVerdict::call_error);
  EXPECT_EQ(res.results[2].run.error.exception_type, "ValueError");
  EXPECT_EQ(res.results[3].graded.verdict, TritonVerdict::reference_failed);
  EXPECT_TRUE(res.results[3].graded.call_ok);
  EXPECT_EQ(lines.size(), 6u);  // 2 references + 4 candidates (the self job is the 2nd run)
  EXPECT_EQ(res.checks["G/double"].status, "stable");
  EXPECT_EQ(res.checks["G/broken"].status, "failed");
  EXPECT_TRUE(fs::is_empty(dir / "work"));  // workspaces removed

  EXPECT_EQ(res.scores.all.judged, 4u);
  EXPECT_EQ(res.scores.all.call_ok, 3u);
  EXPECT_EQ(res.scores.all.exec_judged, 3u);
  EXPECT_EQ(res.scores.all.exec_ok, 1u);

  json line = triton_result_json(res.results[2]);
  EXPECT_EQ(line["verdict"], "call_error");
  EXPECT_EQ(line["stage"], "call");
  EXPECT_EQ(line["exception_type"], "ValueError");
  EXPECT_NE(line["traceback"].get<std::string>().find("nope"), std::string::npos);
  EXPECT_TRUE(line["speedup"].is_null());
  json summary = triton_summary_json(res, {{"data_dir", "x"}});
  EXPECT_EQ(summary["kind"], "kjudge-triton-summary");
  EXPECT_EQ(summary["data_dir"], "x");
  ASSERT_EQ(summary["reference_failures"].size(), 1u);
  EXPECT_EQ(summary["reference_failures"][0]["exception_type"], "ModuleNotFoundError");
  EXPECT_EQ(summary["by_difficulty"]["G/2"]["exec_ok"], 1);
}

// Options on the fake runner, working in `dir`.
TritonEvalOptions fake_options(const TempDir& dir) {
  TritonEvalOptions opt;
  opt.runner = runner_with(kFake);
  opt.work_dir = dir / "work";
  return opt;
}

// Speedup options on the fake runner: `reps` timed calls per site, `rounds` timed rounds after
// `warmup_rounds` untimed ones.
TritonEvalOptions fake_speedup_options(const TempDir& dir, int reps, int rounds,
                                       int warmup_rounds) {
  TritonEvalOptions opt = fake_options(dir);
  opt.speedup = true;
  opt.timing.reps = reps;
  opt.rounds = rounds;
  opt.warmup_rounds = warmup_rounds;
  return opt;
}

// What a candidate's processes leave running beside their timed calls (a thread, a torch mode:
// the real runner's RuntimeWatch) is flagged, not failed; what the reference's show too is not.
TEST(TritonEval, WhatACandidateLeavesRunningBesideItsCallsIsFlagged) {
  TempDir dir;
  TritonOperator op = make_op("op", "#fake ok\n#fake time 1.0\n", 1);
  TritonOperator both = make_op("both", "#fake ok\n#fake time 1.0\n#fake watch thread 'pool'\n", 2);
  TritonEvalOptions opt = fake_speedup_options(dir, 4, 2, 1);
  std::vector<TritonJob> jobs = {
      {&op, "#fake ok\n#fake time 1.0\n#fake watch thread 'late-launcher'\n", 0, "thread"},
      {&op, op.reference_code, 1, "self"},
      {&both, both.reference_code, 0, "self"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_TRUE(res.results[0].speedup) << res.results[0].speedup_note;
  // 2 sites in each of 3 candidate processes (1 warm-up, 2 rounds).
  ASSERT_EQ(res.results[0].runtime_hooks.size(), 6u);
  EXPECT_NE(res.results[0].runtime_hooks[0].find("thread 'late-launcher'"), std::string::npos);
  json line = triton_result_json(res.results[0]);
  ASSERT_TRUE(line.contains("timing_flags"));
  EXPECT_EQ(line["timing_flags"][0]["check"], "runtime_hook");
  EXPECT_EQ(res.results[1].runtime_hooks.size(), 0u);
  EXPECT_FALSE(triton_result_json(res.results[1]).contains("timing_flags"));
  // The reference shows the same thread: nothing held against the candidate.
  ASSERT_TRUE(res.results[2].speedup) << res.results[2].speedup_note;
  EXPECT_TRUE(res.results[2].runtime_hooks.empty());
  // The summary's `flagged` names run-time flags too, beside the static ones.
  const nlohmann::ordered_json summary = triton_summary_json(res, nlohmann::ordered_json::object());
  ASSERT_EQ(summary["flagged"].size(), 1u);
  EXPECT_EQ(summary["flagged"][0]["checks"], nlohmann::ordered_json({"runtime_hook"}));
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-result.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));
  for (const auto& err : schema.errors(line)) ADD_FAILURE() << err;
}

// --cupti: every timing process gets the profiler (here a file that is no library: the loader
// skips it and the fake runner writes the profiler's record itself, as the real library would
// with a GPU) and reports its call marks; the judge places the record against them and flags
// what the candidate's processes show that the reference's do not (triton/timing/cupti.h).
TEST(TritonEval, WhatTheProfilerSawIsFlaggedWithCupti) {
  TempDir dir;
  std::ofstream(dir / "libkjudge_profiler.so") << "not a library\n";
  TritonOperator op = make_op("op", "#fake ok\n#fake time 0.01\n", 1);
  TritonEvalOptions opt = fake_speedup_options(dir, 4, 2, 1);
  opt.profiler = dir / "libkjudge_profiler.so";
  const std::string head = "#fake ok\n#fake time 0.01\n";
  std::vector<TritonJob> jobs = {{&op, op.reference_code, 0, "self"},
                                 {&op, head + "#fake cupti late\n", 1, "late"},
                                 {&op, head + "#fake cupti sidestream\n", 2, "sidestream"},
                                 {&op, head + "#fake cupti hook\n", 3, "hook"},
                                 {&op, head + "#fake cupti early\n", 4, "early"},
                                 {&op, head + "#fake cupti cut\n", 5, "cut"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  auto flag_checks = [&](std::size_t i) {
    std::vector<std::string> out;
    for (const auto& [check, lines] : res.results[i].cupti_flags) out.push_back(check);
    return out;
  };
  // Issue 31: what the profiler saw decides. Only the reference against itself keeps its
  // speedup; every other candidate's is withheld (verdict timing_refused), its checks said.
  ASSERT_TRUE(res.results[0].speedup) << res.results[0].speedup_note;
  EXPECT_EQ(res.results[0].graded.verdict, TritonVerdict::pass);
  for (std::size_t i = 1; i < jobs.size(); ++i) {
    EXPECT_FALSE(res.results[i].speedup) << i;
    EXPECT_EQ(res.results[i].graded.verdict, TritonVerdict::timing_refused)
        << i << ": " << res.results[i].detail;
    EXPECT_NE(res.results[i].speedup_note.find("not counted: the CUPTI profiler's record"),
              std::string::npos)
        << i << ": " << res.results[i].speedup_note;
  }
  auto has = [&](std::size_t i, const std::string& check) {
    const std::vector<std::string> c = flag_checks(i);
    return std::find(c.begin(), c.end(), check) != c.end();
  };
  EXPECT_TRUE(flag_checks(0).empty());
  EXPECT_EQ(res.results[0].cupti["used"], true) << res.results[0].cupti.dump();
  EXPECT_EQ(res.results[0].cupti["candidate"]["clock"], json({"comparable"}));
  // 2 sites x 4 timed calls in each of 3 processes per side (a warm-up round and 2 rounds).
  EXPECT_EQ(res.results[0].cupti["candidate"]["processes"], 3);
  EXPECT_EQ(res.results[0].cupti["candidate"]["sites"][1]["calls"], 4);
  // A thread launching the call's kernel after it returned: the calls ran no device work, and
  // the kernel came from another thread while the site was timed.
  EXPECT_TRUE(has(1, "cupti_no_work")) << ::testing::PrintToString(flag_checks(1));
  EXPECT_TRUE(has(1, "cupti_hidden_work")) << ::testing::PrintToString(flag_checks(1));
  // A side stream 0.5 ms past the events: busier than the samples, and spanning past them.
  EXPECT_TRUE(has(2, "cupti_below_gpu")) << ::testing::PrintToString(flag_checks(2));
  EXPECT_TRUE(has(2, "cupti_undercount"));
  EXPECT_TRUE(has(3, "cupti_hidden_work")) << ::testing::PrintToString(flag_checks(3));
  bool deferred = false;
  for (const auto& [check, lines] : res.results[3].cupti_flags)
    for (const std::string& l : lines) deferred |= l.find("op_deferred") != std::string::npos;
  EXPECT_TRUE(deferred);
  EXPECT_EQ(flag_checks(4), std::vector<std::string>{"cupti_record"});
  EXPECT_NE(res.results[4].cupti_flags[0].second[0].find("written already"), std::string::npos);
  EXPECT_EQ(flag_checks(5), std::vector<std::string>{"cupti_record"});
  EXPECT_NE(res.results[5].cupti_flags[0].second[0].find("never finished"), std::string::npos);
  // One line per candidate process: the warm-up round's too.
  EXPECT_EQ(res.results[4].cupti_flags[0].second.size(), 3u);
  json line = triton_result_json(res.results[2]);
  ASSERT_TRUE(line.contains("timing_flags"));
  EXPECT_EQ(line["verdict"], "timing_refused");
  EXPECT_TRUE(line["speedup"].is_null());
  EXPECT_EQ(line["cupti"]["used"], true);
  EXPECT_EQ(triton_failure_json(res.results[2])["cause"], "timing_refused");
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-result.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));
  for (std::size_t i = 0; i < jobs.size(); ++i)
    for (const auto& err : schema.errors(triton_result_json(res.results[i])))
      ADD_FAILURE() << i << ": " << err;
  const nlohmann::ordered_json summary = triton_summary_json(res, nlohmann::ordered_json::object());
  EXPECT_EQ(summary["flagged"].size(), 5u);

  EXPECT_EQ(summary["totals"]["verdicts"]["timing_refused"], 5);
  EXPECT_EQ(summary["totals"]["exec_ok"], 1);

  // A reference whose profiler never loaded: nothing is held against any candidate, and the
  // job says why; without --cupti there is no `cupti` object at all.
  TritonOperator bare = make_op("bare", head + "#fake cupti none\n", 1);
  opt.work_dir = dir / "work2";
  TritonEvalResult none = evaluate_triton({{&bare, head + "#fake cupti late\n", 0, "late"}}, opt);
  ASSERT_TRUE(none.results[0].speedup) << none.results[0].speedup_note;
  EXPECT_TRUE(none.results[0].cupti_flags.empty());
  EXPECT_EQ(none.results[0].cupti["used"], false);
  EXPECT_NE(none.results[0].cupti["why"].get<std::string>().find("did not load"),
            std::string::npos);
  opt.profiler.clear();
  opt.work_dir = dir / "work3";
  TritonEvalResult off = evaluate_triton({jobs[1]}, opt);
  EXPECT_TRUE(off.results[0].cupti.is_null());
  EXPECT_FALSE(triton_result_json(off.results[0]).contains("cupti"));
}

// Issue 31, the attacks as the fake runner plays them through the whole judge: the samples
// forged below the GPU work (json.dumps replaced, the timer scaled), every output computed ahead
// in the untimed call (no work in the timed calls), the work moved between the key and the call
// with a copy in the call, calls marked outside their keys and dones (prefetching with forged
// acknowledgements), an attempt not counted doing the work: all timing_refused, none with a
// speedup; the reference against itself keeps 1.00.
TEST(TritonEval, EvidenceAgainstTheTimingWithholdsTheSpeedup) {
  TempDir dir;
  std::ofstream(dir / "libkjudge_profiler.so") << "not a library\n";
  const std::string head = "#fake ok\n#fake time 0.01\n";
  TritonOperator op = make_op("op", head, 1);
  TritonEvalOptions opt = fake_speedup_options(dir, 4, 2, 1);
  opt.profiler = dir / "libkjudge_profiler.so";
  std::vector<TritonJob> jobs = {{&op, op.reference_code, 0, "self"},
                                 {&op, head + "#fake cupti forge 0.4\n", 1, "forge"},
                                 {&op, head + "#fake cupti empty\n", 2, "empty"},
                                 {&op, head + "#fake cupti hidden\n", 3, "hidden"},
                                 {&op, head + "#fake cupti prefetch\n", 4, "prefetch"},
                                 {&op, head + "#fake cupti retry\n", 5, "retry"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_TRUE(res.results[0].speedup) << res.results[0].speedup_note;
  EXPECT_NEAR(res.results[0].speedup->estimate, 1.0, 0.05);
  EXPECT_TRUE(res.results[0].cupti_flags.empty());
  ASSERT_TRUE(res.results[0].cupti.contains("speedup_check")) << res.results[0].cupti.dump();
  EXPECT_NEAR(res.results[0].cupti["speedup_check"]["cupti"].get<double>(), 1.0, 0.05);
  const std::vector<std::string> expected = {"",
                                             "cupti_below_gpu",
                                             "cupti_no_work",
                                             "cupti_hidden_work",
                                             "cupti_interval",
                                             "cupti_hidden_work"};
  for (std::size_t i = 1; i < jobs.size(); ++i) {
    const TritonJobResult& r = res.results[i];
    EXPECT_EQ(r.graded.verdict, TritonVerdict::timing_refused) << i << ": " << r.detail;
    EXPECT_FALSE(r.speedup) << i;
    std::vector<std::string> c;
    for (const auto& [check, lines] : r.cupti_flags) c.push_back(check);
    EXPECT_NE(std::find(c.begin(), c.end(), expected[i]), c.end())
        << i << ": " << ::testing::PrintToString(c);
  }
  // The forged samples give a speedup of 2.5 by the events, 1.0 by CUPTI's spans.
  bool speedup_flag = false;
  for (const auto& [check, lines] : res.results[1].cupti_flags)
    speedup_flag |= check == "cupti_speedup";
  EXPECT_TRUE(speedup_flag) << res.results[1].cupti.dump();
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-result.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));
  for (std::size_t i = 0; i < jobs.size(); ++i)
    for (const auto& err : schema.errors(triton_result_json(res.results[i])))
      ADD_FAILURE() << i << ": " << err;
}

// Issue 31: what the runner commits call by call on the judge's channel, and the report written
// at the end, must agree; a message out of turn on the runner's descriptor (a forged
// acknowledgement, to get the next key early) refuses the run; so does a runner whose own code
// the operator code rebound. In test mode and timed alike.
TEST(TritonEval, AReportThatSaysOtherwiseThanWasCommittedIsRefused) {
  TempDir dir;
  const std::string head = "#fake ok\n#fake time 0.5\n#fake calls 1 2\n";
  TritonOperator op = make_op("op", head, 1);
  TritonEvalOptions opt = fake_speedup_options(dir, 4, 2, 0);
  std::vector<TritonJob> jobs = {{&op, op.reference_code, 0, "self"},
                                 {&op, head + "#fake editsample\n", 1, "sample"},
                                 {&op, head + "#fake editoutput\n", 2, "output"},
                                 {&op, head + "#fake forgeack\n", 3, "ack"},
                                 {&op, head + "#fake tamper\n", 4, "tamper"},
                                 {&op, head + "#fake editrec\n", 5, "record"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  EXPECT_EQ(res.results[0].graded.verdict, TritonVerdict::pass) << res.results[0].detail;
  ASSERT_TRUE(res.results[0].speedup) << res.results[0].speedup_note;
  const std::vector<std::string> why = {
      "",
      "call 0 reports 0.2475 ms, it committed 0.495 ms as the call ended",
      "the output in its report is not what it committed",
      "per-call channel: a timed call's message in a test-mode run: 'key 0 5'",
      "rebound the runner's own code: runner's CudaTimer.__init__ replaced",
      "entry call 0 (op) in its report is not what it committed"};
  for (std::size_t i = 1; i < jobs.size(); ++i) {
    const TritonJobResult& r = res.results[i];
    EXPECT_EQ(r.graded.verdict, TritonVerdict::refused) << i << ": " << r.detail;
    EXPECT_FALSE(r.speedup) << i;
    EXPECT_NE(r.detail.find(why[i]), std::string::npos) << i << ": " << r.detail;
  }
  // Editing a timed sample or output is caught in the timing run (the test run was honest).
  EXPECT_EQ(res.results[1].run.status, TritonRunStatus::ok);
  EXPECT_NE(res.results[1].detail.find("timing run"), std::string::npos);
  // The test-mode runs of the forged ack, the tampering and the edited record: refused there.
  EXPECT_EQ(res.results[3].run.status, TritonRunStatus::refused);
  EXPECT_EQ(res.results[5].run.status, TritonRunStatus::refused);
}

// Issue 31, attack 4: a test whose own check the candidate patched (torch.allclose returning
// True) passes on its result; what the operator's calls gave is compared by the judge too. A
// call's result is compared always, its arguments where it returns no tensor (an in-place
// operator); a scratch argument the test never reads, beside a returned result, is not.
TEST(TritonEval, TheOperatorsOwnCallsAreComparedBesideTheTestsResult) {
  TempDir dir;
  TritonOperator inplace = make_op("inplace", "#fake ok\n#fake calls 1\n", 2);
  TritonOperator scratch = make_op("scratch", "#fake ok\n#fake scratch 1\n", 2);
  TritonOperator shaky = make_op("shaky", "#fake ok\n#fake calls random\n", 2);
  TritonEvalOptions opt = fake_options(dir);
  std::vector<TritonJob> jobs = {
      {&inplace, "#fake ok\n#fake calls 1\n# the same\n", 0, "same"},
      {&inplace, "#fake ok\n#fake calls 1.5\n", 1, "wrong dest, test says ok"},
      {&scratch, "#fake ok\n#fake scratch 7\n", 0, "another scratch"},
      {&shaky, "#fake ok\n#fake calls 3\n", 0, "where the reference differs from itself"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  EXPECT_EQ(res.checks["G/inplace"].compared_on, "test_result");
  EXPECT_TRUE(res.checks["G/inplace"].calls_comparable);
  const TritonJobResult& same = res.results[0];
  EXPECT_EQ(same.graded.verdict, TritonVerdict::pass) << same.detail;
  ASSERT_TRUE(same.entry_call_check);
  EXPECT_EQ(same.entry_call_check->compared, 2u);
  const TritonJobResult& wrong = res.results[1];
  EXPECT_EQ(wrong.graded.verdict, TritonVerdict::mismatch);
  EXPECT_TRUE(wrong.outputs->passed);  // the test's own result matched
  EXPECT_NE(wrong.detail.find("the operator's own calls gave otherwise"), std::string::npos)
      << wrong.detail;
  EXPECT_NE(wrong.detail.find("calls[0].args[0]"), std::string::npos) << wrong.detail;
  json line = triton_result_json(wrong);
  EXPECT_EQ(line["entry_call_check"]["passed"], false);
  EXPECT_EQ(line["entry_call_check"]["failures"][0]["name"], "calls[0].args[0]");
  EXPECT_EQ(res.results[2].graded.verdict, TritonVerdict::pass) << res.results[2].detail;
  // The reference's own calls differ between its two runs there: not held against anyone.
  EXPECT_EQ(res.checks["G/shaky"].status, "stable");
  EXPECT_EQ(res.checks["G/shaky"].unstable_calls.size(), 2u);
  EXPECT_EQ(res.results[3].graded.verdict, TritonVerdict::pass) << res.results[3].detail;
}

TEST(TritonEval, SpeedupWithTheFakeRunner) {
  TempDir dir;
  TritonOperator op = make_op("op", "#fake ok\n#fake time 1.0\n", 1);
  TritonEvalOptions opt = fake_options(dir);
  opt.speedup = true;
  opt.timing.reps = 10;
  std::vector<TritonJob> jobs = {
      {&op, op.reference_code, 0, "self"},
      {&op, "#fake ok\n#fake time 0.5\n", 1, "fast"},
      {&op, "#fake ok 7\n#fake time 0.1\n", 2, "wrong"},
      {&op, "#fake sites 3\n#fake time 0.5\n", 3, "other calls"},
      {&op, "#fake ok\n#fake time 1.0\n#fake sidework 0.5\n", 4, "side work"},
      {&op, "#fake ok\n#fake time 1.0\n#fake hold 0.125\n", 5, "held"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_TRUE(res.results[0].speedup) << res.results[0].speedup_note;
  EXPECT_NEAR(res.results[0].speedup->estimate, 1.0, 1e-12);
  ASSERT_TRUE(res.results[1].speedup) << res.results[1].speedup_note;
  EXPECT_NEAR(res.results[1].speedup->estimate, 2.0, 1e-12);
  EXPECT_LE(res.results[1].speedup->low, 2.0);
  EXPECT_GE(res.results[1].speedup->high, 2.0);
  {
    // Every timing process is started ahead of its turn and waits at its gate (the fake
    // reports a wait only then, and the progress lines show the phases); without --prestart
    // none waits, and the figures are the same.
    auto count_waits = [&](bool prestart) {
      TritonEvalOptions o = opt;
      o.prestart = prestart;
      o.work_dir = opt.work_dir / (prestart ? "gated" : "serial");
      std::vector<std::string> lines;
      o.progress = [&](const std::string& l) { lines.push_back(l); };
      TritonEvalResult again = evaluate_triton({jobs[1]}, o);
      EXPECT_TRUE(again.results[0].speedup) << again.results[0].speedup_note;
      if (again.results[0].speedup) {
        EXPECT_NEAR(again.results[0].speedup->estimate, 2.0, 1e-12);
      }
      int timing = 0, waited = 0;
      for (const std::string& l : lines)
        if (l.find(" timing ") != std::string::npos) {
          ++timing;
          waited += l.find("wait 0.0") != std::string::npos;
        }
      EXPECT_EQ(timing, 10) << "1 warm-up and 4 timed rounds, 2 processes each";
      return waited;
    };
    EXPECT_EQ(count_waits(true), 10);
    EXPECT_EQ(count_waits(false), 0);
  }
  // A wrong answer is never timed, whatever its speed.
  EXPECT_EQ(res.results[2].graded.verdict, TritonVerdict::mismatch);
  EXPECT_FALSE(res.results[2].speedup);
  EXPECT_NE(res.results[2].speedup_note.find("only correct"), std::string::npos);
  // A candidate that makes other calls than the reference has no speedup, and says why.
  EXPECT_FALSE(res.results[3].speedup);
  EXPECT_NE(res.results[3].speedup_note.find("2 timed calls, the candidate 3"), std::string::npos)
      << res.results[3].speedup_note;
  auto j = res.scores.all.to_json();
  EXPECT_EQ(j["speedup"]["n"], 4);  // the fast one, the reference itself, side work, held
  json line = triton_result_json(res.results[1]);
  ASSERT_EQ(line["timing"]["rounds"].size(), 4u);  // the default: 4 timed rounds
  EXPECT_EQ(line["timing"]["rounds"][0]["reference"].size(), 2u);
  EXPECT_EQ(line["timing"]["rounds"][0]["candidate"][0]["samples_ms"].size(), 10u);
  EXPECT_EQ(line["timing"]["rounds"][1]["first"], "candidate");
  EXPECT_EQ(line["speedup"]["rounds"], 4);
  EXPECT_FALSE(line.contains("timing_flags"));
  EXPECT_EQ(line["timing"]["hold_ms"]["candidate"], json::array({0.0, 0.0}));
  // How each site was held reaches the report, per side.
  json held = triton_result_json(res.results[5]);
  EXPECT_EQ(held["timing"]["hold_ms"]["candidate"], json::array({0.125, 0.125}));
  EXPECT_EQ(held["timing"]["hold_ms"]["reference"], json::array({0.0, 0.0}));
  EXPECT_EQ(held["timing"]["host_bound"]["candidate"], json::array({false, false}));
  // Work that outlasted its calls is timed (to the device-wide end) and flagged, every round.
  ASSERT_TRUE(res.results[4].speedup) << res.results[4].speedup_note;
  EXPECT_EQ(res.results[4].side_work.size(), 8u);  // 2 sites in each of 4 rounds
  line = triton_result_json(res.results[4]);
  ASSERT_TRUE(line.contains("timing_flags"));
  EXPECT_EQ(line["timing_flags"][0]["check"], "side_work");
  EXPECT_NE(line["timing_flags"][0]["detail"].get<std::string>().find("0.500 ms past its call"),
            std::string::npos);
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-result.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));
  for (const auto& err : schema.errors(line)) ADD_FAILURE() << err;
}

// Every timed call's output is checked against the reference's first timing process, which
// also hands its plan and the job's secret to every later process (the fake runner's values
// depend on the secret: a candidate given another one would fail). A cached result after the
// first call is caught, whatever its speed; where the reference's processes disagree with each
// other, a difference is not held against the candidate; nothing to compare is not a pass
// either, and all of it is counted in the result.
TEST(TritonEval, EveryTimedOutputIsChecked) {
  TempDir dir;
  TritonOperator op = make_op("op", "#fake ok\n#fake time 1.0\n", 1);
  TritonOperator noisy = make_op("noisy", "#fake ok\n#fake time 1.0\n#fake timedrandom\n", 1);
  TritonOperator none = make_op("none", "#fake ok\n#fake time 1.0\n#fake timednone\n", 1);
  TritonEvalOptions opt = fake_speedup_options(dir, 5, 2, 1);
  std::vector<TritonJob> jobs = {{&op, "#fake ok\n#fake time 0.5\n", 0, "honest"},
                                 {&op, "#fake ok\n#fake time 0.01\n#fake stale\n", 1, "stale"},
                                 {&noisy, "#fake ok\n#fake time 0.5\n", 0, "honest"},
                                 {&none, "#fake ok\n#fake time 0.5\n#fake timednone\n", 0, "x"},
                                 {&op, "#fake ok\n#fake time 0.5\n#fake nocheck\n", 2, "x"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_EQ(res.results.size(), 5u);

  // Honest: 3 candidate processes (warm-up and 2 rounds) x 2 sites x 5 calls, all checked.
  const TritonJobResult& honest = res.results[0];
  EXPECT_EQ(honest.graded.verdict, TritonVerdict::pass) << honest.detail;
  ASSERT_TRUE(honest.speedup) << honest.speedup_note;
  EXPECT_NEAR(honest.speedup->estimate, 2.0, 1e-9);
  ASSERT_TRUE(honest.timed_check);
  const TritonTimedCheck& c = *honest.timed_check;
  EXPECT_TRUE(c.complete);
  EXPECT_EQ(c.timed, 30u);
  EXPECT_EQ(c.checked, 30u);
  EXPECT_EQ(c.failed, 0u);
  EXPECT_EQ(c.unchecked, 0u);
  EXPECT_EQ(c.reference_compared, 20u);  // its 2 later processes against its first
  EXPECT_EQ(c.reference_differs, 0u);
  EXPECT_NE(c.perturb_seed, 0u);
  ASSERT_EQ(c.sites.size(), 2u);
  EXPECT_EQ(c.sites[0]["mode"], "perturbed");
  EXPECT_EQ(c.sites[0]["perturbed"], json({"args[0]"}));
  EXPECT_EQ(c.sites[0]["calls"], 5);
  EXPECT_NE(res.results[1].timed_check->perturb_seed, c.perturb_seed);  // a secret per job

  // The stale cache: right on the test, wrong on every timed call after the first.
  const TritonJobResult& stale = res.results[1];
  EXPECT_EQ(stale.graded.verdict, TritonVerdict::timed_mismatch);
  EXPECT_TRUE(stale.graded.call_ok);
  EXPECT_FALSE(stale.speedup);
  EXPECT_FALSE(stale.graded.speedup);
  EXPECT_EQ(stale.timed_check->checked, 30u);
  EXPECT_EQ(stale.timed_check->failed, 24u);  // 4 of 5 calls, 2 sites, 3 processes
  EXPECT_NE(stale.detail.find("24 of 30 checked timed calls differ from the reference's"),
            std::string::npos)
      << stale.detail;
  EXPECT_NE(stale.detail.find("first: candidate warm-up 0, call 1 of op (site 0)"),
            std::string::npos)
      << stale.detail;
  EXPECT_NE(stale.speedup_note.find("not counted"), std::string::npos);
  json line = triton_result_json(stale);
  EXPECT_EQ(line["verdict"], "timed_mismatch");
  EXPECT_EQ(line["exec_ok"], false);
  EXPECT_EQ(line["failure"]["class"], "result_mismatch");
  EXPECT_EQ(line["timing_check"]["failed"], 24);
  EXPECT_EQ(line["timing_check"]["first_failure"]["call"], 1);
  EXPECT_NE(line["timing_check"]["first_failure"]["detail"].get<std::string>().find("result"),
            std::string::npos);
  EXPECT_TRUE(line["speedup"].is_null());
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-result.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));
  for (const auto& err : schema.errors(line)) ADD_FAILURE() << err;
  for (const auto& err : schema.errors(triton_result_json(honest))) ADD_FAILURE() << err;

  // A reference whose timed outputs change from process to process: nothing held against the
  // candidate, and said so.
  const TritonJobResult& vs_noisy = res.results[2];
  EXPECT_EQ(vs_noisy.graded.verdict, TritonVerdict::pass) << vs_noisy.detail;
  EXPECT_TRUE(vs_noisy.speedup) << vs_noisy.speedup_note;
  EXPECT_EQ(vs_noisy.timed_check->failed, 0u);
  EXPECT_EQ(vs_noisy.timed_check->unchecked, 30u);
  EXPECT_EQ(vs_noisy.timed_check->reference_unstable, 30u);
  EXPECT_EQ(vs_noisy.timed_check->reference_differs, 20u);

  // No tensor in the reference's outputs: not checked, and counted as such.
  EXPECT_EQ(res.results[3].timed_check->checked, 0u);
  EXPECT_EQ(res.results[3].timed_check->unchecked, 30u);

  // A timing report without the outputs of its timed calls is refused: no speedup, and (issue
  // 31) the verdict is the refusal's: the candidate's process wrote what cannot be trusted.
  EXPECT_FALSE(res.results[4].speedup);
  EXPECT_NE(res.results[4].speedup_note.find("refused"), std::string::npos)
      << res.results[4].speedup_note;
  EXPECT_FALSE(res.results[4].timed_check->complete);
  EXPECT_EQ(res.results[4].graded.verdict, TritonVerdict::refused);

  // Execution accuracy: the stale cache is not a correct operator, nor the refused report.
  EXPECT_EQ(res.scores.all.exec_ok, 3u);
  EXPECT_EQ(res.scores.all.verdicts["timed_mismatch"], 1u);
  json summary = triton_summary_json(res, json::object());
  EXPECT_EQ(summary["failure_classes"]["G"]["total"]["result_mismatch"], 1);
}

// A scratch buffer the test never looks at, which the candidate fills otherwise than the
// reference (here [2] where the reference leaves [1]): seen in the test-mode runs, whose results
// passed, so not held against the timed calls either. Seen only once timed, it is.
TEST(TritonEval, WhatTheTestNeverLooksAtIsNotComparedWhenTimed) {
  TempDir dir;
  TritonOperator op = make_op("op", "#fake ok\n#fake time 1.0\n#fake scratch 1\n", 1);
  TritonEvalOptions opt = fake_speedup_options(dir, 4, 2, 0);
  std::vector<TritonJob> jobs = {{&op, "#fake ok\n#fake time 0.5\n#fake scratch 2\n", 0, "a"},
                                 {&op, "#fake ok\n#fake time 0.5\n#fake scratch 1 5\n", 1, "b"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_EQ(res.references["G/op"].call_outputs.size(), 2u);
  const TritonJobResult& a = res.results[0];
  EXPECT_EQ(a.graded.verdict, TritonVerdict::pass) << a.detail;
  EXPECT_TRUE(a.speedup) << a.speedup_note;
  EXPECT_EQ(a.timed_check->checked, 16u);
  EXPECT_EQ(a.timed_check->failed, 0u);
  EXPECT_EQ(a.timed_check->sites[0]["not_compared"], json({"args[1]"}));
  const TritonJobResult& b = res.results[1];
  EXPECT_EQ(b.graded.verdict, TritonVerdict::timed_mismatch) << b.detail;
  EXPECT_EQ(b.timed_check->failed, 16u);
  EXPECT_EQ(b.timed_check->sites[0]["not_compared"], json::array());
  EXPECT_NE(b.detail.find("args[1]"), std::string::npos) << b.detail;
}

// Timed outputs too large to keep whole: the reference's first process keeps the first 2 calls
// of each site whole and samples the others; the plan hands the split and the secret on, and
// each candidate call is compared sample with sample, whole with whole. A candidate that keeps
// whole what the reference sampled, or samples elsewhere, is not passed by default: each such
// call fails, saying why; a stale result is caught on a sample as on a whole output.
TEST(TritonEval, SampledTimedOutputsAreComparedSampleWithSample) {
  TempDir dir;
  TritonOperator op = make_op("op", "#fake ok\n#fake time 1.0\n#fake sampled 2\n", 1);
  TritonEvalOptions opt = fake_speedup_options(dir, 5, 2, 1);
  std::vector<TritonJob> jobs = {
      {&op, "#fake ok\n#fake time 0.5\n#fake sampled\n", 0, "honest"},
      {&op, "#fake ok\n#fake time 0.5\n#fake sampledwhole\n", 1, "whole"},
      {&op, "#fake ok\n#fake time 0.5\n#fake sampledseed\n", 2, "elsewhere"},
      {&op, "#fake ok\n#fake time 0.01\n#fake sampled\n#fake stale\n", 3, "stale"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_EQ(res.results.size(), 4u);
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-result.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));

  // 3 candidate processes x 2 sites x 5 calls, of which 3 a site sampled.
  const TritonJobResult& honest = res.results[0];
  EXPECT_EQ(honest.graded.verdict, TritonVerdict::pass) << honest.detail;
  EXPECT_TRUE(honest.speedup) << honest.speedup_note;
  ASSERT_TRUE(honest.timed_check);
  EXPECT_EQ(honest.timed_check->checked, 30u);
  EXPECT_EQ(honest.timed_check->sampled, 18u);
  EXPECT_EQ(honest.timed_check->failed, 0u);
  EXPECT_EQ(honest.timed_check->reference_differs, 0u);
  EXPECT_EQ(honest.timed_check->sites[0]["whole"], 2);
  EXPECT_EQ(honest.timed_check->sites[0]["sample"], 2);
  json line = triton_result_json(honest);
  EXPECT_EQ(line["timing_check"]["sampled"], 18);
  EXPECT_EQ(line["timing_check"]["sites"][1]["whole"], 2);
  for (const auto& err : schema.errors(line)) ADD_FAILURE() << err;

  const TritonJobResult& whole = res.results[1];
  EXPECT_EQ(whole.graded.verdict, TritonVerdict::timed_mismatch) << whole.detail;
  EXPECT_FALSE(whole.speedup);
  EXPECT_EQ(whole.timed_check->checked, 30u);
  EXPECT_EQ(whole.timed_check->failed, 18u);
  EXPECT_EQ(whole.timed_check->sampled, 18u);
  EXPECT_NE(whole.detail.find("call 2 of op (site 0): result: the reference's output is a sample "
                              "of 2 of 1000 elements, the candidate's is whole"),
            std::string::npos)
      << whole.detail;

  const TritonJobResult& elsewhere = res.results[2];
  EXPECT_EQ(elsewhere.graded.verdict, TritonVerdict::timed_mismatch) << elsewhere.detail;
  EXPECT_EQ(elsewhere.timed_check->failed, 18u);
  EXPECT_NE(elsewhere.detail.find("sampled at other positions"), std::string::npos)
      << elsewhere.detail;

  // Stale from the second call on: the second call is caught whole, the later ones on samples.
  const TritonJobResult& stale = res.results[3];
  EXPECT_EQ(stale.graded.verdict, TritonVerdict::timed_mismatch) << stale.detail;
  EXPECT_EQ(stale.timed_check->failed, 24u);
  EXPECT_EQ(stale.timed_check->sampled, 18u);
  EXPECT_EQ(stale.timed_check->first_failure["call"], 1);
  EXPECT_EQ(stale.timed_check->first_failure["sampled"], false);
  line = triton_result_json(stale);
  EXPECT_EQ(line["timing_check"]["first_failure"]["sampled"], false);
  for (const auto& err : schema.errors(line)) ADD_FAILURE() << err;
}

// The timing processes run in ABBA pairs (warm-up pair first, discarded), and a constant bias
// against whichever process runs first in a round cancels: the fake runner logs the order and
// makes the first process of every pair 1.5x slower.
TEST(TritonEval, InterleavedRoundsCancelAFirstProcessBias) {
  TempDir dir;
  auto evaluate = [&](const std::string& log, const std::string& cand_time) {
    TritonOperator op =
        make_op("op", "#fake ok\n#fake time 1.0\n#fake order " + log + " R 1.5\n", 1);
    TritonEvalOptions opt = fake_speedup_options(dir, 6, 4, 1);
    const std::string code =
        "#fake ok\n#fake time " + cand_time + "\n#fake order " + log + " C 1.5\n";
    TritonEvalResult res = evaluate_triton({{&op, code, 0, "s:1"}}, opt);
    EXPECT_EQ(res.results[0].graded.verdict, TritonVerdict::pass) << res.results[0].detail;
    return res.results[0];
  };
  const std::string log = (dir / "order.txt").string();
  TritonJobResult same = evaluate(log, "1.0");
  std::ifstream in(log);
  std::string order, l;
  while (std::getline(in, l)) order += l;
  // Warm-up pair R C, then timed pairs R C, C R, R C, C R.
  EXPECT_EQ(order, "RCRCCRRCCR");
  ASSERT_TRUE(same.speedup) << same.speedup_note;
  EXPECT_NEAR(same.speedup->estimate, 1.0, 1e-9);
  ASSERT_EQ(same.speedup->round_ratios.size(), 4u);
  EXPECT_NEAR(same.speedup->round_ratios[0], 1.5, 1e-9);
  EXPECT_NEAR(same.speedup->round_ratios[1], 1 / 1.5, 1e-9);
  EXPECT_LE(same.speedup->low, 1.0 + 1e-9);
  EXPECT_GE(same.speedup->high, 1.0 - 1e-9);

  TritonJobResult fast = evaluate((dir / "order2.txt").string(), "0.5");
  ASSERT_TRUE(fast.speedup) << fast.speedup_note;
  EXPECT_NEAR(fast.speedup->estimate, 2.0, 1e-9);
}

// Achieved bytes/s from the runner's byte counts over the medians, and over the peak when the
// peaks are of the GPU the runs reported; never a fraction against another GPU's peak.
TEST(TritonEval, GpuEfficiencyFromBytesAndPeaks) {
  TempDir dir;
  TritonOperator op = make_op("op", "#fake ok\n#fake time 1.0\n#fake bytes 1000000\n", 1);
  TritonEvalOptions opt = fake_speedup_options(dir, 5, 2, 0);
  GpuPeaks peaks;
  peaks.gpu = "Fake GPU";
  peaks.memory_bandwidth_bytes_per_s = 4e9;
  opt.peaks = peaks;
  // 2 sites of 1e6 bytes: 2e6 bytes per run; the candidate's 2 x 0.5 ms -> 2e9 B/s, half the
  // peak; the reference's 2 x 1.0 ms -> 1e9 B/s.
  const std::string code = "#fake ok\n#fake time 0.5\n#fake bytes 1000000\n";
  TritonEvalResult res = evaluate_triton({{&op, code, 0, "s:1"}}, opt);
  ASSERT_TRUE(res.results[0].speedup) << res.results[0].speedup_note;
  const auto& e = res.results[0].efficiency;
  ASSERT_TRUE(e.is_object()) << res.results[0].efficiency_note;
  EXPECT_EQ(e["candidate_bytes"], 2000000);
  EXPECT_NEAR(e["candidate_bytes_per_s"].get<double>(), 2e9, 1e3);
  EXPECT_NEAR(e["reference_bytes_per_s"].get<double>(), 1e9, 1e3);
  EXPECT_NEAR(e["candidate_fraction"].get<double>(), 0.5, 1e-6);
  EXPECT_NEAR(e["reference_fraction"].get<double>(), 0.25, 1e-6);
  EXPECT_EQ(e["gpu"], "Fake GPU");
  // No operator rule for "op": the runner's lower bound, said so.
  EXPECT_EQ(e["basis"], "lower_bound");
  EXPECT_EQ(e["bytes"], 2000000);
  EXPECT_EQ(e["work_note"], "no stated work for this operator");
  EXPECT_EQ(e["bound_by"], "memory");
  EXPECT_TRUE(e["flops"].is_null());
  json line = triton_result_json(res.results[0]);
  EXPECT_NEAR(line["gpu_efficiency"]["candidate_fraction"].get<double>(), 0.5, 1e-6);

  peaks.gpu = "NVIDIA H100 80GB HBM3";
  opt.peaks = peaks;
  res = evaluate_triton({{&op, code, 0, "s:1"}}, opt);
  EXPECT_TRUE(res.results[0].efficiency["candidate_fraction"].is_null());
  EXPECT_NE(res.results[0].efficiency_note.find("the peaks are of NVIDIA H100"), std::string::npos)
      << res.results[0].efficiency_note;

  // A runner that does not count bytes gives no efficiency, and says why.
  TritonOperator plain = make_op("plain", "#fake ok\n", 1);
  res = evaluate_triton({{&plain, "#fake ok\n", 0, "s:1"}}, opt);
  ASSERT_TRUE(res.results[0].speedup);
  EXPECT_TRUE(res.results[0].efficiency.is_null());
  EXPECT_NE(res.results[0].efficiency_note.find("did not count"), std::string::npos);
}

// A stated operator (triton_matmul: a gemm) timed end to end: the work comes from the
// reference's described calls, the FLOP/s go against the float16 matmul peak, and the side's
// fraction is the larger of its bytes and FLOPs fractions.
TEST(TritonEval, GpuEfficiencyFromStatedWork) {
  TempDir dir;
  const std::string values =
      R"(#fake values [{"name": "a", "kind": "tensor", "dtype": "float16", "shape": [64, 32]},)"
      R"( {"name": "b", "kind": "tensor", "dtype": "float16", "shape": [32, 16]},)"
      R"( {"name": "result", "kind": "tensor", "dtype": "float16", "shape": [64, 16]}])"
      "\n";
  TritonOperator op =
      make_op("triton_matmul",
              "#fake ok\n#fake time 1.0\n#fake entry matmul\n#fake bytes 7168\n" + values, 3);
  TritonEvalOptions opt = fake_speedup_options(dir, 5, 2, 0);
  GpuPeaks peaks;
  peaks.gpu = "Fake GPU";
  // Per run: 2 calls x (4096 + 1024 + 2048) bytes = 14336; 2 x 65536 = 131072 FLOPs. The
  // reference takes 2 ms (7.168e6 B/s, 6.5536e7 FLOP/s), the candidate 1 ms.
  peaks.memory_bandwidth_bytes_per_s = 1.4336e7;
  peaks.matmul_flops_per_s = {{"float16", 6.5536e7}, {"float32", 1.0}};
  opt.peaks = peaks;
  // The candidate describes nothing: its own calls do not matter, the test's work does.
  const std::string code = "#fake ok\n#fake time 0.5\n#fake entry matmul\n";
  TritonEvalResult res = evaluate_triton({{&op, code, 0, "s:1"}}, opt);
  ASSERT_TRUE(res.results[0].speedup) << res.results[0].speedup_note;
  const json e = res.results[0].efficiency;
  ASSERT_TRUE(e.is_object()) << res.results[0].efficiency_note;
  EXPECT_EQ(e["basis"], "stated");
  EXPECT_EQ(e["bytes"], 14336);
  EXPECT_DOUBLE_EQ(e["flops"].get<double>(), 131072);
  EXPECT_EQ(e["flops_dtype"], "float16");
  EXPECT_EQ(e["candidate_bytes"], -1);  // the candidate's own lower bound: not counted
  EXPECT_NEAR(e["reference_bytes_fraction"].get<double>(), 0.5, 1e-9);
  EXPECT_NEAR(e["candidate_bytes_fraction"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(e["reference_flops_fraction"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(e["candidate_flops_fraction"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(e["candidate_fraction"].get<double>(), 2.0, 1e-9);
  EXPECT_EQ(e["bound_by"], "compute");
  EXPECT_EQ(e["peak_flops_dtype"], "float16");
  ASSERT_EQ(e["formulas"].size(), 1u);
  EXPECT_NE(e["formulas"][0].get<std::string>().find("gemm"), std::string::npos);
  json summary = triton_summary_json(res, json::object());
  EXPECT_EQ(summary["work"]["G/triton_matmul"]["basis"], "stated");
  // The line as results.jsonl holds it, against its schema.
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-result.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));
  const json line = triton_result_json(res.results[0]);
  EXPECT_EQ(line["gpu_efficiency"]["basis"], "stated");
  for (const auto& err : schema.errors(line)) ADD_FAILURE() << err;

  // float32 inputs go against the TF32 peak where one was measured, else the float32 one.
  std::string f32 = op.reference_code;
  for (std::size_t at; (at = f32.find("float16")) != std::string::npos;)
    f32.replace(at, 7, "float32");
  op.reference_code = f32;
  peaks.matmul_flops_per_s = {{"float32", 1.31072e8}, {"tfloat32", 2.62144e8}};
  opt.peaks = peaks;
  res = evaluate_triton({{&op, code, 0, "s:1"}}, opt);
  ASSERT_TRUE(res.results[0].efficiency.is_object()) << res.results[0].efficiency_note;
  EXPECT_EQ(res.results[0].efficiency["peak_flops_dtype"], "tfloat32");
  EXPECT_NEAR(res.results[0].efficiency["reference_flops_fraction"].get<double>(), 0.25, 1e-9);
  // No peak for the dtype: the bytes fraction alone, and a note.
  peaks.matmul_flops_per_s = {{"float16", 1.0}};
  opt.peaks = peaks;
  res = evaluate_triton({{&op, code, 0, "s:1"}}, opt);
  EXPECT_TRUE(res.results[0].efficiency["peak_flops_per_s"].is_null());
  EXPECT_EQ(res.results[0].efficiency["bound_by"], "memory");
  EXPECT_NE(res.results[0].efficiency_note.find("no matmul peak measured for float32"),
            std::string::npos);
}

TEST(TritonEval, GpuPeaksFileIsChecked) {
  TempDir dir;
  auto write = [&](const std::string& text) {
    std::ofstream(dir / "peaks.json") << text;
    return dir / "peaks.json";
  };
  GpuPeaks p = read_gpu_peaks(write(
      R"({"kind": "kjudge-gpu-peaks", "gpu": "G", "memory_bandwidth_bytes_per_s": 3.0e12,
          "matmul_flops_per_s": {"float16": 7e14}})"));
  EXPECT_EQ(p.gpu, "G");
  EXPECT_DOUBLE_EQ(p.memory_bandwidth_bytes_per_s, 3e12);
  EXPECT_EQ(p.matmul_flops_per_s["float16"], 7e14);
  EXPECT_THROW(read_gpu_peaks(write("[1]")), InputError);
  EXPECT_THROW(read_gpu_peaks(write(R"({"kind": "x", "gpu": "G"})")), InputError);
  EXPECT_THROW(read_gpu_peaks(write(R"({"kind": "kjudge-gpu-peaks", "gpu": "G",
                                        "memory_bandwidth_bytes_per_s": 0})")),
               InputError);
  EXPECT_THROW(read_gpu_peaks(dir / "missing.json"), InputError);
}

// A reference that gives other values in another process on the same seed cannot judge anyone;
// one that returns no tensor gives nothing to compare. Both are said, with why.
TEST(TritonEval, UnstableAndEmptyReferencesAreTheReferencesFault) {
  TempDir dir;
  TritonOperator unstable = make_op("unstable", "#fake random\n", 2);
  TritonOperator empty = make_op("empty", "#fake none\n", 3);
  TritonOperator stable = make_op("stable", "#fake ok\n", 1);
  TritonEvalOptions opt = fake_options(dir);
  std::vector<TritonJob> jobs = {{&unstable, "#fake ok\n", 0, "s:1"},
                                 {&unstable, unstable.reference_code, 1, "self"},
                                 {&empty, "#fake none\n", 0, "s:3"},
                                 {&stable, "#fake ok 3\n", 0, "s:4"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  EXPECT_EQ(res.results[0].graded.verdict, TritonVerdict::reference_unstable)
      << res.results[0].detail;
  EXPECT_EQ(res.results[1].graded.verdict, TritonVerdict::reference_unstable);
  EXPECT_EQ(res.results[2].graded.verdict, TritonVerdict::no_output);
  EXPECT_EQ(res.results[3].graded.verdict, TritonVerdict::mismatch);  // the candidate's fault
  EXPECT_TRUE(res.results[0].graded.call_ok);
  const TritonReferenceCheck& u = res.checks["G/unstable"];
  EXPECT_EQ(u.status, "unstable");
  EXPECT_EQ(u.second_run, "self candidate");  // no extra run: the self job is the second run
  EXPECT_NE(u.detail.find("test_case_1 value_mismatch"), std::string::npos) << u.detail;
  EXPECT_EQ(res.checks["G/empty"].status, "no_output");
  EXPECT_NE(res.checks["G/empty"].detail.find("1 none"), std::string::npos)
      << res.checks["G/empty"].detail;
  EXPECT_EQ(res.checks["G/stable"].status, "stable");
  EXPECT_EQ(res.checks["G/stable"].second_run, "second reference run");
  EXPECT_EQ(res.scores.all.exec_judged, 1u);
  EXPECT_EQ(res.scores.all.reference_unstable, 2u);
  EXPECT_EQ(res.scores.all.no_output, 1u);

  json summary = triton_summary_json(res, {});
  ASSERT_EQ(summary["reference_unstable"].size(), 1u);
  EXPECT_EQ(summary["reference_unstable"][0]["operator"], "G/unstable");
  EXPECT_EQ(summary["reference_unstable"][0]["differ"][0]["name"], "test_case_1");
  ASSERT_EQ(summary["reference_no_output"].size(), 1u);
  EXPECT_EQ(summary["reference_no_output"][0]["operator"], "G/empty");
  // Failure classes: only the mismatch says something about a candidate.
  EXPECT_EQ(summary["failure_classes"]["G"]["total"]["result_mismatch"], 1);
  EXPECT_EQ(summary["failure_classes"]["G"]["by_difficulty"]["1"]["result_mismatch"], 1);
  EXPECT_TRUE(triton_failure_json(res.results[0]).is_null());
  EXPECT_EQ(triton_failure_json(res.results[3])["class"], "result_mismatch");
  json ref = triton_reference_json(unstable, res.references["G/unstable"], &u);
  EXPECT_EQ(ref["self_check"]["status"], "unstable");

  // Without the check the reference's second run is not made, and an unstable reference
  // (here with no self job) is judged as if it were right.
  opt.check_references = false;
  TritonEvalResult unchecked = evaluate_triton({jobs[0]}, opt);
  EXPECT_EQ(unchecked.checks["G/unstable"].status, "unchecked");
  EXPECT_EQ(unchecked.results[0].graded.verdict, TritonVerdict::mismatch);
}

// A reference whose every tensor holds NaN or Inf gives nothing to judge by: no_output, not a
// reference that disagrees with itself (both runs agree; nothing could be compared).
TEST(TritonEval, AReferenceWithNoFiniteTensorIsNoOutput) {
  TempDir dir;
  TritonOperator nan = make_op("nan", "#fake nan\n", 2);
  TritonEvalOptions opt = fake_options(dir);
  TritonEvalResult res = evaluate_triton({{&nan, nan.reference_code, 0, "self"}}, opt);
  const TritonReferenceCheck& c = res.checks["G/nan"];
  EXPECT_EQ(c.status, "no_output") << c.detail;
  EXPECT_NE(c.detail.find("no finite tensor"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("test_case_1"), std::string::npos) << c.detail;
  EXPECT_EQ(res.results[0].graded.verdict, TritonVerdict::no_output);
  EXPECT_EQ(res.scores.all.reference_unstable, 0u);
}

// An in-place operator whose test keeps only the None it returns: the test result holds no
// tensor, so reference and candidates are judged on what each entry call returned and wrote
// into its arguments, call by call, under the same rules. Where neither holds a tensor, it is
// no_output still.
TEST(TritonEval, ANoOutputReferenceIsJudgedOnItsEntryCalls) {
  TempDir dir;
  TritonOperator inplace = make_op("inplace", "#fake none\n#fake calls 1\n", 2);
  TritonOperator shaky = make_op("shaky", "#fake none\n#fake calls random\n", 2);
  TritonOperator empty = make_op("empty", "#fake none\n", 3);
  TritonEvalOptions opt = fake_options(dir);
  std::vector<TritonJob> jobs = {
      {&inplace, "#fake none\n#fake calls 1\n# the same calls\n", 0, "s:1"},
      {&inplace, "#fake none\n#fake calls 1.5\n", 1, "s:2"},                 // other values
      {&inplace, "#fake none\n#fake calls 1 3\n", 2, "s:3"},                 // one call more
      {&inplace, "#fake none\n#fake calls 1 2 4\n", 3, "s:4"},               // other shapes
      {&inplace, "#fake none\n#fake calls 1\n#fake entry op2\n", 4, "s:5"},  // another function
      {&inplace, "#fake ok\n", 5, "s:6"},  // a tensor in its result, but no entry call recorded
      {&shaky, "#fake none\n#fake calls 1\n", 0, "s:7"},
      {&empty, "#fake none\n#fake calls 1\n", 0, "s:8"}};
  TritonEvalResult res = evaluate_triton(jobs, opt);
  ASSERT_EQ(res.results.size(), jobs.size());

  const TritonReferenceCheck& check = res.checks["G/inplace"];
  EXPECT_EQ(check.status, "stable") << check.detail;
  EXPECT_EQ(check.compared_on, "entry_calls");
  EXPECT_EQ(check.second_run, "second reference run");
  ASSERT_TRUE(check.outputs);
  EXPECT_EQ(check.outputs->compared, 2u);  // args[0] of both calls

  const TritonJobResult& same = res.results[0];
  EXPECT_EQ(same.graded.verdict, TritonVerdict::pass) << same.detail;
  EXPECT_EQ(same.compared_on, "entry_calls");
  json line = triton_result_json(same);
  EXPECT_EQ(line["compared_on"], "entry_calls");
  EXPECT_EQ(line["exec_ok"], true);
  EXPECT_EQ(line["comparison"]["entries"][1]["name"], "calls[0].args[0]");

  auto expect_mismatch = [&](std::size_t i, const std::string& status, const std::string& what) {
    const TritonJobResult& r = res.results[i];
    EXPECT_EQ(r.graded.verdict, TritonVerdict::mismatch) << i << ": " << r.detail;
    EXPECT_EQ(r.compared_on, "entry_calls") << i;
    ASSERT_TRUE(r.outputs) << i;
    bool found = false;
    for (const EntryVerdict& e : r.outputs->entries) found |= e.failed && e.status == status;
    EXPECT_TRUE(found) << i << ": no failed entry " << status;
    EXPECT_NE(r.detail.find(what), std::string::npos) << i << ": " << r.detail;
    EXPECT_EQ(triton_failure_json(r)["class"], "result_mismatch") << i;
  };
  expect_mismatch(1, "value_mismatch", "calls[0].args[0]");
  expect_mismatch(2, "call_count_mismatch", "the candidate made 3 entry calls, the reference 2");
  expect_mismatch(3, "shape_mismatch", "shape [4] where the reference has [2]");
  expect_mismatch(4, "entry_mismatch", "entry call 0 is op in the reference, op2 in the candidate");
  expect_mismatch(5, "call_count_mismatch", "the candidate made 0 entry calls, the reference 2");

  // A reference whose entry calls differ between its two runs cannot judge anyone either.
  const TritonReferenceCheck& shaky_check = res.checks["G/shaky"];
  EXPECT_EQ(shaky_check.status, "unstable");
  EXPECT_EQ(shaky_check.compared_on, "entry_calls");
  EXPECT_NE(shaky_check.detail.find("of the entry calls"), std::string::npos) << shaky_check.detail;
  EXPECT_NE(shaky_check.detail.find("calls[0].args[0] value_mismatch"), std::string::npos)
      << shaky_check.detail;
  EXPECT_EQ(res.results[6].graded.verdict, TritonVerdict::reference_unstable);

  // Neither the test result nor an entry call holds a tensor: nothing to compare.
  const TritonReferenceCheck& empty_check = res.checks["G/empty"];
  EXPECT_EQ(empty_check.status, "no_output");
  EXPECT_TRUE(empty_check.compared_on.empty());
  EXPECT_NE(empty_check.detail.find("no entry call recorded"), std::string::npos)
      << empty_check.detail;
  EXPECT_EQ(res.results[7].graded.verdict, TritonVerdict::no_output);
  EXPECT_EQ(triton_result_json(res.results[7])["compared_on"], "test_result");

  EXPECT_EQ(res.scores.all.exec_judged, 6u);
  EXPECT_EQ(res.scores.all.exec_ok, 1u);
  EXPECT_EQ(res.scores.all.no_output, 1u);
  EXPECT_EQ(res.scores.all.reference_unstable, 1u);

  json ref = triton_reference_json(inplace, res.references["G/inplace"], &check);
  EXPECT_EQ(ref["self_check"]["compared_on"], "entry_calls");
  json summary = triton_summary_json(res, {});
  ASSERT_EQ(summary["reference_no_output"].size(), 1u);
  EXPECT_EQ(summary["reference_no_output"][0]["operator"], "G/empty");
  EXPECT_TRUE(summary["reference_no_output"][0]["compared_on"].is_null());

  // Every line as results.jsonl holds it, against its schema.
  std::ifstream schema_file(std::string(KJUDGE_SOURCE_DIR) +
                            "/docs/schemas/triton-result.schema.json");
  kjudge::testing::SchemaValidator schema(json::parse(schema_file));
  for (const TritonJobResult& r : res.results)
    for (const auto& err : schema.errors(triton_result_json(r)))
      ADD_FAILURE() << r.job.origin << ": " << err;
}

}  // namespace
}  // namespace kjudge::triton
