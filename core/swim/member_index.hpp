// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <vigil/swim/member.hpp>

namespace vigil::swim {

// Members by name. Every datagram looks one up, in a table per node, so the layout matters more
// than the algorithm: open addressing with linear probing keeps a lookup to one slot read (with
// the full hash, so a mismatch rarely touches the member) and one member read, where a node-based
// map chases three pointers. Deletion shifts the run back instead of leaving tombstones, so
// churn never slows lookups down. The members themselves are owned elsewhere.
class MemberIndex {
 public:
  Member* find(std::string_view name) const;
  // Whether some member's name hashes as `name` does (64 bits): one slot read, where find()
  // reads the member too. For questions where a collision — one in 2^64 for a pair of names —
  // costs nothing worse than a missed shortcut.
  bool probably_contains(std::string_view name) const;
  // Indexes `member` under its name, replacing any member indexed under the same name.
  void insert(Member* member);
  // Whether a member was indexed under `name`.
  bool erase(std::string_view name);
  std::size_t size() const { return size_; }
  // Room for `members` without growing (and rehashing) on the way.
  void reserve(std::size_t members);
  // Hints for loops over many names (a full-state exchange): start loading the slot `name` hashes
  // to, or — once that slot is likely cached — the member it holds, so that a later find() does
  // not wait on memory. Neither changes anything.
  void prefetch_slot(std::string_view name) const;
  void prefetch_member(std::string_view name) const;

 private:
  struct Slot {
    std::uint64_t hash = 0;
    Member* member = nullptr;
  };
  static std::uint64_t hash_of(std::string_view name);
  // Where `name` sits, or the empty slot that ends its probe run (slots must not be empty).
  std::size_t position(std::uint64_t hash, std::string_view name) const;
  // The first slot of the run holding `hash`, whatever its name; null if none.
  const Slot* first_with_hash(std::uint64_t hash) const;
  std::size_t slot_of(std::uint64_t hash) const { return hash & (slots_.size() - 1); }
  void grow();
  void rehash(std::size_t slots);

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
};

}  // namespace vigil::swim
