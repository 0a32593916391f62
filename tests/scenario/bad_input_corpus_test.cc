// A generated bad-input corpus, run as a hostile or careless user would:
// every key of a complete scenario (inline model and node included) is
// deleted, given the wrong type, negative, zero, huge, NaN, a wrong unit,
// unicode, control characters, a huge string; plus duplicate keys, complex
// keys, anchors and aliases, deep nesting, binary garbage, empty and
// oversized files, a directory, and the same values through --set. Each case
// runs in a forked child with a time and memory limit and must end as
// accepted (and then simulate to finite, in-range figures) or as one
// InputError of the class the case names: one line, naming the file (or
// the --set flag), the key and the value. Never a crash, a hang, a blow-up
// or an internal error. The classes and an example message each are printed
// for the README.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include <gtest/gtest.h>

#include "sim/base/error.h"
#include "sim/job/simulate.h"
#include "sim/scenario/scenario_loader.h"
#include "tests/test_util.h"

namespace pf {
namespace {

// A small but complete scenario: every key the loader reads, with a tiny
// inline model so that accepted mutations simulate in milliseconds.
const char* const kBase = R"(name: corpus base
description: a tiny model on one node
model:
  name: tiny
  layers: 4
  hidden: 256
  heads: 8
  kv_heads: 8
  ffn: 1024
  ffn_kind: swiglu
  vocab: 1000
  tied_embeddings: false
  position: rope
  max_seq: 4096
  norm: rmsnorm
  bias: false
cluster:
  node:
    gpu: A100-SXM4-80GB
    gpus_per_node: 4
    interconnect: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}
    pcie: {gen: 4, lanes: 16, latency: 1us}
    nics: {count: 2, bandwidth: 200Gbps, latency: 2us}
    cpu_memory: 1TiB
  nodes: 1
parallel:
  tp: 2
  pp: 1
  vp: 1
  dp: 2
  zero: 1
  dp_overlap: true
training:
  method: full
  precision: bf16
  seq_len: 512
  micro_batch: 2
  global_batch: 8
  recompute: selective
  attention: flash
  tokens: 10M
  lora_rank: 8
  stack: megatron
  packing: true
  sample_len: 256
price: {per_node_hour: 10USD}
)";

enum class Type { kText, kInt, kQuantity, kQuantityOrZero, kEnum, kBool, kName };

struct Key {
  std::string path;  // dotted
  Type type;
  bool required;
};

// Every leaf key of kBase with what it holds.
const std::vector<Key> kKeys = {
    {"name", Type::kText, false}, {"description", Type::kText, false},
    {"model.name", Type::kText, false}, {"model.layers", Type::kInt, true},
    {"model.hidden", Type::kInt, true}, {"model.heads", Type::kInt, true},
    {"model.kv_heads", Type::kInt, false}, {"model.ffn", Type::kInt, true},
    {"model.ffn_kind", Type::kEnum, true}, {"model.vocab", Type::kInt, true},
    {"model.tied_embeddings", Type::kBool, true}, {"model.position", Type::kEnum, true},
    {"model.max_seq", Type::kInt, true}, {"model.norm", Type::kEnum, true},
    {"model.bias", Type::kBool, false}, {"cluster.node.gpu", Type::kName, true},
    {"cluster.node.gpus_per_node", Type::kInt, true},
    {"cluster.node.interconnect.kind", Type::kEnum, true},
    {"cluster.node.interconnect.bandwidth", Type::kQuantity, true},
    {"cluster.node.interconnect.latency", Type::kQuantityOrZero, true},
    {"cluster.node.pcie.gen", Type::kInt, false},
    {"cluster.node.pcie.lanes", Type::kInt, false},
    {"cluster.node.pcie.latency", Type::kQuantityOrZero, true},
    {"cluster.node.nics.count", Type::kInt, true},
    {"cluster.node.nics.bandwidth", Type::kQuantity, true},
    {"cluster.node.nics.latency", Type::kQuantityOrZero, true},
    {"cluster.node.cpu_memory", Type::kQuantity, false}, {"cluster.nodes", Type::kInt, true},
    {"parallel.tp", Type::kInt, false}, {"parallel.pp", Type::kInt, false},
    {"parallel.vp", Type::kInt, false}, {"parallel.dp", Type::kInt, false},
    {"parallel.zero", Type::kInt, false}, {"parallel.dp_overlap", Type::kBool, false},
    {"training.method", Type::kEnum, true}, {"training.precision", Type::kEnum, true},
    {"training.seq_len", Type::kInt, true}, {"training.micro_batch", Type::kInt, true},
    {"training.global_batch", Type::kInt, true}, {"training.recompute", Type::kEnum, false},
    {"training.attention", Type::kEnum, false}, {"training.tokens", Type::kQuantity, true},
    {"training.lora_rank", Type::kInt, false}, {"training.stack", Type::kEnum, false},
    {"training.packing", Type::kBool, false}, {"training.sample_len", Type::kInt, false}, {"price.per_node_hour", Type::kQuantity, true},
};

