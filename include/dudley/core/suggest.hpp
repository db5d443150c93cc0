// "Did you mean" for names a user typed: the closest known name by edit distance.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dudley {

/// Edit distance between `a` and `b` (insertions, deletions, substitutions and swaps of
/// neighbouring characters: optimal string alignment),
/// counting at most `limit` + 1: anything farther reports limit + 1. Costs
/// O(|a| * (2 * limit + 1)) time.
size_t edit_distance(std::string_view a, std::string_view b, size_t limit);

/// The candidate closest to `wanted` when it is close enough to be a likely typo (at most a
/// third of the name's length in edits, at least one edit allowed; a different case alone
/// counts as close); "" when none is. Ties go to the first candidate.
std::string nearest_name(std::string_view wanted, const std::vector<std::string>& candidates);

/// " (did you mean 'x'?)" for nearest_name's answer, "" when there is none.
std::string did_you_mean(std::string_view wanted, const std::vector<std::string>& candidates);

}  // namespace dudley
