// A test helper: encodes or decodes a file with one codec of the codec layer, so that
// codec_peers_test.py can hand the same bytes to Python's implementations.
//   codec_tool encode NAME CONFIG_JSON IN OUT
//   codec_tool decode NAME CONFIG_JSON IN OUT SIZE
//   codec_tool encode-array NAME CONFIG_JSON ELEMENT_SIZE IN OUT   (and decode-array)
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "dudley/codec/codec.hpp"
#include "dudley/core/error.hpp"

namespace {
using dudley::codec::Bytes;

Bytes read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Bytes b(s.size());
  for (size_t i = 0; i < s.size(); ++i) b[i] = static_cast<std::byte>(s[i]);
  return b;
}

void write_all(const std::string& path, const Bytes& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}
}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if ((mode == "encode" && argc == 6) || (mode == "decode" && argc == 7)) {
      auto codec =
          dudley::codec::make_bytes_codec(argv[2], dudley::codec::Configuration::parse(argv[3]));
      const Bytes in = read_all(argv[4]);
      if (mode == "encode") {
        write_all(argv[5], codec->encode(in));
      } else {
        Bytes out(std::stoull(argv[6]));
        codec->decode_exact(in, out);
        write_all(argv[5], out);
      }
      return 0;
    }
    if ((mode == "encode-array" || mode == "decode-array") && argc == 7) {
      auto codec =
          dudley::codec::make_array_codec(argv[2], dudley::codec::Configuration::parse(argv[3]));
      const Bytes in = read_all(argv[5]);
      Bytes out(in.size());
      const dudley::codec::ChunkSpec spec{std::stoull(argv[4]), {}};
      if (mode == "encode-array") {
        codec->encode(in, out, spec);
      } else {
        codec->decode(in, out, spec);
      }
      write_all(argv[6], out);
      return 0;
    }
    std::cerr << "usage: codec_tool encode|decode|encode-array|decode-array ...\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
