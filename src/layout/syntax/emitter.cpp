#include "dudley/layout/syntax/emitter.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace dudley::layout {

namespace {

class Emitter {
 public:
  explicit Emitter(const Layout& layout, const LayoutSource* source = nullptr)
      : l_(layout), source_(source) {
    stack_.push_back(Layout::kRoot);
    // Without a line for every statement the comments cannot be placed: drop them.
    if (source_ && source_->statement_lines.size() != l_.statements.size()) source_ = nullptr;
  }

  std::string run() {
    if (l_.template_directive) out_ += "!TEMPLATE\n";
    // The file's attributes lead it: `#@` before any declaration belongs to the root.
    attribute_lines(l_.nodes[Layout::kRoot].attributes);
    for (size_t k = 0; k < l_.statements.size(); ++k) {
      if (source_) {
        statement_line_ = source_->statement_lines[k];
        // Of several statements on one line, the last takes the line's comment.
        last_on_line_ =
            k + 1 == l_.statements.size() || source_->statement_lines[k + 1] != statement_line_;
      }
      statement(l_.statements[k]);
    }
    // Comments after the last statement end the file, after the containers close.
    while (stack_.size() > 1) pop();
    statement_line_ = UINT32_MAX;
    comments_before_statement();
    return std::move(out_);
  }

 private:
  // Goes to the statement's container, then puts back the comments that came before it.
  void enter(NodeId container) {
    go_to(container);
    comments_before_statement();
  }
  // Own-line comments before the current statement's line, at its indentation; the comment
  // on its own line, if any, is kept for line() to append.
  void comments_before_statement() {
    trailing_ = {};
    if (!source_) return;
    const auto& comments = source_->comments;
    while (next_comment_ < comments.size() && comments[next_comment_].line < statement_line_) {
      out_.append(indent(), ' ');
      out_ += comments[next_comment_++].text;
      out_ += '\n';
    }
    if (last_on_line_ && next_comment_ < comments.size() &&
        comments[next_comment_].line == statement_line_ && !comments[next_comment_].own_line) {
      trailing_ = comments[next_comment_++].text;
    }
  }
  size_t indent() const { return 2 * (stack_.size() - 1) + 2 * extra_indent_; }

  void statement(const Statement& s) {
    switch (s.kind) {
      case Statement::Kind::kSignature: {
        enter(Layout::kRoot);
        line("!DUDLEY := S1[8]" + address(l_.signature->has_address, l_.signature->address));
        break;
      }
      case Statement::Kind::kCursor:
        enter(s.container);
        line(fmt::format("!@ {}", l_.cursors[s.index]));
        break;
      case Statement::Kind::kParam: {
        enter(s.container);
        const Param& p = l_.params[s.index];
        line(parameter(p), p.doc, p.attributes);
        break;
      }
      case Statement::Kind::kType:
        enter(s.container);
        type_definition(s.index);
        break;
      case Statement::Kind::kGroup: {
        enter(s.container);
        const Node& g = l_.nodes[s.index];
        line(g.name == kNone ? std::string("/") : fmt::format("{} /", l_.name(g.name)), g.doc,
             g.attributes);
        stack_.push_back(s.index);
        break;
      }
      case Statement::Kind::kList: {
        enter(s.container);
        const Node& list = l_.nodes[s.index];
        line(list.name == kNone ? std::string("= [") : fmt::format("{} = [", l_.name(list.name)),
             list.doc, list.attributes);
        stack_.push_back(s.index);
        break;
      }
      case Statement::Kind::kData: {
        enter(s.container);
        const Node& n = l_.nodes[s.index];
        std::string head = n.name == kNone ? "=" : fmt::format("{} =", l_.name(n.name));
        data(head, n);
        break;
      }
      case Statement::Kind::kPointee: {
        enter(s.container);
        const Pointee& p = l_.pointees[s.index];
        line(fmt::format("{} = {}{}{}", p.key, l_.type_text(p.type), shape(p.dims),
                         address(p.has_address, p.address)),
             p.doc, p.attributes);
        break;
      }
    }
  }

  // ---- navigation between containers ----

  void go_to(NodeId target) {
    if (stack_.back() == target) return;
    std::vector<NodeId> chain;  // target's containers from the root
    for (NodeId n = target; n != kNone; n = l_.nodes[n].parent) chain.push_back(n);
    std::reverse(chain.begin(), chain.end());
    size_t common = 0;
    while (common < chain.size() && common < stack_.size() && chain[common] == stack_[common]) {
      ++common;
    }
    while (stack_.size() > common) pop();
    for (size_t i = common; i < chain.size(); ++i) push(chain[i]);
  }
  void pop() {
    const Node& n = l_.nodes[stack_.back()];
    stack_.pop_back();
    line(n.kind == NodeKind::kList ? "]" : "..");
  }
  // Re-entering an existing named group or list; anonymous ones are only ever entered when
  // they are created, because their contents are contiguous.
  void push(NodeId id) {
    const Node& n = l_.nodes[id];
    line(n.kind == NodeKind::kList ? fmt::format("{} = [", l_.name(n.name))
                                   : fmt::format("{} /", l_.name(n.name)));
    stack_.push_back(id);
  }

  // ---- pieces ----

