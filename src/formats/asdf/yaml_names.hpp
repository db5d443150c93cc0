// The shared YAML module's names (dudley/text/yaml.hpp, text/yaml_emit.hpp) as the ASDF
// reader and writer use them: the module is the NDL reader's too, so it lives outside ASDF.
#pragma once

#include "dudley/text/yaml.hpp"
#include "text/yaml_emit.hpp"

namespace dudley::asdf {

using yaml::emit_value;
using yaml::ExpansionBudget;
using yaml::ExpansionLimitError;
using yaml::location_of;
using yaml::parse_yaml;
using yaml::scalar_value;
using yaml::to_value;
using yaml::yaml_float;
using yaml::yaml_scalar;
using yaml::yaml_string;
using yaml::yaml_tag;
using yaml::YamlDocument;
using yaml::YamlNode;
using yaml::YamlRef;
namespace yaml_tags = yaml::yaml_tags;

}  // namespace dudley::asdf
