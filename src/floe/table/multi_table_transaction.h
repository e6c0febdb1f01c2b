#pragma once

// A transaction over several tables: BEGIN ... COMMIT. Each write is staged on the table the
// transaction loaded (later reads and writes of the table see it) and nothing is visible to
// anyone else until Commit, which writes one metadata file per changed table and swaps every
// pointer in one catalog transaction. A table another writer moved since the transaction
// read it is validated write by write against what was committed meanwhile, with each
// write's own isolation level, and its writes replayed on top; any conflict fails the whole
// commit and no table moves.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/table/commit.h"
#include "floe/table/table.h"

namespace floe::table {

class TableCatalog;
struct NewCatalogTag;

// One write of a transaction, kept until the transaction ends: everything it needs to be
// applied again on a table others moved.
struct StagedWrite {
  ApplyFn apply;
  // Whether what was committed between `read_base` (the table as the transaction read it)
  // and `fresh` conflicts with this write.
  std::function<Status(const spec::TableMetadata& fresh, const spec::TableMetadata& read_base)>
      validate_since;
  std::function<void()> discard;    // removes the files the write wrote (a rollback)
  std::function<void()> committed;  // after the commit: files no snapshot kept
  CommitProvenance provenance;      // the statement that made the write
};

class MultiTableTransaction {
 public:
  explicit MultiTableTransaction(std::string id);
  ~MultiTableTransaction();
  MultiTableTransaction(const MultiTableTransaction&) = delete;
  MultiTableTransaction& operator=(const MultiTableTransaction&) = delete;

  // Shared by the audit rows of every table the commit moves.
  const std::string& id() const { return id_; }

  // The transaction's own view of a table it already used, or null.
  std::shared_ptr<Table> Find(const TableIdentifier& ident) const;
  // Makes a freshly loaded table part of the transaction: it reads as loaded from now on.
  void Track(const std::shared_ptr<Table>& table);

  // Applies a write to the table's view and keeps it for the commit. The table must be
  // tracked.
  Status Stage(Table& table, StagedWrite write);

  bool HasWrites() const;
  // "db.a, db.b": the tables with staged writes, in the order first written.
  std::vector<TableIdentifier> WrittenTables() const;

  // Every staged write or none, in one catalog transaction; with `tag`, the catalog tag is
  // made in it too (COMMIT TAG): the tables written are tagged at the snapshots the commit
  // adds, every other table in scope at its current one. A table dropped or replaced since the transaction read it fails the commit, as
  // does any conflict or a tag that cannot be made; the staged writes are discarded then.
  // CommitStateUnknown keeps every file (the pointers may have moved).
  Status Commit(TableCatalog& tables, const NewCatalogTag* tag = nullptr);
  // Removes every file the staged writes wrote and forgets them (ROLLBACK, a failed
  // statement, or a failed commit).
  void Discard();

  // A savepoint: how many writes each table had. RollbackTo undoes the writes after it.
  struct Mark {
    std::map<std::string, size_t> writes;
    std::map<std::string, spec::TableMetadataPtr> views;
  };
  Mark Save() const;
  void RollbackTo(const Mark& mark);

 private:
  struct Entry;
  Entry* FindEntry(const TableIdentifier& ident) const;
  Status CommitOnce(TableCatalog& tables, int64_t commit_ms, const NewCatalogTag* tag,
                    bool* retry);

  std::string id_;
  std::vector<std::unique_ptr<Entry>> entries_;  // in the order first used
};

}  // namespace floe::table
