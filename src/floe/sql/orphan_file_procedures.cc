// Procedures that find and remove files under a table that no metadata references.

#include "floe/sql/procedure_registry.h"

namespace floe::sql {

void AddOrphanFileProcedures(std::vector<Procedure>* /*out*/) {}

}  // namespace floe::sql
