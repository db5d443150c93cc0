#include "dudley/layout/family/family_reader.hpp"

#include <algorithm>
#include <atomic>
#include <limits>

#include <fmt/format.h>

#include "dudley/core/error.hpp"
#include "dudley/core/shape.hpp"
#include "dudley/core/thread_pool.hpp"
#include "dudley/io/prefetched_source.hpp"
#include "dudley/layout/bind/reader.hpp"
#include "dudley/layout/family/family.hpp"
#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {

namespace {

// Members bound together: their opens in one batch, then their heads, then their items.
// 64 keeps a batch's buffers small and still fills the disk's queue on a cold read.
constexpr size_t kBatchMembers = 64;
// A head larger than this is not read ahead: the binding reads what it needs itself.
constexpr uint64_t kMaxHeadBytes = uint64_t{64} << 10;
// Without io_uring, requests in flight come from threads alone: enough of them to keep a
// disk busy on a cold read, few enough not to crowd a warm one.
constexpr size_t kSyscallThreads = 16;
constexpr size_t kSyscallBatch = 8;

// A source that notes the range of bytes read through it: what a member's binding needs.
class WatchedSource final : public io::ByteSource {
 public:
  explicit WatchedSource(std::shared_ptr<io::ByteSource> parent) : parent_(std::move(parent)) {}
  uint64_t size() const override { return parent_->size(); }
  const std::string& name() const override { return parent_->name(); }
  uint64_t read_some(uint64_t offset, uint64_t length, void* out) const override {
    note(offset, length);
    return parent_->read_some(offset, length, out);
  }
  uint64_t low() const { return low_; }
  uint64_t high() const { return high_; }

 protected:
  void read_checked(uint64_t offset, uint64_t length, void* out,
                    const std::string& what) const override {
    note(offset, length);
    parent_->read(offset, length, out, what);
  }
  void read_unchecked(uint64_t offset, uint64_t length, void* out) const override {
    read_checked(offset, length, out, {});
  }

