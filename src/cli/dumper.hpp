// `dudley dump`, shared by its parts: the options, and the Dumper that prints one array's
// values (text or JSON) as it reads them. The text and JSON outputs (dump_text.cpp,
// dump_json.cpp), families (dump_family.cpp) and the command (cmd_dump.cpp) build on it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/data_options.hpp"
#include "cli/dump_items.hpp"
#include "cli/dump_mask.hpp"
#include "cli/json_stream.hpp"
#include "cli/member_template.hpp"
#include "cli/value_text.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/layout/family/family_reader.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

using json = nlohmann::ordered_json;

struct DumpOptions {
  DataOptions data;
  std::vector<std::string> items;
  bool deref = false;
  uint64_t max_items = 1000;
  uint64_t max_values = 0;
  std::string lines = "array";
  bool unmasked = false;  ///< --unmasked: print the stored values under a mask
  std::string binary;     ///< --binary: "raw" or "npy" bytes on stdout instead of text
};

/// The line style `--lines` names ("array", "row", "value").
LineStyle line_style(const std::string& name);

/// Calls visit(path, array) for every array below `node`, in order; returns false to stop.
/// Items made on demand live only during their call.
bool for_each_array(const model::Node& node, const std::string& path,
                    const std::function<bool(const std::string&, const model::Node&)>& visit);

/// Whether `path` is `container` or lies below it ("/" holds everything).
bool is_below(const std::string& path, const std::string& container);

/// Whether `path` lies below a picked item of the list at `list` (`/L[0:4]`).
bool is_picked(const std::string& path, const std::string& list, const ListPick& pick);

/// Thrown instead of reporting a problem by a Dumper on trial (a member printed by its
/// family's template): the member is then printed the long way, which reports it.
struct TrialFailed {};

class Dumper {
 public:
  // Arrays that hold no bytes are backed by nothing in the file, so their number is capped
  // per output (text and JSON alike: both are printed as they are read).
  Dumper(const model::Tree& tree, const DumpOptions& options, Output& out, bool trial = false)
      : tree_(tree), options_(options), out_(out), empty_budget_(kMaxEmptyValues), trial_(trial) {}

  int status() const { return status_; }
  /// True once the output's budget of arrays holding no bytes is spent.
  bool exhausted() const { return exhausted_; }

  // `status`: 1 for data that is not valid, 2 for data that could not be read (an I/O error,
  // a web server past its deadline); the command exits with the worst.
  void report(const std::string& message, int status = kExitInvalid);

  // A link met in a walk that is listed, not data (model::Link::listed_only): one to a group
  // is printed where the group is; one to nothing is noted on stderr, as h5dump lists it.
  void note_listed_link(const model::Node& link, const std::string& path);

  // Counts an array that holds no bytes against the budget; throws once it is spent.
  void count_empty(const ArrayRef& ref);

  // Writes the values of `ref` (JSON syntax, or the text line styles) and returns the
  // members a JSON object gets after them: "truncated", "target", "error".
  json values(const ArrayRef& ref, const std::string& label);

  // The pointee of every key in `keys` (nested lists of pointer values): null for a NULL
  // pointer (0 or all ones [C19]), the pointee with its data the first time it is met in
  // this output, {"ref": KEY} after that. Each pointee is read and printed once, so a graph
  // whose pointees all point at each other costs its size, not its paths.
  json deref(const json& keys, size_t width, int depth);

  static constexpr uint64_t kMaxEmptyValues = uint64_t{1} << 20;

  /// `t` in this machine's byte order (what reads give).
  static DType native(const DType& t);

  // Reports an array that could not be located, naming it; an error that stopped several
  // arrays (a parameter they all depend on) is told in full once, then by reference.
  std::string unreadable(const ArrayRef& ref);

 private:
  // "FILE /recs.pos" from "FILE /recs.pos[0:2]": the label without the selection.
  static std::string line_label(const ArrayRef& ref, const std::string& label);

  static bool holds_no_bytes(const ArrayRef& ref);

  json problem(const std::string& message);

  // Stored indexes for the row and value line styles: selection start + i * step.
  // numpy text for what dimension `d` (of `extent` elements) of `h` selects: ":" for all.
  static std::string slice_text(const Hyperslab& h, size_t d, int64_t extent);

  static void index_map(const Hyperslab& h, const DType& type, const std::vector<int64_t>& shape,
                        ValueWriter::Options& o);

