// The one cache policy of the program: a thread-safe map from keys to immutable values, bounded in entries and in
// weight (characters, cells: whatever the owner counts), dropping the oldest entries first. Values are built outside
// the lock (a law on a grid takes seconds), so two threads asking for the same missing key may both build it; the
// first stored is kept and both get an equal value. A build that throws stores nothing.
#pragma once

#include <cstddef>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace privamp {

template <class Key, class Value>
class Cache {
 public:
  explicit Cache(std::size_t max_entries, std::size_t max_weight = std::numeric_limits<std::size_t>::max())
      : max_entries_(max_entries), max_weight_(max_weight) {}

  // The value stored for `key`, or build() stored under it (weighing `weight`; a value heavier than the whole bound
  // is returned and not stored).
  template <class Build>
  Value get_or_build(const Key& key, Build&& build, std::size_t weight = 1) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = entries_.find(key); it != entries_.end()) return it->second.value;
    }
    Value value = build();
    const std::lock_guard lock(mutex_);
    if (const auto it = entries_.find(key); it != entries_.end()) return it->second.value;  // built meanwhile
    if (weight > max_weight_ || max_entries_ == 0) return value;
    while (!order_.empty() && (entries_.size() + 1 > max_entries_ || weight_ + weight > max_weight_)) drop_oldest();
    const auto it = entries_.emplace(key, Entry{value, weight}).first;
    order_.push_back(it);
    weight_ += weight;
    return value;
  }

  // The value stored for `key`, if any (nothing is built).
  std::optional<Value> find(const Key& key) const {
    const std::lock_guard lock(mutex_);
    if (const auto it = entries_.find(key); it != entries_.end()) return it->second.value;
    return std::nullopt;
  }

  std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return entries_.size();
  }
  std::size_t weight() const {
    const std::lock_guard lock(mutex_);
    return weight_;
  }

 private:
  struct Entry {
    Value value;
    std::size_t weight;
  };
  using Map = std::map<Key, Entry>;
  void drop_oldest() {
    weight_ -= order_.front()->second.weight;
    entries_.erase(order_.front());
    order_.pop_front();
  }

  const std::size_t max_entries_, max_weight_;
  mutable std::mutex mutex_;
  Map entries_;
  std::deque<typename Map::iterator> order_;  // oldest first (std::map iterators stay valid until erased)
  std::size_t weight_ = 0;
};

}  // namespace privamp