// One case: a scenario text and flags, and the message classes it may get
// (regexes; "accepted" when it may load and simulate).
struct Case {
  std::string name, text;
  std::vector<std::string> flags;
  std::vector<std::string> classes;
  std::string key;  // the key path the message must name, when one
};

// The outcome of running a case in a child process.
struct Outcome {
  std::string kind;     // accepted, input, internal, crash, timeout
  std::string message;  // the error text, or a summary of the figures
};

std::string Leaf(const std::string& path) { return path.substr(path.rfind('.') + 1); }

// kBase with the line holding `path`'s value replaced by `value` (or
// removed when `value` is null). Inline flow maps are edited in place.
std::string Replace(const std::string& path, const char* value) {
  const std::string leaf = Leaf(path);
  std::string text = kBase;
  // The leaf's occurrence under its parent: search after the parent key.
  size_t from = 0;
  for (size_t start = 0, dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1)
    from = text.find(path.substr(start, dot - start) + ":", from);
  const std::regex re("(^|[ {,\\n])" + leaf + ": ");
  std::smatch m;
  std::string tail = text.substr(from);
  if (!std::regex_search(tail, m, re)) return "";
  const size_t at = from + m.position(0) + m[1].length();
  const size_t end = text.find_first_of(",}\n", at);
  if (value) return text.substr(0, at) + leaf + ": " + value + text.substr(end);
  // Deletion: drop "leaf: v" and a separating comma, or the whole line.
  if (text[end] == ',') return text.substr(0, at) + text.substr(end + 2);
  if (text[end] == '}') {
    size_t cut = at;
    while (text[cut - 1] == ' ' || text[cut - 1] == ',') --cut;
    return text.substr(0, cut) + text.substr(end);
  }
  size_t line = text.rfind('\n', at) + 1;
  return text.substr(0, line) + text.substr(end + 1);
}

const std::string kRange = "out of range|must be greater than zero|outside what hardware|"
                           "does not divide|must divide|not a multiple|exceeds|needs|"
                           "cannot be combined|has no tensor-core|at most|must be in|"
                           "but the cluster has";
const std::string kNotNumber = "is not an integer|is not a |not a number|missing unit";

// The mutations of one leaf value and what each may get.
std::vector<std::pair<std::string, std::vector<std::string>>> Mutations(const Key& k) {
  const std::vector<std::string> list = {"expected a value, got a list"};
  switch (k.type) {
    case Type::kInt:
      return {{"-1", {kRange}}, {"0", {kRange, "accepted"}}, {"99999999999999999999", {kRange}},
              {"2147483648", {kRange}}, {".nan", {kNotNumber}}, {"2.5", {kNotNumber}},
              {"5GB", {kNotNumber}}, {"\"８\"", {kNotNumber}}, {"[1, 2]", list}, {"{a: 1}", {"expected a value, got a mapping"}}};
    case Type::kQuantity:
    case Type::kQuantityOrZero: {
      const std::string zero = k.type == Type::kQuantity ? kRange : "accepted|" + kRange;
      return {{"-5GB/s", {kRange, "unknown unit"}}, {"0", {zero}}, {"1e300GB/s", {kRange, "unknown unit"}},
              {"1e300", {kRange, "missing unit", "accepted"}}, {".nan", {kNotNumber}},
              {"5furlongs", {"unknown unit"}}, {"\"５GB\"", {kNotNumber}}, {"[1, 2]", list}};
    }
    case Type::kEnum:
      return {{"bogus", {"is not accepted"}}, {"\"ＢＦ16\"", {"is not accepted"}}, {"7", {"is not accepted"}},
              {"[1, 2]", list}};
    case Type::kBool:
      return {{"maybe", {"is not a boolean"}}, {"2", {"is not a boolean"}}, {"[1, 2]", list}};
    case Type::kText:
    case Type::kName: {
      const std::string name_ok = k.type == Type::kText ? "accepted" : "unknown GPU";
      return {{"\"caf\\u00e9 ✓\"", {name_ok}}, {"\"a\\x01b\"", {"not printable"}},
              {"\"" + std::string(300, 'x') + "\"", {"longer than 200 bytes", "unknown GPU", name_ok}},
              {"\"/../../etc/passwd\"", {name_ok}}, {"\"\"", {"must not be empty"}}, {"[1, 2]", list}};
    }
  }
  return {};
}

