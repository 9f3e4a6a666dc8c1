#include <vigil/swim/member_index.hpp>

#include <functional>
#include <utility>

namespace vigil::swim {

std::uint64_t MemberIndex::hash_of(std::string_view name) {
  return std::hash<std::string_view>{}(name);
}

std::size_t MemberIndex::position(std::uint64_t hash, std::string_view name) const {
  for (std::size_t i = slot_of(hash);; i = (i + 1) & (slots_.size() - 1)) {
    const Slot& s = slots_[i];
    if (!s.member || (s.hash == hash && s.member->name == name)) return i;
  }
}

const MemberIndex::Slot* MemberIndex::first_with_hash(std::uint64_t hash) const {
  for (std::size_t i = slot_of(hash); slots_[i].member; i = (i + 1) & (slots_.size() - 1))
    if (slots_[i].hash == hash) return &slots_[i];
  return nullptr;
}

Member* MemberIndex::find(std::string_view name) const {
  if (size_ == 0) return nullptr;
  return slots_[position(hash_of(name), name)].member;
}

bool MemberIndex::probably_contains(std::string_view name) const {
  return size_ > 0 && first_with_hash(hash_of(name)) != nullptr;
}

void MemberIndex::prefetch_slot(std::string_view name) const {
  if (size_ > 0) __builtin_prefetch(&slots_[slot_of(hash_of(name))]);
}

void MemberIndex::prefetch_member(std::string_view name) const {
  if (size_ == 0) return;
  if (const Slot* s = first_with_hash(hash_of(name))) __builtin_prefetch(s->member);
}

void MemberIndex::insert(Member* member) {
  if ((size_ + 1) * 2 > slots_.size()) grow();
  const std::uint64_t h = hash_of(member->name);
  Slot& s = slots_[position(h, member->name)];
  if (!s.member) ++size_;
  s = Slot{h, member};
}

bool MemberIndex::erase(std::string_view name) {
  if (size_ == 0) return false;
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = position(hash_of(name), name);
  if (!slots_[hole].member) return false;
  // Pull later entries of the run back into the hole when the hole lies on their probe path
  // (between their home slot and where they sit), so every lookup still meets them.
  for (std::size_t next = (hole + 1) & mask; slots_[next].member; next = (next + 1) & mask) {
    const std::size_t home = slot_of(slots_[next].hash);
    const std::size_t from_home_to_hole = (hole - home) & mask;
    const std::size_t from_home_to_next = (next - home) & mask;
    if (from_home_to_hole < from_home_to_next) {
      slots_[hole] = slots_[next];
      hole = next;
    }
  }
  slots_[hole] = Slot{};
  --size_;
  return true;
}

void MemberIndex::reserve(std::size_t members) {
  std::size_t want = 16;
  while (want < 2 * members) want *= 2;  // at most half full, as insert() keeps it
  if (want > slots_.size()) rehash(want);
}

void MemberIndex::grow() {
  rehash(slots_.empty() ? 16 : slots_.size() * 2);
}

void MemberIndex::rehash(std::size_t slots) {
  std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots));
  for (const Slot& s : old) {
    if (!s.member) continue;
    for (std::size_t i = slot_of(s.hash);; i = (i + 1) & (slots_.size() - 1)) {
      if (!slots_[i].member) {
        slots_[i] = s;
        break;
      }
    }
  }
}

}  // namespace vigil::swim
