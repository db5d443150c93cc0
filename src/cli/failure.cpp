#include "cli/failure.hpp"

#include <cstdio>
#include <new>

#include <fmt/format.h>

#include "cli/data_options.hpp"
#include "cli/tree_json.hpp"

namespace dudley::cli {

using json = nlohmann::ordered_json;

json error_json(const Error& e) {
  json out = {{"code", to_string(e.category())}, {"message", e.message()}};
  const Location& at = e.location();
  if (!at.path.empty()) out["file"] = at.path;
  if (at.line > 0) {
    out["line"] = at.line;
    out["column"] = at.column;
  }
  if (at.byte_offset) out["offset"] = *at.byte_offset;
  if (const std::vector<ErrorDetail> details = e.details(); !details.empty()) {
    json list = json::array();
    for (const ErrorDetail& d : details) {
      list.push_back(
          {{"line", d.line}, {"column", d.column}, {"code", d.code}, {"message", d.message}});
    }
    out["diagnostics"] = std::move(list);
  }
  return out;
}

int report_failure(const Error& e, bool json_output, const std::string& member) {
  std::fflush(stdout);
  fmt::print(stderr, "{}", e.report());
  if (json_output) {
    json doc = json::object();
    if (!member.empty()) doc["file"] = member;
    doc["error"] = error_json(e);
    fmt::print("{}\n", json_text(doc, member.empty() ? 2 : -1));
    std::fflush(stdout);
  }
  return exit_status_for(e);
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

std::string item_problem(const std::string& path, const std::string& node_error) {
  static constexpr std::string_view kMark = "error: ";
  const size_t at = node_error.find(kMark);
  if (at == std::string::npos) return fmt::format("error: {}: {}", path, node_error);
  const size_t rest = at + kMark.size();
  // "data item /x of 32 bytes ..." names its item already.
  if (node_error.find(" " + path + " ", rest) != std::string::npos) return node_error;
  return fmt::format("{}{}: {}", node_error.substr(0, rest), path, node_error.substr(rest));
}

std::string json_error_text(const std::string& text) {
  static constexpr std::string_view kMark = "error: ";
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
