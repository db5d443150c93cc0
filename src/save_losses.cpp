// The rule for what an output cannot carry (format.hpp: LossError, LossLog): a save either
// carries everything, or refuses, naming every item, or (lossy) writes the rest and lists
// what it left out.
#include <fmt/format.h>

#include "dudley/core/text.hpp"
#include "dudley/format.hpp"

namespace dudley {
namespace {

// Items named in a report before the rest are counted (a container of a million records
// that all lose an attribute is one line a record).
constexpr size_t kItemsShown = 1000;

std::string summary(const std::string& format, size_t count) {
  return fmt::format(
      "{} {} of the source cannot be carried to {}; nothing was written (--lossy writes the "
      "rest and lists what it leaves out)",
      count, count == 1 ? "item" : "items", format);
}

// "PATH: attribute 'NAME': WHY; not read, left out" for each attribute its reader
// could not read, in tree order (children made on demand are not made: no format with
// unreadable attributes has them).
void unreadable_attributes(const model::Node& root, std::vector<std::string>& items) {
  std::vector<std::pair<const model::Node*, std::string>> todo{{&root, ""}};
  while (!todo.empty()) {
    auto [node, path] = std::move(todo.back());
    todo.pop_back();
    const std::string shown = path.empty() ? "/" : path;
    for (const auto& [name, error] : node->unreadable_attributes) {
      items.push_back(model::attribute_problem(shown, name, error) + "; not read, left out");
    }
    for (auto it = node->children.rbegin(); it != node->children.rend(); ++it)
      todo.emplace_back(it->get(), path + "/" + (*it)->name);
  }
}

}  // namespace

LossError::LossError(const std::string& format, const std::string& path,
                     std::vector<std::string> items)
    : Error(ErrorCategory::kLoss, summary(format, items.size()), Location::file(path)),
      items_(std::move(items)) {}

std::string LossError::report() const {
  std::string out = std::string(what()) + "\n";
  // One line an item: a name with a line end in it stays on its item's line.
  for (size_t i = 0; i < items_.size() && i < kItemsShown; ++i)
    out += "  " + escape_controls(items_[i]) + "\n";
  if (items_.size() > kItemsShown) {
    out += fmt::format("  ... and {} more\n", items_.size() - kItemsShown);
  }
  return out;
}

LossLog::LossLog(const model::Tree& tree, bool lossy, std::string format, std::string path)
    : items_(tree.skipped), lossy_(lossy), format_(std::move(format)), path_(std::move(path)) {
  if (tree.root) unreadable_attributes(*tree.root, items_);
}

void LossLog::check() const {
  if (!items_.empty() && !lossy_) throw LossError(format_, path_, items_);
}

std::string LossLog::unreadable(const std::string& path, const model::NodeError& error) {
  std::string why = error.message;
  if (why.starts_with(path + ": ")) why.erase(0, path.size() + 2);
  const Location& at = error.location;
  const bool placed = at.line > 0 || at.byte_offset.has_value();
  return placed ? fmt::format("{}: cannot be read: {}: {}; left out", path, at.to_string(), why)
                : fmt::format("{}: cannot be read: {}; left out", path, why);
}

}  // namespace dudley
