#include "floe/cli/result_format.h"

#include <algorithm>
#include <cctype>

#include <arrow/array.h>
#include <arrow/chunked_array.h>
#include <arrow/extension_type.h>
#include <arrow/table.h>
#include <arrow/type.h>
#include <arrow/util/checked_cast.h>
#include <arrow/util/decimal.h>

namespace floe::cli {

using arrow::internal::checked_cast;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Calls fn(array, index) for each of the first `limit` rows of a chunked column.
template <typename Fn>
void ForEachRow(const arrow::ChunkedArray& column, int64_t limit, Fn&& fn) {
  int64_t seen = 0;
  for (const auto& chunk : column.chunks()) {
    for (int64_t i = 0; i < chunk->length(); ++i) {
      if (limit >= 0 && seen >= limit) return;
      fn(*chunk, i);
      ++seen;
    }
  }
}

std::vector<std::string> ColumnNames(const arrow::Table& rows) {
  std::vector<std::string> names;
  for (const auto& field : rows.schema()->fields()) names.push_back(field->name());
  return names;
}

void AppendPadded(std::string_view cell, int64_t width, bool right, std::string* out) {
  int64_t pad = std::max<int64_t>(0, width - sql::DisplayWidth(cell));
  if (right) out->append(static_cast<size_t>(pad), ' ');
  out->append(cell);
  if (!right) out->append(static_cast<size_t>(pad), ' ');
}

const arrow::DataType& StorageType(const arrow::DataType& type) {
  if (type.id() == arrow::Type::EXTENSION) {
    return *checked_cast<const arrow::ExtensionType&>(type).storage_type();
  }
  if (type.id() == arrow::Type::DICTIONARY) {
    return *checked_cast<const arrow::DictionaryType&>(type).value_type();
  }
  return type;
}

bool IsNumeric(const arrow::DataType& type) {
  const arrow::DataType& t = StorageType(type);
  return arrow::is_integer(t.id()) || arrow::is_floating(t.id()) || arrow::is_decimal(t.id());
}

// --- CSV ---

void AppendCsvField(std::string_view field, std::string* out) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(field);
    return;
  }
  out->push_back('"');
  for (char c : field) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

// --- JSON ---

void AppendBase64(std::string_view bytes, std::string* out) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    out->push_back(kAlphabet[(n >> 18) & 63]);
    out->push_back(kAlphabet[(n >> 12) & 63]);
    out->push_back(kAlphabet[(n >> 6) & 63]);
    out->push_back(kAlphabet[n & 63]);
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out->push_back(kAlphabet[(n >> 18) & 63]);
    out->push_back(kAlphabet[(n >> 12) & 63]);
    out->push_back(rest == 2 ? kAlphabet[(n >> 6) & 63] : '=');
    out->push_back('=');
  }
}

