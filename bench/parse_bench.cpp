// Parsing a 100,000-declaration layout (10 MB) into a checked model, beside yaml-cpp and
// nlohmann-json building DOMs of the same content and simdjson's on-demand parser walking it
// without building anything (a ceiling). Heap use is measured by counting allocations.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <nlohmann/json.hpp>

#include "dudley/core/big_memory.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "layout_generator.hpp"

// ---- heap accounting: live bytes and their high-water mark ----
namespace {
std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};
void note_alloc(void* p) {
  if (!p) return;
  int64_t now = g_live += static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}
void* counted_alloc(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  note_alloc(p);
  return p;
}
void counted_free(void* p) noexcept {
  if (!p) return;
  g_live -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}
}  // namespace

void* operator new(size_t n) {
  return counted_alloc(n);
}
void* operator new[](size_t n) {
  return counted_alloc(n);
}
void operator delete(void* p) noexcept {
  counted_free(p);
}
void operator delete[](void* p) noexcept {
  counted_free(p);
}
void operator delete(void* p, size_t) noexcept {
  counted_free(p);
}
void operator delete[](void* p, size_t) noexcept {
  counted_free(p);
}

namespace {

// Two shapes of 100,000 declarations: documented (10 MB, args 0) and plain (2.8 MB, 1).
const dudley::bench::GeneratedDescription& description(int64_t shape = 0) {
  static const auto documented = dudley::bench::generate_description(100000);
  static const auto plain = dudley::bench::generate_plain(100000);
  return shape == 0 ? documented : plain;
}

void set_common_counters(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["input_MB"] = static_cast<double>(bytes) / 1e6;
}

void BM_DudleyParse(benchmark::State& state) {
  const std::string& text = description(state.range(0)).dudley;
  for (auto _ : state) {
    auto r = dudley::layout::parse_layout(text);
    if (!r.ok()) state.SkipWithError(r.diagnostics.front().message.c_str());
    benchmark::DoNotOptimize(r.layout.nodes.data());
  }
  set_common_counters(state, text.size());
  // Memory of the finished model, and the parser's high-water mark, over the text size.
  // The parser's large tables are mappings of their own (dudley::TableAllocator), counted
  // beside the heap.
  const auto tables = [] { return static_cast<int64_t>(dudley::mapped_table_bytes()); };
  int64_t before = g_live.load();
  const int64_t tables_before = tables();
  g_peak.store(before);
  dudley::mapped_table_peak(true);
  auto r = dudley::layout::parse_layout(text);
  // (Heap and table peaks may fall at different moments: their sum bounds the true peak.)
  int64_t peak =
      g_peak.load() - before + static_cast<int64_t>(dudley::mapped_table_peak()) - tables_before;
  int64_t model = g_live.load() - before + tables() - tables_before;
  // The result also holds the (empty) diagnostics; the model dominates.
  state.counters["model_bytes_per_text_byte"] =
      static_cast<double>(model) / static_cast<double>(text.size());
  state.counters["peak_bytes_per_text_byte"] =
      static_cast<double>(peak) / static_cast<double>(text.size());
  state.counters["declarations"] = static_cast<double>(description(state.range(0)).declarations);
  state.counters["nodes"] = static_cast<double>(r.layout.nodes.size());
}

void BM_YamlCpp(benchmark::State& state) {
  const std::string& text = description(state.range(0)).yaml;
  for (auto _ : state) {
    YAML::Node root = YAML::Load(text);
    benchmark::DoNotOptimize(root);
  }
  set_common_counters(state, text.size());
  int64_t before = g_live.load();
  YAML::Node root = YAML::Load(text);
  state.counters["model_bytes_per_text_byte"] =
      static_cast<double>(g_live.load() - before) / static_cast<double>(text.size());
}

void BM_NlohmannJson(benchmark::State& state) {
  const std::string& text = description(state.range(0)).json;
  for (auto _ : state) {
    auto root = nlohmann::json::parse(text);
    benchmark::DoNotOptimize(root);
  }
  set_common_counters(state, text.size());
  int64_t before = g_live.load();
  auto root = nlohmann::json::parse(text);
  state.counters["model_bytes_per_text_byte"] =
      static_cast<double>(g_live.load() - before) / static_cast<double>(text.size());
}

// Touches every value so the on-demand parser really scans the document.
size_t walk(simdjson::ondemand::value v) {
  size_t n = 1;
  switch (v.type()) {
    case simdjson::ondemand::json_type::object:
      for (auto field : v.get_object()) n += walk(field.value());
      break;
    case simdjson::ondemand::json_type::array:
      for (auto item : v.get_array()) n += walk(item.value());
      break;
    case simdjson::ondemand::json_type::string:
      n += v.get_string().value().size() > 0;
      break;
    default:
      n += v.raw_json_token().size() > 0;
      break;
  }
  return n;
}

void BM_SimdjsonOnDemandWalk(benchmark::State& state) {
  simdjson::padded_string text(description(state.range(0)).json);
  simdjson::ondemand::parser parser;
  for (auto _ : state) {
    auto doc = parser.iterate(text);
    size_t n = walk(doc.get_value().value());
    benchmark::DoNotOptimize(n);
  }
  set_common_counters(state, text.size());
}

}  // namespace

BENCHMARK(BM_DudleyParse)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_YamlCpp)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_NlohmannJson)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_SimdjsonOnDemandWalk)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK_MAIN();
