// Procedures that rewrite data files and manifests into fewer, larger ones; no row changes.

#include "floe/sql/procedure_registry.h"

namespace floe::sql {

void AddCompactionProcedures(std::vector<Procedure>* /*out*/) {}

}  // namespace floe::sql
