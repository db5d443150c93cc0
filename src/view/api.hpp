// What `dudley view` answers: the page, and a JSON API over one opened tree.
//
//   GET /api/info                       the data's name and format, the colour maps
//   GET /api/tree                       the tree's first view, in the model JSON `ls --json`
//                                       prints: at most kFirstViewNodes nodes and kPageMembers
//                                       members a group, each group's "members_count"
//   GET /api/members?path=P&start=N     a page of a group's members (kPageMembers)
//   GET /api/search?q=TEXT              the items whose names hold TEXT (kSearchMatches)
//   GET /api/item?path=P                one item's model JSON, and its dimensions
//   GET /api/array?path=P&sel=S         a selection's values (any number of dimensions) as
//                                       `dump --json` prints them under "data", masked values
//                                       null; at most kMaxArrayValues
//   GET /api/slice?path=P&sel=S&rows=R&cols=C
//                                       a 1-D or 2-D selection, every k-th element along a
//                                       side longer than R or C (a line: each bucket's least
//                                       and greatest), binary (see below)
//   GET /api/values?path=P&sel=S&row=I&rows=N&col=J&cols=M
//                                       a page of a selection's values as `dump --json`
//                                       prints them (strings, structs, complex numbers);
//                                       "page": [rows, columns] it holds, fewer than asked
//                                       when N x M elements are more than kMaxReadBytes
//   GET /api/plot?path=P&sel=S&...      the PNG `dudley plot` draws, same options
//   GET /api/export?path=P&sel=S&format=csv|npy
//                                       the selection at full resolution, as a download
//
// Every answer is bounded: at most kMaxSliceSide drawn values a side, kMaxPageValues table
// values, kMaxArrayValues as JSON (both at most kMaxReadBytes read), kMaxExportBytes exported
// (kMaxCsvValues as CSV; a masked array's masked values as empty fields, and no .npy of it, which
// cannot say what is masked). A query that is malformed, takes a parameter its request does not
// read, or names nothing is answered with 400 or 404 and {"error": message}; paths are the tree's,
// never the file system's, so no query reaches a file the viewer was not given. Reads stop at the
// time limit (read in bands, the clock looked at between them): a request that would take longer is
// answered with 503 and a message saying how much was read; the deadline holds inside reads too
// (a web server's or object store's answers end at it: dudley/core/deadline.hpp). Requests that
// walk the tree or read are answered one at a time (the model's readers and lists made on demand
// are not shared between threads), each waiting for the one before no longer than its own time
// limit (then 503); the page, its scripts and /api/info are answered at once, whatever is read.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "cli/deadline_read.hpp"
#include "dudley/model/tree.hpp"
#include "view/transport.hpp"

namespace dudley::view {

class ViewerApi {
 public:
  /// Answers for `tree`, opened from `data` (its name as the user gave it), each request's
  /// reads stopping after `time_limit`.
  ViewerApi(model::Tree tree, std::string data,
            std::chrono::milliseconds time_limit = kDefaultTimeLimit);

  /// The hosts requests may name, besides localhost and 127.0.0.1 (a --bind address): a page
  /// of another site that a DNS name leads to this machine cannot read the viewer.
  void set_listening(const std::string& host, int port);

  /// The answer to `request`.
  HttpReply handle(const HttpRequest& request);

  static constexpr uint64_t kMaxSliceSide = 4096;
  static constexpr uint64_t kMaxPageValues = 10000;
  static constexpr uint64_t kMaxArrayValues = uint64_t{1} << 20;
  static constexpr uint64_t kMaxExportBytes = uint64_t{256} << 20;
  static constexpr uint64_t kMaxCsvValues = uint64_t{4} << 20;
  /// The most bytes a table page or /api/array reads (elements x element size): a type of
  /// megabytes an element (a fixed string, a compound holding arrays) that the file need
  /// not hold (unwritten data reads as its fill value) would otherwise make one request
  /// allocate gigabytes.
  static constexpr uint64_t kMaxReadBytes = uint64_t{64} << 20;
  static constexpr std::chrono::milliseconds kDefaultTimeLimit{20000};
  /// The longest text a search looks for (names are rarely longer than a line).
  static constexpr size_t kMaxSearchBytes = 1024;

 private:
  HttpReply answer(const HttpRequest& request);
  HttpReply info();
  HttpReply tree();
  HttpReply members(const HttpRequest& request);
  HttpReply search(const HttpRequest& request);
  HttpReply item(const HttpRequest& request);
  HttpReply slice(const HttpRequest& request);
  HttpReply values(const HttpRequest& request);
  HttpReply array(const HttpRequest& request);
  HttpReply plot(const HttpRequest& request);
  HttpReply exported(const HttpRequest& request);
  // When this request's reads stop: its time limit from now.
  cli::Deadline deadline() const;
  bool host_allowed(const std::string& host) const;

  std::mutex host_mutex_;     ///< host_ and port_
  std::timed_mutex reading_;  ///< held by a request that walks the tree or reads
  model::Tree tree_;
  std::string data_;
  std::chrono::milliseconds time_limit_;
  std::string host_;
  int port_ = 0;
};

}  // namespace dudley::view
