// The format-neutral model every format module maps to and every feature works on: a tree
// of groups (named members in order), lists (anonymous items) and arrays (dtype, shape and a
// data source that reads on demand).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dudley/core/dtype.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/core/ndarray.hpp"

namespace dudley::model {

/// Reads one array's data when asked; implemented by each format module.
class ArraySource {
 public:
  virtual ~ArraySource() = default;
  /// The whole array in native byte order.
  virtual NDArray read() = 0;
  /// A selection in native byte order, shaped by the slab's counts.
  virtual NDArray read(const Hyperslab& slab) = 0;
};

/// A named integer that shapes arrays (Dudley parameters, netCDF dimensions).
struct Parameter {
  std::string name;
  std::optional<int64_t> value;     ///< empty when it could not be read (see error)
  std::optional<DType> dtype;       ///< stored type; empty for values not stored in the file
  std::optional<uint64_t> address;  ///< where it is stored
  std::string doc;
  std::string error;  ///< why the value could not be read
};

enum class NodeKind { kGroup, kList, kArray };

struct Node {
  NodeKind kind = NodeKind::kGroup;
  std::string name;  ///< "" for list items
  std::string doc;

  // Groups: members in declaration order, and parameters. Lists: items.
  std::vector<std::unique_ptr<Node>> children;
  std::vector<Parameter> params;

  // Arrays.
  DType dtype;
  std::vector<int64_t> shape;
  std::optional<uint64_t> address;
  std::shared_ptr<ArraySource> data;
  /// Set when the array could not be resolved (out of the file, unknown order...): the
  /// rest of the tree is still listed, and tools report this with the item's path.
  std::string error;

  /// The member named `name` of a group (nullptr when none).
  const Node* member(std::string_view name) const;
};

/// A whole file (or family member) as a tree.
struct Tree {
  std::string format;  ///< "dudley", ...
  std::unique_ptr<Node> root;
  /// Targets of pointers by key (Dudley pointees [C19]); empty for formats without them.
  std::map<uint64_t, std::unique_ptr<Node>> pointees;

  /// The node at "/g/x" (list items by index, "/L/2"); nullptr when there is none.
  const Node* find(std::string_view path) const;
};

}  // namespace dudley::model
