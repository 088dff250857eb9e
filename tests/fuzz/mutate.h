// Random edits of text for the mutational fuzz tests: deletions, insertions
// of tokens, replaced characters and duplicated spans, from a fixed seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace atl::fuzz {

/// xorshift64: the same sequence on every platform.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

/// `s` with one to four random edits; insertions draw from `tokens`.
inline std::string mutate(std::string s, Rng &rng, const std::vector<std::string> &tokens) {
  int edits = 1 + static_cast<int>(rng.below(4));
  for (int e = 0; e < edits && !s.empty(); ++e) {
    std::size_t pos = rng.below(s.size());
    switch (rng.below(4)) {
    case 0: s.erase(pos, 1 + rng.below(8)); break;
    case 1: s.insert(pos, tokens[rng.below(tokens.size())]); break;
    case 2: s[pos] = static_cast<char>(rng.below(95) + 32); break;
    case 3: {
      std::size_t from = rng.below(s.size()), len = rng.below(24);
      s.insert(pos, s.substr(from, len));
      break;
    }
    }
  }
  return s;
}

}  // namespace atl::fuzz
