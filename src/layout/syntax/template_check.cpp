// The !TEMPLATE rules [C22]: every data address must be computable from parameters that
// are gathered at the beginning of the file, so one layout serves a whole family of files.
#include <fmt/format.h>

#include "dudley/layout/syntax/parser.hpp"

namespace dudley::layout {

namespace {

class TemplateChecker {
 public:
  TemplateChecker(const Layout& layout, std::vector<Diagnostic>& out) : l_(layout), out_(out) {}

  void run() {
    for (const Statement& s : l_.statements) {
      switch (s.kind) {
        case Statement::Kind::kData:
          data(s.index);
          break;
        case Statement::Kind::kParam: {
          const Param& p = l_.params[s.index];
          if (p.kind == ParamKind::kDynamic) {
            late(p.pos, fmt::format("dynamic parameter '{}'", l_.name(p.name)));
          }
          break;
        }
        case Statement::Kind::kType: {
          const TypeDef& t = l_.types[s.index];
          if (t.kind == TypeKind::kParamBlock && t.has_dynamic_params) {
            late(t.pos, fmt::format("parameter block '{}'", l_.name(t.name)));
          }
          break;
        }
        case Statement::Kind::kSignature:
          late(l_.signature->pos, "the !DUDLEY signature");
          break;
        case Statement::Kind::kPointee: {
          const Pointee& p = l_.pointees[s.index];
          add(p.pos, fmt::format("a template cannot declare pointees (pointee {}): pointers make "
                                 "a layout specific to one file",
                                 p.key));
          break;
        }
        default:
          break;
      }
    }
  }

 private:
  void add(TextPos at, std::string message) {
    out_.push_back({DiagCode::kTemplate, std::move(message), at.line, at.column, at.offset});
  }
  void late(TextPos at, const std::string& what) {
    if (!first_data_) return;
    const Node& d = l_.nodes[*first_data_];
    add(at, fmt::format("{} comes after the first data declaration ({} at {}:{}); a template "
                        "declares every parameter before any data",
                        what, l_.path(*first_data_), d.pos.line, d.pos.column));
  }

  void data(NodeId id) {
    if (!first_data_) first_data_ = id;
    const Node& n = l_.nodes[id];
    if (uses_pointer(n.type, 0)) {
      add(n.pos, fmt::format("{} holds pointers; a template cannot use p4/p8", l_.path(id)));
    }
    if (n.type.kind == TypeRef::Kind::kUser && has_instance_params(n.type.user, 0)) {
      add(n.pos, fmt::format("{} is an instance of a struct with parameters read from each "
                             "instance; its size is not computable from the leading parameters",
                             l_.path(id)));
    }
  }

  bool uses_pointer(const TypeRef& ref, int depth) const {
    if (ref.kind == TypeRef::Kind::kPrimitive) {
      return ref.primitive == Primitive::p4 || ref.primitive == Primitive::p8;
    }
    if (ref.kind != TypeRef::Kind::kUser || depth > 64) return false;
    for (const auto& e : l_.types[ref.user].body) {
      if (e.kind == StructEntry::Kind::kMember && uses_pointer(l_.nodes[e.index].type, depth + 1))
        return true;
    }
    return false;
  }

  // Dynamic parameters stored inside each instance (a heterogeneous body's parameter block
  // is stored up front, so it does not count).
  bool has_instance_params(TypeId id, int depth) const {
    if (depth > 64) return false;
    const TypeDef& t = l_.types[id];
    if (t.has_dynamic_params) return true;
    for (const auto& e : t.body) {
      if (e.kind != StructEntry::Kind::kMember) continue;
      const TypeRef& m = l_.nodes[e.index].type;
      if (m.kind == TypeRef::Kind::kUser && has_instance_params(m.user, depth + 1)) return true;
    }
    return false;
  }

  const Layout& l_;
  std::vector<Diagnostic>& out_;
  std::optional<NodeId> first_data_;
};

}  // namespace

void check_template_rules(const Layout& layout, std::vector<Diagnostic>& out) {
  TemplateChecker(layout, out).run();
}

}  // namespace dudley::layout
