// libyaml's events -> YamlNode tree. Built with an explicit stack, so a deeply nested
// document costs no native stack; depth is capped at model::kMaxValueDepth all the same,
// because everything that later walks values recursively relies on that bound.
#include <sys/mman.h>
#include <yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "dudley/text/yaml.hpp"

namespace dudley::yaml {

// A bump allocator: memory comes in blocks that grow with the document, and is given back
// all at once with it. Nodes, their item lists and their text are trivially destructible.
struct YamlDocument::Arena {
  // Large blocks are mapped with their pages already in place: a tree of 10^5 nodes touches
  // thousands of fresh pages, and faulting them in one at a time cost more than parsing.
  struct Unmap {
    size_t size;
    void operator()(std::byte* p) const { munmap(p, size); }
  };
  using Block = std::unique_ptr<std::byte, Unmap>;
  static constexpr size_t kFirstBlock = size_t{16} << 10;
  static constexpr size_t kLargestBlock = size_t{4} << 20;

  std::vector<Block> blocks;
  std::byte* next = nullptr;
  size_t left = 0;
  size_t block_size = kFirstBlock;
  // Tags repeat (every ndarray has the same one): each distinct tag is stored once.
  std::unordered_set<std::string_view> tags;

  void* take(size_t size, size_t align) {
    const size_t pad = (align - reinterpret_cast<uintptr_t>(next) % align) % align;
    if (left < size || left - size < pad) {
      grow(size + align);
      return take(size, align);
    }
    std::byte* at = next + pad;
    next = at + size;
    left -= size + pad;
    return at;
  }
  void grow(size_t at_least) {
    const size_t n = std::max(block_size, at_least);
    block_size = std::min(block_size * 2, kLargestBlock);
    void* p =
        mmap(nullptr, n, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | (n >= (size_t{256} << 10) ? MAP_POPULATE : 0), -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    blocks.emplace_back(static_cast<std::byte*>(p), Unmap{n});
    next = blocks.back().get();
    left = n;
  }
  std::string_view text(const char* s, size_t n) {
    if (n == 0) return {};
    char* at = static_cast<char*>(take(n, 1));
    std::memcpy(at, s, n);
    return {at, n};
  }
  std::string_view tag(std::string_view t) {
    if (t.empty()) return {};
    if (auto it = tags.find(t); it != tags.end()) return *it;
    return *tags.insert(text(t.data(), t.size())).first;
  }
  YamlNode* node() { return new (take(sizeof(YamlNode), alignof(YamlNode))) YamlNode(); }
  std::span<const YamlRef> items(const YamlRef* first, size_t n) {
    if (n == 0) return {};
    // The item list holds pointers: their size is meant.
    constexpr size_t kRefSize = sizeof(YamlRef);  // NOLINT(bugprone-sizeof-expression)
    auto* at = static_cast<YamlRef*>(take(n * kRefSize, alignof(YamlRef)));
    std::copy_n(first, n, at);
    return {at, n};
  }
};

YamlDocument::YamlDocument() : arena(std::make_unique<Arena>()) {}
YamlDocument::~YamlDocument() = default;
YamlDocument::YamlDocument(YamlDocument&&) noexcept = default;
YamlDocument& YamlDocument::operator=(YamlDocument&&) noexcept = default;

namespace {

struct Parser {
  yaml_parser_t p{};
  Parser() {
    if (!yaml_parser_initialize(&p)) throw Error(ErrorCategory::kLimit, "libyaml: out of memory");
  }
  ~Parser() { yaml_parser_delete(&p); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
};

struct Event {
  yaml_event_t e{};
  ~Event() { yaml_event_delete(&e); }
};

uint32_t clamp32(size_t v) {
  return v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v);
}

std::string text_of(const yaml_char_t* s) {
  return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
}

std::string_view view_of(const yaml_char_t* s) {
  return s ? std::string_view(reinterpret_cast<const char*>(s)) : std::string_view();
}

// A collection being built: its node, where its items start on the shared stack of items,
// and the anchor to register when it is complete (an anchor only becomes usable at its end,
// so a collection cannot contain itself).
struct Open {
  YamlNode* node;
  size_t first_item;
  std::string anchor;
};

}  // namespace

const YamlNode* YamlNode::find(std::string_view key) const {
  if (kind != Kind::kMapping) return nullptr;
  for (size_t i = items.size(); i >= 2; i -= 2) {
    const YamlNode& k = *items[i - 2];
    if (k.is_scalar() && k.text == key) return items[i - 1];
  }
  return nullptr;
}

Location location_of(const YamlNode& node, const std::string& path) {
  return Location::text(path, node.line, node.column);
}

namespace {

// The tree built from libyaml's events: nodes into the document's arena, collections open
// on a stack, anchors by name. Depth, key uniqueness and aliases are checked as events come.
class TreeBuilder {
 public:
  TreeBuilder(YamlDocument& doc, const std::string& path) : doc_(doc), path_(path) {}

