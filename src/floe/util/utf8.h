#pragma once

#include <cstddef>
#include <string_view>

namespace floe {

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF). Returns the offset of the first bad byte through `bad_offset` when given.
bool IsValidUtf8(std::string_view text, size_t* bad_offset = nullptr);

}  // namespace floe
