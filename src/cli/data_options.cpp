#include "cli/data_options.hpp"

#include <charconv>

#include "dudley/core/error.hpp"
#include "dudley/open.hpp"

namespace dudley::cli {

void add_data_options(CLI::App& cmd, DataOptions& o) {
  cmd.add_option("data", o.data, "Data file")->required();
  cmd.add_option("--layout", o.layout, "Layout file (default: NAME.dud beside data file NAME.*)");
  cmd.add_option("--order", o.order,
                 "Byte order of '|' types when the layout has no !DUDLEY signature")
      ->check(CLI::IsMember({"little", "big"}));
  cmd.add_option("--param", o.params,
                 "Give a parameter's value: NAME=VALUE or /group/NAME=VALUE (repeatable)");
  cmd.add_flag("--params-absent", o.params_absent,
               "Dynamic parameters are not stored in the file (they take no bytes); give them "
               "all with --param");
  cmd.add_flag("--json", o.json, "Print JSON (the format is in docs/cli.md)");
}

model::Tree open_data(const DataOptions& o) {
  layout::BindOptions bind;
  if (o.order == "little") bind.default_order = ByteOrder::kLittle;
  if (o.order == "big") bind.default_order = ByteOrder::kBig;
  bind.params_absent = o.params_absent;
  for (const std::string& p : o.params) {
    size_t eq = p.find('=');
    int64_t value = 0;
    const char* begin = p.data() + (eq == std::string::npos ? 0 : eq + 1);
    const char* end = p.data() + p.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (eq == std::string::npos || eq == 0 || ec != std::errc() || ptr != end) {
      throw Error(ErrorCategory::kUsage, "--param " + p + ": expected NAME=INTEGER");
    }
    bind.params[p.substr(0, eq)] = value;
  }
  return dudley::open(o.data, {o.layout, std::move(bind)});
}

}  // namespace dudley::cli
