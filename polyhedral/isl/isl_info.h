// Versions of the isl and PPL libraries linked into this process.
#pragma once

#include <string>

namespace atl::poly {

/// isl_version() of the isl this process calls (Debian's reports "isl-0.25-GMP").
std::string isl_version_string();
/// True when isl can read `text` as a schedule tree in its YAML notation.
bool isl_reads_schedule(const std::string &text);

/// PPL's version string.
std::string ppl_version_string();

}  // namespace atl::poly
