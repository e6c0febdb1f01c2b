#include "floe/avro/datum_writer.h"

#include "floe/avro/datum_plan_internal.h"

namespace floe::avro {

namespace {

constexpr int kMaxWriteDepth = 512;

bool Accepts(Type type, Value::Kind kind) {
  switch (type) {
    case Type::kNull:
      return kind == Value::Kind::kNull;
    case Type::kBoolean:
      return kind == Value::Kind::kBool;
    case Type::kInt:
      return kind == Value::Kind::kInt;
    case Type::kLong:
      return kind == Value::Kind::kLong || kind == Value::Kind::kInt;
    case Type::kFloat:
      return kind == Value::Kind::kFloat;
    case Type::kDouble:
      return kind == Value::Kind::kDouble || kind == Value::Kind::kFloat;
    case Type::kBytes:
      return kind == Value::Kind::kBytes;
    case Type::kString:
      return kind == Value::Kind::kString;
    case Type::kRecord:
      return kind == Value::Kind::kRecord;
    case Type::kEnum:
      return kind == Value::Kind::kEnum;
    case Type::kArray:
      return kind == Value::Kind::kArray;
    case Type::kMap:
      return kind == Value::Kind::kMap;
    case Type::kUnion:
      return kind == Value::Kind::kUnion;
    case Type::kFixed:
      return kind == Value::Kind::kFixed;
  }
  return false;
}

}  // namespace

DatumWriter::~DatumWriter() = default;

Result<std::unique_ptr<DatumWriter>> DatumWriter::Make(std::shared_ptr<const Schema> schema) {
  if (schema == nullptr) return Status::Invalid("DatumWriter needs a schema");
  std::unique_ptr<DatumWriter> writer(new DatumWriter());
  ARROW_ASSIGN_OR_RAISE(auto plan, internal::Plan::Compile(*schema));
  writer->plan_ = std::make_unique<internal::Plan>(std::move(plan));
  writer->schema_ = std::move(schema);
  return writer;
}

Status DatumWriter::Write(const Value& value, Encoder* encoder) const {
  const size_t start = encoder->size();
  Status st = WriteNode(plan_->root, value, encoder, 0);
  if (!st.ok()) encoder->mutable_buffer()->resize(start);
  return st;
}

Status DatumWriter::WriteNode(uint32_t id, const Value& value, Encoder* e, int depth) const {
  const internal::PlanNode& n = plan_->nodes[id];
  const uint32_t* kids = plan_->children(n);
  if (depth > kMaxWriteDepth) {
    return Status::Invalid("Avro value nested deeper than ", kMaxWriteDepth);
  }
  if (n.type == Type::kUnion) {
    int32_t branch = -1;
    const Value* branch_value = &value;
    if (value.kind() == Value::Kind::kUnion) {
      branch = value.index_;
      if (branch < 0 || static_cast<uint32_t>(branch) >= n.num_children ||
          value.children_.size() != 1) {
        return Status::Invalid("Avro union value names branch ", branch, " of a union of ",
                               n.num_children);
      }
      branch_value = &value.children_[0];
    } else {
      for (uint32_t i = 0; i < n.num_children; ++i) {
        if (Accepts(plan_->nodes[kids[i]].type, value.kind())) {
          branch = static_cast<int32_t>(i);
          break;
        }
      }
      if (branch < 0) {
        return Status::Invalid("Avro union has no branch for a ", KindName(value.kind()),
                               " value");
      }
    }
    e->WriteUnionIndex(branch);
    return WriteNode(kids[branch], *branch_value, e, depth + 1);
  }

  if (!Accepts(n.type, value.kind())) {
    return Status::Invalid("cannot write an Avro ", KindName(value.kind()), " value as ",
                           TypeName(n.type));
  }
  switch (n.type) {
    case Type::kNull:
      return Status::OK();
    case Type::kBoolean:
      e->WriteBool(value.scalar_.b);
      return Status::OK();
    case Type::kInt:
      e->WriteInt(value.scalar_.i);
      return Status::OK();
    case Type::kLong:
      e->WriteLong(value.AsInt64());
      return Status::OK();
    case Type::kFloat:
      e->WriteFloat(value.scalar_.f);
      return Status::OK();
    case Type::kDouble:
      e->WriteDouble(value.AsDouble());
      return Status::OK();
    case Type::kBytes:
    case Type::kString:
      e->WriteBytes(value.bytes_);
      return Status::OK();
    case Type::kFixed:
      if (static_cast<int64_t>(value.bytes_.size()) != n.size) {
        return Status::Invalid("Avro fixed ", n.node->full_name, " needs ", n.size,
                               " bytes, got ", value.bytes_.size());
      }
      e->WriteFixed(value.bytes_);
      return Status::OK();
    case Type::kEnum:
      if (value.index_ < 0 || value.index_ >= n.size) {
        return Status::Invalid("Avro enum ", n.node->full_name, " has no symbol ", value.index_);
      }
      e->WriteEnum(value.index_);
      return Status::OK();
    case Type::kRecord:
      if (value.children_.size() != n.num_children) {
        return Status::Invalid("Avro record ", n.node->full_name, " has ", n.num_children,
                               " fields, the value has ", value.children_.size());
      }
      for (uint32_t i = 0; i < n.num_children; ++i) {
        Status st = WriteNode(kids[i], value.children_[i], e, depth + 1);
        if (!st.ok()) {
          return Status::Invalid(st.message(), " (in field '", n.node->fields[i].name, "' of ",
                                 n.node->full_name, ")");
        }
      }
      return Status::OK();
    case Type::kArray:
    case Type::kMap: {
      const bool is_map = n.type == Type::kMap;
      if (is_map && value.keys_.size() != value.children_.size()) {
        return Status::Invalid("Avro map value has ", value.keys_.size(), " keys and ",
                               value.children_.size(), " values");
      }
      if (!value.children_.empty()) {
        e->WriteBlockCount(static_cast<int64_t>(value.children_.size()));
        for (size_t i = 0; i < value.children_.size(); ++i) {
          if (is_map) e->WriteString(value.keys_[i]);
          ARROW_RETURN_NOT_OK(WriteNode(kids[0], value.children_[i], e, depth + 1));
        }
      }
      e->WriteBlockCount(0);
      return Status::OK();
    }
    default:
      return Status::Invalid("unexpected Avro type ", TypeName(n.type));
  }
}

}  // namespace floe::avro
