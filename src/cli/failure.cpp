#include "cli/failure.hpp"

#include <algorithm>
#include <cstdio>
#include <new>
#include <string_view>

#include <fmt/format.h>

#include "cli/data_options.hpp"
#include "cli/tree_json.hpp"
#include "dudley/core/suggest.hpp"
#include "dudley/core/text.hpp"
#include "dudley/format.hpp"
#include "dudley/io/redact.hpp"

namespace dudley::cli {

using json = nlohmann::ordered_json;

json error_json(const Error& e) {
  // URLs without what authenticates them (a presigned URL's signature, user:password@).
  json out = {{"code", to_string(e.category())}, {"message", io::redacted_text(e.message())}};
  const Location& at = e.location();
  if (!at.path.empty()) out["file"] = io::redacted_text(at.path);
  if (at.line > 0) {
    out["line"] = at.line;
    out["column"] = at.column;
  }
  if (at.byte_offset) out["offset"] = *at.byte_offset;
  if (const auto* loss = dynamic_cast<const LossError*>(&e)) {
    json lost = json::array();
    for (const std::string& item : loss->items()) lost.push_back(io::redacted_text(item));
    out["lost"] = std::move(lost);
  }
  if (const std::vector<ErrorDetail> details = e.details(); !details.empty()) {
    json list = json::array();
    for (const ErrorDetail& d : details) {
      list.push_back({{"line", d.line},
                      {"column", d.column},
                      {"code", d.code},
                      {"message", io::redacted_text(d.message)}});
    }
    out["diagnostics"] = std::move(list);
  }
  return out;
}

int report_failure(const Error& e, bool json_output, const std::string& member) {
  std::fflush(stdout);
  // A message may quote a file's names (their control characters are printed escaped) and
  // URLs (printed without their secrets).
  fmt::print(stderr, "{}", shown_message(e.report()));
  if (json_output) {
    json doc = json::object();
    if (!member.empty()) doc["file"] = io::redacted_url(member);
    doc["error"] = error_json(e);
    fmt::print("{}\n", json_text(doc, member.empty() ? 2 : -1));
    std::fflush(stdout);
  }
  return exit_status_for(e);
}

int report_usage_error(const std::string& message, const std::vector<std::string>& arguments,
                       const std::vector<std::string>& options) {
  std::string text = message;
  // CLI11 says "The following argument was not expected: --jsn" for an unknown option.
  constexpr std::string_view kExtra = "The following argument was not expected: ";
  constexpr std::string_view kExtras = "The following arguments were not expected: ";
  for (std::string_view prefix : {kExtra, kExtras}) {
    if (text.rfind(prefix, 0) != 0) continue;
    const std::string word =
        text.substr(prefix.size(), text.find(' ', prefix.size()) - prefix.size());
    if (word.size() > 1 && word[0] == '-') {
      text = fmt::format("unknown option {}{}", word, did_you_mean(word, options));
    }
  }
  const bool json_output =
      std::find(arguments.begin(), arguments.end(), "--json") != arguments.end();
  return report_failure(Error(ErrorCategory::kUsage, text), json_output);
}

int guarded(bool json_output, const std::function<int()>& command) {
  try {
    return command();
  } catch (const Error& e) {
    return report_failure(e, json_output);
  } catch (const std::bad_alloc&) {
    // Sizes read from files are checked before they are allocated, so this is a machine
    // short of memory (or a ulimit): still an error a script can read, in JSON too.
    return report_failure(Error(ErrorCategory::kLimit, "out of memory"), json_output);
  }
}

std::string shown_message(std::string_view text) {
  return escape_controls(io::redacted_text(text), true);
}

std::string shown_path(std::string_view path) {
  return escape_controls(io::redacted_url(path));
}

std::string item_problem(const std::string& path, const std::string& node_error) {
  static constexpr std::string_view kMark = "error: ";
  const std::string error = io::redacted_text(node_error);
  const size_t at = error.find(kMark);
  std::string out;
  if (at == std::string::npos) {
    out = fmt::format("error: {}: {}", path, error);
  } else if (const size_t rest = at + kMark.size();
             error.find(" " + path + " ", rest) != std::string::npos) {
    out = error;  // "data item /x of 32 bytes ..." names its item already
  } else {
    out = fmt::format("{}{}: {}", error.substr(0, rest), path, error.substr(rest));
  }
  // One line: a name with a line end in it (the file's) cannot start a line of its own.
  return escape_controls(out);
}

std::string json_error_text(const std::string& raw) {
  static constexpr std::string_view kMark = "error: ";
  const std::string text = io::redacted_text(raw);
  if (text.rfind(kMark, 0) == 0) return text.substr(kMark.size());
  const size_t at = text.find(": error: ");
  if (at == std::string::npos) return text;
  return text.substr(0, at + 2) + text.substr(at + 2 + kMark.size());
}

void clean_error_texts(nlohmann::ordered_json& tree) {
  std::vector<nlohmann::ordered_json*> pending{&tree};
  while (!pending.empty()) {
    nlohmann::ordered_json* node = pending.back();
    pending.pop_back();
    if (node->is_object()) {
      for (auto& [key, value] : node->items()) {
        if (key == "error" && value.is_string()) {
          value = json_error_text(value.get<std::string>());
        } else if (value.is_structured()) {
          pending.push_back(&value);
        }
      }
    } else if (node->is_array()) {
      for (auto& value : *node) {
        if (value.is_structured()) pending.push_back(&value);
      }
    }
  }
}

}  // namespace dudley::cli
