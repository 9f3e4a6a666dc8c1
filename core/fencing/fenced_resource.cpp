#include <vigil/fencing/fenced_resource.hpp>

#include <algorithm>
#include <utility>

namespace vigil::fencing {

Result<WriteOutcome> FencedResource::write(Token token, std::string value) {
  if (token == 0) return Error{"a write needs a fencing token (tokens start at 1)"};
  WriteOutcome out;
  out.token = token;
  out.highest_before = highest_;
  if (checking_ == Checking::fenced && token < highest_) {
    out.highest_after = highest_;
    out.reason = "token " + std::to_string(token) + " is below the highest seen, " +
                 std::to_string(highest_);
    ++rejected_;
    return out;
  }
  // Unfenced, the token is still remembered (for display), just never checked.
  highest_ = std::max(highest_, token);
  value_ = std::move(value);
  value_token_ = token;
  ++accepted_;
  out.accepted = true;
  out.highest_after = highest_;
  return out;
}

Result<FenceOutcome> FencedResource::fence(Token token) {
  if (token == 0) return Error{"fence needs a token (tokens start at 1)"};
  FenceOutcome out;
  out.highest_before = highest_;
  out.raised = token > highest_;
  highest_ = std::max(highest_, token);
  out.highest_after = highest_;
  return out;
}

}  // namespace vigil::fencing
