// Encoders fed one piece at a time, for outputs too large to hold whole (an ASDF block of
// gigabytes written by a streaming convert). They write the codec's own format, which its
// decoder (and any other) reads, though not byte for byte what encode() of the whole would.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "dudley/codec/codec.hpp"

namespace dudley::codec {

class StreamEncoder {
 public:
  /// Receives encoded bytes, in order, as they are ready.
  using Sink = std::function<void(ByteView)>;
  virtual ~StreamEncoder() = default;
  /// Encodes `in`, the next piece of the data, handing what is ready to `sink`.
  virtual void update(ByteView in, const Sink& sink) = 0;
  /// Ends the stream after the last piece, handing the rest to `sink`.
  virtual void finish(const Sink& sink) = 0;
};

/// A streaming encoder for bytes codec `name` with `configuration` (its level, as
/// make_bytes_codec takes it):
/// - "zlib": one zlib stream whose pieces are compressed on every core, each ending on a
///   byte boundary (a sync flush, as pigz does), the Adler-32 combined;
/// - "bz2": one bzip2 stream, compressed in order.
/// Throws Error(kUsage) for a codec without one.
std::unique_ptr<StreamEncoder> make_stream_encoder(const std::string& name,
                                                   const Configuration& configuration = {});

}  // namespace dudley::codec
