#pragma once

// The fixed parts of the metadata pages: their style sheet, the table page's sections and the
// script that fills them. No external resources: the pages work offline and behind a strict
// Content-Security-Policy.

namespace floe::server::http {

extern const char kPageStyle[];
extern const char kTablePageBody[];
extern const char kTablePageScript[];

}  // namespace floe::server::http
