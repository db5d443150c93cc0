// What the ASDF reader shares with the writer and the registration: the names the tree
// gives its own bookkeeping, and the signature test.
#pragma once

#include <cstddef>
#include <span>

#include "dudley/formats/asdf.hpp"

namespace dudley::asdf {

/// Attribute that keeps the YAML tag of a tagged mapping that became a group (a custom
/// object holding arrays), so a writer can put it back.
inline constexpr const char* kTagAttribute = "asdf_tag";
/// Suffix of the sibling array that holds an array's mask ("x" -> "x_mask").
inline constexpr const char* kMaskSuffix = "_mask";

/// Whether `head` (the first bytes of a file) starts with the ASDF signature "#ASDF ".
bool has_asdf_signature(std::span<const std::byte> head);

}  // namespace dudley::asdf
