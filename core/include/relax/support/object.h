// Reference-counted immutable nodes and the one handle template, Ref<T>.
//
// Every IR node (Relax expressions, struct info, PrimExprs, TIR statements) derives from
// Object. An Object carries an intrusive atomic reference count and a kind tag; downcasts
// (`as<T>()`) compare the tag and never use RTTI. Nodes are immutable after construction:
// their fields are public and const, so a node may be shared freely between threads and
// between IR trees.
//
// A node type T announces which kinds it covers with either
//   static constexpr uint32_t kKind = ...;                        (a leaf node)
//   static constexpr uint32_t kKindFirst = ..., kKindLast = ...;  (a category such as Expr)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

namespace relax {

/// Base of every reference-counted node.
class Object {
 public:
  explicit Object(uint32_t kind) noexcept : kind_(kind) {}
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

  /// The kind tag, one value per concrete node type.
  uint32_t kind() const noexcept { return kind_; }
  void inc_ref() const noexcept { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void dec_ref() const noexcept {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  /// Number of handles to this node (for tests and copy-on-write decisions).
  int32_t use_count() const noexcept { return ref_count_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<int32_t> ref_count_{0};
  const uint32_t kind_;
};

/// True when `obj` is an instance of node type T (by kind tag; null is never an instance).
template <class T>
bool is_instance(const Object* obj) noexcept {
  if (obj == nullptr) return false;
  if constexpr (std::is_same_v<T, Object>) {
    return true;
  } else if constexpr (requires { T::kKind; }) {
    return obj->kind() == T::kKind;
  } else {
    return obj->kind() >= T::kKindFirst && obj->kind() <= T::kKindLast;
  }
}

/// Owning handle to a node of type T (or of a type derived from T). May be null.
/// The pointer is stored as Object* so that Ref<T> can name an incomplete T.
template <class T>
class Ref {
 public:
  using element_type = T;

  Ref() noexcept = default;
  Ref(std::nullptr_t) noexcept {}  // NOLINT(google-explicit-constructor)
  /// Takes a reference to `node` (which may be null).
  explicit Ref(const T* node) noexcept : ptr_(node) {
    if (ptr_) ptr_->inc_ref();
  }
  Ref(const Ref& other) noexcept : ptr_(other.ptr_) {
    if (ptr_) ptr_->inc_ref();
  }
  Ref(Ref&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  /// Implicit upcast from a handle to a derived node type.
  template <class U>
    requires(std::is_base_of_v<T, U> && !std::is_same_v<T, U>)
  Ref(const Ref<U>& other) noexcept : ptr_(other.get_object()) {  // NOLINT
    if (ptr_) ptr_->inc_ref();
  }
  template <class U>
    requires(std::is_base_of_v<T, U> && !std::is_same_v<T, U>)
  Ref(Ref<U>&& other) noexcept : ptr_(other.release_object()) {}  // NOLINT
  ~Ref() {
    if (ptr_) ptr_->dec_ref();
  }
  Ref& operator=(Ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  const T* get() const noexcept { return static_cast<const T*>(ptr_); }
  const T* operator->() const noexcept { return get(); }
  const T& operator*() const noexcept { return *get(); }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  bool defined() const noexcept { return ptr_ != nullptr; }
  /// Identity comparison: the same node, not merely an equal one.
  bool same_as(const Ref<Object>& other) const noexcept { return ptr_ == other.get_object(); }
  template <class U>
  bool same_as(const Ref<U>& other) const noexcept {
    return ptr_ == other.get_object();
  }

  /// Downcast by kind tag; null when the node is not a U (or the handle is null).
  template <class U>
  const U* as() const noexcept {
    return is_instance<U>(ptr_) ? static_cast<const U*>(ptr_) : nullptr;
  }
  /// Downcast to a handle; null handle when the node is not a U.
  template <class U>
  Ref<U> as_ref() const noexcept {
    return Ref<U>(as<U>());
  }
  template <class U>
  bool is() const noexcept {
    return is_instance<U>(ptr_);
  }

  const Object* get_object() const noexcept { return ptr_; }
  const Object* release_object() noexcept { return std::exchange(ptr_, nullptr); }

  friend bool operator==(const Ref& a, const Ref& b) noexcept { return a.ptr_ == b.ptr_; }
  friend bool operator==(const Ref& a, std::nullptr_t) noexcept { return a.ptr_ == nullptr; }

 private:
  template <class U>
  friend class Ref;
  const Object* ptr_ = nullptr;
};

/// Allocates a node and returns the first handle to it.
template <class T, class... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

/// Downcast a handle, or return null.
template <class U, class T>
Ref<U> downcast(const Ref<T>& ref) noexcept {
  return ref.template as_ref<U>();
}

/// Hash and equality by identity, for maps keyed by nodes (variables, functions).
struct RefHash {
  template <class T>
  size_t operator()(const Ref<T>& r) const noexcept {
    return std::hash<const void*>()(r.get_object());
  }
};

}  // namespace relax

template <class T>
struct std::hash<relax::Ref<T>> {
  size_t operator()(const relax::Ref<T>& r) const noexcept {
    return std::hash<const void*>()(r.get_object());
  }
};
