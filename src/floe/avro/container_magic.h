#pragma once

// The four bytes every Avro object container file starts with (the spec's "Obj" and 1).

namespace floe::avro {

inline constexpr char kContainerMagic[4] = {'O', 'b', 'j', '\x01'};

}  // namespace floe::avro
