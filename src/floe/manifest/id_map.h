#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <vector>

namespace floe::manifest {

// A map from field id to a value kept as one sorted vector. Column metrics have a handful
// of entries per data file and are read a million times a second while planning, where a
// node per entry (std::map) would dominate; ids usually arrive in order, so inserts append.
template <typename V>
class IdMap {
 public:
  using value_type = std::pair<int32_t, V>;
  using const_iterator = typename std::vector<value_type>::const_iterator;
  using iterator = typename std::vector<value_type>::iterator;

  IdMap() = default;
  IdMap(std::initializer_list<value_type> items) {
    for (const auto& item : items) (*this)[item.first] = item.second;
  }

  V& operator[](int32_t id) {
    if (items_.empty() || items_.back().first < id) {
      items_.emplace_back(id, V{});
      return items_.back().second;
    }
    auto it = Lower(id);
    if (it != items_.end() && it->first == id) return it->second;
    return items_.insert(it, value_type(id, V{}))->second;
  }

  const_iterator find(int32_t id) const {
    auto it = std::lower_bound(items_.begin(), items_.end(), id,
                               [](const value_type& a, int32_t b) { return a.first < b; });
    return it != items_.end() && it->first == id ? it : items_.end();
  }
  size_t count(int32_t id) const { return find(id) != items_.end() ? 1 : 0; }
  bool contains(int32_t id) const { return count(id) > 0; }
  const V& at(int32_t id) const {
    auto it = find(id);
    if (it == items_.end()) throw std::out_of_range("IdMap::at");
    return it->second;
  }

  void reserve(size_t n) { items_.reserve(n); }
  void clear() { items_.clear(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }

  bool operator==(const IdMap& other) const = default;

 private:
  iterator Lower(int32_t id) {
    return std::lower_bound(items_.begin(), items_.end(), id,
                            [](const value_type& a, int32_t b) { return a.first < b; });
  }
  std::vector<value_type> items_;
};

}  // namespace floe::manifest
