// The codec layer against the codec libraries called directly from C (issue 11): 256 MiB of
// smooth float64 in 4 MiB chunks, compressed and decompressed with zstd level 3, zlib level
// 5 and blosc (lz4, byte shuffle, level 5). Our zlib is libdeflate, so it is measured against
// libdeflate called directly and, as the library most programs use, against zlib itself. Each round
// runs, back to back: the library directly on one thread, our chain on one thread, and our chain on
// the shared thread pool (all cores). Medians over the rounds; the ratios are the targets (ours >=
// 0.95x the library single-threaded; parallel >= 1.7x single-threaded on 2 cores).
#include <benchmark/benchmark.h>
#include <blosc.h>
#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dudley/codec/chain.hpp"

namespace {

using namespace dudley::codec;

constexpr size_t kTotal = size_t{256} << 20;
constexpr size_t kChunk = size_t{4} << 20;
constexpr size_t kChunks = kTotal / kChunk;
constexpr int kRounds = 3;

const std::vector<double>& data() {
  static const std::vector<double> values = [] {
    std::vector<double> v(kTotal / 8);
    for (size_t i = 0; i < v.size(); ++i) {
      const double t = static_cast<double>(i) * 1e-5;
      v[i] = std::sin(t) * 1000.0 + std::cos(3.0 * t) * 10.0;
    }
    return v;
  }();
  return values;
}

ByteView chunk(size_t c) {
  return std::as_bytes(std::span(data())).subspan(c * kChunk, kChunk);
}

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The libraries called as a C program would, one chunk at a time on one thread.
struct Direct {
  std::function<size_t(ByteView in, std::vector<std::byte>& out)> compress;
  std::function<void(ByteView in, MutableByteView out)> decompress;
};

Direct direct_zstd() {
  return {[](ByteView in, std::vector<std::byte>& out) {
            thread_local ZSTD_CCtx* c = ZSTD_createCCtx();
            out.resize(ZSTD_compressBound(in.size()));
            return ZSTD_compressCCtx(c, out.data(), out.size(), in.data(), in.size(), 3);
          },
          [](ByteView in, MutableByteView out) {
            thread_local ZSTD_DCtx* d = ZSTD_createDCtx();
            ZSTD_decompressDCtx(d, out.data(), out.size(), in.data(), in.size());
          }};
}

Direct direct_zlib() {
  return {[](ByteView in, std::vector<std::byte>& out) {
            uLongf n = compressBound(in.size());
            out.resize(n);
            compress2(reinterpret_cast<Bytef*>(out.data()), &n,
                      reinterpret_cast<const Bytef*>(in.data()), in.size(), 5);
            return static_cast<size_t>(n);
          },
          [](ByteView in, MutableByteView out) {
            uLongf n = out.size();
            uncompress(reinterpret_cast<Bytef*>(out.data()), &n,
                       reinterpret_cast<const Bytef*>(in.data()), in.size());
          }};
}

Direct direct_libdeflate_zlib() {
  return {[](ByteView in, std::vector<std::byte>& out) {
            thread_local libdeflate_compressor* c = libdeflate_alloc_compressor(5);
            out.resize(libdeflate_zlib_compress_bound(c, in.size()));
            return libdeflate_zlib_compress(c, in.data(), in.size(), out.data(), out.size());
          },
          [](ByteView in, MutableByteView out) {
            thread_local libdeflate_decompressor* d = libdeflate_alloc_decompressor();
            libdeflate_zlib_decompress(d, in.data(), in.size(), out.data(), out.size(), nullptr);
          }};
}

Direct direct_blosc() {
  return {[](ByteView in, std::vector<std::byte>& out) {
            out.resize(in.size() + BLOSC_MAX_OVERHEAD);
            return static_cast<size_t>(blosc_compress_ctx(5, 1, 8, in.size(), in.data(), out.data(),
                                                          out.size(), "lz4", 0, 1));
          },
          [](ByteView in, MutableByteView out) {
            blosc_decompress_ctx(in.data(), out.data(), out.size(), 1);
          }};
}

void run_codec(benchmark::State& state, const char* label, const Direct& direct,
               const Configuration& chain_description) {
  const CodecChain chain = CodecChain::from_configuration(chain_description);
  const ChunkSpec spec{8, {static_cast<int64_t>(kChunk / 8)}};
  std::vector<ByteView> inputs;
  for (size_t c = 0; c < kChunks; ++c) inputs.push_back(chunk(c));
  std::vector<std::vector<std::byte>> direct_out(kChunks);
  std::vector<double> out_values(kTotal / 8);
  std::vector<MutableByteView> outs;
  for (size_t c = 0; c < kChunks; ++c) {
    outs.push_back(std::as_writable_bytes(std::span(out_values)).subspan(c * kChunk, kChunk));
  }
  std::vector<double> dc, oc, pc, dd, od, pd;
  size_t encoded_bytes = 0;
  // Both sides reuse their output buffers from round to round, as a program coding chunk
  // after chunk would.
  std::vector<Bytes> ours(kChunks);
  for (auto _ : state) {
    for (int round = 0; round < kRounds; ++round) {
      dc.push_back(seconds([&] {
        for (size_t c = 0; c < kChunks; ++c) {
          direct_out[c].resize(direct.compress(inputs[c], direct_out[c]));
        }
      }));
      oc.push_back(seconds([&] {
        for (size_t c = 0; c < kChunks; ++c) chain.encode_into(inputs[c], spec, ours[c]);
      }));
      pc.push_back(seconds([&] { chain.encode_all(inputs, spec, ours); }));
      std::vector<ByteView> encoded(ours.begin(), ours.end());
      encoded_bytes = 0;
      for (const Bytes& b : ours) encoded_bytes += b.size();
      dd.push_back(seconds([&] {
        for (size_t c = 0; c < kChunks; ++c) direct.decompress(direct_out[c], outs[c]);
      }));
      od.push_back(seconds([&] {
        for (size_t c = 0; c < kChunks; ++c) chain.decode(encoded[c], outs[c], spec);
      }));
      pd.push_back(seconds([&] { chain.decode_all(encoded, outs, spec); }));
      if (std::memcmp(out_values.data(), data().data(), kTotal) != 0) {
        state.SkipWithError("decoded data differs");
        return;
      }
    }
  }
  const double mb = static_cast<double>(kTotal) / 1e6;
  auto& k = state.counters;
  k["direct_compress_MBps"] = mb / median(dc);
  k["ours_compress_MBps"] = mb / median(oc);
  k["parallel_compress_MBps"] = mb / median(pc);
  k["direct_decompress_MBps"] = mb / median(dd);
  k["ours_decompress_MBps"] = mb / median(od);
  k["parallel_decompress_MBps"] = mb / median(pd);
  k["compress_ratio_vs_direct"] = median(dc) / median(oc);
  k["decompress_ratio_vs_direct"] = median(dd) / median(od);
  k["compress_parallel_speedup"] = median(oc) / median(pc);
  k["decompress_parallel_speedup"] = median(od) / median(pd);
  k["compression_ratio"] = static_cast<double>(kTotal) / static_cast<double>(encoded_bytes);
  k["threads"] = static_cast<double>(dudley::ThreadPool::shared().helpers() + 1);
  state.SetLabel(label);
}

void BM_Zstd3(benchmark::State& state) {
  run_codec(state, "zstd-3", direct_zstd(),
            Configuration::parse(R"([{"name": "zstd", "configuration": {"level": 3}}])"));
}
void BM_Zlib5(benchmark::State& state) {
  run_codec(state, "zlib-5 vs libdeflate", direct_libdeflate_zlib(),
            Configuration::parse(R"([{"name": "zlib", "configuration": {"level": 5}}])"));
}
void BM_Zlib5VsZlib(benchmark::State& state) {
  run_codec(state, "zlib-5 vs zlib", direct_zlib(),
            Configuration::parse(R"([{"name": "zlib", "configuration": {"level": 5}}])"));
}
void BM_BloscLz4Shuffle(benchmark::State& state) {
  run_codec(state, "blosc lz4+shuffle", direct_blosc(),
            Configuration::parse(R"([{"name": "blosc", "configuration":
              {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8}}])"));
}

}  // namespace

BENCHMARK(BM_Zstd3)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_Zlib5)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_Zlib5VsZlib)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK(BM_BloscLz4Shuffle)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_MAIN();
