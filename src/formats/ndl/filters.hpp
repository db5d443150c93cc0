// NDL `storage: filter` lists to and from the codec chains of the model (Chunking::codecs,
// [{name, configuration}]), with the codec layer's names: NDL `deflate` is zlib's stream.
#pragma once

#include <string>

#include "datatype.hpp"
#include "dudley/model/value.hpp"

namespace dudley::ndl {

/// The codec list an NDL filter list (names or single-key mappings of a name to its
/// parameters) states. Throws Error(kSemantic) at the node for anything else.
model::Value codecs_from_filters(const YamlNode& node, const std::string& path,
                                 yaml::ExpansionBudget& budget);

/// The NDL filter list (flow style, write order) of a codec list, e.g.
/// "[shuffle, {deflate: {level: 4}}]"; "" for no codecs.
std::string filters_text(const model::Value& codecs);

}  // namespace dudley::ndl
