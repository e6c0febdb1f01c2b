#include "floe/util/json_writer.h"

#include <new>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "floe/util/time_zone.h"

namespace floe {

namespace {

using Buffer = rapidjson::StringBuffer;
using Base = rapidjson::Writer<Buffer>;

// RapidJSON's Writer with its separators optionally followed by a space. It overrides the
// writing methods the way RapidJSON's own PrettyWriter does: each puts its separator, then
// lets the base class write the value.
class SeparatorWriter : public Base {
 public:
  SeparatorWriter(Buffer& buffer, bool spaced) : Base(buffer), spaced_(spaced) {}

  void Null() {
    Separate(rapidjson::kNullType);
    EndValue(WriteNull());
  }
  void Bool(bool b) {
    Separate(b ? rapidjson::kTrueType : rapidjson::kFalseType);
    EndValue(WriteBool(b));
  }
  void Int64(int64_t i) {
    Separate(rapidjson::kNumberType);
    EndValue(WriteInt64(i));
  }
  void String(std::string_view s) {
    Separate(rapidjson::kStringType);
    EndValue(WriteString(s.data(), static_cast<rapidjson::SizeType>(s.size())));
  }
  void Raw(std::string_view json) {
    Separate(rapidjson::kNumberType);
    EndValue(WriteRawValue(json.data(), json.size()));
  }
  void StartObject() {
    Separate(rapidjson::kObjectType);
    new (level_stack_.Push<Level>()) Level(false);
    WriteStartObject();
  }
  void EndObject() {
    RAPIDJSON_ASSERT(level_stack_.GetSize() >= sizeof(Level));
    RAPIDJSON_ASSERT(!level_stack_.Top<Level>()->inArray);
    level_stack_.Pop<Level>(1);
    EndValue(WriteEndObject());
  }
  void StartArray() {
    Separate(rapidjson::kArrayType);
    new (level_stack_.Push<Level>()) Level(true);
    WriteStartArray();
  }
  void EndArray() {
    RAPIDJSON_ASSERT(level_stack_.GetSize() >= sizeof(Level));
    RAPIDJSON_ASSERT(level_stack_.Top<Level>()->inArray);
    level_stack_.Pop<Level>(1);
    EndValue(WriteEndArray());
  }

 private:
  // Base::Prefix, with the space.
  void Separate(rapidjson::Type type) {
    (void)type;
    if (level_stack_.GetSize() == 0) {
      RAPIDJSON_ASSERT(!hasRoot_);  // one value only; Take() starts the next
      hasRoot_ = true;
      return;
    }
    Level* level = level_stack_.Top<Level>();
    if (level->valueCount > 0) {
      const bool after_key = !level->inArray && level->valueCount % 2 == 1;
      os_->Put(after_key ? ':' : ',');
      if (spaced_) os_->Put(' ');
    }
    // In an object, every other value is a member's name.
    RAPIDJSON_ASSERT(level->inArray || level->valueCount % 2 == 1 ||
                     type == rapidjson::kStringType);
    ++level->valueCount;
  }

  bool spaced_;
};

}  // namespace

class JsonWriter::Impl {
 public:
  explicit Impl(bool spaced) : writer(buffer, spaced) {}

  Buffer buffer;
  SeparatorWriter writer;
};

JsonWriter::JsonWriter(Style style) : impl_(std::make_unique<Impl>(style == Style::kSpaced)) {}

JsonWriter::~JsonWriter() = default;

JsonWriter& JsonWriter::StartObject() {
  impl_->writer.StartObject();
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  impl_->writer.EndObject();
  return *this;
}

JsonWriter& JsonWriter::StartArray() {
  impl_->writer.StartArray();
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  impl_->writer.EndArray();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view name) { return String(name); }

JsonWriter& JsonWriter::String(std::string_view value) {
  impl_->writer.String(value);
  return *this;
}

JsonWriter& JsonWriter::Int64(int64_t value) {
  impl_->writer.Int64(value);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  impl_->writer.Bool(value);
  return *this;
}

JsonWriter& JsonWriter::Null() {
  impl_->writer.Null();
  return *this;
}

JsonWriter& JsonWriter::Time(int64_t epoch_ms) {
  std::string text = FormatMillis(epoch_ms, TimeZone::Utc());
  if (text.size() > 10) text[10] = 'T';
  text += 'Z';
  return String(text);
}

JsonWriter& JsonWriter::OptionalInt64(const std::optional<int64_t>& value) {
  return value ? Int64(*value) : Null();
}

JsonWriter& JsonWriter::OptionalString(const std::optional<std::string>& value) {
  return value ? String(*value) : Null();
}

JsonWriter& JsonWriter::OptionalTime(const std::optional<int64_t>& epoch_ms) {
  return epoch_ms ? Time(*epoch_ms) : Null();
}

JsonWriter& JsonWriter::Strings(const std::vector<std::string>& values) {
  StartArray();
  for (const std::string& value : values) String(value);
  return EndArray();
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  impl_->writer.Raw(json);
  return *this;
}

std::string_view JsonWriter::view() const {
  return std::string_view(impl_->buffer.GetString(), impl_->buffer.GetSize());
}

std::string JsonWriter::Take() {
  std::string text(view());
  impl_->buffer.Clear();
  impl_->writer.Reset(impl_->buffer);
  return text;
}

}  // namespace floe
