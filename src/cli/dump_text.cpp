// `dudley dump` as text: `PATH = VALUES` per array, or one row or value a line.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/dumper.hpp"
#include "cli/failure.hpp"
#include "cli/ls_json.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/path.hpp"

namespace dudley::cli {

// Text: `PATH = VALUES` per array (or the row/value line styles).
int dump_text(const model::Tree& tree, const std::vector<Request>& wanted,
              const DumpOptions& options, bool member, Output& out, TemplateRecorder* record) {
  Dumper dumper(tree, options, out);
  const std::string prefix = member ? options.data.data + " " : "";
  auto print = [&](const ArrayRef& ref) {
    if (ref.empty && ref.spec.suffix().empty()) {  // as h5py prints it
      out.write(fmt::format("{}{} = Empty({})\n", prefix, ref.label, ref.dtype.to_string()));
      return;
    }
    try {
      dumper.count_empty(ref);
    } catch (const Error& e) {
      dumper.report(e.what());
      return;
    }
    if (record) record->open_hole({MemberTemplate::HoleKind::kValues, ref, 0, 0, ref.label});
    (void)dumper.values(ref, prefix + ref.label);
    if (record) record->close_hole();
  };
  auto below = [&](const model::Node& node, const std::string& path) {
    return for_each_array(node, path == "/" ? "" : path,
                          [&](const std::string& p, const model::Node& array) {
                            if (array.is_listed_link()) {
                              dumper.note_listed_link(array, p);
                              return true;
                            }
                            print(ArrayRef::of(array, p));
                            return !dumper.exhausted();
                          });
  };
  for (const Request& r : wanted) {
    if (dumper.exhausted()) break;
    switch (r.kind) {
      case Request::Kind::kArray:
        print(ArrayRef::of(*r.node, r.path, r.spec));
        break;
      case Request::Kind::kValue:
        out.write(fmt::format("{}{} = {}\n", prefix, r.path, r.value_text));
        break;
      case Request::Kind::kParameter:
        if (r.parameter->value) {
          out.write(fmt::format("{}{} = {}\n", prefix, r.path, *r.parameter->value));
        } else {
          dumper.report(fmt::format("{}: {}", r.path, r.parameter->error.text()));
        }
        break;
      case Request::Kind::kBelow:
        if (!r.pick) {
          below(*r.node, r.path);
          break;
        }
        for (int64_t k = 0; k < r.pick->count && !dumper.exhausted(); ++k) {
          const auto index = static_cast<uint64_t>(r.pick->start + k * r.pick->step);
          const std::string path = fmt::format("{}/{}", r.path == "/" ? "" : r.path, index);
          const model::Node* item = tree.find(path);
          if (item) below(*item, path);
        }
        break;
    }
  }
  return dumper.status();
}

}  // namespace dudley::cli
