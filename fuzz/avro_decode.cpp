// Decoding Avro: the first byte picks a raw datum of one of a few schemas (the ndarray
// record, a yaq-like message, a recursive list, arrays and maps of nulls) or a container
// file; the rest is the datum or the file. Every record is decoded and its arrays read;
// decoding either succeeds or fails with an Error, and memory follows the input.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "dudley/core/error.hpp"
#include "dudley/io/byte_source.hpp"
#include "formats/avro/container.hpp"
#include "formats/avro/datum.hpp"
#include "formats/avro/reader.hpp"

namespace {

const char* const kSchemas[] = {
    R"({"type": "record", "name": "ndarray", "fields": [
        {"name": "shape", "type": {"type": "array", "items": "int"}},
        {"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"},
        {"name": "version", "type": "int"}]})",
    R"({"type": "record", "name": "Message", "fields": [
        {"name": "id", "type": "long"}, {"name": "label", "type": "string"},
        {"name": "image", "type": {"type": "record", "name": "ndarray", "fields": [
            {"name": "shape", "type": {"type": "array", "items": "int"}},
            {"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"},
            {"name": "version", "type": "int"}]}},
        {"name": "maybe", "type": ["null", "string", "ndarray"]},
        {"name": "channels", "type": {"type": "map", "values": "ndarray"}},
        {"name": "frames", "type": {"type": "array", "items": "ndarray"}},
        {"name": "mode", "type": {"type": "enum", "name": "Mode", "symbols": ["a", "b"]}},
        {"name": "raw", "type": {"type": "fixed", "name": "F", "size": 3}},
        {"name": "x", "type": ["float", "double", "boolean"]}]})",
    R"({"type": "record", "name": "Node", "fields": [{"name": "v", "type": "int"},
        {"name": "next", "type": ["null", "Node"]}]})",
    R"({"type": "array", "items": {"type": "map", "values": ["null", {"type": "array",
        "items": "null"}]}})",
};

// Reads the arrays of `n` and of its first items (a container may claim 2^32 records: a
// harness visits a bounded number).
void read_all(const dudley::model::Node& n) {
  if (n.data) n.data->read();
  dudley::model::for_each_child(n, [](uint64_t i, const dudley::model::Node& c) {
    read_all(c);
    return i < 4096;
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dudley;
  if (size == 0) return 0;
  const size_t schemas = sizeof kSchemas / sizeof *kSchemas;
  const size_t pick = data[0] % (schemas + 1);
  const std::span<const std::byte> rest(reinterpret_cast<const std::byte*>(data) + 1, size - 1);
  try {
    if (pick < schemas) {
      const avro::Schema schema = avro::parse_schema(kSchemas[pick], "schema");
      auto owner = std::make_shared<codec::Bytes>(rest.begin(), rest.end());
      avro::BinaryReader in(*owner, "datum");
      avro::DatumOptions options;
      options.keep_alive = owner;
      read_all(*avro::decode_node(in, schema, schema.root, options));
      avro::BinaryReader again(*owner, "datum");
      avro::skip_datum(again, schema, schema.root);
    } else {
      auto source = io::memory_source(rest.data(), rest.size(), "file.avro");
      // A block limit of 16 MiB (the default's bounds, checked faster): a bomb stops there,
      // a block of bounded records at what its records can take.
      avro::AvroOpenOptions limits;
      limits.max_block_bytes = uint64_t{16} << 20;
      const model::Tree tree = avro::open_avro(source, limits);
      read_all(*tree.root);
    }
  } catch (const Error&) {
  }
  return 0;
}
