// Writing any model tree (from any format the model reads) as a Dudley file.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "dudley/format.hpp"
#include "dudley/layout/write/writer.hpp"
#include "dudley/model/tree.hpp"

namespace dudley::layout {

/// A layout describing `tree`: its groups, lists and arrays with literal shapes, parameters
/// as fixed values, docs, struct types for compound elements, and a !DUDLEY signature.
/// Names Dudley cannot spell ('a/b', '1x') are respelled as unique C identifiers, the
/// source's name kept in a document line. Throws Error(kType) naming the item for an
/// element type Dudley cannot express (opaque, enum, variable-length, references) and
/// Error(kData) naming it for an item that could not be read, more than kMaxDimensions
/// dimensions or a struct without fields.
/// `notes`, when given, receives one line per kind of thing the layout does not keep (values
/// of the tree, masks) or keeps otherwise (respelled names), naming the first few items.
struct LayoutTextOptions {
  /// Each array at its stored place (`@ storage.offset`, where the tree has one) instead of
  /// packed one after the other: a layout that reads a file of another format in place.
  bool stored_addresses = false;
  /// Begin with the `!DUDLEY := S1[8]` signature (files of other formats have none).
  bool signature = true;
  /// Dimensions read from the file instead of written as numbers, by array path (the
  /// tree's names): each becomes a parameter read where the array's
  /// storage.extent_offsets says the file stores it (`t_n0 := <u8 @ 872`,
  /// `t = <f8[t_n0] @ 2048`). One layout then reads files whose arrays differ in shape.
  std::map<std::string, std::vector<size_t>> extent_parameters;
  /// A group's array Dudley has no type for (an HDF5 region reference), or that cannot be
  /// read, is left out and listed in `lost` instead of failing the whole layout; its path
  /// goes in `left_out`. Items of lists are never left out (the others' indices would move).
  bool leave_out_unwritable = false;
  std::set<std::string>* left_out = nullptr;
};
/// `lost`, when given, receives one line per item the layout cannot hold (an attribute, a
/// mask).
std::string layout_text_for(const model::Tree& tree, std::vector<std::string>* notes = nullptr,
                            const LayoutTextOptions& options = {},
                            std::vector<std::string>* lost = nullptr);

/// Writes `tree` as Dudley data file `data_path` plus its layout beside it, streaming each
/// array block by block (memory stays bounded). Returns the data file's size. What the
/// layout cannot hold (attributes, masks) is a LossError before anything is written,
/// unless `lossy`; `report`, when given, receives layout_text_for's notes and, in `lost`,
/// what a lossy write left out.
uint64_t write_tree(const model::Tree& tree, const std::string& data_path,
                    const WriteOptions& options = {}, SaveReport* report = nullptr,
                    bool lossy = false);

/// Writes `tree` as Dudley data file `data_path` described by `layout` (a family's
/// template, a layout agreed with another code) instead of one made from the tree: each data
/// item takes the tree's array at the same path (instances of counted and heterogeneous
/// arrays from the list or group there, pointees by key); items the tree lacks read as zeros;
/// parameters no shape sets take the source's value of the same name and group. Arrays of
/// the tree that no item took are listed in `unused`. Errors as Writer's (a shape or type
/// the layout does not allow names the item).
uint64_t write_tree_into(const model::Tree& tree, const Layout& layout,
                         const std::string& data_path, const WriteOptions& options = {},
                         std::vector<std::string>* unused = nullptr);

}  // namespace dudley::layout
