// Structural hashing: the hash reducer over the walk shared with structural equality
// (structural_equal_impl.h), so that equal trees visit equal leaves in the same order.
//
// Variables hash by the order in which they are defined (or first seen, when free variables
// may be mapped), never by name or address: alpha-renamed functions hash alike. Without
// map_free_vars, a free variable hashes by identity, as equality then compares it.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "relax/ir/structural_equal.h"
#include "structural_equal_impl.h"

namespace relax {
namespace sequal {
namespace {

uint64_t mix64(uint64_t seed, uint64_t value) {
  // boost::hash_combine's 64-bit form, followed by a final avalanche in result().
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

uint64_t avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

uint64_t hash_bytes(const void* data, size_t n) {
  return std::hash<std::string_view>()(std::string_view(static_cast<const char*>(data), n));
}

// Tags that keep different leaf kinds apart.
enum : uint64_t {
  kTagInt = 1,
  kTagFloat,
  kTagString,
  kTagDType,
  kTagBytes,
  kTagDef,
  kTagUse,
  kTagFree,
  kTagNaN
};

class HashReducer final : public Reducer {
 public:
  explicit HashReducer(bool map_free_vars) : Reducer(map_free_vars) {}

  bool leaf(int64_t a, int64_t) override {
    add(kTagInt, uint64_t(a));
    return true;
  }
  bool leaf(double a, double) override {
    if (std::isnan(a)) {
      add(kTagNaN, 0);
    } else {
      uint64_t bits;
      std::memcpy(&bits, &a, sizeof bits);
      add(kTagFloat, bits);
    }
    return true;
  }
  bool leaf(std::string_view a, std::string_view) override {
    add(kTagString, std::hash<std::string_view>()(a));
    return true;
  }
  bool leaf(DataType a, DataType) override {
    add(kTagDType, (uint64_t(a.code) << 24) | (uint64_t(a.bits) << 16) | a.lanes);
    return true;
  }
  bool named(std::string_view a, std::string_view b, const Object*, const Object*) override {
    return leaf(a, b);
  }
  bool bytes(const void* a, size_t na, const void*, size_t, size_t) override {
    add(kTagBytes, na);
    h_ = mix64(h_, hash_bytes(a, na));
    return true;
  }
  void mix(uint64_t value) override { h_ = mix64(h_, value); }

  // Hashing walks a tree against itself: nothing can differ.
  bool fail(const Object*, const Object*, std::string) override { return true; }
  bool fail_text(std::string, std::string, std::string) override { return true; }

  VarState lookup(const Object* a, const Object*) override {
    auto it = index_.find(a);
    if (it == index_.end()) return VarState::kUnbound;
    add(kTagUse, it->second);
    return VarState::kBound;
  }
  bool bind(const Object* a, const Object*) override {
    uint64_t index = index_.size();
    index_.emplace(a, index);
    add(kTagDef, index);
    return true;
  }
  bool free_var(const Object* a, const Object*) override {
    add(kTagFree, uint64_t(reinterpret_cast<uintptr_t>(a)));
    return true;
  }

  size_t result() const { return size_t(avalanche(h_)); }

 private:
  void add(uint64_t tag, uint64_t value) { h_ = mix64(mix64(h_, tag), value); }

  uint64_t h_ = 0x6a09e667f3bcc909ULL;
  std::unordered_map<const Object*, uint64_t> index_;
};

}  // namespace
}  // namespace sequal

size_t structural_hash(const Ref<Object>& obj, bool map_free_vars) {
  sequal::HashReducer r(map_free_vars);
  sequal::Walker(r).object(obj.get(), obj.get());
  return r.result();
}

size_t structural_hash(const IRModule& mod) {
  // Functions in name order, so that insertion order does not matter (as for equality).
  std::vector<std::pair<std::string_view, size_t>> parts;
  parts.reserve(mod.size());
  for (const IRModule::Entry& e : mod.functions())
    parts.emplace_back(e.gv->name, structural_hash(e.func));
  std::sort(parts.begin(), parts.end());
  uint64_t h = parts.size();
  for (const auto& [name, fh] : parts) {
    h = sequal::mix64(sequal::mix64(h, std::hash<std::string_view>()(name)), fh);
  }
  sequal::HashReducer r(/*map_free_vars=*/true);
  sequal::Walker(r).attrs(mod.attrs(), mod.attrs());
  std::string devices = sequal::vdevices_text(mod);
  r.leaf(devices, devices);
  return size_t(sequal::mix64(h, r.result()));
}

}  // namespace relax