  [[noreturn]] void fail_at(const yaml_mark_t& mark, const std::string& message) const {
    throw Error(ErrorCategory::kSyntax, message,
                Location::text(path_, clamp32(mark.line + 1), clamp32(mark.column + 1)));
  }

  void scalar(const yaml_event_t& e) {
    YamlNode* node = fresh(YamlNode::Kind::kScalar, e.start_mark, e.data.scalar.tag);
    node->text =
        arena().text(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
    node->plain = e.data.scalar.plain_implicit && e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    // "!" alone (a non-specific tag) makes a plain scalar a string, as it does in PyYAML.
    if (node->tag == "!") node->tag = yaml_tags::kStr;
    if (e.data.scalar.anchor) {
      anchors_[text_of(e.data.scalar.anchor)] = node;  // a later anchor of the name wins
    }
    attach(node, e.start_mark);
  }

  void collection_start(const yaml_event_t& e) {
    if (stack_.size() >= model::kMaxValueDepth) {
      fail_at(e.start_mark,
              fmt::format("YAML nested more than {} levels deep", model::kMaxValueDepth));
    }
    const bool seq = e.type == YAML_SEQUENCE_START_EVENT;
    if (expecting_key()) fail_at(e.start_mark, "a mapping key must be a scalar");
    YamlNode* node = fresh(seq ? YamlNode::Kind::kSequence : YamlNode::Kind::kMapping, e.start_mark,
                           seq ? e.data.sequence_start.tag : e.data.mapping_start.tag);
    const yaml_char_t* anchor = seq ? e.data.sequence_start.anchor : e.data.mapping_start.anchor;
    stack_.push_back({node, items_.size(), text_of(anchor)});
  }

  void collection_end(const yaml_event_t& e) {
    Open done = std::move(stack_.back());
    stack_.pop_back();
    done.node->items =
        arena().items(items_.data() + done.first_item, items_.size() - done.first_item);
    items_.resize(done.first_item);
    if (done.node->is_mapping()) check_unique_keys(done.node->items);
    if (!done.anchor.empty()) anchors_[done.anchor] = done.node;
    attach(done.node, e.start_mark);
  }

  void alias(const yaml_event_t& e) {
    auto it = anchors_.find(text_of(e.data.alias.anchor));
    if (it == anchors_.end()) {
      fail_at(e.start_mark,
              fmt::format("alias *{} names no anchor defined before it (or one that encloses it)",
                          text_of(e.data.alias.anchor)));
    }
    attach(it->second, e.start_mark);
  }

 private:
  YamlDocument::Arena& arena() { return *doc_.arena; }

  // Whether the next item of the innermost open collection is a mapping key.
  bool expecting_key() const {
    return !stack_.empty() && stack_.back().node->is_mapping() &&
           (items_.size() - stack_.back().first_item) % 2 == 0;
  }

  // Adds a finished node to its parent (or makes it the root).
  void attach(YamlRef node, const yaml_mark_t& mark) {
    // Where an alias stands, the depth of what its anchor holds adds to the depth around it:
    // 80 anchors of 250 levels, each around the one before, are 20,000 levels deep.
    if (stack_.size() + node->height > model::kMaxValueDepth) {
      fail_at(mark, fmt::format("YAML nested more than {} levels deep (counting what its "
                                "aliases hold)",
                                model::kMaxValueDepth));
    }
    if (stack_.empty()) {
      doc_.root = node;
      return;
    }
    if (expecting_key() && !node->is_scalar()) fail_at(mark, "a mapping key must be a scalar");
    YamlNode& parent = *stack_.back().node;
    parent.height = std::max<uint16_t>(parent.height, static_cast<uint16_t>(node->height + 1));
    items_.push_back(node);
  }

  // Readers of the tree (ours, and PyYAML where the last of repeated keys wins) would show
  // different data for a mapping that repeats a key: it is refused.
  void check_unique_keys(std::span<const YamlRef> entries) {
    const size_t n = entries.size() / 2;
    auto duplicate = [&](YamlRef first, YamlRef again) {
      throw Error(ErrorCategory::kSyntax,
                  fmt::format("duplicate key '{}' (first at line {})", again->text, first->line),
                  Location::text(path_, again->line, again->column));
    };
    if (n <= 8) {  // small mappings, the common case: no hashing
      for (size_t i = 1; i < n; ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (entries[2 * i]->text == entries[2 * j]->text)
            duplicate(entries[2 * j], entries[2 * i]);
        }
      }
      return;
    }
    seen_keys_.clear();
    seen_keys_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      auto [it, fresh] = seen_keys_.emplace(entries[2 * i]->text, entries[2 * i]);
      if (!fresh) duplicate(it->second, entries[2 * i]);
    }
  }

