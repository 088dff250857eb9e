// Splitting a tensor's rows into balanced bands, and the Compute text that joins the bands' results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace atl {

/// Rows a band when `rows` rows are split into bands of at most `per_band`
/// (at least 1) rows, as evenly as the band count allows: 56 rows at most
/// 32 a band give 2 bands of 28, not 32 + 24.
std::int64_t balanced_band_rows(std::int64_t rows, std::int64_t per_band);

/// Bands of `band` rows that `rows` rows make (the last one may be shorter).
inline std::int64_t band_count(std::int64_t rows, std::int64_t band) { return (rows + band - 1) / band; }

/// The Compute text that copies the bands `parts` (band k holds rows
/// [k * band, min((k + 1) * band, shape[axis])) of `y` along `axis`) into
/// `y` of `shape`, one statement per band; `indices` names y's indices
/// (index `axis` is the row).
///
///   y(n_, c_, 28 + h_, w_) = part1(n_, c_, h_, w_) where n_ in 0:1, c_ in 0:24, h_ in 0:28, w_ in 0:56
std::string join_row_bands(const std::string &y, const std::vector<std::string> &parts,
                           const std::vector<std::string> &indices, std::size_t axis,
                           const std::vector<std::int64_t> &shape, std::int64_t band);

}  // namespace atl
