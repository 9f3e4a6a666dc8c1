#pragma once

#include <optional>
#include <string_view>

namespace vigil::native {

// The content codings the static files can be sent in: a precompressed sibling of the file
// (`<file>.br`, `<file>.gz`) or the file itself.
enum class ContentCoding { identity, gzip, br };

// The token used in Content-Encoding ("identity" is never sent as a header).
std::string_view coding_name(ContentCoding coding);

// A client's Accept-Encoding (RFC 9110, section 12.5.3) reduced to the codings we can send.
// Qualities are in thousandths (q=0.5 is 500); q=0 refuses a coding. A missing or empty header
// asks for identity: browsers always send one, and other clients may not decompress.
class AcceptEncoding {
 public:
  static constexpr int kFull = 1000;
  // Identity not named (and no "*"): still acceptable, but below any coding the client named.
  static constexpr int kImplicitIdentity = 1;

  // Malformed entries (a bad q-value) are skipped; unknown codings are ignored. A coding named
  // twice keeps its lower quality, so that a refusal is never overridden.
  static AcceptEncoding parse(std::string_view header);

  // The client's quality for `coding`: its own entry, else that of "*", else 0 (identity:
  // kImplicitIdentity).
  int quality(ContentCoding coding) const;

  // The coding to send, given which precompressed siblings are available (identity always is):
  // the highest quality, ties going to the smaller output (br, then gzip). Identity is also the
  // answer when the client refused it and nothing else fits: an uncompressed answer serves it
  // better than none, as RFC 9110 permits.
  ContentCoding choose(bool br_available, bool gzip_available) const;

 private:
  std::optional<int> identity_, gzip_, br_, any_;
};

}  // namespace vigil::native
