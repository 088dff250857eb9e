// Text as keys: a 64-bit FNV-1a hash printed as 16 hex digits, and the
// identifiers of a text renamed, which canonical forms are made with (a
// cluster's shape in src/pipeline/same_clusters.cpp, a SCoP's tuning key in
// polyhedral/pipeline/knobs.cpp). Header only: every layer may use it.
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace atl {

/// FNV-1a (64 bits) of `text`, as 16 lowercase hex digits.
inline std::string fnv1a_hex(std::string_view text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

/// `text` with each identifier token (a letter or '_', then letters, digits
/// and '_') replaced by `rename(token)`. Numbers are one token and are kept
/// (a digit, then letters, digits, '.' or an exponent's sign), so "1e-05"
/// keeps its "e".
template <typename F>
std::string map_identifiers(const std::string &text, F rename) {
  auto start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (start(c)) {
      std::size_t j = i;
      while (j < text.size() && part(text[j])) ++j;
      out += rename(text.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < text.size() && (part(text[j]) || text[j] == '.' ||
                                 ((text[j] == '-' || text[j] == '+') && (text[j - 1] == 'e' || text[j - 1] == 'E'))))
        ++j;
      out.append(text, i, j - i);
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace atl
