// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace vigil {

// An error caused by outside data (a parameter, a datagram, a command): a message a person can act
// on.
struct Error {
  std::string message;
};

// std::expected is C++23 and absent from Emscripten 3.1.6's libc++; this is the small subset we
// use.
template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  // By value, so `for (auto& x : f().value())` never binds to a dead temporary.
  T value() && { return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// For operations that return nothing on success.
using Status = Result<std::monostate>;
inline Status ok_status() {
  return Status(std::monostate{});
}

}  // namespace vigil
