// Helpers of the public API tests: reproducible values in [-1, 1], a
// relative comparison of float buffers, and the message of a UserError.
#pragma once

#include <atoll/diagnostics.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace atl::api_test {

inline std::vector<float> filled(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (float &x : v) {
    seed = seed * 1103515245u + 12345u;
    x = static_cast<float>((seed >> 8) % 2001) / 1000.0f - 1.0f;
  }
  return v;
}

inline bool close(const std::vector<float> &a, const std::vector<float> &b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > 1e-5f * (1.0f + std::fabs(b[i]))) return false;
  return true;
}

/// The message of the UserError `body` throws ("" when it throws none).
template <class Body>
std::string error_of(Body &&body) {
  try {
    body();
  } catch (const UserError &e) {
    return e.what();
  }
  return "";
}

inline bool has(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

}  // namespace atl::api_test