// One value as JsonLinesString shows it (see result_format.h).
void WriteJsonValue(const arrow::Array& array, int64_t i, const sql::ValueText& text,
                    JsonWriter* json) {
  if (array.IsNull(i)) {
    json->Null();
    return;
  }
  const arrow::DataType& type = *array.type();
  switch (type.id()) {
    case arrow::Type::NA:
      json->Null();
      return;
    case arrow::Type::BOOL:
      json->Bool(checked_cast<const arrow::BooleanArray&>(array).Value(i));
      return;
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256:
      json->Raw(text.Format(array, i));
      return;
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      std::string s = text.Format(array, i);
      bool finite = !s.empty() && (std::isdigit(static_cast<unsigned char>(s.back())) != 0);
      if (finite) {
        json->Raw(s);
      } else {
        json->String(s);
      }
      return;
    }
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
    case arrow::Type::FIXED_SIZE_BINARY: {
      std::string_view bytes;
      if (type.id() == arrow::Type::BINARY) {
        bytes = checked_cast<const arrow::BinaryArray&>(array).GetView(i);
      } else if (type.id() == arrow::Type::LARGE_BINARY) {
        bytes = checked_cast<const arrow::LargeBinaryArray&>(array).GetView(i);
      } else if (type.id() == arrow::Type::BINARY_VIEW) {
        bytes = checked_cast<const arrow::BinaryViewArray&>(array).GetView(i);
      } else {
        bytes = checked_cast<const arrow::FixedSizeBinaryArray&>(array).GetView(i);
      }
      std::string base64;
      AppendBase64(bytes, &base64);
      json->String(base64);
      return;
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST: {
      sql::ListSlice slice = sql::ListElements(array, i);
      json->StartArray();
      for (int64_t k = 0; k < slice.length; ++k) {
        WriteJsonValue(*slice.values, slice.begin + k, text, json);
      }
      json->EndArray();
      return;
    }
    case arrow::Type::MAP: {
      const auto& map = checked_cast<const arrow::MapArray&>(array);
      int64_t begin = map.value_offset(i);
      json->StartObject();
      for (int64_t k = 0; k < map.value_length(i); ++k) {
        json->Key(text.Format(*map.keys(), begin + k));
        WriteJsonValue(*map.items(), begin + k, text, json);
      }
      json->EndObject();
      return;
    }
    case arrow::Type::STRUCT: {
      const auto& st = checked_cast<const arrow::StructArray&>(array);
      const auto& st_type = checked_cast<const arrow::StructType&>(type);
      json->StartObject();
      for (int k = 0; k < st.num_fields(); ++k) {
        json->Key(st_type.field(k)->name());
        WriteJsonValue(*st.field(k), i, text, json);
      }
      json->EndObject();
      return;
    }
    case arrow::Type::DICTIONARY: {
      const auto& dict = checked_cast<const arrow::DictionaryArray&>(array);
      WriteJsonValue(*dict.dictionary(), dict.GetValueIndex(i), text, json);
      return;
    }
    case arrow::Type::EXTENSION: {
      const auto& ext = checked_cast<const arrow::ExtensionArray&>(array);
      if (checked_cast<const arrow::ExtensionType&>(type).extension_name() == "arrow.uuid") {
        json->String(text.Format(array, i));
      } else {
        WriteJsonValue(*ext.storage(), i, text, json);
      }
      return;
    }
    default:
      // Strings, dates, times, timestamps and anything else: the text, as a string.
      json->String(text.Format(array, i));
      return;
  }
}

}  // namespace

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  std::string lower = Lower(name);
  if (lower == "table") return OutputFormat::kTable;
  if (lower == "csv") return OutputFormat::kCsv;
  if (lower == "json") return OutputFormat::kJson;
  if (lower == "markdown" || lower == "md") return OutputFormat::kMarkdown;
  return Status::Invalid("Unknown output format '", std::string(name),
                         "'; expected table, csv, json or markdown");
}

std::vector<std::vector<std::string>> RenderRows(const arrow::Table& rows, const sql::ValueText& text,
                                                 int64_t limit) {
  int64_t n = limit < 0 ? rows.num_rows() : std::min(limit, rows.num_rows());
  std::vector<std::vector<std::string>> out(static_cast<size_t>(n),
                                            std::vector<std::string>(rows.num_columns()));
  for (int c = 0; c < rows.num_columns(); ++c) {
    size_t r = 0;
    ForEachRow(*rows.column(c), n, [&](const arrow::Array& array, int64_t i) {
      text.Append(array, i, &out[r++][static_cast<size_t>(c)]);
    });
  }
  return out;
}

std::string ShowString(const arrow::Table& rows, const sql::ValueText& text, int64_t num_rows,
                       int64_t truncate) {
  bool show_all = num_rows <= 0;
  std::vector<std::vector<std::string>> cells = RenderRows(rows, text, show_all ? -1 : num_rows);
  bool has_more = !show_all && rows.num_rows() > num_rows;

  std::vector<std::string> header;
  for (const auto& name : ColumnNames(rows)) header.push_back(sql::EscapeMetaCharacters(name));
  for (auto& row : cells) {
    for (auto& cell : row) cell = sql::TruncateForDisplay(sql::EscapeMetaCharacters(cell), truncate);
  }

  const size_t num_cols = header.size();
  std::vector<int64_t> widths(num_cols, 3);  // Spark's minimum column width
  for (size_t c = 0; c < num_cols; ++c) {
    widths[c] = std::max(widths[c], sql::DisplayWidth(header[c]));
    for (const auto& row : cells) widths[c] = std::max(widths[c], sql::DisplayWidth(row[c]));
  }

  std::string sep = "+";
  for (int64_t w : widths) {
    sep.append(static_cast<size_t>(w), '-');
    sep.push_back('+');
  }
  sep.push_back('\n');

  bool right = truncate > 0;
  auto append_row = [&](const std::vector<std::string>& row, std::string* out) {
    out->push_back('|');
    for (size_t c = 0; c < num_cols; ++c) {
      AppendPadded(row[c], widths[c], right, out);
      out->push_back('|');
    }
    out->push_back('\n');
  };

  std::string out = sep;
  append_row(header, &out);
  out += sep;
  for (const auto& row : cells) append_row(row, &out);
  out += sep;
  if (has_more) {
    out += "only showing top " + std::to_string(num_rows) + (num_rows == 1 ? " row\n" : " rows\n");
  }
  return out;
}

