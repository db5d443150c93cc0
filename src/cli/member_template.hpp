// A family member's dump as a template: what one member printed, cut where the member's
// name and values go. Members read through one Dudley layout print the same tree around
// their values as long as their arrays sit at the same addresses with the same shapes, so
// each member after the first need only open its file and print its values; the tree, its
// JSON and the request matching are done once per family instead of once per member.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/dump_items.hpp"
#include "cli/value_text.hpp"

namespace dudley::cli {

/// One member's output with holes where another member's own text goes.
struct MemberTemplate {
  enum class HoleKind {
    kFile,    ///< the member's file name as a JSON string
    kValues,  ///< an array's values, as dump prints them
  };
  struct Hole {
    HoleKind kind = HoleKind::kFile;
    /// kValues: the array as the recorded member had it (its data source dropped), with
    /// its storage: another member fits the hole when its array matches all of it.
    ArrayRef array;
    uint64_t offset = 0;
    uint64_t size = 0;
    std::string label;  ///< the label dump printed the values under, less a member prefix
  };
  std::vector<std::string> texts;  ///< texts[i] comes before holes[i]; one more than holes
  std::vector<Hole> holes;
};

/// Records a template from what a member's dump writes to `out`, between construction and
/// finish(). Nothing is copied until finish(); the output is not changed.
class TemplateRecorder {
 public:
  explicit TemplateRecorder(const Output& out) : out_(out), start_(out.written()) {}

  /// The hole `hole` starts here (before its text is written).
  void open_hole(MemberTemplate::Hole hole);
  /// The hole opened last ends here.
  void close_hole();
  /// The member's output cannot serve as a template (a value it printed is not the same
  /// for every member).
  void refuse() { refused_ = true; }

  /// The template, or nullopt when refused or when part of the output was already flushed.
  std::optional<MemberTemplate> finish() const;

 private:
  const Output& out_;
  uint64_t start_;
  bool refused_ = false;
  std::vector<MemberTemplate::Hole> holes_;
  std::vector<std::pair<uint64_t, uint64_t>> spans_;  ///< each hole's [begin, end) mark
};

}  // namespace dudley::cli
