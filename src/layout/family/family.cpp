#include "dudley/layout/family/family.hpp"
#include "dudley/io/file_glob.hpp"

#include <glob.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/file_io.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/io/byte_source.hpp"
#include "dudley/io/read_rule.hpp"
#include "dudley/layout/bind/to_model.hpp"
#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "write/writer_support.hpp"

namespace dudley::layout {

namespace fs = std::filesystem;

namespace {

// Rows of NUL-padded text for an S1[rows, width] item.
NDArray text_rows(const std::vector<std::string>& rows, size_t width, const DType& unit) {
  NDArray a(unit, Shape({static_cast<int64_t>(rows.size()), static_cast<int64_t>(width)}));
  auto* p = static_cast<char*>(a.mutable_data());
  for (size_t i = 0; i < rows.size(); ++i) {
    std::copy(rows[i].begin(), rows[i].end(), p + i * width);  // NUL padded, not terminated
  }
  return a;
}

std::vector<std::string> read_rows(const model::Node& n) {
  NDArray a = n.data->read();
  std::vector<std::string> out;
  if (n.shape.size() != 2) return out;
  const auto width = static_cast<size_t>(n.shape[1]);
  const auto* p = static_cast<const char*>(a.data());
  for (int64_t i = 0; i < n.shape[0]; ++i) {
    std::string s(p + static_cast<size_t>(i) * width, width);
    s.erase(std::find(s.begin(), s.end(), '\0'), s.end());
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

FamilyWriter::FamilyWriter(const Layout& layout, std::string stem, FamilyOptions options)
    : layout_(layout), stem_(std::move(stem)), options_(std::move(options)) {
  options_.write.write_layout = false;  // one layout for the whole family
  options_.write.shared_layout = true;
  options_.write.params_absent = !options_.params_in_files;
  std::vector<std::string> seen;
  for (ParamId p = 0; p < layout_.params.size(); ++p) {
    const Param& param = layout_.params[p];
    if (param.group == kNone || param.kind != ParamKind::kDynamic) continue;
    const std::string path = param_path(layout_, p);
    if (std::find(seen.begin(), seen.end(), path) != seen.end()) {
      throw Error(
          ErrorCategory::kUsage,
          fmt::format("parameter {} is declared twice: a family index cannot hold it", path));
    }
    seen.push_back(path);
  }
  Writer check(layout_, stem_ + "_check.bin", options_.write);  // refuses what it cannot write
}

Writer& FamilyWriter::add() {
  files_.push_back(fmt::format("{}_{:04d}.bin", stem_, files_.size()));
  writers_.push_back(std::make_unique<Writer>(layout_, files_.back(), options_.write));
  return *writers_.back();
}

std::string FamilyWriter::finish() {
  const std::string layout_file = stem_ + ".dud";
  write_file_atomically(layout_file, emit_layout(layout_), options_.write.fsync);

  std::vector<std::string> paths;
  std::vector<ParamId> ids;
  for (ParamId p = 0; p < layout_.params.size(); ++p) {
    if (layout_.params[p].group == kNone || layout_.params[p].kind != ParamKind::kDynamic) continue;
    paths.push_back(param_path(layout_, p));
    ids.push_back(p);
  }
  std::vector<std::string> names;
  std::vector<int64_t> values;
  for (size_t i = 0; i < writers_.size(); ++i) {
    if (!writers_[i]->committed()) continue;  // a member that failed is not in the family
    names.push_back(fs::path(files_[i]).filename().string());
    for (ParamId p : ids) values.push_back(writers_[i]->param_values().at(p));
  }
  const std::string layout_name = fs::path(layout_file).filename().string();
  auto longest = [](const std::vector<std::string>& v) {
    size_t n = 0;
    for (const auto& s : v) n = std::max(n, s.size());
    return n;
  };
  const std::string text = fmt::format(
      "# The index of a Dudley file family: every member's parameters [C23].\n"
      "!DUDLEY := S1[8]\n"
      "NFILES := {}\nNPARAMS := {}\nLAYOUTLEN := {}\nNAMELEN := {}\nPATHLEN := {}\n"
      "layout = S1[LAYOUTLEN]  #! the family's layout, relative to this index\n"
      "in_files = u1  #! 1: each member holds its parameters too; 0: only this index does\n"
      "files = S1[NFILES, NAMELEN]  #! member data files, relative to this index\n"
      "param_paths = S1[NPARAMS, PATHLEN]  #! the family's parameters\n"
      "values = i8[NFILES, NPARAMS]  #! values[file][parameter]\n",
      names.size(), paths.size(), layout_name.size(), longest(names), longest(paths));
  const Layout index = parse_layout(text).layout;
  BindOptions planning;
  planning.default_order = options_.write.order;
  planning.signature_unread = true;
  Binding plan(index, io::zero_source(uint64_t{1} << 40), planning);
  const DType unit = plan.array(index.find("/layout")).dtype;
  WriteOptions write = options_.write;
  write.write_layout = true;
  write.params_absent = false;
  write.progress = nullptr;
  std::string index_file = stem_ + ".index.bin";
  Writer w(index, index_file, write);
  NDArray name(unit, Shape({static_cast<int64_t>(layout_name.size())}));
  std::memcpy(name.mutable_data(), layout_name.data(), layout_name.size());
  w.write("/layout", name);
  NDArray flag(DType::uint(1), Shape({}));
  *static_cast<uint8_t*>(flag.mutable_data()) = options_.params_in_files ? 1 : 0;
  w.write("/in_files", flag);
  w.write("/files", text_rows(names, longest(names), unit));
  w.write("/param_paths", text_rows(paths, longest(paths), unit));
  NDArray v(DType::int_(8),
            Shape({static_cast<int64_t>(names.size()), static_cast<int64_t>(paths.size())}));
  if (!values.empty()) std::memcpy(v.mutable_data(), values.data(), values.size() * 8);
  w.write("/values", v);
  w.commit();
  return index_file;
}

void FamilyIndex::resolve(const Layout& layout) {
  std::vector<std::vector<ParamId>> ids(param_paths.size());
  for (ParamId p = 0; p < layout.params.size(); ++p) {
    if (layout.params[p].group == kNone) continue;
    const auto at = std::find(param_paths.begin(), param_paths.end(), param_path(layout, p));
    if (at != param_paths.end()) ids[static_cast<size_t>(at - param_paths.begin())].push_back(p);
  }
  for (size_t k = 0; k < ids.size(); ++k) {
    if (ids[k].empty()) {
      throw Error(ErrorCategory::kData,
                  fmt::format("the family index names parameter {}, which its layout {} does "
                              "not declare",
                              param_paths[k], layout_path));
    }
  }
  param_ids = std::move(ids);
}

BindOptions FamilyIndex::bind_options(size_t i) const {
  BindOptions o;
  for (size_t k = 0; k < param_paths.size(); ++k) {
    const int64_t value = values.at(i).at(k);
    if (param_ids.empty()) {
      o.params[param_paths[k]] = value;
    } else {
      for (ParamId p : param_ids[k]) o.param_values[p] = value;
    }
  }
  o.params_absent = !params_in_files;
  return o;
}

bool is_family_index(const std::string& data_path) {
  const std::string layout_file = layout_path_for(data_path);
  if (fs::path(data_path).extension() == ".dud" || !fs::exists(layout_file)) return false;
  // A layout beside that leads outside the index's folder is not read here (open_with_layout
  // refuses it, naming it).
  if (io::ReadRule::for_file(data_path).check(layout_file).outside) return false;
  ParseResult r = parse_layout(read_text_file(layout_file));
  return r.ok() && r.layout.find("/files") != kNone && r.layout.find("/param_paths") != kNone &&
         r.layout.find("/values") != kNone && r.layout.find("/in_files") != kNone;
}

FamilyIndex read_family_index(const std::string& index_path,
                              const std::vector<std::string>& allow_outside) {
  model::Tree tree = open_with_layout(index_path, "", BindOptions{});
  // The index is a Dudley file like any other, so its layout may say anything: every item is
  // checked for the type and rank an index has before its bytes are used.
  auto need = [&](const char* path, DTypeKind kind, uint64_t element, size_t rank,
                  const char* expected) -> const model::Node& {
    const model::Node* n = tree.find(path);
    if (!n || n->kind != model::NodeKind::kArray || !n->error.empty()) {
      throw Error(ErrorCategory::kData, fmt::format("not a family index: no readable {}", path),
                  Location::file(index_path));
    }
    if (n->dtype.kind() != kind || n->dtype.size() != element || n->shape.size() != rank) {
      throw Error(ErrorCategory::kData,
                  fmt::format("not a family index: {} is {}{}, where an index has {}", path,
                              n->dtype.to_string(), Shape(n->shape).to_string(), expected),
                  Location::file(index_path));
    }
    return *n;
  };
  const fs::path dir = fs::path(index_path).parent_path();
  FamilyIndex index;
  const std::vector<std::string> files =
      read_rows(need("/files", DTypeKind::kText, 1, 2, "S1[files, width]"));
  NDArray layout_text = need("/layout", DTypeKind::kText, 1, 1, "S1[length]").data->read();
  // The index names files: each is read only where the rule for reading allows (its own
  // folder, or one given), judged where it really leads.
  const io::ReadRule rule = io::ReadRule::for_file(index_path, allow_outside);
  auto inside = [&](const std::string& stored, const char* what) {
    std::string path = (dir / stored).string();
    const io::ReadRule::Verdict verdict = rule.check(path);
    // Outside is refused whether or not it exists (a member named outside that is missing
    // now may be there when it is read).
    if (verdict.outside || (!verdict.ok && !verdict.missing)) {
      throw Error(ErrorCategory::kData,
                  fmt::format("the family index names the {} {}, which is not read: {} {}", what,
                              stored, path, verdict.why),
                  Location::file(index_path));
    }
    return path;  // a member that does not exist fails when it is read, named
  };
  index.layout_path = inside(
      std::string(static_cast<const char*>(layout_text.data()), layout_text.byte_size()), "layout");
  index.params_in_files =
      need("/in_files", DTypeKind::kUInt, 1, 0, "u1").data->read().get<uint8_t>({}) != 0;
  for (const auto& f : files) index.files.push_back(inside(f, "member"));
  index.param_paths = read_rows(need("/param_paths", DTypeKind::kText, 1, 2, "S1[params, width]"));
  const model::Node& values = need("/values", DTypeKind::kInt, 8, 2, "i8[files, params]");
  if (static_cast<uint64_t>(values.shape[0]) != index.files.size() ||
      static_cast<uint64_t>(values.shape[1]) != index.param_paths.size()) {
    throw Error(
        ErrorCategory::kData,
        fmt::format("not a family index: /values is {} for {} files and {} parameters",
                    Shape(values.shape).to_string(), index.files.size(), index.param_paths.size()),
        Location::file(index_path));
  }
  NDArray v = values.data->read();
  const auto* all = static_cast<const int64_t*>(v.data());
  for (size_t i = 0; i < index.files.size(); ++i) {
    const size_t width = index.param_paths.size();
    index.values.emplace_back(all + i * width, all + (i + 1) * width);
  }
  return index;
}

std::vector<std::string> family_members(const std::string& pattern) {
  return io::glob_files(pattern);
}

}  // namespace dudley::layout