std::vector<Case> KeyCases() {
  std::vector<Case> out;
  for (const Key& k : kKeys) {
    std::string deleted = Replace(k.path, nullptr);
    EXPECT_FALSE(deleted.empty()) << k.path;
    // A required key is missing (price names its alternatives); an optional
    // one takes its default, which may then not fit the rest of the layout.
    out.push_back({"delete " + k.path, deleted, {},
                   k.required ? std::vector<std::string>{"missing required key '" + Leaf(k.path) + "'",
                                                         "give per_node_hour or per_gpu_hour"}
                              : std::vector<std::string>{"accepted", kRange},
                   ""});
    for (const auto& [value, classes] : Mutations(k)) {
      out.push_back({k.path + ": " + value.substr(0, 30), Replace(k.path, value.c_str()), {}, classes, ""});
      // The same value typed on the command line (--set takes YAML values).
      out.push_back({"--set " + k.path + "=" + value.substr(0, 30), kBase, {k.path + "=" + value},
                     classes, ""});
    }
  }
  return out;
}

std::vector<Case> StructureCases() {
  const std::string base = kBase;
  std::string deep = "name: x\nmodel: ";
  for (int i = 0; i < 20000; ++i) deep += "[";
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919 + 13) % 256);
  return {
      {"duplicate key", base + "name: again\n", {}, {"duplicate key 'name' \\(first given on line 1\\)"}, "name"},
      {"duplicate nested key", std::regex_replace(base, std::regex("  tp: 2\n"), "  tp: 2\n  tp: 4\n"), {},
       {"duplicate key 'tp'"}, "parallel.tp"},
      {"list as a key", base + "? [a, b]\n: 1\n", {}, {"a key must be a plain name"}, ""},
      {"map as a key", base + "? {a: 1}\n: 1\n", {}, {"a key must be a plain name"}, ""},
      {"unknown key", base + "trainning: {}\n", {}, {"unknown key 'trainning' \\(did you mean 'training'\\?\\)"}, ""},
      {"anchor and alias to a valid value",
       std::regex_replace(base, std::regex("  pp: 1\n"), "  pp: &one 1\n  vp: *one\n"), {},
       {"duplicate key 'vp'"}, ""},
      {"alias for a whole section", base + "extra: *nothing\n", {}, {"malformed YAML"}, ""},
      {"deep nesting", deep, {}, {"malformed YAML"}, ""},
      {"binary garbage", garbage, {}, {"malformed YAML|expected a mapping|not printable|unknown key|a key must|holds a NUL byte"}, ""},
      {"empty file", "", {}, {"expected a mapping of scenario keys"}, ""},
      {"a list, not a mapping", "- a\n- b\n", {}, {"expected a mapping of scenario keys"}, ""},
      {"tabs for indentation", "name: x\nmodel:\n\tlayers: 4\n", {}, {"malformed YAML"}, ""},
      {"oversized file", base + "# " + std::string(2 << 20, 'x') + "\n", {}, {"bytes; scenario and catalog files are at most"}, ""},
      {"two documents", base + "---\nname: second\n", {}, {"starts a second YAML document; a scenario or catalog file is one"}, ""},
      {"a NUL byte", std::regex_replace(base, std::regex("corpus base"), std::string("corpus") + '\0' + "evil"), {},
       {"holds a NUL byte"}, ""},
      {"--set without =", base, {"parallel.tp"}, {"expected KEY=VALUE"}, ""},
      {"--set empty key part", base, {"parallel..tp=2"}, {"empty key between dots"}, ""},
      {"--set into a scalar", base, {"name.first=x"}, {"is not a mapping"}, ""},
      {"--set control character", base, {std::string("name=a\x01") + "b"}, {"printable UTF-8"}, ""},
      // Trojan Source (CVE-2021-42574): a right-to-left override in a name
      // would print the report's line reordered; a C1 control likewise.
      {"a bidirectional override in the name",
       std::regex_replace(base, std::regex("corpus base"), "corpus \xE2\x80\xAE base"), {},
       {"\\\\u202E base\" is not printable UTF-8 text"}, ""},
      {"--set a bidirectional isolate", base, {"name=a\xE2\x81\xA6" "b"}, {"printable UTF-8"}, ""},
      {"--set a C1 control", base, {"name=a\xC2\x85" "b"}, {"printable UTF-8"}, ""},
      {"--set an overlong slash", base, {"name=a\xC0\xAF" "b"}, {"printable UTF-8"}, ""},
      {"--set a UTF-16 surrogate", base, {"name=a\xED\xA0\x80" "b"}, {"printable UTF-8"}, ""},
      {"--set a code point past U+10FFFF", base, {"name=a\xF4\x90\x80\x80" "b"}, {"printable UTF-8"}, ""},
      {"--set huge flag", base, {"name=" + std::string(5000, 'y')}, {"at most 4096 are accepted"}, ""},
      {"--set malformed value", base, {"parallel.tp=[1,"}, {"malformed value"}, ""},
      {"layout past the GPUs", base, {"parallel.dp=16777216"}, {"tp x pp x dp"}, "parallel.dp"},
      {"micro-batch times dp overflowing int", base, {"training.micro_batch=65536", "parallel.dp=16777216"},
       {"tp x pp x dp"}, ""},
      {"budget of tasks", base, {"training.global_batch=16777216", "training.micro_batch=1"},
       {"over the budget of"}, ""},
  };
}

