// Deterministic generator of a large realistic layout and of the same content as YAML and
// JSON, so the parsers can be compared on equal information.
#pragma once

#include <string>

namespace dudley::bench {

struct GeneratedDescription {
  std::string dudley;
  std::string yaml;
  std::string json;
  size_t declarations = 0;  ///< parameters + types + groups + arrays in the Dudley text
};

/// About `declarations` declarations: 100 parameters, 100 struct types, groups of 100 arrays
/// with parameter shapes (some with suffixes) and document comments on most lines.
GeneratedDescription generate_description(size_t declarations);

/// `arrays` arrays without docs or parameters, 100 to a group: `gNNN /`,
/// `  dNNNNN = <f8[3, 4] @ 4096`, `..` (the shape of a large machine-written layout: most of
/// its bytes are names, types and numbers). YAML and JSON hold the same content.
GeneratedDescription generate_plain(size_t arrays);

}  // namespace dudley::bench
