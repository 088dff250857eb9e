// Splitting a tensor's rows into balanced bands, and the Compute text that joins the bands' results.
#include "graph/passes/row_bands.h"

#include <algorithm>

namespace atl {

std::int64_t balanced_band_rows(std::int64_t rows, std::int64_t per_band) {
  const std::int64_t bands = band_count(rows, std::clamp<std::int64_t>(per_band, 1, std::max<std::int64_t>(rows, 1)));
  return band_count(rows, bands);
}

std::string join_row_bands(const std::string &y, const std::vector<std::string> &parts,
                           const std::vector<std::string> &indices, std::size_t axis,
                           const std::vector<std::int64_t> &shape, std::int64_t band) {
  std::string text;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::int64_t first = band * static_cast<std::int64_t>(k), count = std::min(shape[axis] - first, band);
    std::string lhs, rhs, ranges;
    for (std::size_t i = 0; i < indices.size(); ++i) {
      const std::string sep = i ? ", " : "";
      lhs += sep + (i == axis && first ? std::to_string(first) + " + " : "") + indices[i];
      rhs += sep + indices[i];
      ranges += sep + indices[i] + " in 0:" + std::to_string(i == axis ? count : shape[i]);
    }
    text += (text.empty() ? "" : "\n") + y + "(" + lhs + ") = " + parts[k] + "(" + rhs + ") where " + ranges;
  }
  return text;
}

}  // namespace atl