// Runs LoadScenario (+ Simulate when accepted) on the case in a child with
// 20 s of CPU and 4 GiB of address space.
Outcome Run(const Case& c, const std::string& path) {
  int fds[2];
  if (pipe(fds) != 0) return {"internal", "pipe failed"};
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    rlimit cpu{20, 20};
    setrlimit(RLIMIT_CPU, &cpu);
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer reserves terabytes of address space
    rlimit mem{4ull << 30, 4ull << 30};
    setrlimit(RLIMIT_AS, &mem);
#endif
    std::string out;
    try {
      const Result r = Simulate(LoadScenario(path, c.flags));
      const double st = r.step ? r.step->step_time.value() : 1;
      const bool sane = std::isfinite(st) && st > 0 &&
                        (!r.step || (r.step->mfu >= 0 && r.step->mfu <= 1 && r.step->wall_clock.value() > 0 &&
                                     (!r.step->cost || r.step->cost->value() >= 0)));
      out = sane ? "accepted\n" : "internal\nnonsense figures";
    } catch (const InputError& e) {
      out = std::string("input\n") + e.what();
    } catch (const std::exception& e) {
      out = std::string("internal\n") + e.what();
    }
    (void)!write(fds[1], out.data(), out.size());
    _exit(0);
  }
  close(fds[1]);
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) answer.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    return {WTERMSIG(status) == SIGXCPU ? "timeout" : "crash", strsignal(WTERMSIG(status))};
  const size_t nl = answer.find('\n');
  if (nl == std::string::npos) return {"crash", "no answer"};
  return {answer.substr(0, nl), answer.substr(nl + 1)};
}

void Check(const Case& c, std::map<std::string, std::string>& examples) {
  const std::string path = testing_util::UniqueTempPath("corpus");
  std::ofstream(path, std::ios::binary) << c.text;
  const Outcome o = Run(c, path);
  std::filesystem::remove(path);
  SCOPED_TRACE(c.name);
  ASSERT_TRUE(o.kind == "accepted" || o.kind == "input") << o.kind << ": " << o.message;
  std::string matched;
  for (const std::string& cls : c.classes) {
    if (o.kind == "accepted" && std::regex_search(cls, std::regex("(^|\\|)accepted(\\||$)"))) matched = "accepted";
    if (o.kind == "input" && std::regex_search(o.message, std::regex(cls))) matched = cls;
  }
  EXPECT_FALSE(matched.empty()) << o.kind << ": " << o.message;
  if (o.kind != "input") return;
  EXPECT_EQ(o.message.find('\n'), std::string::npos) << o.message;
  EXPECT_LE(o.message.size(), 700u) << o.message;
  const std::string where = c.flags.empty() ? path : "--set ";
  EXPECT_EQ(o.message.rfind(where, 0) == 0 || o.message.find(path) == 0, true) << o.message;
  if (!c.key.empty()) {
    EXPECT_NE(o.message.find(c.key), std::string::npos) << o.message;
  }
  examples.emplace(matched, std::regex_replace(o.message, std::regex(path), "s.yaml"));
}

TEST(BadInputCorpus, EveryKeyMutationGetsItsMessageClass) {
  std::map<std::string, std::string> examples;
  const auto cases = KeyCases();
  EXPECT_GT(cases.size(), 500u);
  for (const Case& c : cases) Check(c, examples);
  for (const auto& [cls, example] : examples) std::cout << "| " << cls << " | `" << example << "` |\n";
}

TEST(BadInputCorpus, StructuralAttacksGetTheirMessageClass) {
  std::map<std::string, std::string> examples;
  for (const Case& c : StructureCases()) Check(c, examples);
  for (const auto& [cls, example] : examples) std::cout << "| " << cls << " | `" << example << "` |\n";
}

TEST(BadInputCorpus, ADirectoryOrAMissingFileIsRefused) {
  for (const std::string& path : {::testing::TempDir(), std::string("/nonexistent/scenario.yaml")}) {
    try {
      LoadScenario(path);
      ADD_FAILURE() << path;
    } catch (const InputError& e) {
      EXPECT_TRUE(std::string(e.what()).find("is a directory") != std::string::npos ||
                  std::string(e.what()).find("no such file") != std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pf