std::string CsvString(const arrow::Table& rows, const sql::ValueText& text) {
  std::string out;
  std::vector<std::string> names = ColumnNames(rows);
  for (size_t c = 0; c < names.size(); ++c) {
    if (c > 0) out.push_back(',');
    AppendCsvField(names[c], &out);
  }
  out.push_back('\n');
  // Column-wise rendering keeps null-ness, which the text alone ("NULL") would lose.
  int64_t n = rows.num_rows();
  std::vector<std::vector<std::string>> cells(static_cast<size_t>(n),
                                              std::vector<std::string>(names.size()));
  for (int c = 0; c < rows.num_columns(); ++c) {
    size_t r = 0;
    ForEachRow(*rows.column(c), -1, [&](const arrow::Array& array, int64_t i) {
      std::string& cell = cells[r++][static_cast<size_t>(c)];
      if (array.IsNull(i)) return;
      std::string value = text.Format(array, i);
      if (value.empty()) {
        cell = "\"\"";
      } else {
        AppendCsvField(value, &cell);
      }
    });
  }
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out.push_back(',');
      out += row[c];
    }
    out.push_back('\n');
  }
  return out;
}

JsonRowWriter::JsonRowWriter(const arrow::Table& rows, const sql::ValueText& text)
    : text_(text), names_(ColumnNames(rows)), remaining_(rows.num_rows()) {
  for (const auto& column : rows.columns()) columns_.push_back(Column{column.get(), 0, 0});
}

bool JsonRowWriter::WriteNext(JsonWriter* json) {
  if (remaining_ == 0) return false;
  --remaining_;
  json->StartObject();
  for (size_t c = 0; c < columns_.size(); ++c) {
    Column& column = columns_[c];
    while (column.index >= column.values->chunk(column.chunk)->length()) {
      ++column.chunk;
      column.index = 0;
    }
    json->Key(names_[c]);
    WriteJsonValue(*column.values->chunk(column.chunk), column.index++, text_, json);
  }
  json->EndObject();
  return true;
}

std::string JsonLinesString(const arrow::Table& rows, const sql::ValueText& text) {
  JsonRowWriter rows_writer(rows, text);
  JsonWriter json;
  std::string out;
  while (rows_writer.WriteNext(&json)) {
    out += json.Take();
    out.push_back('\n');
  }
  return out;
}

std::string MarkdownString(const arrow::Table& rows, const sql::ValueText& text) {
  auto escape = [](std::string_view cell) {
    std::string escaped;
    for (char c : sql::EscapeMetaCharacters(cell)) {
      if (c == '|') escaped.push_back('\\');
      escaped.push_back(c);
    }
    return escaped;
  };
  std::vector<std::string> header;
  std::vector<bool> right;
  for (const auto& field : rows.schema()->fields()) {
    header.push_back(escape(field->name()));
    right.push_back(IsNumeric(*field->type()));
  }
  std::vector<std::vector<std::string>> cells = RenderRows(rows, text);
  for (auto& row : cells) {
    for (auto& cell : row) cell = escape(cell);
  }
  const size_t num_cols = header.size();
  std::vector<int64_t> widths(num_cols, 3);
  for (size_t c = 0; c < num_cols; ++c) {
    widths[c] = std::max(widths[c], sql::DisplayWidth(header[c]));
    for (const auto& row : cells) widths[c] = std::max(widths[c], sql::DisplayWidth(row[c]));
  }
  std::string out;
  auto append_row = [&](const std::vector<std::string>& row) {
    out.push_back('|');
    for (size_t c = 0; c < num_cols; ++c) {
      out.push_back(' ');
      AppendPadded(row[c], widths[c], right[c], &out);
      out += " |";
    }
    out.push_back('\n');
  };
  append_row(header);
  out.push_back('|');
  for (size_t c = 0; c < num_cols; ++c) {
    out.push_back(' ');
    out.append(static_cast<size_t>(widths[c] - (right[c] ? 1 : 0)), '-');
    if (right[c]) out.push_back(':');
    out += " |";
  }
  out.push_back('\n');
  for (const auto& row : cells) append_row(row);
  return out;
}

std::string FormatRows(const arrow::Table& rows, const sql::ValueText& text,
                       const FormatOptions& options) {
  switch (options.format) {
    case OutputFormat::kTable:
      return ShowString(rows, text, options.max_rows, options.truncate);
    case OutputFormat::kCsv:
      return CsvString(rows, text);
    case OutputFormat::kJson:
      return JsonLinesString(rows, text);
    case OutputFormat::kMarkdown:
      return MarkdownString(rows, text);
  }
  return {};
}

}  // namespace floe::cli
