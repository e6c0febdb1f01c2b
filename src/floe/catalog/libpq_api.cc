#include "floe/catalog/libpq_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace floe {

namespace {

constexpr char kLibrary[] = "libpq.so.5";

#if defined(__SANITIZE_ADDRESS__)
constexpr int kOpenFlags = RTLD_NOW | RTLD_LOCAL;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kOpenFlags = RTLD_NOW | RTLD_LOCAL;
#else
constexpr int kOpenFlags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
#endif
#else
constexpr int kOpenFlags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
#endif

Result<const LibpqApi*> Load() {
  void* handle = dlopen(kLibrary, kOpenFlags);
  if (handle == nullptr) {
    const char* error = dlerror();
    return Status::IOError("Cannot load ", kLibrary,
                           ", PostgreSQL's client library: ", error ? error : "unknown error",
                           " (install libpq5)");
  }
  // Kept for the life of the process: connections may outlive any one catalog.
  static LibpqApi api;
#define FLOE_LIBPQ_LOAD(name)                                                    \
  api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));          \
  if (api.name == nullptr) {                                                     \
    return Status::IOError(kLibrary, " has no function ", #name, " (too old?)"); \
  }
  FLOE_LIBPQ_FUNCTIONS(FLOE_LIBPQ_LOAD)
#undef FLOE_LIBPQ_LOAD
  return &api;
}

}  // namespace

Result<const LibpqApi*> Libpq() {
  static std::once_flag once;
  static Result<const LibpqApi*> loaded = Status::UnknownError("not loaded");
  std::call_once(once, [] { loaded = Load(); });
  return loaded;
}

}  // namespace floe
