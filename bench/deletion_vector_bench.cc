// Deletion vectors: decoding and encoding 2M positions, in the shapes a vector takes: a
// tenth of a 20M-row file deleted at random (bitset containers), positions spread over 2^31
// rows (array containers), and runs of 100 (run containers). Decoding is what a scan pays per
// data file with a vector; positions per second is the figure.

#include <algorithm>
#include <random>

#include <benchmark/benchmark.h>

#include "floe/manifest/deletion_vector.h"

namespace {

using floe::manifest::DecodeDeletionVector;
using floe::manifest::EncodeDeletionVector;

constexpr int64_t kPositions = 2'000'000;

std::vector<int64_t> Positions(int shape) {
  std::vector<int64_t> out;
  std::mt19937_64 random(42);
  if (shape == 2) {
    for (int64_t start = 0; static_cast<int64_t>(out.size()) < kPositions; start += 200) {
      for (int64_t i = 0; i < 100; ++i) out.push_back(start + i);
    }
    return out;
  }
  const int64_t rows = shape == 0 ? 10 * kPositions : int64_t{1} << 31;
  std::uniform_int_distribution<int64_t> dist(0, rows - 1);
  while (static_cast<int64_t>(out.size()) < kPositions) {
    for (int64_t i = static_cast<int64_t>(out.size()); i < kPositions; ++i)
      out.push_back(dist(random));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

const char* ShapeName(int shape) {
  return shape == 0 ? "tenth_of_20M_rows" : shape == 1 ? "spread_over_2^31" : "runs_of_100";
}

void BM_DecodeDeletionVector(benchmark::State& state) {
  const std::string blob = EncodeDeletionVector(Positions(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    auto positions = DecodeDeletionVector(blob, "bench.puffin").ValueOrDie();
    benchmark::DoNotOptimize(positions.data());
  }
  state.SetLabel(ShapeName(static_cast<int>(state.range(0))));
  state.SetItemsProcessed(state.iterations() * kPositions);
  state.counters["blob_bytes"] = static_cast<double>(blob.size());
}
BENCHMARK(BM_DecodeDeletionVector)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

void BM_EncodeDeletionVector(benchmark::State& state) {
  const std::vector<int64_t> positions = Positions(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::string blob = EncodeDeletionVector(positions);
    benchmark::DoNotOptimize(blob.data());
  }
  state.SetLabel(ShapeName(static_cast<int>(state.range(0))));
  state.SetItemsProcessed(state.iterations() * kPositions);
}
BENCHMARK(BM_EncodeDeletionVector)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
