#include "floe/server/rest/rest_errors.h"

#include "floe/util/json_writer.h"
#include "floe/util/utf8.h"

namespace floe::server::rest {

http::HttpResponse ErrorResponse(int code, const std::string& type, const std::string& message) {
  JsonWriter json;
  json.StartObject().Key("error").StartObject();
  json.Key("message").String(ToValidUtf8(message));
  json.Key("type").String(type);
  json.Key("code").Int64(code);
  json.EndObject().EndObject();
  return http::JsonResponse(code, json.Take());
}

http::HttpResponse BadRequest(const std::string& message) {
  return ErrorResponse(400, "BadRequestException", message);
}

http::HttpResponse NoSuchNamespace(const Namespace& ns) {
  return ErrorResponse(404, "NoSuchNamespaceException",
                       "Namespace does not exist: " + ns.ToString());
}

http::HttpResponse NoSuchTable(const TableIdentifier& ident) {
  return ErrorResponse(404, "NoSuchTableException", "Table does not exist: " + ident.ToString());
}

http::HttpResponse FromStatus(const Status& status) {
  const std::string& message = status.message();
  switch (KindOf(status)) {
    case ErrorKind::kNotFound:
      if (message.rfind("Table does not exist", 0) == 0) {
        return ErrorResponse(404, "NoSuchTableException", message);
      }
      return ErrorResponse(404, "NoSuchNamespaceException", message);
    case ErrorKind::kAlreadyExists:
      return ErrorResponse(409, "AlreadyExistsException", message);
    case ErrorKind::kValidation:
      return BadRequest(message);
    case ErrorKind::kCommitConflict:
      return ErrorResponse(409, "CommitFailedException", message);
    case ErrorKind::kCommitStateUnknown:
      return ErrorResponse(500, "CommitStateUnknownException", message);
    case ErrorKind::kOther:
      break;
  }
  if (status.IsInvalid()) return BadRequest(message);
  if (status.IsNotImplemented())
    return ErrorResponse(406, "UnsupportedOperationException", message);
  return ErrorResponse(500, "ServiceFailureException", message);
}

}  // namespace floe::server::rest
