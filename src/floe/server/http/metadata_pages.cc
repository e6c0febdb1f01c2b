#include "floe/server/http/metadata_pages.h"

#include "floe/server/http/html_escape.h"
#include "floe/server/http/table_page_assets.h"
#include "floe/server/http/table_path.h"

namespace floe::server::http {

namespace {

std::string Head(const std::string& title, const std::string& nonce) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<link rel=\"icon\" href=\"data:,\">\n<title>" +
         HtmlEscape(title) + "</title>\n<style nonce=\"" + nonce + "\">" + kPageStyle +
         "</style>\n</head>\n";
}

}  // namespace

std::string PageSecurityPolicy(const std::string& nonce) {
  return "default-src 'none'; script-src 'nonce-" + nonce + "'; style-src 'nonce-" + nonce +
         "'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
         "frame-ancestors 'none'";
}

std::string IndexPage(const std::string& catalog_name, const std::vector<Namespace>& namespaces,
                      const std::vector<TableIdentifier>& tables, const std::string& nonce) {
  std::string out = Head("floe · " + catalog_name, nonce);
  out += "<body>\n<h1>Catalog <span id=\"catalog-name\">" + HtmlEscape(catalog_name) +
         "</span></h1>\n";
  if (namespaces.empty()) out += "<p id=\"no-namespaces\">This catalog has no namespaces.</p>\n";
  out += "<ul id=\"namespaces\">\n";
  for (const Namespace& ns : namespaces) {
    const std::string name = ns.ToString();
    out += "<li class=\"namespace\" data-namespace=\"" + HtmlEscape(name) + "\"><span>" +
           HtmlEscape(name) + "</span>\n<ul class=\"tables\">\n";
    bool any = false;
    for (const TableIdentifier& t : tables) {
      if (t.ns != ns) continue;
      any = true;
      out += "<li class=\"table\"><a href=\"/table/" + HtmlEscape(TablePath(t)) + "\">" +
             HtmlEscape(t.name) + "</a></li>\n";
    }
    if (!any) out += "<li class=\"empty\">no tables</li>\n";
    out += "</ul></li>\n";
  }
  out += "</ul>\n<p class=\"hint\">Data as JSON: <a href=\"/api/tables\">/api/tables</a></p>\n";
  return out + "</body>\n</html>\n";
}

std::string TablePage(const std::string& table_name, const std::string& nonce) {
  std::string out = Head(table_name + " · floe", nonce);
  out += "<body>\n<p><a href=\"/\">All tables</a></p>\n<h1 id=\"table-name\">" +
         HtmlEscape(table_name) + "</h1>\n";
  out += kTablePageBody;
  out += "<script nonce=\"" + nonce + "\">" + kTablePageScript + "</script>\n";
  return out + "</body>\n</html>\n";
}

std::string MessagePage(const std::string& title, const std::string& message,
                        const std::string& nonce) {
  std::string out = Head(title + " · floe", nonce);
  out += "<body>\n<p><a href=\"/\">All tables</a></p>\n<h1 id=\"error-title\">" +
         HtmlEscape(title) + "</h1>\n<p id=\"error-message\">" + HtmlEscape(message) + "</p>\n";
  return out + "</body>\n</html>\n";
}

}  // namespace floe::server::http
