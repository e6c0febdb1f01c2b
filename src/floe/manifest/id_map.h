#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace floe::manifest {

// A map from field id to a value kept as one sorted vector. Column metrics have a handful
// of entries per data file and are read a million times a second while planning, where a
// node per entry (std::map) would dominate; ids usually arrive in order, so inserts append.
// A map of one item keeps it inline: planning with a filter keeps the metrics of one column,
// and four allocations per data file would cost more than decoding it.
template <typename V>
class IdMap {
 public:
  using value_type = std::pair<int32_t, V>;
  using const_iterator = const value_type*;
  using iterator = value_type*;

  IdMap() = default;
  IdMap(std::initializer_list<value_type> items) {
    for (const auto& item : items) (*this)[item.first] = item.second;
  }

  V& operator[](int32_t id) {
    if (many_.empty()) {
      if (one_) {
        if (one_->first == id) return one_->second;
        reserve(4);
      } else if (many_.capacity() < 2) {
        return one_.emplace(id, V{}).second;
      }
    }
    if (many_.empty() || many_.back().first < id) {
      many_.emplace_back(id, V{});
      return many_.back().second;
    }
    auto it = std::lower_bound(many_.begin(), many_.end(), id,
                               [](const value_type& a, int32_t b) { return a.first < b; });
    if (it != many_.end() && it->first == id) return it->second;
    return many_.insert(it, value_type(id, V{}))->second;
  }

  const_iterator find(int32_t id) const {
    auto it = std::lower_bound(begin(), end(), id,
                               [](const value_type& a, int32_t b) { return a.first < b; });
    return it != end() && it->first == id ? it : end();
  }
  size_t count(int32_t id) const { return find(id) != end() ? 1 : 0; }
  bool contains(int32_t id) const { return count(id) > 0; }
  const V& at(int32_t id) const {
    auto it = find(id);
    if (it == end()) throw std::out_of_range("IdMap::at");
    return it->second;
  }

  // Room for `n` items; one item needs none. Room for more moves an inline item over.
  void reserve(size_t n) {
    if (n < 2) return;
    many_.reserve(n);
    if (one_) {
      many_.push_back(std::move(*one_));
      one_.reset();
    }
  }
  void clear() {
    one_.reset();
    many_.clear();
  }
  size_t size() const { return one_ ? 1 : many_.size(); }
  bool empty() const { return size() == 0; }
  const_iterator begin() const { return one_ ? &*one_ : many_.data(); }
  const_iterator end() const { return begin() + size(); }

  bool operator==(const IdMap& other) const {
    return std::equal(begin(), end(), other.begin(), other.end());
  }

 private:
  std::optional<value_type> one_;  // the only item, while there is one and no room reserved
  std::vector<value_type> many_;   // all items otherwise
};

}  // namespace floe::manifest