 private:
  void note(uint64_t offset, uint64_t length) const {
    if (length == 0) return;
    low_ = std::min(low_, offset);
    high_ = std::max(high_, offset + std::min(length, UINT64_MAX - offset));
  }
  std::shared_ptr<io::ByteSource> parent_;
  mutable uint64_t low_ = UINT64_MAX, high_ = 0;
};

// Runs `bind` and returns what it throws (null when it does not).
template <class F>
std::exception_ptr error_of(F bind) {
  try {
    bind();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

}  // namespace

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

MemberBatchPlan FamilyReader::batch_plan(std::vector<NodeId> items) const {
  MemberBatchPlan plan;
  plan.items = std::move(items);
  const FamilyMemberFile& m = members_.front();
  auto watched = std::make_shared<WatchedSource>(io::open_file(m.path));
  Binding binding(*plan_, watched, m.bind);
  if (layout_->signature) (void)binding.default_order();
  for (NodeId item : plan.items) (void)binding.locate(item);
  if (watched->high() > watched->low() && watched->high() - watched->low() <= kMaxHeadBytes) {
    plan.head_offset = watched->low();
    plan.head_bytes = watched->high() - watched->low();
  }
  return plan;
}

namespace {

// The files of a batch of members opened together, the bytes each is known to need read
// into it in batches too (its head, then its items), each step one submission to `io`.
class OpenedBatch {
 public:
  OpenedBatch(const std::vector<FamilyMemberFile>& members, size_t first, size_t count,
              io::BatchIo& io)
      : io_(io), sources_(count), errors_(count) {
    std::vector<io::BatchOpen> opens(count);
    for (size_t j = 0; j < count; ++j) opens[j].path = members[first + j].path.c_str();
    io.open_all(opens);
    for (size_t j = 0; j < count; ++j) {
      std::shared_ptr<io::ByteSource> file;
      if (opens[j].fd >= 0) {
        file = io::adopt_file(members[first + j].path, opens[j].fd);
      } else {
        // Opened again the plain way, for its error message (or the file appeared since).
        errors_[j] = error_of([&] { file = io::open_file(members[first + j].path); });
        if (errors_[j]) continue;
      }
      sources_[j] = std::make_shared<io::PrefetchedSource>(std::move(file));
    }
  }

  size_t size() const { return sources_.size(); }
  /// Member j's source, or null when it could not be opened (error(j) says why).
  const std::shared_ptr<io::PrefetchedSource>& source(size_t j) const { return sources_[j]; }
  const std::exception_ptr& error(size_t j) const { return errors_[j]; }

  /// Asks for `length` bytes at `offset` of member j, read by the next read_all().
  void ask(size_t j, uint64_t offset, uint64_t length) {
    asked_.push_back({j, std::vector<unsigned char>(length)});
    reads_.push_back(
        {sources_[j]->parent()->file_span()->fd, offset, length, asked_.back().bytes.data()});
  }

  /// Reads every range asked for, in one batch, into its member's source. A failed or short
  /// read keeps what came: the member's own read later names the problem.
  void read_all() {
    io_.read_all(reads_);
    for (size_t r = 0; r < reads_.size(); ++r) {
      std::vector<unsigned char>& bytes = asked_[r].bytes;
      bytes.resize(reads_[r].error == 0 ? reads_[r].got : 0);
      sources_[asked_[r].member]->add(reads_[r].offset, std::move(bytes));
    }
    reads_.clear();
    asked_.clear();
  }

 private:
  struct Asked {
    size_t member;
    std::vector<unsigned char> bytes;
  };
  io::BatchIo& io_;
  std::vector<std::shared_ptr<io::PrefetchedSource>> sources_;
  std::vector<std::exception_ptr> errors_;
  std::vector<io::BatchRead> reads_;
  std::vector<Asked> asked_;
};

// The batch opened and each opened member's head read.
OpenedBatch open_batch(const std::vector<FamilyMemberFile>& members, const MemberBatchPlan& plan,
                       size_t first, size_t count, io::BatchIo& io) {
  if (first > members.size() || count > members.size() - first) {
    throw Error(ErrorCategory::kUsage, "a batch of family members out of range");
  }
  OpenedBatch batch(members, first, count, io);
  if (plan.head_bytes > 0) {
    for (size_t j = 0; j < count; ++j) {
      if (batch.source(j)) batch.ask(j, plan.head_offset, plan.head_bytes);
    }
    batch.read_all();
  }
  return batch;
}

// Asks for item `a` of member j when it is small enough to read ahead.
void ask_item(OpenedBatch& batch, size_t j, const BoundArray& a) {
  if (a.byte_size > 0 && a.byte_size <= FamilyReader::kBatchItemBytes) {
    batch.ask(j, a.address, a.byte_size);
  }
}

}  // namespace

std::vector<BatchMember> FamilyReader::bind_batch(const MemberBatchPlan& plan, size_t first,
                                                  size_t count, io::BatchIo& io) const {
  OpenedBatch opened = open_batch(members_, plan, first, count, io);
  std::vector<BatchMember> batch(count);
  for (size_t j = 0; j < count; ++j) {
    if (!opened.source(j)) {
      batch[j].error = opened.error(j);
      continue;
    }
    BoundMember& m = batch[j].bound;
    batch[j].error = error_of([&] {
      m.source = opened.source(j);
      m.binding = std::make_unique<Binding>(*plan_, m.source, members_[first + j].bind);
      if (layout_->signature) (void)m.binding->default_order();
      for (NodeId item : plan.items) ask_item(opened, j, m.binding->locate(item));
    });
    if (batch[j].error) m = {};
  }
  opened.read_all();
  return batch;
}

FamilyReader::RowProblem FamilyReader::read_rows_of(const MemberBatchPlan& plan, size_t first,
                                                    size_t end, NodeId item,
                                                    const FamilyItem& expected,
                                                    const Hyperslab& slab, unsigned char* out,
                                                    size_t out_first, io::BatchIo& io) const {
  const uint64_t row = expected.row_bytes(slab);
  OpenedBatch batch = open_batch(members_, plan, first, end - first, io);
  // Each member located (its binding lives for that only: nothing allocated is kept per
  // member), its item read ahead with the others'. The first member with a problem ends
  // the walk; those before it are still read.
  std::vector<BoundArray> where(batch.size());
  RowProblem problem;
  size_t located = 0;
  for (; located < batch.size(); ++located) {
    const size_t j = located, i = first + j;
    if (!batch.source(j)) {
      problem = {i, batch.error(j)};
      break;
    }
    if (std::exception_ptr e = error_of([&] {
          Binding binding(*plan_, batch.source(j), members_[i].bind);
          if (layout_->signature) (void)binding.default_order();
          // locate(): the read itself says when a member is too short, naming it; the
          // file's length is never asked for.
          where[j] = binding.locate(item);
        })) {
      problem = {i, e};
      break;
    }
    if (where[j].shape != expected.shape || where[j].dtype != expected.dtype) {
      problem = {i, nullptr};
      break;
    }
    ask_item(batch, j, where[j]);
  }
  batch.read_all();
  for (size_t j = 0; j < located; ++j) {
    if (std::exception_ptr failed = error_of([&] {
          try {
            read_bound_into(*batch.source(j), where[j], slab, out + (first + j - out_first) * row);
          } catch (const Error& e) {
            throw Error(e.category(),
                        fmt::format("data item {}: {}", layout_->path(item), e.message()),
                        e.location());
          }
        })) {
      return {first + j, failed};
    }
  }
  return problem;
}

std::optional<size_t> FamilyReader::read_rows(NodeId item, const FamilyItem& expected,
                                              const Hyperslab& slab, void* out) const {
  return read_rows(item, expected, slab, out, 0, members_.size());
}

std::optional<size_t> FamilyReader::read_rows(NodeId item, const FamilyItem& expected,
                                              const Hyperslab& slab, void* out, size_t first,
                                              size_t count) const {
  if (first > members_.size() || count > members_.size() - first) {
    throw Error(ErrorCategory::kUsage, "read_rows: members beyond the family's last");
  }
  if (count == 0) return std::nullopt;
  slab.check_fits(expected.shape);
  (void)expected.row_bytes(slab);  // a row too large to address throws here
  const MemberBatchPlan plan = batch_plan({item});
  // Threads: the cores, each with its own batches in flight; without io_uring, the
  // requests in flight are the threads themselves.
  const bool uring = io::BatchIo::uses_io_uring();
  const size_t cores = ThreadPool::shared().helpers() + 1;
  const size_t wanted = uring ? cores : std::max(cores, kSyscallThreads);
  const size_t n = first + count;
  // Batches are handed out as threads come free (a core another program takes slows one
  // batch, not half the family). Without io_uring small ones, so that every thread has some.
  const size_t batch_size = uring ? kBatchMembers : kSyscallBatch;
  const size_t batches = (count + batch_size - 1) / batch_size;
  const size_t threads = std::min(wanted, batches);
  std::vector<RowProblem> problems(batches);
  std::atomic<size_t> next{0}, first_problem{SIZE_MAX};
  run_on_own_threads(threads, threads, [&](size_t) {
    const std::unique_ptr<io::BatchIo> io = io::BatchIo::make(static_cast<unsigned>(batch_size));
    for (size_t b = next++; b < batches; b = next++) {
      const size_t from = first + b * batch_size;
      if (from > first_problem.load()) continue;  // past a problem: not needed
      problems[b] = read_rows_of(plan, from, std::min(n, from + batch_size), item, expected, slab,
                                 static_cast<unsigned char*>(out), first, *io);
      size_t known = first_problem.load();
      while (problems[b].member < known &&
             !first_problem.compare_exchange_weak(known, problems[b].member)) {
      }
    }
  });
  // Each batch stopped at its first problem; the family's first is the earliest of them.
  const auto earliest = std::min_element(
      problems.begin(), problems.end(),
      [](const RowProblem& a, const RowProblem& b) { return a.member < b.member; });
  if (earliest->member == SIZE_MAX) return std::nullopt;
  if (earliest->error) std::rethrow_exception(earliest->error);
  return earliest->member;
}

}  // namespace dudley::layout
