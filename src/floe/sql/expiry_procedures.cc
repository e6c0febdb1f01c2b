// Procedures that expire snapshots: they remove history and the files only that history reached.

#include "floe/sql/procedure_registry.h"

namespace floe::sql {

void AddExpiryProcedures(std::vector<Procedure>* /*out*/) {}

}  // namespace floe::sql