  YamlNode* fresh(YamlNode::Kind kind, const yaml_mark_t& mark, const yaml_char_t* tag) {
    YamlNode* node = arena().node();
    node->kind = kind;
    node->line = clamp32(mark.line + 1);
    node->column = clamp32(mark.column + 1);
    node->tag = arena().tag(view_of(tag));
    ++doc_.node_count;
    return node;
  }

  YamlDocument& doc_;
  const std::string& path_;
  std::vector<Open> stack_;
  // The items of every open collection, innermost last; a finished collection moves its own
  // into the arena in one piece (growing a vector per collection cost an allocation each).
  std::vector<YamlRef> items_;
  std::unordered_map<std::string, YamlRef> anchors_;
  std::unordered_map<std::string_view, YamlRef> seen_keys_;
};

}  // namespace

YamlDocument parse_yaml(std::string_view text, const std::string& path) {
  Parser parser;
  yaml_parser_set_input_string(&parser.p, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  yaml_parser_set_encoding(&parser.p, YAML_UTF8_ENCODING);
  YamlDocument doc;
  TreeBuilder tree(doc, path);
  int documents = 0;
  for (;;) {
    Event ev;
    if (!yaml_parser_parse(&parser.p, &ev.e)) {
      const yaml_mark_t& mark = parser.p.problem_mark.line || parser.p.problem_mark.column
                                    ? parser.p.problem_mark
                                    : parser.p.context_mark;
      std::string message = parser.p.problem ? parser.p.problem : "invalid YAML";
      if (parser.p.context) message.insert(0, std::string(parser.p.context) + ": ");
      tree.fail_at(mark, "YAML: " + message);
    }
    const yaml_event_t& e = ev.e;
    switch (e.type) {
      case YAML_STREAM_END_EVENT:
        return doc;
      case YAML_DOCUMENT_START_EVENT:
        if (++documents > 1) tree.fail_at(e.start_mark, "more than one YAML document in the tree");
        break;
      case YAML_SCALAR_EVENT:
        tree.scalar(e);
        break;
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT:
        tree.collection_start(e);
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        tree.collection_end(e);
        break;
      case YAML_ALIAS_EVENT:
        tree.alias(e);
        break;
      default:
        break;
    }
  }
}

ExpansionBudget::ExpansionBudget(const YamlDocument& doc, const std::string& path, uint64_t factor,
                                 uint64_t floor)
    : path_(path) {
  const uint64_t room = doc.node_count > UINT64_MAX / factor ? UINT64_MAX : doc.node_count * factor;
  total_ = left_ = room < floor ? floor : room;
}

void ExpansionBudget::take(const YamlNode& node) {
  take(1, node);
}

void ExpansionBudget::take(uint64_t n, const YamlNode& node) {
  if (n > left_) {
    throw ExpansionLimitError(
        ErrorCategory::kLimit,
        fmt::format("the tree's aliases expand to more than {} nodes (an alias bomb?)", total_),
        location_of(node, path_));
  }
  left_ -= n;
}

}  // namespace dudley::yaml
