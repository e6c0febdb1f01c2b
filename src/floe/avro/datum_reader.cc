#include "floe/avro/datum_reader.h"

#include "floe/avro/datum_plan_internal.h"

namespace floe::avro {

namespace {

// Bounds data-driven recursion (recursive schemas) so hostile input cannot exhaust the stack.
constexpr int kMaxReadDepth = 512;

}  // namespace

struct DatumReader::Context {
  Decoder* decoder;
  int64_t* zero_size_budget;
  int depth;
};

DatumReader::~DatumReader() = default;

Result<std::unique_ptr<DatumReader>> DatumReader::Make(std::shared_ptr<const Schema> schema) {
  if (schema == nullptr) return Status::Invalid("DatumReader needs a schema");
  std::unique_ptr<DatumReader> reader(new DatumReader());
  ARROW_ASSIGN_OR_RAISE(auto plan, internal::Plan::Compile(*schema));
  reader->plan_ = std::make_unique<internal::Plan>(std::move(plan));
  reader->schema_ = std::move(schema);
  return reader;
}

uint32_t DatumReader::min_value_size() const { return plan_->nodes[plan_->root].min_size; }

Status DatumReader::Read(Decoder* decoder, Value* out) const {
  int64_t budget = kMaxZeroSizeItems;
  return Read(decoder, out, &budget);
}

Status DatumReader::Read(Decoder* decoder, Value* out, int64_t* zero_size_budget) const {
  Context ctx{decoder, zero_size_budget, 0};
  return ReadNode(plan_->root, &ctx, out);
}

Status DatumReader::ReadNode(uint32_t id, Context* ctx, Value* out) const {
  const internal::PlanNode& n = plan_->nodes[id];
  Decoder* d = ctx->decoder;
  switch (n.type) {
    case Type::kNull:
      out->kind_ = Value::Kind::kNull;
      return Status::OK();
    case Type::kBoolean:
      out->kind_ = Value::Kind::kBool;
      return d->ReadBool(&out->scalar_.b);
    case Type::kInt:
      out->kind_ = Value::Kind::kInt;
      return d->ReadInt(&out->scalar_.i);
    case Type::kLong:
      out->kind_ = Value::Kind::kLong;
      return d->ReadLong(&out->scalar_.l);
    case Type::kFloat:
      out->kind_ = Value::Kind::kFloat;
      return d->ReadFloat(&out->scalar_.f);
    case Type::kDouble:
      out->kind_ = Value::Kind::kDouble;
      return d->ReadDouble(&out->scalar_.d);
    case Type::kString:
      out->kind_ = Value::Kind::kString;
      return d->ReadString(&out->bytes_);
    case Type::kBytes:
      out->kind_ = Value::Kind::kBytes;
      return d->ReadBytes(&out->bytes_);
    case Type::kFixed:
      out->kind_ = Value::Kind::kFixed;
      return d->ReadFixed(static_cast<size_t>(n.size), &out->bytes_);
    case Type::kEnum: {
      out->kind_ = Value::Kind::kEnum;
      ARROW_RETURN_NOT_OK(d->ReadIndex(&out->index_));
      if (out->index_ >= n.size) {
        return Status::Invalid("Avro enum index ", out->index_, " out of range for ",
                               n.node->full_name, " with ", n.size, " symbols");
      }
      return Status::OK();
    }
    default:
      break;
  }

  if (++ctx->depth > kMaxReadDepth) {
    return Status::Invalid("Avro value nested deeper than ", kMaxReadDepth);
  }
  const uint32_t* kids = plan_->children(n);
  switch (n.type) {
    case Type::kRecord: {
      out->kind_ = Value::Kind::kRecord;
      out->children_.resize(n.num_children);
      for (uint32_t i = 0; i < n.num_children; ++i) {
        Status st = ReadNode(kids[i], ctx, &out->children_[i]);
        if (!st.ok()) {
          return Status::Invalid(st.message(), " (in field '", n.node->fields[i].name, "' of ",
                                 n.node->full_name, ")");
        }
      }
      break;
    }
    case Type::kUnion: {
      out->kind_ = Value::Kind::kUnion;
      ARROW_RETURN_NOT_OK(d->ReadIndex(&out->index_));
      if (static_cast<uint32_t>(out->index_) >= n.num_children) {
        return Status::Invalid("Avro union branch ", out->index_, " out of range for a union of ",
                               n.num_children);
      }
      out->children_.resize(1);
      ARROW_RETURN_NOT_OK(ReadNode(kids[out->index_], ctx, &out->children_[0]));
      break;
    }
    case Type::kArray:
    case Type::kMap: {
      const bool is_map = n.type == Type::kMap;
      out->kind_ = is_map ? Value::Kind::kMap : Value::Kind::kArray;
      const uint32_t item_min = plan_->nodes[kids[0]].min_size + (is_map ? 1 : 0);
      size_t used = 0;
      while (true) {
        int64_t count;
        ARROW_RETURN_NOT_OK(d->ReadBlockCount(&count));
        if (count == 0) break;
        if (item_min > 0) {
          if (static_cast<uint64_t>(count) > d->remaining() / item_min) {
            return Status::Invalid("Avro ", TypeName(n.type), " block count ", count,
                                   " exceeds the ", d->remaining(), " remaining bytes");
          }
        } else {
          if (count > *ctx->zero_size_budget) {
            return Status::Invalid("Avro ", TypeName(n.type),
                                   " holds too many zero-size items (block count ", count, ")");
          }
          *ctx->zero_size_budget -= count;
        }
        const size_t total = used + static_cast<size_t>(count);
        if (out->children_.size() < total) out->children_.resize(total);
        if (is_map && out->keys_.size() < total) out->keys_.resize(total);
        for (size_t i = used; i < total; ++i) {
          if (is_map) ARROW_RETURN_NOT_OK(d->ReadString(&out->keys_[i]));
          ARROW_RETURN_NOT_OK(ReadNode(kids[0], ctx, &out->children_[i]));
        }
        used = total;
      }
      out->children_.resize(used);
      if (is_map) out->keys_.resize(used);
      break;
    }
    default:
      return Status::Invalid("unexpected Avro type ", TypeName(n.type));
  }
  --ctx->depth;
  return Status::OK();
}

}  // namespace floe::avro
