#include "dudley/layout/family/family_reader.hpp"

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/layout/bind/reader.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {

uint64_t FamilyItem::row_bytes(const Hyperslab& slab) const {
  const std::optional<uint64_t> bytes = Shape(slab.result_shape()).byte_size(dtype.size());
  if (!bytes) throw Error(ErrorCategory::kLimit, "a family row of more than 2^64 bytes");
  return *bytes;
}

FamilyReader::FamilyReader(std::shared_ptr<const Layout> layout,
                           std::vector<FamilyMemberFile> members)
    : layout_(std::move(layout)), members_(std::move(members)) {
  if (members_.empty()) throw Error(ErrorCategory::kUsage, "a family needs at least one member");
  const bool absent = members_.front().bind.params_absent;
  for (const FamilyMemberFile& m : members_) {
    if (m.bind.params_absent != absent) {
      throw Error(
          ErrorCategory::kUsage,
          fmt::format("{}: its parameters are {} the file, those of {} are not: one "
                      "family reads its members alike",
                      m.path, m.bind.params_absent ? "absent from" : "in", members_.front().path));
    }
  }
  plan_ = std::make_unique<BindPlan>(*layout_, absent);
}

FamilyReader FamilyReader::from_index(const std::string& index_path) {
  FamilyIndex index = read_family_index(index_path);
  auto layout = std::make_shared<const Layout>(load_layout(index.layout_path));
  index.resolve(*layout);
  std::vector<FamilyMemberFile> members;
  members.reserve(index.files.size());
  for (size_t i = 0; i < index.files.size(); ++i) {
    members.push_back({index.files[i], index.bind_options(i)});
  }
  return FamilyReader(std::move(layout), std::move(members));
}

std::vector<FamilyMemberFile> FamilyReader::members_of(const std::vector<std::string>& files,
                                                       const BindOptions& bind) {
  std::vector<FamilyMemberFile> members;
  members.reserve(files.size());
  for (const std::string& f : files) members.push_back({f, bind});
  return members;
}

BoundMember FamilyReader::bind(size_t i) const {
  const FamilyMemberFile& m = members_.at(i);
  BoundMember bound;
  bound.source = io::open_file(m.path);
  bound.binding = std::make_unique<Binding>(*plan_, bound.source, m.bind);
  // A signature says the member's byte order: read now, so a damaged one names this file.
  if (layout_->signature) (void)bound.binding->default_order();
  return bound;
}

NDArray FamilyReader::read(size_t i, NodeId item) const {
  BoundMember m = bind(i);
  return read_array(*m.binding, item);
}

std::optional<FamilyItem> FamilyReader::item(NodeId item) const {
  if (item >= layout_->nodes.size() || layout_->nodes[item].kind != NodeKind::kData) {
    return std::nullopt;
  }
  BoundMember first = bind(0);
  if (first.binding->has_varying_instances(item)) return std::nullopt;
  BoundArray a = first.binding->array(item);
  return FamilyItem{std::move(a.dtype), std::move(a.shape)};
}

std::optional<size_t> FamilyReader::read_rows(NodeId item, const FamilyItem& expected,
                                              const Hyperslab& slab, void* out) const {
  slab.check_fits(expected.shape);
  const uint64_t row = expected.row_bytes(slab);
  auto* bytes = static_cast<unsigned char*>(out);
  for (size_t i = 0; i < members_.size(); ++i) {
    BoundMember m = bind(i);
    // locate(): the read itself says when a member is too short, naming it; the file's
    // length is never asked for.
    const BoundArray at = m.binding->locate(item);
    if (at.shape != expected.shape || at.dtype != expected.dtype) return i;
    try {
      read_bound_into(*m.source, at, slab, bytes + i * row);
    } catch (const Error& e) {
      throw Error(e.category(), fmt::format("data item {}: {}", layout_->path(item), e.message()),
                  e.location());
    }
  }
  return std::nullopt;
}

}  // namespace dudley::layout
