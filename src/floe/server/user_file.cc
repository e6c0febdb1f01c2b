#include "floe/server/user_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace floe::server {

Result<UserVerifiers> LoadUserFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("Cannot read users file ", path);
  UserVerifiers users;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) {
      return Status::Invalid("users file ", path, " line ", number, ": expected name:verifier");
    }
    auto verifier = ScramVerifier::Parse(line.substr(colon + 1));
    if (!verifier.ok()) {
      return Status::Invalid("users file ", path, " line ", number, ": ",
                             verifier.status().message());
    }
    users[line.substr(0, colon)] = *verifier;
  }
  return users;
}

Status AddUser(const std::string& path, const std::string& name, const std::string& password) {
  if (name.empty() || name.find_first_of(":\n\r") != std::string::npos) {
    return Status::Invalid("a user name must be non-empty without ':' or line breaks: '", name,
                           "'");
  }
  if (password.empty()) return Status::Invalid("empty password for user ", name);
  UserVerifiers users;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    ARROW_ASSIGN_OR_RAISE(users, LoadUserFile(path));
  }
  ARROW_ASSIGN_OR_RAISE(users[name], ScramVerifier::FromPassword(password));
  std::ostringstream text;
  for (const auto& [user, verifier] : users) text << user << ":" << verifier.ToString() << "\n";
  std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    if (!out) return Status::IOError("Cannot write users file ", temp);
    ::chmod(temp.c_str(), 0600);
    out << text.str();
    if (!out.flush()) return Status::IOError("Cannot write users file ", temp);
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) return Status::IOError("Cannot replace users file ", path, ": ", ec.message());
  return Status::OK();
}

}  // namespace floe::server
