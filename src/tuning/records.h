// The tuning records inside the library: JSON lines to and from TuneRecord,
// appending one measurement atomically, and the best point per key that
// `--records` applies (see <atoll/tune.h>, docs/tuning.md).
#pragma once

#include <atoll/tune.h>

#include "polyhedral/pipeline/poly_options.h"

#include <memory>
#include <string>
#include <vector>

namespace atl::tuning {

/// A record as one JSON line (no newline).
std::string record_line(const TuneRecord &r);
/// The record of one line; throws UserError (`where` names the file and line).
TuneRecord parse_record(const std::string &line, const std::string &where);
/// Appends one line to `path` with a single write (O_APPEND), so that
/// several tuners may share a file.
void append_record(const std::string &path, const TuneRecord &r);

/// The key of a point in the records: key, target, machine and the point.
std::string point_id(const TuneRecord &r);

/// The best point of each key among `records` for `target` on `machine`: the
/// highest ratio of an `ok` record verified against the reference, when above
/// 1.01 (the default is the floor: a point that did not beat it is not
/// applied). Null when there is none.
std::shared_ptr<const poly::TuningTable> best_points(const std::vector<TuneRecord> &records,
                                                    const std::string &target, const std::string &machine);
/// The same for a records file (read once).
std::shared_ptr<const poly::TuningTable> best_points_of_file(const std::string &path, const std::string &target);

/// The best points of a records file for a compile's target: null without
/// a file or for a target the records do not tune (only the CPU targets:
/// `cpu-c` takes the JIT's records, which run the same loop nests).
std::shared_ptr<const poly::TuningTable> tuning_for_target(const std::string &records, const std::string &target);

/// A table of one point, for its key only (not for other shapes of its
/// family): a candidate of the tuner.
std::shared_ptr<const poly::TuningTable> point_table(const std::string &key, const poly::KnobValues &point);

/// UTC now as ISO 8601.
std::string utc_now();

}  // namespace atl::tuning
