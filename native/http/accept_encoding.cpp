#include "http/accept_encoding.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

namespace vigil::native {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool equals_lower(std::string_view s, std::string_view lower) {
  return s.size() == lower.size() &&
         std::equal(s.begin(), s.end(), lower.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), in thousandths.
std::optional<int> parse_qvalue(std::string_view v) {
  if (v.empty() || (v[0] != '0' && v[0] != '1')) return std::nullopt;
  const int whole = v[0] - '0';
  if (v.size() == 1) return whole * AcceptEncoding::kFull;
  if (v[1] != '.' || v.size() > 5) return std::nullopt;
  int thousandths = 0;
  int scale = 100;
  for (char c : v.substr(2)) {
    if (c < '0' || c > '9') return std::nullopt;
    thousandths += (c - '0') * scale;
    scale /= 10;
  }
  if (whole == 1 && thousandths != 0) return std::nullopt;
  return whole * AcceptEncoding::kFull + thousandths;
}

// The quality of one list element's parameters: q=1 unless a "q" parameter says otherwise.
std::optional<int> element_quality(std::string_view params) {
  int quality = AcceptEncoding::kFull;
  while (!params.empty()) {
    const std::size_t semi = params.find(';');
    const std::string_view param = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
    if (param.empty()) continue;
    const std::size_t eq = param.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    if (!equals_lower(trim(param.substr(0, eq)), "q"))
      continue;  // other parameters mean nothing here
    const auto q = parse_qvalue(trim(param.substr(eq + 1)));
    if (!q) return std::nullopt;
    quality = *q;
  }
  return quality;
}

void keep_lower(std::optional<int>& slot, int quality) {
  slot = slot ? std::min(*slot, quality) : quality;
}

}  // namespace

std::string_view coding_name(ContentCoding coding) {
  switch (coding) {
    case ContentCoding::gzip:
      return "gzip";
    case ContentCoding::br:
      return "br";
    case ContentCoding::identity:
      break;
  }
  return "identity";
}

AcceptEncoding AcceptEncoding::parse(std::string_view header) {
  AcceptEncoding accept;
  while (!header.empty()) {
    const std::size_t comma = header.find(',');
    const std::string_view element = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    const std::size_t semi = element.find(';');
    const std::string_view coding = trim(element.substr(0, semi));
    if (coding.empty()) continue;
    const auto quality = element_quality(semi == std::string_view::npos ? std::string_view{}
                                                                        : element.substr(semi + 1));
    if (!quality) continue;
    if (equals_lower(coding, "br"))
      keep_lower(accept.br_, *quality);
    else if (equals_lower(coding, "gzip") || equals_lower(coding, "x-gzip"))
      keep_lower(accept.gzip_, *quality);
    else if (equals_lower(coding, "identity"))
      keep_lower(accept.identity_, *quality);
    else if (coding == "*")
      keep_lower(accept.any_, *quality);
  }
  return accept;
}

int AcceptEncoding::quality(ContentCoding coding) const {
  const std::optional<int>& own = coding == ContentCoding::br     ? br_
                                  : coding == ContentCoding::gzip ? gzip_
                                                                  : identity_;
  if (own) return *own;
  if (any_) return *any_;
  return coding == ContentCoding::identity ? kImplicitIdentity : 0;
}

ContentCoding AcceptEncoding::choose(bool br_available, bool gzip_available) const {
  ContentCoding best = ContentCoding::identity;
  int best_quality = quality(best);
  // From least to most preferred, so that the later one wins a tie.
  const std::pair<ContentCoding, bool> candidates[] = {{ContentCoding::gzip, gzip_available},
                                                       {ContentCoding::br, br_available}};
  for (const auto& [coding, available] : candidates) {
    const int q = quality(coding);
    if (available && q > 0 && q >= best_quality) {
      best = coding;
      best_quality = q;
    }
  }
  return best;
}

}  // namespace vigil::native
