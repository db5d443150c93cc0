// `dudley dump --family`: every member of a family printed as `dump MEMBER` prints it. Through
// one Dudley layout the members print alike around their values: the first is recorded as a
// template and later members fill it, bound directly through a layout::FamilyReader.
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "cli/dumper.hpp"
#include "cli/failure.hpp"
#include "dudley/core/byte_swap.hpp"
#include "dudley/core/error.hpp"
#include "dudley/formats/dudley.hpp"
#include "dudley/layout/family/family_reader.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "dudley/model/contiguous_source.hpp"

namespace dudley::cli {

namespace {

// The array of `hole` in a member's tree, when the tree prints the same around it as the
// recorded member's did: a contiguous array, unmasked, and no parameter (read from each
// file) on the groups leading to it. nullptr otherwise.
const model::Node* printed_alike(const model::Tree& tree, const MemberTemplate::Hole& hole) {
  const std::string& path = hole.array.spec.path;
  for (size_t slash = 0; slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const model::Node* group = tree.find(slash == 0 ? "/" : path.substr(0, slash));
    if (group == nullptr || !group->params.empty()) return nullptr;
  }
  const model::Node* node = tree.find(path);
  if (node == nullptr || node->kind != model::NodeKind::kArray || !node->error.empty() ||
      !node->data || node->storage.mask ||
      node->storage.kind != model::Storage::Kind::kContiguous || !node->storage.offset ||
      node->dtype != hole.array.dtype || node->shape != hole.array.shape) {
    return nullptr;
  }
  return node;
}

// Whether a member's tree fits `hole`: printed alike, its bytes where the recorded member's
// were.
bool fits(const model::Tree& tree, const MemberTemplate::Hole& hole) {
  const model::Node* node = printed_alike(tree, hole);
  return node != nullptr && *node->storage.offset == hole.offset && node->storage.size == hole.size;
}

// A family's layout bound directly, for the members the template prints: the layout parsed
// and planned once, each member bound without building its tree (what the tree would
// print around the values is in the template). Only for a layout given by --layout alone:
// the options then are the same for every member.
struct DirectBinding {
  std::unique_ptr<layout::FamilyReader> family;  ///< every member, bound alike
  std::vector<layout::NodeId> nodes;   ///< the layout's item for each hole (kNone: the file)
  layout::MemberBatchPlan batch_plan;  ///< members are bound in batches, their items read ahead
  /// For each hole: the value writer's options when its values print plainly (below);
  /// nullopt when they go through a Dumper.
  std::vector<std::optional<ValueWriter::Options>> plain;
  std::vector<std::byte> scratch;  ///< a plain hole's bytes, reused member after member
};

// The most bytes a plain hole holds: the Dumper too reads an array this size in one piece.
constexpr uint64_t kPlainHoleBytes = uint64_t{1} << 20;

// Options for values of `hole` that print without a Dumper, member after member: a whole
// array of numbers, unmasked, read in one piece, printed one array a line (or in JSON) with
// all its values. What the Dumper adds around such values (a selection's indexes, masks,
// limits, pointer targets, notes of truncation) cannot occur; the second member's check
// (printed by the template and the long way, compared) covers this path too.
std::optional<ValueWriter::Options> plain_options(const MemberTemplate::Hole& hole,
                                                  const DumpOptions& options) {
  const ArrayRef& a = hole.array;
  const DTypeKind kind = a.dtype.kind();
  const bool number = kind == DTypeKind::kInt || kind == DTypeKind::kUInt ||
                      kind == DTypeKind::kFloat || kind == DTypeKind::kBool;
  if (hole.kind != MemberTemplate::HoleKind::kValues || !number || options.deref ||
      options.max_values != 0 || line_style(options.lines) != LineStyle::kArray ||
      !a.spec.selection.empty() || !a.spec.fields.empty() || a.mask || !a.error.empty() ||
      hole.size == 0 || hole.size > kPlainHoleBytes) {
    return std::nullopt;
  }
  ValueWriter::Options o;
  o.json = options.data.json;
  o.lines = LineStyle::kArray;
  for (size_t d = 0; d < a.shape.size(); ++d) o.fixed.push_back(-1);
  return o;
}

std::optional<DirectBinding> direct_binding(const MemberTemplate& t,
                                            const std::vector<DataOptions>& members) {
  DirectBinding d;
  d.family = layout_family(members);
  if (!d.family) return std::nullopt;
  for (const MemberTemplate::Hole& hole : t.holes) {
    layout::NodeId id = layout::kNone;
    if (hole.kind == MemberTemplate::HoleKind::kValues) {
      id = d.family->layout().find(hole.array.spec.path);
      if (id == layout::kNone) return std::nullopt;
    }
    d.nodes.push_back(id);
  }
  std::vector<layout::NodeId> items;
  for (layout::NodeId id : d.nodes) {
    if (id != layout::kNone) items.push_back(id);
  }
  d.batch_plan = d.family->batch_plan(std::move(items));
  return d;
}

// Prints the values of plain `hole` of a member bound directly into `out` as the Dumper
// would: the label (text), the values, the line's end. False when the member's array is
// not where the template's was, or not of its type and shape.
bool print_plain_hole(DirectBinding& d, size_t i, const MemberTemplate::Hole& hole,
                      layout::BoundMember& member, const std::string& path, Output& out) {
  const layout::BoundArray a = member.binding->locate(d.nodes[i]);
  if (a.address != hole.offset || a.byte_size != hole.size || a.dtype != hole.array.dtype ||
      a.shape != hole.array.shape) {
    return false;
  }
  d.scratch.resize(hole.size);
  member.source->read(a.address, hole.size, d.scratch.data(), hole.array.spec.path);
  const uint64_t count = hole.size / a.dtype.size();
  swap_elements(d.scratch.data(), count, a.dtype);
  const ValueWriter::Options& o = *d.plain[i];
  if (!o.json) {
    out.write(path);
    out.write(" ");
    out.write(hole.label);
    out.write(" = ");
  }
  ValueWriter w(out, Dumper::native(a.dtype), a.shape, o);
  w.add(d.scratch.data(), count);
  w.finish();
  if (!o.json) out.write("\n");
  return true;
}

// The array of `hole` in a member bound directly, when it lies where the template's did
// with the same type and shape. Located without asking the file's length: a file too short
// for it fails the read, and the member is then printed the long way, which says so.
std::optional<ArrayRef> bound_hole(layout::BoundMember& member, layout::NodeId node,
                                   const MemberTemplate::Hole& hole) {
  const layout::BoundArray a = member.binding->locate(node);
  if (a.address != hole.offset || a.byte_size != hole.size || a.dtype != hole.array.dtype ||
      a.shape != hole.array.shape) {
    return std::nullopt;
  }
  ArrayRef ref = hole.array;
  ref.data = model::contiguous_source(member.source, a.address, a.dtype, a.shape);
  return ref;
}

// A member printed by its family's template: its file opened, each hole filled with its
// own name or values. The member's text when the whole member printed without a problem
// and fits the template; nothing otherwise, for the member to be printed the long way.
// `path`: the member's file (options.data.data, the long way); `prebound`: the member
// already bound in a batch (with `direct`).
std::optional<std::string> dump_by_template(const MemberTemplate& t, const DumpOptions& options,
                                            const std::string& path, size_t member,
                                            DirectBinding* direct = nullptr,
                                            layout::BoundMember* prebound = nullptr) {
  try {
    // Bound directly, or through the member's tree.
    model::Tree tree;
    layout::BoundMember bound_here;
    layout::BoundMember& bound_member = prebound ? *prebound : bound_here;
    if (direct && !prebound) {
      bound_member = direct->family->bind(member);
    } else if (!direct) {
      tree = open_data(options.data);
    }
    Output aside;
    Dumper dumper(tree, options, aside, /*trial=*/true);
    for (size_t i = 0; i < t.holes.size(); ++i) {
      aside.write(t.texts[i]);
      const MemberTemplate::Hole& hole = t.holes[i];
      if (hole.kind == MemberTemplate::HoleKind::kFile) {
        write_json_at(aside, json(path), -1, 1);
        continue;
      }
      if (direct && direct->plain[i]) {
        if (!print_plain_hole(*direct, i, hole, bound_member, path, aside)) return std::nullopt;
        continue;
      }
      std::optional<ArrayRef> bound;
      if (direct) {
        bound = bound_hole(bound_member, direct->nodes[i], hole);
      } else if (fits(tree, hole)) {
        bound =
            ArrayRef::of(*tree.find(hole.array.spec.path), hole.array.spec.path, hole.array.spec);
      }
      if (!bound) return std::nullopt;
      ArrayRef& ref = *bound;
      dumper.count_empty(ref);
      const std::string label = options.data.json ? hole.label : path + " " + hole.label;
      if (!dumper.values(ref, label).empty()) return std::nullopt;
    }
    aside.write(t.texts.back());
    if (dumper.status() != kExitOk) return std::nullopt;
    return std::string(*aside.since(0));
  } catch (const TrialFailed&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Batches of members bound on a thread of their own, at most two ahead of the printing:
// the kernel's opens and reads of the next batch overlap the text of this one (printing a
// member costs about half what opening and reading it does).
class BatchesAhead {
 public:
  struct Batch {
    size_t first = 0;
    std::vector<layout::BatchMember> members;
  };

  BatchesAhead(const layout::FamilyReader& family, const layout::MemberBatchPlan& plan,
               size_t first, size_t end)
      : family_(family), plan_(plan), first_(first), end_(end), thread_([this] { run(); }) {}

  ~BatchesAhead() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  BatchesAhead(const BatchesAhead&) = delete;
  BatchesAhead& operator=(const BatchesAhead&) = delete;

  /// The next batch in member order; nullopt after the last. Rethrows what binding threw.
  std::optional<Batch> next() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !ready_.empty() || finished_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return std::nullopt;
    }
    Batch b = std::move(ready_.front());
    ready_.pop_front();
    changed_.notify_all();
    return b;
  }

  static constexpr size_t kBatch = 64;

 private:
  static constexpr size_t kAhead = 2;

  void run() {
    try {
      const std::unique_ptr<io::BatchIo> io = io::BatchIo::make(kBatch);
      for (size_t at = first_; at < end_;) {
        const size_t count = std::min(kBatch, end_ - at);
        Batch b{at, family_.bind_batch(plan_, at, count, *io)};
        at += count;
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return ready_.size() < kAhead || stop_; });
        if (stop_) break;
        ready_.push_back(std::move(b));
        changed_.notify_all();
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    const std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    changed_.notify_all();
  }

  const layout::FamilyReader& family_;
  const layout::MemberBatchPlan& plan_;
  const size_t first_, end_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> ready_;
  bool stop_ = false, finished_ = false;
  std::exception_ptr error_;
  std::thread thread_;  ///< last: started once the members above are made
};

}  // namespace

std::unique_ptr<layout::FamilyReader> layout_family(const std::vector<DataOptions>& members) {
  const DataOptions& data = members.front();
  if (data.given.size() != 1 || data.given.count("--layout") == 0 ||
      data.given.at("--layout").size() != 1) {
    return nullptr;
  }
  for (const DataOptions& m : members) {
    if (m.given != data.given) return nullptr;
  }
  OpenOptions open;
  apply_format_options(data.given, open);
  std::vector<std::string> files;
  files.reserve(members.size());
  for (const DataOptions& m : members) files.push_back(m.data);
  return std::make_unique<layout::FamilyReader>(
      std::make_shared<const layout::Layout>(
          layout::load_layout(data.given.at("--layout").front())),
      layout::FamilyReader::members_of(files, open.formats.get<layout::DudleyOpenOptions>().bind));
}

// dump --family: each member as `dump MEMBER` prints it, one after the other. Through one
// Dudley layout (given, so the same for every member) the members print alike around their
// values: the first is recorded as a template, checked against the second printed the long
// way, and then fills every later member that fits it.
int run_dump_family(const DumpOptions& options) {
  const std::vector<DataOptions> members = family_members(options.data);
  // One output buffer for every member (a write per MiB, not per member); flushed before a
  // member's problems go to stderr, so that they follow its values.
  Output out(stdout);
  const bool templated = !options.deref && options.data.given.count("--layout") != 0;
  std::optional<MemberTemplate> template_;
  std::optional<DirectBinding> direct;  // the template's members bound without their trees
  GivenOptions template_given;          // a family index may give members their own options
  int status = kExitOk;
  DumpOptions one = options;
  // Member i the long way (recording the template from the first, checking it on the
  // second). A member that fails as a whole is reported with its name; the others go on.
  auto long_way = [&](size_t i) {
    const DataOptions& m = members[i];
    one.data = m;
    try {
      int result = kExitOk;
      if (templated && i == 0) {
        out.flush();  // the template is cut from the buffer
        TemplateRecorder record(out);
        result = run_dump_one(one, true, out, &record);
        if (result == kExitOk) template_ = record.finish();
        if (template_) {
          model::Tree tree = open_data(one.data);
          for (MemberTemplate::Hole& hole : template_->holes) {
            if (hole.kind != MemberTemplate::HoleKind::kValues) continue;
            const model::Node* node = printed_alike(tree, hole);
            if (node == nullptr) {
              template_.reset();
              break;
            }
            hole.offset = *node->storage.offset;  // where the recorded member's bytes are
            hole.size = node->storage.size;
          }
          template_given = m.given;
          if (template_) direct = direct_binding(*template_, members);
          if (direct) {
            for (const MemberTemplate::Hole& hole : template_->holes) {
              direct->plain.push_back(plain_options(hole, options));
            }
          }
        }
      } else {
        const uint64_t mark = out.written();
        result = run_dump_one(one, true, out);
        if (i == 1 && template_) {
          // The template is used only if it prints this member exactly as the long way did.
          const std::optional<std::string_view> printed = out.since(mark);
          const std::optional<std::string> by_template =
              m.given == template_given
                  ? dump_by_template(*template_, one, m.data, i, direct ? &*direct : nullptr)
                  : std::nullopt;
          if (result != kExitOk || !printed || by_template != printed) template_.reset();
        }
      }
      if (result != kExitOk) out.flush();
      status = std::max(status, result);
    } catch (const Error& e) {
      out.flush();
      status = std::max(status, report_failure(e, options.data.json, m.data));
    } catch (...) {
      out.flush();
      throw;
    }
  };
  size_t i = 0;
  for (; i < members.size() && (i < 2 || !template_); ++i) long_way(i);
  if (i >= members.size()) return status;
  if (direct) {
    // Members bound directly go in batches: their opens and item reads in flight together,
    // the next batch's on another thread while this one prints. (Making the members' text
    // on several cores at once was measured: no faster, the work is the kernel's opens and
    // reads.)
    BatchesAhead batches(*direct->family, direct->batch_plan, i, members.size());
    while (std::optional<BatchesAhead::Batch> batch = batches.next()) {
      for (size_t j = 0; j < batch->members.size(); ++j) {
        const size_t m = batch->first + j;
        std::optional<std::string> text;
        // A member that could not be bound is printed the long way, which says why.
        if (members[m].given == template_given && !batch->members[j].error) {
          text = dump_by_template(*template_, one, members[m].data, m, &*direct,
                                  &batch->members[j].bound);
        }
        if (text) {
          out.write(*text);
        } else {
          long_way(m);
        }
      }
    }
    return status;
  }
  for (; i < members.size(); ++i) {
    std::optional<std::string> text;
    if (members[i].given == template_given) {
      one.data = members[i];
      text = dump_by_template(*template_, one, members[i].data, i);
    }
    if (text) {
      out.write(*text);
    } else {
      long_way(i);
    }
  }
  return status;
}

}  // namespace dudley::cli
