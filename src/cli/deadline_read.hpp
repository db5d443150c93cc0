// Reads that stop at a deadline: the viewer answers every request within its time limit, so
// a heatmap of a slow store (compressed chunks of a huge array, a distant server) is refused
// with a message rather than holding the server, and the page, for minutes.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "dudley/core/deadline.hpp"
#include "dudley/core/error.hpp"
#include "dudley/core/hyperslab.hpp"
#include "dudley/core/ndarray.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::cli {

using Deadline = std::chrono::steady_clock::time_point;

/// A read stopped at its deadline between bands (category kLimit): the viewer answers it,
/// as any read stopped at the thread's deadline, with 503.
class OutOfTime : public DeadlinePassed {
 public:
  using DeadlinePassed::DeadlinePassed;
};

/// `source.read(slab)`, and without a deadline exactly that. With one, the selection is read
/// in at most 8 bands along dimension `along` (the first dimension the result keeps, so
/// that each band is one run of the result), cut where the source's read units are (each
/// chunk decoded once), and the deadline is looked at between bands: past it, OutOfTime
/// names `what`, the time `limit` and how much was read. Elements of a `dtype` holding
/// variable-length data are read in one piece (each band's values would live in its own heap).
NDArray read_by(model::ArraySource& source, const DType& dtype, const Hyperslab& slab, size_t along,
                std::optional<Deadline> deadline, std::chrono::milliseconds limit,
                const std::string& what);

}  // namespace dudley::cli
