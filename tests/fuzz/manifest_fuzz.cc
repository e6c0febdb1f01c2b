// libFuzzer target: any bytes, read as a data manifest of the corpus table through floe's
// manifest reader (Avro container, entry decoding, partition typing, inheritance), both
// into entries and into the columns planning reads, whole and with a metric projection.
// Whatever one way reads, the other reads the same.
#include <cstdlib>

#include "floe/manifest/manifest_reader.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto manifest = floe::fuzz::ManifestEntryFor(floe::fuzz::WriteInput(data, size, "m0.avro"));
  for (bool projected : {false, true}) {
    floe::manifest::ReadManifestOptions options;
    if (projected) options.projection.metric_ids = std::vector<int32_t>{1, 3};
    auto entries = floe::manifest::ReadManifest(floe::fuzz::LocalIO(), manifest,
                                                floe::fuzz::CorpusTableMetadata(), options);
    auto columns = floe::manifest::ReadManifestColumns(floe::fuzz::LocalIO(), manifest,
                                                       floe::fuzz::CorpusTableMetadata(), options);
    if (entries.ok() != columns.ok()) std::abort();
    if (!entries.ok()) continue;
    if (entries->size() != (*columns)->size()) std::abort();
    for (size_t i = 0; i < entries->size(); ++i) {
      if (!((*columns)->Entry(i) == (*entries)[i])) std::abort();
    }
  }
  return 0;
}