  // Values of chunks never written are the fill value, backed by nothing in the file (a
  // 333-byte Zarr document may declare 10^12 chunks, a 1.6 KB HDF5 file 10,000 strings of
  // 16 MiB): past kMaxUnbackedValues of them, or kMaxUnbackedBytes of their elements, an
  // output must be asked for with --max-values, as Dudley's arrays of no bytes are, so
  // that what a dump costs follows what the file holds. Only large selections list chunks.
  void check_backed(const ArrayRef& ref, const Hyperslab& h) const;

  // The most bytes of the selection read at once: a block, or, with --max-values, what
  // those values take (a dump of the first values of a huge array reads only those).
  uint64_t piece_bytes(uint64_t unit_bytes) const;

  // An array (no fields) read block by block and printed as it goes.
  void stream(const ArrayRef& ref, ValueWriter::Options& o, json& extra);

  // Text keeps its last dimension, the strings, whole.
  static size_t whole_dims(const ArrayRef& ref, const Hyperslab& h);

  // Whether the selection is printed from a single read (small, or nothing to split).
  // `total`: its bytes, or, when --max-values prints fewer, more than a block (read in
  // pieces of what is printed).
  static bool one_piece(const ArrayRef& ref, const Hyperslab& h, uint64_t total);

  // More than a block when --max-values prints less than the selection holds (then read in
  // pieces of what is printed), else UINT64_MAX: one_piece's `total` is then the selection's.
  uint64_t piece_limit(const ArrayRef& ref, const Hyperslab& h) const;

  // Pieces of the selection (model::for_each_piece) read into one reused buffer and printed
  // as they come: memory stays one piece whatever the selection's size.
  static void stream_blocks(const ArrayRef& ref, const Hyperslab& h, ValueWriter& w,
                            MaskReader* mask, uint64_t max_piece_bytes);

  // Struct fields and pointer arrays: the selection is read whole, then printed.
  void in_memory(const ArrayRef& ref, ValueWriter::Options& o, json& extra, bool deref);

  // The start of an array's output, once it is known to be readable.
  void begin();

  // Whole values text (from values_json): one line in the text styles, labelled in the row
  // and value styles with the item as asked (`/x[5:1] = []`), since no indexes follow.
  void write_text(const std::string& text, const ValueWriter::Options& o);

  void finish(ValueWriter& w, json& extra);

  const model::Tree& tree_;
  const DumpOptions& options_;
  Output& out_;
  std::set<uint64_t> shown_;                   ///< pointees already printed in this output
  std::map<std::string, std::string> causes_;  ///< node error -> first array it stopped
  uint64_t empty_arrays_ = 0;
  uint64_t empty_budget_;
  bool trial_;  ///< problems throw TrialFailed instead of being reported
  bool exhausted_ = false;
  int status_ = kExitOk;
  std::string prefix_;       ///< text: "PATH = ", written by begin()
  bool begun_ = false;       ///< the current array's output has started
  std::string whole_label_;  ///< the current array as asked, selection included
};

/// Text: `PATH = VALUES` per array (or the row/value line styles). `member`: one member of a
/// family (its file named on each line); `record`: the member a family's template is cut from.
int dump_text(const model::Tree& tree, const std::vector<Request>& wanted,
              const DumpOptions& options, bool member, Output& out, TemplateRecorder* record);

/// JSON: the tree as `ls --json` prints it, each array's values in place.
int dump_json(const model::Tree& tree, const std::vector<Request>& wanted,
              const DumpOptions& options, bool member, Output& out, TemplateRecorder* record);

/// One file (or family member) opened and dumped; returns the exit status.
int run_dump_one(const DumpOptions& options, bool member, Output& out,
                 TemplateRecorder* record = nullptr);

/// dump --family: each member as `dump MEMBER` prints it, one after the other.
int run_dump_family(const DumpOptions& options);

/// The members of a family read through one layout given by --layout alone, the same for
/// every member: the layout parsed and planned once (members bound directly, in batches);
/// nullptr for any other family (other options, or members whose options differ).
std::unique_ptr<layout::FamilyReader> layout_family(const std::vector<DataOptions>& members);

/// `dump --binary raw|npy`: the one array of `options.items` (of every member, stacked, with
/// --family) as bytes on stdout (dump_binary.cpp). Throws Error naming what it cannot write.
int run_dump_binary(const DumpOptions& options);

}  // namespace dudley::cli
