// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <vigil/base/result.hpp>
#include <vigil/fencing/lease_issuer.hpp>

namespace vigil::fencing {

// What the resource does with the tokens that come with writes.
enum class Checking {
  fenced,    // a write whose token is below the highest seen is rejected
  unfenced,  // tokens are recorded but never checked: the baseline that loses updates
};

// The outcome of one write (a rejection is an outcome, not an error).
struct WriteOutcome {
  bool accepted = false;
  Token token = 0;           // the write's token
  Token highest_before = 0;  // the highest token the resource had seen before the write
  Token highest_after = 0;
  std::string reason;  // why it was rejected; empty when accepted
};

// The outcome of fence(): whether the highest token went up.
struct FenceOutcome {
  bool raised = false;
  Token highest_before = 0;
  Token highest_after = 0;
};

// A storage service protected by fencing tokens: it keeps the highest token it has seen and a
// value, and compares and writes in one call, so no other request can come between the check and
// the write (in a real store: one transaction, or one conditional write). The rules:
//
//   - token <  highest seen: rejected, nothing changes;
//   - token >= highest seen: accepted, the value is written and highest = token, so the holder
//     of the current lease may write again and again with the same token.
//
// It learns tokens only from the requests that reach it. A token the issuer has granted but
// whose holder has not written yet fences nothing: after 42 is issued, a write with 41 is still
// accepted until a write with 42 (or a fence(42)) arrives. To reject every old write right after
// a hand-over, the resource has to take part in it: the issuer's path calls fence(new token).
//
// Not covered here, and still needed in a real system: tokens must come from the issuer (a
// client must not be able to name a huge token itself), the highest token must be stored as
// durably as the value, and retries within one token need request ids to be deduplicated, since
// fencing rejects old generations, not repeats.
class FencedResource {
 public:
  explicit FencedResource(Checking checking = Checking::fenced) : checking_(checking) {}

  // Compare and write, atomically. Error only for token 0 (a write without a token).
  Result<WriteOutcome> write(Token token, std::string value);

  // The resource's part in a hand-over: raises the highest token seen to `token` without writing
  // (nothing changes if it is not higher). Error for token 0.
  Result<FenceOutcome> fence(Token token);

  Checking checking() const { return checking_; }
  Token highest() const { return highest_; }
  // The stored value and the token of the write that stored it; nullopt / 0 before any write.
  const std::optional<std::string>& value() const { return value_; }
  Token value_token() const { return value_token_; }
  std::uint64_t accepted() const { return accepted_; }
  std::uint64_t rejected() const { return rejected_; }

 private:
  Checking checking_;
  Token highest_ = 0;
  std::optional<std::string> value_;
  Token value_token_ = 0;
  std::uint64_t accepted_ = 0;
  std::uint64_t rejected_ = 0;
};

}  // namespace vigil::fencing