  void line(const std::string& text, DocId doc = 0, Span attributes = {}) {
    out_.append(indent(), ' ');
    out_ += text;
    // A kept comment takes the declaration's line; its doc then starts on the next line
    // ("#!" first on a line continues the item above [C24]).
    const bool commented = !trailing_.empty();
    if (commented) {
      out_ += "  ";
      out_ += trailing_;
      trailing_ = {};
    }
    doc_lines(doc, commented);
    attribute_lines(attributes);
  }
  // One `#@` line each below the item (and its doc), as `fmt` writes them whatever their
  // place in the source: each still attaches to the same item. Their text is kept as the
  // author wrote it.
  void attribute_lines(Span attributes) {
    for (const AttributeSource& a : l_.attributes_of(attributes)) {
      out_.append(indent(), ' ');
      out_ += "#@ ";
      out_ += l_.attribute_source(a);  // as written: each reads as the same value again
      out_ += '\n';
    }
  }
  // First line after the item (or below it, after a comment), further lines as "#!" lines
  // below it.
  void doc_lines(DocId doc, bool first_below = false) {
    if (doc == 0) {
      out_ += '\n';
      return;
    }
    if (first_below) {
      out_ += '\n';
      out_.append(indent(), ' ');
    }
    const std::string_view text = l_.doc(doc);
    size_t start = 0;
    bool first = true;
    for (;;) {
      size_t end = text.find('\n', start);
      std::string_view part = text.substr(start, end == std::string_view::npos ? end : end - start);
      if (first) {
        const char* gap = first_below ? "" : "  ";
        out_ += part.empty() ? fmt::format("{}#!\n", gap) : fmt::format("{}#! {}\n", gap, part);
        first = false;
      } else {
        out_.append(indent(), ' ');
        out_ += part.empty() ? "#!\n" : fmt::format("#! {}\n", part);
      }
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
  }

  static std::string address(bool has, uint64_t value) {
    return has ? fmt::format(" @ {}", value) : std::string();
  }

  std::string shape(Span span) const {
    if (span.count == 0) return {};
    std::string s = "[";
    bool first = true;
    for (const Dim& d : l_.dims_of(span)) {
      if (!first) s += ", ";
      first = false;
      if (d.kind == Dim::Kind::kLiteral) {
        s += std::to_string(d.literal);
        continue;
      }
      s += l_.name(d.kind == Dim::Kind::kParam ? l_.params[d.param].name : d.name);
      s.append(static_cast<size_t>(d.adjust < 0 ? -d.adjust : d.adjust), d.adjust < 0 ? '-' : '+');
    }
    return s + "]";
  }

  std::string parameter(const Param& p) const {
    if (p.kind == ParamKind::kFixed) return fmt::format("{} := {}", l_.name(p.name), p.value);
    return fmt::format("{} := {}{}", l_.name(p.name), l_.type_text(p.type),
                       address(p.has_address, p.address));
  }

  void data(const std::string& head, const Node& n) {
    const TypeDef* body = n.type.kind == TypeRef::Kind::kUser ? &l_.types[n.type.user] : nullptr;
    if (body && body->kind == TypeKind::kHeteroBody) {
      std::string block =
          body->block == kNone ? "?" : std::string(l_.name(l_.types[body->block].name));
      line(fmt::format("{} {}{{", head, block), n.doc, n.attributes);
      struct_entries(*body);
      line("}" + address(n.has_address, n.address));
      return;
    }
    line(fmt::format("{} {}{}{}", head, l_.type_text(n.type), shape(n.dims),
                     address(n.has_address, n.address)),
         n.doc, n.attributes);
  }

  void struct_entries(const TypeDef& t) {
    ++extra_indent_;
    for (const StructEntry& e : t.body) {
      switch (e.kind) {
        case StructEntry::Kind::kCursor:
          line(fmt::format("!@ {}", e.offset));
          break;
        case StructEntry::Kind::kParam: {
          const Param& p = l_.params[e.index];
          line(parameter(p), p.doc, p.attributes);
          break;
        }
        case StructEntry::Kind::kMember: {
          const Node& m = l_.nodes[e.index];
          data(m.name == kNone ? "=" : fmt::format("{} =", l_.name(m.name)), m);
          break;
        }
      }
    }
    --extra_indent_;
  }

  void type_definition(TypeId id) {
    const TypeDef& t = l_.types[id];
    line(fmt::format("{} := {{", l_.name(t.name)), t.doc, t.attributes);
    struct_entries(t);
    std::string tail = "}";
    if (t.has_shape) tail += shape(t.dims);
    tail += address(t.has_address, t.address);
    line(tail);
  }

  const Layout& l_;
  const LayoutSource* source_;  ///< comments to put back, or nullptr
  uint32_t statement_line_ = 0;
  bool last_on_line_ = true;
  size_t next_comment_ = 0;
  std::string_view trailing_;  ///< comment for the next line() to append
  std::string out_;
  std::vector<NodeId> stack_;  // open containers, root first
  size_t extra_indent_ = 0;    // inside a struct body
};

}  // namespace

std::string emit_layout(const Layout& layout) {
  return Emitter(layout).run();
}

std::string emit_layout(const Layout& layout, const LayoutSource& source) {
  return Emitter(layout, &source).run();
}

}  // namespace dudley::layout
