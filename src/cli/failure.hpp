// Reporting what stopped a command, in text (stderr) and, with --json, as a JSON document on
// stdout, so a script that reads stdout always gets JSON.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dudley/core/error.hpp"

namespace dudley::cli {

/// {"code", "message", "file", "line", "column", "offset"} of an error (the parts it has); a
/// layout error adds "diagnostics": [{"line", "column", "code", "message"}, ...], a save
/// refused for what it would lose "lost": ["PATH: why", ...].
nlohmann::ordered_json error_json(const Error& e);

/// Prints `e` on stderr (a layout error: every diagnostic with its source line and caret, as
/// `dudley check` does) and, when `json`, {"error": error_json(e)} on stdout (with "file":
/// `member` for a family member's line). Returns the exit status for it (exit_status_for).
int report_failure(const Error& e, bool json, const std::string& member = {});

/// Reports a command line CLI11 could not parse (an unknown option, a value of the wrong
/// type): the message on stderr, with the nearest option of the command for an unknown one,
/// and, when `--json` is among the arguments, as a JSON error document on stdout, so a
/// script asking for JSON gets it even then. `message` is CLI11's; `options` the command's
/// option names. Returns exit status 2.
int report_usage_error(const std::string& message, const std::vector<std::string>& arguments,
                       const std::vector<std::string>& options);

/// Runs a command; an Error that escapes it is reported by report_failure.
int guarded(bool json, const std::function<int()>& command);

/// `text` (a message, a report of several lines) as it may be printed: its URLs without
/// their secrets (io::redacted_text) and its control characters escaped but for the line
/// ends and tabs the report itself is made of (escape_controls).
std::string shown_message(std::string_view text);

/// A path or URL as one line of output shows it: a URL without its secrets
/// (io::redacted_url), every control character escaped (a name holding a newline or an
/// escape sequence prints as text).
std::string shown_path(std::string_view path);

/// "FILE:@8: error: /x: MESSAGE" from a model node's error text ("FILE:@8: error: MESSAGE")
/// and the path of the item it stopped: the item is named (unless the message names it),
/// "error:" appears once. One line: control characters (a name's line end) escaped.
std::string item_problem(const std::string& path, const std::string& node_error);

/// An error text as the value of a JSON "error" member: "FILE:@8: MESSAGE" from
/// "FILE:@8: error: MESSAGE", "MESSAGE" from "error: MESSAGE" (the member says it is one).
std::string json_error_text(const std::string& text);

/// Rewrites every "error" string member in `tree` with json_error_text (iteratively: the
/// depth of a tree is the input's).
void clean_error_texts(nlohmann::ordered_json& tree);

}  // namespace dudley::cli
