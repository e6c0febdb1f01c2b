#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace floe {

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF). Returns the offset of the first bad byte through `bad_offset` when given.
bool IsValidUtf8(std::string_view text, size_t* bad_offset = nullptr);

// `text` with each byte that is not part of well-formed UTF-8 replaced by U+FFFD, for
// messages that echo what a client sent.
std::string ToValidUtf8(std::string_view text);

}  // namespace floe
