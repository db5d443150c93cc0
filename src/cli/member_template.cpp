#include "cli/member_template.hpp"

#include <utility>

namespace dudley::cli {

void TemplateRecorder::open_hole(MemberTemplate::Hole hole) {
  hole.array.data.reset();  // the recorded member's file is not kept open by its template
  holes_.push_back(std::move(hole));
  spans_.emplace_back(out_.written(), out_.written());
}

void TemplateRecorder::close_hole() {
  if (spans_.empty()) {
    refused_ = true;
    return;
  }
  spans_.back().second = out_.written();
}

std::optional<MemberTemplate> TemplateRecorder::finish() const {
  if (refused_) return std::nullopt;
  const std::optional<std::string_view> text = out_.since(start_);
  if (!text) return std::nullopt;
  MemberTemplate t;
  uint64_t at = start_;
  for (size_t i = 0; i < holes_.size(); ++i) {
    const auto [begin, end] = spans_[i];
    if (begin < at || end < begin) return std::nullopt;
    t.texts.emplace_back(text->substr(at - start_, begin - at));
    at = end;
  }
  t.texts.emplace_back(text->substr(at - start_));
  t.holes = holes_;
  return t;
}

}  // namespace dudley::cli
