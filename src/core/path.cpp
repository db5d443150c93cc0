#include "dudley/core/path.hpp"

#include <algorithm>

#include <charconv>

namespace dudley {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    size_t end = path.find('/', i);
    if (end == std::string_view::npos) end = path.size();
    if (end > i) parts.push_back(path.substr(i, end - i));
    i = end + 1;
  }
  return parts;
}

std::optional<std::string_view> climbing_segment(std::string_view key) {
  for (size_t at = 0; at <= key.size();) {
    const size_t slash = std::min(key.find('/', at), key.size());
    const std::string_view segment = key.substr(at, slash - at);
    if (segment == "." || segment == "..") return segment;
    at = slash + 1;
  }
  return std::nullopt;
}

bool is_plain_key(std::string_view key) {
  if (key.empty() || key.find('\0') != std::string_view::npos || climbing_segment(key))
    return false;
  return key.front() != '/' && key.back() != '/' && key.find("//") == std::string_view::npos;
}

std::optional<size_t> path_index(std::string_view component) {
  size_t index = 0;
  auto [p, ec] = std::from_chars(component.data(), component.data() + component.size(), index);
  if (ec != std::errc() || p != component.data() + component.size()) return std::nullopt;
  return index;
}

std::string join_path(std::string_view parent, std::string_view name) {
  std::string out(parent == "/" ? "" : parent);
  out += '/';
  out += name;
  return out;
}

namespace {

// Whether `inner` is `outer` or lies below it.
bool within(std::string_view inner, std::string_view outer) {
  if (outer == "/" || outer.empty()) return true;
  return inner.size() >= outer.size() && inner.substr(0, outer.size()) == outer &&
         (inner.size() == outer.size() || inner[outer.size()] == '/');
}

}  // namespace

bool related_paths(std::string_view path, std::string_view wanted) {
  return within(path, wanted) || within(wanted, path);
}

}  // namespace dudley
