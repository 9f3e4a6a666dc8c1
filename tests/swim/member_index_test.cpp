#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>

#include <vigil/base/rng.hpp>
#include <vigil/swim/member_index.hpp>

using vigil::swim::Member;
using vigil::swim::MemberIndex;

namespace {
Member named(std::string name) {
  Member m;
  m.name = std::move(name);
  return m;
}
}  // namespace

TEST_CASE("the member index finds, replaces and forgets members by name") {
  Member a = named("a"), b = named("b"), a2 = named("a");
  MemberIndex index;
  CHECK(index.find("a") == nullptr);
  CHECK_FALSE(index.erase("a"));
  index.insert(&a);
  index.insert(&b);
  CHECK(index.size() == 2);
  CHECK(index.find("a") == &a);
  CHECK(index.find("b") == &b);
  CHECK(index.find("c") == nullptr);
  CHECK(index.probably_contains("a"));
  CHECK_FALSE(index.probably_contains("c"));
  index.insert(&a2);  // same name: replaced, not added
  CHECK(index.size() == 2);
  CHECK(index.find("a") == &a2);
  CHECK(index.erase("a"));
  CHECK(index.find("a") == nullptr);
  CHECK_FALSE(index.probably_contains("a"));
  CHECK(index.find("b") == &b);
  CHECK(index.size() == 1);
}

TEST_CASE("the member index agrees with std::map through heavy churn") {
  // Many names in a table that grows and shrinks: deletions inside probe runs must keep every
  // remaining member reachable.
  std::vector<std::unique_ptr<Member>> pool;
  for (int i = 0; i < 600; ++i)
    pool.push_back(std::make_unique<Member>(named("node-" + std::to_string(i))));
  vigil::Rng rng(42);
  MemberIndex index;
  std::map<std::string, Member*> reference;
  for (int step = 0; step < 60000; ++step) {
    Member* m = pool[rng.below(static_cast<std::uint32_t>(pool.size()))].get();
    if (rng.chance(0.55)) {
      index.insert(m);
      reference[m->name] = m;
    } else {
      CHECK(index.erase(m->name) == (reference.erase(m->name) == 1));
    }
    if (step % 1000 == 999) {
      REQUIRE(index.size() == reference.size());
      for (const auto& p : pool) {
        auto it = reference.find(p->name);
        REQUIRE(index.find(p->name) == (it == reference.end() ? nullptr : it->second));
        REQUIRE(index.probably_contains(p->name) == (it != reference.end()));
      }
    }
  }
}

TEST_CASE("reserving room keeps every member reachable, before and after") {
  std::vector<std::unique_ptr<Member>> pool;
  for (int i = 0; i < 300; ++i)
    pool.push_back(std::make_unique<Member>(named("node-" + std::to_string(i))));
  MemberIndex index;
  for (int i = 0; i < 100; ++i) index.insert(pool[i].get());
  index.reserve(300);  // grows while holding members
  for (int i = 100; i < 300; ++i) index.insert(pool[i].get());
  index.reserve(10);  // never shrinks
  CHECK(index.size() == 300);
  for (const auto& m : pool) CHECK(index.find(m->name) == m.get());
  CHECK(index.find("node-300") == nullptr);
}
